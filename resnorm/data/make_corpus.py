"""Genera ``corpus_es.txt``: la prosa del curso, congelada en un commit (Capítulo 10).

La entrada es explícita: las celdas markdown de los capítulos y las páginas de
``book/`` tal como estaban en el commit ``SOURCE_COMMIT``, leídas con
``git show <commit>:<ruta>``. Así el corpus no cambia aunque los capítulos se sigan
editando, y cualquiera puede regenerarlo byte a byte desde el repositorio::

    python -m resnorm.data.make_corpus           # reescribe corpus_es.txt
    python -m resnorm.data.make_corpus --check   # solo comprueba que coincide

Se quita todo lo que no es prosa: código (bloques y ``en línea``), fórmulas ($…$ y
$$…$$), HTML/SVG, tablas, enlaces (queda su texto), roles del libro (``{term}`x``` deja
``x``; ``{glue:text}``, ``{cite:p}`` y similares desaparecen) y las líneas de opciones
de las directivas. Cada párrafo queda en una línea.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

SOURCE_COMMIT = "9d2c17362b76cce079965d1a6d2e59a0d3643b4c"
SOURCES = (
    "book/intro.md",
    "book/como-usar.md",
    "notebooks/01_problema_apilar.ipynb",
    "notebooks/02_conexion_residual.ipynb",
    "notebooks/03_media_desviacion.ipynb",
    "notebooks/04_layernorm.ipynb",
    "notebooks/05_gamma_beta.ipynb",
    "notebooks/06_variantes.ipynb",
    "notebooks/07_bloque_completo.ipynb",
    "notebooks/08_perro_paso_a_paso.ipynb",
    "notebooks/09_profundidad.ipynb",
    "notebooks/10_resumen.ipynb",
    "notebooks/11_cuanto_cuesta_normalizar.ipynb",
    "book/glosario.md",
)
OUTPUT = Path(__file__).with_name("corpus_es.txt")

# Directivas cuyo argumento es prosa (un título); las demás lo pierden.
_TITLED = ("exercise", "admonition")
# Directivas cuyo contenido no es prosa.
_DROPPED = ("code-cell", "code", "math", "bibliography", "estadisticas-ejecucion",
            "figure", "image", "raw", "list-table", "csv-table")

# {term}`x`, {term}`x <y>`, {doc}`título <ruta>`: queda el texto que se lee.
_ROLE_KEEP = re.compile(
    r"\{(?:term|doc|ref|numref)\}`([^`<]+?)\s*<[^`]*>`|\{term\}`([^`<]+)`"
)
_ROLE_DROP = re.compile(r"\{[\w:-]+\}`[^`]*`")
_FENCE = re.compile(r"^(`{3,}|:{3,})\s*(\{([\w-]+)\})?\s*(.*)$")


def read_at_commit(path: str, commit: str = SOURCE_COMMIT, root: Path | None = None
                   ) -> str:
    """El texto de ``path`` en ``commit``, con ``git show`` (no el de la carpeta)."""
    root = Path(__file__).resolve().parents[2] if root is None else root
    out = subprocess.run(["git", "-C", str(root), "show", f"{commit}:{path}"],
                         check=True, capture_output=True)
    return out.stdout.decode("utf-8")


def markdown_of(path: str, text: str) -> str:
    """El markdown de una página; de un notebook, sus celdas markdown en orden."""
    if not path.endswith(".ipynb"):
        return text
    import json

    cells = json.loads(text)["cells"]
    markdown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    return "\n\n".join(markdown)


def _strip_blocks(markdown: str) -> list[str]:
    """Quita bloques de código, fórmulas y opciones; deja las líneas de prosa."""
    lines: list[str] = []
    stack: list[tuple[str, bool]] = []  # (cierre, ¿se descarta el contenido?)
    in_math = False
    for line in markdown.splitlines():
        stripped = line.strip()
        if in_math:
            in_math = not stripped.endswith("$$")
            continue
        if stripped.startswith("$$"):
            in_math = not (len(stripped) > 2 and stripped.endswith("$$"))
            lines.append("")
            continue
        m = _FENCE.match(stripped)
        if m and stack and stripped == stack[-1][0]:
            stack.pop()
            lines.append("")
            continue
        if m and (m.group(2) or m.group(1).startswith("`")):
            name = m.group(3) or ""
            dropped = (not name) or name in _DROPPED or any(d for _, d in stack)
            stack.append((m.group(1), dropped))
            if not dropped and name in _TITLED and m.group(4):
                lines.append(m.group(4))
            lines.append("")
            continue
        if any(d for _, d in stack):
            continue
        if stack and re.match(r"^:[\w-]+:", stripped):
            continue  # opciones de una directiva (:class:, :label:...)
        if stripped.startswith(("|", "<")) or stripped.endswith(">") or "{{" in line:
            lines.append("")  # tablas, HTML/SVG en bloque y plantillas
            continue
        lines.append(line)
    return lines


HOLE = "\x00"  # marca lo quitado de una frase: esa frase sale del corpus


def _clean_inline(text: str) -> str:
    text = re.sub(r"\{cite:\w+\}`[^`]*`(\s*\(§[^)]*\))?", "", text)  # citas
    text = _ROLE_KEEP.sub(lambda m: m.group(1) or m.group(2), text)
    text = _ROLE_DROP.sub(HOLE, text)  # números pegados y demás roles
    text = re.sub(r"`[^`]*`", HOLE, text)  # código en línea
    text = re.sub(r"\$[^$]*\$", HOLE, text)  # fórmulas en línea
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", HOLE, text)  # imágenes
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # enlaces: su texto
    text = re.sub(r"<[^>]+>", HOLE, text)  # HTML en línea
    text = re.sub(r"^#+\s*", "", text)  # títulos
    text = re.sub(r"^\s*(?:[-*+]|\d+\.)\s+", "", text)  # viñetas
    text = text.replace("**", "").replace("*", "").replace("\\", "")
    text = re.sub(r"\s+", " ", text).strip()
    # Una frase con un hueco (una fórmula, un número pegado...) ya no se lee: fuera.
    sentences = re.split(r"(?<=[.?!:])\s+(?=[¿¡«(A-ZÁÉÍÓÚÑ0-9])", text)
    kept = " ".join(s for s in sentences if HOLE not in s)
    return re.sub(r"\s+([,.;:)])", r"\1", kept).strip()


def prose(markdown: str) -> list[str]:
    """Los párrafos de prosa de una página del libro, cada uno en una sola línea."""
    paragraphs, current = [], []
    for line in _strip_blocks(markdown) + [""]:
        starts_item = re.match(r"^\s*(?:[-*+]|\d+\.)\s+", line)
        if not line.strip() or starts_item:
            if current:
                paragraphs.append(" ".join(current))
            current = []
        if line.strip():
            current.append(line.strip())
    cleaned = (_clean_inline(p) for p in paragraphs)
    return [p for p in cleaned if len(p) >= 20]  # fuera restos sueltos


def build_corpus(read=read_at_commit, sources=SOURCES) -> str:
    """El corpus completo: los párrafos de cada fuente, en orden, uno por línea."""
    paragraphs: list[str] = []
    for path in sources:
        paragraphs += prose(markdown_of(path, read(path)))
    return "\n".join(paragraphs) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="no escribe: falla si corpus_es.txt no coincide")
    args = parser.parse_args(argv)
    text = build_corpus()
    if args.check:
        same = OUTPUT.read_text(encoding="utf-8") == text
        print("corpus_es.txt coincide" if same else "corpus_es.txt NO coincide")
        return 0 if same else 1
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"{OUTPUT.name}: {len(text)} caracteres, {len(set(text))} distintos")
    return 0


if __name__ == "__main__":
    sys.exit(main())
