"""«make capitulo»: un capítulo nuevo en borrador, en una copia del repositorio.

La orden (tools/capitulo.py) escribe el notebook con su primera celda, su línea en
_toc.yml y en las tablas de capítulos, su sección de valores esperados, sus
comprobadores, sus preguntas y su archivo de soluciones. El borrador queda fuera del
índice publicado y de las tablas (conf.py), y las pruebas de capítulo entero no lo
cuentan mientras las de las fuentes sí lo revisan; quitar la marca lo publica, y
entonces esas mismas pruebas lo piden entero. Todo en una copia (``copy_repo``), con
las pruebas de la copia ejecutadas en otro proceso con su ``resnorm``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest

from tests.helpers import ROOT, chapter_numbers, notebook_paths, toc_files
from tools.capitulo import BORRADOR, PENDIENTE, TABLAS, es_borrador

pytestmark = pytest.mark.slow

VENV = Path(os.environ.get("VIRTUAL_ENV") or ROOT / ".venv").resolve()
NN = f"{max(int(p.name[:2]) for p in (ROOT / 'notebooks').glob('*.ipynb')) + 1:02d}"
NAME = "prueba_borrador"
STEM = f"{NN}_{NAME}"
DOC = f"notebooks/{STEM}"
# Las pruebas que piden un capítulo entero: no llevan el borrador entre sus casos.
WHOLE_CHAPTER = [
    "tests/test_exercises.py::test_solutions_pass_and_stubs_fail_gracefully",
    "tests/test_cuadernos.py::"
    "test_each_learner_notebook_runs_on_a_fresh_kernel_and_prints_the_page_numbers",
]
# Las de las fuentes y la ejecución: el borrador es uno de sus casos.
SOURCE_CHECKS = [
    "tests/test_notebooks.py::test_notebook_ran_top_to_bottom_without_errors",
    "tests/test_notebooks.py::test_visible_code_has_no_plumbing",
    "tests/test_numbers.py::test_every_glued_number_matches_its_expected_value",
]
# Las que leen las fuentes sin ejecutar nada: pasan en la copia con el borrador.
SOURCE_TESTS = [
    "tests/test_notebooks.py", "tests/test_quiz_chapters.py",
    "tests/test_numbers.py::test_expected_file_only_names_existing_notebooks",
    "tests/test_exercises.py::test_every_checker_lives_in_its_chapter_and_has_a_solution",
    "tests/test_quiz.py::test_every_chapter_has_at_least_three_questions",
    "tests/test_quiz.py::test_every_chapter_asks_for_a_prediction_before_it_shows",
    "tests/test_launch.py::test_how_to_page_lists_every_chapter_in_book_order_with_a_time",
]


def _run(repo: Path, *args: str, timeout: int = 300):
    # Las pruebas de la copia, con su resnorm y fuera del reparto de pytest-xdist.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run(args, cwd=repo, capture_output=True, text=True,
                          timeout=timeout, env=dict(env, PYTHONPATH=str(repo)))


def _make(repo: Path, *args: str):
    return _run(repo, "make", "--no-print-directory", *args, f"VENV={VENV}")


def _pytest(repo: Path, *args: str):
    return _run(repo, sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args)


def _collected(repo: Path) -> set[str]:
    files = sorted({t.split("::")[0] for t in WHOLE_CHAPTER + SOURCE_CHECKS})
    run = _pytest(repo, "--collect-only", "-q", *files)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return {line.strip() for line in run.stdout.splitlines()}


def _set_draft(repo: Path, draft: bool) -> None:
    path = repo / f"{DOC}.ipynb"
    nb = nbformat.read(path, as_version=4)
    if draft:
        nb.metadata[BORRADOR] = True
    else:
        del nb.metadata[BORRADOR]
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from bench.build import copy_repo

    repo = copy_repo(tmp_path_factory.mktemp("capitulo"))
    made = _make(repo, "capitulo", f"NN={NN}", f"NOMBRE={NAME}",
                 "TITULO=Un capítulo de prueba")
    assert made.returncode == 0, made.stdout + made.stderr
    assert f"{DOC}.ipynb" in made.stdout
    return repo


def test_make_capitulo_writes_the_draft_and_its_first_cell(repo):
    path = repo / f"{DOC}.ipynb"
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert es_borrador(path) and not es_borrador(notebook_paths()[0])
    assert nb.cells[0].source.startswith("# Un capítulo de prueba\n")
    # La primera celda de código es la que instala resnorm en Colab, la de los demás.
    first = next(c for c in nbformat.read(notebook_paths()[0], as_version=4).cells
                 if c.cell_type == "code")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert (code[0].source, code[0].metadata) == (first.source, first.metadata)
    assert all(not c.get("outputs") for c in code)
    # Su sección de valores esperados, sus comprobadores y sus soluciones.
    expected = tomllib.loads((repo / "tests/expected_values.toml").read_text("utf-8"))
    assert expected[STEM] == {}
    assert (repo / f"resnorm/exercises/ch{NN}.py").is_file()
    assert (repo / f"tests/test_exercises_ch{NN}.py").is_file()
    # El banco y los comprobadores los importa el resnorm de la copia.
    probe = _run(repo, sys.executable, "-c", (
        "import json; from resnorm import exercises; from resnorm.quiz import bank; "
        f"print(json.dumps([bank.doc_suffix('{NAME}'), bank.chapter('{NAME}'), "
        "exercises.CHAPTERS[-1].__name__, bank.title('" + NAME + "')]))"))
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout) == [
        NAME, {}, f"resnorm.exercises.ch{NN}", "Un capítulo de prueba"]


def test_the_generated_code_passes_the_lint(repo):
    lint = _run(repo, str(VENV / "bin" / "ruff"), "check", "resnorm", "tests", "tools")
    assert lint.returncode == 0, lint.stdout


def test_a_number_already_taken_is_refused_and_nothing_is_written(repo):
    before = sorted(p.name for p in (repo / "notebooks").glob("*.ipynb"))
    toc = (repo / "_toc.yml").read_text(encoding="utf-8")
    taken = _make(repo, "capitulo", f"NN={NN}", "NOMBRE=otro")
    assert taken.returncode != 0 and f"El número {NN} ya lo usa" in taken.stderr
    bad = _make(repo, "capitulo", f"NN={int(NN) + 1}", "NOMBRE=Atención")
    assert bad.returncode != 0 and "minúsculas sin tildes" in bad.stderr
    assert sorted(p.name for p in (repo / "notebooks").glob("*.ipynb")) == before
    assert (repo / "_toc.yml").read_text(encoding="utf-8") == toc


def test_the_draft_is_listed_in_the_toc_but_the_book_leaves_it_out(repo):
    # _toc.yml y las tablas lo nombran, detrás del capítulo anterior...
    assert DOC in toc_files(drafts=True, root=repo)
    assert toc_files(root=repo) == toc_files()
    assert chapter_numbers(repo / "_toc.yml") == chapter_numbers()
    for table in TABLAS:
        assert f"{{doc}}`../{DOC}`" in (repo / table).read_text(encoding="utf-8")
    # ...y conf.py lo deja fuera: de la construcción, del índice y de las tablas.
    script = f"""
