"""La página «Estadísticas de ejecución» (``book/estadisticas.md``), en español.

La directiva ``estadisticas-ejecucion`` es ``nb-exec-table`` de myst-nb, que escribe
la tabla con cabeceras en inglés, sin total y con ✅/❌ (emojis que las fuentes del PDF
no tienen) y sin opción para cambiarlo: aquí se escribe antes, en español. Detrás va
lo que cuenta el tiempo de lectura de cada capítulo (``tiempo_lectura``): las cifras de
la construcción, fuera del texto del lector. La página es para quien mantiene el curso:
queda fuera de la búsqueda (``nosearch``, los metadatos que lee Sphinx al indexar).
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


COUNT_HEADERS = ("Capítulo", "Leer (min)", "Con ejercicios (min)", "Lo contado")


def make_count_table(parent: str, counted) -> nodes.table:
    """Lo que cuenta el tiempo de lectura de cada capítulo: ``counted`` es
    ``[(docname, Contenido)]`` (``tiempo_lectura.capitulos_contados``)."""
    from tiempo_lectura import detalle, minutos

    rows = []
    for docname, c in counted:
        target = posixpath.relpath(docname, posixpath.dirname(parent))
        ref = pending_xref("", nodes.inline(text=docname), refdoc=parent,
                           refdomain="std", reftype="doc", reftarget=target,
                           refexplicit=False)
        rows.append(_row(nodes.paragraph("", "", ref), str(minutos(c, False)),
                         str(minutos(c)) if c.ejercicios else "—", detalle(c)))
    group = nodes.tgroup("", *(nodes.colspec(colwidth=20) for _ in COUNT_HEADERS),
                         nodes.thead("", _row(*COUNT_HEADERS)), nodes.tbody("", *rows),
                         cols=len(COUNT_HEADERS))
    return nodes.table("", group, classes=["colwidths-auto", "tiempo-contado"])


class ExecutionStatsTransform(SphinxPostTransform):
    default_priority = 7  # antes que la de myst-nb (8)

    def run(self, **kwargs) -> None:
        from tiempo_lectura import capitulos_contados

        metadata = NbMetadataCollector.get_doc_data(self.env)
        for node in list(self.document.findall(ExecutionStatsNode)):
            node.replace_self([
                make_table(self.env.docname, metadata),
                nodes.rubric(text="Lo que cuenta el tiempo de lectura"),
                nodes.paragraph("", "", nodes.Text(
                    "Las cifras de cada capítulo con las que se calcula el tiempo que "
                    "da su página ("),
                    nodes.literal(text="book/_ext/tiempo_lectura.py"),
                    nodes.Text(").")),
                make_count_table(self.env.docname, capitulos_contados(self.env))])


def out_of_search(app, doctree) -> None:
    """doctree-read: la página con la tabla no entra en el índice de búsqueda."""
    if any(doctree.findall(ExecutionStatsNode)):
        app.env.metadata[app.env.docname]["nosearch"] = True


def setup(app) -> dict[str, Any]:
    app.add_directive("estadisticas-ejecucion", ExecutionStatsTable)
    app.add_post_transform(ExecutionStatsTransform)
    app.connect("doctree-read", out_of_search)
    # 2: el marcador es ya el nodo de myst-nb; los árboles guardados se leen de nuevo.
    return {"env_version": 4, "parallel_read_safe": True, "parallel_write_safe": True}
