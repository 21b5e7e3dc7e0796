"""El PDF del curso («make pdf», tools/pdf.py): cada capítulo, en el orden de
``_toc.yml``, con un índice que da la página de cada uno, el número en cada página,
referencias cruzadas que llevan a su página, ninguna página en blanco y ningún texto
fuera de la hoja. La portada del sitio lo enlaza (solo porque existe)."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import BUILD, BUILD_HTML, ROOT, toc_files

PDF = BUILD / "pdf" / "residual-y-layernorm.pdf"
MARGIN_PT = 15 / 25.4 * 72  # el margen izquierdo y derecho de la hoja (15 mm)
_WORD = re.compile(
    r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">'
    r"(.*?)</word>"
)
_PAGE = re.compile(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', re.S)
_TOC_LINE = re.compile(r"^(?P<title>\S.*?\S)\s{2,}(?P<page>\d+)$")


@pytest.fixture(scope="module")
def pdf(built_site) -> Path:
    if not PDF.exists():
        pytest.fail("No hay PDF del curso: ejecuta «make pdf».")
    if shutil.which("pdftotext") is None:
        pytest.fail("Falta pdftotext (poppler-utils): tests/install_system_deps.py.")
    return PDF


@pytest.fixture(scope="module")
def reader(pdf):
    from pypdf import PdfReader

    return PdfReader(str(pdf))


@pytest.fixture(scope="module")
def pages_text(pdf) -> list[str]:
    """El texto de cada página, con su disposición (pdftotext -layout)."""
    out = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                         capture_output=True, text=True).stdout
    return out.split("\f")[:-1]


@pytest.fixture(scope="module")
def words(pdf) -> list[tuple[float, float, list[tuple]]]:
    """(ancho, alto, palabras con su caja) de cada página (pdftotext -bbox)."""
    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], check=True,
                         capture_output=True, text=True).stdout
    return [
        (float(w), float(h), [(float(a), float(b), float(c), float(d), html.unescape(t))
                              for a, b, c, d, t in _WORD.findall(body)])
        for w, h, body in _PAGE.findall(out)
    ]


def _documents() -> list[str]:
    return toc_files()[1:]  # la portada abre el PDF, antes del índice


def _unnumbered(title: str) -> str:
    """El título sin su número de capítulo («4. LayerNorm» → «LayerNorm»)."""
    return re.sub(r"^[A-Z\d]+(\.\d+)*\.\s+", "", " ".join(title.split()))


def _site_title(doc: str) -> str:
    """El título de un capítulo en el sitio (su <h1>), sin número ni enlace «#»."""
    page = (BUILD_HTML / f"{doc}.html").read_text(encoding="utf-8")
    match = re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S)
    assert match, f"{doc}: sin <h1> en el sitio"
    text = re.sub(r'<a class="headerlink".*?</a>', "", match.group(1), flags=re.S)
    return _unnumbered(html.unescape(re.sub(r"<[^>]+>", "", text)))


def _chapter_pages(reader) -> dict[str, int]:
    pages = {}
    for name, dest in reader.named_destinations.items():
        key = str(name).removeprefix("/")
        if key.startswith("document-"):
            pages[key.removeprefix("document-")] = reader.get_destination_page_number(
                dest) + 1
    return pages


def _toc(pages_text) -> list[tuple[str, int]]:
    """Las entradas del índice (primera página): (título, página)."""
    entries = []
    for line in pages_text[0].splitlines():
        match = _TOC_LINE.match(line.strip())
        if match:
            entries.append((_unnumbered(match["title"]), int(match["page"])))
    return entries


def test_every_chapter_is_in_the_pdf_in_toc_order(reader, pages_text):
    pages = _chapter_pages(reader)
    docs = _documents()
    missing = [doc for doc in docs if doc not in pages]
    assert not missing, f"capítulos sin destino en el PDF: {missing}"
    order = [pages[doc] for doc in docs]
    assert order == sorted(order) and len(set(order)) == len(order), dict(
        zip(docs, order))
    for doc in docs:
        title = _site_title(doc)
        page = " ".join(pages_text[pages[doc] - 1].split())
        assert title in page, f"{doc}: «{title}» no está en su página {pages[doc]}"


