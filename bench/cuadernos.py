"""Lo que cuesta el cuaderno del alumno de cada capítulo, de arriba abajo (issue 51).

Quien aprende abre el cuaderno en Binder, en Colab o con «make lab»: un núcleo nuevo,
sin la memoria de entrenamientos del GPT que llena la construcción del libro
(``resnorm.gpt.MEMO_ENV``), así que el capítulo 10 entrena todo lo que enseña. Cada
cuaderno de ``_build/html/cuadernos`` se ejecuta entero así (nbclient), con cada
solución cargada a propósito, como lo carga quien aprende
(``tests.test_cuadernos.with_solutions_loaded``): el ejercicio que entrena, entrena.

Cuenta el tiempo de CPU del proceso del núcleo (usuario + sistema, de
``/proc/<pid>/stat``), no el de pared: la máquina se comparte y la pared mide también
a los vecinos. Incluye arrancar el núcleo e importar lo que importa la primera celda.
Presupuestos: 30 s el capítulo 10, 15 s cada uno de los demás. Las celdas que más
cuestan van en el JSON, para saber dónde mirar.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

#: El cuaderno que entrena los GPT del capítulo 10, y los presupuestos de CPU.
LONGEST = "10_gpt_diminuto"
BUDGET_LONGEST_S = 30.0
BUDGET_S = 15.0
#: La variable de la memoria de entrenamientos (``resnorm.gpt.MEMO_ENV``).
MEMO_ENV = "RESNORM_MEMO_DIR"


def budget(name: str) -> float:
    return BUDGET_LONGEST_S if name == LONGEST else BUDGET_S


def process_cpu_seconds(pid: int) -> float:
    """Usuario + sistema de un proceso (campos 14 y 15 de ``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: Un bloque de código de una solución plegada (el de ``tests/test_cuadernos.py``).
CODE_BLOCK = re.compile(r"^(`{3,})python\n(.*?)\n\1$", re.S | re.M)


def with_solutions_loaded(nb):
    """El cuaderno de quien carga cada solución: su código en una celda nueva debajo
    (``tests.test_cuadernos.with_solutions_loaded``, sin las dependencias de pytest)."""
    import nbformat

    cells = []
    for cell in nb.cells:
        cells.append(cell)
        if "solucion" in cell.metadata.get("tags", []):
            cells += [nbformat.v4.new_code_cell(m[2])
                      for m in CODE_BLOCK.finditer(cell.source)]
    nb.cells = cells
    return nb


def run_notebook(path: Path, workdir: Path) -> dict:
    """Ejecuta el cuaderno ``path`` en un núcleo nuevo; su CPU total y por celda."""
    import nbformat
    from nbclient import NotebookClient

    nb = with_solutions_loaded(nbformat.read(path, as_version=4))
    cells: list[tuple[float, int, str]] = []
    state = {"pid": None, "last": 0.0, "start": 0.0}

    def cell_start(**_):
        if state["pid"] is None:  # el núcleo ya arrancó: lo que lleva es su arranque
            state["pid"] = client.km.provisioner.pid
            state["start"] = state["last"] = process_cpu_seconds(state["pid"])

    def cell_done(cell, cell_index, **_):
        cpu = process_cpu_seconds(state["pid"])
        first = cell.source.strip().splitlines()[:1] or [""]
        cells.append((cpu - state["last"], cell_index, first[0][:60]))
        state["last"] = cpu

    env = {k: v for k, v in os.environ.items() if k != MEMO_ENV}
    client = NotebookClient(nb, timeout=900, kernel_name="python3",
                            resources={"metadata": {"path": str(workdir)}},
                            on_cell_start=cell_start, on_cell_executed=cell_done)
    wall = time.perf_counter()
    client.execute(env=env)
    total, start = state["last"], state["start"]
    cells.sort(reverse=True)
    return {"cpu_s": total, "startup_cpu_s": start,
            "wall_s": time.perf_counter() - wall,
            "top_cells": [{"cpu_s": c, "index": i, "first_line": s}
                          for c, i, s in cells[:5]]}


def bench_cuadernos(html_dir: Path, log, only: list[str] | None = None) -> dict:
    """Cada cuaderno de ``html_dir/cuadernos``, uno detrás de otro (un núcleo cada
    vez: el banco no mide dos a la vez)."""
    import tempfile

    folder = Path(html_dir) / "cuadernos"
    paths = sorted(folder.glob("*.ipynb"))
    if only:
        paths = [p for p in paths if p.stem in only]
    if not paths:
        return {"error": f"no hay cuadernos en {folder}: ejecuta «make book»"}
    out = {}
    for path in paths:
        log(f"  {path.name}")
        with tempfile.TemporaryDirectory() as tmp:
            try:
                out[path.stem] = run_notebook(path, Path(tmp))
            except Exception as exc:  # un cuaderno roto no tapa los demás
                out[path.stem] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"notebooks": out}


def rows_for(results: dict) -> list[tuple[str, str, str, str, str]]:
    """Filas de la tabla del banco (como ``bench.report.rows_for``)."""
    r = results.get("cuadernos")
    if not r:
        return []
    if "error" in r:
        return [("Cuaderno del alumno", "error", str(r["error"])[:60], "", "✗")]
    out = []
    for name, n in r["notebooks"].items():
        what = f"{name}, núcleo nuevo, sin memoria (CPU)"
        if "error" in n:
            out.append(("Cuaderno del alumno", what, n["error"][:60], "", "✗"))
            continue
        goal = budget(name)
        out.append(("Cuaderno del alumno", what, f"{n['cpu_s']:.1f} s",
                    f"≤ {goal:.0f} s", "✓" if n["cpu_s"] <= goal else "✗"))
    return out


if __name__ == "__main__":  # python -m bench.cuadernos [nombre…]: solo esta tabla
    import json
    import sys

    from bench import report

    root = Path(__file__).resolve().parents[1]
    res = {"cuadernos": bench_cuadernos(root / "_build" / "html",
                                        lambda m: print(m, file=sys.stderr),
                                        sys.argv[1:] or None)}
    print(json.dumps(res, indent=1, ensure_ascii=False))
    print(report.table(rows_for(res)))
