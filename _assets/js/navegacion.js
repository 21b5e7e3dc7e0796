// El foco del teclado va donde mira el lector (book/_ext/curso_navegador.py lo carga
// en cada página).
(function () {
  "use strict";
  // sphinx-book-theme quita el foco (blur) a sus botones de la cabecera al pulsarlos:
  // al cerrarse el cuadro que abren (Esc, un toque fuera) el navegador no tenía a qué
  // devolver el foco y caía en <body>. Sin ese blur, lo devuelve al botón.
  const TOGGLES = ".primary-toggle, .secondary-toggle, .search-button, " +
    ".theme-switch-button";
  document.querySelectorAll(TOGGLES).forEach((button) => {
    button.blur = () => {};
  });

  // Un enlace dentro de un cuadro (el índice de la página en un teléfono) lo cierra:
  // si no, la sección elegida queda debajo de él.
  document.addEventListener("click", (event) => {
    event.target.closest("dialog[open] a[href]")?.closest("dialog").close();
  });

  // Un enlace dentro de la página lleva el foco a su título, no a <body>.
  const HEADINGS = "h1, h2, h3, h4, h5, h6";
  window.addEventListener("hashchange", () => {
    let target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target?.matches("section")) target = target.querySelector(HEADINGS) || target;
    if (!target) return;
    if (target.tabIndex < 0) target.tabIndex = -1; // enfocable, no con el tabulador
    target.focus({ preventScroll: true });
  });
})();
