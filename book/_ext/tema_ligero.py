"""La hoja de estilo del tema, solo con las reglas que el sitio puede usar.

``pydata-sphinx-theme.css`` (unos 390 KB sin comprimir: Bootstrap 5 entero más el
tema) bloquea el primer dibujo de cada página, y el navegador la analiza entera con la
CPU lenta de un móvil; Lighthouse marca como sin usar más del 80 %. Al terminar la
construcción se escribe en ``_build/html`` una copia recortada: se queda cada regla
cuyos selectores solo nombran clases e identificadores que aparecen en alguna página
del sitio o en algún JavaScript de ``_static`` (así siguen las clases que el
JavaScript del tema pone y quita: ``show``, ``collapsing``, el modo oscuro…). Las
variables, ``@font-face``, ``@keyframes`` y los selectores sin clases quedan todos.

Además, los scripts del tema y de las extensiones se cargan con ``defer``: ya no
bloquean el primer dibujo y se ejecutan en el mismo orden, antes de
``DOMContentLoaded``. Quedan síncronos los que usan los scripts en línea de la página
(``documentation_options.js``, ``doctools.js``) y ``translations.js``, que debe ir
antes de las traducciones propias del curso (que lo sobrescriben).

La hoja ``basic.css`` de Sphinx, que el tema pedía con un ``@import`` desde
``styles/theme.css`` (un viaje más antes del primer dibujo), se escribe recortada
dentro de ``theme.css``. Cada página carga ``_assets/css/reserva.css`` (el alto de cada
widget reservado antes de dibujarse), pide desde ``<head>`` las fuentes de los iconos,
y los diagramas SVG llevan su ancho y alto. Las hojas grandes de las extensiones
(sphinx-book-theme, sphinx-design, myst-nb) se recortan igual que la del tema.
``pydata-sphinx-theme.js`` ya no obliga a componer la página antes del primer dibujo
ni una vez por caja desplazable (``patch_theme_js``), y no se pide por adelantado
desde ``<head>``. Cada tramo de hojas de estilo seguidas se sirve en un solo archivo
(``bundle_styles``): de 18 peticiones antes del primer dibujo a 5.

El recorte parte siempre del archivo original del tema (no del ya recortado), y tiene
en cuenta todas las páginas de la carpeta de salida: una construcción incremental que
escribe una sola página no pierde reglas de las demás.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from pathlib import Path
from typing import Any

from sphinx.util import logging

logger = logging.getLogger(__name__)

SHEETS = ("styles/pydata-sphinx-theme.css",)
# Hojas de las extensiones que Sphinx vuelve a copiar a ``_static`` en cada
# construcción (el recorte parte siempre de la copia recién hecha): las de
# sphinx-book-theme, sphinx-design y myst-nb (con su hash en el nombre).
EXTENSION_SHEETS = ("styles/sphinx-book-theme.css", "sphinx-design.min.css",
                    "mystnb.*.css")
_CLASS_OR_ID = re.compile(r"(?<![\w-])([.#])(-?[A-Za-z_][\w-]*)")
_TOKEN = re.compile(r"-?[A-Za-z_][\w-]*")
# Bloques que se copian tal cual (no contienen selectores de página).
_VERBATIM = ("@font-face", "@keyframes", "@-webkit-keyframes", "@property",
             "@page", "@counter-style", "@font-feature-values")


def _split_top(text: str, sep: str) -> list[str]:
    """Parte ``text`` por ``sep`` fuera de paréntesis, corchetes y comillas."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _blocks(css: str):
    """(prelude, cuerpo) de cada bloque de primer nivel; el cuerpo sin llaves."""
    i, n = 0, len(css)
    while i < n:
        j = i
        quote = ""
        while j < n:  # hasta la llave o el punto y coma de primer nivel
            ch = css[j]
            if quote:
                if ch == quote and css[j - 1] != "\\":
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "/" and css.startswith("/*", j):
                j = css.find("*/", j + 2)
                j = n if j < 0 else j + 1
            elif ch in "{;":
                break
            j += 1
        if j >= n:
            return
        prelude = css[i:j].strip()
        if css[j] == ";":  # @charset, @import…
            yield prelude, None
            i = j + 1
            continue
        depth, k, quote = 1, j + 1, ""
        while k < n and depth:
            ch = css[k]
            if quote:
                if ch == quote and css[k - 1] != "\\":
                    quote = ""
            elif ch in "\"'":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            k += 1
        yield prelude, css[j + 1:k - 1]
        i = k


