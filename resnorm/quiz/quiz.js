// Preguntas del curso en la página: se contestan, se diagnostican y el progreso se
// guarda en este navegador (localStorage). Sin núcleo y sin red.
import { h, uid } from "../widgets/dom.js";
import { nameInvisible } from "../widgets/texto.js";
import {
  chapterProgress, checkNumeric, decimalsText, mergeEntry, parseAnswer, progressText,
  repairStore, unitText,
} from "./quiz_core.js";

const KINDS = {
  calculo: "Cálculo a mano",
  prediccion: "Predice antes de mirar",
  concepto: "Concepto",
};
const CHANGE_EVENT = "rn-quiz-change";
// Lo que no se pudo guardar en localStorage (lleno, o casi: el texto nuevo no cabe),
// por clave: mientras la página está abierta, manda sobre lo que quedó guardado.
const memoryStore = {};
// Una respuesta se guarda tal cual la escribió el lector hasta este largo; más larga
// (pegó millones de cifras), se guarda el número que se leyó: si no, no cabe en
// localStorage y ninguna respuesta más de la página se guarda.
const MAX_SAVED_ANSWER = 64;

// localStorage puede no existir (navegación privada, archivo local): entonces el
// progreso vive solo mientras la página está abierta, y se dice.
// Lo guardado siempre sale reparado (repairStore): un valor con otra forma (un array,
// un texto, un JSON roto) no rompe cada «Comprobar» ni se traga las respuestas nuevas.
function readStore(key) {
  if (Object.hasOwn(memoryStore, key)) return repairStore(memoryStore[key]);
  let text = null;
  try {
    text = window.localStorage.getItem(key);
  } catch (error) {
    return repairStore(memoryStore[key]);
  }
  if (!text) return repairStore(memoryStore[key]);
  try {
    return repairStore(JSON.parse(text));
  } catch (error) {
    return repairStore(null);
  }
}

// Devuelve null si se guardó; si no, el nombre del error (QuotaExceededError: lleno).
function writeStore(key, data) {
  try {
    window.localStorage.setItem(key, JSON.stringify(data));
    delete memoryStore[key];
    return null;
  } catch (error) {
    memoryStore[key] = data;
    return (error && error.name) || "Error";
  }
}

function savedChapter(key, chapter) {
  const data = readStore(key);
  return (data.chapters || {})[chapter] || {};
}

function saveAnswer(key, chapter, question, entry) {
  const data = readStore(key);
  data.chapters = data.chapters || {};
  const saved = data.chapters[chapter] || {};
  saved[question.id] = mergeEntry(saved[question.id],
    Object.assign({ v: question.version }, entry));
  data.chapters[chapter] = saved;
  const failure = writeStore(key, data);
  window.dispatchEvent(new CustomEvent(CHANGE_EVENT, { detail: { chapter } }));
  return failure;
}

// Lo que se guarda de una respuesta numérica: lo escrito o, si es muy largo, el número
// leído (con coma decimal si el lector la usó).
function savedAnswer(text, value) {
  if (text.length <= MAX_SAVED_ANSWER) return text;
  const number = String(value);
  return text.includes(",") && !text.includes(".") ? number.replace(".", ",") : number;
}

// Borrar el capítulo devuelve lo que había, para poder deshacerlo.
function resetChapter(key, chapter) {
  const data = readStore(key);
  const before = data.chapters[chapter];
  delete data.chapters[chapter];
  writeStore(key, data);
  window.dispatchEvent(new CustomEvent(CHANGE_EVENT, { detail: { chapter, reset: true } }));
  return before;
}

function restoreChapter(key, chapter, saved) {
  const data = readStore(key);
  data.chapters[chapter] = saved;
  writeStore(key, data);
  window.dispatchEvent(new CustomEvent(CHANGE_EVENT, { detail: { chapter, reset: true } }));
}

// Los mensajes citan lo que escribió el lector: sus caracteres invisibles, con nombre.
function say(region, text, tone) {
  region.textContent = "";
  region.className = "rn-quiz-feedback" + (tone ? ` rn-quiz-${tone}` : "");
  region.append(nameInvisible(text));
}

