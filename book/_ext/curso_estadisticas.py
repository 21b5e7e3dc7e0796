"""Extensión de Sphinx: la página «Estadísticas de ejecución», en español.

La directiva ``estadisticas-ejecucion`` inserta una tabla con cada notebook del libro,
cómo se ejecutó (caché o de nuevo), cuánto tardó, cuándo y si terminó bien; los datos
son los que myst-nb registra al ejecutar (la misma idea que su ``nb-exec-table``, con
cabeceras
en español y el total).
"""

from __future__ import annotations

import posixpath
from datetime import datetime
from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

METADATA_KEY = "has_exec_table"
HEADERS = ["Capítulo", "Ejecución", "Tiempo (s)", "Fecha", "Estado"]
METHODS = {
    "cache": "caché", "auto": "automática", "force": "forzada", "inline": "en línea"
}


class EstadisticasEjecucionNode(nodes.General, nodes.Element):
    """Marcador que se sustituye por la tabla cuando ya se ejecutó todo."""


class ExecutionStats(SphinxDirective):
    has_content = False

    def run(self):
        from myst_nb.sphinx_ import NbMetadataCollector

        NbMetadataCollector.set_doc_data(self.env, self.env.docname, METADATA_KEY, True)
        return [EstadisticasEjecucionNode()]


def rows(metadata: dict[str, dict]) -> list[dict[str, Any]]:
    """Una fila por notebook ejecutado, ordenada por nombre."""
    out = []
    for docname in sorted(metadata):
        data = metadata[docname].get("exec_data")
        if not data:
            continue
        out.append(
            {
                "docname": docname,
                "method": METHODS.get(data.get("method"), str(data.get("method"))),
                "runtime": data.get("runtime"),
                "mtime": data.get("mtime"),
                "succeeded": data.get("succeeded") is True,
            }
        )
    return out


def _cell(content) -> nodes.entry:
    if isinstance(content, nodes.Node):
        return nodes.entry("", nodes.paragraph("", "", content))
    return nodes.entry("", nodes.paragraph(text=str(content)))


def make_table(parent: str, metadata: dict[str, dict]) -> nodes.table:
    table = nodes.table(classes=["colwidths-auto"])
    tgroup = nodes.tgroup(cols=len(HEADERS))
    table += tgroup
    for _ in HEADERS:
        tgroup += nodes.colspec(colwidth=20)
    head = nodes.thead()
    row = nodes.row()
    for name in HEADERS:
        row += _cell(name)
    head += row
    tgroup += head
    body = nodes.tbody()
    total = 0.0
    for item in rows(metadata):
        ref = pending_xref(
            "",
            refdoc=parent,
            refdomain="std",
            reftarget=posixpath.relpath(item["docname"], posixpath.dirname(parent)),
            reftype="doc",
            refexplicit=False,
        )
        ref += nodes.inline(text=item["docname"])
        runtime = item["runtime"]
        total += runtime or 0.0
        when = item["mtime"]
        row = nodes.row()
        row += _cell(ref)
        row += _cell(item["method"])
        row += _cell("—" if runtime is None else f"{runtime:.2f}")
        stamp = datetime.fromtimestamp(when).strftime("%Y-%m-%d %H:%M") if when else ""
        row += _cell(stamp)
        row += _cell("✓ bien" if item["succeeded"] else "✗ falló")
        body += row
    row = nodes.row()
    for text in ["Total", "", f"{total:.2f}", "", ""]:
        row += _cell(text)
    body += row
    tgroup += body
    return table


class ExecutionStatsTransform(SphinxPostTransform):
    default_priority = 8  # antes de resolver referencias

    def run(self, **kwargs) -> None:
        from myst_nb.sphinx_ import NbMetadataCollector

        for node in list(self.document.findall(EstadisticasEjecucionNode)):
            node.replace_self(
                make_table(self.env.docname, NbMetadataCollector.get_doc_data(self.env))
            )


def _update(app, env):
    from myst_nb.sphinx_ import NbMetadataCollector

    if not NbMetadataCollector.new_exec_data(env):
        return None
    return [
        doc for doc, data in NbMetadataCollector.get_doc_data(env).items()
        if data.get(METADATA_KEY)
    ]


def setup(app) -> dict[str, Any]:
    app.add_node(EstadisticasEjecucionNode)
    app.add_directive("estadisticas-ejecucion", ExecutionStats)
    app.add_post_transform(ExecutionStatsTransform)
    app.connect("env-updated", _update)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
