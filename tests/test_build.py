"""La construcción: estricta, sin avisos ni mensajes de registro, rápida cuando nada
cambió, nunca con números viejos cuando cambia el motor (``resnorm/``), y con los
mismos bytes en las fuentes que recorta (sin la fecha del día dentro).

Ninguna prueba de aquí vuelve a construir el libro entero: la estricta lee el registro
que guardó «make book» (``_build/book.log``) y la de la caché trabaja sobre una copia
mínima del repositorio con un solo capítulo.
"""

from __future__ import annotations

import json
import os
import re
import runpy
import secrets
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
import yaml

from tests.helpers import (
    BOOK_LOG,
    BUILD,
    CHECKED_THEMES,
    ENGINE_STAMP,
    ROOT,
    engine_hash,
    theme_upgrade_hint,
)

VENV = Path(os.environ.get("VIRTUAL_ENV") or ROOT / ".venv").resolve()
EXECUTOR = "jcache notebook execute"  # lo que «make execute» dice al arrancarlo


def _make(*args: str, cwd: Path = ROOT, timeout: int = 900, env=None):
    return subprocess.run(
        ["make", "--no-print-directory", *args, f"VENV={VENV}"],
        cwd=cwd, capture_output=True, text=True, timeout=timeout,
        env=dict(os.environ, **(env or {})),
    )


@pytest.mark.build
def test_strict_build_has_zero_warnings(built_site):
    # «make book» construye con -W -n --keep-going y guarda aquí lo que dijo Sphinx;
    # si falla, borra el entorno para que la próxima vez se relea todo (y los avisos
    # vuelvan a salir): un registro limpio es el de una construcción completa limpia.
    assert BOOK_LOG.exists(), "make book no guardó _build/book.log"
    log = BOOK_LOG.read_text(encoding="utf-8")
    warnings = [
        line for line in log.splitlines() if "WARNING" in line or "ERROR" in line
    ]
    assert not warnings, "\n".join(warnings)
    assert "Libro construido en" in log, log[-2000:]
    assert BOOK_LOG.stat().st_mtime >= (built_site / "index.html").stat().st_mtime - 5


@pytest.mark.build
def test_build_log_carries_no_library_chatter(built_site):
    # accessible-pygments (del tema) pone el registro raíz de Python en INFO al
    # importarse: sin lo que hace book/_ext/curso_sitio.setup, una construcción en frío
    # (la de la CI) escribía ≈ 600 líneas «INFO fontTools.subset …» entre los avisos.
    log = BOOK_LOG.read_text(encoding="utf-8")
    record = re.compile(r"\b(INFO|DEBUG)\b")
    chatter = [line for line in log.splitlines() if record.search(line)]
    assert not chatter, f"{len(chatter)} líneas de registro en book.log:\n" + "\n".join(
        chatter[:10]
    )


def _cache_records(cache: Path) -> list[tuple]:
    from jupyter_cache import get_cache

    return sorted(
        (r.uri, r.hashkey, r.created.isoformat())
        for r in get_cache(str(cache)).list_cache_records()
    )


def _mtimes(folder: Path, pattern: str) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in sorted(folder.glob(pattern))}


@pytest.mark.build
def test_warm_rebuild_reuses_the_cache_and_starts_no_executor(built_site):
    # Cuánto tarda (y cuánta CPU usa) lo mide «make bench»: aquí, que no hace el
    # trabajo caro. Ni arranca el ejecutor ni cambia un registro de la caché; Sphinx
    # no ve su configuración cambiada ni relee un documento (sin --quiet, para leer
    # lo que dice: «updating environment: 0 added, 0 changed, 0 removed»), y ningún
    # cuaderno del alumno se reescribe.
    cache = BUILD / ".jupyter_cache"
    before_records = _cache_records(cache)
    doctrees = _mtimes(BUILD / ".doctrees", "**/*.doctree")
    learner = _mtimes(built_site / "cuadernos", "*.ipynb")
    sheets = {page: _stylesheets(built_site / page)
              for page in ("search.html", "genindex.html", "book/glosario.html")}
    assert doctrees and len(learner) == len(list((ROOT / "notebooks").glob("*.ipynb")))
    result = _make("book", "SPHINX_FLAGS=-W -n --keep-going", timeout=600)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-4000:]
    assert EXECUTOR not in result.stdout, result.stdout[-2000:]
    assert before_records and _cache_records(cache) == before_records
    assert "configuration has changed" not in out and "config changed" not in out, (
        "\n".join(line for line in out.splitlines() if "config" in line))
    updating = [line for line in out.splitlines() if "updating environment" in line]
    assert updating and all(
        line.endswith("0 added, 0 changed, 0 removed") for line in updating), updating
    assert _mtimes(BUILD / ".doctrees", "**/*.doctree") == doctrees
    assert _mtimes(built_site / "cuadernos", "*.ipynb") == learner
    # Páginas que toda construcción vuelve a escribir: los mismos enlaces a las hojas
    # (con el mismo ?v=) que dejó la anterior, en frío si la anterior lo era.
    assert {page: _stylesheets(built_site / page) for page in sheets} == sheets


