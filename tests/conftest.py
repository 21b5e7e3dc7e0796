"""Fixtures comunes: los notebooks que ejecutó «make book», el sitio construido
servido en 127.0.0.1 y un Chromium headless que aborta toda petición externa."""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest

from bench.server import serve
from tests.helpers import (
    BUILD_HTML,
    ENGINE_STAMP,
    GPT_MEMO,
    GPT_MEMO_ENV,
    ROOT,
    built_notebook,
    engine_hash,
    launch_chromium,
    notebook_paths,
    theme_upgrade_hint,
)

# Fixtures que necesitan el libro construido («make book») o un navegador: las pruebas
# que las usan llevan la marca correspondiente, y «make check» las deja fuera.
BUILD_FIXTURES = {"executed_notebooks", "built_site", "site_url"}
BROWSER_FIXTURES = {"browser", "page_factory"}


# Pruebas que reconstruyen _build: en «make test» corren aparte (``-m serial``), antes
# que las del sitio, para que ninguna otra lea el sitio mientras «make book» lo
# reescribe (la reconstrucción en caliente); a la vez solo corren las que no leen
# _build (las de la primera tanda, sin las marcas «build» ni «browser»). Ninguna
# prueba mide tiempos: lo que depende de la velocidad de la máquina (Lighthouse,
# cuándo aparece un widget, los cocientes de tiempos, la CPU de una reconstrucción) lo
# mide «make bench» (bench/).
SERIAL_MODULES: set[str] = set()
SERIAL_TESTS = {
    "test_warm_rebuild_reuses_the_cache_and_starts_no_executor",
}
SERIAL_FIXTURES: set[str] = set()

# La parte de las pruebas que depende del redondeo de la CPU (marca «floats»): los
# números pegados y las afirmaciones de los notebooks (que se comprueban al
# ejecutarlos), el GPT en JavaScript contra PyTorch, los correctores de ejercicios, los
# experimentos y las cuentas de resnorm contra PyTorch. «make test» las repite con
# torch, NumPy y MKL en los núcleos de otra CPU (Makefile, test-other-cpu).
FLOAT_MODULES = {
    "test_numbers.py", "test_gpt_js.py", "test_experiments.py",
    "test_experiments_ch01.py", "test_experiments_ch05.py", "test_claims_ch09.py",
    "test_torch_parity.py", "test_blocks.py", "test_numerics.py", "test_gpt.py",
    "test_gpt_batch.py",
} | {f"test_exercises_ch{n:02d}.py" for n in range(1, 13)}
FLOAT_TESTS = {"test_notebook_ran_top_to_bottom_without_errors"}

