"""Los widgets responden en la web estática, sin núcleo y sin red: en el sitio
construido, servido en 127.0.0.1 con todo lo demás abortado, Playwright escribe, mueve
y pulsa en cada widget con el teclado y lee el resultado, que cambia y coincide con
``resnorm``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import resnorm
from resnorm.book import format_vector
from resnorm.examples import VECTOR
from tests.helpers import (
    BUILD_HTML,
    VIEWPORTS,
    PageRecorder,
    draw_widgets,
    html_pages,
)

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
def tab(browser):
    """Una pestaña (1280 × 720, en claro) para las pruebas de este módulo: cada una
    abre en ella su página, una tras otra."""
    context = browser.new_context()
    yield PageRecorder(context)
    context.close()


#: La vista de tests/test_site_view.py cuyas cargas lee ``rendered`` (este módulo va
#: en su proceso: JOINED, en tests/conftest.py).
RENDERED_VIEW = "telefono-claro"


@pytest.fixture(scope="module")
def rendered(site_views):
    """Cada página con widgets, abierta una vez: qué widgets se dibujaron en cada
    una. Es la carga que ya hace tests/test_site_view.py en el teléfono (dibuja todos
    los widgets de cada página y anota los errores de la consola y las peticiones que
    fallan o salen fuera): abrirlas otra vez aquí no probaba nada más."""
    found: dict[str, list[str]] = {}
    problems: list[str] = []
    for rel in _widget_pages():
        seen = site_views.look(RENDERED_VIEW, rel)
        html = (BUILD_HTML / rel).read_text(encoding="utf-8")
        expected = html.count(VIEW)
        if len(seen.drawn) < expected:
            problems.append(f"{rel}: {len(seen.drawn)} de {expected} widgets dibujados")
        classes = {name for cls, _ in seen.drawn for name in cls.split()}
        for cls in WIDGET_CLASSES:
            if cls in classes:
                found.setdefault(cls, []).append(rel)
        for _, text in seen.drawn:
            if FORBIDDEN.search(text):
                shown = FORBIDDEN.search(text).group()
                problems.append(f"{rel}: el widget muestra {shown!r}")
        issues = seen.console_errors + seen.failed + seen.external
        problems += [f"{rel}: {e}" for e in issues]
    return found, problems


def test_every_widget_page_renders_all_its_widgets_cleanly(rendered):
    found, problems = rendered
    assert _widget_pages(), "ninguna página del libro tiene widgets"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("cls", list(WIDGET_CLASSES))
def test_each_widget_is_in_a_chapter(cls, rendered):
    found, _ = rendered
    assert cls in found, f"el widget {WIDGET_CLASSES[cls]} no está en ningún capítulo"


def _open(tab, site_url, rendered, cls):
    found, _ = rendered
    if cls not in found:
        pytest.fail(f"falta el widget {WIDGET_CLASSES[cls]}")
    rec = tab
    rec.next_visit()
    page = rec.goto(f"{site_url}/{found[cls][0]}")
    draw_widgets(page)
    root = page.locator(f"section.{cls}").first
    root.wait_for()
    root.scroll_into_view_if_needed()
    return rec, page, root


def _clean(rec, root):
    text = root.inner_text()
    assert not FORBIDDEN.search(text), text
    assert not rec.console_errors and not rec.external and not rec.failed


def test_calculator_responds_to_typing_with_a_decimal_comma(
    tab, site_url, rendered
):
    rec, page, root = _open(tab, site_url, rendered, "rn-meanstd")
    live = root.locator("[aria-live=polite]").first
    before = live.inner_text()
    root.get_by_label("x₂").fill("0,5")
    expected = resnorm.std([0.80, 0.5, 0.93, 1.33])
    assert live.inner_text() != before
    assert f"σ = {expected:.4f}" in live.inner_text()
    root.get_by_label("x₂").fill("letras")
    assert "Revisa el campo x₂" in live.inner_text()
    _clean(rec, root)


def test_layer_norm_explorer_follows_the_keyboard(tab, site_url, rendered):
    rec, page, root = _open(tab, site_url, rendered, "rn-layernorm")
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


def test_residual_sum_gives_the_identity_for_free(tab, site_url, rendered):
    rec, page, root = _open(tab, site_url, rendered, "rn-residual")
    assert "= " + format_vector(VECTOR, 2) in root.inner_text()
    root.get_by_label("Escala α de la salida de la subcapa F(x)").focus()
    page.keyboard.press("Home")
    assert "la identidad sale gratis" in root.inner_text()
    assert "= [0.50, 1.15, 0.78, 0.88]" in root.inner_text()
    _clean(rec, root)


def test_block_stepper_walks_forward_and_back(tab, site_url, rendered):
    rec, page, root = _open(tab, site_url, rendered, "rn-stepper")
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


def test_depth_explorer_slider_changes_the_summary(tab, site_url, rendered):
    rec, page, root = _open(tab, site_url, rendered, "rn-depth")
    live = root.locator(".rn-summary")
    before = live.inner_text()
    root.get_by_role("slider", name="Profundidad").focus()
    page.keyboard.press("Home")
    assert live.inner_text() != before
    assert re.search(r"Con \d+ (bloques?|capas?):", live.inner_text())
    _clean(rec, root)


# --- Lo que una persona ve: erratas, tamaños, carga sin saltos -----------------------


def test_calculator_with_huge_and_small_values_writes_true_equalities(
    tab, site_url, rendered
):
    """Con 1e200, −1e200, 1 y 2: (0.2500)² = 0.0625 (no «= 0.0000») y nunca «= ≈»."""
    rec, page, root = _open(tab, site_url, rendered, "rn-meanstd")
    for label, text in zip("₁₂₃₄", ["1e200", "\u22121e200", "1", "2"]):
        root.get_by_label(f"x{label}").fill(text)
    body = root.inner_text()
    assert "(0.2500)² = 0.0625" in body
    assert "(1.2500)² = 1.5625" in body
    assert "= ≈" not in body and "= =" not in body
    assert "σ² = " in body and "≈ 5.0000 × 10³⁹⁹" in body
    for bad in ["", "letras", "NaN", "1e999"]:
        root.get_by_label("x₁").fill(bad)
        assert "Revisa el campo x₁" in root.inner_text()
    root.get_by_label("x₁").fill("0,5")
    assert "Revisa" not in root.locator("[aria-live=polite]").first.inner_text()
    _clean(rec, root)


def test_layer_norm_times_three_preset_does_not_claim_a_std_below_one(
    tab, site_url, rendered
):
    rec, page, root = _open(tab, site_url, rendered, "rn-layernorm")
    root.get_by_label("Probar un caso").select_option(
        label="El mismo vector multiplicado por 3")
    text = root.locator(".rn-summary").inner_text()
    assert "std 1.0000 (un poco menos" not in text
    assert "no se nota en cuatro decimales" in text
    root.get_by_label("Probar un caso").select_option(
        label="Cuatro valores iguales (σ = 0)"
    )
    root.get_by_label("Épsilon").select_option(index=0)  # ε = 0: 0/0
    assert "habría que dividir" in root.inner_text()
    _clean(rec, root)


def test_layer_norm_controls_come_from_the_python_settings(
    tab, site_url, rendered
):
    """Rangos de los deslizadores, opciones de ε y casos: los de ``settings``."""
    from resnorm.widgets import LayerNormExplorer

    s = LayerNormExplorer.SETTINGS
    rec, page, root = _open(tab, site_url, rendered, "rn-layernorm")
    x1 = root.get_by_label("x₁", exact=True)
    assert float(x1.get_attribute("min")) == s["ranges"]["x"]["min"]
    assert float(x1.get_attribute("max")) == s["ranges"]["x"]["max"]
    assert float(x1.get_attribute("step")) == s["ranges"]["x"]["step"]
    eps = root.get_by_label("Épsilon").locator("option").all()
    assert [float(o.get_attribute("value")) for o in eps] == [
        e["value"] for e in s["eps_choices"]]
    presets = root.get_by_label("Probar un caso").locator("option").all_inner_texts()
    assert presets[1:] == [p["label"] for p in s["presets"]]
    _clean(rec, root)


def test_block_stepper_shows_each_vector_once(tab, site_url, rendered):
    rec, page, root = _open(tab, site_url, rendered, "rn-stepper")
    panel = root.locator(".rn-step")
    nxt = root.get_by_role("button", name="Siguiente paso")
    for _ in range(11):
        text = panel.inner_text()
        vectors = re.findall(r"\[[^\]]*\]", text.split("Vector:")[-1])
        assert vectors, text
        assert text.count(vectors[0]) == 1, text
        nxt.press("Enter")
    _clean(rec, root)


def test_depth_explorer_says_1_capa_in_singular(tab, site_url, rendered):
    rec, page, root = _open(tab, site_url, rendered, "rn-depth")
    root.get_by_role("slider", name="Profundidad").focus()
    page.keyboard.press("Home")
    text = root.locator(".rn-summary").inner_text()
    assert "Con 1 capa:" in text and "1 capas" not in text
    _clean(rec, root)


def test_depth_explorer_series_look_like_the_figures(tab, site_url, rendered):
    """Mismo nombre y mismo color que en las figuras (resnorm.plots.SERIES_STYLE)."""
    from matplotlib.colors import to_rgb

    from resnorm.plots import SERIES_STYLE

    rec, page, root = _open(tab, site_url, rendered, "rn-depth")
    root.get_by_label("Qué mirar").select_option("activations")
    checks = root.locator(".rn-check label").all()
    seen = {}
    for label in checks:
        name = label.inner_text().strip()
        color = label.locator(".rn-swatch").evaluate(
            "e => getComputedStyle(e).backgroundColor")
        seen[name] = color
    by_label = {st["label"]: st for st in SERIES_STYLE.values()}
    assert "Sin residual, ganancia 0.9" in seen
    for name, css in seen.items():
        assert name in by_label, f"«{name}» no es un nombre de la tabla de estilos"
        r, g, b = (round(255 * c) for c in to_rgb(by_label[name]["color"]))
        if by_label[name]["color"] != "#000000":  # el negro es el color del texto
            assert css == f"rgb({r}, {g}, {b})", name
    _clean(rec, root)


def test_fieldset_legends_are_not_bigger_than_the_widget_title(
    tab, site_url, rendered
):
    found, _ = rendered
    rec = tab
    rec.next_visit()
    page = rec.goto(f"{site_url}/{found['rn-layernorm'][0]}")
    draw_widgets(page)
    sizes = page.evaluate(
        """() => { const w = document.querySelector('section.rn-layernorm');
        const px = (e) => parseFloat(getComputedStyle(e).fontSize);
        return [px(w.querySelector('.rn-title')),
                Math.max(...[...w.querySelectorAll('legend')].map(px))]; }"""
    )
    title, legend = sizes
    assert legend < title, f"leyenda {legend} px, título {title} px"


def test_back_to_top_does_not_cover_a_widget_on_a_phone(browser, site_url, rendered):
    found, _ = rendered
    width, height = VIEWPORTS["telefono"]
    context = browser.new_context(viewport={"width": width, "height": height})
    rec = PageRecorder(context)
    page = rec.goto(f"{site_url}/{found['rn-layernorm'][0]}")
    draw_widgets(page)
    root = page.locator("section.rn-layernorm")
    root.scroll_into_view_if_needed()
    page.mouse.wheel(0, 400)
    page.mouse.wheel(0, -300)  # el tema lo muestra al subir
    page.wait_for_timeout(300)
    box = page.evaluate(
        """() => { const b = document.querySelector('#pst-back-to-top');
        if (!b) return null; const r = b.getBoundingClientRect();
        return getComputedStyle(b).display === 'none' || r.width === 0 ? null :
          [r.left, r.top, r.right, r.bottom]; }"""
    )
    if box is not None:
        w = root.bounding_box()
        overlap = not (box[2] < w["x"] or box[0] > w["x"] + w["width"]
                       or box[3] < w["y"] or box[1] > w["y"] + w["height"])
        assert not overlap, "«Volver arriba» tapa el widget"
    context.close()