def _stylesheets(page: Path) -> list[str]:
    return re.findall(r'<link[^>]*rel="stylesheet"[^>]*>', page.read_text("utf-8"))


@pytest.mark.build
def test_every_local_stylesheet_link_carries_its_checksum(built_site):
    # Sphinx pone ?v=<suma> a la hoja que ya está en _static al escribir la página. Las
    # de myst-nb y sphinx-exercise se copiaban al final: en frío salían sin ?v= y en
    # caliente con él (book/_ext/construccion_estable.py).
    missing = sorted({
        (page, href) for page in ("book/intro.html", "search.html",
                                  "notebooks/04_layernorm.html")
        for link in _stylesheets(built_site / page)
        if "://" not in (href := re.search(r'href="([^"]+)"', link)[1])
        and "?v=" not in href and "?digest=" not in href})
    assert not missing, missing


def test_the_config_check_names_each_option_an_extension_changed_late():
    from construccion_estable import opciones_distintas, serializada, sin_repetir

    assert sin_repetir(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]

    class Opt:
        def __init__(self, name, value):
            self.name, self.value = name, value

    read = {"html_static_path": serializada(["_assets"]),
            "thebe_config": serializada({"b": 1, "a": 2})}
    same = [Opt("html_static_path", ["_assets"]), Opt("thebe_config", {"a": 2, "b": 1})]
    assert opciones_distintas(read, same) == []
    late = [Opt("html_static_path", ["_assets", "/tmp/tmpx"]),
            Opt("thebe_config", {"a": 2, "b": 1}), Opt("nueva", 1)]
    assert opciones_distintas(read, late) == ["html_static_path", "nueva"]


def test_a_learner_notebook_is_written_only_when_its_bytes_change(tmp_path):
    from cuadernos import escribir_si_cambia

    target = tmp_path / "01_x.ipynb"
    assert escribir_si_cambia(target, '{"cells": []}\n')
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    assert not escribir_si_cambia(target, '{"cells": []}\n')
    assert target.stat().st_mtime_ns == 1_000_000_000
    assert escribir_si_cambia(target, '{"cells": [1]}\n')
    assert target.read_text() == '{"cells": [1]}\n'


def test_learner_notebooks_are_up_to_date_only_with_the_same_inputs_and_bytes(tmp_path):
    from cuadernos import _huella, al_dia

    (tmp_path / "01_x.ipynb").write_text("{}\n")
    anterior = {"entrada": "e1", "salidas": {"01_x.ipynb": _huella(b"{}\n")}}
    assert al_dia(anterior, "e1", tmp_path, ["01_x.ipynb"])
    assert not al_dia(anterior, "e2", tmp_path, ["01_x.ipynb"])  # otra entrada
    assert not al_dia(anterior, "e1", tmp_path, ["01_x.ipynb", "02_y.ipynb"])
    assert not al_dia({}, "e1", tmp_path, ["01_x.ipynb"])  # sin huellas guardadas
    (tmp_path / "01_x.ipynb").write_text('{"tocado": 1}\n')  # alguien lo editó
    assert not al_dia(anterior, "e1", tmp_path, ["01_x.ipynb"])
    (tmp_path / "01_x.ipynb").unlink()
    assert not al_dia(anterior, "e1", tmp_path, ["01_x.ipynb"])


