"""book/_ext/tema_ligero.py: las hojas de terceros que Sphinx copia en cada
construcción, recortadas en su sitio por PurgeCSS; las del curso, enteras."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.helpers import built_soup

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import figuras_telefono  # noqa: E402
import tema_ligero  # noqa: E402

# --- Las hojas de estilo: recortadas ------------------------------------------------

SHEETS = {
    tema_ligero.THEME_SHEET: ".bd-header{top:0}.sin-uso{color:red}"
                             "html[data-theme=dark] .bd-header{color:#fff}"
                             ":focus-visible{outline:solid}",
    "styles/sphinx-book-theme.css": ".bd-header{left:0}.sin-uso{color:blue}",
    "mystnb.1234.css": ".sin-uso{color:green}",
    "css/curso.css": ".curso{color:red}.sin-uso{display:none}",
}
PAGE = ('<html data-theme="light"><body><header class="bd-header curso">'
        '</header></body></html>')


def _site(tmp_path: Path) -> Path:
    static = tmp_path / "_static"
    for rel, css in SHEETS.items():
        (static / rel).parent.mkdir(parents=True, exist_ok=True)
        (static / rel).write_text(css, encoding="utf-8")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "04.html").write_text(PAGE, encoding="utf-8")
    return tmp_path


def _app(site: Path) -> SimpleNamespace:
    doctrees = site.parent / f"{site.name}-doctrees"
    doctrees.mkdir(exist_ok=True)
    return SimpleNamespace(outdir=site, doctreedir=doctrees,
                           builder=SimpleNamespace(format="html"))


def test_third_party_sheets_are_purged_in_place_and_the_course_s_kept_whole(tmp_path):
    site = _site(tmp_path)
    app = _app(site)
    tema_ligero._purge_styles(app, None)
    static = site / "_static"
    theme = (static / tema_ligero.THEME_SHEET).read_text(encoding="utf-8")
    assert ".bd-header{top:0}" in theme and ".sin-uso" not in theme
    assert ".sin-uso" not in (static / "styles/sphinx-book-theme.css").read_text()
    # La de myst-nb (Sphinx no la copia de nuevo: avisaría) y las del curso, enteras.
    for rel in ("mystnb.1234.css", "css/curso.css"):
        assert (static / rel).read_text(encoding="utf-8") == SHEETS[rel]
    tema_ligero._purge_styles(app, None)  # recortar lo ya recortado no quita más
    assert (static / tema_ligero.THEME_SHEET).read_text(encoding="utf-8") == theme
    # Un sitio sin ninguna de esas hojas (otro tema): nada que recortar, ningún error.
    empty = _app(tmp_path / "vacio")
    tema_ligero._purge_styles(empty, None)


def test_unchanged_inputs_reuse_the_purged_sheets_without_running_purgecss(
        tmp_path, monkeypatch):
    """Una construcción sin cambios (Sphinx vuelve a copiar las hojas enteras) escribe
    las hojas recortadas de la anterior, sin PurgeCSS; si cambia una página, sí."""
    site = _site(tmp_path)
    app = _app(site)
    tema_ligero._purge_styles(app, None)
    static = site / "_static"
    purged = (static / tema_ligero.THEME_SHEET).read_text(encoding="utf-8")
    calls = []
    real = tema_ligero.purgecss
    monkeypatch.setattr(tema_ligero, "purgecss",
                        lambda *args: calls.append(args) or real(*args))
    for rel, css in SHEETS.items():  # lo que copia Sphinx en cada construcción
        (static / rel).write_text(css, encoding="utf-8")
    tema_ligero._purge_styles(app, None)
    assert not calls
    assert (static / tema_ligero.THEME_SHEET).read_text(encoding="utf-8") == purged
    (site / "notebooks" / "04.html").write_text(PAGE.replace("curso", "otra"),
                                                encoding="utf-8")
    for rel, css in SHEETS.items():
        (static / rel).write_text(css, encoding="utf-8")
    tema_ligero._purge_styles(app, None)
    assert len(calls) == 1


def test_purgecss_keeps_the_rules_a_page_or_a_script_can_use(tmp_path):
    site = _site(tmp_path)
    (site / "_static" / "tema.js").write_text('el.classList.add("sin-uso")')
    theme = site / "_static" / tema_ligero.THEME_SHEET
    purged = tema_ligero.purgecss(site, [theme])[theme]
    assert ".bd-header{top:0}" in purged
    # El modo oscuro sigue aunque «dark» no esté escrito en ninguna parte.
    assert "html[data-theme=dark] .bd-header" in purged
    assert ":focus-visible{outline:solid}" in purged
    assert ".sin-uso" in purged  # la pone el JavaScript
    (site / "_static" / "tema.js").unlink()
    assert ".sin-uso" not in tema_ligero.purgecss(site, [theme])[theme]


def _stylesheet_requests(site: Path, page: Path) -> list[str]:
    """Las hojas que pide ``page`` antes del primer dibujo: sus <link> y los @import
    de las hojas del sitio que enlaza."""
    head = built_soup(page).head
    links = [link["href"].split("?")[0]
             for link in head.select('link[rel="stylesheet"]')]
    imports = [f"@import en {href}" for href in links
               for _ in range((page.parent / href).read_text("utf-8").count("@import"))]
    return links + imports


def test_a_chapter_asks_for_its_stylesheets_with_no_import_and_the_theme_s_once(
        built_site):
    """Ninguna hoja pide otra (``@import``: un viaje más antes del primer dibujo), y
    las dos del tema, que su plantilla enlazaba a mano, van una sola vez, tras
    basic.css."""
    chapters = sorted((built_site / "notebooks").glob("[0-9]*.html"))
    assert len(chapters) > 10
    for page in chapters:
        sheets = _stylesheet_requests(built_site, page)
        assert not [s for s in sheets if s.startswith("@import")], (page.name, sheets)
        names = [s.split("_static/")[-1] for s in sheets]
        assert names[:2] == ["basic.css", tema_ligero.THEME_SHEET], names
        assert len(names) == len(set(names)), (
            f"{page.name}: hojas repetidas {names}: si el tema ya no borra la primera "
            "entrada de su hoja, quita la suya de html_style en conf.py")


def test_the_built_theme_sheet_is_purged_but_keeps_what_a_page_uses(built_site):
    from html.parser import HTMLParser

    import pydata_sphinx_theme

    theme = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
    original = (theme / "static" / tema_ligero.THEME_SHEET).read_text("utf-8")
    purged = (built_site / "_static" / tema_ligero.THEME_SHEET).read_text("utf-8")
    assert len(purged) < 0.4 * len(original), (len(purged), len(original))

    class Classes(HTMLParser):
        names: set[str] = set()

        def handle_starttag(self, tag, attrs):
            self.names.update((dict(attrs).get("class") or "").split())

    parser = Classes()
    parser.feed((built_site / "notebooks" / "04_layernorm.html").read_text("utf-8"))
    # Las reglas de una sola clase del tema que la página usa siguen todas.
    single = set(re.findall(r"[{}]\.([A-Za-z][\w-]*)\{", original))
    used = single & parser.names
    assert len(used) > 20, used
    missing = sorted(n for n in used if not re.search(rf"[{{}}]\.{n}\{{", purged))
    assert not missing, missing
    assert "html[data-theme=dark]" in purged
    assert ":focus-visible{" in purged


# --- Las imágenes: fuera del HTML y pedidas al acercarse ----------------------------


# --- Los scripts, con «defer»; la cabecera, de book/_templates/layout.html ----------


def _script(name: str, **attributes):
    from sphinx.builders.html._assets import _JavaScript

    return _JavaScript(name, **attributes)


def test_scripts_of_the_theme_and_extensions_get_defer_in_the_same_order():
    scripts = [
        _script("_static/documentation_options.js", priority=200),
        _script("_static/copybutton.js", priority=500),
        _script("", body="let toggleHintShow = 'x';", priority=500),
        _script("_static/sphinx-thebe.js", priority=500, **{"async": "async"}),
        _script("_static/js/widgets-estaticos.js", priority=500),
        _script("", type="application/vnd.jupyter.widget-state+json", body="{}"),
        _script("_static/design-tabs.js", priority=500,
                **{"data-sd-tabs-storage-prefix": "sd-"}),
        _script("https://example.invalid/externo.js"),
    ]
    context = {"script_files": scripts}
    tema_ligero._scripts(None, "intro", "page.html", context, None)
    out = context["script_files"]
    assert [s.filename for s in out] == [s.filename for s in scripts]
    assert [s.priority for s in out] == [s.priority for s in scripts]
    deferred = [s.filename for s in out if s.attributes.get("defer") == "defer"]
    assert deferred == ["_static/copybutton.js", "_static/design-tabs.js"]
    # Los demás atributos siguen; lo que no se toca es el mismo objeto.
    assert out[6].attributes["data-sd-tabs-storage-prefix"] == "sd-"
    for i in (0, 2, 3, 4, 5, 7):
        assert out[i] is scripts[i], scripts[i]


def _pages(built_site: Path) -> dict[Path, str]:
    """Las páginas del tema (sin las que solo redirigen, como index.html)."""
    texts = {p: p.read_text(encoding="utf-8") for p in built_site.rglob("*.html")
             if "_static" not in p.relative_to(built_site).parts}
    return {p: t for p, t in texts.items() if 'rel="stylesheet"' in t}


def test_every_page_defers_its_scripts_but_those_inline_code_needs(built_site):
    """Cada ``<script src>`` de cada página lleva ``defer`` o ``async``, menos los
    de ``KEEP_SYNC``; y ninguna página pide scripts por adelantado (preload)."""
    pages = _pages(built_site)
    assert len(pages) > 10
    blocking = set()
    for page in pages:
        soup = built_soup(page)
        for script in soup.find_all("script", src=True):
            name = script["src"].split("?")[0].rsplit("/", 1)[-1]
            if not (script.has_attr("defer") or script.has_attr("async")
                    or name in tema_ligero.KEEP_SYNC):
                blocking.add((page.relative_to(built_site).as_posix(), name))
        preloads = soup.select('link[rel="preload"][as="script"]')
        assert not preloads, f"{page}: {preloads}"
    assert not blocking, sorted(blocking)


def test_every_page_resolves_its_theme_before_the_first_stylesheet(built_site):
    """data-theme sale de <head> ya claro u oscuro (el modo elegido o el del
    sistema), antes de la primera hoja de estilo (book/_templates/layout.html)."""
    for page, text in _pages(built_site).items():
        head = text[:text.index("</head>")]
        guess = head.find("window.matchMedia(\"(prefers-color-scheme: dark)\")")
        assert 0 <= guess < head.index('rel="stylesheet"'), page
        assert 'localStorage.getItem("theme")' not in head, page
        assert 'if (mode === "light" || mode === "dark") return mode;' in head, page


def test_every_preload_of_a_page_names_a_file_of_the_site(built_site):
    """Las fuentes que la cabecera pide por adelantado (iconos, KaTeX) existen: un
    nombre que cambia en curso_sitio.py no deja un preload roto."""
    icons = 0
    for page in _pages(built_site):
        head = built_soup(page).head
        for link in head.select('link[rel="preload"]'):
            target = (page.parent / link["href"].split("?")[0]).resolve()
            assert target.is_file(), f"{page}: {link}"
            icons += "/iconos/" in link["href"]
    assert icons >= 2 * 10


def test_the_theme_scripts_are_the_theme_s_own_files(built_site):
    """Ningún archivo del tema se parchea: los scripts que sirve el sitio son los
    del paquete instalado, byte a byte."""
    import pydata_sphinx_theme

    theme = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
    for rel in ("scripts/pydata-sphinx-theme.js", "scripts/bootstrap.js"):
        built = (built_site / "_static" / rel).read_bytes()
        assert built == (theme / "static" / rel).read_bytes(), rel



# --- El código de los widgets, fuera del estado de la página ------------------------


def test_widget_code_moves_to_one_file_per_class_and_the_state_names_it(tmp_path):
    esm = "export default { render() {} }; // </script> dentro del código"
    state = {"version_major": 2, "state": {
        m: {"model_name": "AnyModel", "state": {
            "_esm": esm, "_css": ".rn{color:red}", "questions": "[1, 2]",
            "texto": "</b> tal cual"}}
        for m in ("a", "b")
    }}
    page = tmp_path / "notebooks"
    page.mkdir()
    out = tema_ligero.externalize_widget_code(state, "notebooks/05", tmp_path)
    models = out["state"]
    for model in models.values():
        values = model["state"]
        assert values["_esm"].startswith("rn-archivo:../_static/widgets/")
        assert values["_esm"].endswith(".js") and values["_css"].endswith(".css")
        assert values["questions"] == "[1, 2]" and values["texto"] == "</b> tal cual"
        path = page / values["_esm"].removeprefix("rn-archivo:")
        assert path.read_text("utf-8") == esm
    assert models["a"]["state"] == models["b"]["state"]  # un archivo por clase
    assert len(list((tmp_path / "_static" / "widgets").iterdir())) == 2
    assert state["state"]["a"]["state"]["_esm"] == esm  # el original, sin tocar
    assert tema_ligero.externalize_widget_code(out, "notebooks/05", tmp_path) == out
    root = tema_ligero.externalize_widget_code(state, "index", tmp_path)
    assert root["state"]["a"]["state"]["_css"].startswith("rn-archivo:_static/")


def test_widget_binary_data_moves_to_a_bin_file_fetched_only_when_used(tmp_path):
    """Los pesos del GPT del capítulo 10 viajan como data: URL en un trait
    diccionario; en el sitio, cada uno pasa a _static/widgets/<huella>.bin."""
    import base64

    blobs = {"plain": bytes(range(256)) * 3, "pre_ln": b"\x00\x01pesos"}
    weights = {k: tema_ligero.BINARY_URL + base64.b64encode(v).decode()
               for k, v in blobs.items()}
    state = {"version_major": 2, "state": {"g": {"model_name": "AnyModel", "state": {
        "weights": weights, "texto": "data:text/plain;base64,aG9sYQ==",
        "lista": [tema_ligero.BINARY_URL]}}}}
    (tmp_path / "notebooks").mkdir()
    out = tema_ligero.externalize_widget_code(state, "notebooks/10", tmp_path)
    values = out["state"]["g"]["state"]
    for key, blob in blobs.items():
        ref = values["weights"][key]
        assert ref.startswith("rn-archivo:../_static/widgets/") and ref.endswith(".bin")
        path = tmp_path / "notebooks" / ref.removeprefix("rn-archivo:")
        assert path.read_bytes() == blob
    # Solo los data: URL binarios; el resto del estado, igual.
    assert values["texto"] == "data:text/plain;base64,aG9sYQ=="
    assert values["lista"] == [tema_ligero.BINARY_URL]


# --- Un sitio pequeño construido con Sphinx: figuras y widgets ----------------------

_WIDGET_CONF = """
import json
extensions = ["figuras_telefono", "tema_ligero"]
STATE = {"version_major": 2, "state": {"a": {"model_name": "AnyModel",
         "state": {"_esm": "export default {}; // </script>", "valor": 3}}}}

