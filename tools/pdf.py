"""El curso entero en un PDF: ``make pdf`` → ``_build/pdf/residual-y-layernorm.pdf``.

Sphinx escribe el libro en una sola página (``singlehtml``, ``tools/pdf_sphinx.py``) y
el Chromium de las pruebas la imprime con la hoja del sitio (``impresion.css`` y
``impresion.js``; el número al pie, de su ``@page``). Chromium pone los marcadores,
pero no la página de cada capítulo en el índice (no tiene ``target-counter()``): se
imprime con las de la impresión anterior, leídas de los destinos del PDF, hasta que
coinciden. Chromium escribe además la hora de la impresión: se quita con pypdf
(``without_dates``), para que dos construcciones den el mismo archivo.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "_build" / "pdf"
SINGLE = OUT / "singlehtml"
PDF = OUT / "residual-y-layernorm.pdf"

# El número de página de cada capítulo en el índice de la portada (layout.html).
SET_PAGES = """(pages) => document.querySelectorAll(".rn-indice-pdf a").forEach((a) => {
  a.dataset.pagina = pages[a.getAttribute("href").replace("#document-", "")] || "";
})"""

# Antes de imprimir: las imágenes diferidas se piden ya, y el evento del navegador al
# imprimir («beforeprint») dibuja los widgets y reúne las soluciones. Cada page.pdf lo
# lanza él mismo, y después «afterprint» (las soluciones vuelven a su sitio).
PREPARE = """() => {
  document.querySelectorAll("img").forEach((img) => { img.loading = "eager"; });
  window.dispatchEvent(new Event("beforeprint"));
}"""

PENDING = """() => Array.from(
  document.querySelectorAll(".widget-subarea:not(:has(.rn-widget))"),
  (box) => box.dataset.rnWidget,
).concat([...document.images].filter((img) => !img.complete).map((img) => img.src))"""


def build_single_page(root_doc: str) -> None:
    """La página única, con su propio entorno de Sphinx (no toca el del sitio)."""
    # -E: el entorno guardado, tras volver a ejecutar los notebooks, perdió una vez
    # el destino de book/referencias. La carpeta, vacía: Sphinx no pisa archivos de otra
    # versión de la capa del sitio.
    shutil.rmtree(SINGLE, ignore_errors=True)
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
    return {name[len("/document-"):]: reader.get_destination_page_number(dest) + 1
            for name, dest in reader.named_destinations.items()
            if name.startswith("/document-")}


#: Lo que Chromium escribe con la hora de la impresión: sin ello, dos construcciones
#: del mismo libro dan el mismo PDF.
DATES = ("/CreationDate", "/ModDate")


def without_dates(pdf: bytes) -> bytes:
    """El mismo PDF (pypdf lo copia entero: marcadores, destinos, estructura) sin
    fecha de creación ni de modificación en su diccionario de información."""
    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(io.BytesIO(pdf))
    writer = PdfWriter(clone_from=reader)
    writer.metadata = {k: v for k, v in (reader.metadata or {}).items()
                       if k not in DATES}
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def render_pdf(page) -> bytes:
    """Imprime hasta que el índice da la página en la que empieza cada capítulo."""
    page.evaluate(PREPARE)
    try:
        page.wait_for_function(f"() => ({PENDING})().length === 0", timeout=120_000)
    except Exception:
        raise SystemExit(f"Sin dibujar al imprimir: {page.evaluate(PENDING)}") from None
    page.evaluate("document.fonts.ready.then(() => true)")
    # Con las páginas de la vuelta anterior (en la primera, las del último PDF) hasta
    # que coinciden: dos impresiones del mismo DOM no siempre paginan igual (un corte
    # antes de un título cambia de página por menos de un píxel).
    pages = chapter_pages(PDF.read_bytes()) if PDF.is_file() else {}
    for _ in range(6):
        page.evaluate(SET_PAGES, pages)
        pdf = page.pdf(format="A4", print_background=True, outline=True, tagged=True)
        if (found := chapter_pages(pdf)) == pages:
            return pdf
        pages = found
    raise SystemExit(f"Tras 6 impresiones, el índice aún cambia: {pages}")


def main() -> None:
    from pdf_sphinx import ROOT_DOC
    from playwright.sync_api import sync_playwright

    from bench.server import serve
    from tests.helpers import launch_chromium

    build_single_page(ROOT_DOC)
    with serve(SINGLE) as url, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1000, "height": 1400})
        page.goto(f"{url}/{Path(ROOT_DOC).name}.html", timeout=120_000)
        PDF.write_bytes(without_dates(render_pdf(page)))
    print(f"PDF del curso: {PDF.relative_to(ROOT)} ({PDF.stat().st_size // 1000} KB)")


if __name__ == "__main__":
    main()
