// Configuración de require.js para los widgets en la página estática (sin kernel).
// El gestor de widgets (@jupyter-widgets/html-manager) pide el módulo «anywidget»:
// se sirve la copia vendorizada, nunca un CDN.
(function () {
  var src = document.currentScript ? document.currentScript.src : "";
  var base = src.replace(/js\/require-config\.js(\?.*)?$/, "vendor/");
  require.config({
    paths: {
      anywidget: base + "anywidget/index",
      // Así el gestor de widgets calcula bien su ruta pública y pide sus fuentes
      // (FontAwesome 4 del CSS de ipywidgets) a la copia local.
      "@jupyter-widgets/html-manager/dist": base + "html-manager",
    },
  });

  // @jupyter-widgets/base llama a la API de MathJax 2 (MathJax.Hub.Queue); el sitio
  // usa MathJax 3. Esta cuña traduce esa llamada cuando MathJax 3 ya está cargado.
  window.addEventListener("load", function () {
    var mj = window.MathJax;
    if (mj && !mj.Hub && typeof mj.typesetPromise === "function") {
      mj.Hub = {
        Queue: function (job) {
          var el = Array.isArray(job) ? job[2] : undefined;
          return mj.typesetPromise(el ? [el] : undefined);
        },
      };
    }
  });
})();
