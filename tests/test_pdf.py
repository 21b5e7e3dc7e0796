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
    # Tal cual, con sus espacios: Chromium escribía «cadapieza» (tools/pdf.py).
    for doc in _documents():
        title = _site_title(doc)
        assert title in titles, f"sin marcador: {title}"


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
    assert first != second, "Chromium ya no escribe la hora: sobra quitarla"
    clean = tools.finished(first)
    assert clean == tools.finished(second)
    meta = PdfReader(io.BytesIO(clean)).metadata
    assert meta["/Title"] == "Curso" and not set(tools.DATES) & set(meta)
    assert len(PdfReader(io.BytesIO(clean)).outline) == 1


def test_the_course_pdf_records_no_print_time(reader):
    assert not set(_tools_pdf().DATES) & set(reader.metadata or {}), reader.metadata


def test_table_header_ids_do_not_depend_on_the_dom_node_count(browser):
    """Chromium nombra cada celda de cabecera de una tabla por su número de nodo del
    DOM: dos impresiones del mismo contenido, con nodos creados y quitados antes en
    una, dan PDF distintos; ``finished`` los numera por su orden."""
    tools = _tools_pdf()
    table = ("<table><tr><th>Paso</th><th>x</th></tr>"
             "<tr><td>1</td><td>2</td></tr></table>")
    page = browser.new_page()
    try:
        page.set_content(table)
        first = page.pdf(format="A4", tagged=True)
        page.evaluate("""() => { for (let i = 0; i < 50; i++)
          document.body.appendChild(document.createElement("div")).remove(); }""")
        page.set_content(table)
        second = page.pdf(format="A4", tagged=True)
    finally:
        page.close()
    raw = [re.findall(rb"/ID \((\w+)\)", pdf) for pdf in (first, second)]
    assert raw[0] and raw[0] != raw[1], raw
    assert tools.finished(first) == tools.finished(second)


def test_printing_the_same_book_again_gives_the_same_bytes(pdf, browser):
    """La impresión de «make pdf» otra vez, sobre la misma página única: el mismo
    archivo, byte a byte (ni hora, ni identificadores, ni orden distinto)."""
    again = _tools_pdf().print_book(browser)
    size = pdf.stat().st_size
    assert again == pdf.read_bytes(), f"dos PDF distintos: {len(again)} y {size} bytes"


# --- Los marcadores: el texto de cada título, cada uno a su sitio (issue 50) ---------


def test_finished_titles_each_bookmark_with_its_heading(browser):
    """Un título partido en dos líneas y otro que empieza página: Chromium escribe el
    primero sin el espacio del corte; ``finished`` les pone el texto de la página, y
    se niega si los marcadores no son esos títulos."""
    import io

    from pypdf import PdfReader

    tools = _tools_pdf()
    page = browser.new_page()
    try:
        page.set_content(
            "<h1 style='width:9em'>Un GPT diminuto: con y sin cada pieza</h1>"
            "<h2 style='break-before:page'>Qué prueba esto</h2>")
        printed = page.pdf(format="A4", outline=True, tagged=True)
    finally:
        page.close()
    headings = ["Un GPT diminuto: con y sin cada pieza", "Qué prueba esto"]

    def titles(pdf):
        found = []
        for item in PdfReader(io.BytesIO(pdf)).outline:
            items = item if isinstance(item, list) else [item]
            found += [str(i.title) for i in items]
        return found

    assert titles(tools.finished(printed, headings)) == headings
    with pytest.raises(SystemExit):
        tools.finished(printed, ["Otro título", "Qué prueba esto"])
    with pytest.raises(SystemExit):
        tools.finished(printed, headings[:1])


def _bookmarks(reader) -> list[tuple[str, int, float]]:
    """(título, página desde 1, altura en la página) de cada marcador, en orden."""
    found = []

    def walk(items):
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                page = reader.get_destination_page_number(item) + 1
                found.append((str(item.title), page, float(item.get("/Top") or 0)))

    walk(reader.outline)
    return found


