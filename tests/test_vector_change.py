"""Cambiar el vector del curso falla solo donde debe, y cada fallo lo dice (issue 53).

El vector «perro» (``PERRO_X`` en ``resnorm/examples.py``; ``VECTOR`` es su suma
residual) se escribe una vez. Quien lo cambia recorre este camino:

1. cambia ``PERRO_X`` en ``resnorm/examples.py``;
2. ``tests/test_examples.py`` nombra cada notebook, celda y línea que escribe el vector
   viejo a la vista (la lección lo escribe, no lo importa), y los cambia;
3. cambia los datos de entrada de ``tests/allowed_numbers.toml``: la prueba de la prosa
   nombra cada número viejo que quede escrito a mano;
4. ``make book``: los capítulos que usan el vector se ejecutan de nuevo, y lo que falla
   es solo lo que tiene que cambiar: una frase de la prosa que deja de ser cierta (un
   ``assert`` oculto, con un mensaje que la cita) o un valor pegado que ya no es el de
   ``tests/expected_values.toml`` (el arnés de ``tests/numbers.py`` lo nombra).

``test_changing_the_course_vector_fails_only_with_messages`` lo hace en una copia
temporal, con otro ``PERRO_X``, y comprueba cada paso: que ninguna celda falla con otra
cosa (un ``AssertionError`` sin mensaje, un ``NameError`` de una celda cortada…) y que
cada valor que cambia lo nombra el arnés. Ejecuta solo los capítulos que usan el vector
(``vector_chapters``): es lenta (marca ``slow``; «make check» no la ejecuta). La prueba
rápida de abajo exige a esos capítulos un mensaje en cada ``assert``, también en los
que este cambio concreto no hace fallar.
"""

from __future__ import annotations

import ast
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from resnorm import examples
from tests import numbers
from tests import test_examples as literals
from tests import test_numbers as prose_numbers
from tests.helpers import CELL_TIMEOUT, ROOT

#: El «perro» de la copia: otro vector de cuatro componentes con dos decimales, lejos
#: del de verdad (VECTOR pasa a (1.20, 0.45, 0.93, 1.03): cambian μ, σ y la componente
#: más alejada de μ), para que fallen frases de la prosa y valores pegados, no solo
#: unos decimales.
NEW_PERRO_X = (0.90, 0.65, 0.78, 0.58)
#: Los vectores de examples.py que dependen de PERRO_X (el resto no cambia).
COURSE_VECTORS = ("PERRO_X", "PERRO_ATTENTION", "VECTOR")
#: Lo que nombra, en el código de un capítulo, algo calculado con el vector.
USES_VECTOR = re.compile(r"resnorm\.examples|\bperro_example\(|\bstack_trace\(")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _course_vectors(module: dict | object) -> dict[str, tuple[float, ...]]:
    get = module.get if isinstance(module, dict) else lambda n: getattr(module, n)
    return {name: tuple(float(v) for v in get(name)) for name in COURSE_VECTORS}


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _text(cell: dict) -> str:
    return "".join(cell["source"])


def vector_chapters(root: Path = ROOT) -> list[Path]:
    """Los notebooks que escriben un vector del curso o calculan con él (el banco de
    preguntas aparte: lo mira la prueba lenta)."""
    written = {_course_vectors(examples)[name] for name in COURSE_VECTORS}
    found = []
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        cells = _cells(path)
        code = "\n".join(_text(c) for c in cells if c["cell_type"] == "code")
        if USES_VECTOR.search(code) or any(
                set(literals.four_number_literals(_text(c))) & written for c in cells):
            found.append(path)
    return found


def _asserts_without_message(source: str) -> list[int]:
    # Las líneas mágicas (%pip) no son Python: se leen como una sentencia vacía.
    python = re.sub(r"(?m)^(\s*)[%!].*$", r"\1pass", source)
    return [node.lineno for node in ast.walk(ast.parse(python))
            if isinstance(node, ast.Assert) and node.msg is None]


