"""Extensión de Sphinx del curso: ajustes del sitio que pertenecen a la construcción.

Vive con el libro, no en ``resnorm`` (la biblioteca del curso no depende de Sphinx):
``conf.py`` la carga (en ``extensions``) desde ``book/_ext/``. Hace
siete cosas:

1. **Ajustes de la página por los ganchos de Sphinx**: los títulos de las soluciones
   sin enlace (al pulsarlos se abre la solución; una transformación del árbol), las
   referencias de la bibliografía como elementos de lista (el visitante de
   ``citation``) y la configuración de Thebe de cada página (``html-page-context``).
   La interfaz en español es ``interfaz_es.py`` (catálogos de gettext) más las
   plantillas de ``book/_templates/``.
2. **Búsqueda en español con y sin tildes** (``SpanishSearch``): el índice guarda la
   raíz sin tildes de cada palabra y, para las palabras con tilde, también la palabra
   entera sin tildes; el navegador quita las tildes de la raíz de la consulta.
3. **Iconos ligeros.** En lugar de ``fontawesome.js`` (unos 540 KB comprimido: todos
   los iconos) el sitio usa las fuentes de «Font Awesome» que trae el tema, recortadas a
   los iconos que aparecen en el sitio (``_static/iconos/``).
4. **Resúmenes legibles en la página de búsqueda** (``_assets/js/busqueda.js``).
5. Copia los estáticos propios que cambien.
6. **Destinos de lanzamiento** (``configure_launch_targets``): un destino vacío en
   ``_config.yml`` no se muestra; el código en vivo (Thebe) sale de la copia del sitio
   (``_static/vendor/thebe/``, nunca de un CDN) y usa el mismo BinderHub que el botón
   de Binder (``_assets/js/codigo-en-vivo.js`` da los mensajes, en español).
7. **Descripción de cada página** (``<meta name="description">``, del primer párrafo de
   prosa) y el índice alfabético sin letras griegas entre las latinas.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.search.es import SearchSpanish
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.writers.html5 import HTML5Translator
from sphinx.util import logging

logger = logging.getLogger(__name__)

_HERE = Path(__file__).resolve().parent
LOCALE_DIR = _HERE / "locale"



def _source_hash() -> str:
    """Huella del código de las extensiones del libro y de sus catálogos.

    Es un valor de configuración (``resnorm_site_version``): cuando cambia algo de
    ``book/_ext/`` que afecta al HTML o al índice de búsqueda, Sphinx vuelve a escribir
    todas las páginas (sin volver a ejecutar los notebooks). Nadie tiene que acordarse
    de subir un número a mano.
    """
    import hashlib

    digest = hashlib.sha256()
    files = sorted(_HERE.glob("*.py")) + sorted(LOCALE_DIR.rglob("*.po"))
    for path in files:
        digest.update(path.relative_to(_HERE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


SITE_VERSION = _source_hash()


# --------------------------------------------------------------------------------------
# 1. Ajustes de la página por los ganchos de Sphinx (la interfaz en español:
#    interfaz_es.py y las plantillas de book/_templates/)
# --------------------------------------------------------------------------------------


class UnlinkSolutionTitles(SphinxPostTransform):
    """El título de cada solución, sin enlace.

    sphinx-exercise titula cada solución «Solución del <a>Ejercicio 4.1</a>»: el
    enlace ocupa casi todo el título desplegable y, al pulsarlo, lleva al enunciado en
    vez de abrir la solución. El título queda como texto (el enunciado está justo
    encima). Después de ``ResolveTitlesInSolutions`` (prioridad 21), que lo escribe.
    """

    default_priority = 22
    formats = ("html",)

    def run(self, **kwargs) -> None:
        from sphinx_exercise.nodes import solution_node

        for solution in self.document.findall(solution_node):
            title = solution.children[0] if solution.children else None
            if isinstance(title, nodes.title):
                for link in list(title.findall(nodes.reference)):
                    link.replace_self(link.children)


def visit_citation(self, node) -> None:
    """Como el de docutils, con ``role="listitem"`` en cada referencia.

    docutils pone ``role="doc-biblioentry"`` (rol obsoleto) dentro de un
    ``role="list"``: para los lectores de pantalla no es una lista válida (axe:
    aria-required-children, crítico). Ninguna opción de docutils ni de
    sphinxcontrib-bibtex lo cambia.
    """
    if not isinstance(node.previous_sibling(), type(node)):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(
        self.starttag(node, "div", classes=[node.tagname], role="listitem")
    )


def thebe_settings(thebe_url: str, binder_url: str, selectors: dict) -> str:
    """El script de configuración de Thebe de una página (ver ``_thebe_script``)."""
    values = {
        "THEBE_JS_URL": thebe_url,
        "thebe_selector": selectors.get("selector", ""),
        "thebe_selector_input": selectors.get("selector_input", ""),
        "thebe_selector_output": selectors.get("selector_output", ""),
    }
    lines = [f"const {name} = {json.dumps(value)}" for name, value in values.items()]
    lines.append(f"window.CURSO_BINDER_URL = {json.dumps(binder_url.rstrip('/'))}")
    return "; ".join(lines)


def _thebe_script(app, pagename, templatename, context, doctree) -> None:
    """La configuración de Thebe de la página: la copia del sitio y el BinderHub.

    sphinx-thebe 0.3.1 registra en línea ``const THEBE_JS_URL`` con Thebe en unpkg.com
    (sin opción para cambiarlo) y, si ``env-before-read-docs`` ocurre dos veces, lo
    registra dos veces (dos ``const``: error de consola). Aquí sus copias se cambian
    por una con la ruta de ``_static/vendor/thebe/`` relativa a la página y el
    BinderHub del botón de Binder, que lee ``_assets/js/codigo-en-vivo.js``.
    """
    scripts = context.get("script_files")
    if not scripts:
        return
    from sphinx.builders.html._assets import _JavaScript

    theirs = [
        i for i, script in enumerate(scripts)
        if str(getattr(script, "attributes", {}).get("body", "")).startswith(
            "const THEBE_JS_URL"
        )
    ]
    if not theirs:
        return
    launch = app.config.html_theme_options.get("launch_buttons") or {}
    body = thebe_settings(
        context["pathto"](THEBE_JS, 1),
        str(launch.get("binderhub_url") or ""),
        app.config.thebe_config,
    )
    first = scripts[theirs[0]]
    kept = [s for i, s in enumerate(scripts) if i not in theirs]
    kept.insert(theirs[0], _JavaScript(None, priority=first.priority, body=body))
    context["script_files"] = kept


# --------------------------------------------------------------------------------------
# 2. Búsqueda en español con y sin tildes
# --------------------------------------------------------------------------------------


def strip_accents(text: str) -> str:
    """Quita tildes y diéresis (``á → a``, ``ü → u``); la ``ñ`` se queda."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", re.sub("[\u0301\u0308]", "", decomposed))


