"""El sitio construido aguanta los fallos de un navegador de verdad.

En Chromium, sin red, en un teléfono (390 px) y un portátil (1366 px):

* con el almacenamiento del sitio bloqueado (leer ``localStorage`` o
  ``sessionStorage`` lanza SecurityError, como en navegación privada estricta) o
  lleno (``setItem`` lanza QuotaExceededError), la búsqueda termina y encuentra, las
  páginas no lanzan errores, las preguntas se dibujan y dicen que el progreso no se
  guardará (``_assets/js/almacen-seguro.js``);
* sin JavaScript, cada widget y cada bloque de preguntas deja una nota en español;
* si no llega el código de un widget, su caja lo dice en vez de quedarse en blanco;
* un texto de 10 000 caracteres en la calculadora de media y σ no ensancha la página;
* una construcción incremental publica el mismo índice de búsqueda que una en frío
  (Sphinx #12599: perdía las 76 entradas del glosario).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import (
    VIEWPORTS,
    draw_widgets,
    open_page,
)

pytestmark = [pytest.mark.browser, pytest.mark.build]

LOAD_TIMEOUT = 90_000
CHAPTER = "notebooks/03_media_desviacion.html"

BLOCKED = """
for (const name of ["localStorage", "sessionStorage"]) {
  Object.defineProperty(window, name, {
    configurable: true,
    get() {
      throw new DOMException("El almacenamiento está bloqueado", "SecurityError");
    },
  });
}
"""
FULL = """
Storage.prototype.setItem = function () {
  throw new DOMException("El almacenamiento está lleno", "QuotaExceededError");
};
"""
STORAGE = {"bloqueado": BLOCKED, "lleno": FULL}
# El teléfono y el portátil. La tableta no: su marco es el del teléfono (índices
# desplegables) y su columna, la del portátil (tests/test_site_view.py,
# test_the_tablet_column_is_the_laptops); nada de lo que se prueba aquí cambia entre
# los dos.
WIDTHS = ["telefono", "portatil"]


def _context(browser, viewport: str, **kwargs):
    width, height = VIEWPORTS[viewport]
    return browser.new_context(
        viewport={"width": width, "height": height}, reduced_motion="reduce", **kwargs
    )


def _errors(page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    return errors


@pytest.mark.parametrize("storage", list(STORAGE))
@pytest.mark.parametrize("viewport", WIDTHS)
def test_search_theme_and_quizzes_work_when_storage_is_blocked_or_full(
    browser, site_url, viewport, storage
):
    context = _context(browser, viewport)
    context.add_init_script(STORAGE[storage])
    try:
        page = context.new_page()
        errors = _errors(page)
        # La búsqueda termina y encuentra (antes se quedaba en «Buscando…»).
        page.goto(f"{site_url}/search.html?q=capa", wait_until="load",
                  timeout=LOAD_TIMEOUT)
        try:
            page.wait_for_function(
                "() => { const s = document.querySelector("
                "'#search-results p.search-summary');"
                " return s && s.innerText.trim() && !/Buscando|Preparando/"
                ".test(s.innerText); }",
                timeout=30_000,
            )
        except Exception:  # noqa: BLE001 - el mensaje dice qué se ve
            summary = page.locator("#search-results").inner_text()
            pytest.fail(f"{storage}, {viewport}: la búsqueda no termina: {summary!r}")
        assert page.locator("#search-results li").count() > 0
        # Un capítulo: el tema se resuelve, las preguntas se dibujan y avisan.
        open_page(page, f"{site_url}/{CHAPTER}", timeout=LOAD_TIMEOUT)
        draw_widgets(page, timeout=LOAD_TIMEOUT)
        assert page.evaluate("document.documentElement.dataset.theme") in (
            "light", "dark")
        notes = page.locator(".rn-quiz-almacen")
        assert notes.count() >= 1
        note = notes.first
        note.scroll_into_view_if_needed()
        assert note.is_visible(), f"{storage}, {viewport}: el aviso no se ve"
        assert "progreso" in note.inner_text()
        # El almacén en memoria funciona: guardar y leer en la misma página.
        assert page.evaluate(
            "() => { localStorage.setItem('rn-prueba', 'sí');"
            " return localStorage.getItem('rn-prueba'); }") == "sí"
        assert not errors, f"{storage}, {viewport}: {errors}"
    finally:
        context.close()


def test_storage_that_works_is_left_alone(browser, site_url):
    """Con el almacenamiento normal, nada cambia: ni almacén en memoria ni aviso."""
    context = _context(browser, "telefono")
    try:
        page = context.new_page()
        open_page(page, f"{site_url}/{CHAPTER}", timeout=LOAD_TIMEOUT)
        draw_widgets(page, timeout=LOAD_TIMEOUT)
        assert page.evaluate("!window.localStorage.enMemoria")
        assert page.evaluate("document.documentElement.dataset.almacen") is None
        assert not page.locator(".rn-quiz-almacen").first.is_visible()
    finally:
        context.close()


@pytest.mark.parametrize("viewport", WIDTHS)
def test_without_javascript_each_widget_and_quiz_leaves_a_spanish_note(
    browser, site_url, viewport
):
    context = _context(browser, viewport, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{site_url}/{CHAPTER}", wait_until="load", timeout=LOAD_TIMEOUT)
        html = Path(__file__).resolve().parents[1] / "_build" / "html" / CHAPTER
        views = html.read_text(encoding="utf-8").count(
            'type="application/vnd.jupyter.widget-view+json"')
        notes = page.locator("p.rn-sin-js")
        texts = [t.strip() for t in notes.all_inner_texts()]
        assert len(texts) == views >= 2, (viewport, views, texts)
        assert all("JavaScript" in t and "\n" not in t for t in texts), texts
        assert any("widget" in t for t in texts), texts
        assert any("preguntas" in t for t in texts), texts
        for i in range(notes.count()):
            assert notes.nth(i).is_visible()
    finally:
        context.close()


@pytest.mark.parametrize("viewport", WIDTHS)
def test_a_widget_whose_code_does_not_arrive_says_so(browser, site_url, viewport):
    context = _context(browser, viewport)
    try:
        page = context.new_page()
        page.route("**/_static/widgets/*.js", lambda route: route.fulfill(
            status=404, body="no está"))
        page.goto(f"{site_url}/{CHAPTER}", wait_until="load", timeout=LOAD_TIMEOUT)
        page.evaluate("() => window.dispatchEvent(new Event('scroll'))")
        page.wait_for_function(
            "() => document.querySelectorAll('.widget-subarea').length > 0 &&"
            " [...document.querySelectorAll('.widget-subarea')].every("
            "(b) => b.querySelector('.rn-widget, .rn-widget-fallo'))",
            timeout=LOAD_TIMEOUT,
        )
        failed = page.locator(".widget-subarea .rn-widget-fallo")
        assert failed.count() >= 1
        text = failed.first.inner_text()
        assert "no se ha podido cargar" in text and "Recarga" in text, text
        box = page.locator(".widget-subarea:has(.rn-widget-fallo)").first
        assert "rn-reserva" not in (box.get_attribute("class") or "")
        assert box.bounding_box()["height"] < 200
    finally:
        context.close()


@pytest.mark.parametrize("viewport", WIDTHS)
def test_a_10000_character_entry_does_not_widen_the_page(browser, site_url, viewport):
    context = _context(browser, viewport)
    try:
        page = context.new_page()
        open_page(page, f"{site_url}/{CHAPTER}", timeout=LOAD_TIMEOUT)
        draw_widgets(page, timeout=LOAD_TIMEOUT)
        field = page.locator(".rn-meanstd input.rn-input").first
        field.fill("a" * 10_000)
        error = page.locator(".rn-meanstd .rn-error").first
        page.wait_for_function(
            "(el) => el.textContent.length > 0", arg=error.element_handle())
        text = error.inner_text()
        assert "no es un número" in text and "…" in text, text[:200]
        assert len(text) < 200, len(text)
        overflow = page.evaluate(
            "() => Math.max(document.documentElement.scrollWidth,"
            " document.body.scrollWidth) - innerWidth")
        assert overflow <= 0, f"{viewport}: la página se ensancha {overflow} px"
    finally:
        context.close()


# --- El índice de búsqueda de una construcción incremental ---------------------------


def _index(html: Path) -> dict:
    text = (html / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1: text.rindex(")")])


@pytest.mark.serial
@pytest.mark.slow
def test_a_warm_build_ships_the_same_search_index_as_a_cold_one(tmp_path):
    """En una copia mínima (portada, glosario y una página): construcción en frío,
    después se toca la página y se vuelve a construir. El índice es el mismo, con las
    entradas del glosario."""
    from bench.build import copy_repo
    from tests.test_build import _make_in_copy

    repo = copy_repo(tmp_path / "repo")
    for nb in (repo / "notebooks").glob("*.ipynb"):
        nb.unlink()
    (repo / "book" / "pagina.md").write_text(
        "# Una página\n\nLa normalización de capa y la conexión residual.\n",
        encoding="utf-8",
    )
    (repo / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n"
        "- file: book/pagina\n- file: book/glosario\n",
        encoding="utf-8",
    )
    html = repo / "_build" / "html"
    _make_in_copy(repo, "book-step")
    cold = _index(html)
    assert len(cold["indexentries"]) >= 70, len(cold["indexentries"])
    page = repo / "book" / "pagina.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nUna zanahoria.\n",
                    encoding="utf-8")
    _make_in_copy(repo, "book-step")
    warm = _index(html)
    assert "zanahori" in warm["terms"]  # la página tocada sí se volvió a escribir
    missing = sorted(set(cold["indexentries"]) - set(warm["indexentries"]))
    assert not missing, f"{len(missing)} entradas perdidas: {missing[:5]}"
    assert warm["indexentries"] == cold["indexentries"]
