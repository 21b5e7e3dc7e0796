"""Lighthouse (perfil móvil) en cada página del libro, servida con gzip en 127.0.0.1.

Se usa el Lighthouse de ``node_modules`` (npm ``lighthouse@12.2.3``, fijado en
``package-lock.json``: las versiones siguientes piden Node 22) con el Chromium del
sistema (``CHROME_PATH``, por defecto ``/usr/bin/chromium``); las páginas de cada
llamada pasan una tras otra por un solo Chromium (``bench/lighthouse_run.mjs``). El
perfil móvil simula una conexión 4G lenta y una CPU 4 veces más lenta; esa simulación
escala con la velocidad de esta máquina compartida, así que una cifra se mueve ±10
entre ejecuciones: compara antes y después dentro de la misma ejecución. Por eso
«make bench» mide cada página tres veces (``--lighthouse-runs``) y cuenta, de cada
métrica, su mediana (``with_medians``); la tabla dice el TBT de cada corrida. El TBT
de un capítulo largo, por ejemplo, dio 40–277 ms en cinco corridas seguidas.

Presupuesto (issue 32), en cada página: rendimiento ≥ 90 (la mediana de las corridas)
y accesibilidad, buenas prácticas y SEO a 100 (la peor corrida). LCP, TBT y CLS van
en la tabla y en el JSON: el rendimiento ya los pondera.

Uso suelto::

    python -m bench.lighthouse book/intro.html notebooks/04_layernorm.html
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = ROOT / "node_modules" / "lighthouse" / "cli" / "index.js"
RUNNER = ROOT / "bench" / "lighthouse_run.mjs"
CHROME_PATH = "/usr/bin/chromium"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
BUDGET = {"performance": 90, "accessibility": 100, "best-practices": 100, "seo": 100}
METRICS = {
    "lcp_ms": "largest-contentful-paint",
    "tbt_ms": "total-blocking-time",
    "cls": "cumulative-layout-shift",
    "fcp_ms": "first-contentful-paint",
    "si_ms": "speed-index",
}


def summarize(report: dict) -> dict:
    """Puntuaciones (0–100), métricas y las auditorías que no pasan."""
    scores = {c: round(100 * (report["categories"][c]["score"] or 0))
              for c in CATEGORIES}
    audits = report["audits"]
    metrics = {k: audits[a].get("numericValue") for k, a in METRICS.items()}
    failing = []
    for key, audit in audits.items():
        score = audit.get("score")
        mode = audit.get("scoreDisplayMode")
        if score is not None and score < 0.9 and mode in ("binary", "numeric",
                                                            "metricSavings"):
            failing.append({"id": key, "title": audit.get("title", ""),
                            "score": score,
                            "display": audit.get("displayValue", "")})
    return {**scores, **metrics, "failing": failing,
            "runtime_error": (report.get("runtimeError") or {}).get("message")}


def within_budget(row: dict) -> bool:
    return all(row[c] >= BUDGET[c] for c in CATEGORIES)


# Lo que se mueve con la carga de la máquina cuenta por su mediana; lo que no
# depende de ella (accesibilidad, buenas prácticas, SEO), por su peor corrida.
MEDIAN_FIELDS = ("performance", "lcp_ms", "tbt_ms", "cls", "fcp_ms")
WORST_FIELDS = ("accessibility", "best-practices", "seo")


def with_medians(runs: list[dict]) -> dict:
    """Una fila de varias corridas (resúmenes de ``summarize``): la mediana de cada
    métrica, la peor puntuación de cada categoría fija y las auditorías que no pasan
    en la corrida de TBT mediano; las cifras de cada corrida, en ``"runs"``."""
    import statistics

    middle = sorted(runs, key=lambda r: r["tbt_ms"] or 0)[(len(runs) - 1) // 2]
    out = {**middle,
           "runs": [{k: v for k, v in r.items() if k != "failing"} for r in runs]}
    for fields, pick in ((MEDIAN_FIELDS, statistics.median), (WORST_FIELDS, min)):
        for key in fields:
            values = [r[key] for r in runs if r.get(key) is not None]
            if values:
                out[key] = pick(values)
    return out


def run_many(urls: list[str], timeout: float = 240.0, runs: int = 1) -> list[dict]:
    """Lighthouse sobre cada URL de ``urls``, una tras otra en el mismo Chromium
    (``bench/lighthouse_run.mjs``), ``runs`` veces cada una: por URL, la fila de
    ``with_medians``, o ``{"error": ...}``."""
    from tests.helpers import CHROMIUM_FLAGS, FONTCONFIG  # lo mismo que las pruebas

    if not CLI.exists():
        raise FileNotFoundError(f"Falta {CLI}: ejecuta «npm ci» (make vendor).")
    with tempfile.TemporaryDirectory(prefix="lighthouse-") as tmp:
        outputs = [Path(tmp) / f"informe-{i}.json" for i in range(len(urls))]
        spec = Path(tmp) / "trabajos.json"
        spec.write_text(json.dumps({
            "chromePath": os.environ.get("CHROME_PATH", CHROME_PATH),
            "chromeFlags": list(CHROMIUM_FLAGS),
            "categories": list(CATEGORIES),
            "maxWaitForLoad": 60_000,
            "runs": runs,
            "jobs": [{"url": u, "output": str(o)} for u, o in zip(urls, outputs)],
        }), encoding="utf-8")
        # TMPDIR: el perfil temporal de Chromium, dentro y borrado al terminar.
        env = {**os.environ, "TMPDIR": tmp, "FONTCONFIG_FILE": str(FONTCONFIG)}
        proc = subprocess.run(["node", str(RUNNER), str(spec)], env=env,
                              capture_output=True, text=True,
                              timeout=timeout * max(1, len(urls)) * runs,
                              check=False)
        rows = []
        for url, output in zip(urls, outputs):
            error = output.with_name(output.name + ".error")
            if output.exists():
                reports = json.loads(output.read_text(encoding="utf-8"))
                rows.append(with_medians([summarize(r) for r in reports]))
            elif error.exists():
                rows.append({"error": f"Lighthouse falló en {url}: "
                                      f"{error.read_text(encoding='utf-8')[-2000:]}"})
            else:
                rows.append({"error": f"Lighthouse falló ({proc.returncode}) en {url}:"
                                      f"\n{proc.stderr[-2000:]}"})
    return rows


def bench_lighthouse(html_dir: Path, pages: list[str], log=print,
                     runs: int = 1) -> list[dict]:
    """Lighthouse en cada página de ``pages``, una tras otra (máquina compartida),
    servidas con gzip en 127.0.0.1 (``bench.server``); con ``runs`` > 1, cada página
    cuenta por la mediana de cada métrica (ver ``run_many`` y ``with_medians``)."""
    from bench.server import serve

    if not pages:
        return []
    with serve(Path(html_dir)) as base:
        times = f", {runs} veces cada una" if runs > 1 else ""
        log(f"  lighthouse: {len(pages)} páginas{times}…")
        try:
            summaries = run_many([f"{base}/{page}" for page in pages], runs=runs)
        except Exception as exc:
            summaries = [{"error": f"{type(exc).__name__}: {exc}"}] * len(pages)
    rows = []
    for page, summary in zip(pages, summaries):
        row = {"page": page, **summary}
        row["ok"] = "error" not in row and within_budget(row)
        rows.append(row)
    return rows


def rows_for(results: dict) -> list[tuple[str, str, str, str, str]]:
    """Las filas de Lighthouse para la tabla de ``make bench``."""
    out = []
    goal = "rend. ≥ 90 (mediana); acc., b.p. y SEO 100"
    for r in results.get("lighthouse", []) or []:
        if "error" in r:
            out.append(("Lighthouse", r["page"], r["error"][:60], goal, "✗"))
            continue
        value = (f"rend. {r['performance']:.0f}, LCP {r['lcp_ms'] / 1000:.2f} s, "
                 f"TBT {r['tbt_ms']:.0f} ms, CLS {r['cls']:.3f}; acc. "
                 f"{r['accessibility']}, b.p. {r['best-practices']}, SEO {r['seo']}")
        if len(r.get("runs") or []) > 1:
            value += (f" (mediana de {len(r['runs'])}; TBT "
                      + "/".join(f"{x['tbt_ms']:.0f}" for x in r["runs"]) + ")")
        out.append(("Lighthouse", r["page"], value, goal, "✓" if r["ok"] else "✗"))
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    html = ROOT / "_build" / "html"
    pages = argv or ["book/intro.html"]
    rows = bench_lighthouse(html, pages, log=lambda m: print(m, file=sys.stderr))
    for row in rows:
        print(json.dumps({k: v for k, v in row.items() if k != "failing"},
                         ensure_ascii=False))
        for f in row.get("failing", []):
            print(f"    {f['id']}: {f['score']} {f['display']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
