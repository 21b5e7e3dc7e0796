// El capítulo en papel (con _assets/css/impresion.css): antes de imprimir, las
// soluciones de los ejercicios y las respuestas de las preguntas se reúnen al final
// de cada capítulo, en «Soluciones»; después de imprimir, todo vuelve a su sitio.
//
// Se carga solo en las páginas con widgets (nb_ipywidgets_js en _config.yml): son
// las que tienen preguntas, y todas las que tienen ejercicios. En el PDF del curso
// (tools/pdf.py, una sola página con todos los capítulos) hay una sección
// «Soluciones» al final de cada capítulo.
//
// Sin JavaScript (o si esto falla), la hoja de impresión simplemente no imprime las
// soluciones: nunca salen abiertas debajo de su ejercicio.
(function () {
  "use strict";

  var STATE = "application/vnd.jupyter.widget-state+json";
  var VIEW = "application/vnd.jupyter.widget-view+json";
  var undo = null; // lo que deshace el último «antes de imprimir»

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) {
      node.append(child);
    });
    return node;
  }

  // Los modelos de los widgets, de todos los estados de la página (el PDF junta los
  // de todos los capítulos).
  function widgetModels() {
    var models = {};
    document.querySelectorAll('script[type="' + STATE + '"]').forEach(function (script) {
      try {
        var state = JSON.parse(script.textContent).state || {};
        Object.keys(state).forEach(function (id) {
          models[id] = state[id].state || {};
        });
      } catch (error) {
        /* un estado ilegible: sus preguntas quedan sin respuesta impresa */
      }
    });
    return models;
  }

  // Cada capítulo: en una página, su sección principal; en el PDF, la sección que
  // sigue a la marca de cada documento (<span id="document-…">, de singlehtml).
  function chapters() {
    var marked = document.querySelectorAll('span[id^="document-"] + section');
    if (marked.length) return Array.prototype.slice.call(marked);
    var one = document.querySelector(".bd-article > section") ||
      document.querySelector(".bd-article") || document.querySelector("main");
    return one ? [one] : [];
  }

  function headingLevel(root) {
    var heading = root.querySelector("h1, h2, h3, h4, h5");
    return heading ? Number(heading.tagName.slice(1)) : 1;
  }

  function questionsOf(model) {
    var questions = model.questions;
    if (typeof questions === "string") {
      try {
        questions = JSON.parse(questions);
      } catch (error) {
        questions = null;
      }
    }
    return Array.isArray(questions) ? questions : [];
  }

  // La respuesta de una pregunta, en una línea: la solución resuelta de un cálculo;
  // la opción correcta y por qué, en una de opciones.
  function answerOf(question) {
    if (question.type === "numeric" || question.solution) {
      return String(question.solution || question.answer);
    }
    var right = (question.options || []).filter(function (option) {
      return option.correct;
    });
    return right.map(function (option) {
      return "«" + option.text + "». " + (option.explanation || "");
    }).join(" ");
  }

  function quizAnswers(root, models, level, chapterId) {
    var areas = root.querySelectorAll('.widget-subarea[data-rn-widget="Quiz"]');
    var blocks = [];
    Array.prototype.forEach.call(areas, function (area, i) {
      var view = area.nextElementSibling;
      var model = null;
      if (view && view.type === VIEW) {
        try {
          model = models[JSON.parse(view.textContent).model_id];
        } catch (error) {
          model = null;
        }
      }
      var questions = model ? questionsOf(model) : [];
      var items = questions.map(function (question) {
        return el("li", {}, [answerOf(question)]);
      });
      if (!items.length) {
        items = [el("li", {}, ["(Sus respuestas se ven en la versión web.)"])];
      }
      blocks.push(el("p", { class: "rn-respuestas-titulo" }, [
        el("strong", {}, ["Práctica " + (i + 1)]),
      ]));
      blocks.push(el("ol", { class: "rn-respuestas-preguntas" }, items));
    });
    if (!blocks.length) return [];
    var title = el("h" + Math.min(level + 2, 6), { id: chapterId + "-preguntas" },
      ["Preguntas de práctica"]);
    return [title].concat(blocks);
  }

  // Los desplegables de sphinx-design: una pista se imprime abierta en su sitio; una
  // pregunta de autoevaluación, con un hueco para contestar, y su respuesta va a
  // «Soluciones».
  function dropdowns(root, level, chapterId, steps) {
    var items = [];
    root.querySelectorAll("details.sd-dropdown").forEach(function (details) {
      if (details.closest(".rn-capitulo") !== root) return;
      var label = details.querySelector(".sd-summary-text");
      var body = details.querySelector(".sd-summary-content");
      if (!label || !body) return;
      if (/^\s*Pista\b/.test(label.textContent)) {
        if (!details.open) {
          details.open = true;
          steps.push(function () { details.open = false; });
        }
        return;
      }
      var mark = document.createComment("respuesta");
      var room = el("div", { class: "rn-hueco", "aria-hidden": "true" });
      body.before(mark);
      details.after(room);
      var question = el("p", {}, [el("strong", {}, [label.cloneNode(true)])]);
      items.push(el("li", {}, [question, body]));
      steps.push(function () {
        mark.replaceWith(body);
        room.remove();
      });
    });
    if (!items.length) return [];
    return [
      el("h" + Math.min(level + 2, 6), { id: chapterId + "-autoevaluacion" },
        ["Autoevaluación"]),
      el("ul", { class: "rn-respuestas-autoevaluacion" }, items),
    ];
  }

  function beforePrint() {
    if (undo) return; // ya preparado (el PDF lo prepara antes de imprimir)
    var steps = [];
    var html = document.documentElement;
    if (html.dataset.theme === "dark") {
      html.dataset.theme = "light";
      steps.push(function () { html.dataset.theme = "dark"; });
    }
    var models = widgetModels();
    chapters().forEach(function (root, n) {
      root.classList.add("rn-capitulo");
      steps.push(function () { root.classList.remove("rn-capitulo"); });
      var solutions = Array.prototype.filter.call(
        root.querySelectorAll(".solution"),
        function (solution) { return solution.closest(".rn-capitulo") === root; }
      );
      var level = headingLevel(root);
      var id = "rn-soluciones-" + (root.id || n);
      var answers = quizAnswers(root, models, level, id);
      var selfCheck = dropdowns(root, level, id, steps);
      if (!solutions.length && !answers.length && !selfCheck.length) return;
      var section = el("section", { class: "rn-soluciones", id: id }, [
        el("h" + Math.min(level + 1, 6), {}, ["Soluciones"]),
      ]);
      solutions.forEach(function (solution) {
        var mark = document.createComment("solución");
        var note = el("p", { class: "rn-remite-solucion" }, [
          "Solución: al final del capítulo, en ",
          el("a", { href: "#" + id }, ["«Soluciones»"]),
          ".",
        ]);
        solution.before(mark);
        mark.after(note);
        section.append(solution);
        steps.push(function () {
          mark.replaceWith(solution);
          note.remove();
        });
      });
      selfCheck.forEach(function (node) {
        section.append(node);
      });
      answers.forEach(function (node) {
        section.append(node);
      });
      root.append(section);
      steps.push(function () { section.remove(); });
    });
    undo = steps;
  }

  function afterPrint() {
    if (!undo) return;
    undo.reverse().forEach(function (step) {
      step();
    });
    undo = null;
  }

  window.addEventListener("beforeprint", beforePrint);
  window.addEventListener("afterprint", afterPrint);
})();
