"""El PDF del curso en Sphinx: la página única que imprime ``tools/pdf.py`` y el enlace.

En la página única (``singlehtml``), myst-nb solo pone el estado de los widgets de la
portada: aquí se juntan los de todos los capítulos. Las referencias a otro capítulo
salen con dos anclas (``#document-x#y``, sphinx-doc/sphinx#14221): se deja la última.
La portada (``book/intro.md``, clase ``rn-enlace-pdf``) enlaza el PDF solo en el sitio
y si existe (entonces se copia a su raíz): nunca un enlace roto.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes

PDF = Path("_build/pdf/residual-y-layernorm.pdf")
ROOT_DOC = "book/intro"
SINGLE = "singlehtml"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _pdf(app) -> Path | None:
    """El PDF que enlaza la portada: en el sitio (no en el propio PDF) y si existe."""
    path = Path(app.srcdir) / PDF
    return path if app.builder.name != SINGLE and path.is_file() else None


def _drop_link(app, doctree) -> None:
    if app.env.docname != ROOT_DOC:
        return
    # En los metadatos: Sphinx los junta también al leer en paralelo.
    app.env.metadata[ROOT_DOC]["curso-pdf"] = linked = _pdf(app) is not None
    if not linked:
        for node in list(doctree.findall(nodes.raw)):
            if "rn-enlace-pdf" in node.astext():
                node.parent.remove(node)


def _reread_root(app, env, added, changed, removed) -> list[str]:
    """La portada se vuelve a leer si el PDF apareció o desapareció desde entonces."""
    linked = env.metadata.get(ROOT_DOC, {}).get("curso-pdf")
    return [ROOT_DOC] if linked != (_pdf(app) is not None) else []


def _copy_pdf(app, exception) -> None:
    if exception is not None or app.builder.name != "html":
        return
    if source := _pdf(app):
        shutil.copyfile(source, Path(app.outdir) / PDF.name)
    else:
        (Path(app.outdir) / PDF.name).unlink(missing_ok=True)


def anchor_only(app, doctree, docname) -> None:
    """En la página única, una referencia a otro capítulo es solo su ancla."""
    if app.builder.name != SINGLE:
        return
    for ref in doctree.findall(nodes.reference):
        uri = ref.get("refuri", "")
        if uri.startswith("#") and "#" in uri[1:]:
            ref["refuri"] = "#" + uri.rsplit("#", 1)[1]


def merged_widget_state(states: list[dict]) -> dict:
    """Un solo estado de widgets con los modelos de todos los ``states``."""
    models = {}
    for state in states:
        models.update(state["state"])
    return {"version_major": 2, "version_minor": 0, "state": models}


def _all_widgets_in_one_page(app, pagename, templatename, context, doctree) -> None:
    if app.builder.name != SINGLE or pagename != app.config.root_doc:
        return
    from myst_nb.sphinx_ import NbMetadataCollector

    states, scripts = [], {}
    for docname in sorted(app.env.found_docs):
        try:
            files = NbMetadataCollector.get_js_files(app.env, docname)
        except KeyError:  # un documento sin notebook
            continue
        for key, (uri, kwargs) in files.items():
            if kwargs.get("type") == WIDGET_STATE and kwargs.get("body"):
                states.append(json.loads(kwargs["body"]))
            elif uri and key.startswith("ipywidgets_"):
                scripts[uri] = kwargs
    body = json.dumps(merged_widget_state(states), ensure_ascii=False)
    app.add_js_file(None, type=WIDGET_STATE, body=body.replace("</", "<\\/"))
    for uri, kwargs in scripts.items():
        app.add_js_file(uri, **kwargs)


def _html_handlers_in_one_page(app) -> None:
    """Sphinx escribe cada nodo con los visitantes del nombre del constructor, y solo si
    no hay ninguno, con los del formato: sphinx-exercise registra los suyos para
    ``singlehtml``, y myst-nb y sphinx-design, solo para ``html``."""
    single = app.registry.translation_handlers.setdefault(SINGLE, {})
    for name, pair in app.registry.translation_handlers.get("html", {}).items():
        single.setdefault(name, pair)


def setup(app) -> dict[str, Any]:
    app.connect("builder-inited", _html_handlers_in_one_page)
    app.connect("doctree-read", _drop_link, priority=100)
    app.connect("env-get-outdated", _reread_root)
    app.connect("doctree-resolved", anchor_only)
    app.connect("html-page-context", _all_widgets_in_one_page)
    app.connect("build-finished", _copy_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
