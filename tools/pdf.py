"""El curso entero en un PDF: ``make pdf`` → ``_build/pdf/residual-y-layernorm.pdf``.

Sphinx escribe el libro en una sola página (``singlehtml`` y ``tools/pdf_sphinx.py``,
con los notebooks de la caché) y el Chromium de las pruebas la imprime con la hoja
del sitio (``impresion.css``; ``impresion.js`` reúne las soluciones). Chromium pone el
número al pie y los marcadores, pero no el número de página en el índice (no tiene
``target-counter()``): se imprime con las páginas de la impresión anterior, leídas
de los destinos del PDF, hasta que coinciden. ``--sin-sphinx``: solo imprime.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "_build" / "pdf"
SINGLE = OUT / "singlehtml"
PDF = OUT / "residual-y-layernorm.pdf"
PRINT_ATTEMPTS = 6
FOOTER = (  # el pie no ve las hojas de la página: estilos en línea
    '<div style="width:100%;font-size:8pt;color:#444;text-align:center;'
    'font-family:sans-serif"><span class="pageNumber"></span></div>'
)

# La portada del PDF y su índice, con el título de cada capítulo y un hueco para su
# página; devuelve los documentos sin título en la página.
INSERT_TOC = r"""(parts) => {
  const nav = document.createElement("nav");
  nav.className = "rn-indice-pdf";
  nav.innerHTML = `<p class="rn-titulo-pdf">Residual y LayerNorm</p>
    <p class="rn-subtitulo-pdf">Paso 7 del curso de Transformers</p>
    <h2>Índice</h2><ol></ol>`;
  const missing = [];
  for (const [caption, docs] of parts) {
    const part = nav.querySelector("ol").appendChild(document.createElement("li"));
    part.className = "rn-indice-parte";
    part.textContent = caption;
    for (const doc of docs) {
      const h = document.querySelector(`[id="document-${doc}"] + section :is(h1, h2)`);
      if (!h) { missing.push(doc); continue; }
      const item = nav.querySelector("ol").appendChild(document.createElement("li"));
      item.innerHTML = `<a href="#document-${doc}"><span></span>
        <span class="rn-indice-pagina" data-doc="${doc}"></span></a>`;
      item.querySelector("span").textContent =
        h.textContent.replace(/#\s*$/, "").replace(/\s+/g, " ").trim();
    }
  }
  document.querySelector(".bd-article").prepend(nav);
  return missing;
}"""

SET_PAGES = """(pages) => document.querySelectorAll(".rn-indice-pagina")
  .forEach((span) => { span.textContent = pages[span.dataset.doc]; })"""

# Antes de imprimir: las imágenes diferidas se piden ya, y el evento del navegador al
# imprimir («beforeprint») dibuja los widgets y reúne las soluciones.
PREPARE = """() => {
  document.querySelectorAll("img[loading='lazy']").forEach((img) => {
    img.loading = "eager";
  });
  window.dispatchEvent(new Event("beforeprint"));
}"""

PENDING = """() => {
  const boxes = [...document.querySelectorAll(".widget-subarea")];
  const views = document.querySelectorAll("script[type$='widget-view+json']");
  const pending = boxes.filter((box) => !box.querySelector(".rn-widget"))
    .map((box) => box.dataset.rnWidget);
  if (boxes.length < views.length) pending.push("widgets sin caja");
  if (![...document.images].every((img) => img.complete)) pending.push("imágenes");
  return pending;
}"""


def build_single_page(root_doc: str) -> None:
    """La página única, con su propio entorno de Sphinx (no toca el del sitio)."""
    # -E: el entorno guardado, tras volver a ejecutar los notebooks, perdió una vez
    # el destino de book/referencias.
    if subprocess.run([
        sys.executable, "-m", "sphinx", "-b", "singlehtml", "-E", "-W", "--keep-going",
        "-q", "-d", str(OUT / ".doctrees"), str(ROOT), str(SINGLE),
    ], cwd=ROOT).returncode:
        raise SystemExit("Sphinx (singlehtml) terminó con error: mira los avisos.")
    # singlehtml la escribe en book/, pero con las rutas de una página en la raíz.
    (SINGLE / f"{root_doc}.html").replace(SINGLE / f"{Path(root_doc).name}.html")


def chapter_pages(pdf: bytes) -> dict[str, int]:
    """La página (desde 1) de cada documento, por los destinos con nombre del PDF."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    pages = {}
    for name, dest in reader.named_destinations.items():
        if name.startswith("/document-"):
            pages[name.removeprefix("/document-")] = reader.get_destination_page_number(
                dest) + 1
    return pages


def render_pdf(page, parts: list[tuple[str, list[str]]]) -> bytes:
    """Imprime hasta que el índice da la página en la que empieza cada capítulo."""
    if missing := page.evaluate(INSERT_TOC, parts):
        raise SystemExit(f"Sin título en la página única: {missing}")
    page.evaluate(PREPARE)
    try:
        page.wait_for_function(f"() => ({PENDING})().length === 0", timeout=120_000)
    except Exception:
        raise SystemExit(f"Sin dibujar al imprimir: {page.evaluate(PENDING)}") from None
    page.evaluate("document.fonts.ready.then(() => true)")
    # Se imprime con las páginas de la vuelta anterior hasta que coinciden: dos
    # impresiones del mismo DOM no siempre paginan igual (un corte antes de un título
    # cambia de página por menos de un píxel).
    docs = [doc for _, part in parts for doc in part]
    pages = dict.fromkeys(docs, 0)
    for _ in range(PRINT_ATTEMPTS):
        page.evaluate(SET_PAGES, pages)
        page.evaluate(PREPARE)
        pdf = page.pdf(format="A4", print_background=True, display_header_footer=True,
                       header_template="<span></span>", footer_template=FOOTER,
                       outline=True, tagged=True)
        found = {doc: n for doc, n in chapter_pages(pdf).items() if doc in pages}
        if absent := set(docs) - found.keys():
            raise SystemExit(f"El PDF no tiene destino para: {sorted(absent)}")
        if found == pages:
            return pdf
        pages = found
    raise SystemExit(f"El índice no coincide con las páginas tras {PRINT_ATTEMPTS} "
                     f"impresiones: {pages}")


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    from bench.server import serve
    from tests.helpers import launch_chromium

    if set(argv) - {"--sin-sphinx"}:
        print(__doc__)
        return 2
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    parts = [(part.get("caption", ""), [c["file"] for c in part["chapters"]])
             for part in toc["parts"]]
    if "--sin-sphinx" not in argv:
        build_single_page(toc["root"])
    with serve(SINGLE) as url, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1000, "height": 1400})
        page.goto(f"{url}/{Path(toc['root']).name}.html", timeout=120_000)
        PDF.write_bytes(render_pdf(page, parts))
        browser.close()
    print(f"PDF del curso: {PDF.relative_to(ROOT)} ({PDF.stat().st_size // 1000} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
