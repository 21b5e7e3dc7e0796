"""Sin JavaScript, la página sigue el modo de color del sistema (issue 50).

El tema (pydata-sphinx-theme 0.16) escribe ``<html data-theme="auto">`` y sus colores
(los del texto, los enlaces, el resaltado de código de Pygments) cuelgan de
``html[data-theme=light]`` y ``html[data-theme=dark]``: el script en línea de
``layout.html`` resuelve «auto» a uno de los dos. Sin JavaScript nadie lo resuelve, y
la página salía sin colores de sintaxis y con los enlaces en negro.

Aquí, al terminar la construcción, se escribe ``_static/css/tema-sin-js.css``: cada
regla de las hojas del sitio que nombra un modo, copiada para ``data-theme="auto"``
dentro de ``@media (prefers-color-scheme: …)``. ``layout.html`` la enlaza dentro de
``<noscript>``: con JavaScript no se descarga. Se deriva de las hojas construidas (las
del tema, las de Pygments que escribe el tema y las del curso), no se copian sus
valores a mano: si el tema cambia un color, la copia cambia con él.

Las hojas se leen con un lector de CSS mínimo (``parse_rules``): tinycss2 no está en
el entorno del libro (solo en el de las pruebas), y añadirlo a requirements.txt haría
ejecutar otra vez todos los capítulos. Basta con separar reglas, bloques
condicionales, comentarios y cadenas; lo prueban tests/test_camino_alumno.py.
"""

from __future__ import annotations

import re
from pathlib import Path

#: Dónde queda, relativo a la salida HTML.
SHEET = "_static/css/tema-sin-js.css"
#: Las hojas en el orden en que las enlaza cada página (la cascada entre reglas de la
#: misma especificidad lo respeta); después, las demás del curso.
FIRST = ("pygments.css", "styles/pydata-sphinx-theme.css",
         "styles/sphinx-book-theme.css", "sphinx-design.min.css")
# Un modo en un selector: [data-theme=dark], [data-theme="dark"]; el claro también es
# el de html:not([data-theme]) (el tema lo usa para una página sin atributo).
_MODE = {
    "dark": re.compile(r"""\[data-theme=(["']?)dark\1\]"""),
    "light": re.compile(r"""\[data-theme=(["']?)light\1\]|:not\(\[data-theme\]\)"""),
}
AUTO = '[data-theme="auto"]'
MEDIA = {"dark": "(prefers-color-scheme: dark)",
         "light": "not all and (prefers-color-scheme: dark)"}


