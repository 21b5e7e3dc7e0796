// El GPT diminuto del capítulo 10 en el navegador: cálculo puro, sin DOM ni red.
//
// Gemelo de `resnorm.gpt.TinyGPT` (embedding de token y de posición, autoatención
// causal, FFN con GELU exacta, LayerNorm y los cinco bloques) para los pesos que
// exporta `resnorm.gpt.export_weights`. Los pesos se guardan en float32, como en
// PyTorch; las activaciones, en float64. tests/test_gpt_js.py lo ejecuta con Node y
// compara los logits con PyTorch (≤ 1e-4).

/** Las cinco configuraciones, en el orden de resnorm.gpt.CONFIGS. */
export const GPT_CONFIGS = ["plain", "ln_only", "residual", "post_ln", "pre_ln"];
const FORMAT = "resnorm-gpt-1";

/**
 * Los tensores de `buffer` (ArrayBuffer o Uint8Array) según `entries`
 * ([{name, shape, dtype, offset}], de export_weights): {nombre: Float32Array}.
 * «q8»: int8 por fila con su escala float32 delante, w = s_r · q_rj.
 */
export function decodeWeights(buffer, entries) {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = {};
  for (const e of entries) {
    const n = e.shape.reduce((a, b) => a * b, 1);
    const w = new Float32Array(n);
    if (e.dtype === "q8") {
      const [rows, cols] = e.shape;
      const q0 = e.offset + 4 * rows;
      if (q0 + n > bytes.byteLength) throw new Error(`faltan datos de ${e.name}`);
      for (let r = 0; r < rows; r += 1) {
        const scale = view.getFloat32(e.offset + 4 * r, true);
        for (let c = 0; c < cols; c += 1) {
          w[r * cols + c] = scale * view.getInt8(q0 + r * cols + c);
        }
      }
    } else if (e.dtype === "f32") {
      if (e.offset + 4 * n > bytes.byteLength) {
        throw new Error(`faltan datos de ${e.name}`);
      }
      for (let i = 0; i < n; i += 1) w[i] = view.getFloat32(e.offset + 4 * i, true);
    } else {
      throw new Error(`${e.name}: tipo ${e.dtype} desconocido`);
    }
    out[e.name] = w;
  }
  return out;
}

/** Base64 (el de un data: URL) → Uint8Array, sin fetch. */
export function base64Bytes(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i += 1) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Un modelo listo para `forward`: `meta` = {format, config, n_layers, d_model,
 * n_heads, block_size, vocab_size, eps, tensors}; `weights` = decodeWeights(...).
 */
export function makeModel(meta, weights) {
  if (meta.format !== FORMAT) throw new Error(`formato ${meta.format} desconocido`);
  if (!GPT_CONFIGS.includes(meta.config)) throw new Error(`config ${meta.config}`);
  return {
    config: meta.config,
    nLayers: meta.n_layers,
    C: meta.d_model,
    nHeads: meta.n_heads,
    blockSize: meta.block_size,
    V: meta.vocab_size,
    eps: meta.eps,
    w: weights,
  };
}

// erfc de Numerical Recipes (erfcc, Chebyshev): error relativo < 1.2e-7, por debajo
// de la precisión de float32 con que PyTorch calcula la GELU.
function erf(x) {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 +
    t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 +
    t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? 1 - r : r - 1;
}

/** GELU exacta, la de nn.GELU(): x·Φ(x) = x/2 · (1 + erf(x/√2)). */
export function gelu(x) {
  return 0.5 * x * (1 + erf(x / Math.SQRT2));
}

// y (T, out) = x (T, in) · Wᵀ + b, con W (out, in) por filas, como nn.Linear.
function linear(x, T, nIn, W, b, nOut) {
  const y = new Float64Array(T * nOut);
  for (let t = 0; t < T; t += 1) {
    const xo = t * nIn;
    for (let o = 0; o < nOut; o += 1) {
      const wo = o * nIn;
      let acc = b ? b[o] : 0;
      for (let i = 0; i < nIn; i += 1) acc += W[wo + i] * x[xo + i];
      y[t * nOut + o] = acc;
    }
  }
  return y;
}

// LayerNorm por posición: media y varianza poblacional en dos pasadas, ε en la raíz.
function layerNorm(x, T, C, gamma, beta, eps) {
  const y = new Float64Array(T * C);
  for (let t = 0; t < T; t += 1) {
    const o = t * C;
    let mu = 0;
    for (let i = 0; i < C; i += 1) mu += x[o + i];
    mu /= C;
    let v = 0;
    for (let i = 0; i < C; i += 1) v += (x[o + i] - mu) ** 2;
    v /= C;
    const inv = 1 / Math.sqrt(v + eps);
    for (let i = 0; i < C; i += 1) {
      y[o + i] = gamma[i] * (x[o + i] - mu) * inv + beta[i];
    }
  }
  return y;
}

