"""El curso entero en un PDF: ``make pdf`` → ``_build/pdf/residual-y-layernorm.pdf``.

Sphinx escribe el libro en una sola página (``singlehtml``, ``tools/pdf_sphinx.py``) y
el Chromium de las pruebas la imprime con la hoja del sitio (``impresion.css`` y
``impresion.js``; el número al pie, de su ``@page``). Chromium pone los marcadores,
pero no la página de cada capítulo en el índice (no tiene ``target-counter()``): se
imprime con las de la impresión anterior, leídas de los destinos del PDF, hasta que
coinciden. Después, con pypdf (``finished``), dos arreglos a lo que escribe Chromium:
sin la hora de la impresión (dos construcciones dan el mismo archivo) y con el texto
de cada título en su marcador (Chromium pega las líneas de un título partido sin su
espacio, «cadapieza», y repite el de un título que pasó a la página siguiente).
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))  # pdf_sphinx, también desde las pruebas
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
# Los nombres de las partes del índice no son títulos (role="heading" de Sphinx): si
# no, cada uno era un marcador suelto, sin capítulos dentro, a la página 1.
PREPARE = """() => {
  document.querySelectorAll("img").forEach((img) => { img.loading = "eager"; });
  document.querySelectorAll(".rn-indice-pdf [role=heading]").forEach((caption) => {
    caption.removeAttribute("role");
    caption.removeAttribute("aria-level");
  });
  window.dispatchEvent(new Event("beforeprint"));
}"""

# Los títulos que se imprimen, en orden, con su texto tal como se lee en la hoja: uno
# por marcador de Chromium.
HEADINGS = """() => [...document.querySelectorAll("h1,h2,h3,h4,h5,h6,[role=heading]")]
  .filter((heading) => heading.getClientRects().length)
  .map((heading) => heading.innerText.replace(/\\s+/g, " ").trim())"""

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


def _outline_items(outlines) -> list:
    """Los marcadores de un árbol de PDF, en el orden del documento (cada uno antes que
    los suyos)."""
    items, node = [], outlines.get("/First")
    while node is not None:
        node = node.get_object()
        items.append(node)
        items += _outline_items(node)
        node = node.get("/Next")
    return items


def _stable_ids(root) -> None:
    """Los identificadores de la estructura del PDF (los de las celdas de cabecera de
    cada tabla, a los que remiten sus celdas), por su orden y no por el número de nodo
    del DOM con que Chromium los escribe («node00000925»): ese número depende de
    cuántos nodos creó antes la página, y no es el mismo en dos impresiones. Ni pypdf
    ni Chromium tienen una opción para esto."""
    from pypdf.generic import ArrayObject, NameObject, TextStringObject

    tree = root.get("/IDTree")
    if tree is None:
        return
    nodes, stack = [], [tree.get_object()]
    while stack:  # el árbol de nombres: sus hojas llevan /Names [id, elemento, …]
        node = stack.pop()
        nodes.append(node)
        stack += [kid.get_object() for kid in node.get("/Kids", [])]
    leaves = [node for node in nodes if "/Names" in node]
    old = sorted(str(name) for leaf in leaves for name in leaf["/Names"][::2])
    new = {name: TextStringObject(f"id{i:06d}") for i, name in enumerate(old)}
    tables = {}
    for leaf in leaves:  # el orden se mantiene: el árbol sigue ordenado
        names = leaf["/Names"]
        for i in range(0, len(names), 2):
            names[i] = new[str(names[i])]
            element = names[i + 1].get_object()
            element[NameObject("/ID")] = names[i]
            while element.get("/S") != "/Table" and "/P" in element:
                element = element["/P"].get_object()
            tables[id(element)] = element
    elements = list(tables.values())
    while elements:  # las remisiones de sus celdas (/Headers), dentro de cada tabla
        element = elements.pop()
        kids = element.get("/K", [])
        kids = kids if isinstance(kids, list) else [kids]
        elements += [kid.get_object() for kid in kids
                     if hasattr(kid.get_object(), "get")
                     and kid.get_object().get("/Type", "/StructElem") == "/StructElem"]
        attributes = element.get("/A", [])
        for attr in attributes if isinstance(attributes, list) else [attributes]:
            attr = attr.get_object()
            if "/Headers" in attr:
                attr[NameObject("/Headers")] = ArrayObject(
                    new[str(h)] for h in attr["/Headers"])
    for node in nodes:  # el primer y el último nombre de cada nodo, con los nuevos
        if "/Limits" in node:
            node[NameObject("/Limits")] = ArrayObject(
                new[str(name)] for name in node["/Limits"])


def finished(pdf: bytes, headings: list[str] | None = None) -> bytes:
    """El mismo PDF (pypdf lo copia entero: marcadores, destinos, estructura) sin
    fecha de creación ni de modificación y, si se dan ``headings`` (los títulos de la
    página, en orden), con cada marcador titulado con el texto de su título."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject, TextStringObject

    reader = PdfReader(io.BytesIO(pdf))
    writer = PdfWriter(clone_from=reader)
    writer.metadata = {k: v for k, v in (reader.metadata or {}).items()
                       if k not in DATES}
    structure = writer.root_object.get("/StructTreeRoot")
    if structure is not None:
        _stable_ids(structure.get_object())
    if headings is not None:
        outlines = writer.root_object.get("/Outlines")
        items = _outline_items(outlines.get_object()) if outlines else []
        if len(items) != len(headings):
            raise SystemExit(f"{len(items)} marcadores para {len(headings)} títulos")
        for item, heading in zip(items, headings):
            # Chromium pega las líneas sin su espacio, pero no pierde palabras.
            printed = re.sub(r"\s+", "", str(item["/Title"]))
            if not all(word in printed for word in heading.split()):
                raise SystemExit(f"El marcador «{item['/Title']}» no es «{heading}»")
            item[NameObject("/Title")] = TextStringObject(heading)
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
    page.emulate_media(media="print")  # los títulos, como en la hoja
    headings = page.evaluate(HEADINGS)
    # Con las páginas de la vuelta anterior (en la primera, las del último PDF) hasta
    # que coinciden: dos impresiones del mismo DOM no siempre paginan igual (un corte
    # antes de un título cambia de página por menos de un píxel).
    pages = chapter_pages(PDF.read_bytes()) if PDF.is_file() else {}
    for _ in range(6):
        page.evaluate(SET_PAGES, pages)
        pdf = page.pdf(format="A4", print_background=True, outline=True, tagged=True)
        if (found := chapter_pages(pdf)) == pages:
            return finished(pdf, headings)
        pages = found
    raise SystemExit(f"Tras 6 impresiones, el índice aún cambia: {pages}")


def print_book(browser=None) -> bytes:
    """El PDF de la página única ya construida (``build_single_page``), con el
    Chromium de las pruebas (``browser``, si ya hay uno abierto)."""
    from pdf_sphinx import ROOT_DOC

    from bench.server import serve

    if browser is None:
        from playwright.sync_api import sync_playwright

        from tests.helpers import launch_chromium

        with sync_playwright() as playwright:
            return print_book(launch_chromium(playwright))
    with serve(SINGLE) as url:
        page = browser.new_page(viewport={"width": 1000, "height": 1400})
        try:
            page.goto(f"{url}/{Path(ROOT_DOC).name}.html", timeout=120_000)
            return render_pdf(page)
        finally:
            page.close()


def main() -> None:
    from pdf_sphinx import ROOT_DOC

    build_single_page(ROOT_DOC)
    PDF.write_bytes(print_book())
    print(f"PDF del curso: {PDF.relative_to(ROOT)} ({PDF.stat().st_size // 1000} KB)")


if __name__ == "__main__":
    main()
