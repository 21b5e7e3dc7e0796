"""Lo que el sitio ajusta con los ganchos de Sphinx, donde ninguna opción de Sphinx,
del tema o de sus extensiones lo hace (cada función dice por qué): soluciones,
bibliografía, Thebe local, búsqueda con y sin tildes, fuentes de iconos recortadas,
destinos de lanzamiento, descripción de cada página, índice y números de figura.
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from importlib.metadata import version
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.search.es import SearchSpanish
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.writers.html5 import HTML5Translator

_HERE = Path(__file__).resolve().parent
LOCALE_DIR = _HERE / "locale"
THEBE_JS = "_static/vendor/thebe/index.js"  # la copia de Thebe 0.9.3 (Makefile)


class UnlinkSolutionTitles(SphinxPostTransform):
    """«Solución del Ejercicio 4.1» sin enlace: al pulsarlo se abre la solución."""

    default_priority = 22  # después de ResolveTitlesInSolutions de sphinx-exercise
    formats = ("html",)

    def run(self, **kwargs) -> None:
        from sphinx_exercise.nodes import solution_node

        for solution in self.document.findall(solution_node):
            if solution.children and isinstance(solution[0], nodes.title):
                for link in list(solution[0].findall(nodes.reference)):
                    link.replace_self(link.children)


def visit_citation(self, node) -> None:
    """Cada referencia con ``role="listitem"``: docutils pone ``doc-biblioentry``
    dentro de ``role="list"`` (axe: aria-required-children) y no tiene opción."""
    if not isinstance(node.previous_sibling(), type(node)):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(
        self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def thebe_settings(thebe_url: str, binder_url: str, selectors: dict) -> str:
    """El script en línea que configura Thebe y ``_assets/js/codigo-en-vivo.js``."""
    lines = [f"const THEBE_JS_URL = {json.dumps(thebe_url)}"]
    lines += [f"const thebe_{key} = {json.dumps(selectors.get(key, ''))}"
              for key in ("selector", "selector_input", "selector_output")]
    lines.append(f"window.CURSO_BINDER_URL = {json.dumps(binder_url.rstrip('/'))}")
    return "; ".join(lines)


def _thebe_script(app, pagename, templatename, context, doctree) -> None:
    """sphinx-thebe 0.3.1 pide Thebe a unpkg.com (sin opción) y, si
    ``env-before-read-docs`` ocurre dos veces, declara dos ``const``: uno, local."""
    scripts = context.get("script_files", [])
    theirs = [s for s in scripts
              if str(s.attributes.get("body", "")).startswith("const THEBE_JS_URL")]
    if theirs:
        scripts[:] = [s for s in scripts if s not in theirs]
        launch = app.config.html_theme_options.get("launch_buttons") or {}
        body = thebe_settings(context["pathto"](THEBE_JS, 1),
                              str(launch.get("binderhub_url") or ""),
                              app.config.thebe_config)
        app.add_js_file(None, priority=theirs[0].priority, body=body)


def strip_accents(text: str) -> str:
    """Quita tildes y diéresis (``á → a``, ``ü → u``); la ``ñ`` se queda."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", re.sub("[\u0301\u0308]", "", decomposed))


_UNSTEMMED = "\ue000"  # marca interna: «indexa esta palabra tal cual, sin raíz»
#: Cada letra griega del curso por su nombre (y la grafía de PyTorch, ``alpha``).
GREEK_NAMES = {
    "α": "alfa alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "épsilon",
    "ϵ": "épsilon", "λ": "lambda", "μ": "mu", "σ": "sigma", "Σ": "sigma",
}


class SpanishSearch(SearchSpanish):
    """Buscador español que encuentra «geometría» también escrita sin tilde.

    Snowball quita las tildes de la raíz, pero sin tilde la palabra a veces da otra
    raíz (``geometría → geometr``, ``geometria → geometri``; igual en Python y en el
    JavaScript de Sphinx): de cada palabra con tilde se indexa además la palabra
    entera sin tildes, que la búsqueda parcial de Sphinx encuentra. Una letra
    griega suelta se indexa también por su nombre.
    """

    def split(self, input: str) -> list[str]:  # noqa: A002 - firma de la clase base
        words = super().split(input)
        extra = [_UNSTEMMED + strip_accents(w) for w in words if strip_accents(w) != w]
        names = [GREEK_NAMES[w[0]] for w in words
                 if w[0] in GREEK_NAMES and not any(c.isalpha() for c in w[1:])]
        return words + extra + " ".join(names).split()

    def stem(self, word: str) -> str:
        if word.startswith(_UNSTEMMED):
            return word[1:].lower()
        return super().stem(word)


