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

    if (static / THEME_SHEET).exists():  # un sitio con otro tema no la tiene
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




# El estado de los widgets que myst-nb guarda en cada página lleva el código de cada
# widget (``_esm``, su módulo JavaScript, y ``_css``), repetido en cada widget de la
# misma clase: en el capítulo 5, 33 de sus 52 KB comprimidos. En un 4G lento, el
# primer dibujo esperaba a que llegara todo el HTML. Cada código pasa a un archivo de
# _static/widgets (su nombre es la huella de su contenido: uno para todas las páginas
# que lo usan, y el navegador lo guarda) y el estado lo nombra con «rn-archivo:» y su
# ruta relativa; _assets/js/widgets-estaticos.js lo descarga al dibujar el widget.
# myst-nb no tiene opción para esto: escribe el estado entero en un <script> de la
# página (``nb_ipywidgets_js``); aquí se cambia ese script (``html-page-context``,
# después de myst-nb) por el mismo estado con las referencias.
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_FILE = "rn-archivo:"
_CODE_FIELDS = {"_esm": ".js", "_css": ".css"}
# Datos binarios de un widget (los pesos de los GPT del capítulo 10): un data: URL en
# un trait, o en los valores de un trait diccionario. Van a _static/widgets/<huella>.bin
# y el widget los pide cuando los necesita, no al abrir la página.
BINARY_URL = "data:application/octet-stream;base64,"


def write_by_hash(data: bytes, folder: str, suffix: str, page: str,
                  outdir: Path) -> str:
    """Escribe ``data`` en ``outdir/folder/<huella><suffix>`` (si no estaba) y
    devuelve su ruta relativa a la página ``page`` (``notebooks/05``)."""
    name = f"{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    target = Path(outdir) / folder / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return posixpath.relpath(f"{folder}/{name}", posixpath.dirname(page) or ".")


def _externalize_binary(value, page: str, outdir: Path):
    import base64

    if isinstance(value, str) and value.startswith(BINARY_URL):
        data = base64.b64decode(value[len(BINARY_URL):])
        return WIDGET_FILE + write_by_hash(data, "_static/widgets", ".bin", page,
                                           outdir)
    if isinstance(value, dict):
        return {k: _externalize_binary(v, page, outdir) for k, v in value.items()}
    return value


def externalize_widget_code(state: dict, page: str, outdir: Path) -> dict:
    """El estado de los widgets de la página ``page`` con cada ``_esm``, ``_css`` y
    dato binario en ``outdir/_static/widgets/<huella>.js|.css|.bin``."""
    models = {}
    for key, model in (state.get("state") or {}).items():
        values = dict(model.get("state") or {})
        for field, value in values.items():
            suffix = _CODE_FIELDS.get(field)
            if suffix and isinstance(value, str) and value and not value.startswith(
                    WIDGET_FILE):
                values[field] = WIDGET_FILE + write_by_hash(
                    value.encode("utf-8"), "_static/widgets", suffix, page, outdir)
            else:
                values[field] = _externalize_binary(value, page, outdir)
        models[key] = {**model, "state": values}
    return {**state, "state": models}


def _widget_code_in_files(app, pagename, templatename, context, doctree) -> None:
    import json

    scripts = context.get("script_files") or []
    for i, script in enumerate(scripts):
        attributes = getattr(script, "attributes", {}) or {}
        if attributes.get("type") != WIDGET_STATE or not attributes.get("body"):
            continue
        state = externalize_widget_code(json.loads(attributes["body"]), pagename,
                                        Path(app.outdir))
        body = json.dumps(state, ensure_ascii=False).replace("</", "<\\/")
        # Otro script igual, con el estado nuevo, en el mismo lugar de la lista.
        scripts[i] = type(script)(script.filename, priority=script.priority,
                                  **{**attributes, "body": body})


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
    app.connect("html-page-context", _bundle_styles, priority=970)
    # Después de la copia de la hoja de myst-nb (prioridad 500).
    app.connect("build-finished", _purge_styles, priority=950)
    app.connect("html-page-context", _defer_scripts, priority=990)
    # Después de myst-nb (500), que pone el estado de los widgets en la página.
    app.connect("html-page-context", _widget_code_in_files, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
