"""Ejecuta los notebooks pendientes en la caché de jupyter-cache, en paralelo.

Lo mismo que ``jcache project execute --executor local-parallel`` (el mismo trabajador,
la misma caché, el mismo registro), con dos diferencias que acortan la ejecución en
frío en una máquina de pocos núcleos:

* cada proceso toma un notebook cada vez (``chunksize=1``); ``jcache`` los reparte de
  dos en dos (``Pool.map``) y un núcleo puede quedarse parado mientras el otro ejecuta
  dos capítulos largos seguidos;
* los pendientes se ejecutan en el orden dado, de más largo a más corto: el Makefile
  pone primero los capítulos que más tardan y aquí se ordenan además por el tiempo de
  su última ejecución si la caché lo guarda;
* cada núcleo nace con torch, matplotlib y resnorm ya importados
  (``tools/nucleo_precargado.py``): un núcleo nuevo gastaría ≈ 2 s de CPU en
  importarlos.

Uso: ``python tools/ejecutar_notebooks.py CACHE TIMEOUT NB1.ipynb NB2.ipynb ...``
"""

from __future__ import annotations

import logging
import multiprocessing as mproc
import os
import sys

from jupyter_cache import get_cache
from jupyter_cache.cache.db import NbProjectRecord
from jupyter_cache.executors.basic import (
    REPORT_LEVEL,
    ExecutionWorkerLocalMProc,
    ProcessData,
)
from nucleo_precargado import preloaded_kernels


def _last_seconds(cache) -> dict[str, float]:
    """Segundos de la última ejecución guardada de cada notebook (por ruta)."""
    out = {}
    for record in cache.list_cache_records():
        seconds = (record.data or {}).get("execution_seconds")
        if seconds is not None:
            out[os.path.abspath(record.uri)] = float(seconds)
    return out


def main(argv: list[str]) -> int:
    cache_path, timeout, *notebooks = argv
    cache = get_cache(cache_path)
    order = [os.path.abspath(nb) for nb in notebooks]
    for uri in order:
        cache.add_nb_to_project(uri)
    pending = cache.list_unexecuted(filter_uris=order)
    NbProjectRecord.remove_tracebacks([r.pk for r in pending], cache.db)
    last = _last_seconds(cache)
    # Primero lo que más tardó la última vez; sin dato, el orden del Makefile.
    pending.sort(key=lambda r: (-last.get(r.uri, 0.0), order.index(r.uri)))
    processes = max(1, min(len(pending), os.cpu_count() or 1))
    print(f"Executing {len(pending)} notebook(s) over pool of {processes} processors",
          flush=True)
    if not pending:
        return 0
    mproc.log_to_stderr(REPORT_LEVEL)
    logging.getLogger("traitlets").setLevel(logging.ERROR)
    data = [
        ProcessData(r.pk, r.uri, cache, int(timeout), False) for r in pending
    ]
    failed = []
    with preloaded_kernels(), mproc.Pool(processes) as pool:
        for status, uri in pool.imap_unordered(
            ExecutionWorkerLocalMProc(), data, chunksize=1
        ):
            if status != 0:
                failed.append(uri)
    if failed:
        print("Notebooks con error:", *failed, sep="\n  ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
