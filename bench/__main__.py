"""``python -m bench`` («make bench»): mide lo que depende de la velocidad de la
máquina, escribe ``bench/results.json``, imprime una tabla con el presupuesto de cada
cifra y sale con error (1) si alguna no lo cumple o una sección falla.

Lo que es verdad en cualquier máquina lo comprueba «make test»; lo de aquí no:
Lighthouse en cada página (rendimiento ≥ 90, mediana de 3), el primer widget visible
≤ 1 s después de DOMContentLoaded y sin empujar el texto, la latencia de cada widget,
los cocientes de tiempos del apéndice, la construcción en frío y en caliente (y su CPU),
el peso de cada página, con otras dos semillas, lo que el capítulo 10 lee de los
entrenamientos del GPT (``gpt_seeds``: robustez, no corrección; minutos de CPU) y la
CPU de cada cuaderno del alumno ejecutado entero en un núcleo nuevo (``cuadernos``).

Uso::

    python -m bench                      # todo, con las corridas por defecto
    python -m bench --quick              # menos corridas (para probar el banco)
    python -m bench --sections cost,widgets --html _build/html
    BENCH_LOCK=/tmp/jb.lock python -m bench   # cada construcción toma ese candado

Sin la sección ``build``, las páginas y los widgets se miden sobre ``--html`` (por
defecto ``_build/html``, lo que dejó ``make book``); con ella, sobre el sitio recién
construido en la copia temporal.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
from datetime import datetime
from pathlib import Path

from bench import build as build_mod
from bench import cost as cost_mod
from bench import cuadernos as cuadernos_mod
from bench import gpt as gpt_mod
from bench import gpt_seeds as gpt_seeds_mod
from bench import lighthouse as lighthouse_mod
from bench import pages as pages_mod
from bench import report
from bench import widget_load as widget_load_mod
from bench import widgets as widgets_mod
from bench.server import serve

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ("build", "pages", "widgets", "widget_load", "cost", "lighthouse", "gpt",
            "gpt_seeds", "cuadernos")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sections", default=",".join(SECTIONS),
                   help="secciones separadas por comas "
                   "(" + ",".join(SECTIONS) + ")")
    p.add_argument("--cold-runs", type=int, default=3)
    p.add_argument("--warm-runs", type=int, default=3)
    p.add_argument("--events", type=int, default=120,
                   help="eventos medidos por widget (además de los de calentamiento)")
    p.add_argument("--warmup-events", type=int, default=10)
    p.add_argument("--cost-repeats", type=int, default=9)
    p.add_argument("--sizes", default="4096x1024,16384x1024",
                   help="formas (N×d) para el coste de normalizar")
    p.add_argument("--html", default=str(ROOT / "_build" / "html"),
                   help="sitio construido si no se ejecuta la sección build")
    p.add_argument("--lock", default=os.environ.get("BENCH_LOCK"),
                   help="candado (flock) para cada construcción; o BENCH_LOCK")
    p.add_argument("--output", default=str(ROOT / "bench" / "results.json"))
    p.add_argument("--keep-build", action="store_true",
                   help="no borrar la copia temporal de la construcción")
    p.add_argument("--minimal-widgets", action="store_true",
                   help="medir todos los widgets en la página mínima, no en el libro")
    p.add_argument("--lighthouse-runs", type=int, default=3,
                   help="corridas de Lighthouse por página; cuenta la mediana de "
                   "cada métrica")
    p.add_argument("--quick", action="store_true",
                   help="1 construcción en frío, 2 en caliente, 100 eventos, 5 reps, "
                   "1 corrida de Lighthouse")
    args = p.parse_args(argv)
    if args.quick:
        args.cold_runs, args.warm_runs = 1, 2
        args.events, args.cost_repeats = 100, 5
        args.lighthouse_runs = 1
    args.sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        p.error(f"secciones desconocidas: {sorted(unknown)}; válidas: {SECTIONS}")
    args.shapes = [tuple(int(n) for n in s.lower().split("x"))
                   for s in args.sizes.split(",")]
    return args


def machine() -> dict:
    import numpy
    import torch

    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "date": datetime.now().isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "torch": torch.__version__,
        "loadavg_start": os.getloadavg(),
    }


def main(argv=None) -> int:
    args = parse_args(argv)
    results: dict = {"machine": machine(), "args": {
        k: v for k, v in vars(args).items() if k not in ("shapes",)
    }}
    html_dir = Path(args.html)
    built = None
    started = time.perf_counter()

    def section(name, fn):
        log(f"[{name}]")
        t0 = time.perf_counter()
        try:
            value = fn()
        except Exception as exc:  # una sección rota no tira las demás
            traceback.print_exc()
            value = {"error": f"{type(exc).__name__}: {exc}"}
        results.setdefault("section_seconds", {})[name] = time.perf_counter() - t0
        results.setdefault("loadavg", {})[name] = os.getloadavg()
        return value

    try:
        if "build" in args.sections:
            built = section("build", lambda: build_mod.bench_build(
                args.cold_runs, args.warm_runs, args.lock, log))
            results["build"] = {k: v for k, v in built.items() if k != "tmp"}
            if "error" not in built:
                html_dir = Path(built["html"])
        if "cost" in args.sections:
            results["cost"] = section("cost", lambda: cost_mod.bench_cost(
                args.shapes, args.cost_repeats, log=log))
        if "gpt_seeds" in args.sections:
            results["gpt_seeds"] = section("gpt_seeds", lambda: (
                gpt_seeds_mod.bench_gpt_seeds(log=log)))
        if "cuadernos" in args.sections:  # los del libro de --html (o de la copia)
            results["cuadernos"] = section("cuadernos", lambda: (
                cuadernos_mod.bench_cuadernos(html_dir, log)))
        browser_sections = [s for s in ("pages", "widgets", "widget_load", "gpt")
                            if s in args.sections]
        if browser_sections:
            if not (html_dir / "index.html").exists():
                log(f"No hay sitio construido en {html_dir}: ejecuta «make book».")
                for s in browser_sections:
                    results[s] = {"error": f"sin sitio en {html_dir}"}
            else:
                results["site"] = str(html_dir)
                run_browser(args, results, html_dir, browser_sections, section)
        if "lighthouse" in args.sections and (html_dir / "index.html").exists():
            results["lighthouse"] = section("lighthouse", lambda: (
                lighthouse_mod.bench_lighthouse(
                    html_dir, pages_mod.site_pages(html_dir), log,
                    runs=args.lighthouse_runs)))
        from tests.helpers import notebook_paths

        if html_dir.exists():
            results["stats_page"] = report.check_stats_page(
                html_dir, [p.stem for p in notebook_paths()])
    finally:
        if built and "tmp" in built and not args.keep_build:
            build_mod.cleanup(built)
    results["machine"]["loadavg_end"] = os.getloadavg()
    results["total_seconds"] = time.perf_counter() - started
    # una sección con error no es una lista
    # («gpt» y «gpt_seeds» llevan su propio error)
    for key in ("pages", "widgets", "widget_load", "cost", "lighthouse"):
        if isinstance(results.get(key), dict):
            results[f"{key}_error"] = results.pop(key)["error"]
    Path(args.output).write_text(json.dumps(results, indent=1, ensure_ascii=False),
                                 encoding="utf-8")
    load = results["machine"]
    print(f"Máquina: {load['cpus']} CPU ({load['cpu_model']}); carga media (1 min) "
          f"{load['loadavg_start'][0]:.1f} al empezar, {load['loadavg_end'][0]:.1f} al "
          f"acabar. Tiempos de coste: CPU del hilo, un hilo.")
    rows = (report.rows_for(results) + widget_load_mod.rows_for(results)
            + cost_mod.rows_for(results) + lighthouse_mod.rows_for(results)
            + gpt_mod.rows_for(results) + gpt_seeds_mod.rows_for(results)
            + cuadernos_mod.rows_for(results))
    print(report.table(rows))
    print(f"Resultados completos en {args.output}")
    return verdict(rows, [k for k in results if k.endswith("_error")])


def verdict(rows, errors: list[str]) -> int:
    """0 si todo cumple su presupuesto; si no, lo dice bien visible y devuelve 1."""
    missed = report.missed(rows)
    if not missed and not errors:
        print("Todo dentro de presupuesto.")
        return 0
    bar = "=" * 78
    print(bar, file=sys.stderr)
    print(f"FUERA DE PRESUPUESTO: {len(missed)} cifras"
          + (f"; secciones con error: {', '.join(errors)} (ver el JSON)"
             if errors else ""), file=sys.stderr)
    for sec, what, value, goal, _ in missed:
        print(f"  ✗ {sec}: {what}: {value} (presupuesto {goal})", file=sys.stderr)
    print(bar, file=sys.stderr)
    return 1


def run_browser(args, results, html_dir: Path, sections, section) -> None:
    from playwright.sync_api import sync_playwright

    from tests.helpers import launch_chromium

    pages = pages_mod.site_pages(html_dir)
    with serve(html_dir) as site_url, sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            if "pages" in sections:
                results["pages"] = section("pages", lambda: pages_mod.bench_pages(
                    browser, site_url, html_dir, log))
                results["stray_pages"] = pages_mod.stray_pages(html_dir)
            if "widget_load" in sections:
                results["widget_load"] = section(
                    "widget_load", lambda: widget_load_mod.bench_widget_load(
                        browser, site_url, html_dir, pages, log))
            if "widgets" in sections:
                results["widgets"] = section(
                    "widgets",
                    lambda: widgets_mod.bench_widgets(
                        browser, serve, site_url, html_dir, pages, args.events,
                        args.warmup_events, log, args.minimal_widgets),
                )
            if "gpt" in sections:
                results["gpt"] = section("gpt", lambda: gpt_mod.bench_gpt(
                    browser, site_url, html_dir, pages, log))
        finally:
            browser.close()


if __name__ == "__main__":
    sys.exit(main())
