"""El camino de quien aprende por la página (issue 50): lo que se lee en las fuentes.

* Ninguna celda de importaciones trae ``Quiz`` sin usarlo: lo importa la celda de
  preguntas que lo usa (oculta en la página), y la celda que se lee no nombra lo que
  nunca aparece en ella (como ruff F401, con el AST de cada celda).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb"))


def _code_cells(path: Path):
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            yield "".join(cell["source"]), cell.get("metadata", {}).get("tags", [])


def _tree(source: str) -> ast.Module:
    """El AST de una celda; las líneas mágicas (``%``, ``!``) cuentan como ``pass``."""
    lines = []
    for line in source.splitlines():
        body = line.lstrip()
        lines.append(line[: len(line) - len(body)] + "pass"
                     if body.startswith(("%", "!")) else line)
    return ast.parse("\n".join(lines))


def _imported_from(tree: ast.Module, module: str) -> set[str]:
    return {alias.asname or alias.name for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == module
            for alias in node.names}


def _used(tree: ast.Module) -> set[str]:
    return {node.id for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_quiz_is_imported_only_by_the_cells_that_use_it(path):
    """Issue 50: cada celda de importaciones traía un ``Quiz`` que la página nunca
    muestra en uso. Lo importa, y lo usa, la celda de cada bloque de preguntas."""
    quiz_cells = 0
    for source, tags in _code_cells(path):
        tree = _tree(source)
        unused = _imported_from(tree, "resnorm.quiz") - _used(tree)
        assert not unused, (
            f"{path.name}: una celda importa {sorted(unused)} de resnorm.quiz y no lo "
            f"usa:\n{source}")
        if "Quiz" in _used(tree):
            quiz_cells += 1
            assert "Quiz" in _imported_from(tree, "resnorm.quiz"), (
                f"{path.name}: la celda de preguntas usa Quiz sin importarlo (se "
                f"ejecuta sola, plegada en el cuaderno):\n{source}")
            assert {"remove-input", "hide-input"} & set(tags), source
    assert quiz_cells, f"{path.name} no tiene preguntas"


def test_the_unused_import_check_sees_an_unused_quiz():
    """La comprobación de arriba no pasa siempre: con la línea de antes, falla."""
    old = _tree("import numpy as np\nfrom resnorm.quiz import Quiz\nx = np.ones(3)")
    assert _imported_from(old, "resnorm.quiz") - _used(old) == {"Quiz"}
    new = _tree('from resnorm.quiz import Quiz\nQuiz.from_bank("media", "sigma")')
    assert not _imported_from(new, "resnorm.quiz") - _used(new)
