// «Código en vivo» (Thebe) sin CDN y con mensajes en español.
//
// sphinx-thebe 0.3.1 bajaría Thebe de unpkg.com y, sin red, dejaría «Loading thebe
// from CDN...» en el botón. Este initThebe (el del botón del cohete) carga la copia
// del sitio (_static/vendor/thebe/, Thebe 0.9.3), comprueba antes que el BinderHub
// responde y, si no, dice por qué y qué hacer. THEBE_JS_URL y CURSO_BINDER_URL los
// escribe book/_ext/curso_sitio.py.
//
// Cada estado tiene su mensaje y cada fallo, su botón «Volver a intentarlo» (y el de
// «Código en vivo» vuelve a intentarlo también): Binder no llega, Binder no pudo
// construir el entorno (no es la conexión del lector), el servidor que Binder abrió
// no contesta (a los SESSION_TIMEOUT_MS) o el núcleo se detuvo. Thebe rechaza sus
// promesas al fallar: aquí se esperan todas, y la consola queda limpia.

const STATUS = {
  building: "Binder está preparando el entorno del curso (la primera vez, varios " +
    "minutos)…",
  launching: "Entorno listo; Binder está abriendo un servidor para ti…",
  handed: "Binder abrió un servidor para ti; conectando con él…",
  "server-ready": "Servidor listo; abriendo una sesión…",
  starting: "Arrancando el núcleo de Python…",
  ready: "Núcleo listo: ejecuta las celdas en orden, de arriba abajo.",
  executing: "Ejecutando…",
  idle: "Núcleo listo.",
};
// Las fases que Binder envía mientras construye (Thebe las pasa en el mensaje).
const BUILDING = /^(waiting|fetching|unknown|building|pushing)$/;
// Desde que Binder da el servidor hasta que hay núcleo: pasado esto, no contesta.
// (Sin límite, Thebe esperaba en silencio durante minutos, o para siempre si el
// servidor aceptaba la conexión sin contestar.) Thebe no avisa de que Binder dio el
// servidor hasta que este contesta: se mira si ya tiene su gestor de sesiones.
const SESSION_TIMEOUT_MS = 30_000;
const HANDED_POLL_MS = 500;
// Thebe guardaba la dirección y la clave del servidor 24 h en localStorage con este
// prefijo: ya no (savedSessionOptions), y lo que dejó una visita anterior se borra.
const SAVED_SESSIONS = "thebe-binder";
// Los botones que Thebe pone en cada celda: [texto, título].
const BUTTONS = {
  run: ["ejecutar", "Ejecutar esta celda"],
  "run all": ["ejecutar todo", "Ejecutar todas las celdas"],
  restart: ["reiniciar", "Reiniciar el núcleo"],
  "restart & run all": ["reiniciar y ejecutar todo",
    "Reiniciar el núcleo y ejecutar todas las celdas"],
};
const element = (tag, props) => Object.assign(document.createElement(tag), props);
const DOWNLOAD = "descarga el notebook (flecha de descarga) y ejecútalo en tu " +
  "ordenador o en Colab";

// Un aviso bajo el título del capítulo (role=status: se anuncia al cambiar); la
// primera línea, en negrita. Un fallo lleva el botón para volver a intentarlo.
function showStatus(lines, kind = "info", retry = kind === "error") {
  let box = document.getElementById("curso-codigo-en-vivo");
  if (!box) {
    box = element("div", { id: "curso-codigo-en-vivo", role: "status" });
    const title = document.querySelector("article.bd-article h1");
    title ? title.after(box) : document.body.prepend(box);
  }
  box.className = `curso-codigo-en-vivo curso-codigo-en-vivo--${kind}`;
  box.replaceChildren(...[lines].flat().map((t) => element("p", { textContent: t })));
  box.firstChild.className = "curso-codigo-en-vivo__titulo";
  if (retry) {
    box.append(element("button", {
      type: "button", className: "curso-codigo-en-vivo__reintentar",
      textContent: "Volver a intentarlo", onclick: () => initThebe(),
    }));
  }
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
    "Qué puedes hacer: comprueba la conexión y vuelve a intentarlo; o " +
      `${DOWNLOAD}, o ábrelo en Binder más tarde. Sin conexión, la página se sigue ` +
      "leyendo entera y los widgets funcionan.",
  ], "error");
}

