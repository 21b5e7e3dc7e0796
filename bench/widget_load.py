"""Cuándo aparece el primer widget de cada página y si empuja el texto al aparecer.

Cada página con widgets se carga a tres tamaños (portátil, tableta, teléfono) como la
abre quien salta al primer widget en cuanto puede (DOMContentLoaded), antes de que
esté dibujado (p. ej. por un enlace). Se anota cuándo llegó DOMContentLoaded, cuándo
se vio el primer widget y el desplazamiento del texto (layout shift de Chromium) desde
el primer fotograma tras el salto (``shifts_seen``). Una
carga por página y tamaño, una tras otra en la misma pestaña, como al seguir los
enlaces del curso (el servidor responde con ``Cache-Control: no-store``: cada página
descarga todo, como la primera vez).

Presupuestos: el widget, visible ≤ 1 s después de DOMContentLoaded; desplazamiento
< 0,05. Dependen de la velocidad de la máquina (en una cargada, el widget tardaba
1,0–3,7 s y el desplazamiento llegó a 0,054), así que viven aquí y no en
«make test»; lo que no depende de ella (la caja reservada mide lo que el widget
dibujado) lo comprueba ``tests/test_site_view.py``.
"""

from __future__ import annotations

from pathlib import Path

BUDGET_MS = 1000.0
VIEW = 'type="application/vnd.jupyter.widget-view+json"'

LOAD_PROBE = """
window.__rn = {dcl: null, widget: undefined, jumped: false};
document.addEventListener("DOMContentLoaded", () => {
  window.__rn.dcl = performance.now();
  // El lector salta al primer widget en cuanto puede (p. ej. con un enlace).
  const box = document.querySelector(".widget-subarea");
  if (box) { box.scrollIntoView({block: "start"}); window.__rn.jumped = true; }
  // El primer fotograma tras el salto es lo primero que ve ahí el lector: desde él se
  // cuentan los desplazamientos (``arrived``).
  requestAnimationFrame(() => requestAnimationFrame(() => {
    window.__rn.arrived = performance.now();
  }));
});
new MutationObserver(() => {
  const w = document.querySelector("section.rn-widget");
  if (!window.__rn.widget && w && w.getBoundingClientRect().height > 0) {
    window.__rn.widget = performance.now();
  }
}).observe(document, {childList: true, subtree: true});
"""


def widget_pages(html_dir: Path, pages: list[str]) -> list[str]:
    """Las páginas de ``pages`` que muestran algún widget."""
    html_dir = Path(html_dir)
    return [p for p in pages if VIEW in (html_dir / p).read_text(encoding="utf-8")]


def jump_to_first_widget(browser, site_url: str, pages: list[str], width: int,
                         height: int) -> list[dict]:
    """Una fila por página: ``delay_ms`` (de DOMContentLoaded al widget visible),
    ``cls`` y ``shifts`` (desplazamiento y su descripción) y ``errors``."""
    from tests.helpers import LAYOUT_SHIFT_PROBE, PageRecorder, layout_shifts

    rows = []
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_init_script(LAYOUT_SHIFT_PROBE + LOAD_PROBE)
    rec = PageRecorder(context)
    try:
        for rel in pages:
            page = rec.next_visit()
            page.goto(f"{site_url}/{rel}", wait_until="load")
            page.wait_for_function("window.__rn.widget !== undefined", timeout=15000)
            # Lo que el widget dibujado aún tarde en crecer (sus gráficos) cuenta.
            layout_shifts(page, settle_ms=200)
            probe = page.evaluate("window.__rn")
            cls, shifts = shifts_seen(page.evaluate("window.__rnShift.shifts"),
                                      probe.get("arrived"))
            rows.append({
                "page": rel, "width": width, "height": height,
                "jumped": probe["jumped"],
                "delay_ms": probe["widget"] - probe["dcl"],
                "cls": cls, "shifts": shifts,
                "errors": rec.console_errors + rec.failed + rec.external,
            })
    finally:
        context.close()
    return rows


def shifts_seen(shifts: list, arrived: float | None) -> tuple[float, str]:
    """El desplazamiento que ve quien salta al widget: el de los fotogramas desde que
    llega (``arrived``). Chromium compara el primer fotograma tras el salto con el
    último de antes, compensando el desplazamiento de la página: lo que la página
    creció más arriba mientras se leía (con el lector aún arriba del todo, sin verlo)
    contaba como un salto de lo que hay alrededor del widget (0,03–0,04 en los caps.
    1 y 2; nada se movía ya en ningún fotograma tras el salto)."""
    seen = [(t, v, n) for t, v, n in shifts if arrived is None or t >= arrived]
    text = ", ".join(f"{v:.3f} en {t} ms ({n})" for t, v, n in seen)
    return sum(v for _, v, _ in seen), text


def within_budget(row: dict) -> bool:
    from tests.helpers import MAX_LAYOUT_SHIFT

    return (row["jumped"] and row["delay_ms"] <= BUDGET_MS
            and row["cls"] < MAX_LAYOUT_SHIFT and not row["errors"])


def bench_widget_load(browser, site_url: str, html_dir: Path, pages: list[str],
                      log=print) -> list[dict]:
    from tests.helpers import VIEWPORTS

    found = widget_pages(html_dir, pages)
    rows = []
    for width, height in reversed(VIEWPORTS.values()):  # del portátil al teléfono
        log(f"  primer widget a {width}×{height}: {len(found)} páginas…")
        for row in jump_to_first_widget(browser, site_url, found, width, height):
            row["ok"] = within_budget(row)
            rows.append(row)
    return rows


def rows_for(results: dict) -> list[tuple[str, str, str, str, str]]:
    """Las filas de la tabla de ``make bench``."""
    out = []
    goal = "≤ 1 s tras DOMContentLoaded; desplazamiento < 0,05"
    for r in results.get("widget_load", []) or []:
        value = f"{r['delay_ms']:.0f} ms, desplazamiento {r['cls']:.3f}"
        if not r["jumped"]:
            value += "; no saltó al widget"
        if r["errors"]:
            value += f"; errores: {'; '.join(r['errors'])[:80]}"
        out.append(("Primer widget", f"{r['page']} a {r['width']} px", value, goal,
                    "✓" if r["ok"] else "✗"))
    return out
