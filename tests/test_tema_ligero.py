"""Las hojas de estilo agrupadas (book/_ext/tema_ligero.py) dicen lo mismo que las
sueltas: las mismas reglas en el mismo orden, con sus url() corregidas, y las hojas
que otras pruebas nombran (KaTeX, ejercicios) siguen aparte."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import figuras_telefono  # noqa: E402
import tema_ligero  # noqa: E402

_LINK = '<link rel="stylesheet" type="text/css" href="../_static/{}?v=1" />'
HEAD = "\n".join([
    "<head>",
    '  <link href="../_static/styles/theme.css?digest=1" rel="stylesheet" />',
    *(_LINK.format(rel) for rel in ("iconos/iconos.css", "vendor/katex/katex.min.css",
                                    "css/curso.css", "css/reserva.css")),
    "</head>",
])


def _site(tmp_path: Path) -> Path:
    static = tmp_path / "_static"
    for rel, css in {
        "styles/theme.css": "a{background:url(../file.png)}",
        "iconos/iconos.css": "@font-face{src:url(fa.woff)}",
        "vendor/katex/katex.min.css": ".katex{}",
        "css/curso.css": ".curso{color:red}",
        "css/reserva.css": ".rn-reserva{min-height:1px}",
    }.items():
        (static / rel).parent.mkdir(parents=True, exist_ok=True)
        (static / rel).write_text(css, encoding="utf-8")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "04.html").write_text(HEAD, encoding="utf-8")
    return tmp_path


def _sheets(page: Path) -> list[str]:
    return tema_ligero._STYLESHEET.findall(page.read_text(encoding="utf-8"))


def test_consecutive_sheets_become_one_with_the_same_rules_in_order(tmp_path):
    site = _site(tmp_path)
    assert tema_ligero.bundle_styles(site) == 1
    page = site / "notebooks" / "04.html"
    sheets = _sheets(page)
    assert len(sheets) == 3
    assert sheets[1] == "../_static/vendor/katex/katex.min.css"
    first = (page.parent / sheets[0]).read_text(encoding="utf-8")
    assert first.index("url(file.png)") < first.index("url(iconos/fa.woff)")
    last = (page.parent / sheets[2]).read_text(encoding="utf-8")
    assert last.index(".curso{") < last.index(".rn-reserva{")


def test_bundles_follow_the_sheets_on_the_next_build(tmp_path):
    site = _site(tmp_path)
    tema_ligero.bundle_styles(site)
    (site / "_static" / "css" / "curso.css").write_text(".curso{color:blue}")
    assert tema_ligero.bundle_styles(site) == 0  # la página ya está agrupada
    page = site / "notebooks" / "04.html"
    last = (page.parent / _sheets(page)[2]).read_text(encoding="utf-8")
    assert ".curso{color:blue}" in last


# --- Las imágenes: fuera del HTML y pedidas al acercarse ----------------------------


def test_launch_menu_logos_load_when_the_menu_opens():
    html = ('<img alt="" src="../_static/images/logo_binder.svg">'
            '<img alt="" src="../_static/images/logo_colab.png">'
            '<img alt="" src="../_static/otra.png">')
    out = tema_ligero.lazy_launch_logos(html)
    assert out.count('loading="lazy"') == 2
    assert '<img alt="" src="../_static/otra.png">' in out


# --- Los scripts que esperan al primer dibujo ---------------------------------------

PAGE_SCRIPTS = """<html><head>
<script src="../_static/doctools.js?v=1"></script>
<script defer="defer" src="../_static/copybutton.js?v=2"></script>
<script defer="defer" src="../_static/togglebutton.js?v=3"></script>
<script async="async" src="../_static/sphinx-thebe.js?v=4"></script>
</head><body><p>Texto</p>
<script defer="defer" src="../_static/js/codigo-en-vivo.js?v=5"></script>
<script defer src="../_static/scripts/bootstrap.js?digest=a&amp;b"></script>
</body></html>"""


def test_late_scripts_leave_the_page_and_load_in_order_after_the_first_paint():
    import json

    out = tema_ligero.load_after_first_paint(PAGE_SCRIPTS)
    # Se quedan: los síncronos y los que cambian lo que se ve al cargar.
    assert '<script src="../_static/doctools.js?v=1"></script>' in out
    assert '<script defer="defer" src="../_static/togglebutton.js?v=3">' in out
    for name in ("copybutton", "sphinx-thebe", "codigo-en-vivo", "bootstrap"):
        assert f'src="../_static/{name}' not in out.split("tema_ligero.py")[0], name
    loader = out[out.index("tema_ligero.py: scripts"):out.index("</body>")]
    late = json.loads(re.search(r"\}\)\((\[.*\])\);", loader, re.S).group(1))
    assert late == [
        {"src": "../_static/copybutton.js?v=2"},
        {"src": "../_static/sphinx-thebe.js?v=4"},
        {"src": "../_static/js/codigo-en-vivo.js?v=5"},
        {"src": "../_static/scripts/bootstrap.js?digest=a&b"},
    ]
    assert "requestAnimationFrame" in loader and "script.async = false" in loader
    assert '"first-contentful-paint"' in loader and "buffered: true" in loader
    assert f'scriptsTardios = "{tema_ligero.LATE_READY}"' in loader
    # Otra pasada (una construcción incremental) no cambia nada.
    assert tema_ligero.load_after_first_paint(out) == out


def test_a_page_without_late_scripts_is_left_alone():
    html = '<body><script defer src="../_static/togglebutton.js"></script></body>'
    assert tema_ligero.load_after_first_paint(html) == html


# --- El tema, resuelto antes del primer dibujo ------------------------------------


THEME_HEAD = """<script data-cfasync="false">
    document.documentElement.dataset.mode = localStorage.getItem("mode") || "auto";
    document.documentElement.dataset.theme = localStorage.getItem("theme") || "auto";
  </script>"""


def test_the_theme_is_resolved_in_head_from_the_mode_as_the_theme_script_does():
    out = tema_ligero.resolve_theme_before_paint(THEME_HEAD)
    assert 'localStorage.getItem("theme")' not in out
    assert 'dataset.mode = localStorage.getItem("mode") || "auto";' in out
    assert '(prefers-color-scheme: dark)' in out
    assert 'if (mode === "light" || mode === "dark") return mode;' in out
    # Otra pasada (una construcción incremental) no cambia nada.
    assert tema_ligero.resolve_theme_before_paint(out) == out


def test_every_built_page_resolves_its_theme_before_the_first_paint(built_site):
    texts = {p: p.read_text(encoding="utf-8") for p in built_site.rglob("*.html")}
    pages = {p: t for p, t in texts.items() if "dataset.mode" in t}
    assert len(pages) > 10
    for page, text in pages.items():
        assert 'localStorage.getItem("theme")' not in text, page
        assert "tema_ligero.py: como setTheme" in text, page


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
