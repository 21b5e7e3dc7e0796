// «Código en vivo» (Thebe) sin CDN y con mensajes en español.
//
// sphinx-thebe 0.3.1 bajaría Thebe de unpkg.com y, sin red, dejaría «Loading thebe
// from CDN...» en el botón. Este initThebe (el del botón del cohete) carga la copia
// del sitio (_static/vendor/thebe/, Thebe 0.9.3), comprueba antes que el BinderHub
// responde y, si no, dice por qué y qué hacer. THEBE_JS_URL y CURSO_BINDER_URL los
// escribe book/_ext/curso_sitio.py.

const STATUS = {
  building: "Binder está preparando el entorno del curso (la primera vez, varios " +
    "minutos)…",
  built: "Entorno listo; arrancando el núcleo de Python…",
  launching: "Arrancando el núcleo de Python…",
  "server-ready": "Servidor listo; abriendo una sesión…",
  ready: "Núcleo listo: ejecuta las celdas en orden, de arriba abajo.",
  idle: "Núcleo listo.",
  busy: "Ejecutando…",
};
// Los botones que Thebe pone en cada celda: [texto, título].
const BUTTONS = {
  run: ["ejecutar", "Ejecutar esta celda"],
  "run all": ["ejecutar todo", "Ejecutar todas las celdas"],
  restart: ["reiniciar", "Reiniciar el núcleo"],
  "restart & run all": ["reiniciar y ejecutar todo",
    "Reiniciar el núcleo y ejecutar todas las celdas"],
};
const element = (tag, props) => Object.assign(document.createElement(tag), props);

// Un aviso bajo el título del capítulo (role=status: se anuncia al cambiar); la
// primera línea, en negrita.
function showStatus(lines, kind = "info") {
  let box = document.getElementById("curso-codigo-en-vivo");
  if (!box) {
    box = element("div", { id: "curso-codigo-en-vivo", role: "status" });
    const title = document.querySelector("article.bd-article h1");
    title ? title.after(box) : document.body.prepend(box);
  }
  box.className = `curso-codigo-en-vivo curso-codigo-en-vivo--${kind}`;
  box.replaceChildren(...[lines].flat().map((t) => element("p", { textContent: t })));
  box.firstChild.className = "curso-codigo-en-vivo__titulo";
  // sphinx-book-theme pone un botón vacío bajo el título: el aviso lo sustituye.
  for (const button of document.querySelectorAll("button.thebe-launch-button")) {
    if (!button.textContent.trim()) button.remove();
  }
  box.scrollIntoView({ block: "nearest" });
}

function unreachable(host, title = `No se puede conectar con ${host}.`) {
  showStatus([
    title,
    `El código en vivo ejecuta las celdas en un servidor de Binder (${host}), y ` +
      "desde aquí no responde: puede que no tengas conexión a internet, que una " +
      "red o un cortafuegos lo bloquee o que el servicio esté caído.",
    "Qué puedes hacer: comprueba la conexión y vuelve a pulsar «Código en vivo»; " +
      "o descarga el notebook (flecha de descarga) y ejecútalo en tu ordenador, " +
      "en Colab o en Binder más tarde. Sin conexión, la página se sigue leyendo " +
      "entera y los widgets funcionan.",
  ], "error");
}

function loadThebe() {
  if (window.thebelab) return Promise.resolve();
  const css = THEBE_JS_URL.replace(/index\.js(\?.*)?$/, "thebe.css");
  document.head.append(element("link", { rel: "stylesheet", href: css }));
  return new Promise((onload, onerror) => {
    document.head.append(element("script", { src: THEBE_JS_URL, onload, onerror }));
  });
}

function translateButtons() {
  for (const button of document.querySelectorAll(".thebe-controls button")) {
    const spanish = BUTTONS[button.textContent.trim()];
    if (!spanish) continue;
    [button.textContent, button.title] = spanish;
    button.setAttribute("aria-label", spanish[1]);
  }
}

let started = false;

function start(url, host) {
  const failed = () => {
    started = false;
    unreachable(host, `Se perdió la conexión con ${host}.`);
  };
  thebelab.on("status", (event, data) => {
    const status = String(data?.status);
    if (/fail|error|dead|closed|shutdown/i.test(status)) failed();
    else showStatus(STATUS[status] || `Conectando con ${host}…`);
  });
  thebelab.on("error", failed);
  window.modifyDOMForThebe?.();
  new MutationObserver(translateButtons)
    .observe(document.body, { childList: true, subtree: true });
  // Sobre la configuración de la página (sphinx-thebe): el BinderHub del botón de
  // Binder y sin MathJax 2 de cdnjs (las fórmulas ya vienen dibujadas por KaTeX).
  thebelab.bootstrap({ mathjaxUrl: false, binderOptions: { binderUrl: url } });
}

async function initThebe() {
  const url = String(window.CURSO_BINDER_URL || "").replace(/\/+$/, "");
  if (!url || typeof THEBE_JS_URL !== "string") {
    return showStatus("Este sitio no tiene configurado el código en vivo.", "error");
  }
  if (started) return;
  const host = url.replace(/^\w+:\/\//, "").split("/")[0];
  showStatus(`Conectando con ${host}…`);
  try {
    // Sin red, fetch falla; si tarda más de 8 s, el BinderHub se da por caído.
    const signal = AbortSignal.timeout(8000);
    await fetch(`${url}/health`, { mode: "no-cors", cache: "no-store", signal });
  } catch {
    return unreachable(host);
  }
  started = true;
  try {
    await loadThebe();
    start(url, host);
  } catch {
    started = false;
    showStatus([
      "No se pudo cargar el código en vivo.",
      "Falta una parte del sitio (_static/vendor/thebe/). Vuelve a cargar la " +
        "página; si sigue igual, descarga el notebook y ejecútalo en tu " +
        "ordenador, en Colab o en Binder.",
    ], "error");
  }
}

// sphinx-thebe.js se carga con «async» y define su propio initThebe: este se pone
// ahora y otra vez al terminar la carga, por si aquel llegó después.
window.initThebe = initThebe;
addEventListener("load", () => {
  window.initThebe = initThebe;
});
