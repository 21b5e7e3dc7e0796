"""Cada pregunta del banco está atada a su capítulo, y cada capítulo muestra las suyas.

Una pregunta vive en ``resnorm/quiz/bank.py``, en un bloque (``"sigma"``) de la función
de su capítulo; ``_CHAPTERS`` ata la clave del capítulo (``"media"``) al final del
nombre de su notebook (``media_desviacion``). El notebook la muestra con
``Quiz.from_bank("media", "sigma")``. Estas pruebas leen los notebooks sin ejecutarlos:
fallan antes de construir el libro, diciendo qué archivo cambiar.
"""

from __future__ import annotations

import json
import re

from resnorm.quiz import bank
from tests.helpers import notebook_paths

FROM_BANK = re.compile(r"""Quiz\.from_bank\(\s*["'](\w+)["']\s*,\s*["'](\w+)["']""")
NOTEBOOKS = notebook_paths(drafts=True)  # el banco ya tiene la entrada del borrador


def _calls() -> list[tuple[str, str, str]]:
    """(notebook, clave, bloque) de cada ``Quiz.from_bank`` de los capítulos."""
    calls = []
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] == "code":
                for key, group in FROM_BANK.findall("".join(cell["source"])):
                    calls.append((path.stem, key, group))
    return calls


def _chapter_notebooks(key: str) -> list[str]:
    return [p.stem for p in NOTEBOOKS if p.stem.endswith(bank.doc_suffix(key))]


def test_the_notebooks_show_questions_from_the_bank():
    calls = _calls()
    assert len(calls) >= len(bank.chapters()), calls


def test_every_bank_chapter_is_one_notebook_of_the_book():
    wrong = {
        key: found for key in bank.chapters()
        if len(found := _chapter_notebooks(key)) != 1
    }
    assert not wrong, (
        "Claves de resnorm/quiz/bank.py (_CHAPTERS) que no dan un solo notebook de "
        f"_toc.yml: {wrong}. El primer elemento de cada entrada de _CHAPTERS es el "
        "final del nombre de su notebook («media_desviacion» para "
        "notebooks/03_media_desviacion.ipynb): corrígelo o añade el notebook a _toc.yml"
    )


def test_every_quiz_in_a_notebook_names_a_group_of_its_own_chapter():
    problems = []
    for notebook, key, group in _calls():
        if key not in bank.chapters():
            problems.append(
                f"notebooks/{notebook}.ipynb: Quiz.from_bank(«{key}», …): esa clave no "
                f"está en _CHAPTERS de resnorm/quiz/bank.py (hay {bank.chapters()})"
            )
        elif _chapter_notebooks(key) != [notebook]:
            problems.append(
                f"notebooks/{notebook}.ipynb muestra preguntas de «{key}», que en "
                f"resnorm/quiz/bank.py (_CHAPTERS) es {_chapter_notebooks(key)}: usa "
                "la clave de este capítulo"
            )
        elif group not in bank.chapter(key):
            problems.append(
                f"notebooks/{notebook}.ipynb: Quiz.from_bank(«{key}», «{group}»): el "
                f"capítulo «{key}» de resnorm/quiz/bank.py no tiene ese bloque (tiene "
                f"{sorted(bank.chapter(key))})"
            )
    assert not problems, "\n".join(problems)


def test_every_group_of_the_bank_is_shown_in_its_chapter():
    shown = {(key, group) for _, key, group in _calls()}
    unseen = [
        f"«{group}» del capítulo «{key}» ({', '.join(_chapter_notebooks(key))})"
        for key in bank.chapters()
        for group in bank.chapter(key)
        if (key, group) not in shown
    ]
    assert not unseen, (
        "Bloques de preguntas de resnorm/quiz/bank.py que ningún capítulo muestra: "
        + "; ".join(unseen)
        + ". Muéstralos en su notebook con una celda «Quiz.from_bank(clave, bloque)» "
        "(etiqueta remove-input) donde el texto ya explicó lo que preguntan, o "
        "bórralos del banco."
    )
