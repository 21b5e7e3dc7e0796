// Cálculo puro de las preguntas (sin DOM): leer lo que escribe una persona y
// decidir si acierta, si comete un error típico o si hace falta una pista.
// Probado con Node en tests/test_quiz.py.

const NUMBER_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
// Espacios dentro de un número solo como separador de miles: 1 000, 12 288,5.
const GROUPED_RE = /^[+-]?\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?:[.,]\d+)?$/;

// La notación de la página para lectores (format_sci de resnorm.book): 4.0 × 10⁻⁵,
// y como se teclea: 4.0 x 10^-5, 4,0·10**-5. El exponente, en superíndice o no.
const SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹";
const SPACE = "[\\s\u00a0\u2009\u202f]*";
const TIMES_TEN_RE = new RegExp(
  `^(?:(.*?)${SPACE}[\u00d7\u00b7\u22c5xX*]${SPACE})?10${SPACE}` +
  `(?:([\u207b\u207a]?[${SUPERSCRIPTS}]+)|(?:\\^|\\*\\*)${SPACE}([+-]?\\d+))$`,
);
// Una unidad escrita tras el número: «16 MiB», «16MB».
const UNIT_RE = /^(.*\d\.?)[\s\u00a0\u2009\u202f]*([a-zA-Z\u00b5]{1,4})$/;

/**
 * Lee una respuesta numérica tal como la escribe una persona (coma o punto), también
 * con la notación de la página (4.0 × 10⁻⁵). ``unit`` es la unidad de la pregunta
 * («MiB»): escrita detrás del número, se acepta; si se escribe otra, el resultado lo
 * dice en ``otherUnit`` para que ``checkNumeric`` la nombre.
 */
export function parseAnswer(text, unit) {
  const raw = String(text === null || text === undefined ? "" : text);
  let s = raw.trim();
  if (s === "") {
    return { ok: false, message: "Escribe tu respuesta antes de comprobarla." };
  }
  s = s.replace(/[\u2212\u2013\u2012]/g, "-");
  if (/[\r\n]/.test(s)) {
    return {
      ok: false,
      message:
        "Escribe un solo número, en una línea: lo que pegaste tiene varias " +
        `(«${shortText(raw.trim().replace(/\s*[\r\n]+\s*/g, " ↵ "))}»).`,
    };
  }
  const withUnit = unit ? UNIT_RE.exec(s) : null;
  if (withUnit && !/^e$/i.test(withUnit[2])) {
    const number = parseAnswer(withUnit[1]);
    if (!number.ok) return number;
    if (withUnit[2].toLowerCase() !== String(unit).toLowerCase()) {
      number.otherUnit = withUnit[2];
    }
    return number;
  }
  const power = TIMES_TEN_RE.exec(s);
  if (power) {
    const exponent = Number(power[3] !== undefined ? power[3] : power[2]
      .replace("\u207b", "-").replace("\u207a", "")
      .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹]/g, (c) => String(SUPERSCRIPTS.indexOf(c))));
    const mantissa = power[1] === undefined ? { ok: true, value: 1, decimals: 0 }
      : parseAnswer(power[1]);
    if (!mantissa.ok) return notANumber(raw);
    // Con la mantisa como texto y el exponente detrás, 4.0e-5 se lee como lo escribe
    // JavaScript (4.0 * 10 ** -5 daría 4.0000000000000003e-5).
    const result = finite(/e/i.test(String(mantissa.value))
      ? mantissa.value * 10 ** exponent : Number(`${mantissa.value}e${exponent}`));
    // 4.0 × 10⁻⁵ tiene la precisión de 0.000040: 6 decimales.
    if (result.ok && Number.isInteger(mantissa.decimals)) {
      result.decimals = mantissa.decimals - exponent;
    }
    return result;
  }
  const spaced = s.replace(/\s*([/])\s*/g, "$1").replace(/^([+-])\s+/, "$1");
  // «1 2», «1 ,5» y también «1, 002»: un espacio tras la coma separa dos números.
  if (/[\d.,][\s\u00a0\u2009\u202f]+[\d.,]/.test(spaced) && !GROUPED_RE.test(spaced)) {
    return {
      ok: false,
      message:
        `«${shortText(raw.trim())}» parecen varios números: escribe uno solo. Si es ` +
        "un número grande, agrupa las cifras de tres en tres (12\u00a0288) o júntalas.",
    };
  }
  s = spaced.replace(/[\s\u00a0\u2009\u202f]+/g, "").replace(/^\+/, "");
  const fraction = s.split("/");
  if (fraction.length === 2) {
    const top = parseAnswer(fraction[0]);
    const bottom = parseAnswer(fraction[1]);
    if (!top.ok || !bottom.ok) return notANumber(raw);
    if (bottom.value === 0) {
      return { ok: false, message: "Esa fracción divide entre 0: no es un número." };
    }
    return finite(top.value / bottom.value);
  }
  const commas = (s.match(/,/g) || []).length;
  const dots = (s.match(/\./g) || []).length;
  if (commas + dots > 1) {
    return {
      ok: false,
      message:
        "Usa un solo separador decimal, coma o punto (0,25 o 0.25), " +
        "sin separador de miles.",
    };
  }
  s = s.replace(",", ".");
  if (!NUMBER_RE.test(s)) return notANumber(raw);
  const result = finite(Number(s));
  // Cuántos decimales escribió (sin exponente): para reconocer un redondeo.
  const plain = /^[+-]?(\d*)\.?(\d*)$/.exec(s);
  if (result.ok && plain) result.decimals = plain[2].length;
  return result;
}

