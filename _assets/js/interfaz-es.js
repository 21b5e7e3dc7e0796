// Ajustes de la interfaz en el navegador (los textos del HTML salen en español de los
// catálogos y las plantillas: book/_ext/interfaz_es.py); el foco del teclado va donde
// mira el lector.

// sphinx-togglebutton 0.4.5 escribe aria-label="Toggle hidden content" fija en su
// JavaScript (ningún catálogo llega); crea los botones antes de «load».
window.addEventListener("load", () => {
  for (const button of document.querySelectorAll("button.toggle-button")) {
    button.setAttribute("aria-label", "Mostrar u ocultar el contenido");
  }
});

// sphinx-book-theme quita el foco (blur) a sus botones de la cabecera al pulsarlos:
// al cerrarse el cuadro que abren (Esc, un toque fuera) el navegador no tenía a qué
// devolver el foco y caía en <body>. Sin ese blur, lo devuelve al botón.
const TOGGLES = ".primary-toggle, .secondary-toggle"; // los únicos con blur
for (const button of document.querySelectorAll(TOGGLES)) button.blur = () => {};

// Un enlace dentro de un cuadro (el índice de la página en un teléfono) lo cierra:
// si no, la sección elegida queda debajo de él.
document.addEventListener("click", (event) => {
  event.target.closest("dialog[open] a[href]")?.closest("dialog").close();
});

// Cada widget recibe su caja de widgets-estaticos.js, que va sin «defer» y ya se
// ejecutó (o no llegó) cuando la página termina de leerse. Una vista sin caja (ese
// archivo no llegó, o falló antes de montarla) dice lo que widgets-estaticos.js
// diría de un widget cuyo código no llega, en vez de quedarse en nada.
const WIDGET_VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]';
document.addEventListener("DOMContentLoaded", () => {
  for (const view of document.querySelectorAll(WIDGET_VIEW)) {
    if (view.previousElementSibling?.matches(".widget-subarea")) continue;
    const box = Object.assign(document.createElement("div"),
      { className: "widget-subarea" });
    box.append(Object.assign(document.createElement("p"), {
      className: "rn-widget-fallo", role: "status",
      textContent: "Este widget no se ha podido cargar (no llegó su código o " +
        "falló al dibujarse). Recarga la página para intentarlo de nuevo.",
    }));
    view.before(box);
  }
});

// Un enlace dentro de la página lleva el foco a su título, no a <body>.
const HEADINGS = "h1, h2, h3, h4, h5, h6";
// Un «%» suelto en la dirección (#50%, copiada a mano) no es un escape válido:
// decodeURIComponent lanzaría URIError; se busca entonces tal cual.
function hashId(hash) {
  try {
    return decodeURIComponent(hash);
  } catch {
    return hash;
  }
}
window.addEventListener("hashchange", () => {
  let target = document.getElementById(hashId(location.hash.slice(1)));
  if (target?.matches("section")) target = target.querySelector(HEADINGS) || target;
  if (!target) return;
  if (target.tabIndex < 0) target.tabIndex = -1; // enfocable, no con el tabulador
  target.focus({ preventScroll: true });
});

// Fórmulas, tablas y código más anchos que la columna se desplazan en su caja: la
// clase «curso-desplazable» (--antes, --despues: dónde queda más) lo señala.
const SCROLLERS = ".katex-display > .katex, .pst-scrollable-table-container, " +
  ".rn-table-box, div.highlight > pre, .cell_output pre";

// Mide el contenido (un Range), no scrollWidth: este cuenta o no el relleno derecho
// según haya un bloque dentro, y la flecha de curso.css es un bloque.
function measure(box) {
  const range = document.createRange();
  range.selectNodeContents(box);
  const edge = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
  const wide = box.scrollWidth > box.clientWidth + 1 &&
    range.getBoundingClientRect().right + box.scrollLeft > edge + 1;
  const before = wide && box.scrollLeft > 1;
  const after = wide && box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
  return () => {
    box.classList.toggle("curso-desplazable", wide);
    box.classList.toggle("curso-desplazable--antes", before);
    box.classList.toggle("curso-desplazable--despues", after);
    if (wide && !box.hasAttribute("tabindex")) box.tabIndex = 0;
  };
}

// Todas las medidas antes que las escrituras: alternarlas recalcularía la página una
// vez por caja (más de un segundo en un móvil con cien fórmulas).
let frame = 0;
function markAll() {
  cancelAnimationFrame(frame);
  frame = requestAnimationFrame(() => {
    const writes = [...document.querySelectorAll(SCROLLERS)].map(measure);
    writes.forEach((write) => write());
  });
}
markAll();
window.addEventListener("resize", markAll);
document.fonts?.addEventListener("loadingdone", markAll); // cambia el ancho del texto
const widgets = new MutationObserver(markAll); // dibujan tablas y salidas
widgets.observe(document.body, { childList: true, subtree: true });
document.addEventListener("scroll", (event) => {
  if (event.target.classList?.contains("curso-desplazable")) measure(event.target)();
}, true);
