// Cálculo puro de las preguntas (sin DOM): leer lo que escribe una persona y
// decidir si acierta, si comete un error típico o si hace falta una pista.
// Probado con Node en tests/test_quiz.py.

const NUMBER_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

/** Lee una respuesta numérica tal como la escribe una persona (coma o punto). */
export function parseAnswer(text) {
  const raw = String(text === null || text === undefined ? "" : text);
  let s = raw.trim();
  if (s === "") {
    return { ok: false, message: "Escribe tu respuesta antes de comprobarla." };
  }
  s = s
    .replace(/[\u2212\u2013\u2012]/g, "-")
    .replace(/[\s\u00a0\u2009\u202f]+/g, "")
    .replace(/^\+/, "");
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
  return finite(Number(s));
}

function notANumber(raw) {
  const shown = String(raw).trim().slice(0, 20);
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
 * Compara una respuesta con la pregunta: «correct», «mistake» (con el error típico
 * que coincide), «sign» (sobra o falta un signo menos) o «wrong».
 */
export function checkNumeric(question, value) {
  const tol = question.tol;
  if (Math.abs(value - question.answer) <= tol) return { status: "correct" };
  for (const mistake of question.mistakes || []) {
    if (Math.abs(value - mistake.value) <= tol) return { status: "mistake", mistake };
  }
  if (question.answer !== 0 && Math.abs(-value - question.answer) <= tol) {
    return { status: "sign" };
  }
  return { status: "wrong" };
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
