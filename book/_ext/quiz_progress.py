"""El progreso de las preguntas en la portada (``_assets/js/progreso-curso.js``).

La página con ``<div id="rn-progreso-curso">`` recibe en ``<script
id="rn-quiz-manifest">`` las preguntas de cada capítulo (``resnorm.quiz.bank``) con
su título y su enlace; el JavaScript las cruza con lo guardado en este navegador.
"""

from __future__ import annotations

import json

from docutils import nodes

PLACEHOLDER = '<div id="rn-progreso-curso"></div>'


def manifest(app, pagename: str) -> dict:
    from resnorm.quiz import STORAGE_KEY, bank

    questions, chapters = bank.manifest(), []
    for key in bank.chapters():
        docs = [d for d in app.env.found_docs
                if d.startswith("notebooks/") and d.endswith(bank.doc_suffix(key))]
        if len(docs) == 1:  # si no, un capítulo que este libro no incluye
            href = app.builder.get_relative_uri(pagename, docs[0])
            chapters.append({"key": key, "title": bank.title(key), "href": href,
                             "questions": questions[key]})
    return {"storage_key": STORAGE_KEY, "chapters": chapters}


def _inject(app, pagename, templatename, context, doctree) -> None:
    if doctree is None or not any(
            PLACEHOLDER in raw.astext() for raw in doctree.findall(nodes.raw)):
        return
    data = json.dumps(manifest(app, pagename), ensure_ascii=False)
    app.add_js_file(None, type="application/json", id="rn-quiz-manifest",
                    body=data.replace("</", "<\\/"))
    app.add_js_file("js/progreso-curso.js", type="module", loading_method="defer")
    app.add_css_file("css/progreso-curso.css")


def setup(app):
    app.connect("html-page-context", _inject)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