// Lo que se dice de cada fallo, una vez que Binder sí respondía.
const FAILURES = {
  build: (host) => [
    "Binder no pudo preparar el entorno del curso.",
    `${host} respondió, pero falló al construir el entorno: no es cosa de tu ` +
      "conexión. Suele ser un fallo pasajero del servicio.",
    `Qué puedes hacer: vuelve a intentarlo dentro de un rato; o ${DOWNLOAD}.`,
  ],
  server: (host) => [
    "El servidor que abrió Binder no responde.",
    `${host} preparó un servidor para ti, pero no contesta: puede que se haya ` +
      "apagado o que una red lo bloquee.",
    `Qué puedes hacer: vuelve a intentarlo (Binder abre otro); o ${DOWNLOAD}.`,
  ],
  thebe: () => [
    "No se pudo arrancar el código en vivo.",
    "Thebe falló al preparar las celdas de esta página. Vuelve a intentarlo; si " +
      `sigue igual, ${DOWNLOAD}.`,
  ],
  kernel: () => [
    "El núcleo de Python se detuvo.",
    "Puede que se quedara sin memoria o que Binder lo apagara tras un rato sin " +
      "uso. Al volver a intentarlo se abre otro: ejecuta de nuevo las celdas, de " +
      "arriba abajo (lo calculado antes se perdió).",
  ],
};

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

function forgetSavedSessions() {
  try {
    const keys = Array.from({ length: localStorage.length }, (_, i) =>
      localStorage.key(i));
    for (const key of keys) {
      if (key?.startsWith(SAVED_SESSIONS)) localStorage.removeItem(key);
    }
  } catch {
    // Almacenamiento bloqueado: tampoco hay nada guardado que borrar.
  }
}

// «starting» (conectando), «live» (hay núcleo), «failed» o «idle».
let state = "idle";
let attempt = 0; // cada intento nuevo deja sin efecto lo que llegue del anterior
let page = null; // {notebook, config}: las celdas ya convertidas, tras el primero
let host = "";
let failure = null; // lo que Thebe dijo del último fallo («build», «server»)
let watchdog = 0;

function fail(kind) {
  attempt += 1;
  clearTimeout(watchdog);
  state = "failed";
  // Parar el servidor de este intento: si no, Thebe lo sigue sondeando. Su gestor
  // de núcleos no lo cierra ThebeServer.dispose (y Thebe 0.9.3 solo lo guarda en el
  // gestor de sesiones). Un gestor que aún espera su primera respuesta no se cierra:
  // Thebe espera por él, y cerrarlo dejaría esa promesa rechazada sin recoger.
  try {
    const sessions = window.thebelab?.server?.sessionManager;
    const kernels = sessions?._kernelManager;
    if (kernels?.isReady) kernels.dispose();
    if (sessions?.isReady) window.thebelab.server.dispose();
  } catch {
    // Ya estaba cerrado.
  }
  if (kind === "binder") unreachable(host, `Se perdió la conexión con ${host}.`);
  else showStatus(FAILURES[kind](host), "error");
}

let shown = ""; // la clave de STATUS del último aviso
let answered = false; // el núcleo ya dijo «idle» o «busy»: la conexión con él va

function say(key) {
  shown = key;
  showStatus(STATUS[key]);
}

function onStatus(event, data) {
  const status = String(data?.status);
  const subject = String(data?.subject);
  const message = String(data?.message);
  if (/status changed to ready/.test(message)) answered = true;
  if (state === "starting" && subject === "server") {
    const phase = /Binder is: (\w+)/.exec(message)?.[1] || "";
    if (status === "server-ready") say("server-ready");
    else if (status === "launching" && phase) {
      say(BUILDING.test(phase) ? "building" : "launching");
    }
  }
  if (state !== "live") return;
  if (subject === "session" || subject === "kernel") {
    // Un núcleo que nunca contestó no se detuvo: no se llega a él (el servidor no
    // acepta su conexión, un WebSocket). Al reiniciar: «starting» y después
    // «ready»; el núcleo avisa también con «ready» de cada cambio (ocupado, libre),
    // y eso no se repite en el aviso.
    if (status === "shutdown") fail(answered ? "kernel" : "server");
    else if (status === "starting") say("starting");
    else if (status === "ready" && shown === "starting") say("ready");
  } else if (subject === "cell" && (status === "executing" || status === "idle")) {
    say(status);
  }
}

