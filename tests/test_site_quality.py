"""La web del curso, página a página, en Chromium headless: toda en español, accesible
(axe-core), ligera y legible en modo oscuro. (El buscador se prueba en
``tests/test_site_view.py``.)

Cada página se mide en la carga que ya hace ``tests/test_site_view.py`` en el portátil
(1366×900, ``QUALITY_VIEW``), una tras otra en la misma pestaña: en claro se mide todo
(peso, textos, axe, encabezados, iconos) y, cuando esa carga pasa a oscuro como lo pide
el sistema del lector, las pruebas de contraste. Las pruebas de abajo leen ese informe.
(El servidor de las pruebas responde con ``Cache-Control: no-store``, así que Chromium
no guarda nada en su caché: cada página descarga todo, como en la primera visita, y su
peso es el de verdad.)

Presupuesto (gzip de todo lo que la página descarga hasta dibujar sus widgets, antes de
pedir las imágenes diferidas): 700 KB sin widgets, 1,5 MB con widgets. La tabla de
pesos se imprime al final y se guarda en ``_build/pesos-por-pagina.txt``; las capturas
en modo oscuro, en ``_build/capturas/``.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.helpers import (
    BUILD_HTML,
    ROOT,
    WIDGET_VIEW,
    PageRecorder,
    html_pages,
    is_local,
)

pytestmark = [pytest.mark.browser, pytest.mark.build]

KB = 1000
BUDGET_PLAIN = 700 * KB
BUDGET_WIDGETS = 1500 * KB
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SCREENSHOTS = ROOT / "_build" / "capturas"
WEIGHTS_REPORT = ROOT / "_build" / "pesos-por-pagina.txt"

# Los widgets se dibujan con el cargador propio del curso, nada más.
WIDGET_SCRIPTS = ("/js/widgets-estaticos.js",)
# Las fórmulas llegan dibujadas (KaTeX al construir): solo su hoja de estilo.
MATH_CSS = "/vendor/katex/katex.min.css"
# LaTeX sin renderizar en el texto visible: una fórmula que KaTeX no llegó a dibujar.
RAW_LATEX = ("$$", "\\frac", "\\sqrt")
# Lo que el sitio no debe descargar nunca: los iconos van en _static/iconos/.
# Tampoco el gestor de widgets que el cargador sustituyó (require.js, embed-amd.js,
# el anywidget AMD).
FORBIDDEN = (
    "/scripts/fontawesome.js",
    "/vendor/fontawesome/webfonts/",
    "@jupyter-widgets",
    "/vendor/embed-amd.js",
    "/vendor/require.min.js",
    "/vendor/anywidget/",
    "/js/require-config.js",
)

# Textos de interfaz en inglés (sensible a mayúsculas; palabra completa). No incluye
# términos que el curso cita a propósito en inglés (glosario: «skip connection»...).
ENGLISH_UI = re.compile(
    r"\b(?:"
    r"Search|Searching|Contents|Toggle|Launch|Download|Copy|Copied|Previous|Next|"
    r"previous|next|Show|Hide|Skip|Back to top|Theme|Light|Dark|System|Settings|"
    r"Fullscreen|Print|Repository|Source|source|Edit|Issue|Exercise|Solution|Click|"
    r"Link|heading|sidebar|Sidebar|Navigation|navigation|Main|Page|page|Section|"
    r"Breadcrumb|Home|Index|Close|Open|Expand|Collapse|Loading|Results|Live Code|"
    r"Color mode|By|Copyright|Version|warning|Announcement|hidden content|cell|"
    r"\w+ logo"  # «Binder logo» (en español sería «logo de Binder»)
    r")\b"
)
SCAN_ATTRIBUTES = [
    "aria-label",
    "aria-description",
    "aria-roledescription",
    "title",
    "alt",
    "placeholder",
    "data-bs-title",
    "data-bs-original-title",
    "data-tooltip",
    "data-toggle-hint",
]

# Una sola función en la página: textos visibles y atributos, encabezados, iconos,
# widgets y fórmulas. Excluye código, matemáticas, textos marcados en otro idioma
# (títulos de artículos en la bibliografía) y la cursiva, donde la prosa cita en inglés
# lo que se ve en otros programas («*File ▸ Download*» de JupyterLab).
SCAN_JS = r"""
(attributes) => {
  const SKIP = "script, style, noscript, pre, code, kbd, samp, .highlight, .math, " +
    ".katex, .citation, [lang]:not([lang^='es']), em, cite";
  const where = (el) => el.tagName.toLowerCase() +
    (el.id ? "#" + el.id : "") +
    (el.classList.length ? "." + [...el.classList].slice(0, 3).join(".") : "");
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!text || !el || el.closest(SKIP)) continue;
    texts.push([where(el), text]);
  }
  const attrs = [];
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("script, style, .citation")) continue;
    for (const name of attributes) {
      // El title de un enlace interno es el texto de su destino (una cita de la
      // bibliografía, un término): contenido, no interfaz.
      if (name === "title" && el.matches("a.reference")) continue;
      const value = el.getAttribute(name);
      if (value && value.trim()) attrs.push([where(el) + "@" + name, value.trim()]);
    }
  }
  const headings = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")]
    .filter((h) => h.checkVisibility())
    .map((h) => [Number(h.tagName[1]), h.textContent.trim().slice(0, 60)]);
  const icons = [];
  for (const el of document.body.querySelectorAll("*")) {
    for (const pseudo of ["::before", "::after"]) {
      const style = getComputedStyle(el, pseudo);
      if (!/Font Awesome/.test(style.fontFamily)) continue;
      const content = style.content;
      if (!content || content === "none" || content === "normal") continue;
      const chars = [...content.replace(/^"|"$/g, "")];
      for (const ch of chars) {
        const cp = ch.codePointAt(0);
        if (cp >= 0xe000 && cp <= 0xf8ff) {
          icons.push([where(el) + pseudo, cp, style.fontFamily, style.fontWeight]);
        }
      }
    }
  }
  const widgetRoots = [...document.querySelectorAll(".widget-subarea")];
  const focusable = "input, select, textarea, button, [role=slider], [role=button], " +
    "[role=tab], [role=spinbutton], [contenteditable=true]";
  const unreachable = [];
  for (const root of widgetRoots) {
    for (const el of root.querySelectorAll(focusable)) {
      if (!el.disabled && el.checkVisibility() && el.tabIndex < 0) {
        unreachable.push(where(el));
      }
    }
  }
  const images = [...document.querySelectorAll("article img")].map((img) => [
    (img.getAttribute("src") || "").slice(0, 60), img.getAttribute("alt")]);
  return {
    lang: document.documentElement.lang,
    texts, attrs, headings, icons, unreachable, images,
    widgetViews: document.querySelectorAll(
      "script[type='application/vnd.jupyter.widget-view+json']").length,
    widgetsRendered: widgetRoots.length,
    mathNodes: document.querySelectorAll(".math").length,
  };
}
"""

# Contraste WCAG de cada texto de los widgets contra su fondo efectivo (el primer
# antepasado con fondo opaco; las capas semitransparentes se mezclan encima).
WIDGET_CONTRAST_JS = r"""
() => {
  const parse = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, bottom) => {
    const a = top.a + bottom.a * (1 - top.a);
    const mix = (k) => (top[k] * top.a + bottom[k] * bottom.a * (1 - top.a)) / a;
    return { r: mix("r"), g: mix("g"), b: mix("b"), a };
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg && bg.a > 0) {
        layers.push(bg);
        if (bg.a >= 1) break;
      }
    }
    let color = { r: 255, g: 255, b: 255, a: 1 };
    for (const layer of layers.reverse()) color = over(layer, color);
    return color;
  };
  const luminance = (c) => {
    const f = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (a, b) => {
    const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (l1 + 0.05) / (l2 + 0.05);
  };
  const out = [];
  for (const root of document.querySelectorAll(".widget-subarea")) {
    for (const el of root.querySelectorAll("*")) {
      if (!el.checkVisibility()) continue;
      const ownText = [...el.childNodes].some(
        (n) => n.nodeType === 3 && n.textContent.trim());
      const isInput = el.matches(
        "input:not([type=range]):not([type=checkbox]), select, textarea");
      if (!ownText && !isInput) continue;
      const style = getComputedStyle(el);
      const svgText = el instanceof SVGElement;
      let fg = parse(svgText ? style.fill : style.color);
      if (!fg) continue;
      const bg = background(svgText ? el.closest("svg") || el : el);
      if (fg.a < 1) fg = over(fg, bg);
      const size = parseFloat(style.fontSize);
      const bold = Number(style.fontWeight) >= 700;
      const large = size >= 24 || (bold && size >= 18.66);
      out.push({
        text: (el.textContent || el.value || "").trim().slice(0, 40),
        ratio: ratio(fg, bg), needed: large ? 3 : 4.5,
        where: el.tagName.toLowerCase() + "." + [...el.classList].join("."),
      });
    }
  }
  return out;
}
"""

# Imágenes del contenido: fondo propio opaco y claro (en modo oscuro, las figuras de
# matplotlib llevan texto negro).
IMAGE_BACKGROUNDS_JS = r"""
() => [...document.querySelectorAll("article img")]
  .filter((img) => img.checkVisibility() && img.naturalWidth > 0)
  .map((img) => ({ src: (img.getAttribute("src") || "").slice(0, 60),
                   bg: getComputedStyle(img).backgroundColor }))
