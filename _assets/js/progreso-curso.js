// El progreso del curso en la portada: cruza la lista de preguntas (que escribe la
// extensión book/_ext/quiz_progress.py) con lo guardado en este navegador.
(function () {
  "use strict";

  function isObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  // Lo guardado puede tener otra forma (un array, un texto, un JSON roto): se lee
  // solo lo que tiene la de siempre (la reparación completa, repairStore, está en
  // resnorm/quiz/quiz_core.js, que reescribe lo guardado al contestar).
  function read(key) {
    try {
      var text = window.localStorage.getItem(key);
      var data = text ? JSON.parse(text) : {};
      return isObject(data) && isObject(data.chapters) ? data : { chapters: {} };
    } catch (error) {
      return { chapters: {} };
    }
  }

  function raw(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (error) {
      return null;
    }
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) {
      node.append(c);
    });
    return node;
  }

  function plural(n) {
    return n === 1 ? "pregunta" : "preguntas";
  }

  // «undo»: lo que había antes de borrar, para ofrecer deshacerlo.
  function render(box, data, undo) {
    var saved = read(data.storage_key).chapters;
    var done = 0;
    var total = 0;
    var rows = data.chapters.map(function (ch) {
      var ids = Object.keys(ch.questions);
      var mine = isObject(saved[ch.key]) ? saved[ch.key] : {};
      var ok = ids.filter(function (id) {
        var e = mine[id];
        return isObject(e) && e.ok === true && e.v === ch.questions[id];
      }).length;
      done += ok;
      total += ids.length;
      return el("tr", {}, [
        el("td", {}, [el("a", { href: ch.href, text: ch.title })]),
        el("td", { text: ok + " de " + ids.length }),
      ]);
    });
    var reset = el("button", { type: "button", class: "rn-progreso-reset",
      text: "Empezar de nuevo todo el curso" });
    // Sin confirmación, pero se puede deshacer (hasta que se recarga la página).
    reset.addEventListener("click", function () {
      var before = raw(data.storage_key);
      try {
        window.localStorage.removeItem(data.storage_key);
      } catch (error) { /* sin almacenamiento: no hay nada que borrar */ }
      render(box, data, before);
      var again = box.querySelector(".rn-progreso-deshacer") || box.querySelector("button");
      again.focus();
    });
    var note = [];
    if (undo) {
      var undoButton = el("button", { type: "button", class: "rn-progreso-deshacer",
        text: "Deshacer" });
      undoButton.addEventListener("click", function () {
        try {
          window.localStorage.setItem(data.storage_key, undo);
        } catch (error) { /* sin almacenamiento: nada que devolver */ }
        render(box, data);
        box.querySelector(".rn-progreso-reset").focus();
      });
      note.push(el("p", { class: "rn-progreso-borrado", role: "status" },
        ["Borrado todo tu progreso. ", undoButton]));
    }
    box.textContent = "";
    box.append(
      el("p", { class: "rn-progreso-total", role: "status", "aria-live": "polite",
        text: "Llevas " + done + " de " + total + " " + plural(total) +
          " del curso bien contestadas." }),
      el("table", { class: "rn-progreso-tabla" }, [
        el("caption", { text: "Tu progreso por capítulo (guardado solo en este navegador)" }),
        el("thead", {}, [el("tr", {}, [
          el("th", { scope: "col", text: "Capítulo" }),
          el("th", { scope: "col", text: "Preguntas bien contestadas" }),
        ])]),
        el("tbody", {}, rows),
      ]),
      reset
    );
    note.forEach(function (n) { box.append(n); });
  }

  function start() {
    var box = document.getElementById("rn-progreso-curso");
    var source = document.getElementById("rn-quiz-manifest");
    if (!box || !source) return;
    render(box, JSON.parse(source.textContent));
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