_UNSTEMMED = "\ue000"  # marca interna: «indexa esta palabra tal cual, sin raíz»

_JS_STEMMER = """
/* curso_sitio: la raíz se compara sin tildes, igual que en el índice. */
var SpanishStemmerNoAccents = function () {
  var base = new SpanishStemmer();
  this.stemWord = function (word) {
    // Sin tilde, «-cion» no es el sufijo «-ción» de Snowball: «normalizacion» daría
    // otra raíz que «normalización» (y otros resultados).
    var accented = word.replace(/([cs])ion$/, "$1ión");
    return base.stemWord(accented).normalize("NFD").replace(/[\\u0301\\u0308]/g, "")
      .normalize("NFC");
  };
};
Stemmer = SpanishStemmerNoAccents;
"""


#: El nombre de cada letra griega del curso, para el índice de búsqueda (con la
#: grafía inglesa de PyTorch cuando es otra: ``alpha``, ``epsilon``).
GREEK_NAMES = {
    "α": "alfa alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "épsilon",
    "ϵ": "épsilon", "λ": "lambda", "μ": "mu", "σ": "sigma", "Σ": "sigma",
}


class SpanishSearch(SearchSpanish):
    """Buscador español que encuentra «normalización» también escrita sin tilde.

    El índice se construye en Python (``snowballstemmer`` 3) y la consulta se procesa
    en el navegador con el algoritmo de raíces en JavaScript que trae Sphinx («Snowball»
    2.1). Con tildes, los dos dan la misma raíz (``normalización → normaliz``); sin
    tildes no (``normalizacion`` da ``normaliz`` en Python y ``normalizacion`` en
    JavaScript). Así que el índice guarda, además de la raíz sin tildes, la palabra
    entera sin tildes de cada palabra que las tenía; la búsqueda parcial de Sphinx
    (términos que contienen la raíz de la consulta) la encuentra.
    """

    js_stemmer_rawcode = None  # todo el JavaScript va en js_stemmer_code

    @property
    def js_stemmer_code(self) -> str:  # type: ignore[override]
        import sphinx

        folder = Path(sphinx.__file__).parent / "search" / "minified-js"
        base = (folder / "base-stemmer.js").read_text(encoding="utf-8")
        spanish = (folder / "spanish-stemmer.js").read_text(encoding="utf-8")
        return f"{base}\n{spanish}\n{_JS_STEMMER}"

    def split(self, input: str) -> list[str]:  # noqa: A002 - firma de la clase base
        words = super().split(input)
        extra = [_UNSTEMMED + strip_accents(w) for w in words if strip_accents(w) != w]
        # Una letra griega suelta (γ, β₁) se indexa también por su nombre: «gamma»
        # encuentra el capítulo titulado «γ y β».
        names = [GREEK_NAMES[w[0]] for w in words
                 if w[0] in GREEK_NAMES and not any(c.isalpha() for c in w[1:])]
        return words + extra + [n for name in names for n in name.split()]

    def stem(self, word: str) -> str:
        if word.startswith(_UNSTEMMED):
            return word[1:].lower()
        return strip_accents(super().stem(word))


