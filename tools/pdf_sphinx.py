"""El PDF del curso en Sphinx: la página única que se imprime y el enlace de la portada.

Dos cosas, con la misma configuración del libro (se registra en ``_config.yml``):

* **La página única** (el constructor ``singlehtml`` con dos arreglos,
  ``OnePageBuilder``; lo usa ``tools/pdf.py``): myst-nb pone el estado de
  los widgets de cada notebook solo en la página de ese notebook, y en la página
  única solo está la de la portada, que no tiene widgets. Aquí se juntan
  en esa página los estados de todos los capítulos (los identificadores de los
  modelos son únicos) y se cargan los scripts de los widgets y de la impresión: el
  PDF imprime el primer fotograma de cada widget y las respuestas de las preguntas.
* **El enlace de la portada** (``book/intro.md``, el bloque con la clase
  ``rn-enlace-pdf``): solo si el PDF está construido (``make pdf``). Entonces se copia
  a la raíz del sitio y la portada lo enlaza; si no, el bloque se quita al leer la
  portada: nunca un enlace roto. Si el PDF aparece o desaparece, la portada se vuelve
  a leer. En el propio PDF, el enlace no sale.
"""

from __future__ import annotations

import json
import posixpath
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.builders.singlehtml import SingleFileHTMLBuilder
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: El PDF que escribe «make pdf» (relativo a la raíz del libro) y su nombre en el sitio.
PDF = "_build/pdf/residual-y-layernorm.pdf"
LINK_CLASS = "rn-enlace-pdf"
ROOT_DOC = "book/intro"
META = "curso-pdf-enlazado"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
#: El constructor de la página única (``sphinx-build -b singlehtml``): el de Sphinx,
#: con los dos arreglos de ``OnePageBuilder``.
BUILDER = "singlehtml"


def pdf_path(app) -> Path:
    return Path(app.srcdir) / app.config.curso_pdf


def _pdf_wanted(app) -> bool:
    """¿Enlaza la portada el PDF? Solo en el sitio (no en el PDF) y si existe."""
    return app.builder.name != BUILDER and pdf_path(app).is_file()


def _drop_link(app, doctree) -> None:
    env = app.env
    if env.docname != ROOT_DOC:
        return
    wanted = _pdf_wanted(app)
    # En los metadatos del documento: Sphinx los junta también al leer en paralelo.
    env.metadata[env.docname][META] = wanted
    if wanted:
        return
    for node in list(doctree.findall(nodes.raw)):
        if LINK_CLASS in node.astext():
            node.parent.remove(node)


def _reread_root(app, env, added, changed, removed) -> list[str]:
    """La portada se vuelve a leer si el PDF apareció o desapareció desde entonces."""
    if ROOT_DOC not in env.found_docs:
        return []
    before = env.metadata.get(ROOT_DOC, {}).get(META)
    # (Sin el dato, se lee una vez para anotarlo.)
    return [ROOT_DOC] if before != _pdf_wanted(app) else []


def _copy_pdf(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    source = pdf_path(app)
    target = Path(app.outdir) / source.name
    if not _pdf_wanted(app):
        if app.builder.name != BUILDER:
            target.unlink(missing_ok=True)  # el de una construcción anterior
        return
    if not target.exists() or target.read_bytes() != source.read_bytes():
        shutil.copyfile(source, target)


def merged_widget_state(states: list[dict]) -> dict:
    """Un solo estado de widgets con los modelos de todos los ``states``."""
    merged: dict[str, Any] = {"version_major": 2, "version_minor": 0, "state": {}}
    for state in states:
        for key in ("version_major", "version_minor"):
            merged[key] = state.get(key, merged[key])
        merged["state"].update(state.get("state") or {})
    return merged


def _all_widgets_in_one_page(app, pagename, templatename, context, doctree) -> None:
    if app.builder.name != BUILDER or pagename != app.config.root_doc:
        return
    from myst_nb.sphinx_ import NbMetadataCollector

    env = app.env
    states, scripts = [], {}
    for docname in sorted(env.found_docs):
        try:
            files = NbMetadataCollector.get_js_files(env, docname)
        except KeyError:
            continue
        for key, (uri, kwargs) in files.items():
            if kwargs.get("type") == WIDGET_STATE and kwargs.get("body"):
                states.append(json.loads(kwargs["body"]))
            elif uri and key.startswith("ipywidgets_"):
                scripts[uri] = kwargs
    if not states:
        return
    body = json.dumps(merged_widget_state(states), ensure_ascii=False)
    app.add_js_file(None, type=WIDGET_STATE, body=body.replace("</", "<\\/"))
    for uri, kwargs in scripts.items():
        app.add_js_file(uri, **kwargs)


class OnePageBuilder(SingleFileHTMLBuilder):
    """``singlehtml`` con la página en la raíz de la salida y sus anclas locales.

    ``singlehtml`` escribe la página con el nombre del documento raíz
    (``book/intro.html``) pero calcula sus rutas como si estuviera en la raíz: las
    hojas, los scripts y las imágenes no se encontraban, y cada referencia cruzada
    apuntaba a ``book/intro.html#…`` (otra página para el navegador: en el PDF, un
    enlace a una dirección, no a su página). Aquí la página va en la raíz
    (``intro.html``) y cada referencia es solo su ancla. Conserva el nombre
    ``singlehtml``: el traductor HTML de Sphinx numera secciones, figuras y ecuaciones
    de la página única solo con ese nombre."""

    name = BUILDER

    def get_output_path(self, page_name: str, /) -> Path:
        # Sphinx ≥ 8 escribe cada página en get_output_path (get_outfilename queda
        # solo por compatibilidad y ya no se llama al escribir).
        return Path(self.outdir) / (posixpath.basename(page_name) + self.out_suffix)

    def get_outfilename(self, pagename: str) -> str:
        return str(self.get_output_path(pagename))

    def fix_refuris(self, tree) -> None:
        for refnode in tree.findall(nodes.reference):
            refuri = refnode.get("refuri", "")
            second = refuri.find("#", refuri.find("#") + 1) if "#" in refuri else -1
            if second >= 0:
                refnode["refuri"] = refuri[second:]


def _html_handlers_in_one_page(app) -> None:
    """Cada nodo que una extensión sabe escribir en HTML, también en la página única.

    Sphinx busca cómo escribir cada nodo por el nombre del constructor, y solo si no
    hay ninguno registrado para ese nombre usa los del formato (``html``).
    sphinx-exercise registra los suyos también para ``singlehtml``; myst-nb (el
    código plegado) y sphinx-design (los desplegables) los registran solo para
    ``html``, y la página única no se podía escribir. Se completan los de
    ``singlehtml`` con los de ``html`` (el registro de Sphinx es el único sitio que
    los lista; no se cambia ninguno que ya estuviera)."""
    if app.builder.name != BUILDER:
        return
    handlers = app.registry.translation_handlers
    single = handlers.setdefault(BUILDER, {})
    for name, pair in handlers.get("html", {}).items():
        single.setdefault(name, pair)


def setup(app) -> dict[str, Any]:
    app.add_builder(OnePageBuilder, override=True)
    app.connect("builder-inited", _html_handlers_in_one_page)
    app.add_config_value("curso_pdf", PDF, "env")
    app.connect("doctree-read", _drop_link, priority=100)
    app.connect("env-get-outdated", _reread_root)
    app.connect("html-page-context", _all_widgets_in_one_page)
    app.connect("build-finished", _copy_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
