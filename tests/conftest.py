"""Fixtures comunes: notebooks ejecutados una vez por sesión, el sitio construido
servido en 127.0.0.1 y un Chromium headless que aborta toda petición externa."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

import pytest

from tests.helpers import (
    BUILD_HTML,
    ROOT,
    chromium_args,
    execute_notebook,
    notebook_paths,
)


@pytest.fixture(scope="session")
def executed_notebooks():
    """Cada notebook del libro, ejecutado una vez en un núcleo nuevo (caché de sesión)."""
    cache: dict[str, object] = {}

    def get(path: Path):
        key = str(path)
        if key not in cache:
            cache[key] = execute_notebook(path)
        return cache[key]

    return get


@pytest.fixture(scope="session")
def built_site() -> Path:
    index = BUILD_HTML / "index.html"
    if not index.exists():
        pytest.fail("No hay sitio construido en _build/html: ejecuta «make book» antes.")
    return BUILD_HTML


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - firma de la clase base
        pass


@pytest.fixture(scope="session")
def site_url(built_site):
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    executable = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        kwargs = {"args": chromium_args()}
        if Path(executable).exists():
            kwargs["executable_path"] = executable
        browser = p.chromium.launch(**kwargs)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture()
def page_factory(browser):
    """Crea páginas que registran errores de consola y peticiones externas (abortadas)."""
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
