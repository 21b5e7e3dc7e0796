"""El GPT del capítulo 10 en el navegador («Prueba los cinco modelos», issue 33).

Dos medidas sobre el sitio construido, en Chromium headless:

- **Carga**: lo que descarga el widget. Su código (``_esm`` y ``_css``, que la página
  pide al dibujarlo) y los pesos de los cinco modelos (``_static/widgets/*.bin``,
  que solo se piden al pulsar «Generar»), en bytes y comprimidos con gzip (nivel 6,
  el que usa el servidor de ``bench.server``).
- **Generación**: cuánto tarda el navegador en escribir 200 caracteres con un modelo
  (Pre-LN) y con los cinco a la vez, del clic en «Generar» al texto completo. La
  primera vez incluye descargar y descodificar los pesos; después, solo el cálculo.
  En un teléfono, la cuenta es unas 3 a 5 veces más lenta que en un portátil.

No hay umbral en ``make test``: esto es el banco (``python -m bench --sections gpt``).
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
from pathlib import Path

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
FILE = "rn-archivo:"
#: El presupuesto de la generación de 200 caracteres con un modelo, en un portátil.
TARGET_ONE_MODEL_S = 2.0


def _gzip_size(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6, mtime=0))


def find_page(html_dir: Path, pages: list[str]) -> tuple[str, dict] | None:
    """La página del libro con el widget y el estado guardado del widget."""
    pattern = re.compile(rf'<script type="{re.escape(WIDGET_STATE)}">(.*?)</script>',
                         re.S)
    for rel in pages:
        html = (html_dir / rel).read_text(encoding="utf-8")
        if "GPTPlayground" not in html:
            continue
        match = pattern.search(html)
        if not match:
            continue
        state = json.loads(match.group(1).replace("<\\/", "</"))
        for model in state.get("state", {}).values():
            values = model.get("state") or {}
            if str(values.get("_anywidget_id", "")).endswith("GPTPlayground"):
                return rel, values
    return None


def load_sizes(html_dir: Path, rel: str, values: dict) -> dict:
    """Bytes del código y de los pesos del widget (y comprimidos)."""
    page_dir = (html_dir / rel).parent

    def file_of(value: str) -> Path:
        return (page_dir / value.removeprefix(FILE)).resolve()

    code = [file_of(values[k]) for k in ("_esm", "_css")
            if str(values.get(k, "")).startswith(FILE)]
    weights = {c: file_of(v) for c, v in (values.get("weights") or {}).items()}
    state = {k: v for k, v in values.items() if k not in ("_esm", "_css", "weights")}
    state_bytes = json.dumps(state, ensure_ascii=False).encode("utf-8")
    out = {
        "state_bytes": len(state_bytes),
        "state_gzip": _gzip_size(state_bytes),
        "code_bytes": sum(p.stat().st_size for p in code),
        "code_gzip": sum(_gzip_size(p.read_bytes()) for p in code),
        "weights": {c: {"bytes": p.stat().st_size, "gzip": _gzip_size(p.read_bytes())}
                    for c, p in weights.items()},
    }
    out["weights_bytes"] = sum(w["bytes"] for w in out["weights"].values())
    out["weights_gzip"] = sum(w["gzip"] for w in out["weights"].values())
    return out


GENERATE = r"""
async ([choice, nChars]) => {
  const root = document.querySelector("section.rn-gpt");
  root.querySelector("select").value = choice;
  root.querySelector("select").dispatchEvent(new Event("change"));
  const numbers = root.querySelectorAll("input.rn-gpt-number");
  numbers[2].value = String(nChars);
  const status = root.querySelector(".rn-gpt-status");
  status.textContent = "";
  const t0 = performance.now();
  root.querySelector("button.rn-primary").click();
  while (!status.textContent.startsWith("Listo")) {
    if (/No se pudieron|falló|Corrige/.test(status.textContent)) {
      throw new Error(status.textContent);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return (performance.now() - t0) / 1000;
}
"""


def bench_gpt(browser, site_url: str, html_dir: Path, pages: list[str], log=print,
              runs: int = 3, n_chars: int = 200) -> dict:
    """Carga y tiempo de generación del widget «Prueba los cinco modelos»."""
    from tests.helpers import draw_widgets, open_page

    found = find_page(html_dir, pages)
    if found is None:
        return {"error": "ninguna página del libro muestra GPTPlayground"}
    rel, values = found
    sizes = load_sizes(html_dir, rel, values)
    context = browser.new_context()
    try:
        page = context.new_page()
        requested: list[str] = []
        page.on("request", lambda r: requested.append(r.url))
        open_page(page, f"{site_url}/{rel}")
        page.locator("section.rn-gpt").scroll_into_view_if_needed()
        draw_widgets(page)
        before = [u for u in requested if u.endswith(".bin")]
        log(f"  GPTPlayground ({rel}): {n_chars} caracteres…")
        first = page.evaluate(GENERATE, ["pre_ln", n_chars])
        one = [page.evaluate(GENERATE, ["pre_ln", n_chars]) for _ in range(runs)]
        all_first = page.evaluate(GENERATE, ["all", n_chars])
        five = [page.evaluate(GENERATE, ["all", n_chars]) for _ in range(runs)]
    finally:
        context.close()
    return {
        "page": rel,
        **sizes,
        "bin_requests_before_generate": len(before),
        "n_chars": n_chars,
        "one_model_first_s": first,
        "one_model_s": one,
        "one_model_median_s": statistics.median(one),
        "five_models_first_s": all_first,
        "five_models_s": five,
        "five_models_median_s": statistics.median(five),
    }


def rows_for(results: dict) -> list[tuple[str, str, str, str, str]]:
    """Filas de la tabla del banco (como ``bench.report.rows_for``)."""
    r = results.get("gpt")
    if not r:
        return []
    if "error" in r:
        return [("GPT en el navegador", "error", str(r["error"])[:60], "", "✗")]
    kb = lambda n: f"{n / 1000:.1f} KB"  # noqa: E731
    n = r["n_chars"]
    ok = r["one_model_median_s"] <= TARGET_ONE_MODEL_S
    return [
        ("GPT en el navegador", "código del widget (al dibujarlo)",
         f"{kb(r['code_bytes'])} ({kb(r['code_gzip'])} gzip)", "", ""),
        ("GPT en el navegador", "estado en la página (ejemplos, vocabulario)",
         f"{kb(r['state_bytes'])} ({kb(r['state_gzip'])} gzip)", "", ""),
        ("GPT en el navegador", "pesos de los 5 modelos (al pulsar Generar)",
         f"{kb(r['weights_bytes'])} ({kb(r['weights_gzip'])} gzip)",
         "0 antes de Generar",
         "✓" if r["bin_requests_before_generate"] == 0 else "✗"),
        ("GPT en el navegador", f"{n} caracteres, Pre-LN, con descarga",
         f"{r['one_model_first_s']:.2f} s", "", ""),
        ("GPT en el navegador", f"{n} caracteres, Pre-LN (mediana)",
         f"{r['one_model_median_s']:.2f} s", f"≤ {TARGET_ONE_MODEL_S:g} s",
         "✓" if ok else "✗"),
        ("GPT en el navegador", f"{n} caracteres, los cinco (mediana)",
         f"{r['five_models_median_s']:.2f} s", "", ""),
    ]


def small_playground():
    """Un GPTPlayground con modelos de 2 bloques y 5 pasos, para la página mínima del
    banco de widgets (si el libro aún no lo muestra)."""
    from resnorm import gpt
    from resnorm.widgets import GPTPlayground

    data = gpt._dataset()
    trained = gpt.train_gpts([{"config": c} for c in gpt.CONFIGS], steps=5,
                             eval_every=5, n_layers=2, n_samples=0, dataset=data)
    runs = dict(zip(gpt.CONFIGS, trained))
    return GPTPlayground(runs, data.chars)