import json, runpy
from pathlib import Path
from types import SimpleNamespace
from sphinx_external_toc.parsing import parse_toc_yaml
conf = runpy.run_path("conf.py")
config = SimpleNamespace(external_site_map=parse_toc_yaml("_toc.yml"))
conf["_indice_sin_borradores"](None, config)
in_toc = [str(i) for d in config.external_site_map.values() for t in d.subtrees
          for i in t.items] + list(config.external_site_map)
tables = []
for table in {list(TABLAS)!r}:
    source = [Path(table).read_text(encoding="utf-8")]
    conf["_tablas_sin_borradores"](None, table, source)
    tables.append(source[0])
print(json.dumps({{"excluded": conf["exclude_patterns"], "toc": in_toc,
                  "tables": tables, "drafts": conf["BORRADORES"]}}))
"""
    run = _run(repo, sys.executable, "-c", script)
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout)
    assert seen["drafts"] == [DOC] and f"{DOC}.ipynb" in seen["excluded"]
    assert DOC not in seen["toc"] and "notebooks/01_problema_apilar" in seen["toc"]
    assert all(DOC not in table and "{doc}`../notebooks/04_layernorm`" in table
               for table in seen["tables"])


def test_the_whole_chapter_tests_skip_the_draft_and_the_source_tests_pass(repo):
    ids = _collected(repo)
    for test in WHOLE_CHAPTER:
        assert f"{test}[{STEM}]" not in ids
        assert f"{test}[04_layernorm]" in ids
    for test in SOURCE_CHECKS:
        assert f"{test}[{STEM}]" in ids
    run = _pytest(repo, "-q", "-m", "not build", *SOURCE_TESTS)
    assert run.returncode == 0, run.stdout[-4000:]


def test_without_the_flag_the_chapter_is_published_and_must_be_whole(repo):
    _set_draft(repo, False)
    try:
        assert DOC in toc_files(root=repo)
        ids = _collected(repo)
        assert all(f"{test}[{STEM}]" in ids for test in WHOLE_CHAPTER)
        run = _pytest(repo, "-q", "-m", "not build",
                      "tests/test_quiz.py::test_every_chapter_has_at_least_three_questions")
        assert run.returncode != 0 and f"'{NAME}': 0" in run.stdout, run.stdout
    finally:
        _set_draft(repo, True)


def test_a_published_chapter_keeps_nothing_of_the_generator_to_write():
    """Lo que «make capitulo» deja por escribir (``PENDIENTE``) no se publica."""
    problems = [p.name for p in notebook_paths()
                if PENDIENTE in p.read_text(encoding="utf-8")]
    published = {f"notebooks/{p.stem}" for p in notebook_paths()}
    rows = [line for table in TABLAS
            for line in (ROOT / table).read_text(encoding="utf-8").splitlines()
            if PENDIENTE in line
            and (m := re.search(r"\{doc\}`\.\./(notebooks/[\w-]+)`", line))
            and m[1] in published]
    assert not problems and not rows, (
        f"{problems + rows}: «{PENDIENTE}» es lo que dejó «make capitulo»; escríbelo")