function numericQuestion(question, ctx) {
  const inputId = uid("quiz-respuesta");
  const tolId = uid("quiz-tol");
  const input = h("input", {
    id: inputId, type: "text", inputmode: "decimal", autocomplete: "off",
    spellcheck: "false", class: "rn-quiz-input", "aria-describedby": tolId,
  });
  const feedback = h("div", { class: "rn-quiz-feedback", role: "status", "aria-live": "polite" });
  const hintBox = h("div", { class: "rn-quiz-hints" });
  const solution = h("div", { class: "rn-quiz-solution", hidden: true }, [
    h("p", { class: "rn-quiz-solution-title", text: "Solución" }),
    h("p", { text: question.solution }),
  ]);
  let hintsShown = 0;
  const hintButton = h("button", { type: "button", class: "rn-quiz-secondary" }, "Dame una pista");
  const solutionButton = h("button", { type: "button", class: "rn-quiz-secondary", hidden: true },
    "Ver la solución");

  function showHint() {
    if (hintsShown >= question.hints.length) return;
    hintsShown += 1;
    const label = `Pista ${hintsShown} de ${question.hints.length}: `;
    hintBox.append(h("p", {}, [h("strong", { text: label }), question.hints[hintsShown - 1]]));
    if (hintsShown >= question.hints.length) {
      hintButton.hidden = true;
      solutionButton.hidden = false;
    }
  }
  hintButton.addEventListener("click", showHint);
  solutionButton.addEventListener("click", () => {
    solution.hidden = false;
    solutionButton.hidden = true;
  });

  function check(event) {
    if (event) event.preventDefault();
    const parsed = parseAnswer(input.value, question.unit);
    if (!parsed.ok) {
      say(feedback, parsed.message, "info");
      return;
    }
    const result = checkNumeric(question, parsed.value, parsed.decimals, parsed.otherUnit);
    const answer = savedAnswer(input.value.trim(), parsed.value);
    if (result.status === "correct") {
      say(feedback, "¡Bien! Es correcto.", "ok");
      ctx.save(question, { ok: true, a: answer });
      hintButton.hidden = true;
      solutionButton.hidden = false;
      return;
    }
    ctx.save(question, { ok: false, a: answer });
    if (result.status === "rounded") {
      const shown = result.decimals === 0 ? "sin decimales" : `a ${decimalsText(result.decimals)}`;
      say(feedback, `Vas bien: es la respuesta redondeada ${shown}. Se acepta un error `
        + `de ±${question.tol_text}: escríbela con ${decimalsText(result.needed)}.`, "mistake");
      return;
    }
    if (result.status === "unit") {
      say(feedback, unitText(result), "mistake");
    } else if (result.status === "mistake") {
      say(feedback, result.message, "mistake");
    } else if (result.status === "sign") {
      say(feedback, `El valor absoluto es correcto, pero el signo no.${
        question.sign_hint ? ` ${question.sign_hint}` : ""}`, "mistake");
    } else {
      say(feedback, "Todavía no. Pide una pista y vuelve a intentarlo.", "wrong");
    }
    hintButton.hidden = hintsShown >= question.hints.length;
    solutionButton.hidden = hintsShown < question.hints.length;
  }

  const form = h("form", { class: "rn-quiz-form", onsubmit: check }, [
    h("label", { for: inputId, text: "Tu respuesta" }),
    input,
    h("button", { type: "submit", class: "rn-quiz-primary" }, "Comprobar"),
  ]);
  const body = [
    form,
    h("p", { id: tolId, class: "rn-quiz-tol",
      text: `Se acepta un error de ±${question.tol_text}${question.unit ? ` ${question.unit}` : ""}. `
        + `Puedes usar coma o punto${question.unit ? ` y escribir «${question.unit}» detrás` : ""}.` }),
    feedback,
    h("div", { class: "rn-quiz-actions" }, [hintButton, solutionButton]),
    hintBox,
    solution,
  ];
  function restore(entry) {
    if (entry && entry.a !== undefined) input.value = entry.a;
    if (entry && entry.ok) {
      say(feedback, "Ya la contestaste bien.", "ok");
      hintButton.hidden = true;
      solutionButton.hidden = false;
    }
  }
  function clear() {
    input.value = "";
    say(feedback, "", "");
    hintBox.textContent = "";
    hintsShown = 0;
    hintButton.hidden = false;
    solutionButton.hidden = true;
    solution.hidden = true;
  }
  return { body, restore, clear };
}

