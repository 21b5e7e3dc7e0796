"""El sitio construido tiene una página por cada entrada de ``_toc.yml``.

Lo que se mira en Chromium (sin red externa, sin errores de consola, fórmulas
dibujadas, búsqueda en español) está en ``test_site_quality.py`` y
``test_site_view.py``: cada página se carga una vez en cada ancho.
"""

from __future__ import annotations

import re
from pathlib import Path

import sphinx
from bs4 import BeautifulSoup, NavigableString, Tag

from tests.helpers import built_soup, html_pages, toc_files


def test_site_has_the_pages_of_the_toc(built_site):
    missing = [f for f in toc_files() if not (built_site / f"{f}.html").exists()]
    assert not missing, f"Faltan páginas: {missing}"


# --- La interfaz, en español en cada página ------------------------------------------

# Los textos en inglés que escriben los temas y las extensiones: los de sus catálogos
# (lo que pasa por gettext), los que sus plantillas escriben tal cual en un atributo y
# los que escriben desde Python o JavaScript sin catálogo.
THEME_CATALOGS = (
    "pydata_sphinx_theme/locale/sphinx.pot",
    "sphinx_book_theme/theme/sphinx_book_theme/static/locales/es/LC_MESSAGES/"
    "booktheme.po",
    "sphinx_exercise/translations/locales/es/LC_MESSAGES/exercise.po",
    "sphinx_togglebutton/translations/locales/es/LC_MESSAGES/togglebutton.po",
)
THEME_TEMPLATES = ("pydata_sphinx_theme/theme", "sphinx_book_theme/theme")
# Los paquetes que traducen desde Python (sus catálogos en español no están completos).
THEME_CODE = ("sphinx_book_theme", "sphinx_exercise", "sphinx_togglebutton")
GETTEXT_CALL = re.compile(
    r"""\b(?:translation|translate|_)\(\s*["']([^"']+)["']\s*\)"""
)
HARD_CODED = (
    "Toggle hidden content",  # myst-nb (resumen) y sphinx-togglebutton (botón)
    "Show code cell", "Hide code cell",  # myst-nb: nb_code_prompt_show / _hide
    "Run code", "Launching from",  # sphinx-thebe
)
# Lo que se escribe igual en los dos idiomas.
SAME_IN_SPANISH = {"Ctrl", "PDF", "Binder", "Colab", "JupyterHub", "GitHub", "Error"}
LITERAL_ATTRIBUTE = re.compile(
    r'\b(?:title|aria-label|alt|placeholder|data-bs-title)="([^"{}]*[A-Za-z][^"{}]*)"'
)
UI_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder", "data-bs-title",
                 "data-toggle-hint")
# Código, fórmulas, citas en otro idioma y la cursiva (la prosa cita en inglés lo que
# se ve en otros programas) no son interfaz.
NOT_INTERFACE = ("script", "style", "pre", "code", "kbd", "samp", "em", "cite")


def english_interface_strings() -> set[str]:
    """Cada texto en inglés de la interfaz de los temas y las extensiones instalados."""
    from babel.messages.pofile import read_po

    site = Path(sphinx.__file__).resolve().parents[1]
    strings = set(HARD_CODED)
    for name in THEME_CATALOGS:
        with (site / name).open("rb") as handle:
            for message in read_po(handle):
                ids = message.id if isinstance(message.id, tuple) else (message.id,)
                strings.update(i for i in ids if i)
    for folder in THEME_TEMPLATES:
        for template in (site / folder).rglob("*.html"):
            strings.update(LITERAL_ATTRIBUTE.findall(template.read_text("utf-8")))
    for package in THEME_CODE:
        for module in (site / package).rglob("*.py"):
            strings.update(GETTEXT_CALL.findall(module.read_text("utf-8")))
    return {s for s in strings if "%" not in s and "{" not in s} - SAME_IN_SPANISH


def english_in_page(soup: Tag, strings: set[str]) -> list[str]:
    """Los textos de la página (atributos de interfaz y texto) que son, o empiezan por,
    uno de ``strings``: fuera de ``NOT_INTERFACE`` y de lo marcado en otro idioma
    (``lang``: un título de la bibliografía)."""
    attributes, texts = [], []

    def check(found: list, where: str, value: str) -> None:
        value = " ".join(value.split())
        # El texto entero o lo que hay antes de cada espacio: como comparar con cada
        # texto de ``strings`` (``value == s or value.startswith(s + " ")``), sin
        # recorrer sus miles de textos por cada nodo de la página.
        starts = {value[:i] for i, c in enumerate(value) if c == " "}
        if value in strings or not starts.isdisjoint(strings):
            found.append(f"{where}: {value!r}")

    # Un recorrido del árbol que lleva el idioma de los antepasados: buscar los
    # antepasados de cada nodo con bs4 (find_parent) hacía la prueba 10 veces más lenta.
    def walk(el: Tag, inherited: str | None) -> None:
        if el.name in NOT_INTERFACE:
            return
        for name in UI_ATTRIBUTES:
            if el.get(name):
                check(attributes, f"{el.name}@{name}", el[name])
        lang = el["lang"] if el.get("lang") else inherited  # el de sus textos
        foreign = lang is not None and not lang.startswith("es")
        below = el["lang"] if el.has_attr("lang") else inherited
        for child in el.children:
            if isinstance(child, Tag):
                walk(child, below)
            elif isinstance(child, NavigableString) and not foreign and child.strip():
                check(texts, el.name, str(child))

    walk(soup, None)
    return attributes + texts