# --------------------------------------------------------------------------------------
# 3. Iconos: fuentes de Font Awesome recortadas a los iconos del sitio
# --------------------------------------------------------------------------------------

ICON_FONTS = {
    # archivo del tema → (familia, peso)
    "fa-solid-900": ("Font Awesome 6 Free", 900),
    "fa-regular-400": ("Font Awesome 6 Free", 400),
    "fa-brands-400": ("Font Awesome 6 Brands", 400),
}
ICONS_DIR = "iconos"  # dentro de _static
ICONS_CSS = f"{ICONS_DIR}/iconos.css"

_FA_CLASS_RULE = re.compile(
    r'((?:\.fa-[a-z0-9-]+:{1,2}before,?)+)\{content:"\\([0-9a-fA-F]{4,5})"\}'
)
_FA_CLASS_NAME = re.compile(r"\.(fa-[a-z0-9-]+):")
_PUA = re.compile(r"\\([ef][0-9a-fA-F]{3})(?![0-9a-fA-F])|([\ue000-\uf8ff])")
_CLASS_ATTR = re.compile(r'class="([^"]*)"')
_FA_TOKEN = re.compile(r"\bfa-[a-z0-9-]+")


def _icon_codepoints(css_by_name: dict[str, str]) -> tuple[dict[str, int], set[int]]:
    """Lee el CSS del sitio: (clase de icono → código) y códigos que usa el propio CSS.

    El CSS del tema incluye el de «Font Awesome» con una regla
    ``.fa-x:before{content:…}`` por icono (miles): esas dan el diccionario. Lo demás
    (``--pst-icon-*``, los ``:after`` de las advertencias, el ``\\f107`` de
    ``sphinx-book-theme``…) son iconos que el CSS pinta siempre.
    """
    classes: dict[str, int] = {}
    used: set[int] = set()
    for css in css_by_name.values():
        for match in _FA_CLASS_RULE.finditer(css):
            code = int(match.group(2), 16)
            for name in _FA_CLASS_NAME.findall(match.group(1)):
                classes[name] = code
        rest = _FA_CLASS_RULE.sub("", css)
        for escaped, literal in _PUA.findall(rest):
            used.add(int(escaped, 16) if escaped else ord(literal))
    return classes, used


def _icon_classes_in(outdir: Path) -> set[str]:
    """Clases ``fa-*`` que aparecen en el HTML del sitio y en el JS del tema."""
    found: set[str] = set()
    for page in outdir.rglob("*.html"):
        text = page.read_text(encoding="utf-8", errors="replace")
        for classes in _CLASS_ATTR.findall(text):
            found.update(_FA_TOKEN.findall(classes))
    static = outdir / "_static"
    for script in static.rglob("*.js"):
        rel = script.relative_to(static).as_posix()
        if rel.startswith("vendor/") or rel == "scripts/fontawesome.js":
            continue  # fontawesome.js los nombra todos; vendor/ son los widgets
        found.update(
            _FA_TOKEN.findall(script.read_text(encoding="utf-8", errors="replace"))
        )
    return found


