"""Cada widget en Chromium headless, sin el libro: una página mínima en 127.0.0.1
importa el ESM del widget con un «model» falso (get/set/on/off/save_changes) y la
prueba escribe, mueve deslizadores y pulsa botones con el teclado, y lee el resultado.

El «model» falso lanza en ``save_changes``, como el de la web estática sin núcleo:
el widget debe seguir respondiendo y sin errores en la consola.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import resnorm
from bench.server import serve
from resnorm import widgets
from resnorm.book import format_vector
from resnorm.examples import BETA, GAMMA, VECTOR
from resnorm.trace import block_trace
from tests.helpers import CHROMIUM, is_local

FORBIDDEN = re.compile(r"NaN|undefined|Infinity|\[object")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"falta {CHROMIUM}"),
]

HARNESS = r"""
// Un «model» como el de anywidget, sin núcleo: guarda el estado en memoria.
export class FakeModel {
  constructor(state) {
    this.state = { ...state };
    this.handlers = {};
    this.saves = 0;
  }
  get(key) { return this.state[key]; }
  set(key, value) {
    this.state[key] = value;
    for (const f of this.handlers[`change:${key}`] || []) f();
  }
  on(event, f) { (this.handlers[event] ||= []).push(f); }
  off(event, f) {
    this.handlers[event] = (this.handlers[event] || []).filter((g) => g !== f);
  }
  save_changes() {
    this.saves += 1;
    throw new Error("Syncing error: no comm channel defined");
  }
}
window.models = {};
window.mount = async (name, state) => {
  const mod = await import(`./${name}.mjs`);
  const model = new FakeModel(state);
  window.models[name] = model;
  const el = document.getElementById(name);
  mod.default.render({ model, el });
  return true;
};
"""

PAGE = """<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>Widgets</title>
<link rel="icon" href="data:,"><!-- sin él, Chromium pide /favicon.ico: un 404 -->
<style>{css}</style>
<style>
  html[data-theme="dark"] {{
    --pst-color-text-base: #ced6dd; --pst-color-background: #14181e;
    --pst-color-border: #48566b; --pst-color-surface: #29313d;
  }}
