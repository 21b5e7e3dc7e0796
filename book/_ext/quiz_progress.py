"""El progreso de las preguntas en la portada: qué lleva contestado el estudiante.

En la página raíz, el marcador ``<div id="rn-progreso-curso">`` recibe la lista de
preguntas del curso (``resnorm.quiz.bank.manifest``: capítulo → {id: versión}) con el
título y el enlace de cada capítulo, en un ``<script id="rn-quiz-manifest">`` de la
página (``app.add_js_file``); ``_assets/js/progreso-curso.js`` la cruza con lo
guardado en este navegador. Nada sale del navegador.
"""

from __future__ import annotations

import json

from docutils import nodes

PLACEHOLDER = '<div id="rn-progreso-curso"></div>'


def _chapters(app, pagename):
    from resnorm.quiz import STORAGE_KEY, bank

    manifest = bank.manifest()
    docs = sorted(app.env.found_docs)
    rows = []
    for key in bank.chapters():
        matches = [
            d
            for d in docs
            if d.startswith("notebooks/") and d.endswith(bank.doc_suffix(key))
        ]
        if len(matches) != 1:
            continue  # un capítulo que este libro no incluye
        rows.append(
            {
                "key": key,
                "title": bank.title(key),
                "href": app.builder.get_relative_uri(pagename, matches[0]),
                "questions": manifest[key],
            }
        )
    return {"storage_key": STORAGE_KEY, "chapters": rows}


def _inject(app, pagename, templatename, context, doctree):
    if doctree is None or not any(
            PLACEHOLDER in raw.astext() for raw in doctree.findall(nodes.raw)):
        return
    data = json.dumps(_chapters(app, pagename), ensure_ascii=False)
    app.add_js_file(None, type="application/json", id="rn-quiz-manifest",
                    body=data.replace("</", "<\\/"))
    app.add_js_file("js/progreso-curso.js", loading_method="defer")
    app.add_css_file("css/progreso-curso.css")


def setup(app):
    app.connect("html-page-context", _inject)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
