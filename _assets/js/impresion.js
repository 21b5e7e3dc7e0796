// El capítulo en papel (con impresion.css): al imprimir, las soluciones de los
// ejercicios y las respuestas de las preguntas van al final de cada capítulo, en
// «Soluciones»; después, todo vuelve a su sitio. En el PDF del curso (tools/pdf.py)
// hay una por capítulo. Sin JavaScript, la hoja simplemente no imprime soluciones.
(function () {
  "use strict";

  var STATE = 'script[type="application/vnd.jupyter.widget-state+json"]';
  var undo = null; // lo que deshace el último «beforeprint»

  function el(tag, props, children) {
    var node = Object.assign(document.createElement(tag), props);
    node.append.apply(node, children);
    return node;
  }

  // «Práctica n» y sus respuestas, de los modelos de los widgets (el estado de la
  // página; la caja de cada widget va justo antes de su vista: widgets-estaticos.js).
  function quizAnswers(root) {
    var areas = Array.from(root.querySelectorAll('[data-rn-widget="Quiz"]'));
    var state = areas.length && JSON.parse(document.querySelector(STATE).textContent);
    return areas.flatMap(function (area, i) {
      var model = state.state[JSON.parse(area.nextElementSibling.textContent).model_id];
      // La solución resuelta de un cálculo; la opción correcta y su porqué, si no.
      var answers = model.state.questions.map(function (q) {
        var right = (q.options || []).find(function (o) { return o.correct; });
        return el("li", {}, [right ? "«" + right.text + "». " + right.explanation
          : q.solution]);
      });
      var title = el("strong", {}, ["Práctica " + (i + 1)]);
      return [el("p", { className: "rn-respuestas-titulo" }, [title]),
        el("ol", { className: "rn-respuestas-preguntas" }, answers)];
    });
  }

  // Los desplegables de sphinx-design: una pista se imprime abierta en su sitio; una
  // pregunta de autoevaluación deja un hueco, y su respuesta va a «Soluciones».
  function selfCheck(root, steps) {
    var items = [];
    root.querySelectorAll("details.sd-dropdown").forEach(function (details) {
      var label = details.querySelector(".sd-summary-text");
      var body = details.querySelector(".sd-summary-content");
      if (/^\s*Pista\b/.test(label.textContent)) {
        if (!details.open) steps.push(function () { details.open = false; });
        details.open = true;
        return;
      }
      var room = el("div", { className: "rn-hueco", ariaHidden: "true" }, []);
      details.after(room);
      items.push(el("li", {}, [el("p", {}, [el("strong", {}, [label.cloneNode(true)])]),
        body]));
      steps.push(function () {
        details.append(body);
        room.remove();
      });
    });
    var list = el("ul", { className: "rn-respuestas-autoevaluacion" }, items);
    return items.length ? [list] : [];
  }

  // La dirección publicada de un capítulo (su <link rel="canonical">, de
  // html_baseurl); en el PDF, la de la página única más el nombre del documento.
  function webAddress(chapter) {
    var canonical = document.querySelector('link[rel="canonical"]');
    if (!canonical) return "";
    var mark = chapter.previousElementSibling;
    if (mark && /^document-/.test(mark.id || "")) {
      return new URL(mark.id.replace(/^document-/, "") + ".html",
        canonical.href).href;
    }
    return canonical.href.split("#")[0];
  }

  // Debajo de cada widget (no de las preguntas: esas se contestan en el papel), una
  // línea que dice que en la web es interactivo, con el enlace a su capítulo.
  function webNotes(root, steps) {
    var address = webAddress(root);
    root.querySelectorAll(".widget-subarea:not([data-rn-widget=\"Quiz\"])")
      .forEach(function (area) {
        var link = el("a", { href: address }, [address]);
        var note = el("p", { className: "rn-widget-web" }, address
          ? ["Interactivo: pruébalo en la web, en ", link, "."]
          : ["Interactivo: pruébalo en la web."]);
        // Detrás de la vista (el <script> que sigue a la caja): ahí la busca quizAnswers.
        (area.nextElementSibling || area).after(note);
        steps.push(function () { note.remove(); });
      });
  }

  function beforePrint() {
    if (undo) return; // ya preparado (tools/pdf.py lo prepara antes de imprimir)
    var steps = (undo = []);
    var html = document.documentElement;
    if (html.dataset.theme === "dark") {
      html.dataset.theme = "light";
      steps.push(function () { html.dataset.theme = "dark"; });
    }
    // Cada capítulo: en el PDF, la sección tras cada marca de documento de singlehtml.
    var chapters = document.querySelectorAll('span[id^="document-"] + section');
    if (!chapters.length) chapters = document.querySelectorAll(".bd-article > section");
    chapters.forEach(function (root, n) {
      var id = "rn-soluciones-" + (root.id || n);
      webNotes(root, steps);
      var level = Number(root.querySelector("h1, h2").tagName[1]);
      var section = el("section", { className: "rn-soluciones", id: id },
        [el("h" + (level + 1), {}, ["Soluciones"])]);
      root.querySelectorAll(".solution").forEach(function (solution) {
        var link = el("a", { href: "#" + id }, ["«Soluciones»"]);
        var note = el("p", { className: "rn-remite-solucion" },
          ["Solución: al final del capítulo, en ", link, "."]);
        solution.before(note);
        section.append(solution);
        steps.push(function () { note.replaceWith(solution); });
      });
      function part(title, suffix, nodes) {
        if (!nodes.length) return;
        section.append(el("h" + (level + 2), { id: id + suffix }, [title]), ...nodes);
      }
      part("Autoevaluación", "-autoevaluacion", selfCheck(root, steps));
      part("Preguntas de práctica", "-preguntas", quizAnswers(root));
      if (section.childElementCount > 1) root.append(section);
      steps.push(function () { section.remove(); });
    });
  }

  window.addEventListener("beforeprint", beforePrint);
  window.addEventListener("afterprint", function () {
    (undo || []).reverse().forEach(function (step) { step(); });
    undo = null;
  });
})();
