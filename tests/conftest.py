"""Fixtures comunes: los notebooks que ejecutó «make book», el sitio construido
servido en 127.0.0.1 y un Chromium headless que aborta toda petición externa."""

from __future__ import annotations

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


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & BUILD_FIXTURES:
            item.add_marker(pytest.mark.build)
        if names & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)


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
    """Crea páginas que registran errores de consola y peticiones externas
    (abortadas)."""
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
