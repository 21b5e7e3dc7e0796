// Textos de la interfaz que otros scripts del sitio crean en inglés al cargar la página
// (p. ej. sphinx-togglebutton, en el botón de las soluciones desplegables). Los textos
// que vienen en el HTML se traducen al construir (book/_ext/curso_sitio.py).
(function () {
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
})();
