"""Los widgets responden en la web estática, sin núcleo y sin red: en el sitio
construido, servido en 127.0.0.1 con todo lo demás abortado, Playwright escribe, mueve
y pulsa en cada widget con el teclado y lee el resultado, que cambia y coincide con
``resnorm``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import resnorm
from tests.helpers import BUILD_HTML, html_pages

pytestmark = [pytest.mark.browser, pytest.mark.build]

WIDGET_CLASSES = {
    "rn-meanstd": "Calculadora de media y desviación estándar",
    "rn-layernorm": "LayerNorm en vivo",
    "rn-residual": "Suma residual",
    "rn-stepper": "«Siguiente paso»",
    "rn-depth": "Explorador de profundidad",
}
FORBIDDEN = re.compile(r"NaN|undefined|Infinity|\[object|Traceback")
VIEW = 'type="application/vnd.jupyter.widget-view+json"'


def _widget_pages() -> list[str]:
    if not BUILD_HTML.exists():
        return []
    return [
        rel for rel in html_pages(BUILD_HTML)
        if VIEW in (BUILD_HTML / rel).read_text(encoding="utf-8")
    ]


def _numbers(text: str) -> list[float]:
    found = re.findall(r"[\u2212-]?\d+\.\d+", text)
    return [float(t.replace("\u2212", "-")) for t in found]


@pytest.fixture(scope="module")
def rendered(browser, site_url):
    """Cada página con widgets, abierta una vez: qué widgets se dibujaron en cada
    una."""
    from tests.helpers import PageRecorder

    found: dict[str, list[str]] = {}
    problems: list[str] = []
    for rel in _widget_pages():
        context = browser.new_context()
        rec = PageRecorder(context)
        page = rec.goto(f"{site_url}/{rel}")
        html = (BUILD_HTML / rel).read_text(encoding="utf-8")
        expected = html.count(VIEW)
        page.wait_for_function(
            f"document.querySelectorAll('section.rn-widget').length >= {expected}",
            timeout=30000,
        )
        for cls in WIDGET_CLASSES:
            if page.locator(f"section.{cls}").count():
                found.setdefault(cls, []).append(rel)
        for section in page.locator("section.rn-widget").all():
            text = section.inner_text()
            if FORBIDDEN.search(text):
                shown = FORBIDDEN.search(text).group()
                problems.append(f"{rel}: el widget muestra {shown!r}")
        issues = rec.console_errors + rec.failed + rec.external
        problems += [f"{rel}: {e}" for e in issues]
        context.close()
    return found, problems


def test_every_widget_page_renders_all_its_widgets_cleanly(rendered):
    found, problems = rendered
    assert _widget_pages(), "ninguna página del libro tiene widgets"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("cls", list(WIDGET_CLASSES))
def test_each_widget_is_in_a_chapter(cls, rendered):
    found, _ = rendered
    assert cls in found, f"el widget {WIDGET_CLASSES[cls]} no está en ningún capítulo"


def _open(page_factory, site_url, rendered, cls):
    found, _ = rendered
    if cls not in found:
        pytest.fail(f"falta el widget {WIDGET_CLASSES[cls]}")
    rec = page_factory()
    page = rec.goto(f"{site_url}/{found[cls][0]}")
    root = page.locator(f"section.{cls}").first
    root.wait_for()
    root.scroll_into_view_if_needed()
    return rec, page, root


def _clean(rec, root):
    text = root.inner_text()
    assert not FORBIDDEN.search(text), text
    assert not rec.console_errors and not rec.external and not rec.failed


def test_calculator_responds_to_typing_with_a_decimal_comma(
    page_factory, site_url, rendered
):
    rec, page, root = _open(page_factory, site_url, rendered, "rn-meanstd")
    live = root.locator("[aria-live=polite]").first
    before = live.inner_text()
    root.get_by_label("x₂").fill("0,5")
    expected = resnorm.std([0.80, 0.5, 0.93, 1.33])
    assert live.inner_text() != before
    assert f"σ = {expected:.4f}" in live.inner_text()
    root.get_by_label("x₂").fill("letras")
    assert "Revisa el campo x₂" in live.inner_text()
    _clean(rec, root)


def test_layer_norm_explorer_follows_the_keyboard(page_factory, site_url, rendered):
    rec, page, root = _open(page_factory, site_url, rendered, "rn-layernorm")
    root.get_by_role("button", name="Restablecer γ = 1, β = 0").press("Enter")
    slider = root.get_by_label("x₁", exact=True)
    before = root.locator("tr", has_text="γ ⊙").first.inner_text()
    slider.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    x = [float(root.get_by_label(f"x{s}", exact=True).input_value()) for s in "₁₂₃₄"]
    row = root.locator("tr", has_text="γ ⊙").first.inner_text()
    assert row != before
    np.testing.assert_allclose(_numbers(row)[:4], resnorm.layer_norm(x), atol=5e-5)
    _clean(rec, root)


def test_residual_sum_gives_the_identity_for_free(page_factory, site_url, rendered):
    rec, page, root = _open(page_factory, site_url, rendered, "rn-residual")
    assert "= [0.80, 0.95, 0.93, 1.33]" in root.inner_text()
    root.get_by_label("Escala α de la salida de la subcapa F(x)").focus()
    page.keyboard.press("Home")
    assert "la identidad sale gratis" in root.inner_text()
    assert "= [0.50, 1.15, 0.78, 0.88]" in root.inner_text()
    _clean(rec, root)


def test_block_stepper_walks_forward_and_back(page_factory, site_url, rendered):
    rec, page, root = _open(page_factory, site_url, rendered, "rn-stepper")
    panel = root.locator(".rn-step")
    assert "Paso 1 de 11" in panel.inner_text()
    nxt = root.get_by_role("button", name="Siguiente paso")
    nxt.press("Enter")
    nxt.press("Enter")
    assert "Paso 3 de 11" in panel.inner_text()
    assert "Vector: [0.8000, 0.9500, 0.9300, 1.3300]" in panel.inner_text()
    root.get_by_role("button", name="Paso anterior").press("Enter")
    assert "Paso 2 de 11" in panel.inner_text()
    _clean(rec, root)


def test_depth_explorer_slider_changes_the_summary(page_factory, site_url, rendered):
    rec, page, root = _open(page_factory, site_url, rendered, "rn-depth")
    live = root.locator(".rn-summary")
    before = live.inner_text()
    root.get_by_role("slider", name="Profundidad").focus()
    page.keyboard.press("Home")
    assert live.inner_text() != before
    assert re.search(r"Con \d+ (bloques|capas)", live.inner_text())
    _clean(rec, root)
