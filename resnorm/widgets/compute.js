// Cálculo puro de los widgets del curso: sin DOM, sin red, sin dependencias.
//
// Este módulo es la capa de cálculo de los widgets (la capa de dibujo vive en
// ui.js y el cableado en cada widget). Replica en float64 lo que hace
// `resnorm.numerics` en Python: varianza poblacional en dos pasadas y `eps`
// dentro de la raíz. Las pruebas (tests/test_widgets_js.py) lo ejecutan con
// Node y lo comparan con `resnorm` a 1e-9.
//
// Con valores enormes (1e200) o diminutos (1e-200) el cálculo directo
// desborda: (1e200)² no cabe en un double. Por eso se escala antes por una
// potencia de dos, 2^k, que es exacta en coma flotante: para entradas
// normales el resultado es idéntico bit a bit al cálculo directo, y para las
// extremas las magnitudes que no caben se muestran con logaritmos.

const SUPERSCRIPT = {
  "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴",
  "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹", "-": "⁻",
};
/** El signo menos tipográfico, el de la prosa (resnorm.book.MINUS). */
export const MINUS = "\u2212";
const LOG10_2 = Math.log10(2);

/** Un entero en superíndices: -400 → «⁻⁴⁰⁰». */
export function superscript(n) {
  return String(n).split("").map((c) => SUPERSCRIPT[c] ?? c).join("");
}

function withSign(negative, text) {
  return negative ? MINUS + text : text;
}

// Cifras decimales exactas de a ≥ 0 finito: {int, frac}. toFixed da el valor
// exacto del double hasta 100 decimales; por encima de 10²¹, BigInt (un double
// tan grande es un entero).
function exactDigits(a) {
  if (a >= 1e21) return { int: BigInt(a).toString(), frac: "" };
  const [int, frac] = a.toFixed(100).split(".");
  return { int, frac: frac.replace(/0+$/, "") };
}

// Redondea una cadena de cifras a `keep` cifras, al par en caso de empate (como
// Python): devuelve las cifras y si el redondeo añadió una cifra (99.9 → 100).
function roundDigits(digits, keep) {
  const head = digits.slice(0, keep).padEnd(keep, "0");
  const rest = digits.slice(keep);
  let up = false;
  if (rest.length > 0) {
    if (rest[0] > "5") up = true;
    else if (rest[0] === "5") {
      const tie = /^5?0*$/.test(rest);
      const last = keep > 0 ? Number(head[keep - 1]) : 0;
      up = !tie || last % 2 === 1;
    }
  }
  if (!up) return { digits: head, carry: false };
  const out = head.split("");
  let i = out.length - 1;
  while (i >= 0 && out[i] === "9") {
    out[i] = "0";
    i -= 1;
  }
  if (i < 0) return { digits: "1" + out.join(""), carry: true };
  out[i] = String(Number(out[i]) + 1);
  return { digits: out.join(""), carry: false };
}

/**
 * Gemelo de `resnorm.book.format_number`: `decimals` decimales fijos, signo «−»
 * y sin «−0.0000». Para un número finito da exactamente el mismo texto que Python
 * (redondeo al par en los empates); tests/test_widgets_js.py lo comprueba.
 */
export function formatFixed(x, decimals = 4) {
  if (typeof x !== "number" || !Number.isFinite(x)) return formatNumber(x, decimals);
  const { int, frac } = exactDigits(Math.abs(x));
  const r = roundDigits(int + frac, int.length + decimals);
  const n = r.digits.length - decimals;
  const intPart = r.digits.slice(0, n).replace(/^0+(?=\d)/, "");
  const text = decimals > 0 ? `${intPart}.${r.digits.slice(n)}` : intPart;
  return withSign(x < 0 && /[1-9]/.test(text), text);
}

/**
 * Gemelo de `resnorm.book.format_sci`: notación para lectores con `digits`
 * cifras significativas, «2.7 × 10⁻¹⁶». Mismo texto que Python para todo número
 * finito (tests/test_widgets_js.py).
 */
