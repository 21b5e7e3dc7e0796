"""Extensión de Sphinx del curso: ajustes del sitio que pertenecen a la construcción.

Vive con el libro, no en ``resnorm`` (la biblioteca del curso no depende de Sphinx):
``conf.py`` la carga (en ``extensions``) desde ``book/_ext/``. Hace
siete cosas:

1. **Interfaz en español.** Los catálogos de ``book/_ext/locale/es/LC_MESSAGES/*.po``
   (uno por dominio de gettext: ``sphinx``, ``booktheme``, ``exercise``) se compilan en
   memoria al construir y pasan *delante* de los del tema, que quedan de respaldo. Los
   pocos textos que las plantillas del tema escriben en inglés sin pasar por gettext se
   traducen al generar cada página (``FIXED_TEXTS``).
2. **Búsqueda en español con y sin tildes** (``SpanishSearch``): el índice guarda la
   raíz sin tildes de cada palabra y, para las palabras con tilde, también la palabra
   entera sin tildes; el navegador quita las tildes de la raíz de la consulta.
3. **Iconos ligeros.** En lugar de ``fontawesome.js`` (unos 540 KB comprimido: todos
   los iconos) el sitio usa las fuentes de «Font Awesome» que trae el tema, recortadas a
   los iconos que aparecen en el sitio (``_static/iconos/``).
4. **El índice de búsqueda solo en la página de búsqueda** (las fórmulas las dibuja
   KaTeX al construir: ``book/_ext/math_katex.py``).
5. Quita scripts repetidos (``sphinx-thebe``) y copia los estáticos propios que cambien.
6. **Destinos de lanzamiento** (``configure_launch_targets``): un destino vacío en
   ``_config.yml`` no se muestra; el código en vivo (Thebe) sale de la copia del sitio
   (``_static/vendor/thebe/``, nunca de un CDN) y usa el mismo BinderHub que el botón
   de Binder (``_assets/js/codigo-en-vivo.js`` da los mensajes, en español).
7. **Descripción de cada página** (``<meta name="description">``, del primer párrafo de
   prosa), el índice alfabético sin letras griegas entre las latinas y los títulos de
   las soluciones sin enlace (al pulsarlos se abre la solución).
"""

from __future__ import annotations

import io
import json
import re
import unicodedata
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.jinja2glue import BuiltinTemplateLoader
from sphinx.search.es import SearchSpanish
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
# 1. Interfaz en español
# --------------------------------------------------------------------------------------


def _compile_po(path: Path):
    """Compila un ``.po`` en memoria y devuelve un ``gettext.GNUTranslations``."""
    import gettext

    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        catalog = read_po(handle)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def _install_catalogs(app, config) -> None:
    """Pone los catálogos del curso delante de los de Sphinx y del tema."""
    from sphinx import locale

    language = config.language or "en"
    folder = LOCALE_DIR / language / "LC_MESSAGES"
    if not folder.is_dir():
        return
    for po in sorted(folder.glob("*.po")):
        catalog = po.stem
        ours = _compile_po(po)
        previous = locale.translators.get(("general", catalog))
        if previous is not None:
            ours.add_fallback(previous)
        locale.translators[("general", catalog)] = ours
        if catalog == "sphinx":
            app.translator = ours  # el que usan las plantillas Jinja (``_()``)


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


def _register_js_translations(app) -> None:
    """Los textos que escribe el JavaScript de Sphinx (búsqueda) también en español."""
    messages = _js_messages(app.config.language or "en")
    if messages:
        body = "Documentation.addTranslations(%s);" % json.dumps(
            {
                "locale": app.config.language,
                "messages": messages,
                "plural_expr": "n == 1 ? 0 : 1",  # español: singular solo para 1
            },
            ensure_ascii=False,
            sort_keys=True,
        )
        # Después de translations.js (prioridad 500), que carga las de Sphinx.
        app.add_js_file(None, body=body, priority=510)


