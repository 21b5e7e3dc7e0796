"""Los núcleos precargados de ``tools/nucleo_precargado.py`` (los de «make book»).

Que un núcleo bifurcado del servidor se comporte, para jupyter_client y para el
notebook, como uno nuevo: su carpeta, su entorno, sus errores, interrumpir, morir con
su lanzador. Que dé los mismos números que un núcleo nuevo lo comprueba
``tests/test_numbers.py::test_executing_twice_gives_identical_glued_values`` (la
construcción, con núcleos precargados, frente a una ejecución con un núcleo nuevo).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "tools"))
from nucleo_precargado import preloaded_kernels  # noqa: E402

pytestmark = pytest.mark.slow


# Antes que las demás: el fixture ``kernels`` (de módulo) deja el servidor en marcha
# hasta el final del archivo.
def test_outside_the_block_the_kernels_are_the_usual_ones(tmp_path):
    saved = os.environ.get("JUPYTER_PATH")
    with preloaded_kernels():
        assert os.environ["JUPYTER_PATH"] != saved
    assert os.environ.get("JUPYTER_PATH") == saved
    nb = _run(["import sys\nprint('resnorm.gpt' in sys.modules)"], tmp_path)
    assert _stdout(nb.cells[0]).strip() == "False"


@pytest.fixture(scope="module")
def kernels():
    with preloaded_kernels() as ready:
        assert ready, "el servidor de núcleos precargados no arrancó"
        yield


def _run(cells: list[str], cwd) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    resources = {"metadata": {"path": str(cwd)}}
    return NotebookClient(
        nb, timeout=60, kernel_name="python3", resources=resources
    ).execute()


def _stdout(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def test_a_kernel_starts_with_the_imports_done_and_the_notebooks_folder(
    kernels, tmp_path, monkeypatch
):
    monkeypatch.setenv("RESNORM_PRUEBA_ENTORNO", "sí")
    nb = _run([
        "import os, sys\n"
        "print(os.getcwd())\n"
        "print(os.environ.get('RESNORM_PRUEBA_ENTORNO'))\n"
        "print('torch' in sys.modules, 'resnorm.gpt' in sys.modules)",
    ], tmp_path)
    cwd, env_value, preloaded = _stdout(nb.cells[0]).splitlines()
    assert os.path.samefile(cwd, tmp_path)
    assert env_value == "sí"  # el entorno es el del lanzador, no el del servidor
    assert preloaded == "True True"


def test_the_tools_folder_is_not_on_the_kernels_path(kernels, tmp_path):
    nb = _run(["import sys\nprint(repr(sys.path))"], tmp_path)
    path = eval(_stdout(nb.cells[0]))
    assert str(ROOT / "tools") not in path


def test_a_cell_error_reaches_nbclient_as_a_cell_error(kernels, tmp_path):
    with pytest.raises(CellExecutionError, match="ZeroDivisionError"):
        _run(["1 / 0"], tmp_path)


@contextlib.contextmanager
def _started_kernel():
    """Un núcleo «python3» lanzado por jupyter_client, listo, con su cliente."""
    from jupyter_client import KernelManager

    km = KernelManager(kernel_name="python3")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=30)
        yield km, kc
    finally:
        kc.stop_channels()
        if km.has_kernel:
            km.shutdown_kernel(now=True)


def test_interrupting_stops_a_running_cell_and_the_kernel_goes_on(kernels):
    with _started_kernel() as (km, kc):
        msg_id = kc.execute("import time\ntime.sleep(60)")
        time.sleep(1.0)
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=15)
        assert reply["parent_header"]["msg_id"] == msg_id
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        after = kc.execute_interactive("x = 1 + 1", timeout=15)
        assert after["content"]["status"] == "ok"


def test_a_kernel_dies_with_its_launcher(kernels):
    with _started_kernel() as (km, kc):
        pids = []
        kc.execute_interactive(
            "import os\nprint(os.getpid())", timeout=15,
            output_hook=lambda m: pids.append(m["content"].get("text", "")),
        )
        pid = int("".join(pids))
        assert pid != km.provisioner.pid  # el núcleo no es el proceso lanzado
        km.provisioner.process.kill()
        km.provisioner.process.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}"):
            time.sleep(0.1)
        assert not os.path.exists(f"/proc/{pid}"), "el núcleo sobrevivió a su lanzador"


def test_a_launcher_without_standard_input_hands_over_dev_null():
    """Sin entrada estándar (un proceso lanzado sin ella), el núcleo recibe /dev/null
    en su lugar: el lanzador no falla al pasar sus descriptores."""
    import subprocess

    code = (
        f"import os, sys; sys.path.insert(0, {str(ROOT / 'tools')!r})\n"
        "from nucleo_precargado import _standard_streams\n"
        "print(os.readlink(f'/proc/self/fd/{_standard_streams()[0]}'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], preexec_fn=lambda: os.close(0),
        capture_output=True, text=True, check=True,
    )
    assert out.stdout.strip() == os.devnull