# Las fuentes de «Font Awesome» del tema, recortadas (_static/iconos/, con su hoja
# _assets/iconos/iconos.css) en lugar de fontawesome.js (≈ 540 KB) o de las fuentes
# enteras (≈ 300 KB): archivo del tema → (familia, peso).
ICON_FONTS = {
    "fa-solid-900": ("Font Awesome 6 Free", 900),
    "fa-regular-400": ("Font Awesome 6 Free", 400),
    "fa-brands-400": ("Font Awesome 6 Brands", 400),
}
ICONS_DIR = "iconos"  # dentro de _static
_PUA = re.compile(r"\\([ef][0-9a-f]{3})(?![0-9a-f])|([\ue000-\uf8ff])", re.I)


def used_icon_codepoints(static: Path) -> set[int]:
    """Los iconos que nombra el CSS del sitio, ya recortado por PurgeCSS (tema_ligero)
    a las reglas ``.fa-x:before`` de las clases que usan las páginas y el JavaScript."""
    used = set()
    for path in static.rglob("*.css"):
        rel = path.relative_to(static).as_posix()
        if not rel.startswith(("vendor/", ICONS_DIR)):
            css = path.read_text(encoding="utf-8", errors="replace")
            used |= {int(code, 16) if code else ord(c) for code, c in _PUA.findall(css)}
    return used


