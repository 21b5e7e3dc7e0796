"""Lo que el sitio necesita para no romperse en un navegador real.

``_assets/js/almacen-seguro.js`` va en línea, lo primero de ``<head>`` (``metatags``):
un almacén en memoria si el navegador bloquea ``localStorage``; como archivo síncrono
retrasaría el primer dibujo. Cada construcción vuelve a escribir (sin volver a
leerlos) los documentos con entradas de índice: en una incremental, Sphinx las perdía
del índice de búsqueda (Sphinx #12599: al cargar el índice anterior no recupera sus
entradas, y solo las vuelve a tomar de los documentos que escribe). Y el script de
las figuras ampliadas, solo en las páginas con figuras.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes

SAFE_STORAGE_JS = Path(__file__).resolve().parents[2] / "_assets/js/almacen-seguro.js"


def inline_script(path: Path = SAFE_STORAGE_JS) -> str:
    """El script sin sus líneas de comentario, listo para ir en línea."""
    code = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                     if line.strip() and not line.strip().startswith("//"))
    if "</script" in code.lower():
        raise ValueError(f"{path.name} no puede ir en línea: contiene «</script»")
    return f"<script>{code}</script>"


def _add_safe_storage(app, pagename, templatename, context, doctree) -> None:
    context["metatags"] = app.config.curso_almacen_seguro + context.get("metatags", "")


def _add_figure_zoom(app, pagename, templatename, context, doctree) -> None:
    if doctree is not None and doctree.next_node(nodes.figure) is not None:
        app.add_js_file("js/figura-ampliada.js", type="module", loading_method="defer",
                        priority=600)


def _rewrite_index_entries(app, env) -> list[str]:
    if app.builder.format != "html":
        return []
    entries = env.get_domain("index").entries
    return sorted(docname for docname, items in entries.items() if items)


def setup(app):
    # El script es un valor de configuración: si cambia, Sphinx reescribe las páginas.
    app.add_config_value("curso_almacen_seguro", inline_script(), "html")
    # Antes que las demás extensiones que añaden a metatags: el almacén va primero.
    app.connect("html-page-context", _add_safe_storage, priority=100)
    app.connect("html-page-context", _add_figure_zoom)
    app.connect("env-get-updated", _rewrite_index_entries)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