def test_the_engine_hash_follows_what_the_kernel_loads_not_sphinx_themes():
    from tools.engine_hash import engine_hash, kernel_packages, kernel_pins

    packages = kernel_packages()
    assert {"numpy", "torch", "matplotlib", "resnorm", "myst-nb"} <= packages
    assert not {"pydata-sphinx-theme", "sphinx-book-theme"} & packages
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    pins = kernel_pins(requirements, packages)
    theme = re.sub(r"pydata-sphinx-theme==\S+", "pydata-sphinx-theme==9.9.9",
                   requirements)
    numpy = re.sub(r"numpy==\S+", "numpy==9.9.9", requirements)
    assert kernel_pins(theme, packages) == pins
    assert kernel_pins(numpy, packages) != pins
    assert engine_hash() == engine_hash() and len(engine_hash()) == 16


def test_the_engine_stamp_is_the_makefile_hash(built_site):
    assert ENGINE_STAMP.read_text().strip() == engine_hash()


# --- La caché depende del motor ------------------------------------------------------

PROBE_MODULE = "resnorm/_marca_prueba.py"
PROBE_NOTEBOOK = "notebooks/prueba_cache.ipynb"


def _minimal_copy(dst: Path) -> Path:
    """Una copia del repositorio con un solo capítulo que imprime un valor de
    resnorm."""
    from bench.build import copy_repo

    copy_repo(dst)
    for nb in (dst / "notebooks").glob("*.ipynb"):
        nb.unlink()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3", "display_name": "Python 3", "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Prueba de la caché"),
        nbformat.v4.new_code_cell(
            "from resnorm._marca_prueba import VALOR\nprint(f'valor = {VALOR}')"
        ),
    ]
    nbformat.write(nb, dst / PROBE_NOTEBOOK)
    (dst / "_toc.yml").write_text(
        f"format: jb-book\nroot: {PROBE_NOTEBOOK.removesuffix('.ipynb')}\n",
        encoding="utf-8",
    )
    return dst


