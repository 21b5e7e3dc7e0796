// Cada figura se abre en grande con su pie, en un cuadro modal (<dialog>): lo abre un
// toque en la figura o su botón ⤢; lo cierran «Cerrar», Esc o un toque fuera, y el
// foco vuelve al botón. book/_ext/curso_navegador.py lo carga si hay figuras.
document.body.insertAdjacentHTML("beforeend", `<dialog class="curso-figura-dialogo"
    aria-labelledby="curso-figura-dialogo-pie">
  <button type="button" class="curso-figura-dialogo__cerrar" autofocus>Cerrar</button>
  <img class="curso-figura-dialogo__imagen" alt="">
  <div id="curso-figura-dialogo-pie" class="curso-figura-dialogo__pie"></div>
</dialog>`);
const dialog = document.body.lastElementChild;
const [close, big, caption] = dialog.children;
dialog.addEventListener("click", ({ target }) => {
  if (target === dialog || target === close) dialog.close(); // dialog: el fondo
});

function open(img, button) {
  button.focus({ preventScroll: true }); // el cuadro, al cerrarse, se lo devuelve
  big.src = img.currentSrc || img.src;
  big.alt = img.alt;
  // El pie tal cual (con sus fórmulas), sin el enlace «#» ni el botón ⤢.
  const copy = img.closest("figure")?.querySelector("figcaption")?.cloneNode(true);
  copy?.querySelectorAll(".headerlink, .curso-ampliar").forEach((el) => el.remove());
  copy?.querySelectorAll("[id]").forEach((el) => el.removeAttribute("id"));
  caption.replaceChildren(...(copy ? copy.childNodes : [img.alt]));
  dialog.showModal();
}

const FIGURES = ".bd-article figure img, .bd-article img.curso-figura";
for (const img of document.querySelectorAll(FIGURES)) {
  img.dataset.cursoAmpliable = "1";
  const figure = img.closest("figure");
  // El botón va arriba a la derecha del pie, en el hueco que le guarda curso.css.
  const holder = figure ? figure.querySelector(":scope > figcaption") || figure
    : img.closest("div.output") || img.parentElement;
  holder.classList.add("curso-figura-ampliable");
  const number = figure?.querySelector("figcaption .caption-number")?.textContent;
  const name = number?.trim().replace(/^Figura/, "la figura").replace(/[\s—]+$/, "");
  holder.insertAdjacentHTML("beforeend", `<button type="button" class="curso-ampliar"
    aria-haspopup="dialog" aria-label="Ampliar ${name || "la figura"}">⤢</button>`);
  const button = holder.lastElementChild;
  button.addEventListener("click", () => open(img, button));
  img.addEventListener("click", () => open(img, button));
}
