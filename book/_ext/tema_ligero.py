"""Lo que cada página pide antes del primer dibujo, en pocas peticiones y ligero.

- Cada tramo de hojas de ``_static`` seguidas en ``css_files`` se sirve como un solo
  ``paquete-<huella>.css`` (Sphinx no agrupa hojas); las de terceros, recortadas por
  PurgeCSS (npm) a las reglas que puede usar alguna página o algún JavaScript.
- Los scripts de otras extensiones llevan ``defer``: ``loading_method`` solo vale
  para los que uno añade.
- El código de los widgets (``_esm``, ``_css``) y sus datos binarios pasan a archivos
  de ``_static/widgets``: myst-nb (``nb_ipywidgets_js``) los repite en cada página.
"""

from __future__ import annotations

import base64
import hashlib
import json
import posixpath
import re
import subprocess
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

THEME_SHEET = "styles/pydata-sphinx-theme.css"
PURGED = (THEME_SHEET, "basic.css", "styles/sphinx-book-theme.css",
          "sphinx-design.min.css", "mystnb.*.css")
PURGECSS = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "purgecss"
# Clases que Bootstrap pone al abrir menús, el atributo del modo oscuro (su valor no
# está escrito en ninguna parte) y el anillo de foco, que no nombra nada.
SAFELIST = ("show", "collapsing", "data-theme", ":focus-visible")
# Las hojas que las pruebas y otras extensiones buscan por su nombre.
KEEP_SEPARATE = ("vendor/katex/katex.min.css", "css/ejercicios.css")
BUNDLE_HEAD = "/* paquete (book/_ext/tema_ligero.py): "
# Los que usan los scripts en línea de la página, translations.js (antes de las
# traducciones del curso, que lo sobrescriben) y widgets-estaticos.js, que reserva la
# caja de cada widget mientras se lee la página.
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


_RELATIVE_URL = re.compile(r"url\((['\"]?)(?![a-z]+:|/|#|data:)([^'\")]+)\1\)")


def move_sheet(css: str, source: str, target: str) -> str:
    """La hoja ``source`` escrita como ``target``: sus url() siguen apuntando igual."""

    def fix(match: re.Match) -> str:
        path = posixpath.join(posixpath.dirname(source), match.group(2))
        new = posixpath.relpath(path, posixpath.dirname(target) or ".")
        return f"url({match.group(1)}{new}{match.group(1)})"

    css = re.sub(r"/\*# sourceMappingURL=.*?\*/", "", css)
    return _RELATIVE_URL.sub(fix, css)


def bundle_members(path: Path) -> list[str]:
    head = path.read_text(encoding="utf-8").split("\n", 1)[0]
    return head.removeprefix(BUNDLE_HEAD).removesuffix(" */").split()


def _bundle_styles(app, pagename, templatename, context, doctree) -> None:
    """Cada tramo de hojas seguidas, un paquete que ``_purge_styles`` llena al final
    (la hoja de myst-nb no se copia hasta entonces)."""
    from sphinx.builders.html._assets import _CascadingStyleSheet

    static = Path(app.outdir) / "_static"
    out, run = [], []

    def flush() -> None:
        if len(run) < 2:
            out.extend(run)
        else:
            names = [str(css.filename).removeprefix("_static/") for css in run]
            head = f"{BUNDLE_HEAD}{' '.join(names)} */"
            name = f"paquete-{hashlib.sha1(head.encode()).hexdigest()[:12]}.css"
            # La huella de las hojas de hoy cambia el ?v= que Sphinx pone al enlace.
            now = b"".join((static / n).read_bytes() for n in names
                           if (static / n).exists())
            (static / name).write_text(
                f"{head}\n/* {hashlib.sha1(now).hexdigest()[:12]} */\n", "utf-8")
            priority = run[0].priority
            out.append(_CascadingStyleSheet(f"_static/{name}", priority=priority))
        run.clear()

    for css in sorted(context.get("css_files", ()), key=lambda css: css.priority):
        name = str(css.filename)
        if (name.startswith("_static/")
                and name.removeprefix("_static/") not in KEEP_SEPARATE
                and css.attributes == {"rel": "stylesheet", "type": "text/css"}):
            run.append(css)
        else:
            flush()
            out.append(css)
    flush()
    context["css_files"] = out


def _purge_styles(app, exception) -> None:
    """Llena cada paquete con sus hojas; las de terceros, recortadas."""
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    bundles = {}
    for path in static.glob("paquete-*.css"):
        members = bundle_members(path)
        if all((static / name).exists() for name in members):
            bundles[path] = members
        else:  # de una construcción anterior, con una hoja que ya no está
            path.unlink()
    names = {name for members in bundles.values() for name in members}
    third = [static / n for n in sorted(names) if any(fnmatch(n, p) for p in PURGED)]
    purged = purgecss(Path(app.outdir), third) if third else {}
    for path, members in bundles.items():
        parts = [f"{BUNDLE_HEAD}{' '.join(members)} */"]
        for name in members:
            css = purged.get(static / name)
            if css is None:
                css = (static / name).read_text(encoding="utf-8")
            parts.append(f"/* {name} */\n{move_sheet(css, name, path.name)}")
        path.write_text("\n".join(parts), encoding="utf-8")


def deferred(script):
    """``script`` con ``defer``, salvo que ya diga cómo cargarse o deba ir antes."""
    name = str(script.filename or "")
    if (not name or "://" in name or posixpath.basename(name.split("?")[0]) in KEEP_SYNC
            or {"body", "async", "defer", "type"} & script.attributes.keys()):
        return script
    return type(script)(name, priority=script.priority,
                        **{**script.attributes, "defer": "defer"})


def _defer_scripts(app, pagename, templatename, context, doctree) -> None:
    context["script_files"] = [deferred(s) for s in context.get("script_files", [])]


def externalize_widget_code(state: dict, page: str, outdir: Path) -> dict:
    """El estado de los widgets de ``page`` con cada código y dato binario en
    ``_static/widgets/<huella>``: un archivo por clase, que el navegador guarda."""

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
        if not isinstance(value, str) or not value or value.startswith(WIDGET_FILE):
            return value
        if field in CODE_FIELDS:
            return to_file(value.encode("utf-8"), CODE_FIELDS[field])
        if value.startswith(BINARY_URL):
            return to_file(base64.b64decode(value[len(BINARY_URL):]), ".bin")
        return value

    models = {key: {**model, "state": walk("", model.get("state") or {})}
              for key, model in (state.get("state") or {}).items()}
    return {**state, "state": models}


def _widget_code_in_files(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files") or []
    for i, script in enumerate(scripts):
        attributes = script.attributes
        if attributes.get("type") == WIDGET_STATE and attributes.get("body"):
            state = externalize_widget_code(json.loads(attributes["body"]), pagename,
                                            Path(app.outdir))
            body = json.dumps(state, ensure_ascii=False).replace("</", "<\\/")
            scripts[i] = type(script)(script.filename, priority=script.priority,
                                      **{**attributes, "body": body})


def setup(app) -> dict[str, Any]:
    # Después de myst-nb (500), que pone el estado de los widgets y copia su hoja.
    app.connect("html-page-context", _widget_code_in_files, priority=600)
    app.connect("html-page-context", _bundle_styles, priority=970)
    app.connect("html-page-context", _defer_scripts, priority=990)
    app.connect("build-finished", _purge_styles, priority=950)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
