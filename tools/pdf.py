"""El curso entero en un PDF: ``make pdf`` → ``_build/pdf/residual-y-layernorm.pdf``.

1. Sphinx escribe el libro como una sola página (constructor ``singlehtml``) con la
   misma configuración que el sitio (``_config.yml``) y los notebooks ya ejecutados de
   la caché (no ejecuta nada). En una sola página, cada referencia cruzada es un ancla
   del mismo documento: en el PDF, un enlace interno que funciona.
   ``tools/pdf_sphinx.py`` pone en esa página los widgets de todos los capítulos.
2. El Chromium de Debian (el de las pruebas, ``tests/helpers.py``) la abre servida en
   127.0.0.1 (los widgets descargan su código), con la hoja de impresión del sitio
   (``_assets/css/impresion.css``): antes de imprimir, cada widget se dibuja y las
   soluciones de cada capítulo pasan a su «Soluciones» (``_assets/js/impresion.js``).
3. Se imprime dos veces. La primera solo sirve para saber en qué página empieza cada
   capítulo: los enlaces del índice son anclas, y Chromium guarda cada destino en el
   PDF con su nombre y su página (pypdf los lee). La segunda escribe esas páginas en
   el índice (el hueco de cada número ya estaba reservado: nada se mueve) y se
   comprueba que los capítulos siguen en las mismas páginas. El pie de cada página
   lleva su número; el PDF lleva además el índice de marcadores (``outline``).

Uso: ``python tools/pdf.py [--sin-sphinx]`` (``--sin-sphinx``: reutiliza la página
única ya escrita, para probar solo la impresión).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
import subprocess
import sys
import threading
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "pdf"
SINGLE = OUT / "singlehtml"
PDF = OUT / "residual-y-layernorm.pdf"
TITLE = "Residual y LayerNorm"
SUBTITLE = "Paso 7 del curso de Transformers"

# El número de página, en el pie (las clases pageNumber y totalPages las rellena
# Chromium; el pie no ve las hojas de la página: estilos en línea).
FOOTER = (
    '<div style="width:100%;font-size:8pt;color:#444;text-align:center;'
    'font-family:sans-serif"><span class="pageNumber"></span></div>'
)
HEADER = "<span></span>"
# El margen de la hoja (el de @page en impresion.css manda si lo hay; este es el de
# reserva, con sitio para el pie).
MARGIN = {"top": "16mm", "bottom": "18mm", "left": "15mm", "right": "15mm"}


def toc_parts() -> list[dict]:
    """Las partes de ``_toc.yml`` con sus documentos, en orden."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    parts = []
    for part in toc.get("parts", []):
        docs = [c["file"] for c in part.get("chapters", []) if "file" in c]
        parts.append({"caption": part.get("caption", ""), "docs": docs})
    return parts


def single_page() -> Path:
    """La página única: el documento raíz de _toc.yml, en la raíz de la salida."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return SINGLE / (toc["root"].rsplit("/", 1)[-1] + ".html")


def build_single_page() -> None:
    """La página única, con la configuración del libro (``conf.py``) y su propio
    árbol de Sphinx (no toca el del sitio: una construcción del sitio después no lo
    relee todo)."""
    result = subprocess.run([
        # -E: un entorno nuevo cada vez. Reutilizar el guardado tras volver a
        # ejecutar los notebooks dejó una vez el PDF sin el destino de
        # book/referencias («El PDF no tiene destino para…»); en frío no pasaba.
        sys.executable, "-m", "sphinx", "-b", "singlehtml", "-E", "-W", "--keep-going",
        "-q", "-d", str(OUT / ".doctrees"), str(ROOT), str(SINGLE),
    ], cwd=ROOT).returncode
    if result != 0:
        raise SystemExit(f"Sphinx (singlehtml) terminó con error: {result}")
    if not single_page().exists():
        raise SystemExit(f"No se escribió {single_page()}.")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - firma de la clase base
        pass


@contextlib.contextmanager
def serve(folder: Path):
    """``folder`` en http://127.0.0.1:<puerto libre>/ mientras dura el bloque."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


# El índice: antes del texto de la portada, con un hueco fijo para cada número.
_INSERT_TOC = """(args) => {
  const [title, subtitle, parts] = args;
  const nav = document.createElement("nav");
  nav.className = "rn-indice-pdf";
  nav.setAttribute("aria-label", "Índice");
  const head = document.createElement("div");
  head.className = "rn-portada-pdf";
  head.innerHTML = "<p class='rn-titulo-pdf'></p><p class='rn-subtitulo-pdf'></p>";
  head.children[0].textContent = title;
  head.children[1].textContent = subtitle;
  nav.append(head);
  const h = document.createElement("h2");
  h.textContent = "Índice";
  nav.append(h);
  const list = document.createElement("ol");
  const missing = [];
  for (const part of parts) {
    const caption = document.createElement("li");
    caption.className = "rn-indice-parte";
    caption.textContent = part.caption;
    list.append(caption);
    for (const doc of part.docs) {
      const id = "document-" + doc;
      const mark = document.getElementById(id);
      const section = mark && mark.nextElementSibling;
      const heading = section && section.querySelector("h1, h2");
      if (!heading) { missing.push(doc); continue; }
      const copy = heading.cloneNode(true);
      copy.querySelectorAll(".headerlink").forEach((a) => a.remove());
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = "#" + id;
      link.dataset.doc = doc;
      const text = document.createElement("span");
      text.className = "rn-indice-titulo";
      text.textContent = copy.textContent.replace(/\\s+/g, " ").trim();
      const page = document.createElement("span");
      page.className = "rn-indice-pagina";
      link.append(text, page);
      item.append(link);
      list.append(item);
    }
  }
  nav.append(list);
  const style = document.createElement("style");
  style.textContent = `
    .rn-indice-pdf { break-after: page; }
    .rn-portada-pdf { margin: 25mm 0 12mm; }
    .rn-titulo-pdf { font-size: 26pt; font-weight: 700; margin: 0; }
    .rn-subtitulo-pdf { font-size: 14pt; margin: 0.3em 0 0; }
    .rn-indice-pdf ol { list-style: none; padding: 0; margin: 0; }
    .rn-indice-pdf li { margin: 0.15em 0; }
    .rn-indice-pdf li.rn-indice-parte { font-weight: 700; margin-top: 0.8em; }
    .rn-indice-pdf a { display: flex; gap: 0.4em; color: inherit; }
    .rn-indice-titulo { flex: 1; border-bottom: 1px dotted #999; }
    .rn-indice-pagina { width: 2.5em; text-align: right;
                        font-variant-numeric: tabular-nums; }`;
  document.head.append(style);
  const article = document.querySelector(".bd-article") || document.body;
  article.prepend(nav);
  return missing;
}"""