def _make_in_copy(repo: Path, target: str):
    # El resnorm del entorno es el de ROOT (instalado con «pip install -e»): el núcleo
    # debe importar el de la copia. Sin -W: la copia mínima deja sin destino enlaces
    # de otras páginas.
    result = _make(
        target, "SPHINX_FLAGS=-n --keep-going --quiet", cwd=repo,
        env={"PYTHONPATH": str(repo)},
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return result.stdout


def _cached_outputs(repo: Path) -> str:
    from jupyter_cache import get_cache

    nb = nbformat.read(repo / PROBE_NOTEBOOK, as_version=4)
    _, executed = get_cache(str(repo / "_build" / ".jupyter_cache")) \
        .merge_match_into_notebook(nb)
    return json.dumps([c.get("outputs", []) for c in executed.cells])


@pytest.mark.slow
def test_changing_resnorm_or_a_cell_re_executes_and_nothing_else_does(tmp_path):
    repo = _minimal_copy(tmp_path / "repo")
    first, second = secrets.token_hex(4), secrets.token_hex(4)
    probe = repo / PROBE_MODULE
    # 1. Se ejecuta el capítulo con el motor de antes (solo la ejecución, sin Sphinx:
    #    la caché queda como la dejaría un «make book» anterior).
    probe.write_text(f"VALOR = {first!r}\n", encoding="utf-8")
    _make_in_copy(repo, "execute")
    assert f"valor = {first}" in _cached_outputs(repo)

    # 2. El notebook no cambia; solo el motor. Sin la huella, jupyter-cache serviría
    #    la ejecución anterior y la página mostraría el valor viejo.
    probe.write_text(f"VALOR = {second!r}\n", encoding="utf-8")
    _make_in_copy(repo, "book-step")
    page = repo / "_build" / "html" / PROBE_NOTEBOOK.replace(".ipynb", ".html")
    html = page.read_text(encoding="utf-8")
    assert f"valor = {second}" in html, "la página muestra el valor viejo de resnorm"
    assert f"valor = {first}" not in html

    # 3. Nada cambió: ni se arranca el ejecutor (la marca de la última ejecución).
    assert EXECUTOR not in _make_in_copy(repo, "execute")

    # 4. Cambia una celda (y solo eso): el ejecutor vuelve a arrancar y lo ejecuta.
    nb = nbformat.read(repo / PROBE_NOTEBOOK, as_version=4)
    nb.cells[1].source += "\nprint('otra celda')"
    nbformat.write(nb, repo / PROBE_NOTEBOOK)
    out = _make_in_copy(repo, "execute")
    assert EXECUTOR in out and "  ejecutado: prueba_cache.ipynb" in out, out
    assert "otra celda" in _cached_outputs(repo)


@pytest.mark.slow
def test_a_notebook_that_fails_stops_the_build_and_is_named(tmp_path):
    # «jcache» termina bien aunque un notebook falle: el Makefile lee su resumen.
    repo = _minimal_copy(tmp_path / "repo")
    (repo / PROBE_MODULE).write_text("VALOR = 1\n", encoding="utf-8")
    nb = nbformat.read(repo / PROBE_NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("raise ValueError('fallo de prueba')"))
    nbformat.write(nb, repo / PROBE_NOTEBOOK)
    result = _make("book-step", cwd=repo, env={"PYTHONPATH": str(repo)})
    out = result.stdout + result.stderr
    assert result.returncode != 0, out[-4000:]
    assert "fallo de prueba" in out, out[-4000:]  # el error, para arreglarlo
    failed = result.stdout.split("Notebooks con error:")[-1].split()
    assert failed == [str(repo / PROBE_NOTEBOOK)], out[-4000:]
    assert not (repo / "_build" / "html").exists()  # Sphinx no llegó a empezar
    assert not (repo / "_build" / ".jupyter_cache" / ".notebooks-ejecutados").exists()


@pytest.mark.slow
def test_a_cell_past_the_timeout_stops_the_build_naming_notebook_and_cell(tmp_path):
    # El límite es el «execute: timeout» de _config.yml (aquí, 2 s desde la orden).
    repo = _minimal_copy(tmp_path / "repo")
    (repo / PROBE_MODULE).write_text("VALOR = 1\n", encoding="utf-8")
    nb = nbformat.read(repo / PROBE_NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import time\ntime.sleep(60)  # lenta"))
    nbformat.write(nb, repo / PROBE_NOTEBOOK)
    result = _make("execute", "CELL_TIMEOUT=2", cwd=repo,
                   env={"PYTHONPATH": str(repo)})
    out = result.stdout + result.stderr
    assert result.returncode != 0, out[-4000:]
    failed = result.stdout.split("Notebooks con error:")[-1].split()
    assert failed == [str(repo / PROBE_NOTEBOOK)], out[-4000:]
    assert "time.sleep(60)  # lenta" in out, out[-4000:]  # la celda, por su código


def test_the_cell_timeout_is_one_value_read_from_the_book_config():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    timeout = config["execute"]["timeout"]
    assert timeout >= 1200, "holgado: una máquina ocupada no debe romper el libro"
    from tests.helpers import CELL_TIMEOUT

    assert CELL_TIMEOUT == timeout or os.environ.get("CELL_TIMEOUT")
    made = subprocess.run(
        ["make", "-s", "--no-print-directory", "-f", "Makefile", "-f", "-", "mostrar"],
        input="mostrar:\n\t@echo $(CELL_TIMEOUT)\n", cwd=ROOT, capture_output=True,
        text=True, check=True)
    assert made.stdout.strip() == str(timeout)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "--timeout $(CELL_TIMEOUT)" in makefile
    assert not re.search(r"--timeout \d", makefile), "un segundo valor en el Makefile"


@pytest.mark.slow
def test_a_page_whose_source_left_the_toc_leaves_the_site(tmp_path):
    repo = _minimal_copy(tmp_path / "repo")
    (repo / PROBE_MODULE).write_text("VALOR = 1\n", encoding="utf-8")
    toc = (repo / "_toc.yml").read_text(encoding="utf-8")
    (repo / "book" / "extra.md").write_text("# Página de paso\n\nTexto.\n",
                                           encoding="utf-8")
    (repo / "_toc.yml").write_text(toc + "chapters:\n- file: book/extra\n",
                                   encoding="utf-8")
    _make_in_copy(repo, "book-step")
    page = repo / "_build" / "html" / "book" / "extra.html"
    assert page.exists()
    (repo / "_toc.yml").write_text(toc, encoding="utf-8")  # otra rama, sin la página
    (repo / "book" / "extra.md").unlink()
    _make_in_copy(repo, "book-step")
    assert not page.exists(), "la página de un documento que salió del índice sigue"


@pytest.mark.slow
def test_an_edit_whose_file_time_goes_back_is_rebuilt(tmp_path):
    # cp -p, rsync -a, un archivo descomprimido: el contenido cambia y la fecha no
    # avanza. La página debe salir con el cambio (book/_ext/fuentes_por_contenido.py).
    repo = _minimal_copy(tmp_path / "repo")
    (repo / PROBE_MODULE).write_text("VALOR = 1\n", encoding="utf-8")
    toc = (repo / "_toc.yml").read_text(encoding="utf-8")
    source = repo / "book" / "extra.md"
    source.write_text("# Página de paso\n\nTexto viejo.\n", encoding="utf-8")
    (repo / "_toc.yml").write_text(toc + "chapters:\n- file: book/extra\n",
                                   encoding="utf-8")
    _make_in_copy(repo, "book-step")
    page = repo / "_build" / "html" / "book" / "extra.html"
    assert "Texto viejo" in page.read_text(encoding="utf-8")
    before = source.stat().st_mtime - 3600
    source.write_text("# Página de paso\n\nTexto nuevo.\n", encoding="utf-8")
    os.utime(source, (before, before))
    _make_in_copy(repo, "book-step")
    html = page.read_text(encoding="utf-8")
    assert "Texto nuevo" in html and "Texto viejo" not in html


def test_content_staleness_detects_a_changed_file_whatever_its_date(tmp_path):
    from types import SimpleNamespace

    from fuentes_por_contenido import _record, changed_by_content

    doc = tmp_path / "a.md"
    doc.write_text("uno", encoding="utf-8")
    env = SimpleNamespace(doc2path=lambda name: tmp_path / f"{name}.md")
    assert changed_by_content(env, {"a"}) == ["a"]  # nunca leído con huella
    _record(None, env, ["a"])
    assert changed_by_content(env, {"a"}) == []
    stat = doc.stat()
    doc.write_text("dos", encoding="utf-8")
    os.utime(doc, (stat.st_atime, stat.st_mtime))  # misma fecha, otro contenido
    assert changed_by_content(env, {"a"}) == ["a"]


def test_the_environment_check_names_what_is_missing_or_moved():
    from importlib.metadata import PackageNotFoundError

    from tools.check_env import mismatches, pins

    wanted = pins("# fijados\nnumpy==2.4.6\ntorch==2.13.0\nsphinx-exercise==1.2.1\n"
                  "-e .\n")
    assert wanted == {"numpy": "2.4.6", "torch": "2.13.0", "sphinx-exercise": "1.2.1"}
    have = {"numpy": "2.4.5", "torch": "2.13.0+cpu"}

    def installed(name):
        if name not in have:
            raise PackageNotFoundError(name)
        return have[name]

    assert mismatches(wanted, installed) == [
        "numpy: hay 2.4.5, se fijó 2.4.6", "sphinx-exercise: falta (se fijó 1.2.1)"]
    assert mismatches({"torch": "2.13.0"}, installed) == []  # la rueda CPU: +cpu


def test_make_deps_checks_the_environment_not_only_its_stamp():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target, pinned in (("deps", "requirements.txt"),
                           ("test-deps", "requirements-test.txt")):
        recipe = makefile.split(f"\n{target}: ", 1)[1].split("\n\n", 1)[0]
        assert f"tools/check_env.py {pinned}" in recipe, target
    from tools.check_env import main

    assert main([str(ROOT / "requirements.txt")]) == 0, "este entorno es el fijado"


def test_makefile_and_ci_use_the_readme_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make book" in readme and "make test" in readme
    commands = [
        line.strip() for line in ci.splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "set ", "cd "))
    ]
    assert commands == ["make test"], commands


