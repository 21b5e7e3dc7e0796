"""La página «Estadísticas de ejecución» (``book/estadisticas.md``), en español.

La directiva ``estadisticas-ejecucion`` es ``nb-exec-table`` de myst-nb, que escribe
la tabla con cabeceras en inglés, sin total y con ✅/❌ (emojis que las fuentes del PDF
no tienen) y sin opción para cambiarlo: aquí se escribe antes, en español.
"""

from __future__ import annotations

import posixpath
from datetime import datetime
from typing import Any

from docutils import nodes
from myst_nb.ext.execution_tables import ExecutionStatsNode, ExecutionStatsTable
from myst_nb.sphinx_ import NbMetadataCollector
from sphinx.addnodes import pending_xref
from sphinx.transforms.post_transforms import SphinxPostTransform

HEADERS = ("Capítulo", "Ejecución", "Tiempo (s)", "Fecha", "Estado")
METHODS = {
    "cache": "caché", "auto": "automática", "force": "forzada", "inline": "en línea"
}


def _row(*cells) -> nodes.row:
    return nodes.row("", *(
        nodes.entry("", c if isinstance(c, nodes.Node) else nodes.paragraph(text=c))
        for c in cells))


def make_table(parent: str, metadata: dict[str, dict]) -> nodes.table:
    """Una fila por notebook ejecutado, ordenada por nombre, y el total."""
    rows, total = [], 0.0
    for docname in sorted(metadata):
        data = metadata[docname].get("exec_data")
        if not data:
            continue
        target = posixpath.relpath(docname, posixpath.dirname(parent))
        ref = pending_xref("", nodes.inline(text=docname), refdoc=parent,
                           refdomain="std", reftype="doc", reftarget=target,
                           refexplicit=False)
        runtime, when = data.get("runtime"), data.get("mtime")
        total += runtime or 0.0
        rows.append(_row(
            nodes.paragraph("", "", ref),
            METHODS.get(data.get("method"), str(data.get("method"))),
            "—" if runtime is None else f"{runtime:.2f}",
            datetime.fromtimestamp(when).strftime("%Y-%m-%d %H:%M") if when else "",
            "✓ bien" if data.get("succeeded") is True else "✗ falló",
        ))
    rows.append(_row("Total", "", f"{total:.2f}", "", ""))
    group = nodes.tgroup("", *(nodes.colspec(colwidth=20) for _ in HEADERS),
                         nodes.thead("", _row(*HEADERS)), nodes.tbody("", *rows),
                         cols=len(HEADERS))
    return nodes.table("", group, classes=["colwidths-auto"])


class ExecutionStatsTransform(SphinxPostTransform):
    default_priority = 7  # antes que la de myst-nb (8)

    def run(self, **kwargs) -> None:
        metadata = NbMetadataCollector.get_doc_data(self.env)
        for node in list(self.document.findall(ExecutionStatsNode)):
            node.replace_self(make_table(self.env.docname, metadata))


def setup(app) -> dict[str, Any]:
    app.add_directive("estadisticas-ejecucion", ExecutionStatsTable)
    app.add_post_transform(ExecutionStatsTransform)
    # 2: el marcador es ya el nodo de myst-nb; los árboles guardados se leen de nuevo.
    return {"env_version": 2, "parallel_read_safe": True, "parallel_write_safe": True}
