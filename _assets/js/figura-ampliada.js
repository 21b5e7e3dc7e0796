// Cada figura se abre en grande, con su pie (book/_ext/curso_navegador.py lo carga
// solo en las páginas con figuras).
//
// Un toque en la figura (o en su botón «Ampliar», con el teclado) abre un cuadro de
// diálogo (<dialog>, modal) con la figura a todo el ancho de la pantalla y su pie.
// Se cierra con «Cerrar», con Esc o tocando fuera; el foco vuelve a lo que lo abrió.
(function () {
  "use strict";

  var FIGURES = ".bd-article figure img, .bd-article img.curso-figura";
  var dialog = null;
  var opener = null;

  // El pie de la figura, tal cual (con sus fórmulas), sin el enlace «#» al ancla.
  function captionOf(img) {
    var figure = img.closest("figure");
    var caption = figure && figure.querySelector("figcaption");
    if (!caption) return null;
    var copy = caption.cloneNode(true);
    copy.querySelectorAll(".headerlink, [id]").forEach(function (el) {
      if (el.matches(".headerlink")) el.remove();
      else el.removeAttribute("id");
    });
    return copy.childNodes;
  }

  function numberOf(img) {
    var figure = img.closest("figure");
    var number = figure && figure.querySelector("figcaption .caption-number");
    return number ? number.textContent.replace(/[\s—]+$/, "").trim() : "la figura";
  }

  function build() {
    dialog = document.createElement("dialog");
    dialog.className = "curso-figura-dialogo";
    dialog.setAttribute("aria-labelledby", "curso-figura-dialogo-pie");
    var close = document.createElement("button");
    close.type = "button";
    close.className = "curso-figura-dialogo__cerrar";
    close.textContent = "Cerrar";
    close.addEventListener("click", function () {
      dialog.close();
    });
    var img = document.createElement("img");
    img.className = "curso-figura-dialogo__imagen";
    var caption = document.createElement("div");
    caption.id = "curso-figura-dialogo-pie";
    caption.className = "curso-figura-dialogo__pie";
    dialog.append(close, img, caption);
    // Un toque fuera de la figura (en el fondo del cuadro) también cierra.
    dialog.addEventListener("click", function (event) {
      if (event.target === dialog) dialog.close();
    });
    dialog.addEventListener("close", function () {
      document.documentElement.classList.remove("curso-figura-abierta");
      if (opener && opener.isConnected) opener.focus();
      opener = null;
    });
    document.body.append(dialog);
  }

  function open(img, from) {
    if (!dialog) build();
    opener = from;
    var big = dialog.querySelector("img");
    big.src = img.currentSrc || img.src;
    big.alt = img.alt || "";
    var caption = dialog.querySelector(".curso-figura-dialogo__pie");
    var copy = captionOf(img);
    caption.replaceChildren();
    if (copy) caption.append.apply(caption, Array.from(copy));
    else caption.textContent = img.alt || "";
    document.documentElement.classList.add("curso-figura-abierta");
    dialog.showModal();
    dialog.querySelector("button").focus();
  }

  function setUp(img) {
    if (img.dataset.cursoAmpliable) return;
    img.dataset.cursoAmpliable = "1";
    // El botón va en el pie (arriba a la derecha, en el hueco que le guarda
    // curso.css): no tapa ningún texto de la figura.
    var figure = img.closest("figure");
    var holder = figure
      ? figure.querySelector(":scope > figcaption") || figure
      : img.closest("div.output") || img.parentElement;
    holder.classList.add("curso-figura-ampliable");
    var button = document.createElement("button");
    button.type = "button";
    button.className = "curso-ampliar";
    var name = numberOf(img).replace(/^Figura/, "la figura");
    button.setAttribute("aria-label", "Ampliar " + name);
    button.setAttribute("aria-haspopup", "dialog");
    button.textContent = "⤢";
    button.addEventListener("click", function () {
      open(img, button);
    });
    img.addEventListener("click", function () {
      open(img, button);
    });
    holder.append(button);
  }

  function start() {
    if (typeof HTMLDialogElement === "undefined") return;
    document.querySelectorAll(FIGURES).forEach(setUp);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
