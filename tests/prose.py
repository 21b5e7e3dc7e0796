"""La prosa de un documento MyST, trozo a trozo: el único extractor de las pruebas.

Lo usan el corrector ortográfico (``test_spelling.py``) y el detector de números
escritos a mano (``tests/numbers.py``). Analiza con markdown-it-py configurado como
myst-parser (el mismo analizador que construye el libro, con las extensiones de
``_config.yml``), no con expresiones regulares: bloques de código, matemáticas,
comentarios, destinos, metadatos y HTML salen del árbol de tokens tal como los ve
Sphinx. Las directivas se abren: su contenido se vuelve a analizar si es prosa
(``note``, ``exercise``...) y se descarta si es código (``code-cell``, ``math``...).

Cada trozo lleva dónde está (``nombre:línea``) y si va en cursiva, negrita o entre
comillas («...», “...”): ahí el curso escribe extranjerismos y títulos en otro idioma.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Fragment:
    """Un trozo de prosa: dónde está, el texto, y si va en cursiva."""

    where: str
    text: str
    italic: bool = False


# Directivas cuyo contenido no es prosa.
CODE_DIRECTIVES = {
    "code-cell", "code-block", "code", "sourcecode", "math", "raw", "literalinclude",
    "include", "bibliography", "toctree", "tableofcontents", "eval-rst", "mermaid",
    "graphviz", "glue", "glue:any", "glue:figure", "glue:math", "csv-table",
    "camino-corto",  # book/_ext/tiempo_lectura.py: una ruta#sección por línea
}
# Directivas cuyo argumento es una ruta o una etiqueta, no un título.
NON_PROSE_ARGUMENT = CODE_DIRECTIVES | {
    "figure", "image", "solution", "solution-start", "solution-end",
    "exercise-start", "exercise-end",
}
# Roles cuyo contenido se lee tal cual.
PROSE_ROLES = {"term", "sub", "sup", "abbr", "strong", "emphasis", "guilabel"}
# Roles de enlace: se lee el texto de «texto <destino>», nunca el destino.
LINK_ROLES = {"ref", "doc", "numref", "download", "prf:ref", "eq"}
# Lo que en un token de texto no es prosa.
URL = re.compile(r"<?(?:https?|ftp)://[^\s>)\]]+>?|\bwww\.[^\s)\]]+")
DOMAIN = re.compile(r"\b[\w-]+(?:\.[\w-]+)*\.(?:org|com|edu|io|net|es|dev)\b")
FILE_EXTENSION = re.compile(
    r"(?<![\w/])\.(?:ipynb|pdf|py|md|js|html|css|json|toml|yml|yaml)\b"
)
# Comillas (y, en texto sin analizar como los docstrings, *cursiva* y **negrita**).
EMPHASIS = re.compile(
    r"(?<![*\w\\])(\*\*?)(?!\*|\s)([^*]+?)(?<!\s)\1(?!\*)"
    r"|(?<![\w\\])_(?!_|\s)([^_]+?)(?<!\s)_(?!\w)"
    r"|«([^«»]+)»|“([^“”]+)”"
)
QUOTES = re.compile(r"«([^«»]+)»|“([^“”]+)”")
DIRECTIVE = re.compile(r"^\{([\w:.-]+)\}\s*(.*)$")
OPTION = re.compile(r"^\s*:[\w-]+:")
# Tokens de línea que no son prosa: se sustituyen por un espacio.
NOT_PROSE = {
    "code_inline", "math_inline", "math_inline_double", "html_inline",
    "substitution_inline", "footnote_ref", "myst_target",
}


@cache
def _parser():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = MdParserConfig(
        enable_extensions={
            "colon_fence", "dollarmath", "amsmath", "substitution", "deflist",
        }
    )
    return create_md_parser(config, RendererHTML)


def split_italic(where: str, text: str, pattern: re.Pattern = EMPHASIS):
    """Parte un texto en trozos normales y trozos en cursiva/negrita/comillas."""
    out, last = [], 0
    for match in pattern.finditer(text):
        out.append(Fragment(where, text[last : match.start()]))
        # En EMPHASIS el primer grupo es la marca (* o **), no el texto.
        groups = match.groups()[1:] if pattern is EMPHASIS else match.groups()
        inner = next(g for g in groups if g is not None)
        out.append(Fragment(where, inner, italic=True))
        last = match.end()
    out.append(Fragment(where, text[last:]))
    return [f for f in out if f.text.strip()]


def _clean(text: str) -> str:
    for pattern in (URL, DOMAIN, FILE_EXTENSION):
        text = pattern.sub(" ", text)
    return text


def _role_text(token) -> str:
    name, content = token.meta.get("name", ""), token.content
    if name in PROSE_ROLES:
        return content
    if name in LINK_ROLES:
        match = re.match(r"^(.*?)\s*<[^>]*>$", content, re.S)
        return match.group(1) if match else ""
    return " "  # {glue:text}`…`, {cite}`…`, {math}`…`: no es prosa


def _inline_prose(token, where: str) -> list[Fragment]:
    """La prosa de un token ``inline``: (texto, cursiva) seguidos se juntan."""
    pieces: list[tuple[str, bool]] = []
    depth = 0
    for child in token.children or []:
        kind = child.type
        if kind in ("em_open", "strong_open"):
            depth += 1
        elif kind in ("em_close", "strong_close"):
            depth -= 1
        elif kind == "text":
            pieces.append((child.content, depth > 0))
        elif kind in ("softbreak", "hardbreak"):
            pieces.append(("\n", depth > 0))
        elif kind == "myst_role":
            pieces.append((_role_text(child), depth > 0))
        elif kind == "image":
            pieces.append((child.content, depth > 0))  # el texto alternativo
        elif kind in NOT_PROSE:
            pieces.append((" ", depth > 0))
    fragments: list[Fragment] = []
    merged: list[tuple[str, bool]] = []
    for text, italic in pieces:
        if merged and merged[-1][1] == italic:
            merged[-1] = (merged[-1][0] + text, italic)
        else:
            merged.append((text, italic))
    for text, italic in merged:
        text = _clean(text)
        if italic:
            if text.strip():
                fragments.append(Fragment(where, text, italic=True))
        else:
            fragments.extend(split_italic(where, text, QUOTES))
    return fragments


def _directive_body(content: str) -> tuple[str, int]:
    """El contenido de una directiva sin sus opciones; y cuántas líneas se quitaron."""
    lines = content.split("\n")
    skipped = 0
    if lines and lines[0].strip() == "---":  # opciones en YAML
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        skipped = end + 1
    else:
        while skipped < len(lines) and OPTION.match(lines[skipped]):
            skipped += 1
    return "\n".join(lines[skipped:]), skipped


def markdown_prose(text: str, name: str, line_offset: int = 0) -> list[Fragment]:
    """Los trozos de prosa de un documento MyST, con la línea donde empieza cada
    párrafo (contada desde 1)."""
    fragments: list[Fragment] = []
    for token in _parser().parse(text):
        line = line_offset + (token.map[0] + 1 if token.map else 0)
        if token.type == "inline":
            fragments += _inline_prose(token, f"{name}:{line}")
        elif token.type in ("fence", "colon_fence"):
            directive = DIRECTIVE.match(token.info.strip())
            if not directive:
                continue  # bloque de código
            kind, argument = directive.groups()
            if kind in CODE_DIRECTIVES:
                continue
            if argument and kind not in NON_PROSE_ARGUMENT:
                fragments += markdown_prose(argument, name, line - 1)
            body, skipped = _directive_body(token.content)
            fragments += markdown_prose(body, name, line + skipped)
    return fragments


def prose_text(text: str) -> str:
    """Toda la prosa de un documento MyST, en un solo texto (trozos por líneas)."""
    return "\n".join(f.text for f in markdown_prose(text, ""))