"""


@dataclass
class PageReport:
    rel: str
    weights: list[tuple[int, str]] = field(default_factory=list)
    scan: dict = field(default_factory=dict)
    axe: list[dict] = field(default_factory=list)
    axe_dark: list[dict] = field(default_factory=list)
    widget_contrast: dict[str, list[dict]] = field(default_factory=dict)
    images_dark: list[dict] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    raw_latex: list[str] = field(default_factory=list)
    screenshot: Path | None = None

    @property
    def total(self) -> int:
        return sum(size for size, _ in self.weights)

    @property
    def has_widgets(self) -> bool:
        """Si el HTML de la página (tal como se sirve) trae vistas de widget."""
        path = BUILD_HTML / self.rel
        return path.is_file() and WIDGET_VIEW in path.read_text(encoding="utf-8")

    @property
    def budget(self) -> int:
        return BUDGET_WIDGETS if self.has_widgets else BUDGET_PLAIN

    def loaded(self, fragment: str) -> bool:
        return any(fragment in url for _, url in self.weights)


def _pages() -> list[str]:
    return html_pages(BUILD_HTML) if BUILD_HTML.exists() else []


_GZIP_SIZES: dict[str, int] = {}


def _gzip_size(response) -> int:
    """Bytes que ocupa la respuesta comprimida con gzip (nivel 6, el de un servidor).

    Los archivos de ``_static`` son iguales en todas las páginas: se comprimen una vez.
    """
    path = urlparse(response.url).path
    if path in _GZIP_SIZES:
        return _GZIP_SIZES[path]
    try:
        body = response.body()
    except Exception:  # p. ej. una redirección: se lee del disco
        file = BUILD_HTML / unquote(path.lstrip("/"))
        body = file.read_bytes() if file.is_file() else b""
    size = len(gzip.compress(body, compresslevel=6))
    if "/_static/" in path:
        _GZIP_SIZES[path] = size
    return size


def _run_axe(page, rules: list[str] | None = None) -> list[dict]:
    options = "{resultTypes: ['violations']}"
    if rules:
        options = (
            "{resultTypes: ['violations'], runOnly: {type: 'rule', values: %s}}"
            % (rules)
        )
    return page.evaluate(
        "async () => (await axe.run(document, %s)).violations.map(v => ({"
        "id: v.id, impact: v.impact, help: v.help,"
        "nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))}))" % options
    )


#: La vista de ``test_site_view.py`` cuya carga de cada página mide también lo de aquí.
QUALITY_VIEW = "portatil-claro"
_SHOTS: dict[str, Path] = {}  # las capturas en oscuro de este proceso: tipo → archivo


def measure_light(page, rec: PageRecorder, site_url: str, rel: str,
                  first_view: list) -> PageReport:
    """En claro, con la página cargada y dibujada, sin transiciones: textos, axe,
    contraste de los widgets y el peso de lo que trajo la primera vista
    (``first_view``: las respuestas hasta dibujar los widgets, antes de pedir las
    imágenes diferidas)."""
    report = PageReport(rel)
    report.scan = page.evaluate(SCAN_JS, SCAN_ATTRIBUTES)
    text = page.locator("main, article, body").first.inner_text()
    report.raw_latex = [m for m in RAW_LATEX if m in text]
    page.add_script_tag(content=AXE_JS.read_text(encoding="utf-8"))
    report.axe = _run_axe(page)
    if report.has_widgets:
        report.widget_contrast["claro"] = page.evaluate(WIDGET_CONTRAST_JS)
    report.weights = [(_gzip_size(r), r.url.replace(site_url, ""))
                      for r in first_view if is_local(r.url)]
    report.console_errors = list(rec.console_errors)
    report.external = list(rec.external)
    report.failed = list(rec.failed)
    return report


def measure_dark(page, report: PageReport) -> None:
    """La misma página, ya en oscuro (``data-theme``): contraste, fondos de las
    imágenes y una captura de la primera página con widget o con figura."""
    report.axe_dark = _run_axe(page, ["color-contrast"])
    report.images_dark = page.evaluate(IMAGE_BACKGROUNDS_JS)
    if report.has_widgets:
        report.widget_contrast["oscuro"] = page.evaluate(WIDGET_CONTRAST_JS)
    kind = (
        "widget" if report.has_widgets else "figura" if report.images_dark else None
    )
    if kind and kind not in _SHOTS:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        target = "article .widget-subarea" if kind == "widget" else "article img"
        _SHOTS[kind] = SCREENSHOTS / f"oscuro-{kind}.png"
        page.locator(target).first.scroll_into_view_if_needed()
        page.screenshot(path=str(_SHOTS[kind]))
        report.screenshot = _SHOTS[kind]


@pytest.fixture(scope="module")
def visit(site_views, request):
    """El informe de cada página: lo mide la carga de ``QUALITY_VIEW`` de
    ``test_site_view.py`` (``site_views``, una por página y proceso; el reparto de
    conftest pone este módulo en el mismo proceso que esa vista)."""
    if not AXE_JS.exists():
        pytest.fail(
            "Falta node_modules/axe-core: ejecuta «npm ci» (lo hace «make book»)."
        )
    cache: dict[str, PageReport] = {}

    def get(rel: str) -> PageReport:
        if rel not in cache:
            cache[rel] = site_views.look(QUALITY_VIEW, rel).quality
        return cache[rel]

    yield get
    if cache:
        table = weights_table(cache.values())
        WEIGHTS_REPORT.parent.mkdir(parents=True, exist_ok=True)
        WEIGHTS_REPORT.write_text(table + "\n", encoding="utf-8")
        reporter = request.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line("")
            for line in table.splitlines():
                reporter.write_line(line)


def weights_table(reports) -> str:
    rows = [
        f"{'página':44} {'KB gzip':>8} {'límite':>7} {'widgets':>7} {'KaTeX':>7}",
    ]
    for r in sorted(reports, key=lambda r: r.rel):
        rows.append(
            f"{r.rel:44} {r.total / KB:8.0f} {r.budget / KB:7.0f} "
            f"{'sí' if r.has_widgets else 'no':>7} "
            f"{'sí' if r.loaded(MATH_CSS) else 'no':>7}"
        )
    return "\n".join(rows)


def _serious(violations: list[dict]) -> list[dict]:
    return [v for v in violations if v["impact"] in ("serious", "critical")]


PAGES = _pages()


# --- 1. Español en toda la interfaz ---------------------------------------------------


@pytest.mark.parametrize("rel", PAGES)
def test_interface_text_is_spanish(rel, visit):
    report = visit(rel)
    assert report.scan["lang"] == "es", f"{rel}: <html lang> es {report.scan['lang']!r}"
    english = [
        f"{where}: «{text}»"
        for where, text in report.scan["texts"] + report.scan["attrs"]
        if ENGLISH_UI.search(text)
    ]
    assert not english, f"{rel}: textos de interfaz en inglés:\n" + "\n".join(english)


# --- 3. Accesibilidad -----------------------------------------------------------------


@pytest.mark.parametrize("rel", PAGES)
def test_axe_finds_no_serious_or_critical_violations(rel, visit):
    report = visit(rel)
    bad = _serious(report.axe) + _serious(report.axe_dark)
    assert not bad, f"{rel}: axe-core encontró:\n" + "\n".join(
        f"[{v['impact']}] {v['id']}: {v['help']} → {v['nodes']}" for v in bad
    )


@pytest.mark.parametrize("rel", PAGES)
def test_headings_start_at_h1_and_never_skip_a_level(rel, visit):
    headings = visit(rel).scan["headings"]
    if rel == "index.html" and not headings:
        pytest.skip("index.html solo redirige a la portada")
    levels = [level for level, _ in headings]
    assert levels and levels[0] == 1, (
        f"{rel}: el primer encabezado no es h1: {headings}"
    )
    assert levels.count(1) == 1, f"{rel}: más de un h1 visible: {headings}"
    jumps = [
        (headings[i - 1], headings[i])
        for i in range(1, len(levels))
        if levels[i] > levels[i - 1] + 1
    ]
    assert not jumps, f"{rel}: encabezados que se saltan un nivel: {jumps}"


@pytest.mark.parametrize("rel", PAGES)
def test_every_figure_has_a_spanish_alt_text(rel, visit):
    from tests.test_spelling import hunspell_unknown, words_of

    images = visit(rel).scan["images"]
    missing = [src for src, alt in images if not (alt or "").strip()]
    assert not missing, (
        f"{rel}: figuras sin texto alternativo: {missing}. Dáselo en el notebook "
        "(el argumento alt de glue_figure o show_figure, resnorm/book.py) o, en un "
        "diagrama SVG, con la opción «:alt:» de su directiva {figure}"
    )
    for src, alt in images:
        words = [w for w in words_of(alt) if not w.isupper()]
        unknown = hunspell_unknown(set(words))
        spanish = sum(1 for w in words if w not in unknown)
        assert spanish * 2 > len(words), (
            f"{rel}: ¿alt en español? «{alt}» ({src}): escribe en español el texto "
            "alternativo de esa figura (alt de glue_figure/show_figure o «:alt:»)"
        )


@pytest.mark.parametrize("rel", PAGES)
def test_widgets_are_rendered_and_keyboard_reachable(rel, visit):
    scan = visit(rel).scan
    assert scan["widgetsRendered"] >= scan["widgetViews"], f"{rel}: widgets sin dibujar"
    assert not scan["unreachable"], (
        f"{rel}: controles de widget fuera del orden del teclado (tabindex < 0): "
        f"{scan['unreachable']}"
    )


# --- 4. Modo oscuro -------------------------------------------------------------------


def _opaque_and_light(css_color: str) -> bool:
    numbers = [float(n) for n in re.findall(r"[\d.]+", css_color)]
    if len(numbers) < 3:
        return False
    r, g, b = numbers[:3]
    alpha = numbers[3] if len(numbers) > 3 else 1.0
    return alpha >= 1 and min(r, g, b) >= 200


@pytest.mark.parametrize("rel", PAGES)
def test_dark_mode_images_keep_a_light_opaque_background(rel, visit):
    bad = [i for i in visit(rel).images_dark if not _opaque_and_light(i["bg"])]
    assert not bad, f"{rel}: imágenes sin fondo claro opaco en modo oscuro: {bad}"


@pytest.mark.parametrize("rel", PAGES)
def test_widget_text_contrast_in_light_and_dark_mode(rel, visit):
    report = visit(rel)
    if not report.has_widgets:
        pytest.skip("página sin widgets")
    bad = [
        f"{mode}: {c['where']} «{c['text']}» contraste {c['ratio']:.2f} < {c['needed']}"
        for mode, checks in report.widget_contrast.items()
        for c in checks
        if c["ratio"] < c["needed"]
    ]
    assert all(report.widget_contrast.values()), f"{rel}: los widgets no tienen texto"
    assert not bad, f"{rel}: texto de widget con poco contraste:\n" + "\n".join(bad)


def test_dark_mode_screenshots_were_taken(visit):
    """Una captura en modo oscuro de una página con figura y otra con widget.

    Se guardan en ``_build/capturas/`` para mirarlas: la prueba solo comprueba que
    existen y no están vacías (las de contraste y fondo de arriba son las automáticas).
    """
    for rel in PAGES:
        visit(rel)
    shots = sorted(SCREENSHOTS.glob("oscuro-*.png")) if SCREENSHOTS.exists() else []
    names = {p.stem for p in shots}
    pages_with_figures = any(visit(rel).images_dark for rel in PAGES)
    pages_with_widgets = any(visit(rel).has_widgets for rel in PAGES)
    if pages_with_figures:
        assert "oscuro-figura" in names or "oscuro-widget" in names
    if pages_with_widgets:
        assert "oscuro-widget" in names
    for shot in shots:
        assert shot.stat().st_size > 10_000, f"captura vacía: {shot}"


# --- 5. Páginas ligeras ---------------------------------------------------------------


@pytest.mark.parametrize("rel", PAGES)
def test_page_transfers_less_than_its_budget(rel, visit):
    report = visit(rel)
    heaviest = "\n".join(
        f"  {size / KB:7.1f} KB  {url}"
        for size, url in sorted(report.weights)[-8:][::-1]
    )
    assert report.total <= report.budget, (
        f"{rel}: {report.total / KB:.0f} KB gzip > {report.budget / KB:.0f} KB. "
        f"Lo más pesado:\n{heaviest}"
    )


@pytest.mark.parametrize("rel", PAGES)
def test_widget_and_math_scripts_load_only_where_needed(rel, visit):
    report = visit(rel)
    widget_js = [u for _, u in report.weights if any(s in u for s in WIDGET_SCRIPTS)]
    if report.has_widgets:
        assert widget_js, f"{rel}: tiene widgets pero no cargó su JavaScript"
    else:
        assert not widget_js, f"{rel}: sin widgets, pero carga {widget_js}"
    has_math = report.scan["mathNodes"] > 0
    assert report.loaded(MATH_CSS) == has_math, (
        f"{rel}: fórmulas={has_math}, CSS de KaTeX cargado={report.loaded(MATH_CSS)}"
    )
    forbidden = [u for _, u in report.weights if any(f in u for f in FORBIDDEN)]
    assert not forbidden, f"{rel}: descarga {forbidden}"


def _font_cmaps() -> dict[tuple[str, int], set[int]]:
    from fontTools.ttLib import TTFont

    from curso_sitio import ICON_FONTS, ICONS_DIR

    folder = BUILD_HTML / "_static" / ICONS_DIR
    return {
        (family, weight): set(TTFont(str(folder / f"{name}.woff")).getBestCmap())
        for name, (family, weight) in ICON_FONTS.items()
    }


@pytest.mark.parametrize("rel", PAGES)
def test_every_icon_is_in_the_trimmed_icon_fonts(rel, visit):
    cmaps = _font_cmaps()
    missing = []
    for where, cp, family, weight in visit(rel).scan["icons"]:
        key = (
            "Font Awesome 6 Brands" if "Brands" in family else "Font Awesome 6 Free",
            400 if "Brands" in family or int(weight) < 600 else 900,
        )
        if cp not in cmaps[key]:
            missing.append(f"{where}: U+{cp:04X} ({key[0]} {key[1]})")
    assert not missing, f"{rel}: iconos que no están en _static/iconos/:\n" + "\n".join(
        missing
    )


def test_trimmed_icon_fonts_hold_only_icons_the_pages_stylesheets_name():
    """Recortadas a lo que piden las hojas que enlazan las páginas (las del tema ya
    purgadas), no a todo Font Awesome: leer la hoja del tema sin purgar daba las
    fuentes enteras (≈ 260 KB más en cada primera visita)."""
    static = BUILD_HTML / "_static"
    linked = {href.split("?")[0].split("_static/")[-1]
              for page in BUILD_HTML.rglob("*.html")
              for href in re.findall(r'<link rel="stylesheet"[^>]*href="([^"]+)"',
                                     page.read_text(encoding="utf-8"))}
    named = set()
    for rel in linked:
        css = (static / rel).read_text(encoding="utf-8", errors="replace")
        named |= {int(code, 16) for code in
                  re.findall(r"\\([ef][0-9a-f]{3})(?![0-9a-f])", css, re.I)}
        named |= {ord(c) for c in re.findall(r"[\ue000-\uf8ff]", css)}
    for (family, weight), cmap in _font_cmaps().items():
        extra = sorted(cp for cp in cmap if cp > 0x7F and cp not in named)
        assert not extra, (
            f"{family} {weight}: {len(extra)} iconos que ninguna hoja enlazada nombra "
            f"(U+{extra[0]:04X}…): book/_ext/curso_sitio.py (used_icon_codepoints)")


# --- 6. Sin peticiones externas, sin fallos, sin errores y con las fórmulas dibujadas -


@pytest.mark.parametrize("rel", PAGES)
def test_page_is_offline_clean_and_renders_math(rel, visit):
    report = visit(rel)
    assert not report.external, (
        f"{rel}: peticiones fuera de 127.0.0.1: {report.external}"
    )
    assert not report.failed, f"{rel}: peticiones fallidas: {report.failed}"
    assert not report.console_errors, (
        f"{rel}: errores de consola: {report.console_errors}"
    )
    assert not report.raw_latex, (
        f"{rel}: LaTeX sin renderizar visible: {report.raw_latex}"
    )


def test_what_a_page_asks_outside_is_noted_and_never_reaches_the_network(
    page_factory, site_url
):
    """Lo que prueba la de arriba: una página que pidiera algo a otro sitio lo deja
    anotado en ``external`` (aunque el navegador de las pruebas no resuelva el
    nombre), y la petición falla en el acto en vez de esperar a la red: el navegador
    no resuelve el nombre (ni lo pregunta), no se agota ningún plazo."""
    rec = page_factory()
    page = rec.next_visit()
    reasons = []
    page.on("requestfailed", lambda r: reasons.append(r.failure))
    page.goto(f"{site_url}/book/intro.html", wait_until="load")
    outcome = page.evaluate(
        """async () => {
          const img = new Image();
          const loaded = new Promise((ok) => { img.onload = () => ok("cargó");
                                               img.onerror = () => ok("falló"); });
          img.src = "https://cdn.example.org/logo.png";
          const fetched = await fetch("https://unpkg.com/katex/dist/katex.min.css")
            .then(() => "cargó", () => "falló");
          return [await loaded, fetched];
        }"""
    )
    assert outcome == ["falló", "falló"]
    assert reasons == ["net::ERR_NAME_NOT_RESOLVED"] * 2, reasons
    assert sorted(rec.external) == [
        "https://cdn.example.org/logo.png",
        "https://unpkg.com/katex/dist/katex.min.css",
    ]
    assert not rec.failed  # lo que falla fuera no es un fallo del sitio: es «external»

