"""Empaquetador de los widgets: un único módulo ES por widget, sin imports relativos.

Infraestructura de los widgets (sin capítulo). Un ESM de anywidget se carga como un
único módulo, sin resolver imports relativos: ``bundle`` incrusta ``compute.js`` y
``ui.js`` en el módulo de cada widget; ``minify_css`` aligera ``widgets.css``.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

__all__ = ["bundle", "minify_css", "read_css", "strip_comments"]

_HERE = Path(__file__).resolve().parent

# Un import relativo con nombres: import { a, b } from "./compute.js"; también de una
# carpeta hermana (las preguntas usan los ayudantes de los widgets):
# import { h } from "../widgets/dom.js";
_IMPORT_RE = re.compile(
    r"^import\s*\{(?P<names>[^}]*)\}\s*from\s*[\"']"
    r"(?P<file>\./[\w.-]+\.js|\.\./[\w-]+/[\w.-]+\.js)[\"'];?[ \t]*$",
    re.M,
)
_ANY_IMPORT_RE = re.compile(r"^\s*import\b|\bimport\s*\(", re.M)
_EXPORT_RE = re.compile(
    r"^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+"
    r"(?P<name>[A-Za-z_$][\w$]*)",
    re.M,
)


def _module_var(filename: str) -> str:
    """``a.js`` → ``__rn_a``; ``../widgets/dom.js`` → ``__rn_widgets_dom``."""
    name = re.sub(r"^(?:\.\./)+", "", filename)[: -len(".js")]
    return "__rn_" + re.sub(r"\W", "_", name)


def _relative(importer: str, target: str) -> str:
    """La ruta de ``target`` (tal como la escribe ``importer``) desde la carpeta de
    entrada: ``("../widgets/ui.js", "./compute.js")`` → ``"../widgets/compute.js"``."""
    return posixpath.normpath(posixpath.join(posixpath.dirname(importer), target))


def strip_comments(text: str) -> str:
    """Quita los comentarios de línea completa (``// ...`` y bloques ``/** ... */``).

    Infraestructura de los widgets (sin capítulo). Solo los que ocupan líneas
    enteras: nunca toca un ``//`` dentro de una línea de código (podría estar en un
    texto). También quita las líneas en blanco, así que los ``.js`` no usan
    literales de plantilla de varias líneas. Aligera el estado guardado del widget;
    los comentarios siguen en los ``.js`` del repositorio.
    """
    out = []
    in_block = False
    for line in text.splitlines():
        stripped = line.strip()
        if in_block:
            in_block = "*/" not in stripped
            continue
        if stripped.startswith("/*"):
            if "*/" in stripped and not stripped.endswith("*/"):
                out.append(line)  # código detrás del comentario: se conserva
                continue
            in_block = "*/" not in stripped
            continue
        if stripped.startswith("//") or not stripped:
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def _parse_names(names: str, filename: str) -> list[str]:
    out = [n.strip() for n in names.split(",") if n.strip()]
    for name in out:
        if not re.fullmatch(r"[A-Za-z_$][\w$]*", name):
            raise ValueError(
                f"bundle: «{name}» en el import de {filename} no es un nombre simple "
                "(no se admiten alias «as»)"
            )
    return out


def bundle(entry: str, directory: Path | None = None) -> str:
    """Módulo ES único para el ``_esm`` de un widget: incrusta sus imports relativos.

    Infraestructura de los widgets (sin capítulo).

    Cada dependencia (``compute.js``, ``ui.js``...) se envuelve en una función que
    devuelve sus exportaciones, una sola vez y antes de quien la usa:

        const __rn_compute = (() => { ...código...; return { formatNumber }; })();
        const { formatNumber } = __rn_compute;

    Así no chocan los nombres internos de módulos distintos. Solo se admite
    ``import { a, b } from "./archivo.js";`` o ``from "../carpeta/archivo.js"`` (sin
    alias, sin ``export default`` en las dependencias); cualquier otra forma lanza
    ``ValueError``: mejor fallar aquí que en el navegador. El módulo de entrada
    conserva su ``export default``.
    """
    directory = _HERE if directory is None else Path(directory)
    order: list[str] = []
    exports: dict[str, list[str]] = {}
    bodies: dict[str, str] = {}
    visiting: set[str] = set()

    def rewrite(filename: str, text: str) -> str:
        def repl(match: re.Match) -> str:
            # La ruta, relativa a la carpeta de entrada: «./a.js» → «a.js».
            dep = _relative(filename, match.group("file"))
            names = _parse_names(match.group("names"), filename)
            visit(dep)
            missing = [n for n in names if n not in exports[dep]]
            if missing:
                raise ValueError(
                    f"bundle: {filename} importa {missing} de {dep}, que no los exporta"
                )
            return f"const {{ {', '.join(names)} }} = {_module_var(dep)};"

        text = _IMPORT_RE.sub(repl, text)
        if _ANY_IMPORT_RE.search(text):
            raise ValueError(
                f"bundle: {filename} tiene un import que no es de la forma "
                '`import { a, b } from "./archivo.js";` (p. ej. una URL o un alias)'
            )
        return text

    def visit(filename: str) -> None:
        if filename in bodies:
            return
        if filename in visiting:
            raise ValueError(f"bundle: import circular con {filename}")
        visiting.add(filename)
        text = strip_comments((directory / filename).read_text(encoding="utf-8"))
        if re.search(r"^export\s+(default|\{)", text, re.M):
            raise ValueError(
                f"bundle: la dependencia {filename} no puede tener «export default» "
                "ni «export { ... }»: exporta cada función o constante en su línea"
            )
        exports[filename] = [m.group("name") for m in _EXPORT_RE.finditer(text)]
        text = rewrite(filename, text)
        bodies[filename] = re.sub(r"^export\s+", "", text, flags=re.M)
        order.append(filename)
        visiting.discard(filename)

    entry_text = strip_comments((directory / entry).read_text(encoding="utf-8"))
    if not re.search(r"^export\s+default\b", entry_text, re.M):
        raise ValueError(f"bundle: {entry} debe tener «export default {{ render }}»")
    entry_text = rewrite(entry, entry_text)
    parts = [f"// {entry}, con sus dependencias incrustadas por resnorm.widgets.bundle"]
    for filename in order:
        names = ", ".join(exports[filename])
        parts.append(
            f"// ---- {filename}\n"
            f"const {_module_var(filename)} = (() => {{\n{bodies[filename]}\n"
            f"return {{ {names} }};\n}})();"
        )
    parts.append(f"// ---- {entry}\n{entry_text}")
    return "\n".join(parts)


def minify_css(css: str) -> str:
    """CSS sin comentarios ni espacios sobrantes (el estado guardado pesa menos).

    Infraestructura de los widgets (sin capítulo). Conserva el espacio antes de «:»
    (en ``.a :focus-visible`` es un combinador).
    """
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\s+", " ", css)
    return re.sub(r"\s*([{};,])\s*", r"\1", css).strip()


def read_css(sheet: Path | None = None) -> str:
    """Los colores del tema (``colores.css``) y la hoja ``sheet`` (por defecto la común
    de los widgets, ``widgets.css``), ya aligerados.

    Las preguntas pasan ``quiz.css``.
    """
    sheet = _HERE / "widgets.css" if sheet is None else Path(sheet)
    parts = (_HERE / "colores.css", sheet)
    return minify_css("\n".join(p.read_text(encoding="utf-8") for p in parts))
