"""Lo que ve una persona en el sitio construido: teléfono, tableta y portátil, claro y
oscuro.

En Chromium, sin red, a 390×844, 820×1180 y 1366×900 (claro y oscuro):

* el índice del curso (☰) y el de la página (☷) se abren, se cierran y llevan a otro
  capítulo o a otra sección;
* ninguna página se desborda a lo ancho, y cada fórmula o tabla ancha cabe en la
  columna o se desplaza dentro de su propia caja;
* ningún elemento muestra un texto de interfaz en inglés (lista cerrada, abajo);
* el texto no salta mientras la página carga y dibuja sus fórmulas y sus widgets
  (desplazamiento acumulado < 0.05);
* en el portátil, cada figura se muestra a su ancho (o al de la columna), sin
  deformarse, y su texto más pequeño mide ≥ 11 px CSS;
* cada página carga sin red y sin errores en la consola; con ``make fotos``, además,
  queda fotografiada en ``_build/screenshots/<ancho>-<modo>/`` para que una persona
  la mire (una foto no es una propiedad: fuera de ``make test``);
* el texto de cada figura y de cada gráfico de widget mide al menos 11 px como se ve,
  también a 390 px (la versión para teléfono de cada figura) y, los gráficos, a 320;
* un toque abre cada figura a todo el ancho con su pie (Esc la cierra y el foco
  vuelve); un enlace del índice, una referencia o un #ancla dejan su título debajo de
  la cabecera fija, con el foco en él; cerrar ☰ o ☷ devuelve el foco a su botón;
* la búsqueda muestra las fórmulas como texto y «gamma» lleva al capítulo 5.

Cada página se carga una vez en cada ancho, en claro (``SWEPT``; en la tableta, una
página de cada clase: ``TABLET_PAGES`` dice por qué). Ninguna de estas
comprobaciones depende del modo de color: en el portátil, la misma carga pasa después a
modo oscuro como lo pide el sistema del lector (``prefers-color-scheme``): el tema tiene
que seguirlo, y con ``make fotos`` se fotografía otra vez, en ``portatil-oscuro``. Esa
carga del portátil mide también, en claro y en oscuro, lo que leen las pruebas de
``test_site_quality.py`` (axe, contraste, pesos, encabezados). Los índices se abren y
se cierran en los tres anchos, en claro: lo que se comprueba (qué está dentro de la
ventana, visible y opaco, que Esc lo cierre, adónde lleva cada enlace) no depende del
modo de color; su contraste en oscuro lo mide axe en la carga del portátil, donde los
dos índices están a la vista.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.helpers import (
    BUILD_HTML,
    LAYOUT_SHIFT_PROBE,
    MAX_LAYOUT_SHIFT,
    ROOT,
    VIEWPORTS,
    WIDGET_VIEW,
    built_soup,
    PageRecorder,
    draw_widgets,
    html_pages,
    layout_shifts,
    open_page,
    wait_for_math,
)
from tests.test_figures_view import (
    _IMG,
    MIN_LAPTOP_PX,
    _attr,
    _site_figures,
    smallest_text_px,
)
from tests.test_site_quality import (
    QUALITY_VIEW,
    PageReport,
    measure_dark,
    measure_light,
)

pytestmark = [pytest.mark.browser, pytest.mark.build]

LOAD_TIMEOUT = 90_000  # ms: la máquina de pruebas puede estar ocupada
# Lo que tarda como mucho un cambio que la prueba espera (un panel que se abre, un
# diálogo, un salto a un ancla): holgado, porque con la máquina ocupada el navegador
# responde tarde. Una prueba que pasa no espera nada de más; solo la que falla.
STATE_TIMEOUT = 60_000  # ms
SCREENSHOTS = ROOT / "_build" / "screenshots"
# «make fotos»: las mismas cargas, con una foto de cada página entera (≈ 1/2 del tiempo
# de cada vista en el portátil, con la oscura); «make test» no las hace.
PHOTOS = os.environ.get("RESNORM_FOTOS") == "1"
SCHEMES = {"claro": "light", "oscuro": "dark"}
#: Las vistas en las que se carga y se comprueba (y, con ``PHOTOS``, se fotografía) cada
#: página; la del portátil pasa además a oscuro (``DARK_PHOTO``).
SWEPT = [f"{v}-claro" for v in VIEWPORTS]
#: Las vistas de las pruebas de navegar (índices, enlaces, figuras a toda pantalla).
NAV_VIEWS = SWEPT
DARK_PHOTO = {"portatil-claro": "portatil-oscuro"}
PAGES = html_pages(BUILD_HTML) if BUILD_HTML.exists() else []
WIDGET_PAGES = [rel for rel in PAGES
                if WIDGET_VIEW in (BUILD_HTML / rel).read_text(encoding="utf-8")]
CHAPTER = "notebooks/04_layernorm.html"
#: Lo que se carga en la tableta (820 px): una página de cada clase (la portada, una
#: del libro, un capítulo con widgets y figuras, la búsqueda), no todas. Allí el tema
#: quita las dos barras laterales y la columna del texto mide lo que en el portátil
#: (756 px y 757; lo vigila ``test_the_tablet_column_is_the_laptops``), y las hojas
#: del curso solo cambian por debajo de 768 px (reserva.css, widgets-pagina.css, la
#: versión de teléfono de cada figura): el contenido de cada página se dibuja como en
#: el portátil, que lo comprueba entero. Lo propio de la tableta es el marco (la
#: cabecera y los dos índices desplegables del teléfono, a otro ancho): lo comprueban
#: estas páginas y las pruebas de navegar. Con ``make fotos``, todas.
TABLET_PAGES = {"index.html", "book/como-usar.html", CHAPTER, "search.html"}
NEXT_CHAPTER = "notebooks/05_gamma_beta.html"
NO_MOTION = "*, *::before, *::after { transition: none !important; " \
    "animation: none !important; scroll-behavior: auto !important; }"

# Textos de interfaz que los temas y las extensiones escriben en inglés (palabra
# completa, con mayúsculas). Lista cerrada: la prosa del curso cita a propósito
# algunos términos en inglés («skip connection»), que no son interfaz.
ENGLISH_UI = re.compile(
    r"\b(?:"
    r"Search|Searching|Search the docs|Contents|On this page|Toggle|Launch|Download|"
    r"Copy|Copied|Previous|Next|Show|Hide|Skip to main content|Back to top|Theme|"
    r"Light|Dark|System|Fullscreen|Print to PDF|Repository|Source|Edit|Open issue|"
    r"Exercise|Solution|Click|Site navigation|Navigation|Main|Breadcrumb|Home|"
    r"Index|Close|Expand|Collapse|Loading|Results|Live Code|Run code|restart|"
    r"Color mode|By|Copyright|Version|Announcement|hidden content|Thebe is|"
    r"Launching|Binder logo|Colab logo|JupyterHub logo|Ctrl\+K|Symbols|"
    r"Please activate JavaScript|Hide Search Matches"
    r")\b"
)
SCAN_ATTRIBUTES = ("aria-label", "title", "alt", "placeholder", "data-bs-title")

SCAN_JS = r"""
(attributes) => {
  const SKIP = "script, style, noscript, pre, code, kbd, samp, .highlight, .math, " +
    ".katex, .citation, [lang]:not([lang^='es']), em, cite";
  const where = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.classList.length ? "." + [...el.classList].slice(0, 2).join(".") : "");
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!text || !el || el.closest(SKIP)) continue;
    out.push([where(el), text]);
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("script, style, .citation")) continue;
    for (const name of attributes) {
      if (name === "title" && el.matches("a.reference")) continue;
      const value = el.getAttribute(name);
      if (value && value.trim()) out.push([where(el) + "@" + name, value.trim()]);
    }
  }
  return out;
}
"""

# Para cada fórmula en bloque, tabla y bloque de código: ¿cabe en la columna del texto
# o se desplaza dentro de una caja propia que sí cabe y lo señala (una flecha →)?
# Una caja con overflow hidden que la corta no vale.
WIDE_JS = r"""
() => {
  const column = document.querySelector("article.bd-article") ||
    document.querySelector(".bd-article") || document.body;
  const box = column.getBoundingClientRect();
  const inside = (r) => r.left >= box.left - 1 && r.right <= box.right + 1;
  const where = (el) => el.tagName.toLowerCase() +
    (el.id ? "#" + el.id : "") +
    (el.classList.length ? "." + [...el.classList].slice(0, 2).join(".") : "") +
    " «" + (el.textContent || "").trim().slice(0, 40) + "»";
  const items = column.querySelectorAll(
    ".katex-display > .katex, table, " +
    ".rn-widget table, pre");
  const bad = [];
  for (const el of items) {
    if (!el.checkVisibility()) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    let scroller = null, clipped = false;
    for (let a = el; a && a !== column.parentElement; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      // Lo que queda fuera: el contenido mismo (un Range), no el relleno derecho.
      const range = document.createRange();
      range.selectNodeContents(a);
      const out = a.scrollWidth <= a.clientWidth + 1 ? 0 :
        range.getBoundingClientRect().right + a.scrollLeft -
        (a.getBoundingClientRect().left + a.clientLeft + a.clientWidth);
      if ((ox === "auto" || ox === "scroll") && out > 1) {
        scroller = a;
        break;
      }
      if ((ox === "hidden" || ox === "clip") && out > 1) {
        clipped = true;
        break;
      }
    }
    if (clipped) { bad.push("cortado: " + where(el)); continue; }
    if (scroller) {
      if (!inside(scroller.getBoundingClientRect())) {
        bad.push("su caja se sale de la columna: " + where(el));
      }
      // Que se note: al cargar (sin desplazar) hay contenido a la derecha, y la caja
      // lo señala con una flecha fija en su borde derecho.
      const arrow = getComputedStyle(scroller, "::after").content;
      if (!scroller.classList.contains("curso-desplazable--despues") ||
          !/→/.test(arrow || "")) {
        bad.push("se desplaza sin que se note: " + where(el));
      }
      continue;
    }
    if (!inside(r)) {
      bad.push("no cabe y no se desplaza: " + where(el));
    }
  }
  const doc = document.documentElement;
  return {
    pageOverflow: Math.max(doc.scrollWidth, document.body.scrollWidth) - innerWidth,
    bad,
  };
}
"""


@dataclass
class PageView:
    rel: str
    view: str
    overflow: int = 0
    wide: list[str] = field(default_factory=list)
    english: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    dark_screenshot: Path | None = None
    console_errors: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    layout_shift: float = 0.0
    shifts: str = ""
    figures: list[tuple[float, float]] = field(default_factory=list)
    # El texto más pequeño de cada figura y de cada gráfico de widget, como se ve.
    figure_text: list[tuple[str, float]] = field(default_factory=list)
    # Cada widget: su clase, el alto que reservó y el que mide dibujado.
    widgets: list[dict] = field(default_factory=list)
    # Cada widget dibujado (section.rn-widget): sus clases y su texto, que lee
    # test_widgets_site.py.
    drawn: list[tuple[str, str]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    # En QUALITY_VIEW, lo que leen las pruebas de test_site_quality.py.
    quality: PageReport | None = None


# El tamaño con que se ve el texto de cada figura y de cada gráfico de widget, en px
# CSS, en esta ventana:
# * un diagrama SVG (en un <img>): el SVG que eligió el navegador (currentSrc, la
#   versión para teléfono si la hay) se inserta en la página al ancho con que se ve
#   el <img>, y cada <text> mide su font-size por la escala de su getScreenCTM();
# * una figura PNG de matplotlib: su texto más pequeño (data-texto-min-pt, en pt) por
#   los px de imagen por pulgada (data-dpi del <img> o del <source> elegido) y por
#   la escala con que se ve (ancho mostrado / ancho natural del PNG);
# * un gráfico de widget (SVG en la página): como el diagrama, en su sitio.
FIGURE_TEXT_JS = r"""
async () => {
  const out = [];
  const smallest = (root) => {
    let min = Infinity;
    for (const t of root.querySelectorAll("text, tspan")) {
      if (!t.textContent.trim()) continue;
      const m = t.getScreenCTM();
      const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
      min = Math.min(min, size);
    }
    return min;
  };
  const images = document.querySelectorAll(
    ".bd-article figure img, .bd-article img.curso-figura");
  for (const img of images) {
    img.loading = "eager";
    await img.decode().catch(() => null);
    const shown = img.getBoundingClientRect().width;
    const src = img.currentSrc || img.src;
    const name = src.split("/").pop();
    if (/\.svg(\?|$)/.test(src)) {
      const holder = document.createElement("div");
      holder.style.cssText = "position:absolute;left:0;top:0;visibility:hidden";
      holder.innerHTML = await (await fetch(src)).text();
      const svg = holder.querySelector("svg");
      const box = svg.viewBox.baseVal;
      svg.setAttribute("width", shown);
      svg.setAttribute("height", shown * box.height / box.width);
      document.body.append(holder);
      out.push([name, smallest(svg)]);
      holder.remove();
    } else if (img.dataset.textoMinPt) {
      const source = [...(img.parentElement.querySelectorAll("source") || [])]
        .find((s) => new URL(s.srcset, location.href).href === src);
      const dpi = parseFloat((source || img).dataset.dpi);
      const pt = parseFloat((source || img).dataset.textoMinPt);
      out.push([name, pt / 72 * dpi * shown / img.naturalWidth]);
    }
  }
  document.querySelectorAll(".rn-chart").forEach((svg, i) => {
    if (svg.getBoundingClientRect().width > 0) {
      out.push([`gráfico ${i + 1}`, smallest(svg)]);
    }
  });
  return out;
}
"""


# La caja que cada widget reserva mientras no está dibujado (css/reserva.css, por
# clase de widget y ancho) mide lo que mide el widget dibujado: al aparecer, el texto
# de debajo no salta (cada carga de ``_look`` mide las dos). Cuándo aparece y cuánto
# salta en una carga de verdad depende de la velocidad de la máquina: eso lo mide
# «make bench» (bench/widget_load.py).

RESERVED_VS_DRAWN = """() => [...document.querySelectorAll(".widget-subarea")]
  .filter((area) => area.dataset.rnWidget)
  .map((area) => {
    // Una caja vacía reservada como la que puso widgets-estaticos.js, en el mismo
    // sitio: su alto es el que tuvo el widget antes de dibujarse.
    const probe = document.createElement("div");
    probe.className = "widget-subarea rn-reserva";
    probe.dataset.rnWidget = area.dataset.rnWidget;
    for (const name of ["--rn-preguntas", "--rn-numericas"]) {
      const value = area.style.getPropertyValue(name);
      if (value) probe.style.setProperty(name, value);
    }
    area.parentNode.insertBefore(probe, area);
    const reserved = probe.getBoundingClientRect().height;
    probe.remove();
    return {widget: area.dataset.rnWidget, reserved,
            drawn: area.getBoundingClientRect().height};
  })"""


def shift_when_drawn(reserved: float, drawn: float, width: int, height: int) -> float:
    """El desplazamiento (layout shift) que da un widget al dibujarse con la pantalla
    en su borde de arriba, como quien salta a él por un enlace.

    La fórmula de Chromium: fracción de pantalla afectada × fracción de distancia. Lo
    que se mueve es lo de debajo del widget: antes y después ocupa la pantalla desde
    el borde de abajo de la caja más corta (la reservada o la dibujada) hasta abajo; se
    mueve la diferencia de altos, en fracción de la dimensión mayor de la pantalla. Un
    widget más alto que la pantalla no deja ver nada debajo: no mueve nada visible."""
    impact = max(0.0, height - min(reserved, drawn)) / height
    return impact * abs(drawn - reserved) / max(width, height)


def test_shift_when_drawn_follows_the_layout_shift_formula():
    # Caja de 400 px en una pantalla de 390 × 844 que crece 100 px: se mueve lo de
    # debajo (444 px de pantalla, 0,526) una distancia de 100/844.
    assert shift_when_drawn(400, 500, 390, 844) == pytest.approx(444 / 844 * 100 / 844)
    assert shift_when_drawn(500, 400, 390, 844) == shift_when_drawn(400, 500, 390, 844)
    assert shift_when_drawn(900, 1000, 390, 844) == 0.0  # no se ve nada debajo
    assert shift_when_drawn(400, 400, 390, 844) == 0.0


def _wait_until_drawn(page) -> None:
    _draw(page)
    _settle(page)


def _draw(page) -> None:
    wait_for_math(page, timeout=LOAD_TIMEOUT)
    # La foto debe mostrar los widgets, no sus cajas reservadas.
    draw_widgets(page, timeout=LOAD_TIMEOUT)


def _settle(page) -> None:
    page.add_style_tag(content=NO_MOTION)
    # Las figuras llevan loading="lazy": una foto de la página entera no se desplaza,
    # así que sin esto saldrían en blanco. Su caja ya está reservada (width, height).
    page.evaluate(
        "() => Promise.all([...document.images].map((img) => {"
        " img.loading = 'eager'; return img.decode().catch(() => null); }))"
    )
    page.evaluate("document.fonts.ready")
    # interfaz-es.js revisa las cajas desplazables en el siguiente fotograma.
    page.evaluate(
        "() => new Promise((r) => "
        "requestAnimationFrame(() => requestAnimationFrame(r)))"
    )


def _new_context(browser, view: str):
    viewport, scheme = view.split("-")
    width, height = VIEWPORTS[viewport]
    return browser.new_context(
        viewport={"width": width, "height": height},
        color_scheme=SCHEMES[scheme],
        reduced_motion="reduce",
    )


def _photograph(page, view: str, rel: str) -> Path:
    # JPEG: la mitad de CPU que PNG en páginas de 15 000 px, y se lee igual de bien.
    name = rel.replace("/", "__").removesuffix(".html") + ".jpg"
    target = SCREENSHOTS / view / name
    target.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target), full_page=True, type="jpeg", quality=85)
    return target


def _look(rec: PageRecorder, site_url: str, view: str, rel: str) -> PageView:
    """Una página en la pestaña de su vista (``rec``), como quien sigue los enlaces del
    curso."""
    result = PageView(rel, view)
    page = rec.next_visit()
    try:
        open_page(page, f"{site_url}/{rel}", timeout=LOAD_TIMEOUT)
        _draw(page)
        first_view = list(rec.responses)  # antes de pedir las imágenes diferidas
        _settle(page)
        # Cargada, con las fórmulas, las fuentes y cada widget dibujados: lo que se
        # ha movido hasta aquí lo ha visto el lector.
        result.layout_shift, result.shifts = layout_shifts(page)
        wide = page.evaluate(WIDE_JS)
        result.overflow = wide["pageOverflow"]
        result.wide = wide["bad"]
        result.english = [
            f"{where}: {text[:80]}"
            for where, text in page.evaluate(SCAN_JS, list(SCAN_ATTRIBUTES))
            if ENGLISH_UI.search(text)
        ]
        result.figures = page.eval_on_selector_all(
            "img.curso-figura",
            "els => els.map(e => [e.getBoundingClientRect().width,"
            " e.getBoundingClientRect().height])",
        )
        result.figure_text = page.evaluate(FIGURE_TEXT_JS)
        result.widgets = page.evaluate(RESERVED_VS_DRAWN)
        result.drawn = [tuple(pair) for pair in page.evaluate(
            "() => [...document.querySelectorAll('section.rn-widget')]"
            ".map((s) => [s.className, s.innerText])")]
        if PHOTOS:
            result.screenshot = _photograph(page, view, rel)
        if view == QUALITY_VIEW:  # axe, pesos, encabezados…: test_site_quality.py
            result.quality = measure_light(page, rec, site_url, rel, first_view)
        if view in DARK_PHOTO:
            # El sistema del lector pasa a oscuro: el tema lo sigue (data-theme).
            page.emulate_media(color_scheme="dark")
            page.wait_for_function(
                "() => document.documentElement.dataset.theme === 'dark'",
                timeout=LOAD_TIMEOUT,
            )
            page.evaluate(
                "() => new Promise((r) => "
                "requestAnimationFrame(() => requestAnimationFrame(r)))"
            )
            if PHOTOS:
                result.dark_screenshot = _photograph(page, DARK_PHOTO[view], rel)
            if result.quality is not None:
                measure_dark(page, result.quality)
        result.console_errors = list(rec.console_errors)
        result.external = list(rec.external)
        result.failed = list(rec.failed)
    finally:
        if view in DARK_PHOTO:  # la pestaña sigue: la página siguiente, en claro
            page.emulate_media(color_scheme=SCHEMES[view.split("-")[1]])
    return result


class SiteViews:
    """Una pestaña por vista (un contexto de navegador por vista, abierto la primera vez
    que se pide) y lo visto en cada página en cada vista: una carga por página, vista y
    proceso de pytest, para las pruebas de aquí y las de ``test_site_quality.py``
    (fixture ``site_views`` de conftest). Las pruebas de una vista abren en su pestaña
    sus páginas una tras otra, como quien sigue los enlaces del curso; en cada una se
    miden los desplazamientos de diseño (``LAYOUT_SHIFT_PROBE``)."""

    def __init__(self, browser, site_url: str):
        self.browser, self.site_url = browser, site_url
        self.tabs: dict[str, PageRecorder] = {}
        self.seen: dict[tuple[str, str], PageView] = {}

    def tab(self, view: str) -> PageRecorder:
        if view not in self.tabs:
            context = _new_context(self.browser, view)
            context.add_init_script(LAYOUT_SHIFT_PROBE)
            self.tabs[view] = PageRecorder(context)
        return self.tabs[view]

    def look(self, view: str, rel: str) -> PageView:
        if (view, rel) not in self.seen:
            self.seen[view, rel] = _look(self.tab(view), self.site_url, view, rel)
        return self.seen[view, rel]

    def close(self) -> None:
        for rec in self.tabs.values():
            rec.context.close()


@pytest.fixture(scope="session")
def tab(site_views):
    return site_views.tab


@pytest.fixture(scope="session")
def look(site_views):
    return site_views.look


def view_pages(view: str, pages=None) -> list[str]:
    """Las páginas de ``pages`` (todas, si no se dice) que se cargan en ``view``."""
    pages = PAGES if pages is None else pages
    if view.startswith("tableta") and not PHOTOS:
        return [rel for rel in pages if rel in TABLET_PAGES]
    return list(pages)


def _params():
    return [
        pytest.param(view, rel, id=f"{view}-{rel}")
        for view in SWEPT for rel in view_pages(view)
    ]


# --- Cada página, en cada ancho ------------------------------------------------------


@pytest.mark.parametrize("view, rel", _params())
def test_page_does_not_overflow_and_wide_content_scrolls_in_its_box(view, rel, look):
    seen = look(view, rel)
    assert seen.overflow <= 0, f"{rel} ({view}): se desborda {seen.overflow} px"
    assert not seen.wide, f"{rel} ({view}):\n" + "\n".join(seen.wide)


@pytest.mark.parametrize("view, rel", _params())
def test_page_does_not_jump_while_it_loads_and_draws_its_widgets(view, rel, look):
    """Desplazamiento acumulado (layout shift de Chromium) por debajo de 0.05 desde
    que la página empieza a cargar hasta que tiene sus fórmulas (KaTeX, dibujadas al
    construir), sus fuentes y todos sus widgets dibujados."""
    seen = look(view, rel)
    assert seen.layout_shift < MAX_LAYOUT_SHIFT, (
        f"{rel} ({view}): desplazamiento {seen.layout_shift:.3f}: {seen.shifts}"
    )


# El id lleva la vista: va al proceso de las demás pruebas de esa vista (SPLIT, en
# tests/conftest.py) y lee las cargas que ellas ya hicieron.
@pytest.mark.parametrize("view", SWEPT)
def test_each_widget_reserves_the_height_it_draws(view, look):
    """Cada widget, dibujado, mide lo que reservó: con la pantalla en su borde de
    arriba, el texto de debajo se desplaza menos de ``MAX_LAYOUT_SHIFT`` al aparecer
    (``shift_when_drawn``); y, si no es un cuestionario (cuyo alto depende de lo que
    ocupe cada enunciado), reservó su alto con 16 px o un 2 % de margen."""
    width, height = VIEWPORTS[view.split("-")[0]]
    problems, measured = [], 0
    for rel in view_pages(view, WIDGET_PAGES):
        for box in look(view, rel).widgets:
            measured += 1
            shift = shift_when_drawn(box["reserved"], box["drawn"], width, height)
            # Un widget que no es un cuestionario dibuja siempre lo mismo: su caja
            # mide lo mismo. (Un alto viejo, de antes de cambiar el widget, salta
            # aunque el widget sea casi tan alto como la pantalla.)
            off = abs(box["drawn"] - box["reserved"])
            fixed = box["widget"] != "Quiz" and off > max(16, 0.02 * box["drawn"])
            if shift >= MAX_LAYOUT_SHIFT or fixed:
                problems.append(
                    f"{rel} a {width} px: {box['widget']} reserva "
                    f"{box['reserved']:.0f} px y dibujado mide {box['drawn']:.0f} "
                    f"px (desplazamiento {shift:.3f}): corrige su alto en "
                    "_assets/css/reserva.css")
    assert measured, "ninguna página con widgets"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("view, rel", _params())
def test_no_element_shows_an_english_interface_text(view, rel, look):
    seen = look(view, rel)
    assert not seen.english, f"{rel} ({view}):\n" + "\n".join(seen.english)


@pytest.mark.parametrize("view, rel", _params())
def test_every_page_loads_offline_without_errors_and_is_photographed_on_request(
        view, rel, look):
    seen = look(view, rel)
    shots = [seen.screenshot] + ([seen.dark_screenshot] if view in DARK_PHOTO else [])
    for shot in shots if PHOTOS else []:
        assert shot is not None and shot.stat().st_size > 5_000, (rel, view, shot)
    assert not seen.external, f"{rel} ({view}): pidió {seen.external}"
    assert not seen.console_errors, f"{rel} ({view}): {seen.console_errors}"
    assert not seen.failed, f"{rel} ({view}): {seen.failed}"


def _figure_pages() -> list[str]:
    return sorted({rel for rel, _, _ in _site_figures()})


# El id lleva la vista: estas pruebas van al mismo proceso que las demás del portátil
# (tests/conftest.py, SPLIT) y leen las páginas que ellas ya cargaron.
@pytest.mark.parametrize(
    "rel", [pytest.param(rel, id=f"portatil-claro-{rel}") for rel in _figure_pages()])
def test_figures_are_shown_at_their_width_on_a_laptop(rel, look):
    """En el portátil (1366 × 900), cada figura se muestra a su ancho (o al de la
    columna), sin deformarse, y su texto más pequeño mide ≥ 11 px CSS con el ancho
    medido."""
    seen = look("portatil-claro", rel)
    tags = _IMG.findall((BUILD_HTML / rel).read_text(encoding="utf-8"))
    assert len(seen.figures) == len(tags), f"{rel}: {len(seen.figures)} figuras vistas"
    problems = []
    for tag, (w, h) in zip(tags, seen.figures):
        width, height = float(_attr(tag, "width")), float(_attr(tag, "height"))
        px = smallest_text_px(tag, float(_attr(tag, "data-texto-min-pt")), w,
                              BUILD_HTML / rel)
        if px < MIN_LAPTOP_PX:
            problems.append(f"{rel}: {px:.1f} px CSS con {w:.0f} px de ancho")
        if abs(w / h - width / height) > 0.02:
            problems.append(f"{rel}: figura deformada ({w:.0f} × {h:.0f})")
    assert not problems, "\n".join(problems)


COLUMN_JS = """() => {
  const article = document.querySelector("article.bd-article");
  const style = getComputedStyle(article);
  return article.clientWidth - parseFloat(style.paddingLeft) -
    parseFloat(style.paddingRight);
}"""
# Los anchos a los que cambia lo que el curso pone en la página: sus hojas, sus scripts
# y sus extensiones (la versión de teléfono de cada figura, un <source media=…>).
MEDIA_WIDTH = re.compile(r"\((?:min|max)-width:\s*([\d.]+)px\)")
NOSCRIPT = re.compile(r"<noscript>.*?</noscript>", re.S)
LAYER_FILES = ("_assets/css/*.css", "_assets/js/*.js", "book/_ext/*.py",
               "book/_templates/**/*.html")


def test_the_tablet_column_is_the_laptops(browser, site_url):
    """Por qué basta cargar en la tableta unas pocas páginas (``TABLET_PAGES``): su
    columna de texto mide lo que la del portátil (±4 px) y nada del curso (hojas,
    scripts, extensiones) cambia la página entre sus dos anchos. Si falla, el
    contenido de la tableta ya no es el del portátil: que ``view_pages`` vuelva a
    cargar en ella todas las páginas."""
    files = [path for pattern in LAYER_FILES for path in sorted(ROOT.glob(pattern))]
    # Lo que va dentro de <noscript> (el índice sin JavaScript, que sigue el punto de
    # corte del tema, 960 px) no se aplica en estas cargas, que ejecutan JavaScript.
    widths = {float(w) for path in files
              for w in MEDIA_WIDTH.findall(NOSCRIPT.sub("", path.read_text(
                  encoding="utf-8")))}
    tablet, laptop = VIEWPORTS["tableta"], VIEWPORTS["portatil"]
    between = sorted(w for w in widths if tablet[0] <= w <= laptop[0])
    assert widths and not between, f"el curso cambia la página a {between} px"
    context = browser.new_context(viewport=dict(zip(("width", "height"), laptop)))
    try:
        page = context.new_page()
        open_page(page, f"{site_url}/{CHAPTER}", timeout=LOAD_TIMEOUT)
        at_laptop = page.evaluate(COLUMN_JS)
        page.set_viewport_size(dict(zip(("width", "height"), tablet)))
        page.wait_for_function(f"() => innerWidth === {tablet[0]}",
                               timeout=STATE_TIMEOUT)
        at_tablet = page.evaluate(COLUMN_JS)
    finally:
        context.close()
    assert abs(at_tablet - at_laptop) <= 4, (
        f"columna: {at_tablet:.0f} px en la tableta, {at_laptop:.0f} en el portátil")


def _pages_with_figures() -> list[str]:
    """Las páginas con figuras (diagramas SVG o PNG de matplotlib) o widgets."""
    out = []
    for rel in PAGES:
        text = (BUILD_HTML / rel).read_text(encoding="utf-8")
        if "curso-figura" in text or "<figure" in text or "widget-view+json" in text:
            out.append(rel)
    return out


@pytest.mark.parametrize("view, rel", [
    pytest.param(view, rel, id=f"{view}-{rel}")
    for view in SWEPT for rel in view_pages(view, _pages_with_figures())
])
def test_every_figure_and_chart_text_is_at_least_11_px_as_displayed(view, rel, look):
    """El texto más pequeño de cada figura (diagramas SVG, figuras de matplotlib) y de
    cada gráfico de widget mide al menos 11 px CSS tal como se ve en esta ventana,
    también en un teléfono de 390 px (la versión para teléfono de cada figura)."""
    seen = look(view, rel)
    assert seen.figure_text or "<figure" not in (BUILD_HTML / rel).read_text("utf-8")
    small = [f"{name}: {px:.1f} px" for name, px in seen.figure_text
             if px < MIN_LAPTOP_PX - 0.05]
    assert not small, f"{rel} ({view}): " + ", ".join(small)


CHART_TEXT_JS = """() => [...document.querySelectorAll(".rn-chart")]
  .filter((svg) => svg.getBoundingClientRect().width > 0)
  .map((svg) => Math.min(...[...svg.querySelectorAll("text")].map((t) =>
    parseFloat(getComputedStyle(t).fontSize) * Math.hypot(
      t.getScreenCTM().a, t.getScreenCTM().b))))"""


CHART_PAGES = ["notebooks/04_layernorm.html", "notebooks/08_perro_paso_a_paso.html",
               "notebooks/09_profundidad.html"]


@dataclass
class NarrowView:
    """Una página con widgets a 320 × 700 (el teléfono más estrecho), dibujada."""
    widgets: int
    clipped: list[str]
    charts: list[float]
    # Solo en CHART_PAGES: el texto de sus gráficos con la ventana a 700 px de ancho.
    charts_wide: list[float] | None = None


@pytest.fixture(scope="module")
def narrow(browser, site_url):
    """Cada página con widgets cargada una sola vez a 320 px, para las dos pruebas de
    ese ancho (nada recortado, texto de los gráficos): en una pestaña nueva de un
    contexto de 320 × 700, como las abría cada prueba."""
    context = browser.new_context(viewport={"width": 320, "height": 700},
                                  reduced_motion="reduce")
    seen: dict[str, NarrowView] = {}

    def get(rel: str) -> NarrowView:
        if rel not in seen:
            page = context.new_page()
            try:
                open_page(page, f"{site_url}/{rel}", timeout=LOAD_TIMEOUT)
                draw_widgets(page, timeout=LOAD_TIMEOUT)
                view = NarrowView(page.locator("section.rn-widget").count(),
                                  page.evaluate(CLIPPED_JS),
                                  page.evaluate(CHART_TEXT_JS))
                if rel in CHART_PAGES:
                    page.set_viewport_size({"width": 700, "height": 700})
                    page.wait_for_function(
                        "() => [...document.querySelectorAll('.rn-chart')].every("
                        "(svg) => Math.abs(svg.viewBox.baseVal.width -"
                        " svg.getBoundingClientRect().width) < 2)",
                        timeout=STATE_TIMEOUT)
                    view.charts_wide = page.evaluate(CHART_TEXT_JS)
            finally:
                page.close()
            seen[rel] = view
        return seen[rel]

    yield get
    context.close()


@pytest.mark.parametrize("rel", CHART_PAGES)
def test_widget_chart_text_is_at_least_11_px_on_a_320_px_phone(rel, narrow):
    """Los gráficos de los widgets se dibujan al ancho que ocupan (ui.js): en el
    teléfono más estrecho (320 px) su texto sigue midiendo al menos 11 px (con un
    viewBox fijo de 520 px medía unos 5 px). Y si la ventana se ensancha (girar el
    teléfono), se vuelven a dibujar a su nuevo ancho."""
    seen = narrow(rel)
    sizes = seen.charts
    assert sizes and min(sizes) >= MIN_LAPTOP_PX, f"{rel} a 320 px: {sizes}"
    sizes = seen.charts_wide
    assert min(sizes) >= MIN_LAPTOP_PX and max(sizes) < 16, f"{rel}: {sizes}"


# --- Navegar con el índice del curso y el de la página -----------------------------


def _open_chapter(tab, site_url: str, view: str):
    rec = tab(view)
    page = rec.next_visit()
    page.goto(f"{site_url}/{CHAPTER}", wait_until="load", timeout=LOAD_TIMEOUT)
    _wait_until_drawn(page)
    return rec, page


def _follow(page, link) -> None:
    """Pulsa ``link`` y espera a que el navegador vaya a su página (basta con que la
    pida: la carga de esa página la prueba la vista de cada página)."""
    with page.expect_navigation(wait_until="commit", timeout=LOAD_TIMEOUT):
        link.click()


def _visible(locator) -> bool:
    return locator.count() > 0 and locator.first.is_visible()


_IN_VIEW_JS = """(sel) => [...document.querySelectorAll(sel)].some((el) => {
  if (!el.checkVisibility({visibilityProperty: true, opacityProperty: true}))
    return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.right > 0 && r.left < innerWidth
    && r.bottom > 0 && r.top < innerHeight;
})"""


def _in_view(page, selector: str) -> bool:
    """¿Hay un elemento visible de ``selector`` dentro de la ventana?"""
    return page.evaluate(_IN_VIEW_JS, selector)


def _settles(page, selector: str, shown: bool) -> bool:
    """¿Acaba ``selector`` dentro (``shown``) o fuera de la ventana? Se espera a que
    termine la animación que abre o cierra un panel, sin pausa fija."""
    try:
        page.wait_for_function(
            f"(sel) => ({_IN_VIEW_JS})(sel) === {'true' if shown else 'false'}",
            arg=selector, timeout=STATE_TIMEOUT,
        )
    except PlaywrightTimeout:
        return False
    return True


NEXT_LINK = f"a.reference[href$='{Path(NEXT_CHAPTER).name}']"
PRIMARY_LINKS = (
    f"#pst-primary-sidebar-modal {NEXT_LINK}, #pst-primary-sidebar {NEXT_LINK}"
)


@pytest.mark.parametrize("view", NAV_VIEWS)
def test_course_index_opens_closes_and_reaches_another_chapter(view, tab, site_url):
    rec, page = _open_chapter(tab, site_url, view)
    toggle = page.locator("button.primary-toggle:visible")
    assert toggle.count() == 1, f"{view}: botones ☰ visibles: {toggle.count()}"
    assert "índice del curso" in (toggle.get_attribute("aria-label") or "")
    wide = page.viewport_size["width"] >= 992
    if wide:
        # En un portátil el índice está a la vista; ☰ lo pliega y lo despliega.
        assert _in_view(page, PRIMARY_LINKS), f"{view}: el índice no se ve"
        toggle.click()
        assert _settles(page, PRIMARY_LINKS, False), (
            f"{view}: ☰ no pliega el índice")
        toggle.click()
    else:
        assert not _in_view(page, PRIMARY_LINKS), f"{view}: abierto al cargar"
        toggle.click()
        assert _settles(page, PRIMARY_LINKS, True), (
            f"{view}: ☰ no abre el índice")
        page.keyboard.press("Escape")
        assert _settles(page, PRIMARY_LINKS, False), (
            f"{view}: Esc no cierra el índice")
        toggle.click()
    assert _settles(page, PRIMARY_LINKS, True), (
        f"{view}: ☰ no vuelve a abrir el índice")
    link = page.locator(PRIMARY_LINKS).filter(visible=True).first
    _follow(page, link)
    assert urlparse(page.url).path.endswith(NEXT_CHAPTER), page.url
    assert not rec.console_errors, rec.console_errors


SECONDARY = "#pst-secondary-sidebar-modal nav.page-toc a, #pst-secondary-sidebar nav a"


@pytest.mark.parametrize("view", NAV_VIEWS)
def test_page_contents_open_close_and_reach_a_section(view, tab, site_url):
    rec, page = _open_chapter(tab, site_url, view)
    width = page.viewport_size["width"]
    toggle = page.locator("button.secondary-toggle:visible")
    if width >= 1200:
        # En un portátil el índice de la página ya está a la derecha.
        assert toggle.count() == 0
        assert _in_view(page, SECONDARY), f"{view}: no se ve el índice de la página"
    else:
        assert toggle.count() == 1, f"{view}: botones ☷ visibles: {toggle.count()}"
        assert "índice de la página" in (toggle.get_attribute("aria-label") or "")
        assert not _in_view(page, SECONDARY), f"{view}: abierto al cargar"
        toggle.click()
        assert _settles(page, SECONDARY, True), (
            f"{view}: ☷ no abre el índice")
        page.keyboard.press("Escape")
        assert _settles(page, SECONDARY, False), f"{view}: Esc no cierra el índice"
        toggle.click()
        assert _settles(page, SECONDARY, True), (
            f"{view}: ☷ no vuelve a abrirse")
    links = page.locator(SECONDARY).filter(visible=True)
    assert links.count() >= 3, f"{view}: {links.count()} secciones en el índice"
    link = links.nth(2)
    target = (link.get_attribute("href") or "").split("#")[-1]
    assert target, link.get_attribute("href")
    link.click()
    half = page.viewport_size["height"] / 2
    try:
        page.wait_for_function(
            "([id, half]) => { const t = document.getElementById(id)"
            ".getBoundingClientRect().top; return t >= 0 && t < half; }",
            arg=[target, half], timeout=STATE_TIMEOUT,
        )
    except PlaywrightTimeout:
        pass
    top = page.evaluate(
        "(id) => document.getElementById(id).getBoundingClientRect().top", target
    )
    assert 0 <= top < half, f"{view}: #{target}: {top}"
    assert _settles(page, "#pst-secondary-sidebar-modal[open] nav.page-toc a",
                    False), f"{view}: el índice de la página sigue abierto"
    # Y desde la sección, el índice del curso lleva a otro capítulo.
    if width < 992:
        page.locator("button.primary-toggle:visible").click()
        assert _settles(page, PRIMARY_LINKS, True), (
            f"{view}: ☰ no abre el índice")
    _follow(page, page.locator(PRIMARY_LINKS).filter(visible=True).first)
    assert urlparse(page.url).path.endswith(NEXT_CHAPTER), page.url
    assert not rec.console_errors, rec.console_errors


# --- Llegar a un título: debajo de la cabecera fija, con el foco en él --------------

#: Dónde queda el título de ``id`` respecto a lo que está fijo arriba (la cabecera de
#: los botones), y qué tiene el foco.
LANDING_JS = """(id) => {
  const target = document.getElementById(id);
  const heading = target.matches("section") ?
    (target.querySelector("h1, h2, h3, h4, h5, h6") || target) : target;
  const fixed = [...document.querySelectorAll("body *")].filter((e) => {
    const p = getComputedStyle(e).position;
    if (p !== "sticky" && p !== "fixed" || !e.checkVisibility()) return false;
    const r = e.getBoundingClientRect();
    return r.top <= 0 && r.bottom > 0 && r.bottom < innerHeight / 2 &&
      r.width > innerWidth / 2;
  });
  const a = document.activeElement;
  return {
    top: heading.getBoundingClientRect().top,
    header: Math.max(0, ...fixed.map((e) => e.getBoundingClientRect().bottom)),
    focus: a === heading || target.contains(a),
    active: a.tagName + (a.id ? "#" + a.id : ""),
  };
}"""


def _settle_scroll(page) -> None:
    page.wait_for_function(
        """() => new Promise((r) => { let last = scrollY, still = 0;
          const tick = () => { still = scrollY === last ? still + 1 : 0; last = scrollY;
            if (still > 5) r(true); else requestAnimationFrame(tick); }; tick(); })""",
        timeout=STATE_TIMEOUT,
    )


def _assert_lands(page, target: str, view: str, how: str, focus: bool) -> None:
    _settle_scroll(page)
    seen = page.evaluate(LANDING_JS, target)
    half = page.viewport_size["height"] / 2
    assert seen["header"] <= seen["top"] < half, (
        f"{view}, {how}: #{target} queda en {seen['top']:.0f} px, la cabecera fija "
        f"acaba en {seen['header']:.0f} px")
    if focus:
        assert seen["focus"], f"{view}, {how}: el foco está en {seen['active']}"


@pytest.mark.parametrize("view", NAV_VIEWS)
def test_a_link_lands_with_its_heading_below_the_sticky_header(view, tab, site_url):
    """Desde el índice de la página, una referencia cruzada y un enlace con #ancla
    (como el de un resultado de búsqueda), el título queda entero debajo de la cabecera
    fija, y el foco, en él (no en <body>)."""
    rec, page = _open_chapter(tab, site_url, view)
    # 1. El índice de la página (☷ en un teléfono o una tableta).
    toggle = page.locator("button.secondary-toggle:visible")
    if toggle.count():
        toggle.click()
        assert _settles(page, SECONDARY, True)
    link = page.locator(SECONDARY).filter(visible=True).nth(4)
    target = (link.get_attribute("href") or "").split("#")[-1]
    link.click()
    _assert_lands(page, target, view, "índice de la página", focus=True)
    # 2. Una referencia cruzada dentro del capítulo (a una sección, figura o
    #    ejercicio).
    ref = page.locator(".bd-article a.reference.internal[href^='#']").filter(
        visible=True).last
    target = (ref.get_attribute("href") or "").lstrip("#")
    ref.scroll_into_view_if_needed()
    ref.click()
    _assert_lands(page, target, view, f"referencia a #{target}", focus=True)
    # 3. Llegar de fuera con #ancla, como desde la búsqueda.
    ids = page.evaluate("[...document.querySelectorAll('.bd-article section[id]')]"
                        ".map((s) => s.id)")
    target = ids[len(ids) // 2]
    page.goto(f"{site_url}/{CHAPTER}#{target}", wait_until="load",
              timeout=LOAD_TIMEOUT)
    _assert_lands(page, target, view, "carga con #ancla", focus=False)
    assert not rec.console_errors, rec.console_errors


@pytest.mark.parametrize("view", NAV_VIEWS)
def test_a_link_to_a_figure_deep_in_a_chapter_lands_below_the_header(view, browser,
                                                                     site_url):
    """Como lo abre un lector (desplazamiento suave, sin «reducir el movimiento»): el
    navegador calcula el destino al cargar y los scripts diferidos llegan después; si
    entonces algo de más arriba cambia de alto (las cajas que se desplazan de lado
    cambiaban de relleno y de barra), la figura acababa bajo la cabecera."""
    viewport, scheme = view.split("-")
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(viewport={"width": width, "height": height},
                                  color_scheme=SCHEMES[scheme])
    try:
        page = context.new_page()
        target = "fig-09-entrenamiento"
        page.goto(f"{site_url}/notebooks/09_profundidad.html#{target}",
                  wait_until="load", timeout=LOAD_TIMEOUT)
        page.evaluate("document.fonts.ready")
        _assert_lands(page, target, view, "carga con #figura", focus=False)
    finally:
        context.close()


_ACTIVE_JS = """() => { const a = document.activeElement;
  return [a.tagName, a.className || "", a.getAttribute("aria-label") || "",
          !!a.closest("dialog[open]")]; }"""


@pytest.mark.parametrize("view", NAV_VIEWS)
def test_focus_goes_back_to_the_toggle_when_an_index_closes(view, tab, site_url):
    """☰ y ☷ abren su índice con el foco dentro; al cerrarlo (Esc, un toque fuera o ☰
    otra vez en un portátil) el foco vuelve al botón, no a <body>."""
    rec, page = _open_chapter(tab, site_url, view)
    width = page.viewport_size["width"]
    for selector, opens_dialog in (("button.primary-toggle", width < 992),
                                   ("button.secondary-toggle", width < 1200)):
        toggle = page.locator(f"{selector}:visible")
        if not toggle.count():
            continue
        toggle.focus()
        page.keyboard.press("Enter")
        if opens_dialog:
            page.wait_for_function(
                "() => !!document.querySelector('dialog[open]')", timeout=STATE_TIMEOUT)
            active = page.evaluate(_ACTIVE_JS)
            assert active[3], f"{view}, {selector}: el foco no entra: {active}"
            page.keyboard.press("Escape")
            page.wait_for_function(
                "() => !document.querySelector('dialog[open]')", timeout=STATE_TIMEOUT)
        page.wait_for_timeout(200)
        active = page.evaluate(_ACTIVE_JS)
        assert selector.split(".")[-1] in active[1], (
            f"{view}, {selector}: tras cerrar, el foco está en {active}")
        if opens_dialog:  # y cerrando con un toque fuera del índice
            toggle.click()
            page.wait_for_function(
                "() => !!document.querySelector('dialog[open]')", timeout=STATE_TIMEOUT)
            # Fuera del índice (a la izquierda o a la derecha, según dónde se abre).
            left = page.evaluate(
                "() => document.querySelector('dialog[open]')"
                ".getBoundingClientRect().left")
            page.mouse.click(4 if left > 40 else width - 4,
                             page.viewport_size["height"] - 4)
            page.wait_for_function(
                "() => !document.querySelector('dialog[open]')", timeout=STATE_TIMEOUT)
            page.wait_for_timeout(200)
            active = page.evaluate(_ACTIVE_JS)
            assert selector.split(".")[-1] in active[1], (
                f"{view}, {selector}: tras un toque fuera, el foco está en {active}")
        elif page.evaluate("() => document.querySelector('.bd-sidebar-primary')"
                           " && !document.querySelector('.bd-sidebar-primary')"
                           ".checkVisibility()"):
            toggle.click()  # ☰ en un portátil: vuelve a desplegar el índice
    assert not rec.console_errors, rec.console_errors


# --- Cada figura se abre en grande ---------------------------------------------------


@pytest.mark.parametrize("view", NAV_VIEWS)
def test_a_tap_opens_a_figure_full_width_with_its_caption(view, tab, site_url):
    """Un toque en una figura abre un cuadro con la figura a todo el ancho (o a 64rem)
    y su pie; Esc lo cierra y el foco vuelve a su botón «Ampliar». Con el teclado, el
    botón lo abre igual."""
    rec, page = _open_chapter(tab, site_url, view)
    figures = page.locator(".bd-article figure:has(img)")
    assert figures.count() >= 2
    figure = figures.nth(1)
    figure.scroll_into_view_if_needed()
    caption = figure.locator("figcaption").evaluate(
        "(c) => { const x = c.cloneNode(true);"
        " x.querySelectorAll('.headerlink, .curso-ampliar')"
        ".forEach((e) => e.remove());"
        " document.body.append(x); const t = x.innerText; x.remove(); return t; }")
    figure.locator("img").click()
    dialog = page.locator("dialog.curso-figura-dialogo[open]")
    dialog.wait_for(state="visible", timeout=STATE_TIMEOUT)
    width = page.viewport_size["width"]
    shown = dialog.locator("img").bounding_box()["width"]
    assert shown >= min(width, 1024) * 0.9, f"{view}: la figura mide {shown:.0f} px"
    said = dialog.locator(".curso-figura-dialogo__pie").inner_text()
    assert " ".join(said.split()) == " ".join(caption.split()), (said, caption)
    assert said.startswith("Figura 4."), said
    assert page.evaluate(_ACTIVE_JS)[3], "el foco no está en el cuadro"
    assert dialog.get_attribute("aria-labelledby")
    page.keyboard.press("Escape")
    page.wait_for_function(
        "() => !document.querySelector('dialog.curso-figura-dialogo[open]')",
        timeout=STATE_TIMEOUT)
    active = page.evaluate(_ACTIVE_JS)
    assert "curso-ampliar" in active[1], active
    assert active[2].startswith("Ampliar la figura 4."), active
    # Con el teclado: Enter en el botón lo abre; «Cerrar» lo cierra.
    page.keyboard.press("Enter")
    dialog.wait_for(state="visible", timeout=STATE_TIMEOUT)
    page.keyboard.press("Enter")  # el foco está en «Cerrar»
    page.wait_for_function(
        "() => !document.querySelector('dialog.curso-figura-dialogo[open]')",
        timeout=STATE_TIMEOUT)
    assert "curso-ampliar" in page.evaluate(_ACTIVE_JS)[1]
    assert not rec.console_errors, rec.console_errors


# --- Código en vivo sin red ---------------------------------------------------------


@pytest.mark.parametrize("view", ["telefono-claro", "portatil-oscuro"])
def test_live_code_without_binder_says_why_in_spanish(view, tab, site_url):
    rec, page = _open_chapter(tab, site_url, view)
    more = page.locator(".dropdown-mas-opciones .dropdown-toggle")
    if more.is_visible():
        # En el teléfono, «Código en vivo» está en el menú «Más opciones».
        more.click()
        page.locator(".dropdown-mas-opciones .dropdown-menu").get_by_text(
            "Código en vivo", exact=True).click()
    else:
        page.locator(".dropdown-launch-buttons button.dropdown-toggle").click()
        page.locator(".dropdown-launch-buttons .btn-launch-thebe").click()
    notice = page.locator("#curso-codigo-en-vivo")
    notice.wait_for(state="visible", timeout=STATE_TIMEOUT)
    page.wait_for_function(
        "() => /No se puede conectar/.test("
        "document.getElementById('curso-codigo-en-vivo').innerText)",
        timeout=STATE_TIMEOUT,
    )
    text = notice.inner_text()
    assert "mybinder.org" in text and "conexión" in text, text
    assert "descarga el notebook" in text, text
    assert notice.is_visible() and notice.bounding_box()["width"] > 200
    body = page.locator("body").inner_text()
    assert "CDN" not in body and "Loading" not in body and "Launching" not in body
    # Nada fuera de 127.0.0.1 salvo la comprobación del BinderHub (abortada aquí).
    assert all("mybinder.org" in u for u in rec.external), rec.external
    assert not any("unpkg" in u or "cdn" in u for u in rec.external)
    errors = [e for e in rec.console_errors if "Failed to load resource" not in e]
    assert not errors, errors


# --- Búsqueda: resúmenes que se leen ------------------------------------------------


@dataclass
class Search:
    hits: list[tuple[str, str]]  # (página, resumen) de cada resultado, en orden
    summary: str
    highlighted: list[str]
    console_errors: list[str]

    @property
    def pages(self) -> list[str]:
        return [rel for rel, _ in self.hits]


def _search(rec: PageRecorder, site_url: str, query: str) -> Search:
    page = rec.next_visit()
    page.goto(f"{site_url}/search.html?q={query}", wait_until="load")
    page.wait_for_function(
        "() => { const s = document.querySelector('#search-results p.search-summary');"
        " return s && s.innerText.trim().length > 0 &&"
        " !/Preparando|Buscando/.test(s.innerText); }",
        timeout=LOAD_TIMEOUT,
    )
    page.wait_for_function(
        "() => [...document.querySelectorAll('#search-results li')]"
        ".every((li) => li.querySelector('p.context'))",
        timeout=LOAD_TIMEOUT,
    )
    hits = [
        (urlparse(li.locator("a").first.get_attribute("href") or "").path.lstrip("/"),
         li.locator("p.context").inner_text())
        for li in page.locator("#search-results li").all()
    ]
    return Search(
        hits,
        page.locator("#search-results p.search-summary").inner_text(),
        page.locator("#search-results p.context .highlighted").all_inner_texts(),
        list(rec.console_errors),
    )


@pytest.fixture(scope="module")
def search(tab, site_url):
    """Cada búsqueda, hecha una vez en la página de búsqueda del portátil."""
    cache: dict[str, Search] = {}

    def get(query: str) -> Search:
        if query not in cache:
            cache[query] = _search(tab("portatil-claro"), site_url, query)
        return cache[query]

    return get


RESIDUAL_CHAPTER = "notebooks/02_conexion_residual.html"


@pytest.mark.parametrize(
    "query, chapter",
    [
        ("normalización", CHAPTER),
        ("normalizacion", CHAPTER),
        ("Normalización", CHAPTER),
        # Sin tilde, otra raíz (geometri, no geometr): la encuentra la palabra entera
        # sin tildes que indexa curso_sitio.SpanishSearch.
        ("geometría", CHAPTER),
        ("geometria", CHAPTER),
        ("residual", RESIDUAL_CHAPTER),
        ("residuales", RESIDUAL_CHAPTER),
    ],
)
def test_search_finds_the_chapter_with_or_without_accents(query, chapter, search):
    found = search(query)
    assert chapter in found.pages, (
        f"«{query}» no encuentra {chapter}; encontró {found.pages}")
    assert not ENGLISH_UI.search(found.summary), (
        f"resumen de la búsqueda en inglés: {found.summary}")
    assert not found.console_errors, found.console_errors


RAW_TEX = re.compile(r"\\[()\[\]]|\\[a-zA-Z]+|\$")
BUTTON_LABELS = re.compile(r"^(?:…|\.\.\.)?\s*(?:Binder|Colab|JupyterHub|\.ipynb|\.md|"
                           r"\.pdf|Código en vivo|Mostrar el código)\b")


@pytest.mark.parametrize("query", ["normalizacion", "normalización", "varianza", "d-1"])
def test_search_snippets_read_as_text(query, search):
    found = search(query)
    assert found.hits, query
    for rel, snippet in found.hits:
        assert not RAW_TEX.search(snippet), f"«{query}», {rel}: TeX: {snippet}"
        assert not BUTTON_LABELS.search(snippet), f"«{query}», {rel}: {snippet}"
        assert len(snippet) > 20, f"«{query}», {rel}: {snippet!r}"
    assert not found.console_errors, found.console_errors


KATEX_DEBRIS = re.compile(r"[\u200b\u2061-\u2063]|[μσ]=|\bd1\b|∑i")


@pytest.mark.parametrize("query", ["media", "varianza", "gamma", "normalizacion"])
def test_search_snippets_read_formulas_not_katex_debris(query, search):
    """Las fórmulas de un resumen se leen como texto («μ = (1)/(d) Σ xᵢ»), no como el
    HTML de KaTeX («μ=d1​∑i​xi​», con espacios de ancho cero)."""
    found = search(query)
    assert found.hits, query
    for rel, snippet in found.hits:
        assert not KATEX_DEBRIS.search(snippet), f"«{query}», {rel}: {snippet!r}"
    assert not found.console_errors, found.console_errors


def test_gamma_finds_the_chapter_on_gamma_and_beta_first(search):
    """«gamma» lleva primero al glosario y al capítulo 5 («γ y β»), por delante del
    resumen (capítulo 11), que solo la menciona."""
    pages = search("gamma").pages
    chapters = [rel for rel in pages if rel.startswith("notebooks/")]
    assert chapters and chapters[0] == NEXT_CHAPTER, pages[:6]
    assert "notebooks/11_resumen.html" not in pages[: pages.index(NEXT_CHAPTER)]


def test_search_without_accent_finds_what_the_accented_word_finds(search):
    plain, accented = search("normalizacion"), search("normalización")
    # Los mismos capítulos arriba (el glosario, además, empareja el término
    # exacto «normalización de capa» solo con tilde).
    chapters = [[r for r in found.pages if r.startswith("notebooks/")][:3]
                for found in (plain, accented)]
    assert chapters[0] == chapters[1], (plain.pages[:5], accented.pages[:5])
    assert CHAPTER in plain.pages[:3], plain.pages[:5]
    # El resumen muestra la palabra con su tilde, resaltada.
    marked = plain.highlighted
    assert any(m.lower().startswith("normaliz") for m in marked), marked


# --- Lo pequeño: descripción, estadísticas, índice alfabético, soluciones -----------


SPANISH_HINT = re.compile(r"\b(?:el|la|los|las|de|del|en|con|y|que|un|una)\b")


@pytest.mark.parametrize("rel", PAGES)
def test_every_page_has_a_spanish_meta_description(rel):
    metas = built_soup(rel).select('meta[name="description"]')
    assert len(metas) == 1, f"{rel}: {len(metas)} descripciones"
    text = metas[0]["content"]
    assert 50 <= len(text) <= 170, f"{rel}: {len(text)} caracteres: {text}"
    assert SPANISH_HINT.search(text), f"{rel}: {text}"
    assert not re.search(r"[\\$]|\{|\}", text), f"{rel}: {text}"
    # Lo que el capítulo cuenta, no la línea del tiempo de lectura que va delante.
    assert not text.startswith("Tiempo:"), f"{rel}: {text}"


@pytest.mark.parametrize("rel", PAGES)
def test_every_page_names_an_icon_that_exists(rel):
    """Con su icono declarado, el navegador no pide /favicon.ico (un 404 en la
    consola; en la redirección de index.html, Lighthouse lo veía a veces)."""
    icons = built_soup(rel).select('link[rel="icon"]')
    assert len(icons) == 1, f"{rel}: {len(icons)} iconos"
    assert (BUILD_HTML / rel).parent.joinpath(icons[0]["href"]).resolve().is_file()


def test_execution_statistics_are_built_but_not_in_the_learner_navigation():
    assert (BUILD_HTML / "book" / "estadisticas.html").is_file()
    for rel in (CHAPTER, "book/intro.html", "book/glosario.html"):
        nav = built_soup(rel).select_one("#pst-primary-sidebar, .bd-sidebar-primary")
        assert nav is not None, rel
        links = [a.get("href", "") for a in nav.select("a")]
        assert not any("estadisticas" in h for h in links), f"{rel}: {links}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "estadisticas.html" in readme


def test_index_letter_bar_does_not_mix_greek_with_latin_letters():
    import unicodedata

    soup = built_soup("genindex.html")
    letters = [a.get_text(strip=True) for a in soup.select(".genindex-jumpbox a")]
    assert letters, "sin barra de letras"
    greek = [x for x in letters if any("GREEK" in unicodedata.name(c, "") for c in x)]
    assert not greek, letters
    assert all(len(x) == 1 or x == "Símbolos" for x in letters), letters
    assert letters == sorted(letters, key=lambda x: (x != "Símbolos", x)), letters


def test_solution_title_opens_the_solution(tab, site_url):
    rec, page = _open_chapter(tab, site_url, "telefono-claro")
    title = page.locator(".solution.dropdown > .admonition-title").first
    assert title.locator("a").count() == 0, "el título de la solución es un enlace"
    body = page.locator(".solution.dropdown #solution-content").first
    assert not body.is_visible()
    before = page.url
    title.scroll_into_view_if_needed()
    title.click()
    try:
        body.wait_for(state="visible", timeout=STATE_TIMEOUT)
    except PlaywrightTimeout:
        pytest.fail("la solución no se abre")
    assert page.url == before
    assert not rec.console_errors, rec.console_errors


SCRIPTS_JS = """() => ({
  bootstrap: typeof window.bootstrap,
  copy: document.querySelectorAll("button.copybtn").length,
  code: document.querySelectorAll("div.highlight pre").length,
})"""


def test_menu_search_and_copy_scripts_load_deferred_and_work(tab, site_url):
    """Los scripts del menú, el buscador y «Copiar» se cargan con «defer»
    (book/_ext/tema_ligero.py) y funcionan: Bootstrap está y cada bloque de código
    tiene su botón de copiar."""
    rec, page = _open_chapter(tab, site_url, "telefono-claro")
    seen = page.evaluate(SCRIPTS_JS)
    assert seen["bootstrap"] == "object", seen
    assert seen["code"] > 0 and seen["copy"] == seen["code"], seen
    assert not rec.console_errors, rec.console_errors


@pytest.mark.parametrize("system, chosen, drawn", [
    ("dark", None, "dark"), ("light", None, "light"),
    ("dark", "light", "light"), ("light", "dark", "dark"),
], ids=["sistema-oscuro", "sistema-claro", "eligio-claro", "eligio-oscuro"])
def test_the_page_is_drawn_in_the_readers_theme_before_the_theme_script(
    system, chosen, drawn, browser, site_url
):
    """El tema (data-theme) con que se dibuja la página sale de <head>
    (book/_templates/layout.html), antes de que llegue pydata-sphinx-theme.js: el que
    eligió el lector o, si no eligió, el de su sistema. Sin eso, en un sistema oscuro
    la página se dibujaba en claro y cambiaba después."""
    context = browser.new_context(color_scheme=system)
    try:
        if chosen:
            context.add_init_script(f"localStorage.setItem('mode', '{chosen}')")
        # Sin el script del tema: lo que se ve es lo que pone <head>.
        context.route("**/pydata-sphinx-theme.js*", lambda route: route.abort())
        page = context.new_page()
        page.goto(f"{site_url}/book/intro.html", wait_until="load",
                  timeout=LOAD_TIMEOUT)
        seen = page.evaluate("""() => {
          const rgb = getComputedStyle(document.body).backgroundColor
            .match(/\\d+/g).slice(0, 3).map(Number);
          return {theme: document.documentElement.dataset.theme,
                  light: rgb.reduce((a, b) => a + b, 0) / 3 > 128};
        }""")
        assert seen == {"theme": drawn, "light": drawn == "light"}, seen
    finally:
        context.close()


SEARCH_FIELD_JS = """(sel) => [...document.querySelectorAll(sel)]
  .filter((i) => i.checkVisibility())
  .map((input) => {
    const icon = input.closest('.bd-search').querySelector('.fa-magnifying-glass');
    const r = input.getBoundingClientRect();
    const textStart = r.left + parseFloat(getComputedStyle(input).paddingLeft);
    return {textStart, iconRight: icon ? icon.getBoundingClientRect().right : -1};
  })"""


@pytest.mark.parametrize("view", ["telefono-claro", "portatil-oscuro"])
def test_one_search_box_and_its_magnifier_does_not_cover_the_text(view, tab,
                                                                   site_url):
    rec, page = _open_chapter(tab, site_url, view)
    assert page.locator(".bd-header:visible input, .bd-header:visible button"
                        ).count() == 0, "cabecera del tema con controles"
    button = ".search-button:visible, .search-button-field:visible"
    page.locator(button).first.click()
    page.locator("#pst-search-dialog input").first.wait_for(state="visible")
    fields = page.evaluate(SEARCH_FIELD_JS, "#pst-search-dialog input")
    assert len(fields) == 1, fields
    page.goto(f"{site_url}/search.html?q=capa", wait_until="load")
    fields += page.evaluate(SEARCH_FIELD_JS, "input[type=search], input[name=q]")
    assert len(fields) == 2, f"{view}: campos de búsqueda visibles: {fields}"
    # En la página de búsqueda, un solo buscador: ni el del índice ni la lupa.
    assert page.locator(".search-button__button:visible").count() == 0
    for box in fields:
        assert box["textStart"] >= box["iconRight"] + 2, box


# --- Las extensiones del libro viven con el libro -----------------------------------


def test_site_extensions_live_with_the_book_not_in_resnorm():
    import runpy

    conf = runpy.run_path(str(ROOT / "conf.py"))
    assert not [e for e in conf["extensions"] if e.startswith("resnorm")]
    for name in ("curso_sitio", "curso_estadisticas"):
        assert (ROOT / "book" / "_ext" / f"{name}.py").is_file()
        assert name in conf["extensions"]
    assert not list((ROOT / "resnorm").rglob("*.po"))
    for path in (ROOT / "resnorm").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import) (sphinx|docutils|babel|fontTools)\b",
                             text, re.M), path


# --- El camino del que aprende (issue 50) ------------------------------------------

LANDING = "book/intro.html"
FIRST_CHAPTER = "notebooks/01_problema_apilar.html"


def test_the_landing_starts_with_one_link_to_chapter_1_and_the_short_path():
    """Bajo el título, antes de la figura: «Empieza por el capítulo 1» y el camino
    corto; la tabla de progreso, debajo de la lista de capítulos."""
    main = built_soup(LANDING).select_one("main")
    start = [a for a in main.select("a") if "Empieza por el capítulo 1" in a.get_text()]
    assert len(start) == 1, [a.get_text() for a in start]
    assert start[0]["href"].split("#")[0].endswith(FIRST_CHAPTER.split("/")[1])
    elements = main.find_all(True)
    tests = {
        "start": lambda e: e is start[0],
        "figure": lambda e: e.name == "figure",
        "path": lambda e: e.name == "a" and e.get("href", "").endswith("#camino-corto"),
        "chapters": lambda e: e.name == "table",
        "progress": lambda e: e.get("id") == "rn-progreso-curso",
    }
    where = {name: next(i for i, e in enumerate(elements) if test(e))
             for name, test in tests.items()}
    assert where["start"] < where["figure"] and where["path"] < where["figure"], where
    assert where["chapters"] < where["progress"], where


@pytest.mark.parametrize("view", ["telefono-claro", "portatil-claro"])
def test_the_start_link_is_on_the_first_screen(view, tab, site_url):
    page = tab(view).next_visit()
    page.goto(f"{site_url}/{LANDING}", wait_until="load")
    link = page.get_by_role("link", name="Empieza por el capítulo 1")
    box = link.bounding_box()
    height = page.viewport_size["height"]
    assert box and box["y"] + box["height"] <= height, (view, box, height)
    link.click()
    page.wait_for_url(f"**/{FIRST_CHAPTER}")


def _short_path() -> list[tuple[str, str]]:
    """(página, ancla) de cada sección del camino corto, como la lista la portada."""
    links = built_soup(LANDING).select("ul:has(+ p.tiempo-camino) > li a")
    out = []
    for a in links:
        page, _, anchor = a["href"].partition("#")
        out.append(((Path("book") / page).as_posix(), anchor))
    return out


def _resolve(rel_from: str, href: str) -> tuple[str, str]:
    page, _, anchor = href.partition("#")
    target = (Path(rel_from).parent / page).as_posix() if page else rel_from
    return os.path.normpath(target), anchor


def test_each_section_of_the_short_path_ends_with_a_link_to_the_next():
    steps = [(os.path.normpath(p), a) for p, a in _short_path()]
    assert len(steps) >= 4, steps
    for k, (rel, anchor) in enumerate(steps):
        section = built_soup(rel).select_one(f'section[id="{anchor}"]')
        assert section is not None, (rel, anchor)
        last = section.find_all("p", class_="tiempo-camino-siguiente", recursive=False)
        assert len(last) == 1, (rel, anchor)
        assert last[0] is section.find_all(recursive=False)[-1], (rel, anchor)
        link = last[0].select_one("a")
        expected = steps[k + 1] if k + 1 < len(steps) else (LANDING, "")
        assert _resolve(rel, link["href"]) == expected, (rel, anchor, link["href"])


# --- Búsqueda: sin cifras de la construcción ni la página de estadísticas -----------

BUILD_COUNTS = re.compile(r"\bpalabras?\b.*\blíneas? de (?:código|salida)\b|"
                          r"\blíneas? de código\b")


@pytest.mark.parametrize("rel", [p for p in PAGES if p.startswith("notebooks/")])
def test_the_reading_time_line_holds_no_build_counts(rel):
    line = built_soup(rel).select_one("p.tiempo-lectura")
    assert line is not None, rel
    assert not BUILD_COUNTS.search(line.get_text()), f"{rel}: {line.get_text()}"


def test_the_statistics_page_is_not_in_the_search_index():
    import json

    text = (BUILD_HTML / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1:text.rindex(")")])
    doc = index["docnames"].index("book/estadisticas")
    assert index["titles"][doc] == "", index["titles"][doc]

    def docs(entry):
        return entry if isinstance(entry, list) else [entry]

    for kind in ("terms", "titleterms"):
        found = [t for t, where in index[kind].items() if doc in docs(where)]
        assert not found, f"{kind}: {found[:5]}"


@pytest.mark.parametrize("query", ["Pre-LN", "γ", "estadísticas"])
def test_search_snippets_are_the_readers_text_and_skip_the_statistics_page(
        query, search):
    found = search(query)
    assert "book/estadisticas.html" not in found.pages, found.pages
    for rel, snippet in found.hits:
        assert not BUILD_COUNTS.search(snippet), f"«{query}», {rel}: {snippet}"
    assert not found.console_errors, found.console_errors


# --- 320 px: nada recortado en los widgets --------------------------------------------

CLIPPED_JS = r"""
() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const root of document.querySelectorAll("section.rn-widget")) {
    const rootBox = root.getBoundingClientRect();
    if (root.scrollWidth > root.clientWidth + 1)
      out.push(`${root.className}: ${root.scrollWidth} > ${root.clientWidth}`);
    for (const el of root.querySelectorAll("*")) {
      const box = el.getBoundingClientRect();
      if (!box.width || getComputedStyle(el).visibility === "hidden") continue;
      if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
      // Lo que se desplaza dentro de su propia caja (una tabla ancha) no se recorta:
      // se mide la caja.
      let scroller = el.parentElement;
      while (scroller && scroller !== root &&
             !/auto|scroll/.test(getComputedStyle(scroller).overflowX))
        scroller = scroller.parentElement;
      if (scroller && scroller !== root) continue;
      if (box.left < Math.max(0, rootBox.left) - 1 ||
          box.right > Math.min(width, rootBox.right) + 1)
        out.push(`${el.tagName.toLowerCase()}.${el.className}: ` +
                 `${Math.round(box.left)}–${Math.round(box.right)} de ${width}`);
    }
  }
  return out;
}
"""


@pytest.mark.parametrize("rel", [p for p in WIDGET_PAGES if p.startswith("notebooks/")])
def test_nothing_in_a_widget_is_clipped_on_a_320_px_phone(rel, narrow):
    """WCAG 1.4.10 (reflujo): a 320 px, cada control y cada tarjeta de un widget
    cabe en el widget y en la ventana (las tarjetas del GPT medían 19rem; los
    desplegables del explorador de LayerNorm, 337 y 387 px)."""
    seen = narrow(rel)
    assert seen.widgets, rel
    assert not seen.clipped, f"{rel} a 320 px: {seen.clipped[:8]}"