def used_icon_codepoints(outdir: Path) -> set[int]:
    """Todos los códigos de icono que el sitio construido puede pintar."""
    static = outdir / "_static"
    css = {
        p.relative_to(static).as_posix(): p.read_text(
            encoding="utf-8", errors="replace"
        )
        for p in static.rglob("*.css")
        if not p.relative_to(static).as_posix().startswith((f"{ICONS_DIR}/", "vendor/"))
    }
    classes, used = _icon_codepoints(css)
    for name in _icon_classes_in(outdir):
        if name in classes:
            used.add(classes[name])
    return used


def _subset_font(source: Path, target: Path, codepoints: set[int]) -> list[int]:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    # recalcTimestamp=False: la fuente guarda la fecha de la original, no la de hoy;
    # si no, cada construcción en frío escribiría otros bytes (head.modified).
    font = TTFont(str(source), recalcTimestamp=False)
    keep = sorted(cp for cp in codepoints if cp in font.getBestCmap())
    options = subset.Options()
    options.flavor = "woff"  # woff2 necesitaría brotli; con tan pocos glifos da igual
    options.layout_features = []
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=keep)
    subsetter.subset(font)
    font.flavor = "woff"
    font.save(str(target))
    return keep


_ICONS_CSS_TEMPLATE = """\
/* Generado por curso_sitio (book/_ext): las fuentes de iconos del tema, recortadas a
   los iconos que usa el sitio ({count} glifos). Sustituyen a fontawesome.js.
   códigos: {codes} */
{faces}
/* Si una página carga @jupyter-widgets/html-manager, su CSS de «Font Awesome» 5
   reclama .fa/.fas/.fab para sus propias fuentes: los iconos siguen con estas. */
.fa,.fa-solid,.fas{{
  font-family:"Font Awesome 6 Free"!important;font-weight:900!important}}
.fa-regular,.far{{
  font-family:"Font Awesome 6 Free"!important;font-weight:400!important}}
.fa-brands,.fab{{
  font-family:"Font Awesome 6 Brands"!important;font-weight:400!important}}
"""


def theme_font(webfonts: Path, name: str) -> Path:
    """La fuente ``name`` del tema en ``webfonts``: .ttf (pydata-sphinx-theme 0.16) o
    .woff2 (0.17 y siguientes); si no está, un error que dice qué hacer."""
    for suffix in (".ttf", ".woff2", ".woff"):
        if (webfonts / f"{name}{suffix}").exists():
            return webfonts / f"{name}{suffix}"
    from importlib.metadata import version

    from sphinx.errors import ExtensionError

    raise ExtensionError(
        f"pydata-sphinx-theme {version('pydata-sphinx-theme')} no trae la fuente de "
        f"iconos {name} (.ttf, .woff2 ni .woff) en {webfonts}: "
        "book/_ext/curso_sitio.py recorta esas fuentes para los iconos de la "
        "cabecera. Si subiste el tema, busca dónde las trae ahora y cambia la ruta "
        "o ICON_FONTS en ese archivo; si no, `make deps` vuelve a la versión fijada "
        "en requirements.txt."
    )


def _write_icon_fonts(app, exception) -> None:
    """Escribe ``_static/iconos/``: las fuentes recortadas y su CSS."""
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    webfonts = outdir / "_static" / "vendor" / "fontawesome" / "webfonts"
    sources = {name: theme_font(webfonts, name) for name in ICON_FONTS}
    codepoints = used_icon_codepoints(outdir)
    codes = " ".join(f"{cp:x}" for cp in sorted(codepoints))
    target = outdir / "_static" / ICONS_DIR
    css_path = outdir / "_static" / ICONS_CSS
    fonts = [target / f"{name}.woff" for name in ICON_FONTS]
    if (
        css_path.exists()
        and all(font.exists() for font in fonts)
        and f"códigos: {codes} */" in css_path.read_text("utf-8")
    ):
        return  # nada nuevo: no se recortan otra vez
    target.mkdir(parents=True, exist_ok=True)
    faces = []
    for name, (family, weight) in ICON_FONTS.items():
        _subset_font(sources[name], target / f"{name}.woff", codepoints)
        faces.append(
            f'@font-face{{font-family:"{family}";font-style:normal;'
            f"font-weight:{weight};"
            f'font-display:block;src:url({name}.woff) format("woff")}}'
        )
    css_path.write_text(
        _ICONS_CSS_TEMPLATE.format(
            count=len(codepoints), codes=codes, faces="\n".join(faces)
        ),
        encoding="utf-8",
    )