function shortText(text) {
  const t = String(text);
  return t.length > 24 ? `${t.slice(0, 23)}…` : t;
}

function notANumber(raw) {
  const shown = shortText(String(raw).trim());
  return {
    ok: false,
    message: `No entiendo «${shown}» como número. Escribe, por ejemplo, 0,25 o 0.25.`,
  };
}

function finite(value) {
  if (!Number.isFinite(value)) {
    return {
      ok: false,
      message:
        "Ese número es demasiado grande para comprobarlo: revisa el exponente.",
    };
  }
  return { ok: true, value };
}

/**
 * Compara una respuesta con la pregunta: «correct», «rounded» (es la respuesta, pero
 * redondeada a menos decimales de los que pide la tolerancia), «mistake» (con el
 * error típico que coincide, si está cerca de la respuesta y el mensaje que lo
 * explica), «sign» (sobra o falta un signo menos) o «wrong».
 * ``decimals`` es cuántos decimales escribió la persona (``parseAnswer``).
 */
export function checkNumeric(question, value, decimals, otherUnit) {
  const tol = question.tol;
  if (otherUnit && Math.abs(value - question.answer) <= tol) {
    return { status: "unit", unit: question.unit, otherUnit };
  }
  if (Math.abs(value - question.answer) <= tol) return { status: "correct" };
  if (Number.isInteger(decimals)) {
    const half = 0.5 * 10 ** -decimals;
    if (half > tol && Math.abs(value - question.answer) <= half * (1 + 1e-9)) {
      return { status: "rounded", decimals, needed: decimalsFor(tol) };
    }
  }
  for (const mistake of question.mistakes || []) {
    if (Math.abs(value - mistake.value) <= tol) {
      return {
        status: "mistake",
        mistake,
        close: isClose(mistake.value, question.answer),
        message: mistakeText(question, mistake),
      };
    }
  }
  if (question.answer !== 0 && Math.abs(-value - question.answer) <= tol) {
    return { status: "sign" };
  }
  return { status: "wrong" };
}

/** Lo que se dice cuando el número es el de la respuesta pero la unidad no. */
export function unitText(result) {
  return `Vas bien: ese número es la respuesta en ${result.unit}, pero escribiste ` +
    `«${result.otherUnit}». La pregunta pide ${result.unit}: escribe el número solo o ` +
    `con «${result.unit}».`;
}

// Un error típico está «cerca» si se aparta de la respuesta como mucho un 10 % de
// ella: 1.654 frente a 1.657 (σ redondeada antes de dividir) o 13 frente a 12 sí;
// 86.4 frente a 4·10⁻⁵ (0.9 × 96 en vez de 0.9⁹⁶), no.
export const CLOSE_FRACTION = 0.1;

/** ¿Está ``value`` cerca de ``answer`` (a un 10 % de ella como mucho)? */
export function isClose(value, answer) {
  return Math.abs(value - answer) <= CLOSE_FRACTION * Math.abs(answer);
}

/**
 * El mensaje de un error típico reconocido: «Casi: …» solo si el error está cerca de
 * la respuesta; si no, «Todavía no: …».
 */
export function mistakeText(question, mistake) {
  const opening = isClose(mistake.value, question.answer) ? "Casi" : "Todavía no";
  return `${opening}: ${mistake.name}. ${mistake.explanation}`;
}

/** Los decimales que hacen falta para caer dentro de ±tol al redondear. */
export function decimalsFor(tol) {
  let d = 0;
  while (0.5 * 10 ** -d > tol && d < 12) d += 1;
  return d;
}

/** «2 decimales», «1 decimal», «ningún decimal». */
export function decimalsText(n) {
  if (n === 0) return "ningún decimal";
  return n === 1 ? "1 decimal" : `${n} decimales`;
}

function isPlainObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Lo guardado en este navegador, reparado: cualquier cosa que no tenga la forma
 * {chapters: {capítulo: {id: {v, ok, a}}}} (un array, un texto, un JSON roto que
 * otra versión dejó) se descarta pieza a pieza, sin perder lo que sí la tiene.
 */
export function repairStore(data) {
  const out = { chapters: {} };
  if (!isPlainObject(data) || !isPlainObject(data.chapters)) return out;
  for (const [chapter, saved] of Object.entries(data.chapters)) {
    if (!isPlainObject(saved)) continue;
    const clean = {};
    for (const [id, entry] of Object.entries(saved)) {
      if (!isPlainObject(entry) || typeof entry.v !== "string") continue;
      clean[id] = { v: entry.v, ok: entry.ok === true };
      if (typeof entry.a === "string" || typeof entry.a === "number") clean[id].a = entry.a;
    }
    out.chapters[chapter] = clean;
  }
  return out;
}

/**
 * La entrada que se guarda tras un intento: el progreso nunca retrocede. Si la
 * pregunta (en esta versión) ya estaba bien contestada, un intento fallido después
 * no le quita el acierto: se queda la respuesta buena.
 */
export function mergeEntry(previous, entry) {
  if (previous && previous.ok && previous.v === entry.v && !entry.ok) return previous;
  return entry;
}

/** Cuántas preguntas del capítulo están bien contestadas en la versión actual. */
export function chapterProgress(chapterQuestions, saved) {
  const ids = Object.keys(chapterQuestions || {});
  let done = 0;
  for (const id of ids) {
    const entry = (saved || {})[id];
    if (entry && entry.ok && entry.v === chapterQuestions[id]) done += 1;
  }
  return { done, total: ids.length };
}

/** «3 de 4 preguntas», en español. */
export function progressText(done, total) {
  const noun = total === 1 ? "pregunta" : "preguntas";
  return `${done} de ${total} ${noun}`;
}
