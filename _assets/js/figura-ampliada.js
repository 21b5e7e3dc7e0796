// Cada figura se abre en grande, con su pie, en un cuadro modal (<dialog>): un toque en
// la figura o en su botón «Ampliar» (⤢, con el teclado) lo abre; «Cerrar», Esc o un
// toque fuera lo cierran, y el foco vuelve al botón. book/_ext/curso_navegador.py lo
// carga solo en las páginas con figuras.
(function () {
  "use strict";
  if (typeof HTMLDialogElement === "undefined") return;
  const dialog = document.createElement("dialog");
  dialog.className = "curso-figura-dialogo";
  dialog.setAttribute("aria-labelledby", "curso-figura-dialogo-pie");
  dialog.innerHTML = `
    <button type="button" class="curso-figura-dialogo__cerrar">Cerrar</button>
    <img class="curso-figura-dialogo__imagen" alt="">
    <div id="curso-figura-dialogo-pie" class="curso-figura-dialogo__pie"></div>`;
  const [close, big, caption] = dialog.children;
  let opener = null;
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog || event.target === close) dialog.close();
  });
  dialog.addEventListener("close", () => {
    document.documentElement.classList.remove("curso-figura-abierta");
    opener.focus();
  });

  function open(img, button) {
    opener = button;
    big.src = img.currentSrc || img.src;
    big.alt = img.alt;
    // El pie tal cual (con sus fórmulas), sin el enlace «#» ni el botón ⤢.
    const copy = img.closest("figure")?.querySelector("figcaption")?.cloneNode(true);
    copy?.querySelectorAll(".headerlink, .curso-ampliar").forEach((el) => el.remove());
    copy?.querySelectorAll("[id]").forEach((el) => el.removeAttribute("id"));
    caption.replaceChildren(...(copy ? copy.childNodes : [img.alt]));
    if (!dialog.isConnected) document.body.append(dialog);
    document.documentElement.classList.add("curso-figura-abierta");
    dialog.showModal();
    close.focus();
  }

  const FIGURES = ".bd-article figure img, .bd-article img.curso-figura";
  document.querySelectorAll(FIGURES).forEach((img) => {
    img.dataset.cursoAmpliable = "1";
    const figure = img.closest("figure");
    // El botón va en el pie, arriba a la derecha (el hueco que le guarda curso.css).
    const holder = figure
      ? figure.querySelector(":scope > figcaption") || figure
      : img.closest("div.output") || img.parentElement;
    holder.classList.add("curso-figura-ampliable");
    const number = figure?.querySelector("figcaption .caption-number")?.textContent;
    const name = number ? number.replace(/[\s—]+$/, "").trim() : "Figura";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "curso-ampliar";
    button.setAttribute("aria-label", "Ampliar " + name.replace(/^Figura/, "la figura"));
    button.setAttribute("aria-haspopup", "dialog");
    button.textContent = "⤢";
    holder.append(button);
    button.addEventListener("click", () => open(img, button));
    img.addEventListener("click", () => open(img, button));
  });
})();