def _strip_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def _needed(selector: str, used: set[str]) -> bool:
    """¿Puede aplicarse ``selector`` a algún elemento del sitio?

    Cada clase e id que nombra debe aparecer en ``used``; lo de dentro de ``:not(…)``
    no cuenta (una clase ausente lo cumple) y un selector con ``:is``, ``:where`` o
    ``:has`` se conserva siempre, por si acaso.
    """
    if re.search(r":(is|where|has)\(", selector):
        return True
    rest = re.sub(r":not\([^()]*\)", "", selector)
    if ":not(" in rest:
        return True
    return all(name in used for _, name in _CLASS_OR_ID.findall(rest))


def purge(css: str, used: set[str]) -> str:
    """Las reglas de ``css`` que pueden aplicarse con las clases e ids de ``used``."""
    out = []
    for prelude, body in _blocks(css):
        prelude = _strip_comments(prelude).strip()
        if body is None:
            out.append(prelude + ";")
        elif prelude.startswith(_VERBATIM) or prelude.startswith(":root"):
            out.append(f"{prelude}{{{body}}}")
        elif prelude.startswith("@"):
            inner = purge(body, used)
            if inner:
                out.append(f"{prelude}{{{inner}}}")
        else:
            keep = [s.strip() for s in _split_top(prelude, ",") if _needed(s, used)]
            if keep:
                out.append(f"{','.join(keep)}{{{body}}}")
    return "".join(out)


def used_names(outdir: Path) -> set[str]:
    """Cada palabra que aparece en las páginas y en el JavaScript del sitio."""
    used: set[str] = set()
    files = [*outdir.rglob("*.html"), *(outdir / "_static").rglob("*.js")]
    for path in files:
        used.update(_TOKEN.findall(path.read_text(encoding="utf-8", errors="ignore")))
    return used


def _theme_file(app, rel: str) -> Path | None:
    theme = getattr(app.builder, "theme", None)
    dirs = theme.get_theme_dirs() if theme is not None else []
    for d in dirs:
        candidate = Path(d) / "static" / rel
        if candidate.exists():
            return candidate
    return None


_PURGED = "/* recortada por book/_ext/tema_ligero.py */\n"


