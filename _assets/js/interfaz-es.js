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

  // Fórmulas, tablas y código más anchos que la columna se desplazan dentro de su
  // caja. Para que se note, la caja lleva la clase «curso-desplazable» y se difumina
  // por el lado en el que queda contenido (curso.css); la clase se revisa al
  // desplazar, al cambiar el tamaño y cuando un widget dibuja algo nuevo.
  var SCROLLERS = [
    // Fórmulas en bloque de KaTeX (formulas.css).
    ".katex-display > .katex",
    ".pst-scrollable-table-container",
    ".rn-table-box",
    "div.highlight > pre",
    ".cell_output pre",
  ].join(", ");

  // ¿Queda contenido fuera de la vista? Se mide el contenido mismo (un Range), no
  // scrollWidth: este cuenta o no el relleno derecho según haya o no un bloque dentro,
  // y la flecha de curso.css es un bloque: la respuesta cambiaría al ponerla.
  function overflows(box) {
    if (box.scrollWidth <= box.clientWidth + 1) return false;
    var range = document.createRange();
    range.selectNodeContents(box);
    var content = range.getBoundingClientRect();
    var rect = box.getBoundingClientRect();
    var right = content.right + box.scrollLeft;
    return right > rect.left + box.clientLeft + box.clientWidth + 1;
  }

  function mark(box) {
    var wide = overflows(box);
    box.classList.toggle("curso-desplazable", wide);
    if (!wide) {
      box.classList.remove("curso-desplazable--antes", "curso-desplazable--despues");
      return;
    }
    if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
    var left = box.scrollLeft;
    box.classList.toggle("curso-desplazable--antes", left > 1);
    box.classList.toggle(
      "curso-desplazable--despues",
      left + box.clientWidth < box.scrollWidth - 1
    );
  }

  var pending = false;
  function markAll() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      document.querySelectorAll(SCROLLERS).forEach(mark);
    });
  }

  document.addEventListener(
    "scroll",
    function (event) {
      var box = event.target;
      if (box && box.classList && box.classList.contains("curso-desplazable")) mark(box);
    },
    true
  );
  window.addEventListener("resize", markAll);
  window.addEventListener("load", markAll);
  // Una fuente que llega tarde cambia el ancho del texto sin tocar el DOM.
  if (document.fonts) {
    document.fonts.ready.then(markAll);
    document.fonts.addEventListener("loadingdone", markAll);
  }
  document.addEventListener("DOMContentLoaded", function () {
    markAll();
    new MutationObserver(markAll).observe(document.body, {
      childList: true,
      subtree: true,
    });
  });
})();
