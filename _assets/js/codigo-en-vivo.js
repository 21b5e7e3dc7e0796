// «Código en vivo» (Thebe) sin CDN y con mensajes en español.
//
// sphinx-thebe 0.3.1 descargaría Thebe de unpkg.com y escribiría «Loading thebe from
// CDN...» en el botón para siempre si no hay red. Esta versión de ``initThebe`` (la que
// llama el botón del cohete) carga la copia del sitio (_static/vendor/thebe/, Thebe
// 0.9.3), comprueba antes que el BinderHub responde y, si no, dice por qué y qué hacer.
// THEBE_JS_URL y CURSO_BINDER_URL los escribe la construcción (book/_ext/curso_sitio.py).
(function () {
  "use strict";

  var TIMEOUT_MS = 8000;
  var STATUS = {
    building: "Binder está preparando el entorno del curso (la primera vez, varios minutos)…",
    built: "Entorno listo; arrancando el núcleo de Python…",
    launching: "Arrancando el núcleo de Python…",
    "server-ready": "Servidor listo; abriendo una sesión…",
    "session-ready": "Núcleo listo: ejecuta las celdas en orden, de arriba abajo.",
    ready: "Núcleo listo: ejecuta las celdas en orden, de arriba abajo.",
    idle: "Núcleo listo.",
    busy: "Ejecutando…",
  };

  function binderUrl() {
    var url = typeof window.CURSO_BINDER_URL === "string" ? window.CURSO_BINDER_URL : "";
    return url.replace(/\/+$/, "");
  }

  function hostOf(url) {
    try {
      return new URL(url).host;
    } catch (e) {
      return url;
    }
  }

  // Un aviso visible bajo el título del capítulo (role=status: se anuncia al cambiar).
  function showStatus(text, kind) {
    var box = document.getElementById("curso-codigo-en-vivo");
    if (!box) {
      box = document.createElement("div");
      box.id = "curso-codigo-en-vivo";
      box.setAttribute("role", "status");
      var title = document.querySelector("article.bd-article h1");
      if (title) title.insertAdjacentElement("afterend", box);
      else document.body.prepend(box);
    }
    box.className = "curso-codigo-en-vivo curso-codigo-en-vivo--" + (kind || "info");
    box.replaceChildren();
    var lines = Array.isArray(text) ? text : [text];
    lines.forEach(function (line, i) {
      var p = document.createElement("p");
      p.textContent = line;
      if (i === 0) p.className = "curso-codigo-en-vivo__titulo";
      box.appendChild(p);
    });
    // sphinx-book-theme inserta un botón vacío bajo el título: el aviso lo sustituye.
    document.querySelectorAll("button.thebe-launch-button").forEach(function (b) {
      if (!b.textContent.trim()) b.remove();
    });
    box.scrollIntoView({ block: "nearest" });
  }

  function unreachable(host, title) {
    showStatus(
      [
        title || "No se puede conectar con " + host + ".",
        "El código en vivo ejecuta las celdas en un servidor de Binder (" + host +
          "), y desde aquí no responde: puede que no tengas conexión a internet, que " +
          "una red o un cortafuegos lo bloquee o que el servicio esté caído.",
        "Qué puedes hacer: comprueba la conexión y vuelve a pulsar «Código en vivo»; " +
          "o descarga el notebook (flecha de descarga) y ejecútalo en tu ordenador, " +
          "en Colab o en Binder más tarde. Sin conexión, la página se sigue leyendo " +
          "entera y los widgets funcionan.",
      ],
      "error"
    );
  }

  function reachable(url) {
    if (!window.fetch || !window.AbortController) return Promise.resolve(true);
    var controller = new AbortController();
    var timer = setTimeout(function () {
      controller.abort();
    }, TIMEOUT_MS);
    return fetch(url + "/health", {
      mode: "no-cors",
      cache: "no-store",
      signal: controller.signal,
    })
      .then(function () {
        return true;
      })
      .catch(function () {
        return false;
      })
      .finally(function () {
        clearTimeout(timer);
      });
  }

  function load(src, css) {
    return new Promise(function (resolve, reject) {
      if (css) {
        var link = document.createElement("link");
        link.rel = "stylesheet";
        link.href = css;
        document.head.appendChild(link);
      }
      var script = document.createElement("script");
      script.src = src;
      script.onload = resolve;
      script.onerror = reject;
      document.head.appendChild(script);
    });
  }

  // Los botones que Thebe añade a cada celda, en español.
  var BUTTONS = {
    run: ["ejecutar", "Ejecutar esta celda"],
    "run all": ["ejecutar todo", "Ejecutar todas las celdas"],
    restart: ["reiniciar", "Reiniciar el núcleo"],
    "restart & run all": ["reiniciar y ejecutar todo",
      "Reiniciar el núcleo y ejecutar todas las celdas"],
  };

  function translateButtons() {
    document.querySelectorAll(".thebe-controls button").forEach(function (button) {
      var walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
      var node;
      while ((node = walker.nextNode())) {
        var spanish = BUTTONS[node.textContent.trim()];
        if (spanish) {
          node.textContent = spanish[0];
          button.setAttribute("title", spanish[1]);
          button.setAttribute("aria-label", spanish[1]);
        }
      }
    });
  }

  var started = false;

  function initThebe() {
    var url = binderUrl();
    var host = hostOf(url);
    if (!url || typeof THEBE_JS_URL !== "string") {
      showStatus("Este sitio no tiene configurado el código en vivo.", "error");
      return;
    }
    if (started) return;
    showStatus("Conectando con " + host + "…", "info");
    reachable(url).then(function (ok) {
      if (!ok) {
        unreachable(host);
        return;
      }
      started = true;
      var ready =
        typeof window.thebelab === "undefined"
          ? load(THEBE_JS_URL, THEBE_JS_URL.replace(/index\.js(\?.*)?$/, "thebe.css"))
          : Promise.resolve();
      ready
        .then(function () {
          var failed = function () {
            started = false;
            unreachable(host, "Se perdió la conexión con " + host + ".");
          };
          window.thebelab.on("status", function (evt, data) {
            var status = data && data.status;
            if (/fail|error|dead|closed|shutdown/i.test(String(status))) failed();
            else showStatus(STATUS[status] || "Conectando con " + host + "…", "info");
          });
          window.thebelab.on("error", failed);
          if (typeof window.modifyDOMForThebe === "function") window.modifyDOMForThebe();
          new MutationObserver(translateButtons).observe(document.body, {
            childList: true,
            subtree: true,
          });
          // Sobre la configuración de la página (sphinx-thebe): el BinderHub del
          // botón de Binder y sin MathJax 2 de cdnjs para las salidas (las fórmulas
          // del sitio ya vienen dibujadas por KaTeX).
          window.thebelab.bootstrap({
            mathjaxUrl: false,
            binderOptions: { binderUrl: url },
          });
        })
        .catch(function () {
          started = false;
          showStatus(
            [
              "No se pudo cargar el código en vivo.",
              "Falta una parte del sitio (_static/vendor/thebe/). Vuelve a cargar la " +
                "página; si sigue igual, descarga el notebook y ejecútalo en tu " +
                "ordenador, en Colab o en Binder.",
            ],
            "error"
          );
        });
    });
  }

  // sphinx-thebe.js se carga con «async» y define su propio initThebe: esta versión
  // se instala ahora y otra vez al terminar la carga, por si aquel llegó después.
  window.initThebe = initThebe;
  window.addEventListener("load", function () {
    window.initThebe = initThebe;
  });
})();