# --------------------------------------------------------------------------------------
# 5. Resúmenes de la búsqueda y estáticos propios
# --------------------------------------------------------------------------------------


def _search_summaries(app, pagename, templatename, context, doctree) -> None:
    """En la página de búsqueda, resúmenes legibles (``_assets/js/busqueda.js``)."""
    if pagename != "search" or "script_files" not in context:
        return
    from sphinx.builders.html._assets import _JavaScript

    context["script_files"] = [
        *context["script_files"],
        _JavaScript("_static/js/busqueda.js", priority=950),
    ]


def _sync_static_files(app, exception) -> None:
    """Copia los estáticos propios (``html_static_path``) que hayan cambiado.

    Cuando ninguna página está desactualizada, Sphinx 7.4 termina sin su fase final y no
    copia ``_static``: un cambio solo en ``_assets/css/curso.css`` no llegaría al sitio.
    """
    if exception is not None or app.builder.format != "html":
        return
    import filecmp
    import shutil

    target_root = Path(app.outdir) / "_static"
    for entry in app.config.html_static_path:
        source_root = Path(app.confdir) / entry
        if not source_root.is_dir():
            continue
        for source in source_root.rglob("*"):
            rel = source.relative_to(source_root)
            if not source.is_file() or any(part.startswith(".") for part in rel.parts):
                continue
            target = target_root / rel
            if not target.exists() or not filecmp.cmp(source, target, shallow=False):
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)


# --------------------------------------------------------------------------------------
# 7. Descripción de cada página e índice alfabético
# --------------------------------------------------------------------------------------

DESCRIPTION_LENGTH = 160
# Páginas que Sphinx genera sin documento fuente.
GENERATED_DESCRIPTIONS = {
    "genindex": "Índice alfabético de los términos del curso «Residual y LayerNorm»: "
    "conexión residual, normalización de capa, γ y β, Post-LN y Pre-LN.",
    "search": "Busca en el curso «Residual y LayerNorm» (Paso 7 del curso de "
    "Transformers), con o sin tildes.",
}
_TEX_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε",
    "varepsilon": "ε", "mu": "μ", "sigma": "σ", "lambda": "λ", "theta": "θ",
    "odot": "⊙", "cdot": "·", "times": "×", "approx": "≈", "sqrt": "√", "sum": "Σ",
    "le": "≤", "ge": "≥", "to": "→", "ell": "ℓ",
}


def read_tex(tex: str) -> str:
    """Una fórmula corta en TeX, escrita para leerla en texto plano (``\\mu`` → μ)."""
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _TEX_SYMBOLS.get(m.group(1), ""), tex)
    text = text.replace("^2", "²").replace("^{2}", "²")
    text = re.sub(r"[{}_^$\\]", "", text)
    return " ".join(text.split())


def _plain_text(node) -> str:
    parts = []
    for child in node.findall(lambda n: isinstance(n, (nodes.Text, nodes.math))):
        if isinstance(child, nodes.math):
            parts.append(read_tex(child.astext()))
        elif not any(isinstance(a, nodes.math) for a in _ancestors(child)):
            parts.append(child.astext())
    return " ".join("".join(parts).split())


def _ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


def page_description(doctree) -> str:
    """El primer párrafo de prosa de la página (fuera de recuadros y celdas), recortado.

    Es la ``<meta name="description">`` que muestran los buscadores.
    """
    if doctree is None:
        return ""
    skip = (nodes.Admonition, nodes.container, nodes.table, nodes.list_item,
            nodes.footnote, nodes.citation, nodes.definition_list)
    for para in doctree.findall(nodes.paragraph):
        if any(isinstance(a, skip) for a in _ancestors(para)):
            continue
        text = _plain_text(para)
        if len(text) < 60:
            continue
        if len(text) > DESCRIPTION_LENGTH:
            cut = text[: DESCRIPTION_LENGTH - 1].rsplit(" ", 1)[0].rstrip(",;:")
            text = cut + "…"
        return text
    return ""


