// Dibuja los widgets del curso en la web estática, sin núcleo.
//
// Los widgets del curso son de anywidget: un módulo ES («_esm») con
// `export default { render }` y un modelo del que solo usan get, set, on, off y
// save_changes. Para eso no hace falta el gestor completo de @jupyter-widgets
// (embed-amd.js, unos 900 KB comprimido, con Backbone, Lumino y los controles de
// ipywidgets): este archivo lee el estado que myst-nb guarda en la página y monta cada
// vista. myst-nb lo carga solo en las páginas con widgets (nb_ipywidgets_js).
//
// Dos tiempos. Mientras se lee la página (el cargador va sin «defer», en <head>, justo
// después del estado), cada vista recibe su caja con el alto que tendrá el widget
// (css/reserva.css, por clase de widget y ancho de pantalla): el texto de debajo no
// salta cuando el widget aparece. El widget se dibuja después del primer dibujo de la
// página, cuando su caja se acerca a la pantalla (IntersectionObserver, con una
// pantalla de margen) o, los demás, cuando el navegador queda libre después del primer
// gesto del lector o de cargar la página: el primer dibujo no espera a ningún widget,
// y el lector que llega a uno ya lo encuentra dibujado.
(function () {
  "use strict";

  var STATE = "application/vnd.jupyter.widget-state+json";
  var VIEW = "application/vnd.jupyter.widget-view+json";

  // Un modelo como el de anywidget, en memoria: «change:x» avisa a quien escucha.
  function Model(state) {
    this.attributes = Object.assign({}, state);
    this.listeners = {};
  }
  Model.prototype.get = function (name) {
    return this.attributes[name];
  };
  Model.prototype.set = function (name, value) {
    var old = this.attributes[name];
    this.attributes[name] = value;
    if (old !== value) {
      this.emit("change:" + name, value);
      this.emit("change", value);
    }
  };
  Model.prototype.on = function (event, callback) {
    (this.listeners[event] = this.listeners[event] || []).push(callback);
  };
  Model.prototype.off = function (event, callback) {
    if (!event) {
      this.listeners = {};
    } else if (!callback) {
      delete this.listeners[event];
    } else {
      this.listeners[event] = (this.listeners[event] || []).filter(function (cb) {
        return cb !== callback;
      });
    }
  };
  Model.prototype.emit = function (event, value) {
    var self = this;
    (this.listeners[event] || []).slice().forEach(function (callback) {
      callback(self, value);
    });
  };
  // Sin núcleo no hay con quién sincronizar: el estado local es el que vale.
  Model.prototype.save_changes = function () {};
  Model.prototype.send = function () {};

  var modules = {}; // el mismo _esm (una clase de widget) se importa una vez
  var styles = {};

  // En el sitio, el código de cada clase de widget va en su propio archivo
  // (book/_ext/tema_ligero.py): el estado lo nombra «rn-archivo:<ruta relativa>».
  // Se descarga una vez, cuando se dibuja el primer widget que lo usa.
  var FILE = "rn-archivo:";
  var files = {};
  function isFile(value) {
    return typeof value === "string" && value.indexOf(FILE) === 0;
  }
  function fileText(value) {
    if (!files[value]) {
      var url = value.slice(FILE.length);
      files[value] = fetch(url).then(function (response) {
        if (!response.ok) throw new Error(url + ": HTTP " + response.status);
        return response.text();
      });
    }
    return files[value];
  }

  // Los módulos del curso (resnorm.widgets.bundle) no importan nada y solo exportan
  // «export default { render };»: se evalúan en el acto, sin esperar a import(), que
  // resolvería en otra tarea, con la caja ya en pantalla. Cualquier otro módulo, con
  // import() como siempre.
  function evaluateNow(esm) {
    var exports = esm.match(/^export\b/gm) || [];
    if (exports.length !== 1 || !/^export default \{[^}]*\};?\s*$/m.test(esm)) return null;
    if (/^\s*import\b|\bimport\s*\(|\bimport\.meta\b/m.test(esm)) return null;
    try {
      return Function('"use strict";\n' + esm.replace(/^export default /m, "return "))();
    } catch (error) {
      return null;
    }
  }

  function loadModule(esm) {
    if (isFile(esm)) {
      if (!modules[esm]) {
        modules[esm] = fileText(esm).then(function (code) {
          return loadModule(code);
        });
      }
      return modules[esm];
    }
    if (!modules[esm]) {
      var now = evaluateNow(esm);
      if (now) {
        modules[esm] = { then: function (f) { return syncThen(f, now); } };
        return modules[esm];
      }
      // anywidget admite una URL en _esm; los del curso traen el código.
      var url = /^https?:\/\/\S+$/.test(esm)
        ? esm
        : URL.createObjectURL(new Blob([esm], { type: "text/javascript" }));
      modules[esm] = import(url).then(function (module) {
        return module.default || module;
      });
    }
    return modules[esm];
  }

  // Un «then» que llama en el acto: el widget se dibuja antes de que el navegador
  // pinte, y sus errores siguen llegando al .catch de start().
  function syncThen(f, value) {
    try {
      return Promise.resolve(f(value));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  function addStyle(css) {
    if (isFile(css)) {
      return fileText(css).then(addStyle);
    }
    if (!css || styles[css]) return;
    styles[css] = true;
    var style = document.createElement("style");
    style.textContent = css;
    document.head.appendChild(style);
  }

  // La clase de widget («LayerNormExplorer», «Quiz»…) y, en un cuestionario, cuántas
  // preguntas tiene: con eso css/reserva.css da a la caja el alto del widget.
  function reserve(area, model) {
    var kind = String(model.get("_anywidget_id") || "").split(".").pop();
    if (!/^\w+$/.test(kind)) return;
    area.classList.add("rn-reserva");
    area.dataset.rnWidget = kind;
    var questions = model.get("questions");
    if (typeof questions === "string") {
      try {
        questions = JSON.parse(questions);
      } catch (error) {
        questions = null;
      }
    }
    if (Array.isArray(questions)) area.style.setProperty("--rn-preguntas", questions.length);
  }

  function render(area, model) {
    var css = addStyle(model.get("_css"));
    var el = document.createElement("div");
    el.className = "rn-anywidget";
    area.appendChild(el);
    var esm = loadModule(model.get("_esm"));
    // Con su hoja ya puesta: el widget no se ve un momento sin estilo.
    if (css && typeof css.then === "function") {
      esm = Promise.all([css, esm]).then(function (both) {
        return both[1];
      });
    }
    return esm.then(function (widget) {
      if (!model.initialized && typeof widget.initialize === "function") {
        widget.initialize({ model: model });
      }
      model.initialized = true;
      var result = widget.render({ model: model, el: el });
      // Ya dibujado: la caja toma el alto de su contenido.
      area.classList.remove("rn-reserva");
      // Para medir cuánto tarda un widget en verse (tests/test_widgets_site.py).
      if (window.performance && performance.mark) performance.mark("rn-widget-montado");
      return result;
    });
  }

  function report(error) {
    var message = String((error && error.message) || error).slice(0, 300);
    console.error("widgets-estaticos: un widget no se pudo dibujar: " + message);
  }

  // Si el código del widget no llega (o falla al dibujarse), la caja lo dice en vez
  // de quedarse en blanco con el alto reservado.
  function fail(area, error) {
    report(error);
    area.classList.remove("rn-reserva");
    area.querySelectorAll(".rn-anywidget").forEach(function (el) {
      if (!el.firstChild) el.remove();
    });
    var note = document.createElement("p");
    note.className = "rn-widget-fallo";
    note.setAttribute("role", "status");
    note.textContent =
      "Este widget no se ha podido cargar (no llegó su código o falló al " +
      "dibujarse). Recarga la página para intentarlo de nuevo.";
    area.appendChild(note);
  }

  // Cada caja se dibuja una vez: en cuanto entra en la pantalla o le falta menos de
  // una pantalla para entrar (IntersectionObserver) y, si no, más tarde, de una en una
  // cuando el navegador queda libre (cada widget, su propia tarea: la página sigue
  // respondiendo). Ese «más tarde» empieza con el primer gesto del lector (desplazar,
  // tocar, una tecla) o a los 2 s de cargar la página: la carga y el primer dibujo no
  // pagan los widgets que aún no se ven. Sin IntersectionObserver, en el acto.
  var pendingModels = new Map();

  function draw(area) {
    var model = pendingModels.get(area);
    if (!model) return;
    pendingModels.delete(area);
    if (near) near.unobserve(area);
    render(area, model).catch(function (error) {
      fail(area, error);
    });
  }

  var near =
    "IntersectionObserver" in window
      ? new IntersectionObserver(
          function (entries) {
            entries.forEach(function (entry) {
              if (entry.isIntersecting) draw(entry.target);
            });
          },
          { rootMargin: "100% 0px" }
        )
      : null;

  var idle =
    window.requestIdleCallback ||
    function (callback) {
      return setTimeout(callback, 50);
    };

  function drawRestWhenIdle() {
    idle(
      function () {
        var next = pendingModels.keys().next();
        if (next.done) return;
        draw(next.value);
        drawRestWhenIdle();
      },
      { timeout: 3000 }
    );
  }

  var started = false;
  var GESTURES = ["scroll", "wheel", "touchstart", "pointerdown", "keydown"];
  function startLater() {
    if (started) return;
    started = true;
    GESTURES.forEach(function (name) {
      window.removeEventListener(name, startLater);
    });
    drawRestWhenIdle();
  }
  GESTURES.forEach(function (name) {
    window.addEventListener(name, startLater, { passive: true });
  });
  function afterLoad() {
    setTimeout(startLater, 2000);
    prefetch();
  }

  // Papel: antes de imprimir se dibujan en el acto todos los que falten, estén donde
  // estén (_assets/css/impresion.css). Para que no esperen a la red, el código de
  // cada clase de widget se descarga al terminar de cargar la página; uno que aún no
  // ha llegado imprime una línea que lo dice.
  function prefetch() {
    pendingModels.forEach(function (model) {
      [model.get("_esm"), model.get("_css")].forEach(function (value) {
        if (isFile(value)) fileText(value).catch(function () {});
      });
    });
  }
  window.addEventListener("beforeprint", function () {
    Array.from(pendingModels.keys()).forEach(draw);
  });
  if (document.readyState === "complete") afterLoad();
  else window.addEventListener("load", afterLoad);

  function mount(script, models) {
    var id = JSON.parse(script.textContent).model_id;
    var model = models[id];
    if (!model || typeof model.get("_esm") !== "string") {
      console.error("widgets-estaticos: no hay estado para el widget " + id);
      return;
    }
    var area = document.createElement("div");
    area.className = "widget-subarea";
    reserve(area, model);
    script.parentNode.insertBefore(area, script);
    pendingModels.set(area, model);
    if (near) near.observe(area);
    else draw(area);
  }

  var models = null;

  function readModels() {
    if (models) return models;
    var stateScript = document.querySelector('script[type="' + STATE + '"]');
    if (!stateScript) return null;
    var state = JSON.parse(stateScript.textContent).state || {};
    models = {};
    Object.keys(state).forEach(function (id) {
      models[id] = new Model(state[id].state || {});
    });
    return models;
  }

  // Cada vista recibe su caja una sola vez, en cuanto el analizador la inserta.
  function mountOnce(script) {
    if (script.dataset.rnMontado) return;
    var all = readModels();
    if (!all) return;
    try {
      JSON.parse(script.textContent); // ¿ya llegó entera? si no, se monta al final
    } catch (error) {
      return;
    }
    script.dataset.rnMontado = "1";
    try {
      mount(script, all);
    } catch (error) {
      report(error);
    }
  }

  function mountAll() {
    document.querySelectorAll('script[type="' + VIEW + '"]').forEach(mountOnce);
  }

  if (document.readyState === "loading") {
    // Cargado sin «defer», en <head>, justo después del estado: cada caja se reserva
    // mientras se lee la página (un MutationObserver corre antes de pintar), así que
    // el texto de debajo nunca salta. Al terminar, se reserva lo que faltara.
    //
    // El analizador inserta los elementos uno a uno: cada <script> de vista llega como
    // nodo añadido, y su texto, como nodo añadido a ese <script> (si aún no estaba
    // entero, se monta entonces). No hace falta buscar dentro de cada nodo añadido:
    // eso recorría la página entera varias veces mientras se leía (en un capítulo
    // largo, 4 tareas de 50–70 ms en un teléfono, justo después del primer dibujo).
    var isView = function (node) {
      return node.nodeName === "SCRIPT" && node.type === VIEW;
    };
    var observer = new MutationObserver(function (records) {
      for (var i = 0; i < records.length; i++) {
        var record = records[i];
        if (isView(record.target)) mountOnce(record.target);
        var added = record.addedNodes;
        for (var j = 0; j < added.length; j++) {
          if (isView(added[j])) mountOnce(added[j]);
        }
      }
    });
    observer.observe(document.documentElement, { childList: true, subtree: true });
    document.addEventListener("DOMContentLoaded", function () {
      observer.disconnect();
      mountAll();
    });
  } else {
    mountAll();
  }
})();