export function formatSci(x, digits = 2) {
  if (typeof x !== "number" || !Number.isFinite(x)) return formatNumber(x, digits);
  if (x === 0) return formatFixed(0, digits - 1);
  const a = Math.abs(x);
  let mant;
  let exp;
  if (a >= 1e-90) {
    const { int, frac } = exactDigits(a);
    const all = int + frac;
    const lead = all.search(/[1-9]/);
    exp = int.length - 1 - lead;
    const r = roundDigits(all.slice(lead), digits);
    if (r.carry) exp += 1;
    mant = r.digits.slice(0, digits);
  } else {
    // Tan pequeño no hay empates posibles: basta toExponential.
    const [m, e] = a.toExponential(digits - 1).split("e");
    mant = m.replace(".", "");
    exp = Number(e);
  }
  const m = digits > 1 ? `${mant[0]}.${mant.slice(1)}` : mant;
  return withSign(x < 0, `${m} × 10${superscript(exp)}`);
}

/**
 * Formatea un número para humanos.
 *
 * Fijo con `digits` decimales (0.0410, 1.0025) si 1e-4 ≤ |x| < 1e6
 * (`formatFixed`); si no, notación científica legible con `digits` decimales en
 * la mantisa: «1.2346 × 10²⁰⁰» (`formatSci`). El signo menos es «−». Nunca
 * devuelve «NaN», «Infinity» ni «undefined».
 */
export function formatNumber(x, digits = 4) {
  if (typeof x !== "number" || Number.isNaN(x)) return "no definido";
  if (!Number.isFinite(x)) return x > 0 ? "fuera de rango (+)" : "fuera de rango (−)";
  if (x === 0) return formatFixed(0, digits);
  const a = Math.abs(x);
  if (a >= 1e-4 && a < 1e6) return formatFixed(x, digits);
  return formatSci(x, digits + 1);
}

/**
 * Formatea ±10^log10abs sin construir el número (sirve aunque no quepa en un
 * double, p. ej. la varianza 1e400). Devuelve «≈ 1.0000 × 10⁴⁰⁰».
 */
export function formatFromLog10(log10abs, negative = false, digits = 4) {
  if (!Number.isFinite(log10abs)) return "no definido";
  let e = Math.floor(log10abs);
  let m = Math.pow(10, log10abs - e);
  let mant = m.toFixed(digits);
  if (Number(mant) >= 10) {
    e += 1;
    mant = (m / 10).toFixed(digits);
  }
  return "≈ " + withSign(negative, `${mant} × 10${superscript(e)}`);
}

/** Multiplica x por 2^k sin desbordar en los pasos intermedios. */
export function scalePow2(x, k) {
  let r = x;
  let left = k;
  while (left !== 0) {
    const step = Math.max(-1000, Math.min(1000, left));
    r *= Math.pow(2, step);
    left -= step;
  }
  return r;
}

/**
 * Una magnitud q = qs · 2^(k·power) calculada a escala. Devuelve su valor
 * (±Infinity o 0 si no cabe en un double) y un texto siempre legible.
 */
export function scaledQuantity(qs, k, power, digits = 4) {
  const value = scalePow2(qs, k * power);
  const fits = Number.isFinite(value) && (value !== 0 || qs === 0);
  // Un subnormal (|v| < 2.2e-308) ya perdió dígitos: mejor con logaritmos.
  const normal = value === 0 || Math.abs(value) >= 2.2250738585072014e-308;
  if (fits && normal) return { value, text: formatNumber(value, digits) };
  const log10abs = Math.log10(Math.abs(qs)) + k * power * LOG10_2;
  return { value, text: formatFromLog10(log10abs, qs < 0, digits) };
}

/**
 * El cuadrado de una magnitud d = ds · 2^k, calculado sin perderlo: (ds)² a
 * escala puede redondearse a 0 aunque d² quepa (con 1e200 y 1 en el mismo
 * vector, la escala 2⁶⁶⁴ hace diminuta la diferencia 0.25). Se eleva d sin
 * escalar si cabe; si no, con logaritmos.
 */