def test_vector_chapters_are_found():
    names = {p.stem[:2] for p in vector_chapters()}
    # El 2 escribe el «perro», el 3 y el 4 el vector; el 8 calcula con perro_example.
    assert {"02", "03", "04", "08"} <= names, sorted(names)


def test_every_assert_in_a_vector_chapter_says_what_failed():
    bare = [
        f"{path.name}, celda {i}, línea {line}"
        for path in vector_chapters()
        for i, cell in enumerate(_cells(path)) if cell["cell_type"] == "code"
        for line in _asserts_without_message(_text(cell))
    ]
    assert not bare, (
        "Estos capítulos calculan con el vector del curso: si cambia, un assert sin "
        "mensaje falla con un «AssertionError» a secas. Dale un mensaje que diga qué "
        "frase de la prosa deja de ser cierta:\n" + "\n".join(bare)
    )


def test_a_bare_assert_is_found_and_magics_are_skipped():
    source = "%pip install resnorm\nassert x > 0, 'x positivo'\nassert y\n"
    assert _asserts_without_message(source) == [3]


# --- El camino entero, en una copia ---------------------------------------------------


def _replace_literals(text: str, changes: dict) -> str:
    """Cada lista de cuatro números que escribe un vector viejo de ``changes`` (viejo →
    nuevo), reescrita con el nuevo y con los decimales y el signo de antes."""

    def number(old: str, value: float) -> str:
        decimals = len(old.partition(".")[2])
        minus = "−" if old.startswith("−") else "-"
        return (minus if value < 0 else "") + f"{abs(value):.{decimals}f}"

    def replace(m: re.Match) -> str:
        old = tuple(float(g.replace("−", "-")) for g in m.groups())
        if old not in changes:
            return m.group(0)
        out, end = [], m.start()
        for k, value in enumerate(changes[old], start=1):
            out += [m.string[end:m.start(k)], number(m.group(k), value)]
            end = m.end(k)
        return "".join(out) + m.string[end:m.end()]

    return literals.FOUR.sub(replace, text)


def test_replace_literals_keeps_how_the_vector_is_written():
    changes = {(0.3, -0.2, 0.15, 0.45): (0.3, -0.25, 1.0, 0.4)}
    text = "`[0.30, −0.20, 0.15, 0.45]` y x = [0.30, -0.20, 0.15, 0.45]; [1, 2, 3, 4]"
    assert _replace_literals(text, changes) == (
        "`[0.30, −0.25, 1.00, 0.40]` y x = [0.30, -0.25, 1.00, 0.40]; [1, 2, 3, 4]")


def _copy_with_new_vector(tmp: Path) -> tuple[dict, dict]:
    """La copia (resnorm y los notebooks) con ``NEW_PERRO_X``; (viejo → nuevo) de cada
    vector del curso que cambia, y los vectores nuevos por nombre."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "resnorm", tmp / "resnorm", ignore=ignore)
    shutil.copytree(ROOT / "notebooks", tmp / "notebooks", ignore=ignore)
    module = tmp / "resnorm" / "examples.py"
    text, n = re.subn(r"(?m)^PERRO_X = \(.*\)$",
                      f"PERRO_X = {NEW_PERRO_X!r}", module.read_text(encoding="utf-8"))
    assert n == 1, "resnorm/examples.py ya no define PERRO_X en una línea «PERRO_X = …»"
    module.write_text(text, encoding="utf-8")
    old, new = _course_vectors(examples), _course_vectors(runpy.run_path(str(module)))
    assert old["VECTOR"] != new["VECTOR"], "VECTOR no sale de PERRO_X"
    return {old[k]: new[k] for k in COURSE_VECTORS if old[k] != new[k]}, new


def _written_vectors_problem(root: Path, monkeypatch) -> str | None:
    """Lo que dice tests/test_examples.py de los vectores escritos en ``root``."""
    module = runpy.run_path(str(root / "resnorm" / "examples.py"))
    with monkeypatch.context() as m:
        m.setattr(literals, "ROOT", root)
        m.setattr(literals, "EXAMPLES", {
            tuple(float(v) for v in value): name for name, value in module.items()
            if name.isupper() and isinstance(value, tuple) and len(value) == 4})
        try:
            literals.test_every_vector_written_in_a_chapter_is_the_one_examples_py_defines()
        except AssertionError as error:
            return str(error)
    return None


#: Cada capítulo del banco de preguntas: la versión de cada pregunta, o el error con
#: que el banco la rechaza (resnorm.quiz: una respuesta que ya no se distingue de un
#: error típico, con un mensaje que nombra los dos).
QUIZ_VERSIONS = """
import json
from resnorm.quiz import bank, question_state
out = {}
for key in bank.chapters():
    try:
        out[key] = {q.id: question_state(q)["version"]
                    for qs in bank.chapter(key).values() for q in qs}
    except ValueError as error:
        out[key] = str(error)
