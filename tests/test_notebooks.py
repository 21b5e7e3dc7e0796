"""Los capítulos son fuentes: se guardan sin salidas y cada uno corre solo, de arriba
abajo, en un núcleo nuevo."""

from __future__ import annotations

import json

import pytest

from tests.helpers import ROOT, notebook_paths, toc_files

NOTEBOOKS = notebook_paths()
ALL_NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_the_book_has_notebooks():
    assert NOTEBOOKS, "_toc.yml no incluye ningún notebook"


def test_every_notebook_in_the_folder_is_in_the_toc():
    in_toc = {p.resolve() for p in NOTEBOOKS}
    stray = [p.name for p in ALL_NOTEBOOKS if p.resolve() not in in_toc]
    assert not stray, f"Notebooks fuera de _toc.yml: {stray}"


def test_every_toc_entry_exists():
    missing = [
        f for f in toc_files()
        if not any((ROOT / f"{f}{ext}").exists() for ext in (".md", ".ipynb"))
    ]
    assert not missing, f"_toc.yml nombra archivos que no existen: {missing}"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = [
        i for i, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count"))
    ]
    assert not dirty, f"{path.name}: celdas con salidas o contador de ejecución: {dirty}"
    assert "widgets" not in nb.get("metadata", {}), f"{path.name}: estado de widgets guardado"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom_on_a_fresh_kernel(path, executed_notebooks):
    nb = executed_notebooks(path)
    errors = [
        out for cell in nb.cells if cell.cell_type == "code"
        for out in cell.get("outputs", []) if out.get("output_type") == "error"
    ]
    assert not errors
    assert any(cell.cell_type == "code" for cell in nb.cells)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_imports_resnorm_and_keeps_logic_there(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "resnorm" in code, f"{path.name} no importa resnorm"
    assert "sys.path" not in code, f"{path.name}: nada de trucos con sys.path"