export function squaredQuantity(ds, k, digits = 4) {
  if (ds === 0) return { value: 0, text: formatNumber(0, digits) };
  const d = scalePow2(ds, k);
  const sq = d * d;
  if (Number.isFinite(sq) && sq >= 2.2250738585072014e-308) {
    return { value: sq, text: formatNumber(sq, digits) };
  }
  const log10abs = 2 * (Math.log10(Math.abs(ds)) + k * LOG10_2);
  const text = formatFromLog10(log10abs, false, digits);
  return { value: scalePow2(ds * ds, 2 * k), text };
}

/**
 * «= texto» o, si el texto ya es aproximado («≈ 1.0 × 10⁴⁰⁰»), solo el texto:
 * nunca «= ≈».
 */
export function equals(text) {
  return text.startsWith("≈") ? text : `= ${text}`;
}

const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Cuántos caracteres de lo escrito repite un mensaje de error, como mucho. */
export const ECHO_MAX = 40;

/**
 * Lo escrito, entre comillas, para citarlo en un mensaje de error: una entrada
 * de miles de caracteres se corta («…») y el mensaje sigue cabiendo en pantalla.
 */
export function quoteInput(text) {
  const chars = Array.from(text);
  const long = chars.length > ECHO_MAX;
  const shown = long ? chars.slice(0, ECHO_MAX - 1).join("") + "…" : text;
  return `«${shown}»`;
}

/**
 * Lee un número escrito por una persona.
 *
 * Acepta espacios alrededor, coma decimal («0,5»), signo «−» tipográfico y
 * exponente («1e3»). Devuelve {ok: true, value} o {ok: false, error} con un
 * mensaje en español (campo vacío, letras, NaN, infinito, desbordamiento).
 */
export function parseNumber(text) {
  if (text === null || text === undefined) {
    return { ok: false, error: "Campo vacío: escribe un número, por ejemplo 0.8." };
  }
  const raw = String(text);
  let s = raw.replace(/[\s\u00a0\u202f]+/g, " ").trim();
  if (s === "") {
    return { ok: false, error: "Campo vacío: escribe un número, por ejemplo 0.8." };
  }
  s = s.replace(/\u2212/g, "-");
  const lower = s.toLowerCase().replace(/^[+-]/, "");
  if (lower === "nan") {
    return {
      ok: false,
      error:
        "Ese es el valor especial «no es un número», no un número real: " +
        "escribe un número, por ejemplo 0.8.",
    };
  }
  if (["infinity", "inf", "∞", "infinito"].includes(lower)) {
    return {
      ok: false,
      error: "El infinito no es un valor válido: escribe un número finito.",
    };
  }
  const commas = (s.match(/,/g) || []).length;
  if (commas > 0 && s.includes(".")) {
    return {
      ok: false,
      error: `${quoteInput(s)} mezcla punto y coma: usa un solo separador decimal ` +
        "(0.5 o 0,5) y ninguno para los miles.",
    };
  }
  if (commas > 1) {
    return {
      ok: false,
      error: `${quoteInput(s)} tiene varias comas: usa una sola como separador ` +
        "decimal.",
    };
  }
  s = s.replace(",", ".");
  if (!NUMBER_RE.test(s)) {
    return {
      ok: false,
      error: `${quoteInput(raw.trim())} no es un número. Usa cifras, punto o coma ` +
        "decimal y, si quieres, exponente (1e3).",
    };
  }
  const value = Number(s);
  if (!Number.isFinite(value)) {
    return {
      ok: false,
      error: `${quoteInput(raw.trim())} es demasiado grande: no cabe en coma ` +
        "flotante de 64 bits (el máximo es ≈ 1.8 × 10³⁰⁸): escribe uno más pequeño.",
    };
  }
  if (value === 0 && /[1-9]/.test(s.split(/[eE]/)[0])) {
    return {
      ok: false,
      error: `${quoteInput(raw.trim())} es tan pequeño que en coma flotante de 64 ` +
        "bits se redondea a 0; si quieres cero, escribe 0.",
    };
  }
  return { ok: true, value: value === 0 ? 0 : value };
}