print(json.dumps(out))
"""


def _changed_quiz_chapters(tmp: Path, env: dict) -> set[str]:
    """Las claves del banco de preguntas cuyas preguntas cambian con el vector."""

    def versions(cwd: Path, env: dict | None = None) -> dict:
        done = subprocess.run([sys.executable, "-c", QUIZ_VERSIONS], cwd=cwd,
                              env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout)

    before, after = versions(ROOT), versions(tmp, env)
    return {key for key in before if before[key] != after.get(key)}


def _errors(nb) -> list[tuple[int, list[str], str, str]]:
    """(celda, etiquetas, tipo, mensaje) de cada error de un notebook ejecutado."""
    return [
        (i, cell.metadata.get("tags", []), out.ename, out.evalue)
        for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
        for out in cell.get("outputs", []) if out.output_type == "error"
    ]


def _execute_all_cells(path: Path, root: Path):
    """Todas las celdas, aunque alguna falle (para ver todos los fallos a la vez)."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    # Sin dibujar las figuras (lo más caro, y no pegan números), y la prueba de que el
    # núcleo lee la copia de resnorm.
    nb.cells.insert(0, nbformat.v4.new_code_cell(
        "import resnorm, resnorm.book\n"
        f"assert resnorm.__file__.startswith({str(root)!r}), resnorm.__file__\n"
        "resnorm.book.figure_html = lambda fig, alt: alt"))
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}},
                            allow_errors=True)
    return client.execute()


def _prose_problems(root: Path, changes: dict, monkeypatch) -> list[str]:
    """Lo que dice la prueba de la prosa (números escritos a mano) de los notebooks de
    ``root``, con los datos de entrada de allowed_numbers.toml cambiados como los
    cambiaría quien cambia el vector: sus componentes viejas por las nuevas."""

    def written(vectors) -> set[str]:
        return {f"{abs(v):.2f}" for vector in vectors for v in vector}

    old, new = written(changes), written(changes.values())
    allowed = [{**entry, "numbers": sorted(set(entry["numbers"]) - old | new)}
               if old & set(entry["numbers"]) else entry
               for entry in prose_numbers.ALLOWED]
    problems = []
    with monkeypatch.context() as m:
        m.setattr(prose_numbers, "ALLOWED", allowed)
        for path in sorted((root / "notebooks").glob("*.ipynb")):
            text = "\n\n".join(_text(c) for c in _cells(path)
                               if c["cell_type"] == "markdown")
            try:
                prose_numbers.test_prose_has_no_hand_typed_results(
                    f"notebooks/{path.name}", text)
            except AssertionError as error:
                problems.append(str(error))
    return problems


