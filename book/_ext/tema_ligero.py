"""La hoja de estilo del tema, solo con las reglas que el sitio puede usar.

``pydata-sphinx-theme.css`` (unos 390 KB sin comprimir: Bootstrap 5 entero más el
tema) bloquea el primer dibujo de cada página, y el navegador la analiza entera con la
CPU lenta de un móvil; Lighthouse marca como sin usar más del 80 %. Al terminar la
construcción, PurgeCSS (de npm) la recorta en ``_build/html`` a las reglas que puede
usar alguna página del sitio o algún JavaScript de ``_static`` (``_purge_styles``).
Las variables, ``@font-face`` y ``@keyframes`` quedan todos.

Además, los scripts del tema y de las extensiones se cargan con ``defer``
(``_defer_scripts``); lo que la cabecera pide antes del primer dibujo lo decide la
plantilla ``book/_templates/layout.html``.

La hoja ``basic.css`` de Sphinx, que el tema pedía con un ``@import`` desde
``styles/theme.css`` (un viaje más antes del primer dibujo), se escribe recortada
dentro de ``theme.css``. Cada página carga ``_assets/css/reserva.css`` (el alto de cada
widget reservado antes de dibujarse),
y los diagramas SVG llevan su ancho y alto. Las hojas grandes de las extensiones
(sphinx-book-theme, sphinx-design, myst-nb) se recortan igual que la del tema.
Cada tramo de hojas de estilo seguidas de ``css_files`` se sirve en un solo archivo
(``_bundle_styles``): de 18 peticiones antes del primer dibujo a 7.

El recorte parte siempre del archivo original (Sphinx lo vuelve a copiar en cada
construcción), y tiene en cuenta todas las páginas de la carpeta de salida: una
construcción incremental que escribe una sola página no pierde reglas de las demás.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import subprocess
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from sphinx.util import logging

logger = logging.getLogger(__name__)

# Las hojas de terceros que se recortan (las del curso quedan enteras): Bootstrap con el
# tema, la de Sphinx y las de sphinx-book-theme, sphinx-design y myst-nb (con su hash
# en el nombre). Sphinx vuelve a copiar las originales en cada construcción.
THEME_SHEET = "styles/pydata-sphinx-theme.css"
BASIC = "basic.css"
PURGED = (THEME_SHEET, BASIC, "styles/sphinx-book-theme.css", "sphinx-design.min.css",
          "mystnb.*.css")
PURGECSS = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "purgecss"
# PurgeCSS guarda una regla si cada clase, id, etiqueta y atributo que nombra aparece
# como palabra en alguna página o en algún JavaScript de ``_static`` (así siguen las
# clases que el JavaScript del tema pone y quita). La lista asegura las que pone
# Bootstrap al abrir los menús, el atributo del modo oscuro (su valor ``dark`` no tiene
# por qué estar escrito) y el anillo de foco del teclado, una pseudoclase sola que no
# nombra nada (``:focus-visible{outline:…}``).
SAFELIST = ("show", "collapsing", "data-theme", ":focus-visible")


def purgecss(outdir: Path, sheets: list[Path]) -> dict[Path, str]:
    """Cada hoja de ``sheets`` con las reglas que puede usar el sitio (PurgeCSS)."""
    command = [str(PURGECSS), "--css", *map(str, sheets), "--content",
               f"{outdir}/**/*.html", f"{outdir}/_static/**/*.js", "--safelist",
               *SAFELIST]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return {Path(result["file"]): result["css"] for result in json.loads(done.stdout)}


# PurgeCSS no mueve hojas de carpeta, ni Sphinx las agrupa: una hoja escrita en otro
# sitio (basic.css dentro de styles/theme.css, o dentro de un paquete) lleva sus url()
# relativas a la nueva carpeta (postcss-url lo haría con un guion de JavaScript más que
# mantener). Los comentarios ``sourceMappingURL`` no sirven fuera de su hoja.
_RELATIVE_URL = re.compile(r"url\((['\"]?)(?![a-z]+:|/|#|data:)([^'\")]+)\1\)")
_SOURCE_MAP = re.compile(r"/\*# sourceMappingURL=.*?\*/")


def move_sheet(css: str, source: str, target: str) -> str:
    """La hoja ``source`` escrita como ``target`` (rutas dentro de ``_static``)."""

    def fix(match):
        path = posixpath.join(posixpath.dirname(source), match.group(2))
        new = posixpath.relpath(path, posixpath.dirname(target) or ".")
        return f"url({match.group(1)}{new}{match.group(1)})"

    return _RELATIVE_URL.sub(fix, _SOURCE_MAP.sub("", css))


# ``styles/theme.css`` del tema solo contiene ``@import "../basic.css"``: el navegador
# no descubre basic.css hasta recibir theme.css, un viaje de ida y vuelta más antes del
# primer dibujo. Se escribe en theme.css la hoja de Sphinx misma, recortada.
THEME_IMPORT = "styles/theme.css"


def _purge_styles(app, exception) -> None:
    """Recorta las hojas de terceros y llena los paquetes que nombran las páginas."""
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    static = outdir / "_static"
    bundles = {path: bundle_members(path) for path in static.glob("paquete-*.css")}
    names = {THEME_SHEET, BASIC}.union(*bundles.values())
    sheets = sorted(static / name for name in names if (static / name).exists()
                    and any(fnmatch(name, pattern) for pattern in PURGED))
    purged = purgecss(outdir, sheets)

    def text(name: str) -> str:
        path = static / name
        return purged[path] if path in purged else path.read_text(encoding="utf-8")

    (static / THEME_SHEET).write_text(text(THEME_SHEET), encoding="utf-8")
    theme = static / THEME_IMPORT
    if theme.exists() and f'@import "../{BASIC}";' in theme.read_text(encoding="utf-8"):
        theme.write_text(move_sheet(text(BASIC), BASIC, THEME_IMPORT), encoding="utf-8")
    for path, members in bundles.items():
        if not all((static / name).exists() for name in members):
            path.unlink()  # de una construcción anterior, con una hoja que ya no está
            continue
        parts = [move_sheet(text(name), name, path.name) for name in members]
        path.write_text("\n".join([bundle_head(members), *parts]), encoding="utf-8")
    logger.info("tema_ligero: %d hojas recortadas (PurgeCSS), %d paquetes",
                len(sheets), len(bundles))


# Los scripts del tema y de las extensiones se cargan con «defer»: ya no bloquean el
# primer dibujo y se ejecutan en el mismo orden, antes de DOMContentLoaded. Los
# propios del curso lo piden ellos mismos (``app.add_js_file(…,
# loading_method="defer")``), pero Sphinx no tiene opción para cambiar cómo se cargan
# los que añaden otros (sphinx-copybutton, togglebutton, sphinx-thebe, sphinx-design,
# sphinx-book-theme, los de Sphinx): cada página recibe su lista en
# ``html-page-context`` (``script_files``) y aquí se cambia cada entrada por la misma
# con ``defer``. Se quedan síncronos los que usan los scripts en línea de la página
# (``documentation_options.js``, ``doctools.js``), ``translations.js``, que debe ir
# antes de las traducciones propias del curso (que lo sobrescriben), y
# widgets-estaticos.js, justo después del estado de los widgets: reserva la caja de
# cada widget mientras se lee la página, antes de pintarla (sin saltos), y dibuja el
# widget cuando se acerca a la pantalla.
KEEP_SYNC = (
    "documentation_options.js",
    "doctools.js",
    "translations.js",
    "widgets-estaticos.js",
)


def deferred(script):
    """``script`` (una entrada de ``script_files``) con ``defer``, si le toca."""
    name = str(getattr(script, "filename", "") or "")
    attributes = getattr(script, "attributes", None)
    if (attributes is None or not name or "://" in name
            or posixpath.basename(name.split("?")[0]) in KEEP_SYNC
            or {"body", "async", "defer", "type"} & attributes.keys()):
        return script
    return type(script)(name, priority=script.priority,
                        **{**attributes, "defer": "defer"})


def _defer_scripts(app, pagename, templatename, context, doctree) -> None:
    context["script_files"] = [deferred(s) for s in context.get("script_files", [])]


# El alto de cada widget, reservado antes de dibujarlo (_assets/css/reserva.css).
RESERVA_CSS = "css/reserva.css"


# Los diagramas SVG de {figure} (book/figuras/) llegan sin width ni height: hasta que
# el navegador descarga cada uno no sabe su alto, y al llegar empuja el texto de debajo
# (ch. 2 a 820 px: desplazamiento 0.09). Se les pone el tamaño de su propio viewBox;
# curso.css los reduce a la columna sin deformarlos (``height: auto``). Con su caja ya
# reservada, se piden cuando el lector se acerca (``loading="lazy"``): en un 4G lento
# no compiten con el texto del primer dibujo. Menos la portada, que se ve al llegar.
EAGER_SVG = ("portada.svg",)
_SVG_IMG = re.compile(
    r'<img\b(?![^>]*\swidth=)([^>]*?\ssrc="([^"]*_images/[^"]+\.svg)")'
)
_SVG_SIZE = re.compile(r'<svg\b[^>]*?\sviewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+'
                       r'([\d.]+)[\s,]+([\d.]+)\s*"')


def _svg_size(path: Path) -> tuple[int, int] | None:
    try:
        head = path.read_text(encoding="utf-8", errors="ignore")[:4000]
    except OSError:
        return None
    match = _SVG_SIZE.search(head)
    if not match:
        return None
    return round(float(match.group(1))), round(float(match.group(2)))


def size_svg_images(html: str, page: Path) -> str:
    """``width`` y ``height`` (los del viewBox) en cada ``<img>`` de un SVG de
    ``_images`` que no los tenga."""

    def add(match):
        src = match.group(2).split("?")[0]
        size = _svg_size((page.parent / src).resolve())
        if size is None:
            return match.group(0)
        lazy = "" if src.endswith(EAGER_SVG) or "loading=" in match.group(0) else (
            ' loading="lazy" decoding="async"')
        return f'<img width="{size[0]}" height="{size[1]}"{lazy}{match.group(1)}'

    return _SVG_IMG.sub(add, html)


# Las figuras de matplotlib llegan en línea (``resnorm.book.figure_html``: un PNG en
# base64 dentro de la salida de la celda, para que el notebook se vea igual en
# Jupyter o Colab). En el sitio, ese base64 viaja dentro del HTML: el capítulo 9
# pesaba 166 KB comprimido, y en un 4G lento el primer dibujo esperaba a que llegaran
# sus tres figuras, aunque están más abajo y llevan loading="lazy". Cada una se
# escribe como archivo en _images (su nombre es la huella de su contenido) y la
# página la pide cuando el lector se acerca. También la versión para teléfono, en el
# ``<source srcset>`` del mismo ``<picture>``.
_INLINE_PNG = re.compile(
    r'(<(?:img|source)\b[^>]*?\s(?:src|srcset)=")data:image/png;base64,'
    r'([A-Za-z0-9+/=]+)"'
)
INLINE_FIGURE_PREFIX = "figura-"


def write_by_hash(data: bytes, folder: str, suffix: str, page: Path, outdir: Path,
                  prefix: str = "") -> str:
    """Escribe ``data`` en ``outdir/folder/<prefix><huella><suffix>`` (si no estaba)
    y devuelve su ruta relativa a la página ``page``."""
    name = f"{prefix}{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    target = Path(outdir) / folder / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    here = page.parent.relative_to(outdir).as_posix()
    return posixpath.relpath(f"{folder}/{name}", here)


def externalize_inline_figures(html: str, page: Path, outdir: Path) -> str:
    """Cada ``<img src="data:image/png;base64,…">`` de ``html`` (la página ``page``
    de ``outdir``) pasa a ``_images/figura-<huella>.png``, con la ruta relativa."""
    import base64

    def move(match):
        png = base64.b64decode(match.group(2))
        href = write_by_hash(png, "_images", ".png", page, outdir,
                             prefix=INLINE_FIGURE_PREFIX)
        return f'{match.group(1)}{href}"'

    return _INLINE_PNG.sub(move, html)


# El estado de los widgets que myst-nb guarda en cada página lleva el código de cada
# widget (``_esm``, su módulo JavaScript, y ``_css``), repetido en cada widget de la
# misma clase: en el capítulo 5, 33 de sus 52 KB comprimidos. En un 4G lento, el
# primer dibujo esperaba a que llegara todo el HTML. Cada código pasa a un archivo de
# _static/widgets (su nombre es la huella de su contenido: uno para todas las páginas
# que lo usan, y el navegador lo guarda) y el estado lo nombra con «rn-archivo:» y su
# ruta relativa; _assets/js/widgets-estaticos.js lo descarga al dibujar el widget.
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_FILE = "rn-archivo:"
_WIDGET_STATE = re.compile(
    rf'(<script type="{re.escape(WIDGET_STATE)}">)(.*?)(</script>)', re.S
)
_CODE_FIELDS = {"_esm": ".js", "_css": ".css"}
# Datos binarios de un widget (los pesos de los GPT del capítulo 10): un data: URL en
# un trait, o en los valores de un trait diccionario. Van a _static/widgets/<huella>.bin
# y el widget los pide cuando los necesita, no al abrir la página.
BINARY_URL = "data:application/octet-stream;base64,"


def _externalize_binary(value, page: Path, outdir: Path):
    import base64

    if isinstance(value, str) and value.startswith(BINARY_URL):
        data = base64.b64decode(value[len(BINARY_URL):])
        path = write_by_hash(data, "_static/widgets", ".bin", page, outdir)
        return WIDGET_FILE + path
    if isinstance(value, dict):
        return {k: _externalize_binary(v, page, outdir) for k, v in value.items()}
    return value


def externalize_widget_code(html: str, page: Path, outdir: Path) -> str:
    """El ``_esm`` y el ``_css`` de cada widget del estado de ``html`` (la página
    ``page`` de ``outdir``), en ``_static/widgets/<huella>.js|.css``."""
    import json

    def move(match):
        try:
            state = json.loads(match.group(2))
        except ValueError:
            return match.group(0)
        changed = False
        for model in (state.get("state") or {}).values():
            values = model.get("state") or {}
            for field, suffix in _CODE_FIELDS.items():
                code = values.get(field)
                if not code or not isinstance(code, str) or code.startswith(
                        WIDGET_FILE):
                    continue
                values[field] = WIDGET_FILE + write_by_hash(
                    code.encode("utf-8"), "_static/widgets", suffix, page, outdir)
                changed = True
            for field, value in values.items():
                moved = _externalize_binary(value, page, outdir)
                if moved != value:
                    values[field] = moved
                    changed = True
        if not changed:
            return match.group(0)
        text = json.dumps(state, ensure_ascii=False).replace("</", "<\\/")
        return match.group(1) + text + match.group(3)

    return _WIDGET_STATE.sub(move, html)


def _write_image_sizes(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for page in outdir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        rewritten = html
        if "data:image/png;base64," in rewritten:
            rewritten = externalize_inline_figures(rewritten, page, outdir)
        if WIDGET_STATE in rewritten:
            rewritten = externalize_widget_code(rewritten, page, outdir)
        if "_images/" in rewritten:
            rewritten = size_svg_images(rewritten, page)
        if rewritten != html:
            page.write_text(rewritten, encoding="utf-8")


# Unas 18 hojas de estilo bloquean el primer dibujo de cada página, y en una conexión
# móvil cada petición cuesta un viaje de ida y vuelta. Cada tramo de hojas de
# ``_static`` seguidas en ``css_files`` se cambia por una sola
# (``_static/paquete-<hash>.css``) que ``_purge_styles`` llena al terminar con las
# mismas reglas en el mismo orden: la hoja de myst-nb no se copia hasta entonces. Se
# dejan aparte las hojas que otras partes del sitio nombran (KaTeX, ejercicios) y las
# que llevan otros atributos (``media``…): cortan el tramo. Las dos hojas que la
# plantilla del tema enlaza a mano (``theme.css`` y la de Bootstrap) no están en
# ``css_files`` y siguen sueltas.
KEEP_SEPARATE = ("vendor/katex/katex.min.css", "css/ejercicios.css")
_PLAIN = {"rel": "stylesheet", "type": "text/css"}
_BUNDLE_HEAD = "/* paquete (book/_ext/tema_ligero.py): "


def bundle_head(names: list[str]) -> str:
    return f"{_BUNDLE_HEAD}{' '.join(names)} */"


def bundle_members(path: Path) -> list[str]:
    head = path.read_text(encoding="utf-8").split("\n", 1)[0]
    return head.removeprefix(_BUNDLE_HEAD).removesuffix(" */").split()


def write_bundle_head(static: Path, names: list[str]) -> str:
    """Nombre del paquete de ``names``; su primera línea los nombra.

    La segunda línea es la huella de las hojas de ahora: el ``?v=`` que Sphinx pone
    al enlace cambia con ellas."""
    head = bundle_head(names)
    version = hashlib.sha1(head.encode("utf-8"))
    for name in names:
        if (static / name).exists():
            version.update((static / name).read_bytes())
    name = f"paquete-{hashlib.sha1(head.encode('utf-8')).hexdigest()[:12]}.css"
    (static / name).write_text(f"{head}\n/* {version.hexdigest()[:12]} */\n",
                               encoding="utf-8")
    return name


def _bundle_styles(app, pagename, templatename, context, doctree) -> None:
    """html-page-context: cada tramo de hojas de ``_static`` seguidas, un paquete."""
    from sphinx.builders.html._assets import _CascadingStyleSheet

    static = Path(app.outdir) / "_static"
    out, run = [], []

    def flush():
        if len(run) > 1:
            name = write_bundle_head(
                static, [css.filename.removeprefix("_static/") for css in run])
            priority = run[0].priority
            out.append(_CascadingStyleSheet(f"_static/{name}", priority=priority))
        else:
            out.extend(run)
        run.clear()

    for css in sorted(context.get("css_files", ()), key=lambda css: css.priority):
        name = str(css.filename)
        if (name.startswith("_static/") and css.attributes == _PLAIN
                and name.removeprefix("_static/") not in KEEP_SEPARATE):
            run.append(css)
        else:
            flush()
            out.append(css)
    flush()
    context["css_files"] = out


def setup(app) -> dict[str, Any]:
    app.add_css_file(RESERVA_CSS, priority=900)
    app.connect("build-finished", _write_image_sizes, priority=940)
    app.connect("html-page-context", _bundle_styles, priority=970)
    # Después de la copia de la hoja de myst-nb (prioridad 500).
    app.connect("build-finished", _purge_styles, priority=950)
    app.connect("html-page-context", _defer_scripts, priority=990)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