def _write_purged(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    used = used_names(outdir)
    for rel in SHEETS:
        source = _theme_file(app, rel)
        target = outdir / "_static" / rel
        if source is None or not target.exists():
            continue
        css = source.read_text(encoding="utf-8")
        css = re.sub(r"/\*# sourceMappingURL=.*?\*/", "", css)
        notices = "".join(re.findall(r"/\*!.*?\*/", css, flags=re.S))
        purged = notices + purge(_strip_comments(css), used)
        target.write_text(purged, encoding="utf-8")
        logger.info("%s: %d KB → %d KB", rel, len(css) // 1000, len(purged) // 1000)
    for pattern in EXTENSION_SHEETS:
        for target in sorted((outdir / "_static").glob(pattern)):
            css = target.read_text(encoding="utf-8")
            if css.startswith(_PURGED):
                continue  # ya recortada (Sphinx no la volvió a copiar)
            css = re.sub(r"/\*# sourceMappingURL=.*?\*/", "", css)
            notices = "".join(re.findall(r"/\*!.*?\*/", css, flags=re.S))
            purged = _PURGED + notices + purge(_strip_comments(css), used)
            target.write_text(purged, encoding="utf-8")
            logger.info("%s: %d KB → %d KB", target.name, len(css) // 1000,
                        len(purged) // 1000)
    _inline_basic(outdir, used)


def _forget_purged(app, exception) -> None:
    """Borra las hojas de extensión que recortó la construcción anterior.

    myst-nb copia su hoja al terminar (``build-finished``) sin sobrescribir: desde
    Sphinx 8, si ya hay otro contenido en el destino (la copia recortada), no la copia
    y avisa (``misc.copy_overwrite``), y con ``-W`` la reconstrucción falla. Sin la
    recortada, myst-nb copia la original y ``_write_purged`` la recorta otra vez."""
    if exception is not None or app.builder.format != "html":
        return
    for pattern in EXTENSION_SHEETS:
        for target in (Path(app.outdir) / "_static").glob(pattern):
            if target.read_text(encoding="utf-8").startswith(_PURGED):
                target.unlink()


# ``styles/theme.css`` del tema solo contiene ``@import "../basic.css"``: el navegador
# no descubre basic.css hasta recibir theme.css, un viaje de ida y vuelta más antes del
# primer dibujo. Se escribe en theme.css la hoja de Sphinx misma, recortada como la del
# tema y con sus url() relativas a la nueva carpeta.
THEME_IMPORT = "styles/theme.css"
BASIC = "basic.css"
_MARK = "/* basic.css de Sphinx, recortada (book/_ext/tema_ligero.py) */"
_RELATIVE_URL = re.compile(r"url\((['\"]?)(?![a-z]+:|/|#|data:)([^'\")]+)\1\)")


def _inline_basic(outdir: Path, used: set[str]) -> None:
    target = outdir / "_static" / THEME_IMPORT
    basic = outdir / "_static" / BASIC
    if not target.exists() or not basic.exists():
        return
    current = target.read_text(encoding="utf-8")
    if f'@import "../{BASIC}"' not in current and not current.startswith(_MARK):
        return  # un tema que no es el esperado: se deja como está
    css = purge(_strip_comments(basic.read_text(encoding="utf-8")), used)
    css = _RELATIVE_URL.sub(lambda m: f"url({m.group(1)}../{m.group(2)}{m.group(1)})",
                            css)
    target.write_text(f"{_MARK}\n{css}", encoding="utf-8")


# widgets-estaticos.js se carga sin «defer», justo después del estado de los widgets:
# reserva la caja de cada widget mientras se lee la página, antes de pintarla (sin
# saltos), y dibuja el widget cuando se acerca a la pantalla.
KEEP_SYNC = (
    "documentation_options.js",
    "doctools.js",
    "translations.js",
    "widgets-estaticos.js",
)


def _defer_scripts(app, pagename, templatename, context, doctree) -> None:
    from sphinx.builders.html._assets import _JavaScript

    scripts = context.get("script_files")
    if not scripts:
        return
    out = []
    for script in scripts:
        name = str(getattr(script, "filename", "") or "")
        attributes = dict(getattr(script, "attributes", {}) or {})
        base = name.split("?")[0].rsplit("/", 1)[-1]
        if (name and "://" not in name and base not in KEEP_SYNC
                and not attributes.get("body")
                and not {"async", "defer", "type"} & attributes.keys()):
            attributes["defer"] = "defer"
            attributes.pop("priority", None)
            script = _JavaScript(name, priority=getattr(script, "priority", 500),
                                 **attributes)
        out.append(script)
    context["script_files"] = out


# El alto de cada widget, reservado antes de dibujarlo (_assets/css/reserva.css).
RESERVA_CSS = "css/reserva.css"


# Los iconos de la cabecera (fuentes recortadas de book/_ext/curso_sitio.py, con
# font-display: block) se ven en el primer dibujo: se piden desde <head>.
ICON_FONTS = ("iconos/fa-solid-900.woff", "iconos/fa-brands-400.woff")


def _preload_icons(app, pagename, templatename, context, doctree) -> None:
    if "pathto" not in context:
        return
    links = "".join(
        f'\n<link rel="preload" href="{context["pathto"]("_static/" + f, 1)}" '
        'as="font" type="font/woff" crossorigin />'
        for f in ICON_FONTS
    )
    context["metatags"] = context.get("metatags", "") + links


# Los iconos de Binder y Colab del menú «Abrir en…» de cada capítulo: el menú está
# cerrado al cargar, así que se piden cuando se abre.
_LAUNCH_LOGO = re.compile(
    r'<img alt="" src="([^"]*_static/images/logo_[a-z_]+\.(?:svg|png))">'
)


def lazy_launch_logos(html: str) -> str:
    return _LAUNCH_LOGO.sub(r'<img alt="" src="\1" loading="lazy">', html)


# Los scripts que solo sirven cuando el lector ya hace algo (copiar código, abrir un
# menú o el buscador, el código en vivo, el resaltado de lo buscado) se piden después
# del primer dibujo. Con «defer» se pedían a la vez que el HTML, las hojas y las
# fuentes, y en un 4G lento les quitaban la conexión: en Lighthouse, el primer dibujo
# completo (LCP) llegaba 150–300 ms más tarde. Se siguen ejecutando en el mismo orden,
# justo después del primer dibujo con contenido (FCP, o el primer fotograma donde el
# navegador no lo anota); cuando ha llegado el último, <html> lleva
# data-scripts-tardios="listos". Se quedan como estaban los que cambian lo que se ve
# al cargar (togglebutton.js pliega las soluciones, interfaz-es.js traduce lo que
# otros crean al cargar), los que solo escuchan DOMContentLoaded (design-tabs.js) y
# los que otros usan al cargar (searchtools.js lee SPHINX_HIGHLIGHT_ENABLED, de
# sphinx_highlight.js).
LATE_SCRIPTS = (
    "clipboard.min.js",
    "copybutton.js",
    "sphinx-thebe.js",
    "codigo-en-vivo.js",
    "bootstrap.js",
    "pydata-sphinx-theme.js",
)
LATE_READY = "listos"
_SCRIPT_TAG = re.compile(r"<script\b([^>]*)></script>\n?")
_ATTRIBUTE = re.compile(r'([\w-]+)(?:="([^"]*)")?')
_LATE_LOADER = """<script>/* tema_ligero.py: scripts después del primer dibujo */
(function (scripts) {
  var started = false;
  function load() {
    if (started) return;
    started = true;
    var left = scripts.length;
    scripts.forEach(function (attributes) {
      var script = document.createElement("script");
      Object.keys(attributes).forEach(function (name) {
        script.setAttribute(name, attributes[name]);
      });
      script.async = false;
      script.onload = script.onerror = function () {
        if (--left === 0) document.documentElement.dataset.scriptsTardios = "%s";
      };
      document.head.appendChild(script);
    });
  }
  function afterFirstPaint() {
    // Tras el primer dibujo con contenido ya en pantalla (FCP). El primer fotograma
    // (requestAnimationFrame) no basta: con la CPU ocupada, el navegador lo presenta
    // decenas de ms después, y los scripts ya se estaban pidiendo.
    var types = window.PerformanceObserver && PerformanceObserver.supportedEntryTypes;
    if (types && types.indexOf("paint") >= 0) {
      new PerformanceObserver(function (list, observer) {
        if (list.getEntriesByName("first-contentful-paint").length) {
          observer.disconnect();
          setTimeout(load, 0);
        }
      }).observe({ type: "paint", buffered: true });
    } else {
      requestAnimationFrame(function () { setTimeout(load, 0); });
    }
    setTimeout(load, 1000);  // una pestaña oculta no dibuja
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", afterFirstPaint);
  } else {
    afterFirstPaint();
  }
})(%s);
</script>
"""


_LATE_LIST = re.compile(r"scripts después del primer dibujo \*/.*?\}\)\((\[.*?\])\);",
                        re.S)


def late_script_sources(html: str) -> list[str]:
    """Los ``src`` que el cargador de ``load_after_first_paint`` pide en ``html``."""
    import json

    match = _LATE_LIST.search(html)
    return [s["src"] for s in json.loads(match.group(1))] if match else []


def load_after_first_paint(html: str) -> str:
    """Cambia los ``<script defer|async src>`` de ``LATE_SCRIPTS`` por un cargador
    al final de ``<body>`` que los pide, en el mismo orden, tras el primer dibujo."""
    import html as html_lib
    import json

    late = []

    def take(match):
        attributes = {name: value or "" for name, value in
                      _ATTRIBUTE.findall(match.group(1))}
        src = attributes.get("src", "")
        base = src.split("?")[0].rsplit("/", 1)[-1]
        if base not in LATE_SCRIPTS or not {"defer", "async"} & attributes.keys():
            return match.group(0)
        late.append({k: html_lib.unescape(v) for k, v in attributes.items()
                     if k not in ("defer", "async")})
        return ""

    body_end = html.rfind("</body>")
    if body_end < 0:
        return html
    rewritten = _SCRIPT_TAG.sub(take, html[:body_end])
    if not late:
        return html
    loader = _LATE_LOADER % (LATE_READY, json.dumps(late, ensure_ascii=False))
    return rewritten + loader + html[body_end:]


# El tema pone en <head>, antes de dibujar, data-mode (claro, oscuro o «auto», lo
# que eligió el lector o el valor por defecto) y data-theme, el tema con que se
# dibuja. Para un lector que nunca eligió, data-theme quedaba en «auto», que ninguna
# regla de la hoja conoce: la página se dibujaba en claro aunque el sistema pidiera
# oscuro, hasta que pydata-sphinx-theme.js (uno de los scripts tardíos) ponía «light»
# o «dark». Ese cambio invalidaba el estilo de todos los elementos: en un teléfono,
# una tarea de 100–600 ms justo cuando la página ya se podía leer (Lighthouse la
# contaba en el tiempo de bloqueo), y en oscuro, un destello claro. Ahora data-theme
# se resuelve ahí mismo como lo resuelve luego el tema (setTheme): el modo, si es
# claro u oscuro; si no, el del sistema. El tema vuelve a escribir el mismo valor.
_THEME_GUESS = re.compile(
    r'document\.documentElement\.dataset\.theme = localStorage\.getItem\("theme"\)'
    r' \|\| "[a-z]*";'
)
_THEME_RESOLVED = """document.documentElement.dataset.theme = (function (mode) {
      /* tema_ligero.py: como setTheme de pydata-sphinx-theme, antes de dibujar */
      if (mode === "light" || mode === "dark") return mode;
      var dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
      return dark ? "dark" : "light";
    })(document.documentElement.dataset.mode);"""


def resolve_theme_before_paint(html: str) -> str:
    """El ``data-theme`` de ``<html>`` resuelto a claro u oscuro antes del primer
    dibujo (ver arriba); el resto de ``html``, igual."""
    return _THEME_GUESS.sub(lambda _: _THEME_RESOLVED, html, count=1)


# El estado de los widgets que myst-nb guarda en cada página lleva el código de cada
# widget (``_esm``, su módulo JavaScript, y ``_css``), repetido en cada widget de la
# misma clase: en el capítulo 5, 33 de sus 52 KB comprimidos. En un 4G lento, el
# primer dibujo esperaba a que llegara todo el HTML. Cada código pasa a un archivo de
# _static/widgets (su nombre es la huella de su contenido: uno para todas las páginas
# que lo usan, y el navegador lo guarda) y el estado lo nombra con «rn-archivo:» y su
# ruta relativa; _assets/js/widgets-estaticos.js lo descarga al dibujar el widget.
# myst-nb no tiene opción para esto: escribe el estado entero en un <script> de la
# página (``nb_ipywidgets_js``); aquí se cambia ese script (``html-page-context``,
# después de myst-nb) por el mismo estado con las referencias.
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_FILE = "rn-archivo:"
_CODE_FIELDS = {"_esm": ".js", "_css": ".css"}
# Datos binarios de un widget (los pesos de los GPT del capítulo 10): un data: URL en
# un trait, o en los valores de un trait diccionario. Van a _static/widgets/<huella>.bin
# y el widget los pide cuando los necesita, no al abrir la página.
BINARY_URL = "data:application/octet-stream;base64,"


def write_by_hash(data: bytes, folder: str, suffix: str, page: str,
                  outdir: Path) -> str:
    """Escribe ``data`` en ``outdir/folder/<huella><suffix>`` (si no estaba) y
    devuelve su ruta relativa a la página ``page`` (``notebooks/05``)."""
    name = f"{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    target = Path(outdir) / folder / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return posixpath.relpath(f"{folder}/{name}", posixpath.dirname(page) or ".")


def _externalize_binary(value, page: str, outdir: Path):
    import base64

    if isinstance(value, str) and value.startswith(BINARY_URL):
        data = base64.b64decode(value[len(BINARY_URL):])
        return WIDGET_FILE + write_by_hash(data, "_static/widgets", ".bin", page,
                                           outdir)
    if isinstance(value, dict):
        return {k: _externalize_binary(v, page, outdir) for k, v in value.items()}
    return value


def externalize_widget_code(state: dict, page: str, outdir: Path) -> dict:
    """El estado de los widgets de la página ``page`` con cada ``_esm``, ``_css`` y
    dato binario en ``outdir/_static/widgets/<huella>.js|.css|.bin``."""
    models = {}
    for key, model in (state.get("state") or {}).items():
        values = dict(model.get("state") or {})
        for field, value in values.items():
            suffix = _CODE_FIELDS.get(field)
            if suffix and isinstance(value, str) and value and not value.startswith(
                    WIDGET_FILE):
                values[field] = WIDGET_FILE + write_by_hash(
                    value.encode("utf-8"), "_static/widgets", suffix, page, outdir)
            else:
                values[field] = _externalize_binary(value, page, outdir)
        models[key] = {**model, "state": values}
    return {**state, "state": models}


def _widget_code_in_files(app, pagename, templatename, context, doctree) -> None:
    import json

    scripts = context.get("script_files") or []
    for i, script in enumerate(scripts):
        attributes = getattr(script, "attributes", {}) or {}
        if attributes.get("type") != WIDGET_STATE or not attributes.get("body"):
            continue
        state = externalize_widget_code(json.loads(attributes["body"]), pagename,
                                        Path(app.outdir))
        body = json.dumps(state, ensure_ascii=False).replace("</", "<\\/")
        # Otro script igual, con el estado nuevo, en el mismo lugar de la lista.
        scripts[i] = type(script)(script.filename, priority=script.priority,
                                  **{**attributes, "body": body})


def _write_image_sizes(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for page in outdir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        rewritten = lazy_launch_logos(drop_script_preloads(html))
        rewritten = resolve_theme_before_paint(rewritten)
        rewritten = load_after_first_paint(rewritten)
        if rewritten != html:
            page.write_text(rewritten, encoding="utf-8")


# Lo que pydata-sphinx-theme.js hace al cargar y obliga al navegador a componer la
# página entera (cientos de milisegundos en un capítulo largo, con la CPU de un
# móvil) se cambia por lo mismo sin esa composición de más:
#
# - El bucle que da tabindex a cada caja con barra de desplazamiento (para llegar a
#   ella con el teclado) medía y escribía caja por caja: cada tabIndex escrito
#   invalidaba el estilo y la medida siguiente volvía a componer la página entera
#   (cientos de veces en un capítulo). Ahora mide todas y después escribe solo los
#   valores que cambian.
# - El desplazamiento del índice lateral hasta la página actual medía el índice
#   antes del primer dibujo, cuando aún no hay nada compuesto. En un teléfono ese
#   índice está oculto (se abre en un cuadro aparte) y no se mide; en pantallas
#   anchas se mide justo después del primer dibujo.
# - El aviso de versión (vacío: el sitio no tiene selector de versiones) se
#   «revelaba» midiendo su alto; sin nada que revelar, no se mide.
THEME_JS = "scripts/pydata-sphinx-theme.js"
_TABINDEX_LOOP = (
    ".forEach((e=>{e.tabIndex=e.scrollWidth>e.clientWidth||"
    "e.scrollHeight>e.clientHeight?0:-1}))"
)
_TABINDEX_BATCHED = (
    ".forEach(((e,i,l)=>{if(!i)l.rnTab=Array.from(l,(x=>x.scrollWidth>x.clientWidth"
    "||x.scrollHeight>x.clientHeight?0:-1));if(e.tabIndex!==l.rnTab[i])"
    "e.tabIndex=l.rnTab[i]}))"
)
_SIDEBAR_START = 'e((function(){if(!document.querySelector(".bd-docs-nav"))return;'
_SIDEBAR_START_LATER = (
    'e((function(){var rnScroll=function(){if(!document.querySelector(".bd-docs-nav")'
    '||!window.matchMedia("(min-width: 960px)").matches)return;'
)
_SIDEBAR_END = 'sessionStorage.setItem("sidebar-scroll-top",e.scrollTop)}))}))'
_SIDEBAR_END_LATER = (
    'sessionStorage.setItem("sidebar-scroll-top",e.scrollTop)}))};'
    "requestAnimationFrame((function(){setTimeout(rnScroll)}))}))"
)
_REVEAL = 'const e=document.querySelector(".pst-async-banner-revealer");if(!e)return;'
_REVEAL_IF_ANY = ('const e=document.querySelector(".pst-async-banner-revealer");'
                  'if(!e||!e.querySelector(":scope>:not(.d-none)"))return;')
_PATCHES = (
    (_TABINDEX_LOOP, _TABINDEX_BATCHED),
    (_REVEAL, _REVEAL_IF_ANY),
    (_SIDEBAR_START, _SIDEBAR_START_LATER),
    (_SIDEBAR_END, _SIDEBAR_END_LATER),
)


def patch_theme_js(js: str) -> str:
    """El JavaScript del tema sin las medidas de la página entera al cargar."""
    for old, new in _PATCHES:
        if js.count(old) == 1:
            js = js.replace(old, new)
    return js


def _write_theme_js(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / THEME_JS
    if not target.exists():
        return
    js = target.read_text(encoding="utf-8")
    patched = patch_theme_js(js)
    if patched != js:
        target.write_text(patched, encoding="utf-8")
    missing = [new for _, new in _PATCHES if new not in patched]
    if missing:
        logger.warning("tema_ligero: %s no tiene el código esperado (¿otra versión "
                       "del tema?); sin cambiar: %s", THEME_JS, missing)


# El tema pide bootstrap.js y pydata-sphinx-theme.js desde <head> con
# ``<link rel="preload">``, con prioridad alta: compiten con las hojas de estilo
# por la conexión lenta y retrasan el primer dibujo. Ya se cargan con ``defer`` al
# final de la página; sin el preload, el navegador los pide después de las hojas.
_SCRIPT_PRELOAD = re.compile(
    r'\s*<link rel="preload" as="script" href="[^"]*_static/scripts/'
    r'(?:bootstrap|pydata-sphinx-theme)\.js[^"]*" />'
)


def drop_script_preloads(html: str) -> str:
    return _SCRIPT_PRELOAD.sub("", html)


# Unas 18 hojas de estilo bloquean el primer dibujo de cada página, y en una conexión
# móvil cada petición cuesta un viaje de ida y vuelta. Cada tramo de ``<link>``
# seguidos se escribe como una sola hoja (``_static/paquete-<hash>.css``) con las
# mismas reglas en el mismo orden y sus url() corregidas. Se dejan aparte las hojas
# que otras partes del sitio nombran (KaTeX, ejercicios): cortan el tramo.
KEEP_SEPARATE = ("vendor/katex/katex.min.css", "css/ejercicios.css")
_STYLESHEET = re.compile(
    r'<link (?=[^>]*rel="stylesheet")[^>]*href="([^"]+\.css)(?:\?[^"]*)?"[^>]*/>'
)
_RUN = re.compile(r'(?:<link [^>]*rel="stylesheet"[^>]*/>\s*)+')


def _static_name(href: str, page: Path, static: Path) -> str | None:
    target = (page.parent / href).resolve()
    try:
        return target.relative_to(static.resolve()).as_posix()
    except ValueError:
        return None


def _rebase_urls(css: str, rel: str) -> str:
    folder = posixpath.dirname(rel)

    def fix(match):
        new = posixpath.normpath(posixpath.join(folder, match.group(2)))
        return f"url({match.group(1)}{new}{match.group(1)})"

    return _RELATIVE_URL.sub(fix, css) if folder else css


_BUNDLE_HEAD = "/* paquete (book/_ext/tema_ligero.py): "


def write_bundle(static: Path, names: tuple[str, ...]) -> str | None:
    """Escribe el paquete de ``names`` y devuelve ``nombre?v=hash``."""
    parts = [f"{_BUNDLE_HEAD}{' '.join(names)} */"]
    for rel in names:
        source = static / rel
        if not source.exists():
            return None
        css = source.read_text(encoding="utf-8")
        if "@import" in css:
            return None
        css = re.sub(r"/\*# sourceMappingURL=.*?\*/", "", css)
        parts.append(f"/* {rel} */\n{_rebase_urls(css, rel)}")
    text = "\n".join(parts)
    key = hashlib.sha1(" ".join(names).encode("utf-8")).hexdigest()[:12]
    version = hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]
    name = f"paquete-{key}.css"
    (static / name).write_text(text, encoding="utf-8")
    return f"{name}?v={version}"


def bundle_styles(outdir: Path) -> int:
    """Escribe los paquetes de hojas y cambia cada tramo de ``<link>`` por uno."""
    static = outdir / "_static"
    written: dict[tuple[str, ...], str] = {}
    pages = 0

    def bundle(names: tuple[str, ...]) -> str | None:
        if names not in written:
            written[names] = write_bundle(static, names)
        return written[names]

    # Los paquetes que ya nombran las páginas que esta construcción no reescribe se
    # rehacen con las hojas de ahora (el nombre depende solo de la lista de hojas).
    for old in static.glob("paquete-*.css"):
        first = old.read_text(encoding="utf-8").split("\n", 1)[0]
        if first.startswith(_BUNDLE_HEAD) and first.endswith(" */"):
            bundle(tuple(first[len(_BUNDLE_HEAD):-3].split()))

    for page in outdir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        folder = page.parent.relative_to(outdir).as_posix()
        prefix = posixpath.relpath("_static", folder)

        def replace(run):
            links = list(_STYLESHEET.finditer(run.group(0)))
            names = [_static_name(m.group(1), page, static) for m in links]
            if len(links) < 2 or None in names:
                return run.group(0)
            out, group = [], []

            def flush():
                if len(group) == 1:
                    out.append(group[0][1])
                elif group:
                    name = bundle(tuple(n for n, _ in group))
                    if name is None:
                        out.extend(tag for _, tag in group)
                    else:
                        out.append(f'<link rel="stylesheet" type="text/css" '
                                   f'href="{prefix}/{name}" />')
                group.clear()

            for name, link in zip(names, links):
                if name in KEEP_SEPARATE:
                    flush()
                    out.append(link.group(0))
                else:
                    group.append((name, link.group(0)))
            flush()
            return "\n".join(out) + "\n"

        bundled = _RUN.sub(replace, html)
        if bundled != html:
            page.write_text(bundled, encoding="utf-8")
            pages += 1
    return pages


def _write_bundles(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    pages = bundle_styles(Path(app.outdir))
    logger.info("tema_ligero: hojas de estilo agrupadas en %d páginas", pages)


def setup(app) -> dict[str, Any]:
    app.add_css_file(RESERVA_CSS, priority=900)
    app.connect("build-finished", _write_theme_js, priority=940)
    app.connect("build-finished", _write_image_sizes, priority=940)
    app.connect("html-page-context", _preload_icons, priority=980)
    # Antes que la copia de myst-nb (prioridad 500) y que el recorte (950).
    app.connect("build-finished", _forget_purged, priority=400)
    app.connect("build-finished", _write_purged, priority=950)
    app.connect("build-finished", _write_bundles, priority=960)
    app.connect("html-page-context", _defer_scripts, priority=990)
    # Después de myst-nb (500), que pone el estado de los widgets en la página.
    app.connect("html-page-context", _widget_code_in_files, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