# Fixtures que entrenan o calculan un experimento de verdad (de resnorm.experiments,
# resnorm.gpt…): cada prueba que las usa lleva la marca «slow», y «make check» (el bucle
# de trabajo, un minuto de CPU) las deja para «make test». Las que calculan lo mismo a
# un tamaño de juguete (segundos o menos) van en CHEAP_FIXTURES, con el porqué.
# tests/test_gate.py comprueba que toda fixture de módulo que llama a un experimento
# está en una de las dos listas: quien añade otra decide dónde va.
SLOW_FIXTURES = {
    "test_figures_view.py": {"data": "seis experimentos y cada figura dibujada"},
    "test_plots.py": {"data": "los mismos seis experimentos"},
    "test_gpt_js.py": {"short_runs": "cinco GPT de 20 pasos",
                       "chapter_runs": "los cinco GPT del capítulo 10"},
    "test_experiments.py": {
        "transformer": "Transformers de 3 y 24 bloques, varias semillas",
        "train_adam": "un entrenamiento entero con Adam",
        "train_sgd": "un entrenamiento entero con SGD",
        "grad_depth": "pilas de hasta 64 capas, gradiente hasta la primera",
        "act_std": "pilas de hasta 64 capas con varias semillas",
        "survival": "pilas de 50 capas con 64 entradas",
    },
}
CHEAP_FIXTURES = {
    "test_claims_ch09.py": {"scaled": "pilas lineales de anchura 64, sin entrenar",
                            "sweep": "tres ganancias en pilas pequeñas"},
    "test_experiments_ch01.py": {"control": "una capa ortogonal, sin entrenar",
                                 "by_init": "un lote pequeño, sin entrenar"},
    "test_experiments_ch05.py": {"control": "una pila lineal pequeña, sin entrenar"},
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """El reparto de pytest-xdist: cada módulo entero en un solo proceso, para que sus
    fixtures de módulo (el navegador ya abierto en cada página, el servidor de
    JupyterLab, los experimentos) se calculen una vez. Algunos módulos se reparten más
    fino (``SPLIT``): las vistas del sitio (``test_site_view.py``, una carga por
    página y vista) por vista, las preguntas de cada capítulo (``test_quiz_site.py``)
    por página y cada cuaderno del alumno en su núcleo nuevo por cuaderno; y alguno va
    en el grupo de otro (``JOINED``).

    Los grupos salen en el orden de la colección, que ``pytest_collection_modifyitems``
    deja con los más largos delante (``COSTLY``): xdist, por defecto, los ordena por
    número de pruebas, y un grupo de una sola prueba larga (un cuaderno en un núcleo
    nuevo) quedaba para el final, con los demás procesos ya parados.

    (La marca ``xdist_group`` de ``--dist loadgroup`` no sirve con pytest 9: xdist 3.8
    cambia ``item._nodeid``, que pytest 9 ya no lee.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    config.option.loadscopereorder = False
    return ModuleScheduling(config, log)


def scope_of(nodeid: str) -> str:
    """El grupo de una prueba: su módulo, la parte de él que dice ``SPLIT`` o el grupo
    al que ``JOINED`` lo une."""
    module, _, rest = nodeid.partition("::")
    folder, _, name = module.rpartition("/")
    if name in JOINED:
        return f"{folder}/{JOINED[name]}" if folder else JOINED[name]
    split = SPLIT.get(name)
    part = split.search(rest) if split else None
    return f"{module}::{part.group(1)}" if part else module


#: Módulos cuyas pruebas se reparten por una parte de su nombre (el resto del módulo
#: va junto): la vista del sitio, la página de las preguntas (cada prueba abre la
#: suya; el módulo entero era de los más largos), el cuaderno del alumno.
SPLIT = {
    "test_site_view.py": re.compile(
        r"\[((?:telefono|tableta|portatil)-(?:claro|oscuro))\b"),
    "test_quiz_site.py": re.compile(r"\[(notebooks/[\w.-]+)\]$"),
    # Cada cuaderno del alumno en un núcleo nuevo: uno por grupo.
    "test_cuadernos.py": re.compile(r"^(test_each_learner_notebook_runs\w+\[\w+\])$"),
    # La construcción de Binder (un venv nuevo con todos los pines), en su grupo.
    "test_publicar.py": re.compile(r"^(test_binder_\w+)$"),
}


#: Módulos que van en el grupo de otro: test_site_quality.py lee la carga de cada página
#: que hace test_site_view.py en el portátil (fixture ``site_views``, una por
#: proceso), y test_widgets_site.py la del teléfono (el grupo del portátil ya es el
#: más largo).
JOINED = {"test_site_quality.py": "test_site_view.py::portatil-claro",
          "test_widgets_site.py": "test_site_view.py::telefono-claro"}


#: Los grupos más largos de cada tanda de «make test», delante, de más a menos (medidos
#: módulo a módulo con la máquina casi libre, issue 32: el cuaderno del GPT en un núcleo
#: nuevo ≈ 80 s, test_gpt_js ≈ 100 s, cada vista del sitio ≈ 50 s (la del portátil, con
#: test_site_quality.py, más), test_figures_view ≈ 40 s, JupyterLab ≈ 30 s); los demás
#: van detrás, de más pruebas a menos, como los ordena xdist. Es solo el orden de
#: salida: una prueba que no esté aquí se ejecuta igual. Con un grupo largo al final,
#: los otros procesos esperan sin hacer nada.
COSTLY = (
    # La construcción de Binder: ≈ 5 min con la caché de pip y la máquina ocupada.
    "test_publicar.py::test_binder_",
    "test_cuadernos.py::test_each_learner_notebook_runs_on_a_fresh_kernel_and_prints"
    "_the_page_numbers[10_gpt_diminuto]",
    "test_gpt_js.py",
    "test_site_view.py::",
    "test_figures_view.py",
    "test_jupyterlab.py",
    "test_hub.py",
    "test_fallos_pagina.py",
    "test_pdf.py",
    "test_cuadernos.py::test_each_learner_notebook_runs_on_a_fresh_kernel_and_prints"
    "_the_page_numbers[",
)


def _costly_first(items) -> None:
    """Ordena ``items`` por grupos: los de ``COSTLY`` delante, en su orden; los demás,
    de más pruebas a menos (cada grupo junto, en el orden de pytest)."""
    scopes = [scope_of(item.nodeid) for item in items]
    size = Counter(scopes)

    def rank(scope: str) -> tuple:
        n = next((n for n, part in enumerate(COSTLY) if part in scope), len(COSTLY))
        return n, -size[scope], scope

    order = {id(item): rank(scope) for item, scope in zip(items, scopes)}
    items.sort(key=lambda item: order[id(item)])


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & BUILD_FIXTURES:
            item.add_marker(pytest.mark.build)
        if names & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        if names & set(SLOW_FIXTURES.get(item.path.name, ())):
            item.add_marker(pytest.mark.slow)
        if (item.path.name in FLOAT_MODULES
                or getattr(item, "originalname", item.name) in FLOAT_TESTS):
            item.add_marker(pytest.mark.floats)
        if (
            item.path.name in SERIAL_MODULES
            or getattr(item, "originalname", item.name) in SERIAL_TESTS
            or names & SERIAL_FIXTURES
        ):
            item.add_marker(pytest.mark.serial)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _costly_first(items)


def pytest_report_header(config):
    from tests.floats import KERNEL_VARIABLES

    forced = [f"{k}={os.environ[k]}" for k in KERNEL_VARIABLES if os.environ.get(k)]
    if forced:
        return "núcleos de cálculo forzados: " + ", ".join(forced)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Un fallo dice en qué núcleos se calculó (torch elige los suyos según la CPU, y
    NumPy también): un fallo que solo sale en algunas CPU se reconoce en la salida."""
    report = yield
    if report.failed and call.when == "call":
        from tests.floats import cpu_note

        report.sections.append(("CPU", cpu_note()))
    return report


@pytest.hookimpl(wrapper=True, tryfirst=True)  # lo último: tras la lista de fallos
def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Si algo falló con otros temas que los comprobados (``CHECKED_THEMES``), el
    final de la salida lo dice una vez, con qué hacer: tras subir los temas fallan
    menús, esperas y scripts, cada uno con su propio mensaje."""
    yield
    stats = terminalreporter.stats
    if (stats.get("failed") or stats.get("error")) and (hint := theme_upgrade_hint()):
        terminalreporter.write_sep("=", "temas sin comprobar", yellow=True)
        terminalreporter.write_line(hint.strip())


@pytest.fixture(autouse=True)
def _no_gpt_memo(monkeypatch):
    """Cada prueba entrena de verdad (la de determinismo del GPT entrena dos veces),
    aunque el entorno de quien las lanza nombre una memoria de entrenamientos."""
    monkeypatch.delenv(GPT_MEMO_ENV, raising=False)


@pytest.fixture
def gpt_memo(monkeypatch, fresh_build):
    """Los entrenamientos del GPT que ya hizo la ejecución del libro, en memoria: los
    mismos argumentos, con el mismo código, dan el mismo resultado (lo comprueban
    ``tests/test_gpt.py`` y la prueba del cuaderno del alumno, que imprime los números
    de la página). También para un núcleo que arranque la prueba (hereda el entorno)."""
    monkeypatch.setenv(GPT_MEMO_ENV, str(GPT_MEMO))


@pytest.fixture(scope="session")
def fresh_build():
    """La construcción de _build es la del motor actual (si no, sus números son
    viejos)."""
    if not ENGINE_STAMP.exists():
        pytest.fail("No hay libro construido: ejecuta «make book» antes.")
    built, now = ENGINE_STAMP.read_text().strip(), engine_hash()
    if built != now:
        pytest.fail(
            f"resnorm/ o requirements.txt cambiaron desde la última construcción "
            f"(huella {built} ≠ {now}): ejecuta «make book»."
        )


@pytest.fixture(scope="session")
def executed_notebooks(fresh_build):
    """Cada notebook del libro tal como lo ejecutó «make book» (una sola ejecución).

    Los lee de la caché de ejecución (``_build/.jupyter_cache``), que los identifica
    por sus celdas: un notebook editado después de la construcción no se encuentra.
    ``fresh_build`` comprueba además que el motor no cambió desde entonces.
    """
    cache: dict[str, object] = {}

    def get(path: Path):
        key = str(path)
        if key not in cache:
            try:
                cache[key] = built_notebook(path)
            except (FileNotFoundError, RuntimeError) as exc:
                pytest.fail(str(exc))
        return cache[key]

    return get


@pytest.fixture(scope="session")
def built_site(fresh_build) -> Path:
    index = BUILD_HTML / "index.html"
    if not index.exists():
        pytest.fail(
            "No hay sitio construido en _build/html: ejecuta «make book» antes."
        )
    return BUILD_HTML


@pytest.fixture(scope="session")
def site_url(built_site):
    with serve(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def site_views(browser, site_url):
    """Cada página vista en cada vista (ancho y modo) de ``test_site_view.py``, una
    carga por página, vista y proceso; ``test_site_quality.py`` lee la del portátil."""
    from tests.test_site_view import SiteViews

    views = SiteViews(browser, site_url)
    yield views
    views.close()


@pytest.fixture()
def page_factory(browser):
    """Crea páginas que registran errores de consola y peticiones externas (que el
    navegador de las pruebas no llega a hacer: no resuelve ningún nombre de host)."""
    from tests.helpers import PageRecorder

    contexts = []

    def make(color_scheme: str = "light") -> PageRecorder:
        context = browser.new_context(color_scheme=color_scheme)
        contexts.append(context)
        return PageRecorder(context)

    yield make
    for context in contexts:
        context.close()


__all__ = ["ROOT", "notebook_paths"]
