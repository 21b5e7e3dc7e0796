// Ajustes de la interfaz en el navegador (los textos del HTML salen en español de los
// catálogos y las plantillas: book/_ext/interfaz_es.py).
(function () {
  // sphinx-togglebutton 0.4.5 crea el botón de cada solución desplegable con
  // aria-label="Toggle hidden content" fija en su JavaScript: togglebutton_hint solo
  // cambia el aviso (data-toggle-hint) y ningún catálogo llega a esa etiqueta.
  // «load» llega después del DOMContentLoaded en el que crea los botones.
  window.addEventListener("load", function () {
    document.querySelectorAll("button.toggle-button").forEach(function (button) {
      button.setAttribute("aria-label", "Mostrar u ocultar el contenido");
    });
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
  function measure(box) {
    var wide = false;
    if (box.scrollWidth > box.clientWidth + 1) {
      var range = document.createRange();
      range.selectNodeContents(box);
      var content = range.getBoundingClientRect();
      var rect = box.getBoundingClientRect();
      var right = content.right + box.scrollLeft;
      wide = right > rect.left + box.clientLeft + box.clientWidth + 1;
    }
    return {
      box: box,
      wide: wide,
      before: box.scrollLeft > 1,
      after: box.scrollLeft + box.clientWidth < box.scrollWidth - 1,
    };
  }

  function apply(m) {
    var box = m.box;
    box.classList.toggle("curso-desplazable", m.wide);
    if (!m.wide) {
      box.classList.remove("curso-desplazable--antes", "curso-desplazable--despues");
      return;
    }
    if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
    box.classList.toggle("curso-desplazable--antes", m.before);
    box.classList.toggle("curso-desplazable--despues", m.after);
  }

  // Primero se mide todo y después se escribe: medir y escribir alternados obligaría
  // al navegador a recalcular la página entera una vez por caja (con un centenar de
  // fórmulas, más de un segundo en un móvil).
  function markBoxes(boxes) {
    boxes.map(measure).forEach(apply);
  }

  // Primero, las cajas que están en pantalla o cerca (IntersectionObserver); las
  // demás, a trozos cortos cuando el navegador queda libre después de cargar.
  var near = new Set();
  var watched = new WeakSet();
  var queue = [];

  var observer =
    "IntersectionObserver" in window
      ? new IntersectionObserver(
          function (entries) {
            var fresh = [];
            entries.forEach(function (entry) {
              if (entry.isIntersecting) {
                near.add(entry.target);
                fresh.push(entry.target);
              } else {
                near.delete(entry.target);
              }
            });
            markBoxes(fresh);
          },
          { rootMargin: "50% 0px" }
        )
      : null;

  function watchAll() {
    document.querySelectorAll(SCROLLERS).forEach(function (box) {
      if (watched.has(box)) return;
      watched.add(box);
      queue.push(box);
      if (observer) observer.observe(box);
      else near.add(box);
    });
  }

  var idle =
    window.requestIdleCallback ||
    function (callback) {
      return setTimeout(function () {
        callback({ timeRemaining: function () { return 10; } });
      }, 50);
    };
  var draining = false;

  function drainWhenIdle() {
    if (draining || !queue.length) return;
    draining = true;
    idle(
      function (deadline) {
        draining = false;
        // Trozos cortos (unos milisegundos): en un móvil lento, cada tarea larga
        // retrasa la respuesta a un toque.
        var start = performance.now();
        while (queue.length && deadline.timeRemaining() > 1 &&
               performance.now() - start < 8) {
          markBoxes(queue.splice(0, 4).filter(function (box) {
            return box.isConnected;
          }));
        }
        drainWhenIdle();
      },
      { timeout: 2000 }
    );
  }

  var pending = false;
  function markAll() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      watchAll();
      markBoxes(Array.from(near).filter(function (box) {
        return box.isConnected;
      }));
      if (document.readyState === "complete") drainWhenIdle();
    });
  }

  document.addEventListener(
    "scroll",
    function (event) {
      var box = event.target;
      if (box && box.classList && box.classList.contains("curso-desplazable")) {
        apply(measure(box));
      }
    },
    true
  );
  window.addEventListener("resize", function () {
    // Con otro ancho, cada caja puede caber o dejar de caber: todas a la cola.
    queue = [];
    watched = new WeakSet();
    markAll();
  });
  window.addEventListener("load", drainWhenIdle);
  // Una fuente que llega tarde cambia el ancho del texto sin tocar el DOM.
  if (document.fonts) {
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