# Textos escritos en inglés directamente en las plantillas o en el HTML de myst-nb (no
# pasan por gettext). Cada clave es un fragmento exacto de HTML; si el tema cambia y el
# fragmento deja de aparecer, la prueba de la interfaz (tests/test_site_quality.py)
# encuentra el texto inglés nuevo.
FIXED_TEXTS: dict[str, str] = {
    'title="Toggle primary sidebar"': 'title="Mostrar u ocultar el índice del curso"',
    'aria-label="Toggle primary sidebar"': (
        'aria-label="Mostrar u ocultar el índice del curso"'
    ),
    'title="Toggle secondary sidebar"': (
        'title="Mostrar u ocultar el índice de la página"'
    ),
    'aria-label="Toggle secondary sidebar"': (
        'aria-label="Mostrar u ocultar el índice de la página"'
    ),
    'aria-label="Main"': 'aria-label="Capítulos del curso"',
    'aria-label="Page"': 'aria-label="Secciones de la página"',
    # myst-nb: celdas con hide-input / hide-output / hide-cell. El resumen ya tiene
    # texto visible: una aria-label distinta lo taparía para los lectores de pantalla.
    '<summary aria-label="Toggle hidden content">': "<summary>",
    ">Show code cell source<": ">Mostrar el código<",
    ">Hide code cell source<": ">Ocultar el código<",
    ">Show code cell output<": ">Mostrar la salida<",
    ">Hide code cell output<": ">Ocultar la salida<",
    ">Show code cell outputs<": ">Mostrar la salida<",
    ">Hide code cell outputs<": ">Ocultar la salida<",
    ">Show code cell content<": ">Mostrar la celda de código<",
    ">Hide code cell content<": ">Ocultar la celda de código<",
}

# El logotipo de Binder/Colab/JupyterHub va junto a su nombre: es decorativo.
_ALT_LOGO = re.compile(r'alt="[^"]*\s(?:logo|logotipo)"')
# El botón de búsqueda con texto visible («Buscar Ctrl+K») no necesita aria-label: si
# la tiene, el nombre accesible no contiene el texto visible (axe: label-content-name-
# mismatch). El botón que solo tiene el icono conserva la suya.
_SEARCH_FIELD_ARIA = re.compile(
    r'(<button class="btn search-button-field[^"]*"[^>]*?) aria-label="[^"]*"'
)
# Los iconos (<i class="fa-...">) son decorativos: el botón o enlace que los contiene ya
# tiene nombre.
_ICON_TAG = re.compile(r'<i class="([^"]*\bfa[a-z-]*\b[^"]*)"(?![^>]*aria-hidden)')
_ICON_TITLE = re.compile(r'(<i class="theme-switch[^"]*"[^>]*?)\s+title="[^"]*"')
_FONTAWESOME_JS = re.compile(
    r'\s*<script[^>]*src="[^"]*_static/scripts/fontawesome\.js[^"]*"[^>]*></script>'
)
_SEARCH_BUTTONS = re.compile(
    r'<button class="btn [^"]*\bsearch-button__button\b[^"]*"[^>]*>.*?</button>', re.S
)
_SEARCH_SCRIPTS = re.compile(
    r'\s*<script src="[^"]*(?:_static/searchtools\.js|_static/language_data\.js|'
    r'searchindex\.js)"></script>'
)


# sphinx-exercise titula cada solución «Solución del <a>Ejercicio 4.1</a>»: el enlace
# ocupa casi todo el título desplegable y, al pulsarlo, lleva al enunciado en vez de
# abrir la solución. El título queda como texto (el enunciado está justo encima).
_SOLUTION_TITLE = re.compile(
    r'(<div class="solution dropdown admonition"[^>]*>\s*<p class="admonition-title">)'
    r"(.*?)(</p>)",
    re.S,
)
_LINK_TAG = re.compile(r"</?a\b[^>]*>")
_THEBE_URL_JS = re.compile(r'const THEBE_JS_URL = "[^"]*"')
_THEBE_BINDER_OPTIONS = re.compile(r"binderOptions: \{")


