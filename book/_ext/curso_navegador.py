"""Lo que el sitio necesita para no romperse en un navegador real.

``_assets/js/almacen-seguro.js`` va en línea, lo primero de ``<head>`` (``metatags``):
un almacén en memoria si el navegador bloquea ``localStorage``; como archivo síncrono
retrasaría el primer dibujo. En una construcción incremental, Sphinx perdía
del índice de búsqueda las entradas de índice (los términos del glosario) de los
documentos que no vuelve a escribir (Sphinx #12599, aún en Sphinx 9: al cargar el
índice anterior no recupera sus entradas, y solo las vuelve a tomar de los documentos
que escribe): aquí se devuelven al índice desde el entorno (el dominio «index» las
guarda de cada documento leído), como las habría tomado Sphinx al escribirlos. Antes
se reescribían esos documentos en cada construcción (el glosario y la portada: la
mitad de una construcción sin cambios). Y el script de las figuras ampliadas, solo en
las páginas con figuras.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.util.index_entries import split_index_msg

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


def search_index_entries(node_entries) -> list[tuple[str, str, str]]:
    """Las entradas de un documento como las guarda el índice de búsqueda (lo mismo
    que ``sphinx.search.IndexBuilder.feed`` con los nodos ``index`` del documento)."""
    out: set[tuple[str, str, str]] = set()
    for entry_type, value, target_id, main, _category_key in node_entries:
        try:
            result = split_index_msg(entry_type, value)
        except ValueError:
            continue
        target_id = target_id or ""
        if entry_type in {"see", "seealso"}:
            out.add((result[0], target_id, main))
        out |= {(x, target_id, main) for x in result}
    return sorted(out)


def _restore_index_entries(app) -> list:
    """html-collect-pages (antes de guardar el índice de búsqueda): las entradas de
    los documentos que esta construcción no escribió."""
    indexer = getattr(app.builder, "indexer", None)
    if indexer is None:
        return []
    stored = indexer._index_entries
    for docname, items in app.env.get_domain("index").entries.items():
        if items and not stored.get(docname) and docname in indexer._titles:
            stored[docname] = search_index_entries(items)
    return []


def setup(app):
    # El script es un valor de configuración: si cambia, Sphinx reescribe las páginas.
    app.add_config_value("curso_almacen_seguro", inline_script(), "html")
    # Antes que las demás extensiones que añaden a metatags: el almacén va primero.
    app.connect("html-page-context", _add_safe_storage, priority=100)
    app.connect("html-page-context", _add_figure_zoom)
    app.connect("html-collect-pages", _restore_index_entries)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
