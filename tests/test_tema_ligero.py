"""book/_ext/tema_ligero.py: las hojas de terceros recortadas por PurgeCSS, y cada
tramo de hojas seguidas servido como una sola, con las mismas reglas en el mismo orden
y sus url() corregidas; las hojas que otras pruebas nombran (KaTeX, ejercicios) siguen
aparte."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import tema_ligero  # noqa: E402

# --- Las hojas de estilo: recortadas y agrupadas -------------------------------------

SHEETS = {
    tema_ligero.THEME_SHEET: ".bd-header{top:0}.sin-uso{color:red}"
                             "html[data-theme=dark] .bd-header{color:#fff}"
                             ":focus-visible{outline:solid}",
    "styles/sphinx-book-theme.css": ".bd-header{left:0}.sin-uso{color:blue}",
    "iconos/iconos.css": "@font-face{src:url(fa.woff)}",
    "vendor/katex/katex.min.css": ".katex{}",
    "css/curso.css": ".curso{color:red}",
    "css/impresion.css": ".sin-uso{display:none}",
    "css/reserva.css": ".rn-reserva{min-height:1px}",
    "css/widgets.css": ".sin-uso{margin:0}",
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


def _build(site: Path) -> list[str]:
    """Lo que hace la construcción: el contexto de una página, y al terminar."""
    from sphinx.builders.html._assets import _CascadingStyleSheet as Sheet

    css = [Sheet("_static/css/reserva.css", priority=900),
           Sheet("_static/styles/sphinx-book-theme.css"),
           Sheet("_static/iconos/iconos.css"),
           Sheet("_static/vendor/katex/katex.min.css", priority=880),
           Sheet("_static/css/curso.css", priority=880),
           Sheet("_static/css/impresion.css", priority=890, media="print"),
           Sheet("_static/css/widgets.css", priority=900)]
    context = {"css_files": css}
    app = SimpleNamespace(outdir=site, builder=SimpleNamespace(format="html"))
    tema_ligero._bundle_styles(app, "notebooks/04", "page.html", context, None)
    tema_ligero._purge_styles(app, None)
    return [css.filename for css in context["css_files"]]


def test_consecutive_sheets_become_one_with_the_same_rules_in_order(tmp_path):
    site = _site(tmp_path)
    names = _build(site)
    # KaTeX corta el tramo; curso.css queda sola (entre KaTeX y la hoja de impresión,
    # que lleva «media»), y no se agrupa.
    assert names[1:4] == ["_static/vendor/katex/katex.min.css", "_static/css/curso.css",
                          "_static/css/impresion.css"]
    first, last = (site / names[0]).read_text(), (site / names[4]).read_text()
    assert first.index(".bd-header{left:0}") < first.index("url(iconos/fa.woff)")
    assert last.index(".rn-reserva{") < last.index(".sin-uso{margin:0}")
    # Las hojas de terceros, recortadas; las del curso, enteras.
    assert ".sin-uso{color:blue}" not in first
    assert ".sin-uso" in (site / "_static" / "css" / "impresion.css").read_text()


def test_bundles_follow_the_sheets_on_the_next_build(tmp_path):
    site = _site(tmp_path)
    bundle = site / _build(site)[0]
    (site / "_static" / "iconos" / "iconos.css").write_text(".icono{color:blue}")
    app = SimpleNamespace(outdir=site, builder=SimpleNamespace(format="html"))
    tema_ligero._purge_styles(app, None)  # la página no se reescribe
    assert ".icono{color:blue}" in bundle.read_text(encoding="utf-8")
    # Un paquete que nombra una hoja que ya no está es de otra construcción: fuera.
    (site / "_static" / "iconos" / "iconos.css").unlink()
    tema_ligero._purge_styles(app, None)
    assert not bundle.exists()


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


def test_a_moved_sheet_keeps_its_urls_pointing_at_the_same_files():
    css = ("a{background:url(img/x.png)}b{src:url('../fa.woff2?v=1#iefix')}"
           "c{background:url(data:image/png;base64,AAA)}d{src:url(/abs.woff)}"
           "/*# sourceMappingURL=x.css.map */")
    moved = tema_ligero.move_sheet(css, "iconos/iconos.css", "paquete-1.css")
    assert "url(iconos/img/x.png)" in moved
    assert "url('fa.woff2?v=1#iefix')" in moved
    assert "url(data:image/png;base64,AAA)" in moved and "url(/abs.woff)" in moved
    assert "sourceMappingURL" not in moved
    up = tema_ligero.move_sheet("a{background:url(file.png)}", "basic.css",
                                "styles/theme.css")
    assert up == "a{background:url(../file.png)}"


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
    tema_ligero._defer_scripts(None, "intro", "page.html", context, None)
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
    from bs4 import BeautifulSoup

    pages = _pages(built_site)
    assert len(pages) > 10
    blocking = set()
    for page, text in pages.items():
        soup = BeautifulSoup(text, "html.parser")
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
    from bs4 import BeautifulSoup

    icons = 0
    for page, text in _pages(built_site).items():
        head = BeautifulSoup(text[:text.index("</head>")], "html.parser")
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