def retouch_html(
    html: str, pagename: str, thebe_url: str = "", binder_url: str = ""
) -> str:
    """Ajustes finales del HTML de una página (ver el docstring del módulo)."""
    if thebe_url:
        binder = json.dumps(binder_url.rstrip("/"))
        html = _THEBE_URL_JS.sub(
            lambda _: f"const THEBE_JS_URL = {json.dumps(thebe_url)}; "
            f"window.CURSO_BINDER_URL = {binder}",
            html,
        )
        # Sin esto Thebe 0.9 pide MathJax 2 a cdnjs para sus salidas (las fórmulas
        # del sitio ya vienen dibujadas por KaTeX).
        html = html.replace(
            "requestKernel: true,",
            "requestKernel: true,\n        mathjaxUrl: false,",
            1,
        )
        if binder_url:
            html = _THEBE_BINDER_OPTIONS.sub(
                lambda m: f"{m.group(0)}\n        binderUrl: {binder},", html, count=1
            )
    for english, spanish in FIXED_TEXTS.items():
        html = html.replace(english, spanish)
    html = _SOLUTION_TITLE.sub(
        lambda m: m.group(1) + _LINK_TAG.sub("", m.group(2)) + m.group(3), html
    )
    html = _ALT_LOGO.sub('alt=""', html)
    html = _SEARCH_FIELD_ARIA.sub(r"\1", html)
    html = _ICON_TITLE.sub(r"\1", html)
    html = _ICON_TAG.sub(r'<i class="\1" aria-hidden="true"', html)
    # docutils: role="list" con hijos doc-biblioentry (rol obsoleto) no es una lista
    # válida para los lectores de pantalla (axe: aria-required-children, crítico).
    html = html.replace('role="doc-biblioentry"', 'role="listitem"')
    html = _FONTAWESOME_JS.sub("", html)
    if pagename == "search":
        # La página de búsqueda ya tiene su campo: sin los botones que abren otro.
        html = _SEARCH_BUTTONS.sub("", html)
    if pagename != "search":
        # pydata-sphinx-theme los carga en todas las páginas para la búsqueda mientras
        # se escribe, que este sitio no usa (search_as_you_type = False): el formulario
        # lleva a search.html, que sí los carga.
        html = _SEARCH_SCRIPTS.sub("", html)
    return html


class CourseTemplates(BuiltinTemplateLoader):
    """Las plantillas de siempre, con ``retouch_html`` aplicado a cada página."""

    def init(self, builder, theme=None, dirs=None) -> None:
        super().init(builder, theme, dirs)
        launch = builder.config.html_theme_options.get("launch_buttons") or {}
        self._binder_url = str(launch.get("binderhub_url") or "")

    def render(self, template: str, context: dict) -> str:
        html = super().render(template, context)
        if template.endswith(".html") and "pagename" in context:
            pathto = context.get("pathto")
            thebe = pathto(THEBE_JS, 1) if callable(pathto) else ""
            html = retouch_html(html, context["pagename"], thebe, self._binder_url)
        return html


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


def _write_icon_fonts(app, exception) -> None:
    """Escribe ``_static/iconos/``: las fuentes recortadas y su CSS."""
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    webfonts = outdir / "_static" / "vendor" / "fontawesome" / "webfonts"
    if not webfonts.is_dir():
        logger.warning("resnorm: faltan las fuentes de iconos del tema en %s", webfonts)
        return
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
        _subset_font(webfonts / f"{name}.ttf", target / f"{name}.woff", codepoints)
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
# 5. Scripts repetidos
# --------------------------------------------------------------------------------------


def _dedupe_scripts(
    app, pagename: str, templatename: str, context: dict, doctree
) -> None:
    """Quita scripts repetidos de la página.

    ``sphinx-thebe`` 0.3.1 registra su configuración en línea en cada lectura del
    entorno (``env-before-read-docs``); si ese evento ocurre dos veces, la página
    declara dos veces ``const THEBE_JS_URL`` y el navegador da un error de consola.
    """
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple[str, str]] = set()
    unique = []
    for script in scripts:
        # sphinx-thebe registra una copia con filename=None y otra con "": mismas.
        attributes = sorted(getattr(script, "attributes", {}).items())
        key = (getattr(script, "filename", None) or "", repr(attributes))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


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
    _install_catalogs(app, config)
    _register_js_translations(app)
    config.html_theme_options = configure_launch_targets(config.html_theme_options)
    config.template_bridge = f"{__name__}.CourseTemplates"


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
    app.add_js_file("js/interfaz-es.js", priority=900)
    app.add_js_file("js/codigo-en-vivo.js", priority=900)
    app.connect("html-page-context", _dedupe_scripts, priority=900)
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
    "CourseTemplates",
    "FIXED_TEXTS",
    "retouch_html",
    "strip_accents",
    "used_icon_codepoints",
]