def split_selectors(prelude: str) -> list[str]:
    """Los selectores de una lista («a, b:not(.x, .y)»), sin partir los paréntesis."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(prelude):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(prelude[start:i])
            start = i + 1
    parts.append(prelude[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_rules(css: str) -> list[tuple[str, str | list]]:
    """Las reglas de una hoja: ``(preludio, declaraciones)`` o, en una regla
    condicional (@media, @supports), ``(preludio, [reglas de dentro])``. Lo demás
    (@import, @font-face, @keyframes…) queda como declaraciones: no nombra un modo."""
    rules, _ = _parse_block(re.sub(r"/\*.*?\*/", "", css, flags=re.S), 0)
    return rules


def _skip_string(css: str, i: int) -> int:
    quote, i = css[i], i + 1
    while i < len(css) and css[i] != quote:
        i += 2 if css[i] == "\\" else 1
    return i + 1


def _parse_block(css: str, i: int) -> tuple[list, int]:
    rules, start = [], i
    while i < len(css):
        ch = css[i]
        if ch in "\"'":
            i = _skip_string(css, i)
        elif ch == ";":  # @import …; @charset …;
            start = i = i + 1
        elif ch == "}":
            return rules, i + 1
        elif ch == "{":
            prelude = css[start:i].strip()
            if re.match(r"@(media|supports)\b", prelude, re.I):
                inner, i = _parse_block(css, i + 1)
                rules.append((prelude, inner))
            else:
                body_start, depth, i = i + 1, 1, i + 1
                while i < len(css) and depth:
                    if css[i] in "\"'":
                        i = _skip_string(css, i)
                        continue
                    depth += {"{": 1, "}": -1}.get(css[i], 0)
                    i += 1
                rules.append((prelude, css[body_start:i - 1]))
            start = i
        else:
            i += 1
    return rules, i


def rules_for(rules, mode: str) -> list[str]:
    """Las reglas de ``rules`` (``parse_rules``) que nombran ``mode``, para
    ``data-theme="auto"``.

    Solo se quedan los selectores de la lista que nombran ese modo; las reglas
    condicionales (@media, @supports) se recorren por dentro y conservan su condición.
    """
    out = []
    for prelude, body in rules:
        if isinstance(body, list):
            inner = rules_for(body, mode)
            if inner:
                out.append(f"{prelude}{{{''.join(inner)}}}")
        elif not prelude.startswith("@"):
            selectors = [_MODE[mode].sub(AUTO, s) for s in split_selectors(prelude)
                         if _MODE[mode].search(s)]
            if selectors:
                out.append(f"{','.join(selectors)}{{{body}}}")
    return out


def fallback_css(sheets: list[str]) -> str:
    """La hoja sin JavaScript a partir del texto de ``sheets``, en orden."""
    parsed = [parse_rules(text) for text in sheets]
    blocks = ["/* Generada por book/_ext/tema_sin_js.py: no se edita a mano. */"]
    for mode in ("light", "dark"):
        rules = [r for sheet in parsed for r in rules_for(sheet, mode)]
        blocks.append(f"@media {MEDIA[mode]}{{\n" + "\n".join(rules) + "\n}")
    return "\n".join(blocks) + "\n"


def site_sheets(static: Path) -> list[Path]:
    """Las hojas de ``_static`` que nombran un modo, en el orden de ``FIRST``."""
    found = [p for p in sorted(static.rglob("*.css"))
             if "vendor" not in p.relative_to(static).parts
             and p.relative_to(static).as_posix() != SHEET.removeprefix("_static/")
             and "data-theme" in p.read_text(encoding="utf-8")]
    rank = {name: i for i, name in enumerate(FIRST)}
    return sorted(found, key=lambda p: (rank.get(p.relative_to(static).as_posix(),
                                                 len(FIRST)), p.as_posix()))


def _write(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    sheets = [p.read_text(encoding="utf-8") for p in site_sheets(out / "_static")]
    target = out / SHEET
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(fallback_css(sheets), encoding="utf-8")


def sheet_version(outdir: Path, css_files) -> str:
    """El ``?v=`` del enlace a la hoja: la hoja se escribe al final (de las hojas ya
    construidas), después de las páginas, así que su suma no existe al escribirlas.
    Se deriva de lo que la produce: este módulo y cada hoja que la página enlaza, con
    la suma que Sphinx le pone (la del archivo en ``_static`` al escribir la página) o
    la que lleva su nombre (``?digest=`` del tema). Si cambia una de esas hojas, o
    cómo se deriva, cambia el ``?v=``; en frío y en caliente es el mismo."""
    import hashlib
    import zlib

    digest = hashlib.sha256(Path(__file__).read_bytes())
    for css in css_files:
        name = str(getattr(css, "filename", css))
        digest.update(name.encode())
        path = outdir / name.partition("?")[0]
        if "?" not in name and "://" not in name and path.is_file():
            # La misma suma que Sphinx pone a ese enlace (CRC32 del archivo).
            digest.update(f"{zlib.crc32(path.read_bytes()):08x}".encode())
    return digest.hexdigest()[:8]


def _page_context(app, pagename, templatename, context, doctree) -> None:
    context["tema_sin_js_v"] = sheet_version(Path(app.outdir),
                                             context.get("css_files", []))


def setup(app) -> dict:
    app.connect("html-page-context", _page_context)
    # Después de que el tema escriba pygments.css y tema_ligero.py recorte las hojas.
    app.connect("build-finished", _write, priority=995)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