def _add_description(app, pagename, templatename, context, doctree) -> None:
    from html import escape

    text = page_description(doctree) or GENERATED_DESCRIPTIONS.get(pagename, "")
    if not text:
        title = re.sub(r"<[^>]+>", "", context.get("title") or "")
        text = f"{title} — {app.config.html_title}" if title else ""
    if text:
        tag = f'<meta name="description" content="{escape(text, quote=True)}" />\n'
        context["metatags"] = context.get("metatags", "") + tag


_REDIRECT = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8" />
<title>{title}</title>
<meta name="description" content="{description}" />
<meta http-equiv="Refresh" content="0; url={target}" />
<link rel="canonical" href="{target}" />{icon}
</head>
<body><p><a href="{target}">{title}</a></p></body>
</html>
"""


def _write_root_redirect(app, exception) -> None:
    """``index.html``: la redirección a la portada, con idioma, título y descripción.

    sphinx-external-toc escribe solo ``<meta http-equiv="Refresh">``.
    """
    if exception is not None or app.builder.format != "html":
        return
    from html import escape

    target = app.builder.get_target_uri(app.config.root_doc)
    try:
        description = page_description(app.env.get_doctree(app.config.root_doc))
    except Exception:  # noqa: BLE001 - sin portada legible, el título basta
        description = ""
    description = description or str(app.config.html_title)
    # Sin su icono, el navegador pide /favicon.ico (un 404 en la consola) si la
    # redirección tarda un instante en saltar.
    favicon = str(app.config.html_favicon or "")
    icon = ""
    if favicon and "://" not in favicon:
        icon = f'\n<link rel="icon" href="_static/{escape(Path(favicon).name)}" />'
    text = _REDIRECT.format(
        icon=icon,
        lang=app.config.language or "es",
        title=escape(str(app.config.html_title)),
        description=escape(description, quote=True),
        target=escape(target, quote=True),
    )
    index = Path(app.outdir) / "index.html"
    if app.config.root_doc != "index" and (
        not index.exists() or index.read_text(encoding="utf-8") != text
    ):
        index.write_text(text, encoding="utf-8")


SYMBOLS_GROUP = "Símbolos"


def _is_latin(letter: str) -> bool:
    return bool(letter) and unicodedata.name(letter[0], "").startswith("LATIN")


def group_index_letters(entries: list) -> list:
    """El índice alfabético con las letras griegas (γ, β, ε…) en «Símbolos».

    Sphinx abre una sección por cada inicial, así que la barra de letras mezclaba
    «Β Γ Ε» (griegas, que parecen latinas) con «B … E». En el curso son símbolos de
    fórmulas: van juntos, delante, como los demás símbolos.
    """
    latin, symbols = [], []
    for key, group in entries:
        (latin if _is_latin(key) else symbols).append((key, group))
    if not symbols:
        return entries
    merged = sorted(
        (item for _, group in symbols for item in group),
        key=lambda item: strip_accents(item[0]).lower(),
    )
    return [(SYMBOLS_GROUP, merged), *latin]


def _group_genindex(app, pagename, templatename, context, doctree) -> None:
    if pagename == "genindex" and context.get("genindexentries"):
        context["genindexentries"] = group_index_letters(context["genindexentries"])


# --------------------------------------------------------------------------------------
# 6. Destinos de lanzamiento y código en vivo
# --------------------------------------------------------------------------------------

THEBE_JS = "_static/vendor/thebe/index.js"  # la copia de Thebe 0.9.3 (Makefile)
_LAUNCH_URLS = ("binderhub_url", "colab_url", "jupyterhub_url", "deepnote_url")


def configure_launch_targets(options: dict) -> dict:
    """Las opciones del tema sin los destinos que no están configurados.

    Cada destino es un ajuste de ``_config.yml``: ``repository.url`` (el botón de
    GitHub y lo que abren todos los demás), ``launch_buttons.binderhub_url`` (Binder y
    el código en vivo), ``colab_url`` y ``jupyterhub_url``. Un ajuste vacío quita su
    botón; sin repositorio no queda ninguno, porque todos abren el repositorio.
    """
    options = dict(options)
    launch = {
        key: value
        for key, value in dict(options.get("launch_buttons") or {}).items()
        if key not in _LAUNCH_URLS or str(value or "").strip()
    }
    if not launch.get("binderhub_url"):
        launch.pop("thebe", None)  # Thebe arranca sus núcleos en ese BinderHub
    if not str(options.get("repository_url") or "").strip():
        launch = {}
        for button in ("use_repository_button", "use_issues_button",
                       "use_edit_page_button", "use_source_button"):
            options[button] = False
    options["launch_buttons"] = launch
    return options


# --------------------------------------------------------------------------------------


def _config_inited(app, config) -> None:
    config.html_theme_options = configure_launch_targets(config.html_theme_options)


def _renumber_unnumbered_figures(app, env) -> list[str]:
    """Numera las figuras de las páginas sin número de capítulo página a página.

    Sphinx cuenta las figuras de las páginas fuera de la numeración (la portada, los
    apéndices) con un solo contador para todas: la figura del apéndice saldría
    «Figura 2» porque la portada tiene la 1. Aquí cada una de esas páginas empieza en
    1, con el prefijo que le dé ``curso_prefijo_figuras`` («A» → «Figura A.1»). Los
    pies y las referencias ``{numref}`` leen los mismos números.
    """
    prefixes = app.config.curso_prefijo_figuras
    changed = []
    for docname, by_type in env.toc_fignumbers.items():
        if env.toc_secnumbers.get(docname):
            continue  # un capítulo numerado: «Figura N.M» ya es lo correcto
        figures = by_type.get("figure", {})
        prefix = prefixes.get(docname)
        ordered = sorted(figures.items(), key=lambda item: item[1])
        for k, (figure_id, _) in enumerate(ordered, start=1):
            number = (prefix, k) if prefix else (k,)
            if figures[figure_id] != number:
                figures[figure_id] = number
                changed.append(docname)
    return sorted(set(changed))


def setup(app) -> dict[str, Any]:
    import logging as stdlib_logging

    from sphinx.search import languages

    # accessible-pygments (lo importa pydata-sphinx-theme) llama a
    # logging.basicConfig(level=INFO) al importarse: desde entonces, los recortes de
    # fuentes (los iconos de aquí y las de KaTeX de math_katex) escribían ≈ 600 líneas
    # INFO de fontTools.subset entre los avisos de Sphinx. Una vez para todo el proceso;
    # sus avisos y errores sí salen.
    stdlib_logging.getLogger("fontTools").setLevel(stdlib_logging.WARNING)
    languages["es"] = SpanishSearch
    app.add_config_value("resnorm_site_version", SITE_VERSION, "html")
    app.add_config_value("curso_prefijo_figuras", {}, "env")
    # Después de que Sphinx numere (su colector de índices escucha con prioridad 500).
    app.connect("env-get-updated", _renumber_unnumbered_figures, priority=900)
    app.connect("config-inited", _config_inited)
    app.add_css_file(ICONS_CSS)
    app.add_js_file("js/interfaz-es.js", loading_method="defer", priority=900)
    app.add_js_file("js/codigo-en-vivo.js", loading_method="defer", priority=900)
    app.connect("html-page-context", _thebe_script, priority=900)
    app.add_post_transform(UnlinkSolutionTitles)
    app.add_node(nodes.citation, override=True,
                 html=(visit_citation, HTML5Translator.depart_citation))
    app.connect("html-page-context", _search_summaries, priority=910)
    app.connect("html-page-context", _add_description, priority=920)
    app.connect("html-page-context", _group_genindex, priority=920)
    app.connect("build-finished", _sync_static_files)
    app.connect("build-finished", _write_icon_fonts)
    app.connect("build-finished", _write_root_redirect, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


__all__ = [
    "SpanishSearch",
    "configure_launch_targets",
    "group_index_letters",
    "page_description",
    "UnlinkSolutionTitles",
    "thebe_settings",
    "strip_accents",
    "used_icon_codepoints",
]
