"""Las fórmulas se dibujan al construir (KaTeX) y llegan completas y accesibles.

Cada fórmula del libro (los nodos ``math`` y ``math_block`` de los doctrees que dejó
la construcción) tiene que aparecer, con el mismo TeX, en el MathML que KaTeX escribe
junto al HTML (``<annotation encoding="application/x-tex">``); ninguna con error de
KaTeX, ningún ``\\(`` ni ``$$`` crudo en la página y ningún JavaScript de
matemáticas.
"""

from __future__ import annotations

import pickle
import re
from collections import Counter

import pytest

from tests.helpers import BUILD_HTML, ROOT, built_soup

pytestmark = [pytest.mark.build]

DOCTREES = ROOT / "_build" / ".doctrees"
KATEX_DIR = BUILD_HTML / "_static" / "vendor" / "katex"
RAW_DELIMITERS = ("\\(", "\\)", "\\[", "\\]", "$$", "\\begin{")


def _norm(tex: str) -> str:
    return " ".join(tex.split())


def _doctree_formulas() -> dict[str, Counter]:
    """TeX de cada fórmula, por página (``docname``), según los doctrees."""
    from docutils import nodes

    pages: dict[str, Counter] = {}
    for path in sorted(DOCTREES.rglob("*.doctree")):
        docname = path.relative_to(DOCTREES).with_suffix("").as_posix()
        if not (BUILD_HTML / f"{docname}.html").exists():
            continue
        doctree = pickle.loads(path.read_bytes())
        found = doctree.findall(
            lambda n: isinstance(n, (nodes.math, nodes.math_block)))
        pages[docname] = Counter(_norm(n.astext()) for n in found)
    return pages


def _page(docname: str):
    """La página construida (compartida: solo para leerla)."""
    return built_soup(f"{docname}.html")


def _rendered(soup) -> Counter:
    return Counter(
        _norm(a.get_text())
        for a in soup.select('.katex annotation[encoding="application/x-tex"]'))


@pytest.fixture(scope="module")
def formulas(built_site) -> dict[str, Counter]:
    if not DOCTREES.exists():
        pytest.fail(f"Faltan los doctrees en {DOCTREES}: ejecuta «make book».")
    pages = _doctree_formulas()
    assert sum(map(len, pages.values())) > 50, "el libro debería tener fórmulas"
    return pages


def test_every_formula_of_the_book_is_rendered_with_its_tex(formulas):
    missing, extra = {}, {}
    for docname, expected in formulas.items():
        got = _rendered(_page(docname))
        if expected - got:
            missing[docname] = sorted(expected - got)[:5]
        if got - expected:
            extra[docname] = sorted(got - expected)[:5]
    assert not missing, f"fórmulas sin dibujar (o con otro TeX): {missing}"
    assert not extra, f"fórmulas dibujadas que no están en la fuente: {extra}"


def test_no_katex_error_and_no_raw_tex_left(formulas):
    errors, raw = {}, {}
    for docname in formulas:
        soup = _page(docname)
        bad = [e.get("title", e.get_text()) for e in soup.select(".katex-error")]
        if bad:
            errors[docname] = bad[:3]
        main = soup.find("main") or soup
        # El texto de la página salvo el de código, scripts y fórmulas dibujadas.
        skip = {id(tag) for tag in
                main.select("pre, code, script, style, .katex, textarea")}
        text = "".join(s for s in main.strings
                       if not any(id(p) in skip for p in s.parents))
        left = [d for d in RAW_DELIMITERS if d in text]
        if left:
            raw[docname] = left
    assert not errors, f"errores de KaTeX: {errors}"
    assert not raw, f"TeX crudo en la página: {raw}"


def test_every_formula_carries_mathml_for_screen_readers(formulas):
    without = {}
    for docname, expected in formulas.items():
        if not expected:
            continue
        soup = _page(docname)
        n = sum(1 for k in soup.select(".katex")
                if k.select_one(".katex-mathml math semantics") is None)
        if n:
            without[docname] = n
    assert not without, f"fórmulas sin MathML: {without}"


SPLIT_ACCENTS = "\u02ca\u02cb\u02dc\u00a8\u02c6"  # ˊ ˋ ˜ ¨ ˆ: una tilde partida