def test_the_makefile_hashes_every_engine_file(tmp_path):
    # La huella cambia con cualquier archivo de resnorm/ (no solo .py) y con los
    # requisitos fijados; no cambia con los notebooks ni con las pruebas.
    repo = tmp_path / "repo"
    (repo / "resnorm" / "widgets").mkdir(parents=True)
    shutil.copy(ROOT / "Makefile", repo / "Makefile")
    (repo / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "engine_hash.py", repo / "tools")
    (repo / "requirements.txt").write_text("numpy==1\n")
    (repo / "resnorm" / "widgets" / "w.js").write_text("export default {};\n")
    (repo / "notebooks").mkdir()

    def stamp() -> str:
        out = _make("-s", "engine-hash", cwd=repo)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    base = stamp()
    (repo / "notebooks" / "a.ipynb").write_text(json.dumps({}))
    assert stamp() == base
    (repo / "resnorm" / "widgets" / "w.js").write_text("export default {a: 1};\n")
    changed_js = stamp()
    (repo / "requirements.txt").write_text("numpy==2\n")
    assert len({base, changed_js, stamp()}) == 3


def test_the_makefile_rewrites_the_site_when_its_layer_changes(tmp_path):
    # La huella de la capa del sitio (SITE_HASH): cambia con cualquier extensión,
    # catálogo o plantilla, con conf.py y con el PDF; no con un capítulo. Cuando
    # cambia, «make book» borra la salida y Sphinx escribe todas las páginas.
    repo = tmp_path / "repo"
    layer = ["book/_ext/x.py", "book/_ext/locale/es/LC_MESSAGES/x.po",
             "book/_templates/x.html", "conf.py", "package-lock.json",
             "tools/pdf_sphinx.py"]
    for rel in [*layer, "notebooks/a.ipynb"]:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("a\n")
    shutil.copy(ROOT / "Makefile", repo / "Makefile")

    def stamp() -> str:
        out = _make("-s", "--eval", "probe: ; @echo $(SITE_HASH)", "probe", cwd=repo)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    seen = {stamp()}
    (repo / "notebooks" / "a.ipynb").write_text("b\n")
    assert stamp() in seen
    for rel in layer:
        (repo / rel).write_text("b\n")
        assert stamp() not in seen, f"{rel} no cambia la huella del sitio"
        seen.add(stamp())


