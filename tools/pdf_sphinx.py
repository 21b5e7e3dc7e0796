"""El PDF del curso en Sphinx: la página única (``singlehtml``) que imprime
``tools/pdf.py``, con su portada e índice (``book/_templates/layout.html``), y el enlace
de la portada del sitio (``book/intro.md``), solo si el PDF existe: nunca uno roto."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from docutils import nodes

PDF = Path("_build/pdf/residual-y-layernorm.pdf")
ROOT_DOC = "book/intro"
SINGLE = "singlehtml"
STATE = "application/vnd.jupyter.widget-state+json"


def _copy_pdf(app, exception) -> None:
    """El PDF, en la raíz del sitio; si ya no existe, el sitio tampoco lo sirve."""
    source, target = Path(app.srcdir) / PDF, Path(app.outdir) / PDF.name
    if exception is None and app.builder.name == "html":
        target.unlink(missing_ok=True)
        if source.is_file():
            shutil.copyfile(source, target)


def anchor_only(app, doctree, docname) -> None:
    """En la página única, una referencia a otro capítulo es solo su ancla: sale con
    dos (``#document-x#y``, sphinx-doc/sphinx#14221) y Chromium no la enlaza."""
    for ref in doctree.findall(nodes.reference):
        uri = ref.get("refuri", "")
        if uri.startswith("#") and "#" in uri[1:]:
            ref["refuri"] = "#" + uri.rsplit("#", 1)[1]


def merged_widget_state(states: list[dict]) -> dict:
    """Un solo estado de widgets con los modelos de todos los ``states``."""
    models = {key: model for state in states for key, model in state["state"].items()}
    return {"version_major": 2, "version_minor": 0, "state": models}


def _one_page(app, pagename, templatename, context, doctree) -> None:
    """Los widgets de todos los capítulos en la página única (myst-nb solo le pone el
    estado de los de la portada)."""
    if app.builder.name != SINGLE or pagename != app.config.root_doc:
        return
    from myst_nb.sphinx_ import NbMetadataCollector

    states = [json.loads(attrs["body"]) for doc in sorted(app.env.found_docs)
              for _, attrs in NbMetadataCollector.get_js_files(app.env, doc).values()
              if attrs.get("type") == STATE]
    body = json.dumps(merged_widget_state(states), ensure_ascii=False)
    app.add_js_file(None, type=STATE, body=body.replace("</", "<\\/"))
    for uri, kwargs in app.config.nb_ipywidgets_js.items():
        app.add_js_file(uri, **kwargs)


def setup(app) -> dict:
    # Las etiquetas cuentan en la huella de la construcción (.buildinfo): cuando el PDF
    # aparece o desaparece, Sphinx vuelve a escribir las páginas, sin releerlas.
    if (Path(app.srcdir) / PDF).is_file():
        app.tags.add("pdf")
    # Sphinx usa los visitantes del formato (``html``) solo si el constructor no tiene
    # ninguno, y sphinx-exercise registra para ``singlehtml`` los suyos (los mismos que
    # para ``html``): sin ellos, la página única usa todos los de ``html``.
    app.connect("builder-inited",
                lambda app: app.registry.translation_handlers.pop(SINGLE, None))
    app.connect("doctree-resolved", anchor_only)
    app.connect("html-page-context", _one_page)
    app.connect("build-finished", _copy_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