function onError(event, data) {
  const status = String(data?.status);
  const message = String(data?.message);
  // El error del código del lector sale en su celda: la conexión sigue bien.
  if (status === "execute-error" || status === "warning") return;
  if (/failed to build/i.test(message)) failure = "build";
  else if (/lost connection to binder/i.test(message)) failure = "binder";
  else if (status === "server-error") failure ||= "server";
  else if (status === "session-error" && state === "live") {
    fail(answered ? "kernel" : "server");
  }
}

async function connect(mine, url) {
  let server;
  if (!page) {
    thebelab.on("status", onStatus);
    thebelab.on("error", onError);
    window.modifyDOMForThebe?.();
    new MutationObserver(translateButtons)
      .observe(document.body, { childList: true, subtree: true });
    // Sobre la configuración de la página (sphinx-thebe): el BinderHub del botón de
    // Binder, sin MathJax 2 de cdnjs (las fórmulas ya vienen dibujadas por KaTeX) y
    // sin guardar el servidor. El núcleo se pide aquí, no en bootstrap: así cada
    // fallo se recoge y se puede volver a intentar con las mismas celdas.
    try {
      const booted = await thebelab.bootstrap({
        mathjaxUrl: false, binderOptions: { binderUrl: url }, requestKernel: false,
        savedSessionOptions: { enabled: false },
      });
      page = { notebook: booted.notebook, config: booted.server.config };
      server = booted.server;
    } catch (error) {
      failure = "thebe";
      throw error;
    }
  } else {
    server = window.thebeCore.api.connectToBinder(page.config);
    thebelab.server = server;
  }
  const handed = setInterval(() => {
    if (mine !== attempt) clearInterval(handed);
    else if (server.sessionManager) {
      clearInterval(handed);
      if (shown !== "server-ready") say("handed");
      watchdog = setTimeout(() => mine === attempt && fail("server"),
        SESSION_TIMEOUT_MS);
    }
  }, HANDED_POLL_MS);
  await server.ready;
  if (mine !== attempt) return;
  const session = await server.startNewSession(page.notebook.rendermime);
  if (mine !== attempt) return;
  clearTimeout(watchdog);
  clearInterval(handed);
  if (!session) throw new Error("Thebe no abrió una sesión");
  page.notebook.attachSession(session);
  thebelab.session = session;
  state = "live";
  say("ready");
}

async function initThebe() {
  const url = String(window.CURSO_BINDER_URL || "").replace(/\/+$/, "");
  if (!url || typeof THEBE_JS_URL !== "string") {
    return showStatus("Este sitio no tiene configurado el código en vivo.", "error",
      false);
  }
  // Ya en marcha: el aviso vuelve a decir en qué punto está.
  if (state === "starting" || state === "live") {
    const box = document.getElementById("curso-codigo-en-vivo");
    if (shown) say(shown);
    else box?.scrollIntoView({ block: "nearest" });
    return;
  }
  const mine = ++attempt;
  state = "starting";
  failure = null;
  host = url.replace(/^\w+:\/\//, "").split("/")[0];
  forgetSavedSessions();
  shown = "";
  answered = false;
  showStatus(`Conectando con ${host}…`);
  try {
    // Sin red, fetch falla; si tarda más de 8 s, el BinderHub se da por caído.
    const signal = AbortSignal.timeout(8000);
    await fetch(`${url}/health`, { mode: "no-cors", cache: "no-store", signal });
  } catch {
    state = "failed";
    return unreachable(host);
  }
  try {
    await loadThebe();
  } catch {
    state = "failed";
    return showStatus([
      "No se pudo cargar el código en vivo.",
      "Falta una parte del sitio (_static/vendor/thebe/). Vuelve a cargar la " +
        `página; si sigue igual, ${DOWNLOAD}, o en Binder.`,
    ], "error");
  }
  try {
    await connect(mine, url);
  } catch (error) {
    if (mine !== attempt) return;
    console.debug("codigo-en-vivo:", error);
    fail(failure || "server");
  }
}

// sphinx-thebe.js se carga con «async» y define su propio initThebe: este se pone
// ahora y otra vez al terminar la carga, por si aquel llegó después.
window.initThebe = initThebe;
addEventListener("load", () => {
  window.initThebe = initThebe;
});
