"""Extensión de Sphinx del curso: ajustes del sitio que pertenecen a la construcción.

Se carga desde ``_config.yml`` (``sphinx.extra_extensions``).
"""

from __future__ import annotations

from typing import Any


def _dedupe_scripts(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Quita scripts repetidos de la página.

    sphinx-thebe 0.3.1 registra su configuración en línea en cada lectura del entorno
    (``env-before-read-docs``); si ese evento ocurre dos veces, la página declara dos
    veces ``const THEBE_JS_URL`` y el navegador da un error de consola.
    """
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple[str, str]] = set()
    unique = []
    for script in scripts:
        # sphinx-thebe registra una copia con filename=None y otra con "": mismas.
        attributes = sorted(getattr(script, "attributes", {}).items())
        key = (getattr(script, "filename", None) or "", repr(attributes))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app) -> dict[str, Any]:
    app.connect("html-page-context", _dedupe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
