"""El camino de quien aprende por la página (issue 50): lo que se lee en las fuentes.

* Ninguna celda de importaciones trae ``Quiz`` sin usarlo: lo importa la celda de
  preguntas que lo usa (oculta en la página), y la celda que se lee no nombra lo que
  nunca aparece en ella (como ruff F401, con el AST de cada celda).
"""

from __future__ import annotations

import ast
import json
import re
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


# --- Las pistas: un solo marcado ------------------------------------------------------

_HINT_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<directive>[\w-]+)\}\s*Pista\b",
                        re.M)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_hint_is_a_folded_admonition_in_the_source(path):
    """Issue 50: las pistas de los capítulos 1, 9 y 11 eran ``{dropdown}`` de
    sphinx-design; las demás, ``{admonition}`` con ``:class: dropdown``. Una sola."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        for hint in _HINT_OPEN.finditer(text):
            # Con ``` o con ::: (colon_fence), la misma directiva: el mismo HTML.
            assert hint["directive"] == "admonition", f"{path.name}: {hint.group(0)!r}"
            options = text[hint.end():].split("\n", 2)[1]
            assert options.strip() == ":class: dropdown", (path.name, options)


@pytest.mark.build
def test_every_hint_on_the_site_has_the_same_markup(built_site):
    """En el sitio construido, cada «Pista N» es la misma caja plegable."""
    from bs4 import BeautifulSoup

    seen = 0
    for path in NOTEBOOKS:
        page = built_site / "notebooks" / f"{path.stem}.html"
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        titles = [t for t in soup.select(".bd-article p.admonition-title, "
                                         ".bd-article summary")
                  if re.match(r"Pista \d", t.get_text(" ", strip=True))]
        assert titles, f"{page.name}: sin pistas"
        for title in titles:
            box = title.find_parent(class_="admonition")
            assert title.name == "p" and box is not None, (page.name, str(title)[:80])
            assert set(box["class"]) == {"admonition", "dropdown"} | (
                {c for c in box["class"] if c.startswith("admonition-")}), box["class"]
            seen += 1
    assert seen >= 2 * len(NOTEBOOKS) - 4


# --- Sin JavaScript: los colores del modo del sistema -------------------------------

def test_the_no_js_sheet_copies_each_mode_rule_for_auto():
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import tema_sin_js as t

    css = ("/* a{b:c} */ html[data-theme=dark]{--x:#000}"
           "html:not([data-theme]),html[data-theme=light]{--x:#fff}"
           "p{color:red}"
           "html[data-theme=dark] img:not(.a,.b){filter:none}"
           '@media (min-width:5px){html[data-theme="dark"] .k{content:"}{"}}'
           "@font-face{font-family:x}")
    out = t.fallback_css([css])
    light, dark = out.split("@media (prefers-color-scheme: dark)")
    assert 'html[data-theme="auto"]{--x:#fff}' in light
    assert "#000" not in light and "color:red" not in out
    assert 'html[data-theme="auto"]{--x:#000}' in dark
    assert 'html[data-theme="auto"] img:not(.a,.b){filter:none}' in dark
    assert '@media (min-width:5px){html[data-theme="auto"] .k{content:"}{"}}' in dark
    assert "font-face" not in out and "a{b:c}" not in out
    assert t.split_selectors("a, b:not(.x, .y) ,c") == ["a", "b:not(.x, .y)", "c"]
