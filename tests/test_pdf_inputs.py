"""La huella de lo que produce el PDF (tools/pdf_inputs.py): con ella, «make test» no
vuelve a imprimir un PDF que saldría igual. Lo que importa es que cambie con todo lo
que puede cambiar el PDF; que no cambie con las pruebas es solo lo que ahorra."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import ROOT
from tools import pdf_inputs

#: Un repositorio de juguete con un archivo de cada clase que lee la construcción.
READ = {
    "notebooks/01_x.ipynb": "{}",
    "book/intro.md": "# Hola",
    "book/_ext/extension.py": "x = 1",
    "book/_templates/layout.html": "<html>",
    "_assets/css/impresion.css": "@page {}",
    "_assets/js/impresion.js": "1;",
    "conf.py": "project = 'x'",
    "_config.yml": "title: x",
    "_toc.yml": "root: book/intro",
    "resnorm/numerics.py": "EPS = 1e-5",
    "requirements.txt": "sphinx==8.1.3",
    "package-lock.json": "{}",
    "tools/pdf.py": "pass",
    "tools/pdf_sphinx.py": "pass",
    "tests/helpers.py": "FLAGS = []",
    "tests/fuentes.conf": "<fontconfig/>",
    "bench/server.py": "pass",
}
NOT_READ = {"tests/test_algo.py": "def test(): pass", "bench/lighthouse.py": "pass"}
EXECUTED = "_build/.jupyter_cache/executed/abc/base.ipynb"


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    for name, text in {**READ, **NOT_READ, EXECUTED: "{}"}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / ".gitignore").write_text("_build/\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    return tmp_path


@pytest.mark.parametrize("name", [*READ, EXECUTED])
def test_the_hash_changes_with_every_kind_of_input(repo, name):
    before = pdf_inputs.inputs_hash(repo)
    path = repo / name
    path.write_text(path.read_text() + " ")
    assert pdf_inputs.inputs_hash(repo) != before, name


def test_a_new_unadded_file_and_a_deleted_file_change_the_hash(repo):
    before = pdf_inputs.inputs_hash(repo)
    (repo / "book" / "nuevo.md").write_text("# Nuevo")
    with_new = pdf_inputs.inputs_hash(repo)
    assert with_new != before
    (repo / "book" / "nuevo.md").unlink()
    assert pdf_inputs.inputs_hash(repo) == before
    (repo / "book" / "intro.md").unlink()  # borrado sin «git rm»
    assert pdf_inputs.inputs_hash(repo) != before


@pytest.mark.parametrize("name", NOT_READ)
def test_tests_and_the_bench_do_not_reprint_the_pdf(repo, name):
    before = pdf_inputs.inputs_hash(repo)
    (repo / name).write_text("cambiado")
    assert pdf_inputs.inputs_hash(repo) == before


def test_the_hash_is_unknown_outside_git(tmp_path):
    assert pdf_inputs.inputs_hash(tmp_path) is None


def test_every_file_of_the_real_build_counts():
    """En el repositorio de verdad: cada notebook, página, extensión, plantilla, hoja,
    script, módulo de resnorm y herramienta está en la huella."""
    names = set(pdf_inputs.source_files(ROOT))
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    must = [n for n in tracked
            if n.startswith(("notebooks/", "book/", "_assets/", "resnorm/", "tools/"))
            or n in ("conf.py", "_config.yml", "_toc.yml", "requirements.txt",
                     "package-lock.json", "tests/helpers.py", "tests/fuentes.conf")]
    assert len(must) > 100
    assert not [n for n in must if n not in names]
    assert not [n for n in names if n.startswith("tests/test_")]


def test_a_changed_or_missing_pdf_or_stamp_is_printed_again(tmp_path, monkeypatch):
    pdf, stamp = tmp_path / "curso.pdf", tmp_path / ".huella"
    monkeypatch.setattr(pdf_inputs, "PDF", pdf)
    monkeypatch.setattr(pdf_inputs, "STAMP", stamp)
    monkeypatch.setattr(pdf_inputs, "inputs_hash", lambda root=None: "h1")
    assert not pdf_inputs.up_to_date()  # ni PDF ni marca
    pdf.write_bytes(b"%PDF-1")
    assert pdf_inputs.main(["--write", "h1"]) == 0
    assert pdf_inputs.up_to_date()
    pdf.write_bytes(b"%PDF-2")  # el PDF no es el de la marca
    assert not pdf_inputs.up_to_date()
    pdf_inputs.main(["--write", "h1"])
    monkeypatch.setattr(pdf_inputs, "inputs_hash", lambda root=None: "h2")
    assert not pdf_inputs.up_to_date()  # cambió algo de lo que lo produce
    pdf_inputs.main(["--write", ""])  # al empezar a imprimir: sin marca
    assert not stamp.exists() and not pdf_inputs.up_to_date()