def _subset_font(source: Path, target: Path, codepoints: set[int]) -> list[int]:
    """Sin recalcular ``head.modified``: los mismos bytes en cada construcción."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(source, recalcTimestamp=False)
    subsetter = subset.Subsetter(subset.Options(layout_features=[]))
    subsetter.populate(unicodes=codepoints)
    subsetter.subset(font)
    font.flavor = "woff"  # woff2 ahorraría poco con tan pocos glifos
    font.save(target)
    return sorted(font.getBestCmap())


def theme_font(webfonts: Path, name: str) -> Path:
    """La fuente del tema: .ttf (pydata-sphinx-theme 0.16) o .woff2 (≥ 0.17)."""
    for suffix in (".ttf", ".woff2", ".woff"):
        if (webfonts / f"{name}{suffix}").exists():
            return webfonts / f"{name}{suffix}"
    raise ExtensionError(
        f"pydata-sphinx-theme {version('pydata-sphinx-theme')} no trae la fuente de "
        f"iconos {name} (.ttf, .woff2 ni .woff) en {webfonts}. Si subiste el tema, "
        "cambia la ruta o ICON_FONTS en book/_ext/curso_sitio.py; si no, `make deps` "
        "vuelve a la versión fijada en requirements.txt.")


def _write_icon_fonts(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        static = Path(app.outdir) / "_static"
        webfonts = static / "vendor" / "fontawesome" / "webfonts"
        codepoints = used_icon_codepoints(static)
        (static / ICONS_DIR).mkdir(exist_ok=True)
        for name in ICON_FONTS:
            target = static / ICONS_DIR / f"{name}.woff"
            _subset_font(theme_font(webfonts, name), target, codepoints)


_NOT_PROSE = (nodes.Admonition, nodes.container, nodes.table, nodes.list_item,
              nodes.footnote, nodes.citation, nodes.definition_list)


#: Los párrafos que pone tiempo_lectura.py: no dicen de qué trata la página.
_NOT_DESCRIPTION = {"tiempo-lectura", "tiempo-camino"}


def _prose(node):
    for child in node.children:
        if isinstance(child, nodes.paragraph):
            if not _NOT_DESCRIPTION & set(child["classes"]):
                yield child
        elif isinstance(child, nodes.Element) and not isinstance(child, _NOT_PROSE):
            yield from _prose(child)


def page_description(doctree) -> str:
    """El primer párrafo de prosa sin fórmulas (fuera de recuadros, celdas y listas)
    de 60 caracteres o más, recortado a 160: lo que muestran los buscadores."""
    for para in _prose(doctree):
        text = " ".join(para.astext().split())
        if len(text) >= 60 and para.next_node(nodes.math) is None:
            if len(text) > 160:
                text = text[:159].rsplit(" ", 1)[0].rstrip(",;:") + "…"
            return text
    return ""


def _add_description(app, pagename, templatename, context, doctree) -> None:
    """La escriben layout.html y redireccion.html; las páginas que genera Sphinx
    (búsqueda, índice) la traen en su plantilla."""
    if pagename == "index" and doctree is None:  # book/_templates/redireccion.html
        doctree = app.env.get_doctree(app.config.root_doc)
    if doctree:
        context["descripcion"] = page_description(doctree)


def group_index_letters(entries: list) -> list:
    """El índice alfabético con las letras griegas en «Símbolos», delante: «Β Γ Ε»
    parecen latinas y se mezclaban con «B … E» en la barra de letras."""
    latin = [(key, group) for key, group in entries
             if unicodedata.name(key[:1] or " ", "").startswith("LATIN")]
    symbols = [item for key, group in entries if (key, group) not in latin
               for item in group]
    if not symbols:
        return entries
    symbols.sort(key=lambda item: strip_accents(item[0]).lower())
    return [("Símbolos", symbols), *latin]


def _group_genindex(app, pagename, templatename, context, doctree) -> None:
    if pagename == "genindex" and context.get("genindexentries"):
        context["genindexentries"] = group_index_letters(context["genindexentries"])


_LAUNCH_URLS = ("binderhub_url", "colab_url", "jupyterhub_url", "deepnote_url")


def configure_launch_targets(options: dict) -> dict:
    """Las opciones del tema sin los destinos vacíos de ``_config.yml``.

    Sin ``binderhub_url`` no hay Binder ni Thebe; sin ``repository.url`` no queda
    ningún botón, porque todos abren el repositorio.
    """
    options = dict(options)
    launch = {key: value for key, value in (options.get("launch_buttons") or {}).items()
              if key not in _LAUNCH_URLS or str(value or "").strip()}
    if not launch.get("binderhub_url"):
        launch.pop("thebe", None)
    if not str(options.get("repository_url") or "").strip():
        launch = {}
        for button in ("use_repository_button", "use_issues_button",
                       "use_edit_page_button", "use_source_button"):
            options[button] = False
    options["launch_buttons"] = launch
    return options


def _config_inited(app, config) -> None:
    config.html_theme_options = configure_launch_targets(config.html_theme_options)


#: En el entorno: los números que Sphinx dio a las figuras que se renumeran (para
#: devolvérselos antes de que vuelva a contar) y los que quedaron (los de la página).
_SPHINX_FIGURES = "curso_figuras_de_sphinx"
_OUR_FIGURES = "curso_figuras_renumeradas"


def _give_back_sphinx_numbers(app, env) -> list[str]:
    """Antes de que Sphinx vuelva a numerar (su colector, prioridad 500): cada página
    renumerada recupera los números que él le dio. Sphinx reescribe las páginas cuyos
    números cambian desde la construcción anterior; si viera los renumerados,
    reescribiría el apéndice en cada construcción, aunque nada cambiara."""
    for docname, figures in getattr(env, _SPHINX_FIGURES, {}).items():
        if docname in env.toc_fignumbers:
            env.toc_fignumbers[docname]["figure"] = dict(figures)
    return []


def _renumber_unnumbered_figures(app, env) -> list[str]:
    """Cada página sin número de capítulo cuenta sus figuras desde 1, con el prefijo de
    ``curso_prefijo_figuras`` («Figura A.1»); Sphinx las cuenta todas seguidas."""
    changed = set()
    sphinx_numbers, ours = {}, getattr(env, _OUR_FIGURES, {})
    for docname, by_type in env.toc_fignumbers.items():
        if env.toc_secnumbers.get(docname) or not by_type.get("figure"):
            continue
        figures = by_type["figure"]
        sphinx_numbers[docname] = dict(figures)
        prefix = app.config.curso_prefijo_figuras.get(docname)
        ordered = sorted(figures, key=figures.get)
        for k, figure_id in enumerate(ordered, start=1):
            figures[figure_id] = (prefix, k) if prefix else (k,)
        if figures != ours.get(docname):
            changed.add(docname)
    setattr(env, _SPHINX_FIGURES, sphinx_numbers)
    setattr(env, _OUR_FIGURES, {d: dict(env.toc_fignumbers[d]["figure"])
                                for d in sphinx_numbers})
    return sorted(changed)


def setup(app) -> dict[str, Any]:
    # accessible-pygments llama a logging.basicConfig(level=INFO) al importarse: sin
    # esto, cada recorte de fuentes (aquí y en math_katex) escribe cientos de líneas.
    logging.getLogger("fontTools").setLevel(logging.WARNING)
    app.add_search_language(SpanishSearch)
    app.add_config_value("curso_prefijo_figuras", {}, "env")
    # Después de que Sphinx numere (su colector escucha con prioridad 500).
    app.connect("env-get-updated", _give_back_sphinx_numbers, priority=100)
    app.connect("env-get-updated", _renumber_unnumbered_figures, priority=900)
    app.connect("config-inited", _config_inited)
    app.add_post_transform(UnlinkSolutionTitles)
    app.add_node(nodes.citation, override=True,
                 html=(visit_citation, HTML5Translator.depart_citation))
    app.connect("html-page-context", _thebe_script, priority=900)
    app.connect("html-page-context", _add_description, priority=920)
    app.connect("html-page-context", _group_genindex, priority=920)
    # Después de PurgeCSS (tema_ligero, prioridad 950): lee las hojas recortadas.
    app.connect("build-finished", _write_icon_fonts, priority=960)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
