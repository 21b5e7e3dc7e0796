"""Cada página del sitio construido, en Chromium headless con toda petición externa
abortada: nada fuera de 127.0.0.1, ningún fallo, ningún error de consola, MathJax
renderizado y la búsqueda en español funciona."""

from __future__ import annotations

import pytest

from tests.helpers import html_pages

pytestmark = [pytest.mark.browser, pytest.mark.build]


def _pages():
    from tests.helpers import BUILD_HTML

    return html_pages(BUILD_HTML) if BUILD_HTML.exists() else []


@pytest.mark.parametrize("rel", _pages())
def test_page_is_offline_clean_and_renders_math(rel, site_url, page_factory):
    rec = page_factory()
    page = rec.goto(f"{site_url}/{rel}")
    if page.locator("mjx-container, .math").count():
        page.wait_for_function(
            "() => !document.querySelector('.math') || "
            "document.querySelectorAll('.katex').length > 0",
            timeout=15000,
        )
    assert not rec.external, f"{rel}: peticiones fuera de 127.0.0.1: {rec.external}"
    assert not rec.failed, f"{rel}: peticiones fallidas: {rec.failed}"
    assert not rec.console_errors, f"{rel}: errores de consola: {rec.console_errors}"
    text = page.locator("main, article, body").first.inner_text()
    assert "$$" not in text, f"{rel}: quedan fórmulas sin renderizar ($$)"
    assert "\\frac" not in text and "\\sqrt" not in text, f"{rel}: LaTeX crudo visible"


def test_site_has_the_pages_of_the_toc(built_site):
    from tests.helpers import toc_files

    missing = [f for f in toc_files() if not (built_site / f"{f}.html").exists()]
    assert not missing, f"Faltan páginas: {missing}"


def _search(page, site_url, query):
    page.goto(f"{site_url}/search.html?q={query}", wait_until="load")
    page.wait_for_function(
        "() => { const s = document.querySelector('#search-results');"
        " return s && (s.querySelectorAll('li').length > 0 ||"
        " /(no|ning)/i.test(s.innerText)); }",
        timeout=20000,
    )
    return [
        a.get_attribute("href") or ""
        for a in page.locator("#search-results li a").all()
    ]


def test_search_finds_a_spanish_word_with_an_accent(site_url, page_factory):
    rec = page_factory()
    hits = _search(rec.page, site_url, "desviación")
    assert hits, "La búsqueda de «desviación» no devolvió resultados"
    assert not rec.console_errors, rec.console_errors
