"""La construcción estricta (-W -n --keep-going) termina sin un solo aviso, y una
reconstrucción sin cambios es rápida gracias a la caché de ejecución."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import ROOT

JB = Path(sys.executable).parent / "jupyter-book"


def _build(out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(JB), "build", str(ROOT), "-W", "-n", "--keep-going", "--path-output", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ, MPLBACKEND="Agg"),
        timeout=1800,
    )


@pytest.mark.build
def test_strict_build_has_zero_warnings(tmp_path, built_site):
    # Construcción completa en otra carpeta; comparte la caché de ejecución del libro.
    result = _build(tmp_path)
    log = result.stdout + result.stderr
    warnings = [line for line in log.splitlines() if "WARNING" in line or "ERROR" in line]
    assert result.returncode == 0, log[-4000:]
    assert not warnings, "\n".join(warnings)
    assert (tmp_path / "_build" / "html" / "index.html").exists()


@pytest.mark.build
def test_warm_rebuild_takes_under_10_seconds(built_site):
    # Se mide el tiempo de CPU de los procesos hijos (usuario + sistema): es el trabajo
    # que hace la reconstrucción, y no depende de cuánto esté cargada la máquina.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        ["make", "book"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    assert "Executing" not in result.stdout, "la caché de ejecución no se reutilizó"
    assert cpu < 10, f"make book sin cambios usó {cpu:.1f} s de CPU (reloj: {wall:.1f} s)"


def test_makefile_and_ci_use_the_readme_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make book" in readme and "make test" in readme
    commands = [
        line.strip() for line in ci.splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "set ", "cd "))
    ]
    assert commands == ["make test"], commands
    assert shutil.which("make")
