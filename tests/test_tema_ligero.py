"""Las hojas de estilo agrupadas (book/_ext/tema_ligero.py) dicen lo mismo que las
sueltas: las mismas reglas en el mismo orden, con sus url() corregidas, y las hojas
que otras pruebas nombran (KaTeX, ejercicios) siguen aparte."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

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


def _png(color: str) -> bytes:
    from io import BytesIO

    from PIL import Image

    buf = BytesIO()
    Image.new("RGB", (3, 2), color).save(buf, format="PNG")
    return buf.getvalue()


def _inline(png: bytes) -> str:
    import base64

    data = base64.b64encode(png).decode("ascii")
    return (f'<img class="curso-figura" src="data:image/png;base64,{data}" '
            'width="3" height="2" loading="lazy" alt="Una figura">')


def test_inline_figures_become_files_named_by_their_content(tmp_path):
    red, blue = _png("red"), _png("blue")
    page = tmp_path / "notebooks" / "09.html"
    page.parent.mkdir()
    html = f"<p>{_inline(red)}</p><p>{_inline(blue)}</p><p>{_inline(red)}</p>"
    out = tema_ligero.externalize_inline_figures(html, page, tmp_path)
    assert "data:" not in out
    srcs = re.findall(r'src="([^"]+)"', out)
    assert srcs[0] == srcs[2] != srcs[1]  # la misma figura, un solo archivo
    assert all(s.startswith("../_images/figura-") for s in srcs)
    assert (page.parent / srcs[0]).read_bytes() == red
    assert (page.parent / srcs[1]).read_bytes() == blue
    assert len(list((tmp_path / "_images").iterdir())) == 2
    # El resto de la etiqueta no cambia, y en la raíz del sitio la ruta no sube.
    assert 'width="3" height="2" loading="lazy" alt="Una figura">' in out
    root = tema_ligero.externalize_inline_figures(_inline(red), tmp_path / "i.html",
                                                  tmp_path)
    assert 'src="_images/figura-' in root
    assert tema_ligero.externalize_inline_figures(out, page, tmp_path) == out


def test_svg_figures_get_their_size_and_load_lazily_but_the_cover_does_not(tmp_path):
    images = tmp_path / "_images"
    images.mkdir()
    for name in ("atajo.svg", "portada.svg"):
        (images / name).write_text('<svg viewBox="0 0 400 300"></svg>', "utf-8")
    page = tmp_path / "notebooks" / "02.html"
    page.parent.mkdir()
    out = tema_ligero.size_svg_images(
        '<img alt="Atajo" src="../_images/atajo.svg" />'
        '<img alt="Portada" src="../_images/portada.svg" />', page)
    assert ('<img width="400" height="300" loading="lazy" decoding="async" '
            'alt="Atajo"') in out
    assert '<img width="400" height="300" alt="Portada"' in out


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
    import json

    esm = "export default { render() {} }; // </script> dentro del código"
    state = {"version_major": 2, "state": {
        m: {"model_name": "AnyModel", "state": {
            "_esm": esm, "_css": ".rn{color:red}", "questions": "[1, 2]",
            "texto": "</b> escapado"}}
        for m in ("a", "b")
    }}
    raw = json.dumps(state).replace("</", "<\\/")
    html = (f'<p>x</p><script type="{tema_ligero.WIDGET_STATE}">{raw}</script>'
            '<script type="application/vnd.jupyter.widget-view+json">{}</script>')
    page = tmp_path / "notebooks" / "05.html"
    page.parent.mkdir()
    out = tema_ligero.externalize_widget_code(html, page, tmp_path)
    text = re.search(r'widget-state\+json">(.*?)</script>', out, re.S).group(1)
    assert "</" not in text  # el estado no cierra su propio <script>
    models = json.loads(text)["state"]
    for model in models.values():
        values = model["state"]
        assert values["_esm"].startswith("rn-archivo:../_static/widgets/")
        assert values["_esm"].endswith(".js") and values["_css"].endswith(".css")
        assert values["questions"] == "[1, 2]" and values["texto"] == "</b> escapado"
        path = page.parent / values["_esm"].removeprefix("rn-archivo:")
        assert path.read_text("utf-8") == esm
    assert models["a"]["state"] == models["b"]["state"]  # un archivo por clase
    assert len(list((tmp_path / "_static" / "widgets").iterdir())) == 2
    assert tema_ligero.externalize_widget_code(out, page, tmp_path) == out


def test_widget_binary_data_moves_to_a_bin_file_fetched_only_when_used(tmp_path):
    """Los pesos del GPT del capítulo 10 viajan como data: URL en un trait
    diccionario; en el sitio, cada uno pasa a _static/widgets/<huella>.bin."""
    import base64
    import json

    blobs = {"plain": bytes(range(256)) * 3, "pre_ln": b"\x00\x01pesos"}
    weights = {k: tema_ligero.BINARY_URL + base64.b64encode(v).decode()
               for k, v in blobs.items()}
    state = {"version_major": 2, "state": {"g": {"model_name": "AnyModel", "state": {
        "weights": weights, "texto": "data:text/plain;base64,aG9sYQ==",
        "lista": [tema_ligero.BINARY_URL]}}}}
    html = (f'<script type="{tema_ligero.WIDGET_STATE}">{json.dumps(state)}</script>')
    page = tmp_path / "notebooks" / "10.html"
    page.parent.mkdir()
    out = tema_ligero.externalize_widget_code(html, page, tmp_path)
    values = json.loads(re.search(r'json">(.*?)</script>', out, re.S).group(1))[
        "state"]["g"]["state"]
    for key, blob in blobs.items():
        ref = values["weights"][key]
        assert ref.startswith("rn-archivo:../_static/widgets/") and ref.endswith(".bin")
        assert (page.parent / ref.removeprefix("rn-archivo:")).read_bytes() == blob
    # Solo los data: URL binarios; el resto del estado, igual.
    assert values["texto"] == "data:text/plain;base64,aG9sYQ=="
    assert values["lista"] == [tema_ligero.BINARY_URL]
    assert tema_ligero.externalize_widget_code(out, page, tmp_path) == out