def test_make_lets_python_keep_the_bytecode_of_what_it_imports():
    # Con PYTHONDONTWRITEBYTECODE en el entorno, cada proceso que lanza el Makefile
    # (núcleos, Sphinx, pytest) recompilaría torch desde el fuente: el Makefile no la
    # pasa a sus órdenes.
    probe = 'probe: ; @echo "[$$PYTHONDONTWRITEBYTECODE]"'
    out = _make("-s", "--eval", probe, "probe", env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


def test_the_bench_counts_as_stray_only_pages_outside_the_book(built_site, tmp_path):
    """«make bench» señala las páginas publicadas que no son del libro (una carpeta sin
    excluir); las de ``book/`` con ``orphan: true`` están fuera del índice a
    propósito y no cuentan."""
    from bench import pages
    from tests.helpers import html_pages

    assert "book/estadisticas.html" in pages.orphan_pages()
    assert pages.stray_pages(built_site) == []
    # Las mismas páginas en una copia (vacías), y una de más.
    for rel in [*html_pages(built_site), "borrador/notas.html"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("<html></html>", encoding="utf-8")
    assert pages.stray_pages(tmp_path) == ["borrador/notas.html"]


# --- Las fuentes recortadas: los mismos bytes en cada construcción -------------------


def _another_day(monkeypatch, seconds: int) -> None:
    # fontTools escribe la hora de ahora en head.modified al guardar una fuente, salvo
    # con recalcTimestamp=False.
    from fontTools.ttLib.tables import _h_e_a_d

    monkeypatch.setattr(_h_e_a_d, "timestampNow", lambda: 3_900_000_000 + seconds)


def test_trimmed_icon_font_has_the_same_bytes_on_another_day(monkeypatch, tmp_path):
    import pydata_sphinx_theme

    webfonts = Path(pydata_sphinx_theme.__file__).parent / "theme" / \
        "pydata_sphinx_theme" / "static" / "vendor" / "fontawesome" / "webfonts"
    from curso_sitio import _subset_font as subset
    from curso_sitio import theme_font  # .ttf o .woff2, como la construcción

    out = []
    for day in (0, 1):
        _another_day(monkeypatch, 86_400 * day)
        target = tmp_path / f"fa-{day}.woff"
        assert subset(theme_font(webfonts, "fa-solid-900"), target, {0xF00C, 0xF002})
        out.append(target.read_bytes())
    assert out[0] == out[1]


# --- La configuración: conf.py construye, _config.yml publica ------------------------


def test_conf_reads_the_publishing_settings_from_config_yml():

    conf = runpy.run_path(str(ROOT / "conf.py"))
    publishing = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    options = conf["html_theme_options"]
    assert conf["project"] == conf["html_title"] == publishing["title"]
    assert options["repository_url"] == publishing["repository"]["url"]
    assert options["repository_branch"] == publishing["repository"]["branch"]
    assert options["launch_buttons"] == publishing["launch_buttons"]
    assert conf["nb_execution_cache_path"] == publishing["execute"]["cache"]
    assert conf["nb_execution_mode"] == publishing["execute"]["execute_notebooks"]
    # «Cómo usar» enlaza el repositorio: {{ repositorio_url }}, de repository.url.
    assert conf["myst_substitutions"] == {
        **publishing["enlaces"], "repositorio_url": publishing["repository"]["url"]}
    assert conf["html_baseurl"] == publishing["html"]["baseurl"]
    # Lo de Sphinx (extensiones, tema) no está en _config.yml: un solo sitio.
    assert "sphinx" not in publishing and "extensions" not in publishing


def test_the_book_is_built_by_sphinx_build_with_conf_py():
    # Por qué no con la orden jupyter-book: README.md, «Jupyter Book y este libro».
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "sphinx-build -b html . $(HTML)" in makefile
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8").lower()
    assert "jupyter-book==" not in requirements, (
        "jupyter-book 1 fija Sphinx 7: el libro se construye con sphinx-build y conf.py"
    )
    sphinx = re.search(r"^sphinx==(\d+)\.", requirements, re.M)
    assert sphinx and int(sphinx.group(1)) >= 8, "Sphinx ≥ 8"
    # Los temas fijados llevan al lado la issue que lo explica.
    pin = requirements.index("pydata-sphinx-theme==")
    assert "#2451" in requirements[max(0, pin - 300):pin]


def _jupyter_book_schema() -> dict:
    """El esquema de _config.yml de Jupyter Book 1, de su rueda sin instalar (la
    descarga «make test-deps», JB_WHEEL en el Makefile)."""
    import zipfile

    wheels = sorted((ROOT / ".venv" / "jupyter-book").glob("jupyter_book-*.whl"))
    assert wheels, "falta la rueda de Jupyter Book: ejecuta «make test-deps»"
    with zipfile.ZipFile(wheels[-1]) as wheel:
        return json.loads(wheel.read("jupyter_book/config_schema.json"))


def test_config_and_toc_stay_valid_jupyter_book_files():
    """_config.yml y _toc.yml siguen siendo de Jupyter Book 1: su esquema para uno y el
    lector de sphinx-external-toc (el de Jupyter Book) para el otro."""
    import jsonschema
    from sphinx_external_toc.parsing import parse_toc_yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    jsonschema.validate(config, _jupyter_book_schema())
    toc = parse_toc_yaml(ROOT / "_toc.yml")
    assert toc.root.docname == "book/intro" and len(toc) > 12


def test_the_schema_check_rejects_a_config_jupyter_book_would_not_read():
    import jsonschema

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["execute"]["timeout"] = "mucho"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(config, _jupyter_book_schema())


def test_the_themes_are_the_versions_the_site_was_checked_with():
    """Subir un tema construye el libro, pero rompe el sitio (tests/helpers.py,
    ``CHECKED_THEMES``): esta prueba dice, sin navegador, qué hacer."""
    assert not theme_upgrade_hint(), theme_upgrade_hint().strip()
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    pins = dict(re.findall(r"^(pydata-sphinx-theme|sphinx-book-theme)==(\S+)",
                           requirements, re.M))
    assert pins == CHECKED_THEMES


def test_a_failing_run_with_other_themes_ends_saying_what_to_do(monkeypatch):
    from importlib.metadata import version

    from tests import conftest, helpers

    class Reporter:
        def __init__(self, stats):
            self.stats, self.lines = stats, []

        def write_sep(self, sep, title, **markup):
            self.lines.append(title)

        def write_line(self, line, **markup):
            self.lines.append(line)

    def summary(stats) -> str:
        reporter = Reporter(stats)
        summary_after = conftest.pytest_terminal_summary(reporter, 1, None)
        next(summary_after)  # lo que pytest escribe antes (los fallos, la lista)
        next(summary_after, None)
        return "\n".join(reporter.lines)

    for name in helpers.CHECKED_THEMES:  # los instalados, como si fueran comprobados
        monkeypatch.setitem(helpers.CHECKED_THEMES, name, version(name))
    assert summary({"failed": ["x"]}) == ""  # con los temas comprobados, nada
    monkeypatch.setitem(helpers.CHECKED_THEMES, "pydata-sphinx-theme", "0.0.1")
    assert summary({"passed": ["x"]}) == ""  # sin fallos, nada
    for failed in ({"failed": ["x"]}, {"error": ["x"]}):
        text = summary(failed)
        assert "temas sin comprobar" in text and "#2451" in text, text
        assert "git checkout requirements.txt" in text and "make deps" in text


def test_every_local_extension_in_book_ext_is_registered_in_conf_py():
    conf = runpy.run_path(str(ROOT / "conf.py"))
    local = sorted(p.stem for p in (ROOT / "book" / "_ext").glob("*.py"))
    missing = [name for name in local if name not in conf["extensions"]]
    assert not missing, f"Añade a «extensions» de conf.py: {missing}"


def test_the_search_page_texts_of_this_sphinx_are_in_the_spanish_catalog():
    """Cada texto que escribe la búsqueda de Sphinx (``searchtools.js``) está en
    ``book/_ext/locale/es/LC_MESSAGES/sphinx.po``: al subir Sphinx, un texto que
    cambia (Sphinx 8 pasó «page(s)» a singular y plural) se nota aquí, no como un
    resumen vacío en la página de búsqueda."""
    import sphinx

    from interfaz_es import _js_messages

    js = (Path(sphinx.__file__).parent / "themes" / "basic" / "static" /
          "searchtools.js").read_text(encoding="utf-8")
    texts = re.findall(r'\b(?:_|gettext|ngettext)\(\s*"([^"]+)"', js)
    texts = [t for t in texts if any(c.isalpha() for c in t)]
    assert "Search Results" in texts and len(texts) >= 5, texts
    messages = _js_messages("es")
    missing = [t for t in texts if t not in messages]
    po = "book/_ext/locale/es/LC_MESSAGES/sphinx.po"
    assert not missing, f"Traduce en {po}: {missing}"
    plural = messages["Search finished, found one page matching the search query."]
    assert isinstance(plural, list) and "${resultCount}" in plural[1]


def test_the_icon_font_is_read_as_ttf_or_woff2_and_its_absence_says_what_to_do(
    tmp_path,
):
    import curso_sitio
    from sphinx.errors import ExtensionError

    (tmp_path / "fa-solid-900.woff2").write_bytes(b"")
    assert curso_sitio.theme_font(tmp_path, "fa-solid-900").suffix == ".woff2"
    (tmp_path / "fa-solid-900.ttf").write_bytes(b"")
    assert curso_sitio.theme_font(tmp_path, "fa-solid-900").suffix == ".ttf"
    with pytest.raises(ExtensionError, match="requirements.txt") as error:
        curso_sitio.theme_font(tmp_path, "fa-brands-400")
    assert "fa-brands-400" in str(error.value) and "make deps" in str(error.value)


def test_forked_kernels_start_with_the_libraries_imported_and_run_like_any_kernel(
        tmp_path, monkeypatch):
    # tools/nucleos.py: el ejecutor de «make book» pide núcleos «python3» a un proceso
    # que ya importó torch y compañía; cada núcleo es un proceso nuevo (otro pid, su
    # sesión), con su espacio de nombres vacío, y el servidor lo espera al terminar.
    import signal
    import sys
    import time

    from jupyter_client.manager import start_new_kernel

    folder = tmp_path / "nucleos"
    folder.mkdir()
    server = subprocess.Popen([sys.executable, str(ROOT / "tools" / "nucleos.py"),
                               "servir", str(folder)])
    try:
        spec = folder / "kernels" / "python3" / "kernel.json"
        deadline = time.monotonic() + 60
        while not spec.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        # La especificación la busca este proceso (el de pytest), como el ejecutor.
        monkeypatch.setenv("JUPYTER_PATH", str(folder))
        km, kc = start_new_kernel(kernel_name="python3", startup_timeout=300)
        try:
            code = ("import os, sys; print(os.getppid(), os.getsid(0) == os.getpid(), "
                    "'torch' in sys.modules, 'resnorm' in sys.modules, "
                    "sorted(k for k in globals() if not k.startswith('_'))[:3])")
            out = []
            kc.execute_interactive(code, timeout=300, output_hook=lambda m: out.append(
                m["content"].get("text", "")) if m["msg_type"] == "stream" else None)
        finally:
            km.shutdown_kernel(now=False)
            kc.stop_channels()
        ppid, own_session, torch_loaded, resnorm_loaded, names = "".join(out).split(
            maxsplit=4)
        assert int(ppid) == server.pid  # bifurcado del servidor, no lanzado de nuevo
        assert (own_session, torch_loaded, resnorm_loaded) == ("True", "True", "False")
        assert "torch" not in names and "np" not in names  # nada en su espacio
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
    assert not (folder / "s").exists()
