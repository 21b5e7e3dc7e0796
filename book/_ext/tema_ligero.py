"""Lo que cada página pide antes del primer dibujo, en pocas peticiones y ligero:
cada tramo de hojas seguidas en ``css_files``, un ``paquete-<huella>.css`` (Sphinx no
agrupa hojas), con las de terceros recortadas por PurgeCSS (npm); ``defer`` en los
scripts de otras extensiones (``loading_method`` es para los propios); y el código de
los widgets (``_esm``, ``_css``) y sus datos binarios, en ``_static/widgets``: myst-nb
(``nb_ipywidgets_js``) los repite en cada página."""

from __future__ import annotations

import base64
import hashlib
import json
import posixpath
import re
import subprocess
from fnmatch import fnmatch
from itertools import groupby
from pathlib import Path

THEME_SHEET = "styles/pydata-sphinx-theme.css"
PURGED = (THEME_SHEET, "basic.css", "styles/sphinx-book-theme.css",
          "sphinx-design.min.css", "mystnb.*.css")
PURGECSS = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "purgecss"
# Clases de Bootstrap al abrir menús, el modo oscuro (su valor no está escrito en
# ninguna página) y el anillo de foco, que no nombra nada.
SAFELIST = ("show", "collapsing", "data-theme", ":focus-visible")
# Las hojas que las pruebas y otras extensiones buscan por su nombre.
KEEP_SEPARATE = ("vendor/katex/katex.min.css", "css/ejercicios.css")
BUNDLE_HEAD = "/* paquete (book/_ext/tema_ligero.py): "
# Los que usan los scripts en línea, translations.js (antes de las traducciones del
# curso) y widgets-estaticos.js, que reserva la caja de cada widget al leer la página.
KEEP_SYNC = ("documentation_options.js", "doctools.js", "translations.js",
             "widgets-estaticos.js")
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_FILE = "rn-archivo:"
CODE_FIELDS = {"_esm": ".js", "_css": ".css"}
BINARY_URL = "data:application/octet-stream;base64,"


def purgecss(outdir: Path, sheets: list[Path]) -> dict[Path, str]:
    """Cada hoja de ``sheets`` con las reglas que puede usar el sitio."""
    command = [str(PURGECSS), "--css", *map(str, sheets), "--content",
               f"{outdir}/**/*.html", f"{outdir}/_static/**/*.js", "--safelist",
               *SAFELIST]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return {Path(result["file"]): result["css"] for result in json.loads(done.stdout)}


def move_sheet(css: str, source: str, target: str) -> str:
    """La hoja ``source`` escrita como ``target``: sus url() siguen apuntando igual."""

    def fix(match: re.Match) -> str:
        path = posixpath.join(posixpath.dirname(source), match.group(2))
        new = posixpath.relpath(path, posixpath.dirname(target) or ".")
        return f"url({match.group(1)}{new}{match.group(1)})"

    css = re.sub(r"/\*# sourceMappingURL=.*?\*/", "", css)
    return re.sub(r"url\((['\"]?)(?![a-z]+:|/|#|data:)([^'\")]+)\1\)", fix, css)


def bundle_members(path: Path) -> list[str]:
    head = path.read_text(encoding="utf-8").split("\n", 1)[0]
    return head.removeprefix(BUNDLE_HEAD).removesuffix(" */").split()


