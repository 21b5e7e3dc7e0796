"""La hoja de estilo del tema, solo con las reglas que el sitio puede usar.

``pydata-sphinx-theme.css`` (unos 390 KB sin comprimir: Bootstrap 5 entero más el
tema) bloquea el primer dibujo de cada página, y el navegador la analiza entera con la
CPU lenta de un móvil; Lighthouse marca como sin usar más del 80 %. Al terminar la
construcción se escribe en ``_build/html`` una copia recortada: se queda cada regla
cuyos selectores solo nombran clases e identificadores que aparecen en alguna página
del sitio o en algún JavaScript de ``_static`` (así siguen las clases que el
JavaScript del tema pone y quita: ``show``, ``collapsing``, el modo oscuro…). Las
variables, ``@font-face``, ``@keyframes`` y los selectores sin clases quedan todos.

Además, los scripts del tema y de las extensiones se cargan con ``defer``
(``_defer_scripts``); lo que la cabecera pide antes del primer dibujo lo decide la
plantilla ``book/_templates/layout.html``.

La hoja ``basic.css`` de Sphinx, que el tema pedía con un ``@import`` desde
``styles/theme.css`` (un viaje más antes del primer dibujo), se escribe recortada
dentro de ``theme.css``. Cada página carga ``_assets/css/reserva.css`` (el alto de cada
widget reservado antes de dibujarse),
y los diagramas SVG llevan su ancho y alto. Las hojas grandes de las extensiones
(sphinx-book-theme, sphinx-design, myst-nb) se recortan igual que la del tema.
Cada tramo de hojas de estilo seguidas se sirve en un solo archivo
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


# Los scripts del tema y de las extensiones se cargan con «defer»: ya no bloquean el
# primer dibujo y se ejecutan en el mismo orden, antes de DOMContentLoaded. Los
# propios del curso lo piden ellos mismos (``app.add_js_file(…,
# loading_method="defer")``), pero Sphinx no tiene opción para cambiar cómo se cargan
# los que añaden otros (sphinx-copybutton, togglebutton, sphinx-thebe, sphinx-design,
# sphinx-book-theme, los de Sphinx): cada página recibe su lista en
# ``html-page-context`` (``script_files``) y aquí se cambia cada entrada por la misma
# con ``defer``. Se quedan síncronos los que usan los scripts en línea de la página
# (``documentation_options.js``, ``doctools.js``), ``translations.js``, que debe ir
# antes de las traducciones propias del curso (que lo sobrescriben), y
# widgets-estaticos.js, justo después del estado de los widgets: reserva la caja de
# cada widget mientras se lee la página, antes de pintarla (sin saltos), y dibuja el
# widget cuando se acerca a la pantalla.
KEEP_SYNC = (
    "documentation_options.js",
    "doctools.js",
    "translations.js",
    "widgets-estaticos.js",
)


def deferred(script):
    """``script`` (una entrada de ``script_files``) con ``defer``, si le toca."""
    name = str(getattr(script, "filename", "") or "")
    attributes = getattr(script, "attributes", None)
    if (attributes is None or not name or "://" in name
            or posixpath.basename(name.split("?")[0]) in KEEP_SYNC
            or {"body", "async", "defer", "type"} & attributes.keys()):
        return script
    return type(script)(name, priority=script.priority,
                        **{**attributes, "defer": "defer"})


def _defer_scripts(app, pagename, templatename, context, doctree) -> None:
    context["script_files"] = [deferred(s) for s in context.get("script_files", [])]


# El alto de cada widget, reservado antes de dibujarlo (_assets/css/reserva.css).
RESERVA_CSS = "css/reserva.css"


# Los diagramas SVG de {figure} (book/figuras/) llegan sin width ni height: hasta que
# el navegador descarga cada uno no sabe su alto, y al llegar empuja el texto de debajo
# (ch. 2 a 820 px: desplazamiento 0.09). Se les pone el tamaño de su propio viewBox;
# curso.css los reduce a la columna sin deformarlos (``height: auto``). Con su caja ya
# reservada, se piden cuando el lector se acerca (``loading="lazy"``): en un 4G lento
# no compiten con el texto del primer dibujo. Menos la portada, que se ve al llegar.
EAGER_SVG = ("portada.svg",)
_SVG_IMG = re.compile(
    r'<img\b(?![^>]*\swidth=)([^>]*?\ssrc="([^"]*_images/[^"]+\.svg)")'
)
_SVG_SIZE = re.compile(r'<svg\b[^>]*?\sviewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+'
                       r'([\d.]+)[\s,]+([\d.]+)\s*"')


def _svg_size(path: Path) -> tuple[int, int] | None:
    try:
        head = path.read_text(encoding="utf-8", errors="ignore")[:4000]
    except OSError:
        return None
    match = _SVG_SIZE.search(head)
    if not match:
        return None
    return round(float(match.group(1))), round(float(match.group(2)))


def size_svg_images(html: str, page: Path) -> str:
    """``width`` y ``height`` (los del viewBox) en cada ``<img>`` de un SVG de
    ``_images`` que no los tenga."""

    def add(match):
        src = match.group(2).split("?")[0]
        size = _svg_size((page.parent / src).resolve())
        if size is None:
            return match.group(0)
        lazy = "" if src.endswith(EAGER_SVG) or "loading=" in match.group(0) else (
            ' loading="lazy" decoding="async"')
        return f'<img width="{size[0]}" height="{size[1]}"{lazy}{match.group(1)}'

    return _SVG_IMG.sub(add, html)


# Las figuras de matplotlib llegan en línea (``resnorm.book.figure_html``: un PNG en
# base64 dentro de la salida de la celda, para que el notebook se vea igual en
# Jupyter o Colab). En el sitio, ese base64 viaja dentro del HTML: el capítulo 9
# pesaba 166 KB comprimido, y en un 4G lento el primer dibujo esperaba a que llegaran
# sus tres figuras, aunque están más abajo y llevan loading="lazy". Cada una se
# escribe como archivo en _images (su nombre es la huella de su contenido) y la
# página la pide cuando el lector se acerca. También la versión para teléfono, en el
# ``<source srcset>`` del mismo ``<picture>``.
_INLINE_PNG = re.compile(
    r'(<(?:img|source)\b[^>]*?\s(?:src|srcset)=")data:image/png;base64,'
    r'([A-Za-z0-9+/=]+)"'
)
INLINE_FIGURE_PREFIX = "figura-"


def write_by_hash(data: bytes, folder: str, suffix: str, page: Path, outdir: Path,
                  prefix: str = "") -> str:
    """Escribe ``data`` en ``outdir/folder/<prefix><huella><suffix>`` (si no estaba)
    y devuelve su ruta relativa a la página ``page``."""
    name = f"{prefix}{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    target = Path(outdir) / folder / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    here = page.parent.relative_to(outdir).as_posix()
    return posixpath.relpath(f"{folder}/{name}", here)


def externalize_inline_figures(html: str, page: Path, outdir: Path) -> str:
    """Cada ``<img src="data:image/png;base64,…">`` de ``html`` (la página ``page``
    de ``outdir``) pasa a ``_images/figura-<huella>.png``, con la ruta relativa."""
    import base64

    def move(match):
        png = base64.b64decode(match.group(2))
        href = write_by_hash(png, "_images", ".png", page, outdir,
                             prefix=INLINE_FIGURE_PREFIX)
        return f'{match.group(1)}{href}"'

    return _INLINE_PNG.sub(move, html)


# El estado de los widgets que myst-nb guarda en cada página lleva el código de cada
# widget (``_esm``, su módulo JavaScript, y ``_css``), repetido en cada widget de la
# misma clase: en el capítulo 5, 33 de sus 52 KB comprimidos. En un 4G lento, el
# primer dibujo esperaba a que llegara todo el HTML. Cada código pasa a un archivo de
# _static/widgets (su nombre es la huella de su contenido: uno para todas las páginas
# que lo usan, y el navegador lo guarda) y el estado lo nombra con «rn-archivo:» y su
# ruta relativa; _assets/js/widgets-estaticos.js lo descarga al dibujar el widget.
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_FILE = "rn-archivo:"
_WIDGET_STATE = re.compile(
    rf'(<script type="{re.escape(WIDGET_STATE)}">)(.*?)(</script>)', re.S
)
_CODE_FIELDS = {"_esm": ".js", "_css": ".css"}
# Datos binarios de un widget (los pesos de los GPT del capítulo 10): un data: URL en
# un trait, o en los valores de un trait diccionario. Van a _static/widgets/<huella>.bin
# y el widget los pide cuando los necesita, no al abrir la página.
BINARY_URL = "data:application/octet-stream;base64,"


def _externalize_binary(value, page: Path, outdir: Path):
    import base64

    if isinstance(value, str) and value.startswith(BINARY_URL):
        data = base64.b64decode(value[len(BINARY_URL):])
        path = write_by_hash(data, "_static/widgets", ".bin", page, outdir)
        return WIDGET_FILE + path
    if isinstance(value, dict):
        return {k: _externalize_binary(v, page, outdir) for k, v in value.items()}
    return value


def externalize_widget_code(html: str, page: Path, outdir: Path) -> str:
    """El ``_esm`` y el ``_css`` de cada widget del estado de ``html`` (la página
    ``page`` de ``outdir``), en ``_static/widgets/<huella>.js|.css``."""
    import json

    def move(match):
        try:
            state = json.loads(match.group(2))
        except ValueError:
            return match.group(0)
        changed = False
        for model in (state.get("state") or {}).values():
            values = model.get("state") or {}
            for field, suffix in _CODE_FIELDS.items():
                code = values.get(field)
                if not code or not isinstance(code, str) or code.startswith(
                        WIDGET_FILE):
                    continue
                values[field] = WIDGET_FILE + write_by_hash(
                    code.encode("utf-8"), "_static/widgets", suffix, page, outdir)
                changed = True
            for field, value in values.items():
                moved = _externalize_binary(value, page, outdir)
                if moved != value:
                    values[field] = moved
                    changed = True
        if not changed:
            return match.group(0)
        text = json.dumps(state, ensure_ascii=False).replace("</", "<\\/")
        return match.group(1) + text + match.group(3)

    return _WIDGET_STATE.sub(move, html)


def _write_image_sizes(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for page in outdir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        rewritten = html
        if "data:image/png;base64," in rewritten:
            rewritten = externalize_inline_figures(rewritten, page, outdir)
        if WIDGET_STATE in rewritten:
            rewritten = externalize_widget_code(rewritten, page, outdir)
        if "_images/" in rewritten:
            rewritten = size_svg_images(rewritten, page)
        if rewritten != html:
            page.write_text(rewritten, encoding="utf-8")


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
    app.connect("build-finished", _write_image_sizes, priority=940)
    # Antes que la copia de myst-nb (prioridad 500) y que el recorte (950).
    app.connect("build-finished", _forget_purged, priority=400)
    app.connect("build-finished", _write_purged, priority=950)
    app.connect("build-finished", _write_bundles, priority=960)
    app.connect("html-page-context", _defer_scripts, priority=990)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
