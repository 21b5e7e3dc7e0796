// El capítulo en papel (con impresion.css): al imprimir, las soluciones de los
// ejercicios y las respuestas de las preguntas van al final de cada capítulo, en
// «Soluciones»; después, todo vuelve a su sitio. En el PDF del curso (tools/pdf.py)
// hay una por capítulo. Sin JavaScript, la hoja simplemente no imprime soluciones.
(function () {
  "use strict";

  var undo = null; // lo que deshace el último «beforeprint»

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs).forEach(function (name) {
      node.setAttribute(name, attrs[name]);
    });
    node.append.apply(node, children);
    return node;
  }

  // Los modelos de los widgets de la página (el PDF junta los de todos los capítulos).
  function widgetModels() {
    var models = {};
    var type = "application/vnd.jupyter.widget-state+json";
    document.querySelectorAll('script[type="' + type + '"]').forEach(function (script) {
      Object.assign(models, JSON.parse(script.textContent).state);
    });
    return models;
  }

  // La solución resuelta de un cálculo; la opción correcta y por qué, en las demás.
  function answerOf(question) {
    if (question.type === "numeric") return question.solution;
    var right = question.options.find(function (option) { return option.correct; });
    return "«" + right.text + "». " + right.explanation;
  }

  function quizAnswers(root, models) {
    var blocks = [];
    root.querySelectorAll('.widget-subarea[data-rn-widget="Quiz"]').forEach(
      function (area, i) {
        // La caja de un widget va justo antes de su vista (widgets-estaticos.js).
        var view = JSON.parse(area.nextElementSibling.textContent);
        var items = models[view.model_id].state.questions.map(function (question) {
          return el("li", {}, [answerOf(question)]);
        });
        blocks.push(el("p", { class: "rn-respuestas-titulo" }, [
          el("strong", {}, ["Práctica " + (i + 1)]),
        ]), el("ol", { class: "rn-respuestas-preguntas" }, items));
      });
    return blocks;
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
      var mark = document.createComment("respuesta");
      var room = el("div", { class: "rn-hueco", "aria-hidden": "true" }, []);
      body.before(mark);
      details.after(room);
      items.push(el("li", {}, [el("p", {}, [el("strong", {}, [label.cloneNode(true)])]),
        body]));
      steps.push(function () {
        mark.replaceWith(body);
        room.remove();
      });
    });
    return items;
  }

  // Cada capítulo: en el PDF, la sección tras cada marca de documento de singlehtml.
  function chapters() {
    var marked = document.querySelectorAll('span[id^="document-"] + section');
    var one = document.querySelector(".bd-article > section");
    return marked.length ? Array.from(marked) : [one].filter(Boolean);
  }

  function beforePrint() {
    if (undo) return; // ya preparado (tools/pdf.py lo prepara antes de imprimir)
    var steps = (undo = []);
    var html = document.documentElement;
    if (html.dataset.theme === "dark") {
      html.dataset.theme = "light";
      steps.push(function () { html.dataset.theme = "dark"; });
    }
    var models = widgetModels();
    chapters().forEach(function (root, n) {
      var id = "rn-soluciones-" + (root.id || n);
      var level = Number(root.querySelector("h1, h2").tagName[1]);
      var heading = function (offset, text, suffix) {
        return el("h" + (level + offset), suffix ? { id: id + suffix } : {}, [text]);
      };
      var section = el("section", { class: "rn-soluciones", id: id },
        [heading(1, "Soluciones")]);
      root.querySelectorAll(".solution").forEach(function (solution) {
        var note = el("p", { class: "rn-remite-solucion" }, ["Solución: al final del " +
          "capítulo, en ", el("a", { href: "#" + id }, ["«Soluciones»"]), "."]);
        solution.before(note);
        section.append(solution);
        steps.push(function () { note.replaceWith(solution); });
      });
      var checks = selfCheck(root, steps);
      if (checks.length) {
        section.append(heading(2, "Autoevaluación", "-autoevaluacion"),
          el("ul", { class: "rn-respuestas-autoevaluacion" }, checks));
      }
      var answers = quizAnswers(root, models);
      if (answers.length) {
        section.append(heading(2, "Preguntas de práctica", "-preguntas"));
        section.append.apply(section, answers);
      }
      root.classList.add("rn-capitulo");
      if (section.childElementCount > 1) root.append(section);
      steps.push(function () {
        root.classList.remove("rn-capitulo");
        section.remove();
      });
    });
  }

  window.addEventListener("beforeprint", beforePrint);
  window.addEventListener("afterprint", function () {
    (undo || []).reverse().forEach(function (step) { step(); });
    undo = null;
  });
})();