def _bundle_styles(app, pagename, templatename, context, doctree) -> None:
    """Un paquete por tramo, que ``_purge_styles`` llena con la hoja de myst-nb."""

    def bundled(css) -> bool:
        rel = str(css.filename).removeprefix("_static/")
        return (rel != css.filename and rel not in KEEP_SEPARATE
                and css.attributes == {"rel": "stylesheet", "type": "text/css"})

    static, out = Path(app.outdir) / "_static", []
    css_files = sorted(context.get("css_files", ()), key=lambda css: css.priority)
    for together, run in groupby(css_files, key=bundled):
        run = list(run)
        if together and len(run) > 1:
            names = [str(css.filename).removeprefix("_static/") for css in run]
            head = f"{BUNDLE_HEAD}{' '.join(names)} */"
            name = f"paquete-{hashlib.sha1(head.encode()).hexdigest()[:12]}.css"
            # La huella de las hojas de hoy: el ?v= del enlace cambia con ellas.
            now = hashlib.sha1(b"".join((static / n).read_bytes() for n in names
                                        if (static / n).exists())).hexdigest()
            (static / name).write_text(f"{head}\n/* {now[:12]} */\n", encoding="utf-8")
            run = [type(run[0])(f"_static/{name}", priority=run[0].priority)]
        out += run
    context["css_files"] = out


def _purge_styles(app, exception) -> None:
    """Llena cada paquete con sus hojas; las de terceros, recortadas."""
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    bundles = {path: bundle_members(path) for path in static.glob("paquete-*.css")}
    for path, members in list(bundles.items()):
        if not all((static / name).exists() for name in members):
            path.unlink()  # de una construcción anterior, con una hoja que ya no está
            del bundles[path]
    names = sorted({name for members in bundles.values() for name in members})
    texts = {name: (static / name).read_text(encoding="utf-8") for name in names}
    third = [static / n for n in names if any(fnmatch(n, p) for p in PURGED)]
    for sheet, css in (purgecss(Path(app.outdir), third) if third else {}).items():
        texts[sheet.relative_to(static).as_posix()] = css
    for path, members in bundles.items():
        parts = [f"/* {n} */\n{move_sheet(texts[n], n, path.name)}" for n in members]
        path.write_text("\n".join([f"{BUNDLE_HEAD}{' '.join(members)} */", *parts]),
                        encoding="utf-8")


def externalize_widget_code(state: dict, page: str, outdir: Path) -> dict:
    """El estado con cada código y dato binario en un archivo por huella."""

    def to_file(data: bytes, suffix: str) -> str:
        rel = f"_static/widgets/{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
        target = Path(outdir) / rel
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return WIDGET_FILE + posixpath.relpath(rel, posixpath.dirname(page) or ".")

    def walk(field: str, value):
        if isinstance(value, dict):
            return {key: walk(key, item) for key, item in value.items()}
        if isinstance(value, str) and value and not value.startswith(WIDGET_FILE):
            if field in CODE_FIELDS:
                return to_file(value.encode("utf-8"), CODE_FIELDS[field])
            if value.startswith(BINARY_URL):
                return to_file(base64.b64decode(value[len(BINARY_URL):]), ".bin")
        return value

    return walk("", state)


def _scripts(app, pagename, templatename, context, doctree) -> None:
    """``defer`` en cada script que no dice ya cómo cargarse ni debe ir antes; el
    código de los widgets, fuera de su estado (``externalize_widget_code``)."""
    out = []
    for script in context.get("script_files", []):
        name, attributes = str(script.filename or ""), script.attributes
        if attributes.get("type") == WIDGET_STATE and (
                state := json.loads(attributes.get("body") or "{}")):
            state = externalize_widget_code(state, pagename, Path(app.outdir))
            body = json.dumps(state, ensure_ascii=False).replace("</", "<\\/")
            attributes = {**attributes, "body": body}
        elif (name and "://" not in name
                and posixpath.basename(name.split("?")[0]) not in KEEP_SYNC
                and not {"body", "async", "defer", "type"} & attributes.keys()):
            attributes = {**attributes, "defer": "defer"}
        if attributes is not script.attributes:
            script = type(script)(script.filename, priority=script.priority,
                                  **attributes)
        out.append(script)
    context["script_files"] = out


def setup(app) -> dict:
    app.connect("html-page-context", _bundle_styles, priority=970)
    # Después de myst-nb (500), que pone el estado de los widgets y copia su hoja.
    app.connect("html-page-context", _scripts, priority=990)
    app.connect("build-finished", _purge_styles, priority=950)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
