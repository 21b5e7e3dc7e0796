// El foco del teclado va donde mira el lector (book/_ext/curso_navegador.py lo carga
// en cada página).
//
// sphinx-book-theme quita el foco a los botones de la cabecera (☰, ☷, buscar, tema)
// en cuanto se pulsan (un «blur» al hacer clic), así que al cerrar el índice (Esc,
// un toque fuera) el navegador no tenía a qué devolverlo y el foco caía en <body>: un
// lector con teclado o lector de pantalla volvía al principio de la página. Aquí:
// - al cerrarse un cuadro (<dialog>) abierto desde uno de esos botones, el foco
//   vuelve al botón;
// - si el botón no abre un cuadro (☰ en un portátil pliega el índice), el foco se
//   queda en él;
// - al seguir un enlace dentro de la página (índice de la página, referencia
//   cruzada), el foco va al título al que lleva, no a <body>.
(function () {
  "use strict";
  var TOGGLES = ".primary-toggle, .secondary-toggle, .search-button, " +
    ".search-button-field, .theme-switch-button";
  var HEADINGS = "h1, h2, h3, h4, h5, h6";
  var opener = null;
  var navigatedAt = 0;

  function lost() {
    var active = document.activeElement;
    return !active || active === document.body || active === document.documentElement;
  }

  // En la fase de captura: el tema detiene el clic en el botón (no llega a document).
  document.addEventListener(
    "click",
    function (event) {
      var button = event.target.closest ? event.target.closest(TOGGLES) : null;
      if (!button) return;
      opener = button;
      setTimeout(function () {
        if (document.querySelector("dialog[open]")) return; // el cuadro tiene el foco
        if (lost()) button.focus({ preventScroll: true });
      }, 0);
    },
    true
  );

  // «close» no sube por el árbol: se escucha en la fase de captura.
  document.addEventListener(
    "close",
    function (event) {
      if (!(event.target instanceof HTMLDialogElement) || !opener) return;
      var back = opener;
      opener = null;
      setTimeout(function () {
        if (Date.now() - navigatedAt < 1000) return; // se siguió un enlace
        if (lost() && back.isConnected && back.checkVisibility()) {
          back.focus({ preventScroll: true });
        }
      }, 50);
    },
    true
  );

  function focusTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (!target) return;
    navigatedAt = Date.now();
    if (target.matches("section")) target = target.querySelector(HEADINGS) || target;
    if (!target.matches("a[href], button, input, select, textarea, [tabindex]")) {
      target.setAttribute("tabindex", "-1");
    }
    target.focus({ preventScroll: true });
  }
  window.addEventListener("hashchange", focusTarget);
})();