def test_the_table_of_contents_gives_each_chapter_its_page(reader, pages_text):
    pages = _chapter_pages(reader)
    docs = _documents()
    toc = _toc(pages_text)
    assert [title for title, _ in toc] == [_site_title(doc) for doc in docs]
    assert [page for _, page in toc] == [pages[doc] for doc in docs]


def test_every_page_has_its_number_and_none_is_blank(pages_text, reader):
    blank, unnumbered = [], []
    for number, text in enumerate(pages_text, start=1):
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if not lines or lines[-1] != str(number):
            unnumbered.append(number)
        # Con algo más que su número: texto o una imagen.
        if len(lines) < 2 and not reader.pages[number - 1].images:
            blank.append(number)
    assert len(pages_text) > 100
    assert not blank, f"páginas en blanco: {blank}"
    assert not unnumbered, f"páginas sin su número al pie: {unnumbered[:20]}"


def test_no_text_is_cut_at_the_margins(words):
    outside = []
    for number, (width, height, page_words) in enumerate(words, start=1):
        for x_min, y_min, x_max, y_max, text in page_words:
            if x_min < MARGIN_PT - 1 or x_max > width - MARGIN_PT + 1 or y_max > height:
                outside.append((number, text, round(x_min), round(x_max)))
    assert words and not outside, f"texto fuera de la hoja: {outside[:20]}"


def test_cross_references_are_links_to_pages_of_the_pdf(reader):
    names = {str(n).removeprefix("/") for n in reader.named_destinations}
    internal, broken, local_urls = 0, [], []
    for number, page in enumerate(reader.pages, start=1):
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            if annot.get("/Subtype") != "/Link":
                continue
            action = annot.get("/A")
            dest = annot.get("/Dest")
            if action is not None and action.get("/S") == "/URI":
                uri = str(action.get("/URI"))
                if "127.0.0.1" in uri or "localhost" in uri or uri.startswith("file:"):
                    local_urls.append((number, uri))
                continue
            if action is not None and action.get("/S") == "/GoTo":
                dest = action.get("/D")
            if dest is None:
                continue
            internal += 1
            if isinstance(dest, str) or hasattr(dest, "startswith"):
                if str(dest).removeprefix("/") not in names:
                    broken.append((number, str(dest)))
    assert internal > 200, f"solo {internal} enlaces internos"
    # Chromium no escribe el enlace de un href con dos anclas (sphinx-doc/sphinx#14221).
    single = (BUILD / "pdf" / "singlehtml" / "intro.html").read_text(encoding="utf-8")
    double = re.findall(r'href="(#[^"#]*#[^"]*)"', single)
    assert not double, f"referencias con dos anclas, sin enlace en el PDF: {double[:5]}"
    assert not broken, f"enlaces internos sin destino: {broken[:10]}"
    assert not local_urls, f"referencias que salen del PDF: {local_urls[:10]}"


def test_the_pdf_has_bookmarks_for_its_chapters(reader):
    titles = []

    def walk(items):
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                titles.append(_unnumbered(str(item.title)))

    walk(reader.outline)
    # Chromium escribe el marcador de un título partido en dos líneas sin el espacio
    # del corte («cadapieza»): se comparan sin espacios.
    compact = {re.sub(r"\s+", "", title) for title in titles}
    for doc in _documents():
        title = _site_title(doc)
        assert re.sub(r"\s+", "", title) in compact, f"sin marcador: {title}"


def test_the_landing_page_links_the_pdf(pdf):
    landing = (BUILD_HTML / "book" / "intro.html").read_text(encoding="utf-8")
    assert 'href="../residual-y-layernorm.pdf"' in landing
    copy = BUILD_HTML / "residual-y-layernorm.pdf"
    assert copy.read_bytes() == pdf.read_bytes(), "el sitio sirve otro PDF"