@pytest.mark.slow
def test_changing_the_course_vector_fails_only_with_messages(tmp_path, monkeypatch):
    changes, new = _copy_with_new_vector(tmp_path)
    env = {"PYTHONPATH": str(tmp_path), "OMP_NUM_THREADS": "1"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    # 2. test_examples.py nombra cada archivo que escribe el vector viejo…
    sources = list(literals._sources())  # los del repositorio: los mismos textos
    stale = sorted({str(path) for path, _, text in sources
                    if set(literals.four_number_literals(text)) & set(changes)})
    said = _written_vectors_problem(tmp_path, monkeypatch)
    assert stale and said, "con otro PERRO_X, test_examples.py debería fallar"
    assert all(path in said for path in stale), (stale, said)
    # … y, cambiados como dice, ya no se queja.
    for path in (tmp_path / "notebooks").glob("*.ipynb"):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            cell["source"] = _replace_literals(_text(cell), changes)
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    for path in [*(tmp_path / "resnorm").rglob("*.py"),
                 *(tmp_path / "resnorm").rglob("*.js")]:
        path.write_text(_replace_literals(path.read_text(encoding="utf-8"), changes),
                        encoding="utf-8")
    assert _written_vectors_problem(tmp_path, monkeypatch) is None

    # 3. La prosa: cada número viejo que quede escrito a mano, nombrado.
    prose = _prose_problems(tmp_path, changes, monkeypatch)

    # 4. Los capítulos que usan el vector (también por sus preguntas), ejecutados.
    quiz = _changed_quiz_chapters(tmp_path, {**os.environ, **env})
    from resnorm.quiz import bank

    chapters = {p.name for p in vector_chapters()} | {
        p.name for key in quiz
        for p in (tmp_path / "notebooks").glob(f"*{bank.doc_suffix(key)}.ipynb")}
    expected = numbers.load_expected()
    claims, mismatches, unglued, wrong = [], [], [], []
    for name in sorted(chapters):
        path = tmp_path / "notebooks" / name
        nb = _execute_all_cells(path, tmp_path)
        quiz_failed = False
        for i, tags, ename, evalue in _errors(nb):
            where = f"{name}, celda {i - 1}"  # sin la celda añadida
            hidden_claim = ename == "AssertionError" and "remove-cell" in tags
            # El banco rechaza una pregunta que ya no distingue su respuesta de un
            # error típico (ValueError de resnorm.quiz, que nombra los dos).
            quiz = ename == "ValueError" and "Quiz.from_bank" in nb.cells[i].source
            if (hidden_claim or quiz) and evalue.strip():
                claims.append(f"{where}: {evalue}")
                quiz_failed |= quiz
            else:
                wrong.append(f"{where} ({', '.join(tags) or 'visible'}): "
                             f"{ename}: {evalue or '(sin mensaje)'}")
        problems = numbers.check_notebook(path.stem, numbers.glued_values(nb),
                                          expected.get(path.stem, {}))
        for problem in problems:
            named = re.match(rf"{re.escape(path.stem)}: «[^»]+» vale ", problem)
            # Las respuestas de las preguntas se pegan al mostrarlas: si el banco
            # rechazó una pregunta (arriba, con su mensaje), no se pegan.
            quiz_value = re.match(rf"{re.escape(path.stem)}: «quiz_[^»]+» está en ",
                                  problem)
            if named:
                mismatches.append(problem)
            elif quiz_value and quiz_failed:
                unglued.append(problem)
            else:
                wrong.append(problem)

    report = (f"Con PERRO_X = {NEW_PERRO_X} (VECTOR = {new['VECTOR']}), en "
              f"{sorted(chapters)}:\n"
              f"- frases de la prosa (y preguntas) que dejan de ser ciertas: "
              f"{len(claims)}\n"
              f"- valores pegados distintos de los esperados: {len(mismatches)}\n"
              f"- respuestas de preguntas sin pegar (el banco las rechazó): "
              f"{len(unglued)}\n"
              f"- números de la prosa escritos a mano: {len(prose)}")
    print(report, *claims, *mismatches, *prose, sep="\n")
    assert not wrong, (
        report + "\nFallos que no dicen qué cambiar (un assert sin mensaje, una celda "
        "que no se ejecuta, un valor que deja de pegarse):\n" + "\n".join(wrong))
    # El cambio llegó a los núcleos: la media del vector del capítulo 3 es otra.
    assert any("«media_ejemplo»" in m for m in mismatches if "03_" in m), report