/**
 * Ruido de redondeo a cero: si |x| ≤ 1e-12 · max|v| (p. ej. la media de un
 * vector normalizado, 3.9 × 10⁻¹⁶), devuelve 0 para no mostrar «10⁻¹⁶» a
 * quien aprende que esa media es 0.
 */
export function cleanRoundoff(x, values) {
  let scale = 0;
  for (const v of values) scale = Math.max(scale, Math.abs(v));
  return Math.abs(x) <= 1e-12 * scale ? 0 : x;
}

/** Aplica parseNumber a cada texto: {ok, values, errors[i] (null si vale)}. */
export function parseVector(texts) {
  const results = texts.map(parseNumber);
  const errors = results.map((r) => (r.ok ? null : r.error));
  const ok = errors.every((e) => e === null);
  return { ok, values: ok ? results.map((r) => r.value) : null, errors };
}

/** Exponente k de una potencia de dos 2^k del orden de max|x| (0 si todo es 0). */
export function scaleExponent(values) {
  let m = 0;
  for (const v of values) m = Math.max(m, Math.abs(v));
  if (m === 0) return 0;
  const k = Math.floor(Math.log2(m));
  // En rango cómodo (2^±300, los cuadrados caben de sobra) no se escala: el
  // cálculo queda idéntico al directo.
  return Math.abs(k) <= 300 ? 0 : k;
}