// Autoatención causal multicabeza: softmax(Q Kᵀ / √d_k) V por cabeza, y c_proj.
function attention(model, p, x, T) {
  const { C, nHeads, w } = model;
  const hs = C / nHeads;
  const qkv = linear(x, T, C, w[`${p}.c_attn.weight`], w[`${p}.c_attn.bias`], 3 * C);
  const y = new Float64Array(T * C);
  const att = new Float64Array(T);
  const scale = 1 / Math.sqrt(hs);
  for (let h = 0; h < nHeads; h += 1) {
    for (let t = 0; t < T; t += 1) {
      const q = t * 3 * C + h * hs;
      let max = -Infinity;
      for (let s = 0; s <= t; s += 1) {
        const k = s * 3 * C + C + h * hs;
        let dot = 0;
        for (let i = 0; i < hs; i += 1) dot += qkv[q + i] * qkv[k + i];
        att[s] = dot * scale;
        if (att[s] > max) max = att[s];
      }
      let sum = 0;
      for (let s = 0; s <= t; s += 1) {
        att[s] = Math.exp(att[s] - max);
        sum += att[s];
      }
      const out = t * C + h * hs;
      for (let s = 0; s <= t; s += 1) {
        const a = att[s] / sum;
        const v = s * 3 * C + 2 * C + h * hs;
        for (let i = 0; i < hs; i += 1) y[out + i] += a * qkv[v + i];
      }
    }
  }
  return linear(y, T, C, w[`${p}.c_proj.weight`], w[`${p}.c_proj.bias`], C);
}

// FFN: c_proj(GELU(c_fc(x))).
function mlp(model, p, x, T) {
  const { C, w } = model;
  const dff = w[`${p}.c_fc.bias`].length;
  const hidden = linear(x, T, C, w[`${p}.c_fc.weight`], w[`${p}.c_fc.bias`], dff);
  for (let i = 0; i < hidden.length; i += 1) hidden[i] = gelu(hidden[i]);
  return linear(hidden, T, dff, w[`${p}.c_proj.weight`], w[`${p}.c_proj.bias`], C);
}

function add(a, b) {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i += 1) out[i] = a[i] + b[i];
  return out;
}

// Un bloque de la configuración del modelo (resnorm.gpt: VariantBlock, PostLNBlock,
// PreLNBlock).
function block(model, i, x, T) {
  const p = `blocks.${i}`;
  const { C, w, eps } = model;
  const ln = (y, k) =>
    layerNorm(y, T, C, w[`${p}.ln_${k}.weight`], w[`${p}.ln_${k}.bias`], eps);
  const attn = (y) => attention(model, `${p}.attn`, y, T);
  const ffn = (y) => mlp(model, `${p}.mlp`, y, T);
  switch (model.config) {
    case "plain": // x ← Attn(x), x ← FFN(x)
      return ffn(attn(x));
    case "ln_only": // x ← LN(Attn(x)), x ← LN(FFN(x))
      return ln(ffn(ln(attn(x), 1)), 2);
    case "residual": { // x ← x + Attn(x), x ← x + FFN(x)
      const y = add(x, attn(x));
      return add(y, ffn(y));
    }
    case "post_ln": { // x ← LN(x + Attn(x)), x ← LN(x + FFN(x))
      const y = ln(add(x, attn(x)), 1);
      return ln(add(y, ffn(y)), 2);
    }
    default: { // pre_ln: x ← x + Attn(LN(x)), x ← x + FFN(LN(x))
      const y = add(x, attn(ln(x, 1)));
      return add(y, ffn(ln(y, 2)));
    }
  }
}

// Media sobre las posiciones de ‖x_t‖ y de ‖x_t − x̄‖ (x̄, la media de las
// posiciones): el tamaño del flujo y lo que distingue a una posición de las demás.
function streamStats(x, T, C) {
  const mean = new Float64Array(C);
  for (let t = 0; t < T; t += 1) {
    for (let i = 0; i < C; i += 1) mean[i] += x[t * C + i] / T;
  }
  let norm = 0;
  let spread = 0;
  for (let t = 0; t < T; t += 1) {
    let a = 0;
    let b = 0;
    for (let i = 0; i < C; i += 1) {
      const v = x[t * C + i];
      a += v * v;
      b += (v - mean[i]) ** 2;
    }
    norm += Math.sqrt(a) / T;
    spread += Math.sqrt(b) / T;
  }
  return { norm, spread };
}

/**
 * La pasada hacia delante de `ids` (índices, como mucho blockSize): logits (T, V)
 * por filas y, si `stats`, las medidas del flujo a la entrada, tras cada
 * bloque y tras ln_f (null si el modelo no la tiene): {norm: [...], spread: [...]}.
 */
