"""La interfaz del sitio en español: los catálogos de gettext de ``locale/es``.

``sphinx.po`` lo carga Sphinx (``locale_dirs``); los demás dominios se registran aquí,
primeros en ``extensions``: el primer catálogo de un dominio manda sobre el del tema.
Los textos de su JavaScript (la búsqueda) Sphinx los toma de un ``sphinx.js`` aparte:
para no llevar dos catálogos, los del ``.po`` se añaden con
``Documentation.addTranslations``. myst-nb escribe en inglés y
sin catálogo el resumen de las celdas plegadas: ``visit_hidden_cell`` lo reemplaza.
"""

from __future__ import annotations

import json
from typing import Any

from curso_sitio import LOCALE_DIR


def _register_catalogs(app) -> None:
    """Compila (si cambió) y registra cada catálogo propio salvo ``sphinx``."""
    from sphinx.util.i18n import CatalogInfo

    for po in (LOCALE_DIR / app.config.language / "LC_MESSAGES").glob("*.po"):
        if po.stem != "sphinx":  # Sphinx carga el suyo antes que las extensiones
            catalog = CatalogInfo(str(po.parent), po.stem, "utf-8")
            if catalog.is_outdated():
                catalog.write_mo(app.config.language)
            app.add_message_catalog(po.stem, LOCALE_DIR)


def _js_messages(language: str) -> dict[str, str | list[str]]:
    """Los mensajes de ``sphinx.po`` como los lee ``Documentation.gettext``."""
    from babel.messages.pofile import read_po

    po = LOCALE_DIR / language / "LC_MESSAGES" / "sphinx.po"
    if not po.exists():
        return {}
    with po.open("rb") as handle:
        catalog = read_po(handle)
    messages: dict[str, str | list[str]] = {}
    for m in catalog:
        if m.pluralizable:  # la forma singular como clave; la lista de formas
            messages[m.id[0]] = list(m.string)
        elif m.id and m.string:
            messages[m.id] = m.string
    return messages


def _register_js_translations(app) -> None:
    if messages := _js_messages(app.config.language):
        data = {"locale": app.config.language, "messages": messages,
                "plural_expr": "n == 1 ? 0 : 1"}  # en español, singular solo para 1
        body = json.dumps(data, ensure_ascii=False, sort_keys=True)
        # Después de translations.js (prioridad 500), el de Sphinx.
        app.add_js_file(None, body=f"Documentation.addTranslations({body});",
                        priority=510)


# myst-nb 1.4 escribe aria-label="Toggle hidden content" y el tipo en inglés («Show code
# cell source»); nb_code_prompt_show solo cambia la frase alrededor. Sin aria-label: el
# resumen ya tiene texto visible.
CELL_PROMPTS = {
    "cell_code_source": ("Mostrar el código", "Ocultar el código"),
    "cell_code_output": ("Mostrar la salida", "Ocultar la salida"),
}
WHOLE_CELL = ("Mostrar la celda de código", "Ocultar la celda de código")


def cell_prompts(node) -> tuple[str, str]:
    """(mostrar, ocultar) según lo que pliega el nodo: código, salida o ambos."""
    kinds = {child.get("nb_element") for child in node.children}
    return CELL_PROMPTS.get(kinds.pop(), WHOLE_CELL) if len(kinds) == 1 else WHOLE_CELL


def visit_hidden_cell(self, node) -> None:
    show, hide = cell_prompts(node)
    classes = " ".join(node["classes"])
    self.body.append(
        f'<details class="admonition hide {classes}">\n<summary>\n'
        f'<p class="collapsed admonition-title">{show}</p>\n'
        f'<p class="expanded admonition-title">{hide}</p>\n</summary>\n'
    )


def _register_cell_summary(app, config) -> None:
    # En config-inited: myst-nb registra su nodo en su setup, que va después de este.
    from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput

    app.add_node(
        HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_HideCellInput)
    )


def setup(app) -> dict[str, Any]:
    _register_catalogs(app)
    _register_js_translations(app)
    app.connect("config-inited", _register_cell_summary)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
