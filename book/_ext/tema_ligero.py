"""Lo que cada página pide antes del primer dibujo, ligero: las hojas de terceros,
recortadas por PurgeCSS (npm) a las reglas que usa el sitio; ``defer`` en los scripts
de otras extensiones (``loading_method`` es para los propios); y el código de los
widgets (``_esm``, ``_css``) y sus datos binarios, en ``_static/widgets``: myst-nb
(``nb_ipywidgets_js``) los repite en cada página."""

from __future__ import annotations

import base64
import hashlib
import json
import posixpath
import subprocess
from pathlib import Path

THEME_SHEET = "styles/pydata-sphinx-theme.css"
# Las que Sphinx copia de nuevo en cada construcción (las del tema y las de
# html_static_path): se recortan en su sitio. La de myst-nb no: la copia solo si no
# está y avisaría de que cambió («misc.copy_overwrite», un error con -W).
PURGED = (THEME_SHEET, "basic.css", "styles/sphinx-book-theme.css",
          "sphinx-design.min.css")
PURGECSS = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "purgecss"
# Clases de Bootstrap al abrir menús, el modo oscuro (su valor no está escrito en
# ninguna página) y el anillo de foco, que no nombra nada.
SAFELIST = ("show", "collapsing", "data-theme", ":focus-visible")
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


def purge_inputs(outdir: Path, sheets: list[Path]) -> str:
    """La huella de todo lo que lee ``purgecss``: las hojas, el contenido (las páginas
    y los scripts de ``_static``, con sus rutas), la lista segura y PurgeCSS."""
    digest = hashlib.sha256(json.dumps(SAFELIST).encode())
    digest.update(str(PURGECSS.resolve()).encode())
    content = sorted({*outdir.glob("**/*.html"), *(outdir / "_static").glob("**/*.js")})
    for path in [*sheets, *content]:
        digest.update(f"\0{path.relative_to(outdir)}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


#: En la carpeta del entorno de Sphinx (se va con él): la huella de lo que leyó la
#: última pasada de PurgeCSS y las hojas que dio.
PURGE_CACHE = "purgecss.json"


def _purge_styles(app, exception) -> None:
    """Las hojas de ``PURGED``, recortadas en ``_static`` (recién copiadas).

    PurgeCSS (un proceso de Node, ≈ 1–2 s de CPU) solo corre si cambió algo de lo que
    lee (``purge_inputs``): una construcción sin cambios vuelve a escribir las hojas
    recortadas de la anterior, que son las mismas."""
    if exception is None and app.builder.format == "html":
        outdir = Path(app.outdir)
        static = outdir / "_static"
        sheets = [static / name for name in PURGED if (static / name).is_file()]
        if not sheets:
            return
        key = purge_inputs(outdir, sheets)
        cache = Path(app.doctreedir) / PURGE_CACHE
        try:
            stored = json.loads(cache.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stored = {}
        names = [str(sheet.relative_to(static)) for sheet in sheets]
        if stored.get("inputs") == key and sorted(stored.get("sheets", {})) == sorted(
                names):
            purged = {static / name: css for name, css in stored["sheets"].items()}
        else:
            purged = purgecss(outdir, sheets)
        for sheet, css in purged.items():
            sheet.write_text(css, encoding="utf-8")
        cache.write_text(json.dumps({"inputs": key, "sheets": {
            str(sheet.relative_to(static)): css for sheet, css in purged.items()}}),
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
    # Después de myst-nb (500), que pone el estado de los widgets y copia su hoja.
    app.connect("html-page-context", _scripts, priority=990)
    app.connect("build-finished", _purge_styles, priority=950)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