export function forward(model, ids, { stats = false, lastOnly = false } = {}) {
  const { C, V, w, blockSize } = model;
  const T = ids.length;
  if (T < 1 || T > blockSize) {
    throw new Error(`hacen falta de 1 a ${blockSize} índices`);
  }
  let x = new Float64Array(T * C);
  const wte = w["wte.weight"];
  const wpe = w["wpe.weight"];
  for (let t = 0; t < T; t += 1) {
    const id = ids[t];
    if (!(id >= 0 && id < V)) throw new Error(`índice ${id} fuera del vocabulario`);
    for (let i = 0; i < C; i += 1) x[t * C + i] = wte[id * C + i] + wpe[t * C + i];
  }
  const norm = [];
  const spread = [];
  const record = (y) => {
    if (!stats) return;
    const st = streamStats(y, T, C);
    norm.push(st.norm);
    spread.push(st.spread);
  };
  record(x);
  for (let i = 0; i < model.nLayers; i += 1) {
    x = block(model, i, x, T);
    record(x);
  }
  if (model.config === "pre_ln") {
    x = layerNorm(x, T, C, w["ln_f.weight"], w["ln_f.bias"], model.eps);
    record(x);
  } else if (stats) {
    norm.push(null);
    spread.push(null);
  }
  const rows = lastOnly ? x.subarray((T - 1) * C) : x;
  const logits = linear(rows, lastOnly ? 1 : T, C, w["lm_head.weight"],
    w["lm_head.bias"], V);
  return { logits, stats: stats ? { norm, spread } : null };
}

/** softmax(logits / temperature) de una fila, en float64. */
export function softmax(row, temperature = 1) {
  let max = -Infinity;
  for (const v of row) if (v / temperature > max) max = v / temperature;
  const p = new Float64Array(row.length);
  let sum = 0;
  for (let i = 0; i < row.length; i += 1) {
    p[i] = Math.exp(row[i] / temperature - max);
    sum += p[i];
  }
  for (let i = 0; i < p.length; i += 1) p[i] /= sum;
  return p;
}

/**
 * −ln p(carácter siguiente) en cada posición de `ids` (T − 1 valores: el primer
 * carácter no tiene contexto) y la pasada con sus medidas del flujo.
 */
export function charLosses(model, ids) {
  const out = forward(model, ids, { stats: true });
  const losses = [];
  for (let t = 0; t + 1 < ids.length; t += 1) {
    const row = out.logits.subarray(t * model.V, (t + 1) * model.V);
    losses.push(-Math.log(softmax(row)[ids[t + 1]]));
  }
  return { losses, stats: out.stats };
}

/**
 * Generador pseudoaleatorio mulberry32 con semilla entera: devuelve una función
 * que da números en [0, 1). Su gemelo de Python:
 * resnorm.widgets.gpt_playground.mulberry32.
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** El índice que sortea `u` ∈ [0, 1) con las probabilidades `p` (CDF inversa). */
export function pick(p, u) {
  let acc = 0;
  for (let i = 0; i < p.length; i += 1) {
    acc += p[i];
    if (u < acc) return i;
  }
  let last = p.length - 1;
  while (last > 0 && p[last] === 0) last -= 1;
  return last;
}

/**
 * Un paso de generación: el carácter siguiente de `ids` (con los últimos blockSize
 * como contexto). `temperature` = 0 es la decodificación voraz (argmax); si no, se
 * sortea con `rng()`.
 */
export function nextId(model, ids, temperature, rng) {
  const context = ids.slice(-model.blockSize);
  const { logits } = forward(model, context, { lastOnly: true });
  if (!(temperature > 0)) {
    let best = 0;
    for (let i = 1; i < logits.length; i += 1) if (logits[i] > logits[best]) best = i;
    return best;
  }
  return pick(softmax(logits, temperature), rng());
}

/** `n` caracteres más para `ids` (ver nextId); devuelve solo los nuevos. */
export function generate(model, ids, n, { temperature = 1, seed = 0 } = {}) {
  const rng = mulberry32(seed);
  const all = ids.slice();
  for (let k = 0; k < n; k += 1) all.push(nextId(model, all, temperature, rng));
  return all.slice(ids.length);
}

/**
 * Comprueba el texto del lector: {ids} si todos sus caracteres están en `chars`
 * (el vocabulario) y su longitud va de 1 a `maxLength`; si no, {error} en español.
 */
export function encodeText(text, chars, maxLength) {
  const index = new Map(chars.map((c, i) => [c, i]));
  const letters = Array.from(text ?? "");
  if (letters.length === 0) {
    return { error: "Escribe el comienzo de una frase (al menos un carácter)." };
  }
  if (letters.length > maxLength) {
    return {
      error: `El modelo mira como mucho ${maxLength} caracteres hacia atrás: ` +
        `escribe ${maxLength} o menos (ahora hay ${letters.length}).`,
    };
  }
  const bad = [...new Set(letters.filter((c) => !index.has(c)))];
  if (bad.length > 0) {
    const shown = bad.slice(0, 8).map((c) => (c === " " ? "espacio" : `«${c}»`));
    const more = bad.length > 8 ? ` y ${bad.length - 8} más` : "";
    const word = bad.length === 1
      ? "Este carácter no está" : "Estos caracteres no están";
    return {
      error: `${word} en el texto del curso con que aprendió el modelo: ` +
        `${shown.join(", ")}${more}. Cámbialos por letras del español, cifras o ` +
        "signos de puntuación corrientes.",
      bad,
    };
  }
  return { ids: letters.map((c) => index.get(c)) };
}