def test_each_chapter_with_exercises_or_questions_ends_with_its_solutions(pages_text):
    """Como la hoja impresa (_assets/js/impresion.js): una «Soluciones» por capítulo
    con ejercicios o preguntas, y en ella las preguntas de práctica de ese capítulo."""
    chapters = [
        doc for doc in _documents()
        if re.search(r'class="solution |resnorm\.quiz\.Quiz',
                     (BUILD_HTML / f"{doc}.html").read_text(encoding="utf-8"))
    ]
    headings = [i for i, text in enumerate(pages_text)
                if any(line.strip() == "Soluciones" for line in text.splitlines())]
    assert len(chapters) >= 10
    assert len(headings) == len(chapters), (chapters, headings)
    practice = sum(text.count("Preguntas de práctica") for text in pages_text)
    assert practice >= len(chapters) - 1


# --- Las piezas de Sphinx (tools/pdf_sphinx.py), sin construir nada -----------------


def _pdf_sphinx():
    import importlib
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        return importlib.import_module("pdf_sphinx")
    finally:
        sys.path.remove(str(ROOT / "tools"))


def test_the_one_page_carries_the_widget_models_of_every_chapter():
    merged = _pdf_sphinx().merged_widget_state([
        {"version_major": 2, "version_minor": 0, "state": {"a": {"x": 1}}},
        {"version_major": 2, "version_minor": 0, "state": {"b": {"y": 2}}},
    ])
    assert merged == {"version_major": 2, "version_minor": 0,
                      "state": {"a": {"x": 1}, "b": {"y": 2}}}


def test_in_the_one_page_a_cross_reference_is_just_its_anchor():
    from types import SimpleNamespace

    from docutils import nodes

    app = SimpleNamespace(builder=SimpleNamespace(name="singlehtml"))
    tree = nodes.paragraph()
    refs = [nodes.reference(refuri=uri) for uri in (
        "#document-notebooks/04_layernorm#ej-04-1",  # otro capítulo: su ancla
        "#document-book/glosario",                  # un capítulo entero: igual
        "https://pytorch.org/docs#LayerNorm",       # fuera del curso: igual
    )]
    for ref in refs:
        tree += ref
    _pdf_sphinx().anchor_only(app, tree, "book/intro")
    assert [ref["refuri"] for ref in refs] == [
        "#ej-04-1", "#document-book/glosario", "https://pytorch.org/docs#LayerNorm"]


# --- Reproducible: sin la hora de la impresión (issue 50) ---------------------------


def _tools_pdf():
    import importlib.util

    spec = importlib.util.spec_from_file_location("pdf_", ROOT / "tools" / "pdf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_without_dates_keeps_the_pdf_and_drops_only_the_print_time(browser):
    """Dos impresiones de la misma página, en segundos distintos, dan el mismo PDF
    sin sus fechas; el título y los marcadores se quedan."""
    import io
    import time

    from pypdf import PdfReader

    tools = _tools_pdf()
    page = browser.new_page()
    try:
        page.set_content("<title>Curso</title><h1 id='a'>Uno</h1><a href='#a'>ir</a>")
        first = page.pdf(format="A4", outline=True, tagged=True)
        time.sleep(1.1)
        second = page.pdf(format="A4", outline=True, tagged=True)
    finally:
        page.close()
    assert first != second, "Chromium ya no escribe la hora: sobra without_dates"
    clean = tools.without_dates(first)
    assert clean == tools.without_dates(second)
    meta = PdfReader(io.BytesIO(clean)).metadata
    assert meta["/Title"] == "Curso" and not set(tools.DATES) & set(meta)
    assert len(PdfReader(io.BytesIO(clean)).outline) == 1


def test_the_course_pdf_records_no_print_time(reader):
    assert not set(_tools_pdf().DATES) & set(reader.metadata or {}), reader.metadata