function choiceQuestion(question, ctx) {
  const name = uid("quiz-opcion");
  const feedback = h("div", { class: "rn-quiz-feedback", role: "status", "aria-live": "polite" });
  const radios = question.options.map((option, i) => {
    const id = `${name}-${i}`;
    const radio = h("input", { type: "radio", name, id, value: String(i) });
    return { radio, row: h("div", { class: "rn-quiz-option" }, [radio, h("label", { for: id, text: option.text })]) };
  });
  const others = h("details", { class: "rn-quiz-others", hidden: true }, [
    h("summary", { text: "Por qué las demás opciones no" }),
    h("ul", {}, question.options.filter((o) => !o.correct).map(
      (o) => h("li", {}, [h("strong", { text: `${o.text}: ` }), o.explanation]))),
  ]);
  function check(event) {
    if (event) event.preventDefault();
    const chosen = radios.findIndex((r) => r.radio.checked);
    if (chosen < 0) {
      say(feedback, "Elige una opción antes de comprobar.", "info");
      return;
    }
    const option = question.options[chosen];
    ctx.save(question, { ok: option.correct, a: chosen });
    if (option.correct) {
      say(feedback, `¡Bien! ${option.explanation}`, "ok");
      others.hidden = false;
    } else {
      say(feedback, `No. ${option.explanation}`, "wrong");
    }
  }
  const fieldset = h("fieldset", { class: "rn-quiz-choices" }, [
    h("legend", { class: "rn-visually-hidden", text: "Opciones" }),
    ...radios.map((r) => r.row),
  ]);
  const body = [
    h("form", { class: "rn-quiz-form rn-quiz-choice", onsubmit: check }, [
      fieldset,
      h("button", { type: "submit", class: "rn-quiz-primary" }, "Comprobar"),
    ]),
    feedback,
    others,
  ];
  function restore(entry) {
    if (!entry || typeof entry.a !== "number" || !radios[entry.a]) return;
    radios[entry.a].radio.checked = true;
    if (entry.ok) {
      say(feedback, "Ya la contestaste bien.", "ok");
      others.hidden = false;
    }
  }
  function clear() {
    radios.forEach((r) => { r.radio.checked = false; });
    say(feedback, "", "");
    others.hidden = true;
  }
  return { body, restore, clear };
}

function render({ model, el }) {
  const key = model.get("storage_key");
  const chapter = model.get("chapter");
  const every = model.get("chapter_questions");
  const questions = model.get("questions");
  const progress = h("p", { class: "rn-quiz-progress", "aria-live": "polite" });
  const storageNote = h("p", { class: "rn-quiz-note rn-quiz-almacen", hidden: true,
    text: "Este navegador no deja guardar el progreso: se perderá al cerrar la página." });
  const ctx = {
    save(question, entry) {
      const failure = saveAnswer(key, chapter, question, entry);
      if (!failure) return;
      if (failure === "QuotaExceededError") {
        storageNote.textContent = "El espacio que este navegador da al sitio está " +
          "lleno: tus respuestas nuevas se perderán al cerrar la página.";
      }
      storageNote.hidden = false;
    },
  };
  const views = [];
  const list = questions.map((question, i) => {
    const view = question.type === "numeric" ? numericQuestion(question, ctx) : choiceQuestion(question, ctx);
    views.push({ question, view });
    const promptId = uid("quiz-enunciado");
    return h("section", { class: "rn-quiz-question", "aria-labelledby": promptId }, [
      h("p", { class: "rn-quiz-kind", text: `${KINDS[question.kind] || "Pregunta"} · ${i + 1}/${questions.length}` }),
      h("p", { id: promptId, class: "rn-quiz-prompt", text: question.prompt }),
      ...view.body,
    ]);
  });
  function refresh() {
    const saved = savedChapter(key, chapter);
    const { done, total } = chapterProgress(every, saved);
    progress.textContent = `Progreso del capítulo: ${progressText(done, total)} bien contestadas.`;
  }
  function restoreAll() {
    const saved = savedChapter(key, chapter);
    for (const { question, view } of views) {
      const entry = saved[question.id];
      view.clear();
      if (entry && entry.v === question.version) view.restore(entry);
    }
  }
  // Borrar no pide confirmación: se puede deshacer mientras no se conteste otra cosa.
  const undoNote = h("p", { class: "rn-quiz-note", role: "status", hidden: true });
  let undone = null;
  const undo = h("button", { type: "button", class: "rn-quiz-secondary",
    onclick: () => {
      if (undone) restoreChapter(key, chapter, undone);
      undone = null;
      undoNote.hidden = true;
      reset.focus();
    } }, "Deshacer");
  const reset = h("button", { type: "button", class: "rn-quiz-secondary",
    onclick: () => {
      const before = resetChapter(key, chapter);
      if (!before || !Object.keys(before).length) return;
      undone = before;
      undoNote.textContent = "";
      undoNote.append("Borradas tus respuestas de este capítulo. ", undo);
      undoNote.hidden = false;
      undo.focus();
    } }, "Empezar de nuevo este capítulo");
  const onChange = (event) => {
    if (!event.detail || event.detail.chapter !== chapter) return;
    if (event.detail.reset) restoreAll();
    else if (undone) {  // otra respuesta: ya no se deshace el borrado
      undone = null;
      undoNote.hidden = true;
    }
    refresh();
  };
  window.addEventListener(CHANGE_EVENT, onChange);
  el.append(h("section", { class: "rn-widget rn-quiz", "aria-label": "Práctica" }, [
    h("p", { class: "rn-title", text: "Práctica" }),
    ...list,
    h("div", { class: "rn-quiz-footer" }, [progress, reset]),
    undoNote,
    storageNote,
  ]));
  restoreAll();
  refresh();
  return () => window.removeEventListener(CHANGE_EVENT, onChange);
}

export default { render };