_SET_PAGES = """(pages) => {
  for (const link of document.querySelectorAll(".rn-indice-pdf a[data-doc]")) {
    link.querySelector(".rn-indice-pagina").textContent = pages[link.dataset.doc] || "";
  }
}"""

# Antes de imprimir: las imágenes diferidas se piden ya, y el evento «beforeprint»
# (el del navegador al imprimir) dibuja los widgets y reúne las soluciones.
_PREPARE = """() => {
  document.querySelectorAll("img[loading='lazy']").forEach((img) => {
    img.loading = "eager";
  });
  window.dispatchEvent(new Event("beforeprint"));
}"""

_READY = """() => {
  const boxes = [...document.querySelectorAll(".widget-subarea")];
  const views = document.querySelectorAll(
    "script[type='application/vnd.jupyter.widget-view+json']").length;
  const images = [...document.images].every((img) => img.complete);
  return images && boxes.length >= views
    && boxes.every((box) => box.querySelector(".rn-widget"));
}"""

_UNDRAWN = """() => [...document.querySelectorAll(".widget-subarea")]
  .filter((box) => !box.querySelector(".rn-widget"))
  .map((box) => box.dataset.rnWidget || "?")"""


def chapter_pages(pdf: bytes, docs: list[str]) -> dict[str, int]:
    """La página (desde 1) de cada documento, por los destinos con nombre del PDF."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    pages = {}
    for name, dest in reader.named_destinations.items():
        key = str(name).removeprefix("/")
        if key.startswith("document-"):
            pages[key.removeprefix("document-")] = reader.get_destination_page_number(
                dest) + 1
    return {doc: pages[doc] for doc in docs if doc in pages}


#: Impresiones como mucho hasta que el índice coincide con las páginas del PDF.
PRINT_ATTEMPTS = 6


def print_pdf(page) -> bytes:
    page.evaluate(_PREPARE)
    return page.pdf(
        format="A4", print_background=True, display_header_footer=True,
        header_template=HEADER, footer_template=FOOTER, margin=MARGIN,
        outline=True, tagged=True,
    )


def render_pdf() -> Path:
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from tests.helpers import launch_chromium

    parts = toc_parts()
    docs = [doc for part in parts for doc in part["docs"]]
    with serve(SINGLE) as url, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 1400})
            page.goto(url + single_page().name, wait_until="load", timeout=120_000)
            missing = page.evaluate(_INSERT_TOC, [TITLE, SUBTITLE, parts])
            if missing:
                raise SystemExit(f"Sin título en la página única: {missing}")
            page.evaluate(_PREPARE)
            try:
                page.wait_for_function(_READY, timeout=120_000)
            except Exception:
                raise SystemExit(
                    f"Widgets sin dibujar antes de imprimir: {page.evaluate(_UNDRAWN)}"
                ) from None
            page.evaluate("document.fonts.ready.then(() => true)")
            # El índice lleva la página de cada capítulo, y solo vale un PDF cuyos
            # capítulos empiezan donde dice su propio índice. Se imprime con los
            # números de la impresión anterior hasta que coinciden. Hace falta más de
            # una vuelta: dos impresiones seguidas del mismo DOM, con los mismos
            # números, no siempre paginan igual en Chromium (un corte de página antes
            # de un título cambia de página por una diferencia de alto de menos de un
            # píxel), así que «imprimir dos veces y comparar» fallaba a veces.
            pages = {doc: "000" for doc in docs}
            for _ in range(PRINT_ATTEMPTS):
                page.evaluate(_SET_PAGES, pages)
                pdf = print_pdf(page)
                found = chapter_pages(pdf, docs)
                absent = [doc for doc in docs if doc not in found]
                if absent:
                    raise SystemExit(f"El PDF no tiene destino para: {absent}")
                if {doc: str(n) for doc, n in found.items()} == pages:
                    break
                pages = {doc: str(n) for doc, n in found.items()}
            else:
                raise SystemExit(
                    f"El índice no coincide con las páginas tras {PRINT_ATTEMPTS} "
                    f"impresiones: {pages} → {found}"
                )
        finally:
            browser.close()
    PDF.write_bytes(pdf)
    return PDF


def main(argv: list[str]) -> int:
    if set(argv) - {"--sin-sphinx"}:
        print(__doc__)
        return 2
    if "--sin-sphinx" not in argv:
        build_single_page()
    path = render_pdf()
    size = path.stat().st_size
    print(f"PDF del curso: {path.relative_to(ROOT)} ({size // 1000} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
