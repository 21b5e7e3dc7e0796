"""Construcción del libro: en frío, en caliente y el tiempo de cada notebook.

Todo ocurre en una copia temporal del repositorio, para no tocar el ``_build`` de
nadie: «en frío» es sin ``_build`` (caché de ejecución vacía, todos los notebooks se
ejecutan); «en caliente» es volver a construir sin cambios, o después de tocar una
página markdown. La orden es el paso del libro de ``make book`` (``make book-step``:
huella del motor, notebooks en paralelo con jupyter-cache y ``sphinx-build -W -n
--keep-going``), con el entorno ``.venv`` de este repositorio; los pasos ``deps`` y
``vendor`` no hacen nada cuando ya están al día y no se cuentan. Cada construcción
anota el reloj y el tiempo de CPU (usuario + sistema de todos sus procesos): en una
máquina cargada, la CPU dice cuánto trabajo hubo y el reloj cuánto se esperó.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.prefix).resolve()
BUILD_ARGS = ["make", "--no-print-directory", "book-step", f"VENV={VENV}"]
IGNORE = shutil.ignore_patterns(
    "_build", ".venv*", "node_modules", ".git", ".pytest_cache", ".hypothesis",
    "__pycache__", "*.egg-info", ".ipynb_checkpoints", "results.json",
)


@contextlib.contextmanager
def lock(path: str | None):
    """Toma el candado ``path`` (flock) mientras dura el bloque; nada si es None."""
    if not path:
        yield
        return
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def copy_repo(dst: Path) -> Path:
    """Copia lo que tendría un clon nuevo después de ``make vendor`` (``node_modules``,
    enlazado).

    Con git: los archivos que git no ignora (versionados o nuevos) y
    ``_assets/vendor`` (lo que copia ``make vendor``). Sin git: el árbol entero
    salvo ``_build``, entornos virtuales, ``node_modules`` y cachés.
    """
    listed = None
    if (ROOT / ".git").exists():
        proc = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True,
        )
        if proc.returncode == 0:
            listed = [p for p in proc.stdout.decode().split("\0") if p]
    if listed is None:
        shutil.copytree(ROOT, dst, ignore=IGNORE, symlinks=True)
        return dst
    for rel in listed:
        src = ROOT / rel
        if src.is_file():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / rel)
    vendor = ROOT / "_assets" / "vendor"
    if vendor.exists():
        shutil.copytree(vendor, dst / "_assets" / "vendor", dirs_exist_ok=True)
    # Los paquetes de npm ya instalados (KaTeX dibuja las fórmulas al construir).
    modules = ROOT / "node_modules"
    if modules.exists() and not (dst / "node_modules").exists():
        (dst / "node_modules").symlink_to(modules, target_is_directory=True)
    return dst


def run_build(cwd: Path, lock_path: str | None = None) -> dict:
    """Una construcción en ``cwd``: segundos (sin esperar el candado) y si fue bien."""
    # PYTHONPATH: el núcleo importa el resnorm de la copia, no el instalado (-e).
    env = dict(os.environ, PYTHONPATH=str(cwd))
    with lock(lock_path):
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(
            BUILD_ARGS, cwd=cwd, env=env, capture_output=True, text=True,
        )
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tail = (proc.stdout + proc.stderr).strip().splitlines()[-15:]
    return {
        "seconds": seconds, "cpu_s": cpu, "ok": proc.returncode == 0,
        "returncode": proc.returncode, "load_before": load, "log_tail": tail,
    }


def notebook_times(build_dir: Path) -> dict[str, float]:
    """Segundos de ejecución de cada notebook, según la caché de jupyter-cache."""
    from jupyter_cache import get_cache

    cache_path = build_dir / "_build" / ".jupyter_cache"
    if not cache_path.exists():
        return {}
    out = {}
    for record in get_cache(str(cache_path)).list_cache_records():
        seconds = (record.data or {}).get("execution_seconds")
        if seconds is not None:
            out[Path(record.uri).stem] = float(seconds)
    return out


def touch_page(build_dir: Path) -> str:
    """Toca (cambia la fecha de) una página markdown del libro; devuelve cuál."""
    for name in ("book/glosario.md", "book/como-usar.md", "book/intro.md"):
        page = build_dir / name
        if page.exists():
            now = time.time()
            os.utime(page, (now, now))
            return name
    raise FileNotFoundError("No encuentro ninguna página markdown en book/")


def bench_build(cold_runs: int = 3, warm_runs: int = 3, lock_path: str | None = None,
                log=print) -> dict:
    """Construcciones en frío y en caliente en una copia temporal; medianas y corridas.

    Devuelve un dict plano: ``cold_s``/``warm_noop_s``/``warm_touch_s`` (listas de
    segundos) y sus medianas, ``notebooks`` (nombre → mediana de segundos de
    ejecución en las construcciones en frío), ``ok`` (todas terminaron bien) y
    ``html`` (la carpeta del último sitio construido, que sigue existiendo hasta que
    se llame a ``cleanup``).
    """
    tmp = Path(tempfile.mkdtemp(prefix="resnorm-bench-"))
    work = copy_repo(tmp / "repo")
    cold, cold_cpu, warm_noop, warm_noop_cpu, warm_touch, runs = [], [], [], [], [], []
    per_notebook: dict[str, list[float]] = {}
    for i in range(cold_runs):
        shutil.rmtree(work / "_build", ignore_errors=True)
        log(f"  construcción en frío {i + 1}/{cold_runs}…")
        run = run_build(work, lock_path)
        runs.append({"kind": "cold", **run})
        cold.append(run["seconds"])
        cold_cpu.append(run["cpu_s"])
        for name, seconds in notebook_times(work).items():
            per_notebook.setdefault(name, []).append(seconds)
    touched = None
    for i in range(warm_runs):
        log(f"  construcción en caliente {i + 1}/{warm_runs} (sin cambios)…")
        run = run_build(work, lock_path)
        runs.append({"kind": "warm_noop", **run})
        warm_noop.append(run["seconds"])
        warm_noop_cpu.append(run["cpu_s"])
        touched = touch_page(work)
        log(f"  construcción en caliente {i + 1}/{warm_runs} ({touched} tocada)…")
        run = run_build(work, lock_path)
        runs.append({"kind": "warm_touch", **run})
        warm_touch.append(run["seconds"])

    def median(values):
        return statistics.median(values) if values else None

    return {
        "cold_s": cold,
        "warm_noop_s": warm_noop,
        "warm_touch_s": warm_touch,
        "cold_cpu_s": cold_cpu,
        "cold_median_s": median(cold),
        "cold_cpu_median_s": median(cold_cpu),
        "warm_noop_median_s": median(warm_noop),
        "warm_noop_cpu_s": warm_noop_cpu,
        "warm_noop_cpu_median_s": median(warm_noop_cpu),
        "warm_touch_median_s": median(warm_touch),
        "touched_page": touched,
        "notebooks": {k: median(v) for k, v in sorted(per_notebook.items())},
        "notebook_runs": dict(sorted(per_notebook.items())),
        "ok": all(r["ok"] for r in runs),
        "runs": runs,
        "html": str(work / "_build" / "html"),
        "tmp": str(tmp),
        "command": " ".join(BUILD_ARGS),
    }


def cleanup(result: dict) -> None:
    """Borra la copia temporal de ``bench_build``."""
    tmp = result.get("tmp")
    if tmp and Path(tmp).name.startswith("resnorm-bench-"):
        shutil.rmtree(tmp, ignore_errors=True)
