"""Lo que el sitio necesita para no romperse en un navegador real.

1. **Almacenamiento bloqueado o lleno.** ``_assets/js/almacen-seguro.js`` va en línea
   al principio de ``<head>`` de cada página (por ``metatags``, lo primero que escriben
   las plantillas, antes del script del tema que lee ``localStorage``): si el
   navegador no deja usar ``localStorage`` o ``sessionStorage``, pone en su lugar un
   almacén en memoria con la misma interfaz. En línea y no como archivo: un archivo
   síncrono en ``<head>`` retrasaría el primer dibujo de cada página.

2. **El índice de búsqueda de una construcción incremental** (Sphinx 7.4, issue
   #12599). Sphinx guarda el entorno al terminar de leer, y las entradas de índice de
   cada documento (las 76 del glosario) entran al índice de búsqueda después, al
   escribirlo; la construcción siguiente solo recupera de ``searchindex.js`` títulos y
   términos. Así, una construcción que no reescribía el glosario publicaba un índice
   sin sus entradas: buscar «residual» ya no llevaba a su definición. Con el evento
   documentado ``env-get-outdated``, cada construcción vuelve a leer los documentos
   que tienen entradas de índice (aquí, solo ``book/glosario``, un archivo pequeño): el
   índice de una construcción en caliente es el mismo que el de una en frío.

3. **Figuras que se abren en grande** (``_assets/js/figura-ampliada.js``), solo en las
   páginas con figuras.

4. **El foco del teclado** (``_assets/js/navegacion.js``): vuelve al botón ☰ o ☷ al
   cerrar su índice y va al título al que lleva un enlace de la página.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from docutils import nodes

HERE = Path(__file__).resolve().parent
SAFE_STORAGE_JS = HERE.parents[1] / "_assets" / "js" / "almacen-seguro.js"


def inline_script(path: Path = SAFE_STORAGE_JS) -> str:
    """El script de ``path`` sin sus líneas de comentario, listo para ir en línea."""
    lines = [
        line for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.strip().startswith("//")
    ]
    code = "\n".join(lines)
    if "</script" in code.lower():
        raise ValueError(f"{path.name} no puede ir en línea: contiene «</script»")
    return f"<script>{code}</script>"


def _add_safe_storage(app, pagename, templatename, context, doctree) -> None:
    context["metatags"] = inline_script() + context.get("metatags", "")


def _add_figure_zoom(app, pagename, templatename, context, doctree) -> None:
    """``_assets/js/figura-ampliada.js``, solo en las páginas con figuras."""
    if doctree is not None and doctree.next_node(nodes.figure) is not None:
        app.add_js_file("js/figura-ampliada.js", loading_method="defer", priority=600)


def docs_with_index_entries(env) -> set[str]:
    """Los documentos con entradas de índice (``{index}``, términos del glosario)."""
    entries = env.get_domain("index").entries
    return {docname for docname, items in entries.items() if items}


def _reread_index_entries(app, env, added, changed, removed) -> list[str]:
    if app.builder.format != "html":
        return []
    return sorted(docs_with_index_entries(env) - set(added) - set(changed)
                  - set(removed))


def setup(app):
    # Antes que las demás extensiones que añaden a metatags: el almacén va primero.
    app.connect("html-page-context", _add_safe_storage, priority=100)
    app.connect("html-page-context", _add_figure_zoom)
    app.add_js_file("js/navegacion.js", loading_method="defer", priority=600)
    app.connect("env-get-outdated", _reread_index_entries)
    # Si el script cambia, cambia este valor y Sphinx reescribe todas las páginas.
    digest = hashlib.sha256(SAFE_STORAGE_JS.read_bytes()).hexdigest()[:16]
    app.add_config_value("curso_almacen_seguro", digest, "html")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
