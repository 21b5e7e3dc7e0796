"""Latencia de los widgets en la página estática (sin núcleo), en Chromium headless.

Para cada widget de ``resnorm.widgets`` se busca una página del libro que lo muestre
(el estado guardado nombra su clase en ``_anywidget_id``). Si ninguna lo muestra
todavía, se mide en una página mínima propia que lo monta con el mismo mecanismo que
el libro: el estado guardado y el cargador estático del curso
(``_static/js/widgets-estaticos.js``), desde el sitio construido (sin el tema).

Cada evento es una pulsación real de teclado (Playwright) sobre un control del
widget. En la página, un oyente de ``keydown`` (fase de captura) apunta
``event.timeStamp``, el instante en que el navegador creó el evento, y un
``MutationObserver`` sobre la raíz del widget, cuando el widget cambia el DOM, fuerza
el estilo y la maquetación (``getBoundingClientRect``) y apunta
``performance.now()``. La latencia es la diferencia: entrada del navegador, manejo del
evento, cálculo del widget, DOM actualizado y maquetado; no incluye pintar (eso
ocurre en el siguiente fotograma). Entre un evento y el siguiente se espera a tener su
muestra, para que no se acumulen.

Además se apunta ``performance.now()`` cuando el oyente de captura recibe el evento:
la parte «manejo» (de ahí al DOM maquetado) es el trabajo de la página; lo que va del
``timeStamp`` a ese instante es la espera hasta que el hilo principal del navegador
atiende la tecla, que crece cuando la máquina está cargada.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from bench.gpt import small_playground

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


@dataclass
class Spec:
    """Cómo se manda un evento a un widget: raíz, controles y teclas que se alternan."""

    root: str
    steps: list[tuple[str, str]]
    build: Callable | None = None  # módulo resnorm.widgets → widget (página mínima)
    setup: list[tuple[str, str]] = field(default_factory=list)


#: Datos sintéticos para el explorador de profundidad en la página mínima (la forma
#: de los de ``resnorm.experiments``; aquí solo importa dibujarlos).
DEPTH_DATA = {
    "depths": [2, 4, 8, 16, 32, 64],
    "series": {
        "plain": [1e-2, 1e-4, 1e-8, 1e-16, 1e-30, 0.0],
        "residual": [1.0, 1.2, 1.5, 2.0, 2.9, 4.1],
        "pre_ln": [0.9, 0.8, 0.7, 0.6, 0.5, 0.45],
        "post_ln": [1.1, 1.3, 2.1, 4.0, 8.0, 15.0],
    },
}

SPECS: dict[str, Spec] = {
    "MeanStdCalculator": Spec(
        ".rn-meanstd",
        steps=[("input.rn-input >> nth=0", "5"),
               ("input.rn-input >> nth=0", "Backspace")],
        build=lambda w: w.MeanStdCalculator(),
        setup=[("input.rn-input >> nth=0", "End")],
    ),
    "LayerNormExplorer": Spec(
        ".rn-layernorm",
        steps=[("input[type=range] >> nth=0", "ArrowRight"),
               ("input[type=range] >> nth=0", "ArrowLeft")],
        build=lambda w: w.LayerNormExplorer(),
    ),
    "ResidualSum": Spec(
        ".rn-residual",
        steps=[("input[type=range] >> nth=0", "ArrowLeft"),
               ("input[type=range] >> nth=0", "ArrowRight")],
        build=lambda w: w.ResidualSum(),
    ),
    "BlockStepper": Spec(
        ".rn-stepper",
        steps=[('button:has-text("Siguiente paso")', "Enter"),
               ('button:has-text("Paso anterior")', "Enter")],
        build=lambda w: w.BlockStepper(),
    ),
    "DepthExplorer": Spec(
        ".rn-depth",
        steps=[("input[type=range] >> nth=0", "ArrowLeft"),
               ("input[type=range] >> nth=0", "ArrowRight")],
        build=lambda w: w.DepthExplorer(gradient=DEPTH_DATA),
    ),
    # El modelo elegido cambia con las flechas: se dibujan una o cinco tarjetas.
    "GPTPlayground": Spec(
        ".rn-gpt",
        steps=[("select >> nth=0", "ArrowDown"), ("select >> nth=0", "ArrowUp")],
        build=lambda w: small_playground(),
    ),
}

INSTALL = r"""
(selector) => {
  const root = document.querySelector(selector);
  const bench = { t0: null, tk: null, samples: [], handling: [] };
  window.__bench = bench;
  window.addEventListener("keydown", (e) => {
    bench.t0 = e.timeStamp;      // el navegador crea el evento
    bench.tk = performance.now();  // el JavaScript de la página lo recibe
  }, true);
  new MutationObserver(() => {
    if (bench.t0 === null) return;
    root.getBoundingClientRect();  // fuerza estilo y maquetación
    const now = performance.now();
    bench.samples.push(now - bench.t0);
    bench.handling.push(now - bench.tk);
    bench.t0 = null;
  }).observe(root, { subtree: true, childList: true, characterData: true,
                     attributes: true });
  return true;
}
"""


def widget_classes() -> list[str]:
    """Los widgets de ``resnorm.widgets`` (nombres de clase)."""
    import anywidget

    from resnorm import widgets

    return [
        name for name in widgets.__all__
        if isinstance(getattr(widgets, name), type)
        and issubclass(getattr(widgets, name), anywidget.AnyWidget)
    ]


def widgets_in_site(html_dir: Path, pages: list[str]) -> dict[str, str]:
    """Clase de widget → primera página del libro que la muestra."""
    import re

    found: dict[str, str] = {}
    pattern = re.compile(
        f'<script type="{re.escape(WIDGET_STATE)}">(.*?)</script>', re.S
    )
    for page in pages:
        text = (Path(html_dir) / page).read_text(encoding="utf-8")
        for match in pattern.finditer(text):
            state = json.loads(match.group(1)).get("state", {})
            for model in state.values():
                ident = model.get("state", {}).get("_anywidget_id", "")
                name = ident.rsplit(".", 1)[-1]
                if ident.startswith("resnorm.widgets.") and name not in found:
                    found[name] = page
    return found


MINIMAL_PAGE = """<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>{title}</title>
<script type="application/vnd.jupyter.widget-state+json">{state}</script>
<script src="_static/js/widgets-estaticos.js" defer></script>
</head><body><main>
<div class="cell_output">
<script type="application/vnd.jupyter.widget-view+json">{view}</script>
</div></main></body></html>
"""


def _script_json(data) -> str:
    return json.dumps(data).replace("</", "<\\/")


def minimal_site(html_dir: Path, names: list[str]) -> tuple[Path, dict[str, str]]:
    """Una carpeta temporal con una página mínima por widget y ``_static`` del sitio."""
    from ipywidgets.embed import embed_data

    from resnorm import widgets as w

    tmp = Path(tempfile.mkdtemp(prefix="resnorm-bench-widgets-"))
    (tmp / "_static").symlink_to(Path(html_dir).resolve() / "_static")
    pages = {}
    for name in names:
        spec = SPECS[name]
        widget = spec.build(w)
        data = embed_data(views=[widget], drop_defaults=False)
        page = f"{name}.html"
        (tmp / page).write_text(
            MINIMAL_PAGE.format(
                title=name,
                state=_script_json(data["manager_state"]),
                view=_script_json(data["view_specs"][0]),
            ),
            encoding="utf-8",
        )
        pages[name] = page
        widget.close()
    return tmp, pages


def percentile(values, q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q))


def measure_widget(browser, url: str, spec: Spec, events: int = 120,
                   warmup: int = 10) -> dict:
    """Manda ``warmup + events`` pulsaciones al widget y devuelve sus latencias (ms)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    context = browser.new_context()  # fuera de 127.0.0.1 no resuelve (CHROMIUM_FLAGS)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        tab.goto(url, wait_until="load", timeout=60_000)
        tab.wait_for_load_state("networkidle", timeout=60_000)
        root = tab.locator(spec.root).first
        root.wait_for(state="visible", timeout=60_000)
        root.scroll_into_view_if_needed()
        tab.evaluate(INSTALL, spec.root)
        for selector, key in spec.setup:
            root.locator(selector).press(key)
        wanted = warmup + events
        got = misses = 0
        focused = None
        start = time.perf_counter()
        i = 0
        while got < wanted and misses < 20:
            selector, key = spec.steps[i % len(spec.steps)]
            i += 1
            if selector != focused:
                root.locator(selector).focus()
                focused = selector
            tab.evaluate("window.__bench.t0 = null")
            tab.keyboard.press(key)
            try:
                tab.wait_for_function(
                    "n => window.__bench.samples.length >= n", arg=got + 1,
                    timeout=5_000,
                )
                got += 1
            except PlaywrightTimeout:
                misses += 1
        samples = tab.evaluate("window.__bench.samples")[warmup:]
        handling = tab.evaluate("window.__bench.handling")[warmup:]
        seconds = time.perf_counter() - start
    finally:
        context.close()
    if not samples:
        return {"events": 0, "misses": misses, "errors": errors}
    return {
        "events": len(samples),
        "misses": misses,
        "median_ms": float(np.median(samples)),
        "p95_ms": percentile(samples, 95),
        "max_ms": float(np.max(samples)),
        "mean_ms": float(np.mean(samples)),
        "handling_median_ms": float(np.median(handling)),
        "handling_p95_ms": percentile(handling, 95),
        "samples_ms": [round(s, 3) for s in samples],
        "seconds": seconds,
        "errors": errors,
    }