def test_every_bookmark_has_its_text_and_its_own_place(reader):
    bookmarks = _bookmarks(reader)
    assert len(bookmarks) > 100
    empty = [b for b in bookmarks if not b[0].strip()]
    # «6.2. 6.2. RMSNorm…RMSNorm…»: el título de un marcador, repetido.
    doubled = [t for t, _, _ in bookmarks
               if re.match(r"^(\d+(\.\d+)*\.) \1", t)
               or (len(t) % 2 == 0 and t[:len(t) // 2] == t[len(t) // 2:])]
    places = [(page, round(top)) for _, page, top in bookmarks]
    shared = sorted({p for p in places if places.count(p) > 1})
    # En la página 1 solo el índice: los nombres de las partes no son marcadores.
    first_page = [t for t, page, _ in bookmarks if page == 1]
    assert not empty, f"marcadores sin texto: {empty}"
    assert not doubled, f"marcadores con el título repetido: {doubled}"
    assert not shared, f"marcadores que llevan al mismo sitio: {shared}"
    assert first_page == ["Índice"], first_page


# --- La página impresa: sin hojas casi vacías ni títulos sueltos (issue 50) ---------


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def test_no_page_holds_just_a_few_lines(pages_text, reader):
    """Cada página lleva al menos cuatro líneas (además de su número) o una figura: el
    final de un capítulo o de sus «Soluciones» no deja una hoja con una o dos líneas."""
    few = [(number, _lines(text)[:-1]) for number, text in enumerate(pages_text, 1)
           if len(_lines(text)) - 1 < 4 and not reader.pages[number - 1].images]
    assert not few, f"páginas con menos de cuatro líneas: {few}"


def test_no_heading_is_the_last_thing_on_its_page(reader, words):
    """Debajo de cada título, en su página, hay algo más que el propio título (y el
    número al pie): si no, el título se queda solo al pie y su texto en la siguiente."""
    alone = []
    for title, page, top in _bookmarks(reader):
        height, page_words = words[page - 1][1], words[page - 1][2]
        foot = height - 18 / 25.4 * 72  # el margen inferior de @page
        below = "".join(t for x0, y0, x1, y1, t in page_words
                        if y0 >= height - top - 1 and y1 <= foot)
        if len(below) <= len(re.sub(r"\s+", "", title)) + 1:
            alone.append((page, title))
    assert not alone, f"títulos al pie de su página, sin nada debajo: {alone}"


#: La caja de texto de la hoja (@page de impresion.css): 16 mm arriba, 18 mm abajo.
PAGE_TOP_MM, PAGE_BOTTOM_MM, A4_MM = 16, 18, 297
#: Lo más vacía que puede quedar una página que no cierra su capítulo: más, y es el
#: hueco que deja una figura, un bloque o un widget que no cabía y saltó a la
#: siguiente (issue 50: había 19, con un 40–75 % de la hoja en blanco).
MAX_EMPTY = 0.40


@pytest.fixture(scope="module")
def filled(pdf, tmp_path_factory) -> list[float]:
    """Lo lleno de cada página: de arriba de su caja de texto a lo último impreso en
    ella (texto, imagen, fondo o raya; el número al pie queda en el margen), sobre el
    alto de la caja. De la página dibujada (pdftoppm, en grises a 30 ppp): cuenta
    también lo que no es texto."""
    import numpy as np
    from PIL import Image

    if shutil.which("pdftoppm") is None:
        pytest.fail("Falta pdftoppm (poppler-utils): tests/install_system_deps.py.")
    out = tmp_path_factory.mktemp("paginas")
    subprocess.run(["pdftoppm", "-r", "30", "-gray", str(pdf), str(out / "p")],
                   check=True)
    fractions = []
    for image in sorted(out.glob("p-*.pgm"), key=lambda f: int(f.stem.split("-")[1])):
        ink = np.asarray(Image.open(image)) < 235
        top = round(PAGE_TOP_MM / A4_MM * ink.shape[0])
        bottom = round((A4_MM - PAGE_BOTTOM_MM) / A4_MM * ink.shape[0])
        rows = np.flatnonzero(ink[top:bottom].any(axis=1))
        fractions.append((rows[-1] + 1) / (bottom - top) if rows.size else 0.0)
    return fractions


def test_no_page_inside_a_chapter_is_left_half_empty(filled, reader):
    """Una página que no es la última de su capítulo va llena al menos en un 60 %:
    una figura alta, un bloque o un widget que no caben en lo que queda de la página
    no dejan debajo de lo anterior medio folio en blanco."""
    starts = set(_chapter_pages(reader).values())
    assert len(filled) == len(reader.pages) and len(starts) >= 12
    inside = [n for n in range(min(starts), len(filled)) if n + 1 not in starts]
    empty = [(n, f"{1 - filled[n - 1]:.0%}") for n in inside
             if 1 - filled[n - 1] > MAX_EMPTY]
    assert len(inside) > 100
    assert not empty, f"páginas de en medio de un capítulo casi vacías: {empty}"


def test_your_progress_is_not_printed(pages_text):
    """«Tu progreso» (la tabla de la portada, de este navegador) no es del papel."""
    printed = [n for n, text in enumerate(pages_text, 1) if "Tu progreso" in text]
    assert not printed, f"«Tu progreso» en las páginas {printed}"


# --- Los widgets en papel: un primer fotograma o una línea, nunca un formulario ------

#: Etiquetas de los controles del GPT del capítulo 10 y del explorador de LayerNorm.
FORM_LABELS = ("Comienzo de la frase", "Cómo se elige cada carácter",
               "Caracteres nuevos", "Los cinco, uno al lado del otro",
               "Probar un caso", "Entrada x (un vector de 4 componentes)",
               "γ (escala, una por dimensión)")


def test_widgets_print_no_dead_form(pages_text, reader):
    text = " ".join(" ".join(page.split()) for page in pages_text)
    shown = [label for label in FORM_LABELS if label in text]
    assert not shown, f"controles impresos: {shown}"
    assert "/AcroForm" not in reader.trailer["/Root"], "el PDF lleva un formulario"
    widgets = [n for n, page in enumerate(reader.pages, 1)
               for ref in page.get("/Annots") or []
               if ref.get_object().get("/Subtype") == "/Widget"]
    assert not widgets, f"campos de formulario en las páginas {widgets}"


def test_each_widget_says_in_one_line_where_it_is_interactive(reader, pages_text):
    """Debajo de cada widget que no es una pregunta, una línea con el enlace a su
    capítulo en la web (la dirección publicada: <link rel="canonical">)."""
    import json

    single = (BUILD / "pdf" / "singlehtml" / "intro.html").read_text(encoding="utf-8")
    state = json.loads(re.search(
        r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>',
        single, re.S).group(1))["state"]
    views = [json.loads(body)["model_id"] for body in re.findall(
        r'<script type="application/vnd\.jupyter\.widget-view\+json">(.*?)</script>',
        single, re.S)]
    kinds = [state[view]["state"]["_anywidget_id"].rsplit(".", 1)[-1] for view in views]
    notes = sum(" ".join(page.split()).count("Interactivo: pruébalo en la web")
                for page in pages_text)
    assert "GPTPlayground" in kinds and notes == len(kinds) - kinds.count("Quiz"), (
        notes, kinds)
    site = re.search(r'<link rel="canonical" href="([^"#]*)', single).group(1)
    uris = {str(ref.get_object()["/A"].get("/URI")) for page in reader.pages
            for ref in page.get("/Annots") or []
            if ref.get_object().get("/A") is not None}
    assert f"{site}notebooks/10_gpt_diminuto.html" in uris, (
        "sin enlace al GPT del capítulo 10 en la web")


def test_figure_text_prints_at_8_pt_or_more(pdf):
    """El texto más pequeño de cada figura (``data-texto-min-pt``, dibujada a
    ``data-dpi``), a la escala con que se imprime: los píxeles por pulgada de su imagen
    en el PDF (pdfimages)."""
    import base64
    import struct

    single = (BUILD / "pdf" / "singlehtml" / "intro.html").read_text(encoding="utf-8")
    figures, count = {}, 0
    for img in re.findall(r"<img [^>]*class=\"curso-figura\"[^>]*>", single):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', img))
        src = attrs["src"]  # un archivo de _images/ o, si no, en la propia página
        png = (base64.b64decode(src.split(",", 1)[1]) if src.startswith("data:")
               else (BUILD / "pdf" / "singlehtml" / src).read_bytes())
        size = struct.unpack(">II", png[16:24])  # el ancho y el alto de IHDR
        # Dos figuras del mismo tamaño: la de texto más pequeño.
        figure = (float(attrs["data-texto-min-pt"]), int(attrs["data-dpi"]),
                  attrs["alt"][:50])
        figures[size] = min(figures.get(size, figure), figure)
        count += 1
    listed = subprocess.run(["pdfimages", "-list", str(pdf)], check=True,
                            capture_output=True, text=True).stdout.splitlines()[2:]
    printed, small = set(), []
    for row in listed:
        cols = row.split()
        page, size, ppi = int(cols[0]), (int(cols[3]), int(cols[4])), float(cols[12])
        if size in figures:
            min_pt, dpi, alt = figures[size]
            printed.add(size)
            if min_pt * dpi / ppi < 8:
                small.append((page, round(min_pt * dpi / ppi, 1), alt))
    assert count > 10 and printed == set(figures), set(figures) - printed
    assert not small, f"figuras con texto de menos de 8 pt en el papel: {small}"
