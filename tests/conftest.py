"""Fixtures comunes: los notebooks que ejecutó «make book», el sitio construido
servido en 127.0.0.1 y un Chromium headless que aborta toda petición externa."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.server import serve
from tests.helpers import (
    BUILD_HTML,
    ENGINE_STAMP,
    ROOT,
    built_notebook,
    engine_hash,
    launch_chromium,
    notebook_paths,
)

# Fixtures que necesitan el libro construido («make book») o un navegador: las pruebas
# que las usan llevan la marca correspondiente, y «make check» las deja fuera.
BUILD_FIXTURES = {"executed_notebooks", "built_site", "site_url"}
BROWSER_FIXTURES = {"browser", "page_factory"}


# Pruebas que reconstruyen _build: en «make test» corren solas, después de las demás
# (``-m serial``), para que ninguna otra lea el sitio mientras «make book» lo reescribe
# (la reconstrucción en caliente). Ninguna prueba mide tiempos: lo que depende de la
# velocidad de la máquina (Lighthouse, cuándo aparece un widget, los cocientes de
# tiempos, la CPU de una reconstrucción) lo mide «make bench» (bench/).
SERIAL_MODULES: set[str] = set()
SERIAL_TESTS = {
    "test_warm_rebuild_reuses_the_cache_and_starts_no_executor",
}
SERIAL_FIXTURES: set[str] = set()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """El reparto de pytest-xdist: cada módulo entero en un solo proceso, para que sus
    fixtures de módulo (el navegador ya abierto en cada página, el servidor de
    JupyterLab, los experimentos) se calculen una vez. Dos módulos se reparten más
    fino (``SPLIT``): las vistas del sitio (``test_site_view.py``, una carga por
    página y vista) por vista, los entrenamientos del GPT (``test_gpt.py``) por
    semilla y las preguntas de cada capítulo (``test_quiz_site.py``) por página.

    (La marca ``xdist_group`` de ``--dist loadgroup`` no sirve con pytest 9: xdist 3.8
    cambia ``item._nodeid``, que pytest 9 ya no lee.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module, _, rest = nodeid.partition("::")
            split = SPLIT.get(module.rsplit("/", 1)[-1])
            part = split.search(rest) if split else None
            return f"{module}::{part.group(1)}" if part else module

    return ModuleScheduling(config, log)


#: Módulos cuyas pruebas se reparten por una parte de su nombre (el resto del módulo
#: va junto): la vista del sitio, la semilla del GPT, la página de las preguntas (cada
#: prueba abre la suya; el módulo entero era de los más largos).
SPLIT = {
    "test_site_view.py": re.compile(
        r"\[((?:telefono|tableta|portatil)-(?:claro|oscuro))\b"),
    "test_gpt.py": re.compile(r"\[(\d+)\]$"),
    "test_quiz_site.py": re.compile(r"\[(notebooks/[\w.-]+)\]$"),
    # Cada cuaderno del alumno en un núcleo nuevo (≈ 7 min en total): uno por proceso.
    "test_cuadernos.py": re.compile(r"^(test_each_learner_notebook_runs\w+\[\w+\])$"),
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & BUILD_FIXTURES:
            item.add_marker(pytest.mark.build)
        if names & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        if (
            item.path.name in SERIAL_MODULES
            or getattr(item, "originalname", item.name) in SERIAL_TESTS
            or names & SERIAL_FIXTURES
        ):
            item.add_marker(pytest.mark.serial)


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