def _state(app, pagename, templatename, context, doctree):
    # Como myst-nb (nb_ipywidgets_js): el estado en un <script> de la página.
    if pagename == "capitulo/uno":
        body = json.dumps(STATE).replace("</", "<\\\\/")
        app.add_js_file(None, type="%s", body=body)

def setup(app):
    app.connect("html-page-context", _state, priority=500)
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> tuple[Path, str]:
    """Un libro con un diagrama (y su versión para teléfono), la portada, una figura
    de matplotlib en línea (como la pega myst-nb) y el estado de un widget."""
    import matplotlib

    tmp_path = tmp_path_factory.mktemp("sitio")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sphinx.application import Sphinx

    from resnorm.book import figure_html

    src = tmp_path / "src"
    (src / "capitulo").mkdir(parents=True)
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}"/>'
    for name, size in {"atajo.svg": (400, 300), "atajo-telefono.svg": (200, 500),
                       "portada.svg": (480, 228)}.items():
        (src / name).write_text(svg.format(*size), "utf-8")
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0], label="recta")
    figure = figure_html(fig, "Una recta que baja")
    raw = "\n".join("   " + line for line in figure.splitlines())
    (src / "conf.py").write_text(_WIDGET_CONF % tema_ligero.WIDGET_STATE, "utf-8")
    (src / "index.rst").write_text(
        "Portada\n=======\n\n.. figure:: portada.svg\n\n.. toctree::\n\n"
        "   capitulo/uno\n", "utf-8")
    (src / "capitulo" / "uno.rst").write_text(
        "Uno\n===\n\n.. figure:: ../atajo.svg\n\n   El atajo.\n\n"
        ".. figure:: ../portada.svg\n   :width: 50%\n\n"
        f".. raw:: html\n\n{raw}\n", "utf-8")
    out = tmp_path / "html"
    app = Sphinx(src, src, out, tmp_path / "doctrees", "html", status=None,
                 warningiserror=True)
    app.build()
    return out, figure


