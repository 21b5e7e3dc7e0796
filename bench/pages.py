"""Peso de cada página: peticiones y bytes transferidos (gzip), vistos desde Chromium.

Cada página se abre en un contexto nuevo (sin caché), servida con gzip en 127.0.0.1
(``bench.server``), con todo lo externo abortado. Se cuentan las respuestas que recibe
el navegador hasta que la red queda en reposo (incluidas las que piden los widgets
después de cargar) y los bytes del cuerpo tal como viajan (comprimidos).

Presupuestos (issue «The website»): 700 KB una página sin widgets, 1.5 MB una con
widgets; aquí 1 KB = 1000 bytes.
"""

from __future__ import annotations

import re
from pathlib import Path

BUDGET_PLAIN = 700_000
BUDGET_WIDGETS = 1_500_000
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def site_pages(html_dir: Path) -> list[str]:
    """Las páginas del libro: las de ``_toc.yml`` y las de Sphinx (índice, búsqueda)."""
    from tests.helpers import toc_files

    names = [f"{doc}.html" for doc in toc_files()]
    names += ["index.html", "search.html", "genindex.html"]
    return [n for n in dict.fromkeys(names) if (Path(html_dir) / n).exists()]


def orphan_pages() -> list[str]:
    """Las páginas que el libro publica fuera de su índice a propósito: las de
    ``book/`` con ``orphan: true`` en su cabecera (p. ej. las estadísticas de
    ejecución, para quien mantiene el curso)."""
    from tests.helpers import ROOT

    out = []
    for source in sorted((ROOT / "book").glob("*.md")):
        head = source.read_text(encoding="utf-8").split("\n---", 1)[0]
        if head.startswith("---") and re.search(r"^orphan:\s*true\s*$", head, re.M):
            out.append(source.relative_to(ROOT).with_suffix(".html").as_posix())
    return out


def stray_pages(html_dir: Path) -> list[str]:
    """Páginas del sitio que no son del libro ni publicadas a propósito fuera de su
    índice (p. ej. de una carpeta sin excluir)."""
    from tests.helpers import html_pages

    book = set(site_pages(html_dir)) | set(orphan_pages())
    return [p for p in html_pages(Path(html_dir)) if p not in book]


def has_widgets(html_dir: Path, page: str) -> bool:
    return WIDGET_VIEW in (Path(html_dir) / page).read_text(encoding="utf-8")


def measure_page(browser, base_url: str, page: str) -> dict:
    """Abre ``page`` sin caché y suma lo que transfiere."""
    from tests.helpers import is_local

    context = browser.new_context()
    external: list[str] = []
    responses = []
    failed: list[str] = []

    # Sin interceptar (eso retrasaría cada petición): el navegador de las pruebas no
    # resuelve nombres de host, y lo que se pida fuera solo se anota.
    context.on("request", lambda r: None if is_local(r.url) else external.append(r.url))
    tab = context.new_page()
    tab.on("response", lambda resp: responses.append(resp))
    tab.on("requestfailed", lambda req: failed.append(req.url))
    try:
        tab.goto(f"{base_url}/{page}", wait_until="load", timeout=60_000)
        tab.wait_for_load_state("networkidle", timeout=60_000)
        body = header = 0
        by_type: dict[str, int] = {}
        for resp in responses:
            if resp.url.startswith("data:"):
                continue
            sizes = resp.request.sizes()
            body += sizes["responseBodySize"]
            header += sizes["responseHeadersSize"]
            kind = _kind(resp.url)
            by_type[kind] = by_type.get(kind, 0) + sizes["responseBodySize"]
        requests = sum(1 for r in responses if not r.url.startswith("data:"))
    finally:
        context.close()
    return {
        "page": page,
        "requests": requests,
        "gzip_bytes": body,
        "header_bytes": header,
        "by_type": dict(sorted(by_type.items(), key=lambda kv: -kv[1])),
        "external_blocked": len(external),
        "failed": failed,
    }


def _kind(url: str) -> str:
    path = url.split("?")[0]
    match = re.search(r"\.([a-z0-9]+)$", path)
    return match.group(1) if match else "html"


def bench_pages(browser, base_url: str, html_dir: Path, log=print) -> list[dict]:
    """Una fila por página: peticiones, bytes gzip, si tiene widgets, presupuesto."""
    rows = []
    for page in site_pages(html_dir):
        widgets = has_widgets(html_dir, page)
        row = measure_page(browser, base_url, page)
        budget = BUDGET_WIDGETS if widgets else BUDGET_PLAIN
        row.update(widgets=widgets, budget_bytes=budget,
                   ok=row["gzip_bytes"] <= budget)
        kb = row["gzip_bytes"] / 1000
        log(f"  {page}: {row['requests']} peticiones, {kb:.1f} KB")
        rows.append(row)
    return rows
