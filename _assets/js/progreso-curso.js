// El progreso del curso en la portada: cruza la lista de preguntas (que escribe la
// extensión book/_ext/quiz_progress.py) con lo guardado en este navegador.
const box = document.getElementById("rn-progreso-curso");
const source = document.getElementById("rn-quiz-manifest");
const { storage_key: key, chapters } = JSON.parse(source.textContent);
let undo = null; // lo guardado antes de «Empezar de nuevo», para deshacerlo
let undoFailed = null; // por qué no se pudo deshacer (el nombre del error), si falló

// Lo guardado puede tener otra forma (un array, un JSON roto): con «?.» se lee solo
// lo que tiene la de siempre (lo repara repairStore, de resnorm/quiz/quiz_core.js).
function saved() {
  try {
    return JSON.parse(localStorage.getItem(key))?.chapters ?? {};
  } catch (error) {
    return {};
  }
}

const NOTE = `<p class="rn-progreso-borrado" role="status">Borrado todo tu progreso.
  <button type="button" class="rn-progreso-deshacer">Deshacer</button></p>`;

// Deshacer vuelve a escribir lo borrado: si el almacenamiento se llenó entretanto
// (otra pestaña, otra página del mismo sitio), setItem lanza. Lo borrado sigue en
// esta página (``undo``): se dice en español y «Deshacer» se puede volver a pulsar.
function undoError(name) {
  const why = name === "QuotaExceededError"
    ? "el almacenamiento del navegador está lleno"
    : "el navegador no deja guardar en este momento";
  return `<p class="rn-progreso-error" role="alert">No se pudo deshacer: ${why}. Tu
    progreso borrado sigue en esta página mientras no la cierres: libera espacio
    (borra datos de otros sitios) y pulsa «Deshacer» otra vez.</p>`;
}

function render(focus) {
  box.innerHTML = `<p class="rn-progreso-total" role="status" aria-live="polite"></p>
    <table><caption>Tu progreso por capítulo (guardado solo en este navegador)
      </caption><thead><tr><th scope="col">Capítulo</th>
        <th scope="col">Preguntas bien contestadas</th></tr></thead><tbody></tbody>
    </table><button type="button" class="rn-progreso-reset">
      Empezar de nuevo todo el curso</button>${undo === null ? "" : NOTE}${
  undoFailed === null ? "" : undoError(undoFailed)}`;
  const mine = saved();
  let done = 0;
  let total = 0;
  for (const { key: chapter, questions, href, title } of chapters) {
    const ids = Object.keys(questions);
    const ok = ids.filter((id) => mine[chapter]?.[id]?.ok === true &&
      mine[chapter][id].v === questions[id]).length;
    done += ok;
    total += ids.length;
    const row = box.querySelector("tbody").insertRow();
    const link = row.insertCell().appendChild(document.createElement("a"));
    Object.assign(link, { href, textContent: title });
    row.insertCell().textContent = `${ok} de ${ids.length}`;
  }
  const questions = total === 1 ? "pregunta" : "preguntas";
  box.querySelector(".rn-progreso-total").textContent =
    `Llevas ${done} de ${total} ${questions} del curso bien contestadas.`;
  if (focus) box.querySelector(focus).focus();
}

// Sin confirmación, pero se puede deshacer (hasta que se recarga la página).
box.addEventListener("click", ({ target }) => {
  if (target.matches(".rn-progreso-reset")) {
    undo = localStorage.getItem(key);
    localStorage.removeItem(key);
    render(undo === null ? ".rn-progreso-reset" : ".rn-progreso-deshacer");
  } else if (target.matches(".rn-progreso-deshacer")) {
    try {
      localStorage.setItem(key, undo);
    } catch (error) {
      undoFailed = (error && error.name) || "Error";
      render(".rn-progreso-deshacer");
      return;
    }
    undo = null;
    undoFailed = null;
    render(".rn-progreso-reset");
  }
});
render();