def _tag(html: str, needle: str) -> str:
    """La etiqueta de ``html`` que contiene ``needle``."""
    i = html.index(needle)
    return html[html.rindex("<", 0, i):html.index(">", i) + 1]


def _attr(tag: str, name: str) -> str:
    return tag.split(f' {name}="')[1].split('"')[0]


def test_site_figures_are_files_with_their_size_and_phone_version(site):
    import base64

    out, figure = site
    page = (out / "capitulo" / "uno.html").read_text("utf-8")
    assert "data:image" not in page
    # El diagrama: tamaño del archivo, perezoso, y la versión para teléfono.
    atajo = _tag(page, 'src="../_images/atajo.svg"')
    assert _attr(atajo, "width") == "400" and _attr(atajo, "height") == "300"
    assert _attr(atajo, "loading") == "lazy"
    phone = _tag(page, 'srcset="../_images/atajo-telefono.svg"')
    assert phone.startswith("<source") and 'media="screen and (max-width:' in phone
    assert _attr(phone, "width") == "200" and _attr(phone, "height") == "500"
    assert (out / "_images" / "atajo-telefono.svg").is_file()
    # La portada se ve al llegar: sin loading="lazy". Con :width: del autor, el suyo.
    cover = _tag((out / "index.html").read_text("utf-8"), 'src="_images/portada.svg"')
    assert "loading" not in cover and _attr(cover, "width") == "480"
    assert "width: 50%" in _tag(page, 'src="../_images/portada.svg"')
    # La figura de matplotlib: dos PNG en _images, con su huella en el nombre.
    tags = dict(figuras_telefono.read_picture(figure))
    img = _tag(page, 'alt="Una recta que baja"')
    source = _tag(page, 'data-dpi="200"')
    for tag, inline, key in ((img, tags["img"], "src"),
                             (source, tags["source"], "srcset")):
        href = _attr(tag, key)
        assert href.startswith("../_images/figura-") and href.endswith(".png"), href
        data = base64.b64decode(inline[key].removeprefix(figuras_telefono.PNG_URL))
        assert (out / "capitulo" / href).read_bytes() == data
        for name, value in inline.items():  # los demás atributos, los mismos
            if name not in (key, "class"):
                assert _attr(tag, name) == value, (name, tag)
    assert _attr(img, "class") == "curso-figura" and _attr(img, "loading") == "lazy"
    assert '<picture class="curso-figura-marco">' in page
    assert page.count("<picture") == page.count("</picture>") == 2


def test_site_widget_code_is_a_file_the_state_names(site):
    import json

    out, _ = site
    page = (out / "capitulo" / "uno.html").read_text("utf-8")
    start = page.index(f'<script type="{tema_ligero.WIDGET_STATE}">') + len(
        f'<script type="{tema_ligero.WIDGET_STATE}">')
    state = json.loads(page[start:page.index("</script>", start)])
    values = state["state"]["a"]["state"]
    assert values["valor"] == 3
    ref = values["_esm"].removeprefix(tema_ligero.WIDGET_FILE)
    assert ref != values["_esm"] and ref.startswith("../_static/widgets/")
    code = (out / "capitulo" / ref).read_text("utf-8")
    assert code == "export default {}; // </script>"