def bench_widgets(browser, serve, site_url: str, html_dir: Path, pages: list[str],
                  events: int = 120, warmup: int = 10, log=print,
                  force_minimal: bool = False) -> list[dict]:
    """Una fila por widget: dónde se midió, eventos, mediana, p95 y máximo (ms).

    ``serve`` es ``bench.server.serve`` (para la página mínima). Con
    ``force_minimal``, todos se miden en la página mínima.
    """
    names = widget_classes()
    in_book = {} if force_minimal else widgets_in_site(html_dir, pages)
    missing = [n for n in names if n not in in_book and n in SPECS]
    rows = []
    tmp = None
    try:
        minimal_pages = {}
        if missing:
            tmp, minimal_pages = minimal_site(html_dir, missing)
        with serve(tmp) if tmp else _nothing() as minimal_url:
            for name in names:
                spec = SPECS.get(name)
                if spec is None:
                    rows.append({"widget": name, "source": "sin especificación",
                                 "events": 0})
                    continue
                if name in in_book:
                    source = f"libro: {in_book[name]}"
                    url = f"{site_url}/{in_book[name]}"
                else:
                    source = "página mínima"
                    url = f"{minimal_url}/{minimal_pages[name]}"
                log(f"  {name} ({source})…")
                result = measure_widget(browser, url, spec, events, warmup)
                rows.append({"widget": name, "source": source, **result})
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return rows


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False