def test_english_interface_strings_are_found():
    strings = english_interface_strings()
    assert {"Toggle primary sidebar", "Color mode", "previous page",
            "Solution to", "Launch on"} <= strings, sorted(strings)
    page = ('<nav aria-label="Main"><p>Solution to <a>Ejercicio 1</a></p>'
            '<button title="Launch on Binder"></button><code>Search</code>'
            '<em>Search</em><p>Buscar</p><p lang="en">Search</p></nav>')
    assert english_in_page(BeautifulSoup(page, "html.parser"), strings) == [
        "nav@aria-label: 'Main'", "button@title: 'Launch on Binder'",
        "p: 'Solution to'"]


def test_no_page_shows_an_english_interface_string(built_site):
    strings = english_interface_strings()
    found = {}
    for rel in html_pages(built_site):
        html = (built_site / rel).read_text(encoding="utf-8")
        if "<html" not in html[:500]:
            continue
        if hits := english_in_page(built_soup(rel), strings):
            found[rel] = hits
    assert not found, (
        "Textos de la interfaz en inglés. Si pasan por gettext, tradúcelos en "
        "book/_ext/locale/es/LC_MESSAGES/; si no, con un componente propio en "
        f"book/_templates/components/: {found}"
    )


# --- Los ajustes de página, por los ganchos de Sphinx --------------------------------


def test_a_folded_cell_summary_says_what_it_hides_in_spanish():
    from docutils import nodes
    from myst_nb.sphinx_ import HideCodeCellNode

    import interfaz_es

    def folded(*kinds):
        node = HideCodeCellNode(prompt_show="Show code cell x", prompt_hide="x")
        node["classes"].append("above-input")
        node.extend(nodes.container(nb_element=kind) for kind in kinds)
        return node

    class Writer:
        body: list[str] = []

    writer = Writer()
    interfaz_es.visit_hidden_cell(writer, folded("cell_code_source"))
    html = "".join(writer.body)
    assert '<details class="admonition hide above-input">' in html
    assert "<summary>\n" in html and "aria-label" not in html  # su texto es su nombre
    assert ">Mostrar el código<" in html and ">Ocultar el código<" in html
    output = interfaz_es.cell_prompts(folded("cell_code_output"))
    assert output == ("Mostrar la salida", "Ocultar la salida")
    both = folded("cell_code_source", "cell_code_output")
    assert interfaz_es.cell_prompts(both) == interfaz_es.WHOLE_CELL


def test_thebe_settings_point_to_the_site_copy_and_the_binder_hub():
    from curso_sitio import thebe_settings

    body = thebe_settings("../_static/vendor/thebe/index.js", "https://mybinder.org/",
                          {"selector": ".cell", "selector_input": "pre",
                           "selector_output": ".cell_output"})
    assert body.startswith('const THEBE_JS_URL = "../_static/vendor/thebe/index.js"; ')
    assert 'const thebe_selector_input = "pre"' in body
    assert body.endswith('window.CURSO_BINDER_URL = "https://mybinder.org"')


def test_solutions_citations_and_logos_are_fixed_by_the_build(built_site):
    soup = built_soup("notebooks/04_layernorm.html")
    titles = soup.select("div.solution > p.admonition-title")
    assert titles and all(t.find("a") is None for t in titles), titles[:2]
    assert titles[0].get_text().startswith("Solución del Ejercicio 4.1")
    logos = soup.select(".dropdown-launch-buttons img")
    assert logos and all(img["alt"] == "" for img in logos), logos
    assert all(i.get("aria-hidden") == "true"
               for i in soup.select(".article-header-buttons i"))
    references = (built_site / "book" / "referencias.html").read_text("utf-8")
    assert "doc-biblioentry" not in references
    assert 'class="citation" id="id2" role="listitem"' in references


def test_the_head_loads_no_fontawesome_and_the_search_page_no_search_buttons(
        built_site):
    chapter = (built_site / "notebooks" / "04_layernorm.html").read_text("utf-8")
    assert "fontawesome.js" not in chapter and "search-button__button" in chapter
    search = (built_site / "search.html").read_text("utf-8")
    assert "search-button__button" not in search and "searchindex.js" in search
