"""Los capítulos son fuentes: se guardan sin salidas y cada uno corre solo, de arriba
abajo, en un núcleo nuevo (la ejecución de «make book», leída de su caché)."""

from __future__ import annotations

import ast
import json
import re

import pytest

from tests.helpers import ROOT, notebook_paths, toc_files

# Los borradores también: se ejecutan con los demás y sus fuentes siguen las reglas.
NOTEBOOKS = notebook_paths(drafts=True)
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
        if cell["cell_type"] == "code"
        and (cell.get("outputs") or cell.get("execution_count"))
    ]
    assert not dirty, (
        f"{path.name}: celdas con salidas o contador de ejecución: {dirty}"
    )
    assert "widgets" not in nb.get("metadata", {}), (
        f"{path.name}: estado de widgets guardado"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_ran_top_to_bottom_without_errors(path, executed_notebooks):
    # La ejecución de «make book» (núcleo nuevo, de arriba abajo): cada celda de código
    # no vacía se ejecutó, en orden, y ninguna dejó un error.
    nb = executed_notebooks(path)
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert code, f"{path.name}: sin celdas de código"
    counts = [c.get("execution_count") for c in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name}: celdas sin ejecutar o fuera de orden: {counts}"
    )
    errors = [
        (i, out.get("ename"))
        for i, cell in enumerate(code)
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors, f"{path.name}: celdas con error: {errors}"


@pytest.mark.build
def test_a_notebook_edited_after_the_build_is_not_read_from_the_cache(
    tmp_path, executed_notebooks
):
    # Las pruebas nunca leen salidas de otro código: si el fuente cambió, la caché
    # no tiene esa ejecución y se pide «make book».
    import nbformat

    from tests.helpers import built_notebook

    path = NOTEBOOKS[0]
    assert executed_notebooks(path).cells  # el original sí está
    nb = nbformat.read(path, as_version=4)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.source += "\nx_editado = 1"
    edited = tmp_path / path.name
    nbformat.write(nb, edited)
    with pytest.raises(RuntimeError, match="make book"):
        built_notebook(edited)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_imports_resnorm_and_keeps_logic_there(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = "\n".join(
        "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"
    )
    assert "resnorm" in code, f"{path.name} no importa resnorm"
    assert "sys.path" not in code, f"{path.name}: nada de trucos con sys.path"


# --- Celdas «hide-input» --------------------------------------------------------------


def _is_glue_call(node: ast.stmt) -> bool:
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    func = node.value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name.startswith("glue")


def holds_learner_code(source: str) -> bool:
    """Si una celda tiene algo más que importaciones, llamadas a ``glue*`` y blancos."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return True  # magias de IPython u otra cosa: no es «solo glue»
    return any(
        not isinstance(node, (ast.Import, ast.ImportFrom)) and not _is_glue_call(node)
        for node in tree.body
    )


def test_learner_code_detector():
    assert not holds_learner_code("import numpy as np\n\nglue('a', 1.0)\n")
    assert not holds_learner_code("from myst_nb import glue\nbook.glue_number('x', m)")
    assert not holds_learner_code("# solo un comentario\n")
    assert holds_learner_code("x = layer_norm(v)\nglue('x', x)")
    assert holds_learner_code("show('mu', mean(x), label='μ')")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_hide_input_cells_hold_learner_code(path):
    # Una celda «hide-input» muestra su salida y esconde el código tras un botón: si
    # solo pega valores, el botón abre una celda sin nada que aprender (va en una
    # celda «remove-cell»).
    nb = json.loads(path.read_text(encoding="utf-8"))
    empty = [
        i for i, c in enumerate(nb["cells"])
        if c["cell_type"] == "code"
        and "hide-input" in c.get("metadata", {}).get("tags", [])
        and not holds_learner_code("".join(c["source"]))
    ]
    assert not empty, f"{path.name}: celdas hide-input sin código del curso: {empty}"


# --- Sin fontanería en el código que lee el alumno ------------------------------------

def _python_source(source: str) -> str:
    """El código de una celda como Python, con las magias de IPython (``%pip``)
    traducidas."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def plumbing_calls(source: str) -> list[str]:
    """La fontanería del libro en una celda: ``show``, ``show_figure``, ``glue*`` y las
    importaciones de ``resnorm.book`` o de ``myst_nb``. Lista vacía si no hay."""
    try:
        tree = ast.parse(_python_source(source))
    except SyntaxError as error:
        return [f"no se puede analizar ({error.msg}, línea {error.lineno})"]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                name, owner = func.id, None
            elif isinstance(func, ast.Attribute):
                name = func.attr
                owner = func.value.id if isinstance(func.value, ast.Name) else None
            else:
                continue
            # plt.show() sí es del alumno; book.show(...) y show(...) no.
            if name.startswith("glue") or name == "show_figure" or (
                name == "show" and owner in (None, "book")
            ):
                found.append(f"{name}(…), línea {node.lineno}")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = {alias.name for alias in node.names}
            if module.startswith(("resnorm.book", "myst_nb")) or (
                module == "resnorm" and "book" in names
            ):
                found.append(f"from {module} import …, línea {node.lineno}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(("resnorm.book", "myst_nb")):
                    found.append(f"import {alias.name}, línea {node.lineno}")
    return found


def test_plumbing_detector():
    assert plumbing_calls('show("media", mu, label="μ")')
    assert plumbing_calls("book.show('m', m)\nbook.show_figure(fig, alt='Una recta.')")
    assert plumbing_calls('glue_vector("v", v, decimals=3)')
    assert plumbing_calls("for n, v in pares:\n    glue_number(n, v)")
    assert plumbing_calls("from resnorm.book import glue_number")
    assert plumbing_calls("from resnorm import book, layer_norm")
    assert plumbing_calls("import resnorm.book as book")
    assert plumbing_calls("from myst_nb import glue")
    assert plumbing_calls("%matplotlib inline\nglue_number('x', x)")
    assert not plumbing_calls('sigma = pasos.std()\nprint(f"σ = {sigma:.6f}")')
    assert not plumbing_calls("import matplotlib.pyplot as plt\nplt.show()")
    assert not plumbing_calls("%pip install resnorm\nfrom resnorm import layer_norm")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_visible_code_has_no_plumbing(path):
    # Lo que el alumno lee y copia (toda celda que no sea «remove-cell», también las
    # «hide-input») calcula e imprime como lo escribiría cualquiera; pegar el valor
    # para la prosa (glue) va en una celda «remove-cell» detrás, con esa misma
    # variable.
    nb = json.loads(path.read_text(encoding="utf-8"))
    problems = [
        f"celda {i} ({cell.get('id', '?')}): {call}"
        for i, cell in enumerate(nb["cells"])
        if cell["cell_type"] == "code"
        and "remove-cell" not in cell.get("metadata", {}).get("tags", [])
        for call in plumbing_calls("".join(cell["source"]))
    ]
    assert not problems, (
        f"{path.name}: fontanería del libro en código visible:\n" + "\n".join(problems)
    )


def test_chapter_numbers_follow_the_numbered_parts_of_the_toc(tmp_path):
    from tests.helpers import chapter_numbers

    toc = tmp_path / "_toc.yml"
    toc.write_text(
        "format: jb-book\nroot: intro\nparts:\n"
        "  - caption: Empieza\n    chapters:\n      - file: como-usar\n"
        "  - caption: Uno\n    numbered: true\n    chapters:\n"
        "      - file: a\n        sections:\n          - file: a1\n"
        "      - file: b\n"
        "  - caption: Dos\n    numbered: true\n    chapters:\n      - file: c\n"
        "  - caption: Apéndices\n    chapters:\n      - file: z\n",
        encoding="utf-8",
    )
    assert chapter_numbers(toc) == {"a": 1, "b": 2, "c": 3}


def test_a_numbered_chapter_file_starts_with_its_number():
    # El número de un capítulo es su lugar en _toc.yml; el nombre del archivo lo
    # repite (NN_…), igual que resnorm/exercises/chNN.py y tests/test_exercises_chNN.py.
    from tests.helpers import chapter_numbers

    numbers = chapter_numbers()
    assert numbers, "_toc.yml no tiene ninguna parte con «numbered: true»"
    wrong = [
        f"{doc}: es el capítulo {n} según _toc.yml, pero su nombre empieza por "
        f"«{doc.rsplit('/', 1)[-1][:3]}»"
        for doc, n in numbers.items()
        if not doc.rsplit("/", 1)[-1].startswith(f"{n:02d}_")
    ]
    assert not wrong, (
        "\n".join(wrong) + "\nRenombra el notebook a NN_nombre.ipynb con NN su número "
        "(y en _toc.yml), o ponlo en su lugar en _toc.yml."
    )


# Dónde un capítulo da nombre a una figura suya: glue_figure("fig-NN-…"),
# show_figure(…, name="fig-NN-…") y la opción «:name: fig-NN-…» de su pie.
FIGURE_NAMED = re.compile(
    r"""(?:glue_figure\(\s*|name\s*=\s*)["'](fig-(\d\d)-[\w-]+)"""
    r"""|:name:\s*(fig-(\d\d)-[\w-]+)"""
)


def test_figure_name_detector():
    text = (
        'glue_figure("fig-04-a", fig, alt="x")\nshow_figure(fig, "x", name="fig-05-b")'
        "\n:name: fig-06-c\n{numref}`Figura %s <fig-09-d>`"
    )
    found = [(m[1] or m[3], m[2] or m[4]) for m in FIGURE_NAMED.finditer(text)]
    assert found == [("fig-04-a", "04"), ("fig-05-b", "05"), ("fig-06-c", "06")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_chapter_names_its_figures_with_its_own_number(path):
    # fig-NN-…: NN es el del nombre del notebook (y, en los numerados, su número en
    # _toc.yml). Citar la figura de otro capítulo con {numref} sí vale.
    nb = json.loads(path.read_text(encoding="utf-8"))
    text = "\n".join("".join(c["source"]) for c in nb["cells"])
    wrong = sorted({
        m[1] or m[3] for m in FIGURE_NAMED.finditer(text)
        if (m[2] or m[4]) != path.stem[:2]
    })
    assert not wrong, (
        f"{path.name}: figuras con el número de otro capítulo: {wrong}. Llámalas "
        f"fig-{path.stem[:2]}-… en glue_figure/show_figure y en su «:name:»"
    )