</style></head>
<body>
{divs}
<script type="module">import "./harness.mjs"; window.harnessReady = true;</script>
</body></html>
"""

WIDGETS = {
    "mean_std": (widgets.MeanStdCalculator, {}),
    "layer_norm": (widgets.LayerNormExplorer, {}),
    "residual": (widgets.ResidualSum, {}),
    "block_stepper": (widgets.BlockStepper, {}),
    "depth_explorer": (
        widgets.DepthExplorer,
        {
            "gradient": {
                "depths": [2, 4, 8, 16, 32],
                "series": {
                    "plain": [1e-2, 1e-4, 1e-8, 1e-16, 0.0],
                    "residual": [1.0, 1.2, 1.5, 2.0, 2.9],
                    "pre_ln": [0.9, 0.8, 0.7, 0.6, 0.5],
                    "post_ln": [1.1, 1.3, 2.1, None, 8.0],
                },
            },
            "activations": {
                "layers": [1, 2, 3, 4],
                "series": {"plain": [1.0, 0.5, 0.25, 0.125], "pre_ln": [1, 2, 3, 4]},
            },
        },
    ),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("widgets_site")
    states = {}
    css = None
    for name, (cls, kwargs) in WIDGETS.items():
        w = cls(**kwargs)
        (root / f"{name}.mjs").write_text(str(w._esm), encoding="utf-8")
        css = str(w._css)
        states[name] = {
            k: v for k, v in w.get_state().items() if k not in ("_esm", "_css")
        }
    divs = "\n".join(f'<div id="{name}"></div>' for name in WIDGETS)
    (root / "index.html").write_text(PAGE.format(css=css, divs=divs), encoding="utf-8")
    (root / "harness.mjs").write_text(HARNESS, encoding="utf-8")
    with serve(root) as url:
        yield url, states


@pytest.fixture(scope="module")
def chromium_browser(browser):
    # El Chromium de la sesión (tests/conftest.py): dos sync_playwright a la vez en
    # el mismo hilo no pueden convivir.
    return browser


class Page:
    """Una página con el widget montado que registra errores y peticiones externas."""

    def __init__(self, browser, base, states, names, dark=False):
        self.context = browser.new_context(color_scheme="dark" if dark else "light")
        self.external: list[str] = []
        self.errors: list[str] = []
        # Sin interceptar: el navegador no resuelve nombres de host (CHROMIUM_FLAGS).
        self.context.on("request", self._request)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type == "error" else None,
        )
        self.base = base
        self.page.goto(f"{base}/index.html")
        self.page.wait_for_function("window.harnessReady === true")
        if dark:
            self.page.evaluate("document.documentElement.dataset.theme = 'dark'")
        names = [names] if isinstance(names, str) else names
        for name in names:
            self.page.evaluate("([n, s]) => window.mount(n, s)", [name, states[name]])
        self.root = self.page.locator(f"#{names[0]}" if len(names) == 1 else "body")

    def _request(self, request):
        if not is_local(request.url):
            self.external.append(request.url)

    def text(self):
        return self.root.inner_text()

    def model(self, name, key):
        return self.page.evaluate(f"window.models[{json.dumps(name)}].state[{key!r}]")

    def check_clean(self):
        text = self.text()
        assert not FORBIDDEN.search(text), FORBIDDEN.search(text)
        assert self.errors == []
        assert self.external == []

    def close(self):
        self.context.close()


@pytest.fixture()
def open_widget(chromium_browser, site):
    base, states = site
    pages = []

    def make(names, dark=False):
        page = Page(chromium_browser, base, states, names, dark)
        pages.append(page)
        return page

    yield make
    for page in pages:
        page.close()


def numbers_in(text):
    found = re.findall(r"[\u2212-]?\d+\.\d+", text)
    return [float(t.replace("\u2212", "-")) for t in found]


# --- Calculadora de media y desviación estándar ---------------------------------------


def test_mean_std_first_frame_and_typing(open_widget):
    w = open_widget("mean_std")
    live = w.root.locator("[aria-live=polite]")
    assert live.inner_text() == "Media μ = 1.0025; desviación estándar σ = 0.1977."
    assert "(0.8000 − 1.0025)² = (−0.2025)² = 0.0410" in w.text()
    x2 = w.page.get_by_label("x₂")
    x2.fill("0,5")  # coma decimal
    expected = resnorm.std([0.80, 0.5, 0.93, 1.33])
    assert f"σ = {expected:.4f}" in live.inner_text()
    assert w.model("mean_std", "values") == ["0.80", "0,5", "0.93", "1.33"]
    x2.fill("abc")
    assert x2.get_attribute("aria-invalid") == "true"
    assert "no es un número" in w.text()
    assert "Revisa el campo x₂" in live.inner_text()
    for bad in ("", "NaN", "Infinity", "1e400"):
        x2.fill(bad)
        assert "Revisa el campo x₂" in live.inner_text()
        w.check_clean()
    x2.fill(" 1e3 ")
    assert x2.get_attribute("aria-invalid") is None
    assert f"{resnorm.mean([0.80, 1000, 0.93, 1.33]):.4f}" in live.inner_text()
    w.check_clean()


def test_mean_std_keyboard_only_equal_and_huge_values(open_widget):
    w = open_widget("mean_std")
    w.page.get_by_label("x₁").focus()
    for value in ("0.5", "0.5", "0.5", "0.5"):
        w.page.keyboard.press("Control+A")
        w.page.keyboard.type(value)
        w.page.keyboard.press("Tab")
    assert "σ = 0.0000" in w.text()
    assert "√(σ² + ε)" in w.text() and "no hay división entre cero" in w.text()
    fields = [w.page.get_by_label(f"x{s}") for s in "₁₂₃₄"]
    for f, v in zip(fields, ("1e200", "2e200", "3e200", "4e200")):
        f.fill(v)
    text = w.text()
    assert "σ = 1.1180 × 10²⁰⁰" in text
    assert "≈ 1.2500 × 10⁴⁰⁰" in text  # σ² no cabe en un double
    w.check_clean()


# --- LayerNorm en vivo ----------------------------------------------------------------


def table_row(w, start):
    row = w.root.locator("tr", has_text=start).first
    return numbers_in(row.inner_text())


def test_layer_norm_first_frame_teaches_gamma_beta(open_widget):
    w = open_widget("layer_norm")
    text = w.text()
    ref = resnorm.layer_norm_steps(VECTOR, GAMMA, BETA)
    assert "Salida [−1.1292, −0.2125, −0.5667, 2.1224]" in text
    assert "No es media 0 y std 1" in text
    np.testing.assert_allclose(table_row(w, "γ ⊙")[:4], ref.output, atol=5e-5)
    assert w.root.locator("svg rect.rn-bar").count() == 12
    w.check_clean()


def test_layer_norm_sliders_with_keyboard_follow_resnorm(open_widget):
    w = open_widget("layer_norm")
    slider = w.page.get_by_label("x₁", exact=True)
    slider.focus()
    for _ in range(5):
        w.page.keyboard.press("ArrowRight")  # +0.01 cada vez
    x = w.model("layer_norm", "x")
    assert x[0] == pytest.approx(0.85)
    ref = resnorm.layer_norm(x, [1.2, 0.8, 1.0, 1.1], [0.1, 0.0, -0.2, 0.3])
    np.testing.assert_allclose(table_row(w, "γ ⊙")[:4], ref, atol=5e-5)
    # Restablecer γ y β con el teclado.
    w.root.get_by_role("button", name="Restablecer γ = 1, β = 0").focus()
    w.page.keyboard.press("Enter")
    assert "Con γ = 1 y β = 0 la salida es el vector normalizado" in w.text()
    plain = resnorm.layer_norm(x)
    np.testing.assert_allclose(table_row(w, "γ ⊙")[:4], plain, atol=5e-5)
    w.check_clean()


def test_layer_norm_equal_values_with_eps_zero_explains_instead_of_nan(open_widget):
    w = open_widget("layer_norm")
    w.page.get_by_label("Épsilon").select_option("0")
    cases = w.page.get_by_label("Probar un caso")
    cases.select_option(label="Cuatro valores iguales (σ = 0)")
    assert "0 entre 0" in w.text()
    w.page.get_by_label("Épsilon").select_option(
        label="ε = 10⁻⁵ (el valor por defecto de PyTorch)"
    )
    assert "√ε" in w.text()
    assert w.model("layer_norm", "eps") == 1e-5
    w.check_clean()


def test_layer_norm_shifted_preset_gives_the_same_normalized_vector(open_widget):
    w = open_widget("layer_norm")
    before = table_row(w, "2. dividido")[:4]
    cases = w.page.get_by_label("Probar un caso")
    cases.select_option(label="El mismo vector desplazado +2")
    assert w.model("layer_norm", "x") == [2.8, 2.95, 2.93, 3.33]
    assert table_row(w, "2. dividido")[:4] == before
    w.check_clean()


# --- Suma residual --------------------------------------------------------------------


def test_residual_first_frame_and_identity_for_free(open_widget):
    w = open_widget("residual")
    assert "= " + format_vector(VECTOR, 2) in w.text()
    slider = w.page.get_by_label("Escala α de la salida de la subcapa F(x)")
    slider.focus()
    w.page.keyboard.press("Home")
    assert "la identidad sale gratis" in w.text()
    assert "= [0.50, 1.15, 0.78, 0.88]" in w.text()
    w.page.keyboard.press("End")
    fx = np.array([0.30, -0.20, 0.15, 0.45])
    expected = resnorm.residual([0.50, 1.15, 0.78, 0.88], 3 * fx)
    assert "= [" + ", ".join(f"{v:.2f}" for v in expected) + "]" in w.text()
    assert w.model("residual", "scale") == 3
    w.root.get_by_role("button", name="α = 1: la suma del curso").press("Enter")
    assert "= " + format_vector(VECTOR, 2) in w.text()
    w.check_clean()


# --- Siguiente paso -------------------------------------------------------------------


def test_block_stepper_walks_with_the_keyboard_and_switches_order(open_widget):
    w = open_widget("block_stepper")
    panel = w.root.locator(".rn-step")
    assert "Paso 1 de 11" in panel.inner_text()
    prev = w.root.get_by_role("button", name="Paso anterior")
    assert prev.get_attribute("aria-disabled") == "true"
    prev.press("Enter")
    assert "Paso 1 de 11" in panel.inner_text()
    nxt = w.root.get_by_role("button", name="Siguiente paso")
    nxt.press("Enter")
    nxt.press("Enter")
    post = block_trace(order="post")
    assert f"Paso 3 de 11: {post[2]['title']}" in panel.inner_text()
    assert "Vector: [0.8000, 0.9500, 0.9300, 1.3300]" in panel.inner_text()
    assert nxt.evaluate("el => document.activeElement === el")  # el foco se queda
    # Interruptor Post-LN → Pre-LN con las flechas (radios nativos).
    w.page.get_by_label("Post-LN (original, 2017)").focus()
    w.page.keyboard.press("ArrowRight")
    pre = block_trace(order="pre")
    assert w.model("block_stepper", "order") == "pre"
    assert f"Paso 3 de 11: {pre[2]['title']}" in panel.inner_text()
    shown = numbers_in(panel.inner_text().split("Vector:")[1].split("]")[0])
    np.testing.assert_allclose(shown, pre[2]["vector"], atol=5e-5)
    # El mapa de pasos también se maneja con el teclado.
    w.root.locator(".rn-stepmap button").last.press("Enter")
    assert "Paso 11 de 11" in panel.inner_text()
    assert nxt.get_attribute("aria-disabled") == "true"
    w.check_clean()


# --- Explorador de profundidad --------------------------------------------------------


def test_depth_explorer_slider_checkboxes_and_view(open_widget):
    w = open_widget("depth_explorer")
    live = w.root.locator(".rn-summary")
    text = live.inner_text()
    assert "Con 32 capas:" in text
    assert "Sin residual: 0 (por debajo" in text
    assert "Post-LN: 8.0000" in text
    w.root.get_by_role("slider", name="Profundidad").focus()
    w.page.keyboard.press("Home")
    assert "Con 2 capas:" in live.inner_text()
    assert "Sin residual: 0.0100" in live.inner_text()
    w.page.keyboard.press("ArrowRight")
    w.page.keyboard.press("ArrowRight")
    w.page.keyboard.press("ArrowRight")
    assert "Post-LN: sin dato" in live.inner_text()
    box = w.page.get_by_label("Sin residual", exact=True)
    box.focus()
    w.page.keyboard.press("Space")
    assert "Sin residual" not in live.inner_text()
    assert box.evaluate("el => document.activeElement === el")
    assert w.model("depth_explorer", "visible") == ["residual", "pre_ln", "post_ln"]
    swatch = ".rn-check:has-text('Pre-LN') .rn-swatch"
    color = w.root.locator(swatch).evaluate("el => el.style.background")
    w.page.get_by_label("Qué mirar").select_option("activations")
    # La misma serie conserva su color al cambiar de vista.
    assert w.root.locator(swatch).evaluate("el => el.style.background") == color
    assert "En la capa 4:" in live.inner_text()
    assert w.root.locator("svg path.rn-line").count() == 1  # «plain» sigue oculta
    w.check_clean()


# --- Tema oscuro ----------------------------------------------------------------------


def luminance(rgb):
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def parse_rgb(css):
    return [int(v) for v in re.findall(r"\d+", css)[:3]]


@pytest.mark.parametrize("dark", [False, True])
def test_widget_text_contrasts_with_its_background_in_both_themes(open_widget, dark):
    w = open_widget("layer_norm", dark=dark)
    color, background = w.root.locator(".rn-widget").evaluate(
        "el => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]"
    )
    fg, bg = parse_rgb(color), parse_rgb(background)
    assert contrast(fg, bg) >= 7
    assert (luminance(bg) < 0.1) is dark  # fondo propio, oscuro solo en tema oscuro
    w.check_clean()


# --- axe-core: accesibilidad automática -----------------------------------------------

AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"


@pytest.mark.skipif(not AXE.exists(), reason="falta node_modules/axe-core (npm ci)")
@pytest.mark.parametrize("dark", [False, True], ids=["claro", "oscuro"])
def test_axe_finds_no_serious_violations_in_any_widget(open_widget, dark):
    w = open_widget(list(WIDGETS), dark=dark)
    assert w.page.locator(".rn-widget").count() == len(WIDGETS)
    w.page.add_script_tag(path=str(AXE))
    result = w.page.evaluate("async () => await axe.run(document)")
    serious = [
        (v["id"], v["impact"], [n["html"][:80] for n in v["nodes"][:3]])
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert serious == []
    w.check_clean()


# --- «Prueba los cinco modelos» (Capítulo 10), en el sitio construido -----------------
# Este widget necesita los cinco GPT que entrena el capítulo: se prueba en la página del
# libro, servida en 127.0.0.1 sin red (tests/helpers.CHROMIUM_FLAGS).

GPT_PAGE = "notebooks/10_gpt_diminuto.html"
GPT_LABELS = ["Sin residual", "Sin residual, con LayerNorm", "Residual sin LayerNorm",
              "Post-LN", "Pre-LN"]
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def _magnitude(text: str) -> float:
    """«0.170», «6.1 × 10⁻⁸» o «−2.5» → float."""
    text = text.replace("\u2212", "-").strip()
    if "×" in text:
        mant, power = text.split("× 10")
        return float(mant) * 10 ** int(power.strip().translate(_SUPERSCRIPT))
    return float(text)


def gpt_spread(widget, label: str) -> tuple[float, float]:
    """Lo que distingue a cada posición, a la entrada y tras el último bloque,
    leído del resumen del widget."""
    for line in widget.locator(".rn-gpt-summary li").all_inner_texts():
        if line.startswith(f"{label}:"):
            m = re.search(r"diferencia entre posiciones de (.+?) a (.+?)\.$", line)
            return _magnitude(m.group(1)), _magnitude(m.group(2))
    raise AssertionError(f"el resumen no nombra «{label}»")


@pytest.fixture()
def gpt_page(browser, site_url):
    from tests.helpers import PageRecorder, draw_widgets

    context = browser.new_context(viewport={"width": 1000, "height": 900})
    rec = PageRecorder(context)
    rec.goto(f"{site_url}/{GPT_PAGE}")
    widget = rec.page.locator("section.rn-gpt")
    widget.scroll_into_view_if_needed()
    draw_widgets(rec.page)
    widget.locator(".rn-gpt-card").first.wait_for()
    yield rec, widget
    context.close()


def bin_requests(rec) -> list[str]:
    return [r.url for r in rec.responses if r.url.endswith(".bin")]


def wait_done(widget, timeout=120_000):
    widget.page.wait_for_function(
        "() => /^Listo|No se pudieron|falló|Corrige/.test(document.querySelector("
        "'section.rn-gpt .rn-gpt-status').textContent)", timeout=timeout)
    return widget.locator(".rn-gpt-status").inner_text()


def press_generate_with_keyboard(widget, prompt: str, n_chars: int = 20):
    """Escribe con el teclado en el texto y en «Caracteres nuevos» y pulsa Intro."""
    box = widget.locator("input.rn-gpt-number >> nth=2")
    box.focus()
    widget.page.keyboard.press("Control+A")
    widget.page.keyboard.press("Delete")
    widget.page.keyboard.type(str(n_chars))
    field = widget.locator("input.rn-gpt-prompt")
    field.focus()
    widget.page.keyboard.press("Control+A")
    widget.page.keyboard.press("Delete")
    widget.page.keyboard.type(prompt)
    widget.page.keyboard.press("Enter")


@pytest.mark.build
def test_gpt_first_frame_shows_all_five_before_downloading_weights(gpt_page):
    rec, widget = gpt_page
    text = widget.inner_text()
    assert widget.locator(".rn-gpt-card").count() == 5
    for label in GPT_LABELS:
        assert label in text
    assert "La conexión residual" in text and "Generar" in text
    assert not FORBIDDEN.search(text), FORBIDDEN.search(text)
    assert bin_requests(rec) == [], "los pesos se piden antes de pulsar Generar"
    # El primer dibujo ya enseña el colapso: sin atajo, las posiciones se igualan.
    for label in GPT_LABELS[:2]:
        first, last = gpt_spread(widget, label)
        assert last < 1e-3 * first, f"{label}: {first} → {last}"
    for label in GPT_LABELS[2:]:
        first, last = gpt_spread(widget, label)
        assert last > first, f"{label}: {first} → {last}"


@pytest.mark.build
def test_gpt_every_model_generates_offline_with_the_keyboard(gpt_page):
    rec, widget = gpt_page
    prompt = "La red aprende"
    press_generate_with_keyboard(widget, prompt)
    status = wait_done(widget)
    assert status.startswith("Listo"), status
    cards = widget.locator(".rn-gpt-card")
    assert cards.count() == 5
    for i in range(5):
        text = cards.nth(i).locator(".rn-gpt-text").inner_text()
        new = cards.nth(i).locator(".rn-gpt-new").inner_text()
        assert text.startswith(prompt) and len(new) == 20, (i, text)
    assert len(bin_requests(rec)) == 5, bin_requests(rec)
    assert rec.external == [] and rec.failed == [] and rec.console_errors == []
    # Con un texto nuevo, lo mismo: sin atajo, las posiciones se igualan.
    for label in GPT_LABELS[:2]:
        first, last = gpt_spread(widget, label)
        assert last < 1e-3 * first, f"{label}: {first} → {last}"
    # Pre-LN: la norma del flujo crece bloque a bloque (leída del resumen).
    pre = next(t for t in widget.locator(".rn-gpt-summary li").all_inner_texts()
               if t.startswith("Pre-LN:"))
    m = re.search(r"norma (.+?) a la entrada, (.+?) tras el bloque", pre)
    assert _magnitude(m.group(2)) > 10 * _magnitude(m.group(1)), pre
    # Un solo modelo, elegido con las flechas: voraz, y otra vez igual.
    widget.locator("select").focus()
    for _ in range(8):  # hasta el último modelo, con las flechas
        if widget.locator("select").input_value() == "pre_ln":
            break
        widget.page.keyboard.press("ArrowDown")
    assert widget.locator("select").input_value() == "pre_ln"
    widget.locator("input[type=radio] >> nth=1").check()
    press_generate_with_keyboard(widget, prompt, 15)
    assert wait_done(widget).startswith("Listo")
    assert widget.locator(".rn-gpt-card").count() == 1
    assert "Pre-LN" in widget.locator(".rn-gpt-card").inner_text()
    greedy = widget.locator(".rn-gpt-new").inner_text()
    press_generate_with_keyboard(widget, prompt, 15)
    assert wait_done(widget).startswith("Listo")
    assert widget.locator(".rn-gpt-new").inner_text() == greedy
    assert len(bin_requests(rec)) == 5, "cada modelo se descarga una sola vez"
    assert not FORBIDDEN.search(widget.inner_text())


@pytest.mark.build
def test_gpt_bad_input_is_answered_in_spanish(gpt_page):
    rec, widget = gpt_page
    error = widget.locator("p.rn-error >> nth=0")
    press_generate_with_keyboard(widget, "Hola {mundo} ☃")
    assert wait_done(widget).startswith("Corrige")
    message = error.inner_text()
    assert "no están en el texto del curso" in message
    for c in "{}☃":
        assert f"«{c}»" in message, message
    field = widget.locator("input.rn-gpt-prompt")
    assert field.get_attribute("aria-invalid") == "true"
    assert field.evaluate("el => el === document.activeElement")
    press_generate_with_keyboard(widget, "x" * 40)
    wait_done(widget)
    assert "como mucho 32 caracteres" in error.inner_text()
    press_generate_with_keyboard(widget, "")
    wait_done(widget)
    assert "Escribe el comienzo" in error.inner_text()
    press_generate_with_keyboard(widget, "La red", n_chars=5000)
    wait_done(widget)
    numbers_error = widget.locator("p.rn-error >> nth=1").inner_text()
    assert "Caracteres nuevos" in numbers_error and "entre 10 y 300" in numbers_error
    assert bin_requests(rec) == [], "con un error no se descarga nada"
    assert not FORBIDDEN.search(widget.inner_text())
    assert rec.console_errors == []


def test_the_test_browser_sees_only_the_dejavu_fonts(browser):
    """tests/fuentes.conf: «Arial» del tema se dibuja en DejaVu Sans aunque la
    máquina tenga fonts-liberation (con ella sería Liberation Sans, más estrecha)."""
    page = browser.new_page()
    page.set_content("".join(
        f'<span style="font: 16px {family}">Residual y LayerNorm, γ y β</span><br>'
        for family in ("Arial, sans-serif", "'DejaVu Sans'",
                       "'Liberation Sans', monospace", "monospace")))
    widths = page.evaluate(
        "[...document.querySelectorAll('span')].map((s) => s.offsetWidth)")
    page.close()
    assert widths[0] == widths[1], f"Arial no es DejaVu Sans: {widths}"
    assert widths[2] == widths[3], f"el navegador ve Liberation Sans: {widths}"
