// Ajustes de la interfaz en el navegador (los textos del HTML salen en español de los
// catálogos y las plantillas: book/_ext/interfaz_es.py).
(function () {
  "use strict";
  // sphinx-togglebutton 0.4.5 escribe aria-label="Toggle hidden content" fija en su
  // JavaScript (ningún catálogo llega); crea los botones antes de «load».
  window.addEventListener("load", () => {
    document.querySelectorAll("button.toggle-button").forEach((button) => {
      button.setAttribute("aria-label", "Mostrar u ocultar el contenido");
    });
  });

  // Fórmulas, tablas y código más anchos que la columna se desplazan dentro de su caja:
  // la clase «curso-desplazable» (y --antes, --despues: el lado con contenido oculto)
  // hace que se note (curso.css).
  const SCROLLERS = ".katex-display > .katex, .pst-scrollable-table-container, " +
    ".rn-table-box, div.highlight > pre, .cell_output pre";

  // Se mide el contenido mismo (un Range), no scrollWidth: este cuenta o no el relleno
  // derecho según haya un bloque dentro, y la flecha de curso.css es un bloque.
  function measure(box) {
    let wide = false;
    if (box.scrollWidth > box.clientWidth + 1) {
      const range = document.createRange();
      range.selectNodeContents(box);
      const right = range.getBoundingClientRect().right + box.scrollLeft;
      const edge = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
      wide = right > edge + 1;
    }
    const before = box.scrollLeft > 1;
    const after = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    return () => {
      box.classList.toggle("curso-desplazable", wide);
      box.classList.toggle("curso-desplazable--antes", wide && before);
      box.classList.toggle("curso-desplazable--despues", wide && after);
      if (wide && !box.hasAttribute("tabindex")) box.tabIndex = 0;
    };
  }

  // Primero se mide todo y después se escribe: alternar obligaría a recalcular la
  // página una vez por caja (más de un segundo en un móvil con cien fórmulas).
  let pending = false;
  function markAll() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      const writes = [...document.querySelectorAll(SCROLLERS)].map(measure);
      writes.forEach((write) => write());
    });
  }

  document.addEventListener("scroll", (event) => {
    if (event.target.classList?.contains("curso-desplazable")) measure(event.target)();
  }, true);
  window.addEventListener("resize", markAll);
  window.addEventListener("load", markAll);
  // Una fuente que llega tarde cambia el ancho del texto sin tocar el DOM.
  document.fonts?.addEventListener("loadingdone", markAll);
  // Un widget que dibuja una tabla o una salida nueva.
  new MutationObserver(markAll).observe(document.body, {
    childList: true,
    subtree: true,
  });
  markAll();
})();
