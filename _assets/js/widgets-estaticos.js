// Dibuja los widgets del curso (anywidget) en la web estática, sin núcleo.
//
// Sus módulos solo usan get, set, on, off y save_changes del modelo: no hace falta el
// gestor de @jupyter-widgets (embed-amd.js, ~900 KB, con Backbone y Lumino). Va sin
// «defer» justo después del estado que guarda myst-nb: mientras se lee la página, cada
// vista recibe una caja con el alto del widget (css/reserva.css) y el texto no salta.
(() => {
  "use strict";

  const STATE = "application/vnd.jupyter.widget-state+json";
  const VIEW = "application/vnd.jupyter.widget-view+json";
  const FILE = "rn-archivo:"; // en _static/widgets/ (book/_ext/tema_ligero.py)

  // El modelo de anywidget, en memoria: sin núcleo, el estado local es el que vale.
  class Model {
    constructor(state) {
      this.attributes = { ...state };
      this.listeners = {};
    }
    get(name) {
      return this.attributes[name];
    }
    set(name, value) {
      if (this.attributes[name] === value) return;
      this.attributes[name] = value;
      [...(this.listeners[`change:${name}`] || [])].forEach((f) => f(this, value));
    }
    on(event, callback) {
      (this.listeners[event] ||= []).push(callback);
    }
    off(event, callback) {
      this.listeners[event] = this.listeners[event]?.filter((f) => f !== callback);
    }
    save_changes() {}
  }

  // Cada archivo se descarga, y cada módulo u hoja se carga, una sola vez.
  const cache = new Map();
  const once = (key, f) => (cache.has(key) ? cache : cache.set(key, f())).get(key);
  const element = (tag, props) => Object.assign(document.createElement(tag), props);
  const isFile = (value) => typeof value === "string" && value.startsWith(FILE);
  const fileText = (ref) => once(ref, async () => {
    const response = await fetch(ref.slice(FILE.length));
    if (!response.ok) throw new Error(`${ref}: HTTP ${response.status}`);
    return response.text();
  });
  const loaded = (value) => (isFile(value) ? fileText(value) : Promise.resolve(value));

  // resnorm.widgets.bundle deja cada módulo con un solo «export default { render };»:
  // se evalúa en el acto, porque al imprimir no hay tiempo para import() (otra tarea).
  const loadModule = (esm) => once(`esm ${esm}`, async () => {
    const code = await loaded(esm);
    return Function(`"use strict";\n${code.replace(/^export default /m, "return ")}`)();
  });
  const addStyle = (css) => once(`css ${css}`, async () => {
    const text = await loaded(css);
    if (text) document.head.append(element("style", { textContent: text }));
  });

  async function render(area, model) {
    const el = element("div", { className: "rn-anywidget" });
    area.append(el);
    // Con su hoja ya puesta: el widget no se ve un momento sin estilo. Si la hoja no
    // llega, el widget se dibuja igual (sin ella se usa; sin su código, no).
    const style = addStyle(model.get("_css")).catch((error) => {
      console.warn(`widgets-estaticos: un widget va sin su hoja de estilo: ${error}`);
    });
    const [widget] = await Promise.all([loadModule(model.get("_esm")), style]);
    const drawn = widget.render({ model, el });
    area.classList.remove("rn-reserva");
    await drawn;
  }

  // Si el código no llega o falla, la caja lo dice en vez de quedarse en blanco.
  function fail(area, error) {
    console.error(`widgets-estaticos: un widget no se pudo dibujar: ${error}`);
    area.classList.remove("rn-reserva");
    area.querySelector(".rn-anywidget:empty")?.remove();
    area.append(element("p", { className: "rn-widget-fallo", role: "status",
      textContent: "Este widget no se ha podido cargar (no llegó su código o " +
        "falló al dibujarse). Recarga la página para intentarlo de nuevo." }));
  }

  // Cada caja se dibuja una vez: cuando le falta menos de una pantalla para verse o,
  // si no, cada una en su tarea, cuando el navegador queda libre (tras el primer gesto
  // o 2 s después de cargar: la carga no paga los widgets que aún no se ven).
  const pending = new Map();
  function draw(area) {
    const model = pending.get(area);
    if (!model) return;
    pending.delete(area);
    near.unobserve(area);
    render(area, model).catch((error) => fail(area, error));
  }
  const near = new IntersectionObserver((entries) => {
    for (const entry of entries) if (entry.isIntersecting) draw(entry.target);
  }, { rootMargin: "100% 0px" });

  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 50)); // Safari
  const gestures = new AbortController();
  function drawRestLater() {
    gestures.abort();
    for (const area of pending.keys()) idle(() => draw(area), { timeout: 3000 });
  }
  for (const name of ["scroll", "wheel", "touchstart", "pointerdown", "keydown"]) {
    addEventListener(name, drawRestLater, { passive: true, signal: gestures.signal });
  }
  // Al imprimir, todos en el acto (css/impresion.css): su código ya se descargó al
  // cargar la página; el que no llegó imprime una línea que lo dice.
  function afterLoad() {
    setTimeout(drawRestLater, 2000);
    for (const model of pending.values()) {
      [model.get("_esm"), model.get("_css")].filter(isFile)
        .forEach((ref) => fileText(ref).catch(() => {}));
    }
  }
  addEventListener("beforeprint", () => [...pending.keys()].forEach(draw));
  addEventListener("load", afterLoad);

  const stateScript = document.querySelector(`script[type="${STATE}"]`);
  const state = stateScript ? JSON.parse(stateScript.textContent).state : {};
  const models = {};
  for (const [id, entry] of Object.entries(state)) models[id] = new Model(entry.state);

  // La caja de cada vista, una vez, con la clase de widget y, en un cuestionario,
  // cuántas preguntas tiene y cuántas de ellas piden un número (más altas que las de
  // elegir): con eso css/reserva.css le da el alto del widget.
  function mount(script) {
    if (script.dataset.rnMontado) return;
    let id;
    try {
      id = JSON.parse(script.textContent).model_id;
    } catch {
      return; // aún no ha llegado entera: se monta cuando llegue
    }
    script.dataset.rnMontado = "1";
    const model = models[id];
    if (typeof model?.get("_esm") !== "string") {
      console.error(`widgets-estaticos: no hay estado para el widget ${id}`);
      return;
    }
    const area = element("div", { className: "widget-subarea rn-reserva" });
    area.dataset.rnWidget = String(model.get("_anywidget_id")).split(".").pop();
    const questions = model.get("questions");
    if (Array.isArray(questions)) {
      area.style.setProperty("--rn-preguntas", questions.length);
      area.style.setProperty("--rn-numericas",
        questions.filter((q) => q.type === "numeric").length);
    }
    script.before(area);
    pending.set(area, model);
    near.observe(area);
  }

  // Cada vista en cuanto el analizador la inserta (este script va sin «defer»: la
  // página aún se está leyendo; el observador corre antes de pintar); su texto llega
  // como nodo añadido al <script>. Buscar dentro de cada nodo añadido recorría la
  // página varias veces en un capítulo largo.
  const isView = (node) => node.nodeName === "SCRIPT" && node.type === VIEW;
  const observer = new MutationObserver((records) => {
    for (const { target, addedNodes } of records) {
      [target, ...addedNodes].filter(isView).forEach(mount);
    }
  });
  observer.observe(document.documentElement, { childList: true, subtree: true });
  document.addEventListener("DOMContentLoaded", () => {
    observer.disconnect();
    document.querySelectorAll(`script[type="${VIEW}"]`).forEach(mount);
  });
})();