def test_accented_words_in_formulas_stay_whole(formulas):
    """«\\mathrm{Atención}»: la «ó» llega entera a lo que se ve, se copia y se lee."""
    checked = 0
    for docname, texs in formulas.items():
        words = {w for tex in texs for w in re.findall(r"\w*[áéíóúñÁÉÍÓÚÑ]\w*", tex)}
        if not words:
            continue
        soup = _page(docname)
        visible = " ".join(k.get_text() for k in soup.select(".katex-html"))
        mathml = " ".join(m.get_text() for m in soup.select(
            ".katex-mathml semantics > :not(annotation)"))
        for word in words:
            assert word in visible.replace("\u200b", ""), f"{docname}: «{word}» partida"
            assert word in mathml.replace("\n", ""), f"{docname}: «{word}» en MathML"
        bad = [c for c in SPLIT_ACCENTS if c in visible]
        assert not bad, f"{docname}: tildes sueltas {bad}"
        checked += len(words)
    assert checked, "el libro tiene palabras con tilde en sus fórmulas (Atención)"


def test_no_math_javascript_and_katex_css_is_local(formulas):
    for docname, expected in formulas.items():
        soup = _page(docname)
        srcs = [s.get("src", "") for s in soup.find_all("script")]
        bodies = " ".join(s.get_text() for s in soup.find_all("script"))
        assert not any(re.search(r"mathjax|katex", s, re.I) for s in srcs), (
            f"{docname}: JavaScript de matemáticas: {srcs}")
        assert "MathJax" not in bodies, f"{docname}: configuración de MathJax"
        css = [link.get("href", "") for link in soup.find_all("link", rel="stylesheet")]
        katex_css = [h for h in css if "katex" in h.lower()]
        assert all("://" not in h for h in katex_css), f"{docname}: {katex_css}"
        if expected:
            assert any(h.split("?")[0].endswith("vendor/katex/katex.min.css")
                       for h in katex_css), f"{docname}: falta la hoja de KaTeX"
        else:
            assert not katex_css, f"{docname}: sin fórmulas, pero pide {katex_css}"


def test_pages_with_formulas_and_only_those_preload_katex_s_first_fonts(formulas):
    """Las dos fuentes de casi toda fórmula se piden desde <head>
    (book/_templates/layout.html): el texto no salta cuando llegan. Sin fórmulas, no."""
    first = ["KaTeX_Main-Regular.woff2", "KaTeX_Math-Italic.woff2"]
    assert any(formulas.values()) and not all(formulas.values())
    for docname, expected in formulas.items():
        links = _page(docname).head.select('link[rel="preload"][as="font"]')
        fonts = [link["href"].rsplit("/", 1)[-1] for link in links
                 if "/vendor/katex/fonts/" in link["href"]]
        assert fonts == (first if expected else []), (docname, fonts)


def test_katex_fonts_are_vendored_woff2_only(built_site):
    css = (KATEX_DIR / "katex.min.css").read_text(encoding="utf-8")
    urls = re.findall(r"url\(([^)]+)\)", css)
    assert urls, "la hoja de KaTeX no declara fuentes"
    assert all(u.endswith(".woff2") for u in urls), "solo WOFF2 (el resto no se usa)"
    missing = [u for u in urls if not (KATEX_DIR / u).exists()]
    assert not missing, f"fuentes sin copiar: {missing}"


def test_nothing_references_mathjax_any_more():
    """Ni la configuración ni el JavaScript del sitio usan MathJax."""
    config = [ROOT / "conf.py", ROOT / "Makefile", ROOT / "package.json"]
    hits = [p.name for p in config
            if "mathjax" in p.read_text(encoding="utf-8").lower()]
    code = re.compile(r"MathJax\s*[.\[(]|window\.MathJax|vendor/mathjax")
    hits += [p.name for p in sorted((ROOT / "_assets" / "js").glob("*.js"))
             if code.search(p.read_text(encoding="utf-8"))]
    assert not hits, f"aún usan MathJax: {hits}"


@pytest.fixture(scope="module")
def render_latex():
    """``render_latex`` de sphinxcontrib-katex con el KaTeX y los ajustes del libro."""
    from sphinxcontrib import katex

    if not (ROOT / "node_modules" / "katex").exists():
        pytest.skip("sin node_modules (make vendor)")
    _math_katex().configure_katex(katex)
    katex.KaTeXServer.katex_path = str(
        ROOT / "node_modules" / "katex" / "dist" / "katex.min.js")
    return katex.render_latex  # sphinxcontrib-katex para node al salir (atexit)