function sum(values) {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

function allEqual(values) {
  return values.every((v) => v === values[0]);
}

/**
 * Media y desviación estándar poblacional (correction=0) de un vector, en dos
 * pasadas: μ = Σx/n, σ² = Σ(x − μ)²/n, σ = √σ².
 *
 * Números puros, sin textos; igual que `resnorm.mean` y `resnorm.std`
 * (Capítulo 3). Escala por 2^k si hace falta, así que σ es correcta aunque σ²
 * no quepa en un double.
 */
export function meanStd(values) {
  const n = values.length;
  if (n === 0) throw new Error("meanStd necesita al menos un valor.");
  const k = scaleExponent(values);
  const xs = values.map((v) => scalePow2(v, -k));
  const means = allEqual(xs) ? xs[0] : sum(xs) / n;
  const sq = xs.map((v) => (v - means) * (v - means));
  const vars = sum(sq) / n;
  return {
    mean: scalePow2(means, k),
    variance: scalePow2(vars, 2 * k),
    std: scalePow2(Math.sqrt(vars), k),
  };
}

/**
 * La receta de la media y la desviación estándar, paso a paso y con textos
 * listos para mostrar (Capítulo 3: media y desviación estándar).
 *
 * suma = Σxᵢ; μ = suma/n; dᵢ = xᵢ − μ; dᵢ²; σ² = Σdᵢ²/n; σ = √σ².
 * Cada magnitud es {value, text}: `value` es el número (puede ser ±Infinity
 * si no cabe en un double, p. ej. σ² con x ≈ 1e200) y `text` siempre es
 * legible. `constant` indica que todos los valores son iguales (σ = 0).
 */
export function meanStdRecipe(values, digits = 4) {
  const n = values.length;
  if (n === 0) throw new Error("meanStdRecipe necesita al menos un valor.");
  const k = scaleExponent(values);
  const xs = values.map((v) => scalePow2(v, -k));
  const sums = sum(xs);
  const constant = allEqual(xs);
  const means = constant ? xs[0] : sums / n;
  const devs = xs.map((v) => (constant ? 0 : v - means));
  const sq = devs.map((d) => d * d);
  const vars = sum(sq) / n;
  const stds = Math.sqrt(vars);
  const q = (v, p) => scaledQuantity(v, k, p, digits);
  return {
    n,
    k,
    constant,
    inputs: values.map((v) => ({ value: v, text: formatNumber(v, digits) })),
    sum: q(sums, 1),
    mean: q(means, 1),
    deviations: devs.map((d) => q(d, 1)),
    squaredDeviations: devs.map((d) => squaredQuantity(d, k, digits)),
    sumSquares: q(sum(sq), 2),
    variance: q(vars, 2),
    std: q(stds, 1),
    overflow: !Number.isFinite(scalePow2(vars, 2 * k)),
  };
}

/**
 * LayerNorm paso a paso sobre un vector (Capítulo 4: LayerNorm).
 *
 * y = γ ⊙ (x − μ)/√(σ² + ε) + β, con σ² poblacional. Mismos campos que
 * `resnorm.layer_norm_steps`: mean, centered, squaredDeviations, variance,
 * std (= √σ², sin ε), denominator (= √(σ² + ε)), normalized, output,
 * outputMean, outputStd. Si σ = 0 y ε = 0 no hay división posible:
 * `degenerate` es true, `message` lo explica y los vectores normalizados son
 * null (nunca NaN). `gamma` y `beta` por defecto: 1 y 0.
 */
export function layerNormSteps(x, gamma = null, beta = null, eps = undefined) {
  const n = x.length;
  if (n === 0) throw new Error("layerNormSteps necesita al menos un valor.");
  const g = gamma ?? x.map(() => 1);
  const b = beta ?? x.map(() => 0);
  if (g.length !== n || b.length !== n) {
    throw new Error("γ y β deben tener la misma longitud que x.");
  }
  if (!(eps >= 0) || !Number.isFinite(eps)) {
    throw new Error("ε debe ser un número finito mayor o igual que 0.");
  }
  const k = scaleExponent(x);
  const xs = x.map((v) => scalePow2(v, -k));
  const constant = allEqual(xs);
  const means = constant ? xs[0] : sum(xs) / n;
  const centereds = xs.map((v) => (constant ? 0 : v - means));
  const sq = centereds.map((d) => d * d);
  const vars = sum(sq) / n;
  const dens = constant ? 0 : Math.sqrt(vars + scalePow2(eps, -2 * k));
  const result = {
    x: x.slice(),
    gamma: g.slice(),
    beta: b.slice(),
    eps,
    k,
    constant,
    mean: scalePow2(means, k),
    centered: centereds.map((d) => scalePow2(d, k)),
    squaredDeviations: sq.map((s) => scalePow2(s, 2 * k)),
    variance: scalePow2(vars, 2 * k),
    varianceText: scaledQuantity(vars, k, 2).text,
    std: scalePow2(Math.sqrt(vars), k),
    // Con σ = 0 el denominador es √ε exactamente (sin escalar: ε no desborda).
    denominator: constant ? Math.sqrt(eps) : scalePow2(dens, k),
    degenerate: false,
    message: null,
    normalized: null,
    output: null,
    outputMean: null,
    outputStd: null,
  };
  if (constant && eps === 0) {
    result.degenerate = true;
    result.message =
      "Los valores son todos iguales: σ = 0 y, con ε = 0, habría que dividir " +
      "0 entre 0. Por eso LayerNorm usa √(σ² + ε): con ε > 0 el centrado " +
      "(todo ceros) se divide entre √ε y la salida queda en β.";
    return result;
  }
  const normalized = centereds.map((d) => (constant ? 0 : d / dens));
  const output = normalized.map((v, i) => g[i] * v + b[i]);
  const stats = meanStd(output);
  result.normalized = normalized;
  result.output = output;
  result.outputMean = stats.mean;
  result.outputStd = stats.std;
  if (constant) {
    result.message =
      "Los valores son todos iguales: σ = 0. Gracias a ε > 0 el denominador " +
      `es √ε = ${formatNumber(result.denominator)} y no hay división entre ` +
      "cero: el vector centrado es todo ceros y la salida es β.";
  }
  return result;
}

/**
 * La suma residual con la subcapa escalada (Capítulo 2: conexión
 * residual): y = x + α·F(x). Con α = 0, y = x: la identidad sale gratis.
 * Devuelve también la similitud coseno entre y y x (cuánto conserva el perfil
 * de la entrada) y las normas.
 */
export function residualSum(x, fx, alpha = 1) {
  if (x.length !== fx.length) {
    throw new Error("x y F(x) deben tener la misma longitud.");
  }
  if (!Number.isFinite(alpha)) throw new Error("α debe ser un número finito.");
  const update = fx.map((v) => alpha * v);
  const output = x.map((v, i) => v + update[i]);
  const dot = (a, c) => a.reduce((acc, v, i) => acc + v * c[i], 0);
  const normX = Math.sqrt(dot(x, x));
  const normOut = Math.sqrt(dot(output, output));
  const cosine = normX > 0 && normOut > 0 ? dot(x, output) / (normX * normOut) : null;
  return {
    alpha,
    update,
    output,
    normX,
    normOutput: normOut,
    cosine,
    identity: alpha === 0,
  };
}

/**
 * Marcas de un eje logarítmico: potencias de 10 entre lo y hi (ambos > 0).
 * Si hay demasiadas, salta décadas para dejar como mucho `maxTicks`.
 */
export function logTicks(lo, hi, maxTicks = 8) {
  if (!(lo > 0) || !(hi > 0) || !Number.isFinite(lo) || !Number.isFinite(hi)) {
    return [];
  }
  const a = Math.floor(Math.log10(Math.min(lo, hi)));
  const c = Math.ceil(Math.log10(Math.max(lo, hi)));
  const span = Math.max(1, c - a);
  const step = Math.max(1, Math.ceil(span / Math.max(1, maxTicks - 1)));
  // Desde arriba: la década superior siempre lleva etiqueta.
  const ticks = [];
  for (let e = c; e >= a; e -= step) ticks.push(e);
  if (ticks[ticks.length - 1] > a) ticks.push(ticks[ticks.length - 1] - step);
  return ticks.reverse();
}

/** Rango de un eje log: [10^a, 10^c] que contiene todos los valores > 0. */
export function logRange(values) {
  const pos = values.filter(
    (v) => typeof v === "number" && v > 0 && Number.isFinite(v),
  );
  if (pos.length === 0) return [0, 1];
  const lo = Math.floor(Math.log10(Math.min(...pos)));
  let hi = Math.ceil(Math.log10(Math.max(...pos)));
  if (hi === lo) hi = lo + 1;
  return [lo, hi];
}

/**
 * Marcas «redondas» (1, 2 o 5 × 10^e) para un eje lineal que cubra [lo, hi].
 */
export function linearTicks(lo, hi, count = 5) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (lo === hi) {
    lo -= 1;
    hi += 1;
  }
  const raw = (hi - lo) / Math.max(1, count);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const nice = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? 10 * mag;
  const start = Math.floor(lo / nice) * nice;
  const ticks = [];
  for (let t = start; t <= hi + nice * 1e-9; t += nice) {
    const r = Math.round(t / nice) * nice;
    ticks.push(Math.abs(r) < nice * 1e-9 ? 0 : r);
  }
  return ticks;
}

/**
 * Rango vertical simétrico y «redondo» para barras con signo: incluye el 0 y
 * todos los valores finitos. Devuelve [lo, hi].
 */
export function barRange(values, minSpan = 1) {
  const finite = values.filter((v) => typeof v === "number" && Number.isFinite(v));
  let lo = Math.min(0, ...finite);
  let hi = Math.max(0, ...finite);
  if (hi - lo < minSpan) {
    const pad = (minSpan - (hi - lo)) / 2;
    if (lo === 0) hi = lo + minSpan;
    else if (hi === 0) lo = hi - minSpan;
    else {
      lo -= pad;
      hi += pad;
    }
  }
  const ticks = linearTicks(lo, hi, 4);
  const step = ticks.length > 1 ? ticks[1] - ticks[0] : 1;
  return [Math.floor(lo / step - 1e-9) * step, Math.ceil(hi / step + 1e-9) * step];
}
