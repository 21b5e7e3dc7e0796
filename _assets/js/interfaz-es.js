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

// En un teléfono la cabecera tenía 8 iconos (issue 50). Quedan los que usa quien lee
// (el índice del curso, buscar, el índice de la página) y un menú «Más opciones» con
// lo demás: ejecutar (Binder, Colab, código en vivo), descargar, el repositorio y el
// modo de color. El menú copia los elementos del tema (los enlaces, tal cual; cada
// botón pulsa el suyo, que sigue en la página, oculto en el teléfono por curso.css);
// sin JavaScript no hay menú y la cabecera queda como la escribe el tema.
const FOLDED = ".dropdown-launch-buttons, .btn-source-repository-button, " +
  ".dropdown-download-buttons, .btn-fullscreen-button, .theme-switch-button";
const MODES = { auto: "automático", light: "claro", dark: "oscuro" };

function menuItem(original, text) {
  const li = document.createElement("li");
  let item;
  if (original.matches("a[href]")) {
    item = original.cloneNode(true);
    item.removeAttribute("data-bs-toggle");
  } else {
    item = document.createElement("button");
    item.type = "button";
    item.innerHTML = original.innerHTML;
    item.addEventListener("click", () => original.click());
  }
  item.className = "dropdown-item";
  if (text) {
    const label = document.createElement("span");
    label.className = "btn__text-container";
    label.textContent = text;
    item.append(label);
  }
  li.append(item);
  return li;
}

function divider() {
  const li = document.createElement("li");
  li.innerHTML = '<hr class="dropdown-divider">';
  return li;
}

function buildMoreMenu(bar) {
  const folded = [...bar.querySelectorAll(FOLDED)]
    .filter((el) => !el.parentElement.closest(FOLDED));
  if (!folded.length) return;
  const menu = document.createElement("ul");
  menu.className = "dropdown-menu dropdown-menu-end";
  for (const el of folded) {
    if (el.matches(".btn-fullscreen-button")) continue; // no hay en un teléfono
    if (el.matches(".dropdown")) {
      const header = document.createElement("li");
      header.innerHTML = '<span class="dropdown-header"></span>';
      header.firstChild.textContent =
        el.querySelector(".dropdown-toggle")?.getAttribute("aria-label") || "";
      menu.append(header);
      for (const item of el.querySelectorAll(".dropdown-menu > li > :is(a, button)")) {
        menu.append(menuItem(item));
      }
    } else if (el.matches(".theme-switch-button")) {
      menu.append(divider());
      const li = menuItem(el);
      const label = document.createElement("span");
      label.className = "btn__text-container";
      const say = () => {
        const mode = document.documentElement.dataset.mode || "auto";
        label.textContent = `Modo de color: ${MODES[mode] || mode}`;
      };
      say();
      li.firstChild.innerHTML = "";
      li.firstChild.append(label);
      li.firstChild.addEventListener("click", () => setTimeout(say));
      menu.append(li);
    } else {
      menu.append(divider());
      // Bootstrap pasa el title de un botón con tooltip a data-bs-original-title.
      menu.append(menuItem(el, el.getAttribute("title") || el.dataset.bsOriginalTitle ||
        el.getAttribute("aria-label") || ""));
    }
  }
  const box = document.createElement("div");
  box.className = "dropdown dropdown-mas-opciones";
  box.innerHTML = '<button class="btn dropdown-toggle" type="button" ' +
    'data-bs-toggle="dropdown" aria-expanded="false" aria-label="Más opciones" ' +
    'title="Más opciones"><i class="fa-solid fa-ellipsis-vertical" ' +
    'aria-hidden="true"></i></button>';
  box.append(menu);
  folded[0].before(box);
}
document.querySelectorAll(".article-header-buttons").forEach(buildMoreMenu);