def test_dollarmath_amsmath_and_accents_render_with_the_books_katex(render_latex):
    """Lo que el libro puede escribir: ``aligned``, ``align``, ``\\text{…}`` y
    ``\\mathrm{…}`` con tildes, con el KaTeX de node_modules y las opciones de la
    construcción (``book/_ext/math_katex.py``)."""
    from bs4 import BeautifulSoup

    samples = [
        (r"\begin{aligned} \mu &= \frac{1}{d}\sum_{i=1}^{d} x_i \\"
         r" \text{posición} &= \mathrm{Atención}(x)\end{aligned}", True),
        (r"\begin{align} y &= \gamma \odot \hat{x} + \beta \end{align}", True),
        (r"\sigma = \sqrt{\text{variación} + \epsilon} \text{ (AÑO, pingüino)}", False),
    ]
    for tex, display in samples:
        html = render_latex(tex, {"displayMode": display})
        soup = BeautifulSoup(html, "html.parser")
        annotation = soup.select_one('annotation[encoding="application/x-tex"]')
        assert annotation is not None and annotation.get_text() == tex
        visible = soup.select_one(".katex-html").get_text()
        mathml = soup.select_one(".katex-mathml math semantics")
        mathml = "".join(m.get_text() for m in mathml.find_all(recursive=False)
                         if m.name != "annotation")
        assert not any(c in visible for c in SPLIT_ACCENTS), f"tilde partida: {tex}"
        for word in re.findall(r"\w*[áéíóúüñÁÉÍÓÚÜÑ]\w*", tex):
            assert word in visible, f"«{word}» no se ve entera"
            assert word in mathml, f"«{word}» no llega entera al MathML"


def test_a_formula_katex_cannot_read_stops_the_build(render_latex):
    from sphinxcontrib.katex import KaTeXError

    with pytest.raises(KaTeXError, match="frac"):
        render_latex(r"x = \frac{1}{")


def test_the_katex_server_is_reached_even_if_it_listens_late(tmp_path):
    """node crea el socket un instante antes de escuchar: la conexión se reintenta (y
    es de Unix: por TCP, cada fórmula esperaba ≈ 40 ms)."""
    import socket
    import sys

    from sphinxcontrib import katex

    late = (
        "import socket, sys, time\n"
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "s.bind(sys.argv[1]); time.sleep(0.5); s.listen(); time.sleep(30)\n"
    )

    class Server(katex.KaTeXServer):
        @classmethod
        def build_command(cls, socket=None, port=None):
            return [sys.executable, "-c", late, str(socket)]

    _math_katex().configure_katex(katex)
    process, sock = Server.start_server_process(tmp_path, timeout=30)
    try:
        assert sock.family == socket.AF_UNIX
        assert sock.getpeername() == str(tmp_path / "katex.sock")
    finally:
        sock.close()
        process.kill()
        process.wait()


@pytest.mark.browser
@pytest.mark.build
def test_formulas_are_visible_where_they_are_written(page_factory, site_url):
    # Una regla CSS de la época de MathJax («span.math sin mjx-container: oculto»)
    # llegó a esconder todas las fórmulas en línea: el texto estaba, la vista no.
    rec = page_factory()
    page = rec.goto(f"{site_url}/notebooks/04_layernorm.html")
    # Las pistas y soluciones plegadas esconden sus fórmulas hasta que se abren: se
    # abren todas antes de contar (que estén plegadas es lo que se quiere).
    toggles = page.evaluate(
        "() => { const b = document.querySelectorAll("
        "'.dropdown.admonition .toggle-button'); b.forEach(x => x.click());"
        " return b.length; }"
    )
    assert toggles > 0, "el capítulo 4 debería tener pistas plegadas"
    page.wait_for_timeout(500)
    counts = page.evaluate(
        "() => { const all = [...document.querySelectorAll('.katex')];"
        " return [all.length, all.filter("
        "e => getComputedStyle(e).visibility !== 'visible').length]; }"
    )
    assert counts[0] > 10 and counts[1] == 0, counts


# --- Las fuentes de KaTeX ------------------------------------------------------------


def _math_katex():
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import math_katex

    return math_katex


@pytest.mark.build
def test_built_fonts_are_katex_s_own_whole(built_site):
    """El sitio sirve las fuentes de KaTeX enteras (el navegador solo descarga las que
    usa cada página): todo carácter de una fórmula se dibuja con su fuente."""
    original = ROOT / "node_modules" / "katex" / "dist" / "fonts"
    fonts = sorted((KATEX_DIR / "fonts").glob("*.woff2"))
    assert fonts
    for font in fonts:
        assert font.read_bytes() == (original / font.name).read_bytes(), font.name
