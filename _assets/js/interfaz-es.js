// Ajustes de la interfaz en el navegador (los textos del HTML se traducen al construir,
// en book/_ext/curso_sitio.py).
(function () {
  // Textos que otros scripts del sitio crean en inglés al cargar la página
  // (p. ej. sphinx-togglebutton, en el botón de las soluciones desplegables).
  var TEXTS = {
    "Toggle hidden content": "Mostrar u ocultar el contenido",
  };
  var ATTRIBUTES = ["aria-label", "title"];

  function translate(root) {
    ATTRIBUTES.forEach(function (attribute) {
      root.querySelectorAll("[" + attribute + "]").forEach(function (el) {
        var spanish = TEXTS[el.getAttribute(attribute)];
        if (spanish) el.setAttribute(attribute, spanish);
      });
    });
  }

  // «load» llega después de los DOMContentLoaded en los que esos scripts crean botones.
  window.addEventListener("load", function () {
    translate(document);
  });

  // En un teléfono o una tableta, el índice de la página (☷) se abre en un cuadro
  // (<dialog>) encima del texto. Al elegir una sección, el cuadro se cierra: si no,
  // la sección elegida queda debajo de él.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("dialog[open] a[href]");
    if (!link) return;
    var dialog = link.closest("dialog");
    if (dialog && typeof dialog.close === "function") dialog.close();
  });
})();
