"""La interfaz del sitio en español: un solo mecanismo, los catálogos de gettext.

Los textos de la interfaz están en ``book/_ext/locale/es/LC_MESSAGES/*.po``, uno por
dominio de gettext (``sphinx``: Sphinx y pydata-sphinx-theme; ``booktheme``:
sphinx-book-theme; ``exercise``: sphinx-exercise). ``conf.py`` los nombra en
``locale_dirs`` y:

- ``sphinx.po`` lo compila y lo carga Sphinx mismo, delante de los del tema;
- los demás dominios los registra esta extensión con ``app.add_message_catalog``,
  compilados con la misma herramienta de Sphinx (``CatalogInfo.write_mo``). Por eso
  va la primera en ``extensions``: el primer catálogo registrado de un dominio manda
  y el del tema queda de respaldo para lo que el nuestro no traduce.

Los textos que las plantillas del tema escriben en inglés sin gettext se traducen
con plantillas propias (``book/_templates/``). Los que el JavaScript de Sphinx escribe
(la búsqueda) salen del mismo ``sphinx.po``. Quedan dos textos que ningún catálogo ni
plantilla alcanza, cada uno con su porqué: el resumen de las celdas plegadas de
myst-nb (aquí, ``visit_hidden_cell``) y la etiqueta del botón de sphinx-togglebutton
(``_assets/js/interfaz-es.js``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LOCALE_DIR = Path(__file__).resolve().parent / "locale"


def _register_catalogs(app) -> None:
    """Compila (si cambió) y registra cada catálogo propio que no es ``sphinx``."""
    from sphinx.util.i18n import CatalogRepository

    config = app.config
    repo = CatalogRepository(
        app.srcdir, config.locale_dirs, config.language, config.source_encoding
    )
    for catalog in repo.catalogs:
        if catalog.domain == "sphinx":
            continue  # Sphinx lo compila y lo carga antes de cargar las extensiones
        if catalog.is_outdated():
            catalog.write_mo(config.language)
        # base_dir es <locale_dir>/<idioma>/LC_MESSAGES
        app.add_message_catalog(catalog.domain, Path(catalog.base_dir).parents[1])


def _js_messages(language: str) -> dict[str, str | list[str]]:
    """Los mensajes del catálogo ``sphinx`` para ``Documentation.addTranslations``: un
    mensaje con plural, con la forma singular como clave y la lista de sus formas
    (``Documentation.ngettext`` elige con ``plural_expr``)."""
    po = LOCALE_DIR / language / "LC_MESSAGES" / "sphinx.po"
    if not po.exists():
        return {}
    from babel.messages.pofile import read_po

    with po.open("rb") as handle:
        catalog = read_po(handle)
    messages: dict[str, str | list[str]] = {}
    for m in catalog:
        if not m.id or not m.string:
            continue
        if isinstance(m.id, tuple):
            messages[m.id[0]] = list(m.string)
        else:
            messages[m.id] = m.string
    return messages


def _register_js_translations(app, config) -> None:
    """Los textos que escribe el JavaScript de Sphinx (búsqueda) también en español.

    Sphinx solo copia el ``sphinx.js`` de su propio paquete (no lo genera del ``.po``
    del proyecto): nuestros mensajes se añaden después, con su API
    ``Documentation.addTranslations``.
    """
    messages = _js_messages(config.language or "en")
    if messages:
        body = "Documentation.addTranslations(%s);" % json.dumps(
            {
                "locale": config.language,
                "messages": messages,
                "plural_expr": "n == 1 ? 0 : 1",  # español: singular solo para 1
            },
            ensure_ascii=False,
            sort_keys=True,
        )
        # Después de translations.js (prioridad 500), que carga las de Sphinx.
        app.add_js_file(None, body=body, priority=510)


# myst-nb 1.4 escribe el resumen de las celdas plegadas (hide-input, hide-output,
# hide-cell) con aria-label="Toggle hidden content" fija y el tipo en inglés («Show
# code cell source»): nb_code_prompt_show solo cambia la frase alrededor de {type}, y
# ningún catálogo llega ahí. Este visitante es el suyo con los textos en español y sin
# aria-label (el resumen ya tiene texto visible: otra etiqueta lo taparía).
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
    app.connect("config-inited", _register_js_translations)
    app.connect("config-inited", _register_cell_summary)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
