"""Los cuadernos del alumno en un JupyterLab de verdad: se leen como la página, se
ejecutan sin errores y dibujan sus widgets.

Un solo servidor JupyterLab (del entorno ``.venv-lab``, ver ``requirements-lab.txt``)
en 127.0.0.1, con puerto y token aleatorios, sirve una copia temporal de los cuadernos
del alumno (``_build/html/cuadernos``, los que abre ``make lab``; necesita «make
book»). Su núcleo «python3» es el Python de ``.venv``, con resnorm: el kernelspec que
``make lab-deps`` escribe en ``.venv-lab/share/resnorm``, el mismo que usa ``make lab``.

Chromium (sin cabeza) abre JupyterLab una vez. En dos cuadernos (``READ_CHAPTERS``),
sin ejecutar nada, lee lo que Lab dibuja: ni un rol ni una directiva en bruto, las
soluciones y las pistas plegadas y los números de la prosa iguales a los de la página.
En dos capítulos (``LAB_CHAPTERS`` y el de la calculadora) ejecuta todas las celdas
(Run ▸ Run All Cells), espera a que el núcleo quede inactivo y comprueba que ninguna
celda muestra un error, que cada widget (anywidget) se dibuja, que ningún comprobador
dice «✓» (las soluciones van en Markdown plegado: Run All no las ejecuta) y que cada
función de los ejercicios sigue siendo, en el núcleo, el esqueleto de quien aprende.
En la calculadora del capítulo 3 cambia una entrada y comprueba que la media y la
desviación estándar mostradas son las de ``resnorm`` y que el núcleo recibió el valor
nuevo. El servidor y sus núcleos se paran al final, pase lo que pase.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from tests.helpers import (
    BUILD_HTML,
    ROOT,
    PageRecorder,
    built_soup,
    die_with_parent,
    free_port,
    notebook_paths,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LAB_VENV = (ROOT / os.environ.get("LAB_VENV", ".venv-lab")).resolve()
LAB_KERNELS = LAB_VENV / "share" / "resnorm"
NOTEBOOK_TIMEOUT = int(os.environ.get("LAB_NOTEBOOK_TIMEOUT", "300"))
SERVER_START_TIMEOUT = 180
WIDGET_RENDER_TIMEOUT = 60
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
NOTEBOOKS = notebook_paths()
LEARNER = BUILD_HTML / "cuadernos"  # los cuadernos del alumno (book/_ext/cuadernos.py)
WIDGET_ERROR_TEXTS = (
    "Error displaying widget", "Loading widget", "Failed to initialize",
)

# Ajustes de usuario de Lab para la prueba: sin autoguardado, todas las celdas en el
# DOM (sin virtualizar) y sin noticias ni avisos de versiones (nada sale de 127.0.0.1).
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}
SERVER_CONFIG = {
    "ServerApp": {
        "allow_root": True,  # CI corre como root
        "open_browser": False,
        "terminals_enabled": False,
        "port_retries": 0,
        # Red de seguridad si pytest muere sin recoger el servidor: los núcleos
        # inactivos se cierran a los 10 min y el servidor, a los 15 sin actividad.
        "shutdown_no_activity_timeout": 900,
    },
    "MappingKernelManager": {"cull_idle_timeout": 600, "cull_interval": 60},
    "KernelSpecManager": {"ensure_native_kernel": False},
    "LabApp": {
        "expose_app_in_browser": True,
        "news_url": None,
        "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
        "extension_manager": "readonly",
    },
}


# --- El servidor -------------------------------------------------------------------


@dataclass
class LabServer:
    url: str
    token: str
    root: Path
    process: subprocess.Popen
    log: Path

    def log_tail(self, lines: int = 40) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])


def _api(server_url: str, token: str, path: str, method: str = "GET", timeout=5):
    request = urllib.request.Request(
        f"{server_url}{path}",
        method=method,
        headers={"Authorization": f"token {token}"},
        data=b"" if method == "POST" else None,
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read() or b"null")


def _kernel_python() -> Path:
    spec_file = LAB_KERNELS / "kernels" / "python3" / "kernel.json"
    if not (LAB_VENV / "bin" / "jupyter-lab").exists() or not spec_file.exists():
        pytest.fail(
            f"No está el entorno de JupyterLab ({LAB_VENV}): ejecuta «make test» "
            "(o «make lab-deps») para crearlo."
        )
    argv = json.loads(spec_file.read_text(encoding="utf-8"))["argv"]
    return Path(argv[0])


def _write_lab_home(home: Path) -> dict[str, str]:
    """Configuración, ajustes y datos de Lab en una carpeta temporal."""
    config = home / "config"
    config.mkdir(parents=True)
    (config / "jupyter_server_config.json").write_text(json.dumps(SERVER_CONFIG))
    settings = home / "settings"
    for plugin, values in LAB_SETTINGS.items():
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    # MPLBACKEND=Agg (lo exporta el Makefile) impediría ver las figuras en línea.
    env.update(
        JUPYTER_CONFIG_DIR=str(config),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTER_PATH=str(LAB_KERNELS),
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        JUPYTER_PLATFORM_DIRS="1",
    )
    return env


def _stop(server: LabServer) -> list[str]:
    """Para el servidor y sus núcleos; devuelve lo que siguiera vivo al final."""
    import psutil

    proc = server.process
    try:
        family = [psutil.Process(proc.pid)]
        family += family[0].children(recursive=True)
    except psutil.NoSuchProcess:
        family = []
    with contextlib.suppress(Exception):
        _api(server.url, server.token, "/api/shutdown", method="POST")
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
    _, alive = psutil.wait_procs(family, timeout=10)
    for p in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
    _, alive = psutil.wait_procs(alive, timeout=5)
    return [f"{p.pid} {p.name()}" for p in alive if p.is_running()]


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    kernel_python = _kernel_python()
    # El mismo entorno (.venv) que corre las pruebas: ahí están resnorm e ipykernel.
    assert kernel_python.parent.parent == Path(sys.prefix), (
        f"El kernelspec de {LAB_KERNELS} usa {kernel_python}, pero las pruebas corren "
        f"en {sys.prefix}: vuelve a crear el entorno de Lab («make lab-deps»)."
    )
    home = tmp_path_factory.mktemp("jupyterlab")
    root = home / "root"
    if not all((LEARNER / p.name).is_file() for p in NOTEBOOKS):
        pytest.fail(f"Faltan cuadernos del alumno en {LEARNER}: ejecuta «make book».")
    shutil.copytree(LEARNER, root / "cuadernos")
    # Los ajustes por defecto de «make lab», Binder y el hub (binder/overrides.json):
    # Lab en español, con los títulos que el paquete de idioma no traduce.
    subprocess.run(["make", "-s", "--no-print-directory", "lab-settings"], cwd=ROOT,
                   check=True, timeout=60)
    env = _write_lab_home(home)
    port, token = free_port(), secrets.token_urlsafe(24)
    log = home / "server.log"
    with open(log, "wb") as log_file:
        process = subprocess.Popen(
            [
                str(LAB_VENV / "bin" / "jupyter-lab"),
                "--ip=127.0.0.1",
                f"--port={port}",
                f"--IdentityProvider.token={token}",
                f"--ServerApp.root_dir={root}",
            ],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=env,
            preexec_fn=die_with_parent if sys.platform == "linux" else None,
            start_new_session=sys.platform != "linux",
        )
    server = LabServer(f"http://127.0.0.1:{port}", token, root, process, log)
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"JupyterLab terminó al arrancar:\n{server.log_tail()}")
            with contextlib.suppress(OSError, urllib.error.URLError):
                _api(server.url, token, "/api/status", timeout=2)
                break
            if time.monotonic() > deadline:
                pytest.fail(
                    f"JupyterLab no respondió en {SERVER_START_TIMEOUT} s:\n"
                    f"{server.log_tail()}"
                )
            time.sleep(0.5)
        yield server
    finally:
        left = _stop(server)
        if left:
            raise RuntimeError(f"Procesos de JupyterLab que no se pararon: {left}")


# --- Chromium con JupyterLab -------------------------------------------------------


@dataclass
class LabPage:
    recorder: PageRecorder
    server: LabServer

    @property
    def page(self):
        return self.recorder.page

    def js(self, expression: str, arg=None):
        return self.page.evaluate(expression, arg)


@pytest.fixture(scope="module")
def lab(browser, lab_server):
    """JupyterLab cargado una sola vez en una página de Chromium."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    recorder = PageRecorder(context)
    try:
        recorder.page.goto(
            f"{lab_server.url}/lab?reset&token={lab_server.token}", wait_until="load"
        )
        recorder.page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell"
            " && window.jupyterapp.commands.hasCommand('notebook:run-all-cells')",
            timeout=SERVER_START_TIMEOUT * 1000,
            polling=250,
        )
        recorder.page.evaluate("() => window.jupyterapp.restored")
        yield LabPage(recorder, lab_server)
    finally:
        context.close()


OPEN_AND_RUN_ALL = """
async (path) => {
  const app = window.jupyterapp;
  const panel = await app.commands.execute(
    "docmanager:open", { path, factory: "Notebook" });
  await panel.context.ready;
  await panel.sessionContext.ready;
  app.shell.activateById(panel.id);
  window.__rn = { panel, done: null };
  // El mismo comando que Run ▸ Run All Cells; la promesa acaba con la última celda.
  app.commands.execute("notebook:run-all-cells").then(
    (ok) => { window.__rn.done = { ok: ok !== false }; },
    (err) => { window.__rn.done = { ok: false, error: String(err) }; });
  return { id: panel.id, kernel: panel.sessionContext.session?.kernel?.name ?? null };
}
"""

KERNEL_IDLE = (
    "() => window.__rn.panel.sessionContext.session?.kernel?.status === 'idle'"
)

CELL_REPORT = """
([mime, errorTexts]) => {
  const panel = window.__rn.panel;
  return panel.content.widgets.map((cell, index) => {
    if (cell.model.type !== "code") return null;
    const source = cell.model.sharedModel.getSource();
    const outputs = cell.model.outputs.toJSON();
    const children = Array.from(
      cell.outputArea.node.querySelectorAll(":scope > .jp-OutputArea-child"));
    const widgets = [];
    outputs.forEach((output, k) => {
      const view = output.data && output.data[mime];
      if (!view) return;
      const node = children[k] && children[k].querySelector(".jp-OutputArea-output");
      const text = node ? node.innerText.trim() : "";
      widgets.push({
        model_id: view.model_id,
        resnorm: !!(node && node.querySelector("section.rn-widget")),
        rendered: !!node && text.length > 0
          && !errorTexts.some((bad) => text.includes(bad)),
        text: text.slice(0, 160),
      });
    });
    return {
      index,
      source: source.slice(0, 120),
      blank: source.trim() === "",
      executed: cell.model.executionCount !== null,
      errors: outputs.filter((o) => o.output_type === "error")
        .map((o) => `${o.ename}: ${o.evalue}`),
      widgets,
    };
  }).filter(Boolean);
}
"""

CLOSE_AND_SHUTDOWN = """
async () => {
  if (!window.__rn) return;
  const panel = window.__rn.panel;
  window.__rn = null;
  panel.context.model.dirty = false;  // sin diálogo de «¿guardar cambios?»
  // Sin esperar: el núcleo se apaga mientras arranca el siguiente notebook (el
  // servidor apaga al final los que queden).
  panel.sessionContext.shutdown().catch(() => {});
  panel.close();
}
"""

RUNNING_CELL = """
() => window.__rn.panel.content.widgets
  .map((c, i) => [i, c])
  .filter(([i, c]) => c.model.type === "code"
    && c.promptNode && c.promptNode.textContent.includes("*"))
  .map(([i, c]) => `celda ${i}: ${c.model.sharedModel.getSource().slice(0, 80)}`)
"""


def _describe(cell) -> str:
    first = cell["source"].strip().splitlines()[0] if cell["source"].strip() else ""
    return f"celda {cell['index']} ({first}…)"


@contextlib.contextmanager
def open_and_run(lab: LabPage, rel_path: str):
    """Abre un notebook en una pestaña de Lab, ejecuta todas sus celdas y lo cierra."""
    page = lab.page
    try:
        opened = lab.js(OPEN_AND_RUN_ALL, rel_path)
        assert opened["kernel"] == "python3", f"{rel_path}: núcleo {opened['kernel']}"
        try:
            page.wait_for_function(
                "() => window.__rn.done !== null",
                timeout=NOTEBOOK_TIMEOUT * 1000,
                polling=500,
            )
        except Exception:
            running = lab.js(RUNNING_CELL)
            lab.js("() => window.__rn.panel.sessionContext.session?.kernel"
                   "?.interrupt()")
            pytest.fail(
                f"{rel_path}: no terminó en {NOTEBOOK_TIMEOUT} s "
                f"(LAB_NOTEBOOK_TIMEOUT); seguía en: {running}"
            )
        page.wait_for_function(KERNEL_IDLE, timeout=60_000, polling=250)
        yield opened
    finally:
        with contextlib.suppress(Exception):
            lab.js(CLOSE_AND_SHUTDOWN)


def cell_report(lab: LabPage, wait_for_widgets: bool = True) -> list[dict]:
    """Estado de cada celda de código; espera (con límite) a que se dibujen los
    widgets."""
    deadline = time.monotonic() + (WIDGET_RENDER_TIMEOUT if wait_for_widgets else 0)
    while True:
        report = lab.js(CELL_REPORT, [WIDGET_MIME, list(WIDGET_ERROR_TEXTS)])
        pending = [w for c in report for w in c["widgets"] if not w["rendered"]]
        if not pending or time.monotonic() > deadline:
            return report
        time.sleep(0.5)


def uses_resnorm_widgets(path: Path) -> bool:
    import anywidget

    import resnorm.widgets as widgets

    widget_names = [
        name for name in widgets.__all__
        if isinstance(getattr(widgets, name), type)
        and issubclass(getattr(widgets, name), anywidget.AnyWidget)
    ]

    code = "\n".join(
        c.source
        for c in nbformat.read(path, as_version=4).cells
        if c.cell_type == "code"
    )
    return any(re.search(rf"\b{name}\s*\(", code) for name in widget_names)


# --- Las pruebas -------------------------------------------------------------------


def test_lab_requirements_share_the_book_pins_for_widgets_and_kernel_protocol():
    """Las extensiones de Lab (anywidget, jupyterlab_widgets) deben ser las versiones
    que el núcleo usa; lo demás que comparten ambos entornos, también."""

    def pins(path: Path) -> dict[str, str]:
        out = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            if "==" in line:
                name, version = line.split("==", 1)
                out[re.sub(r"[-_.]+", "-", name.lower())] = version.strip()
        return out

    book = pins(ROOT / "requirements.txt")
    lab_pins = pins(ROOT / "requirements-lab.txt")
    for name in ("jupyterlab", "jupyterlab-widgets", "anywidget", "ipywidgets"):
        assert name in lab_pins, f"requirements-lab.txt no fija {name}"
    different = {
        name: (book[name], lab_pins[name])
        for name in book.keys() & lab_pins.keys()
        if book[name] != lab_pins[name]
    }
    assert not different, f"Versiones distintas (libro, Lab): {different}"
    unpinned = [
        line for line in (ROOT / "requirements-lab.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#") and "==" not in line
    ]
    assert not unpinned, f"Líneas sin fijar en requirements-lab.txt: {unpinned}"


def lab_path(path: Path) -> str:
    """La ruta del cuaderno del alumno de un capítulo en el servidor de Lab."""
    return f"cuadernos/{path.name}"


def chapter_problems(lab: LabPage, path: Path, opened, report, errors_before):
    """Lo que está mal en un capítulo recién ejecutado en Lab (lista vacía si nada)."""
    rel = lab_path(path)
    tab_title = lab.js(
        "(id) => document.querySelector(`[data-id=\"${id}\"]`)?.innerText ?? ''",
        opened["id"],
    )
    problems = []
    if path.name not in tab_title:
        problems.append(f"la pestaña de Lab dice {tab_title!r}")
    for cell in report:
        for error in cell["errors"]:
            problems.append(f"{_describe(cell)} muestra un error: {error}")
        if not cell["executed"] and not cell["blank"]:
            problems.append(f"{_describe(cell)} no llegó a ejecutarse")
        for widget in cell["widgets"]:
            if not widget["rendered"]:
                problems.append(
                    f"{_describe(cell)}: el widget {widget['model_id']} no se dibujó "
                    f"(muestra {widget['text']!r})"
                )
    widget_console = [
        e for e in lab.recorder.console_errors[errors_before:]
        if "widget" in e.lower()
    ]
    problems += [f"consola: {e}" for e in widget_console]
    if uses_resnorm_widgets(path):
        drawn = [w for c in report for w in c["widgets"] if w["resnorm"]]
        if not drawn:
            problems.append("crea widgets de resnorm, pero ninguno se dibujó en Lab")
    return [f"{rel}: {p}" for p in problems]


# Lab se prueba en dos capítulos, no en todos: cada capítulo ya se ejecuta de arriba
# abajo en «make book» (tests/test_notebooks.py lee esa ejecución) y cada widget se
# prueba en Chromium (test_widgets_browser.py, test_widgets_site.py). Aquí se prueba
# lo que solo Lab tiene: su cliente, el canal de los widgets con el núcleo y sus
# extensiones. Uno es el de la calculadora (prueba de abajo, que además edita una
# entrada); el otro, un capítulo corto con otro widget (BlockStepper).
LAB_CHAPTERS = [p for p in NOTEBOOKS if p.stem.startswith("08_")] or NOTEBOOKS[:1]


@pytest.mark.parametrize("path", LAB_CHAPTERS, ids=lambda p: p.stem)
def test_chapter_runs_in_jupyterlab_without_errors_and_widgets_render(lab, path):
    rel = lab_path(path)
    errors_before = len(lab.recorder.console_errors)
    with open_and_run(lab, rel) as opened:
        report = cell_report(lab)
        problems = chapter_problems(lab, path, opened, report, errors_before)
        problems += run_all_kept_the_learners_work(lab, path)
    assert not problems, "\n".join(problems)


OUTPUT_TEXTS = """
() => window.__rn.panel.content.widgets
  .filter((c) => c.model.type === "code")
  .map((c) => ({
    source: c.model.sharedModel.getSource().slice(0, 80),
    tags: c.model.getMetadata("tags") || [],
    text: c.model.outputs.toJSON().map((o) => [o.text,
      o.data && o.data["text/plain"], o.data && o.data["text/html"]]
      .flat().filter(Boolean).join("")).join("\\n"),
  }))
"""
PASSED_CLASS = "resnorm-feedback-bien"  # el HTML de un comprobador que da el «✓»


def run_all_kept_the_learners_work(lab: LabPage, path: Path) -> list[str]:
    """Tras «Run All» con los ejercicios sin hacer: ningún «✓» de un comprobador (las
    soluciones van plegadas en Markdown y no se ejecutan) y cada función de quien
    aprende sigue siendo su esqueleto en el núcleo."""
    import ast

    problems = []
    for cell in lab.js(OUTPUT_TEXTS):
        lines = (cell["text"] or "").splitlines()
        if PASSED_CLASS in cell["text"] or any(
                line.lstrip().startswith("\u2713 ") for line in lines):
            problems.append(f"un «✓» tras Run All en: {cell['source']}")
    learner = nbformat.read(LEARNER / path.name, as_version=4)
    stubs = {node.name: cell.source for cell in learner.cells
             if "ejercicio" in cell.metadata.get("tags", [])
             for node in ast.parse(cell.source).body
             if isinstance(node, ast.FunctionDef)}
    if not stubs:
        return [f"{path.name}: {p}" for p in problems]
    probe = ("import inspect as _i, json as _j\n"
             "print(_j.dumps({n: _i.getsource(globals()[n])\n"
             f"                for n in {sorted(stubs)}}}))")
    out = lab.js(KERNEL_EXECUTE, probe)
    try:
        now = json.loads(out)
    except ValueError:
        return [f"{path.name}: el núcleo no dio las funciones: {out[:200]}"]
    problems += [f"Run All cambió {name}" for name, code in now.items()
                 if code.strip() not in stubs[name]]
    return [f"{path.name}: {p}" for p in problems]


MEAN_STD_PROBE = "MeanStdCalculator("

WIDGET_MODEL_ID = """
([selector, mime]) => {
  const target = document.querySelector(selector);
  for (const cell of window.__rn.panel.content.widgets) {
    if (cell.model.type !== "code") continue;
    const children = Array.from(
      cell.outputArea.node.querySelectorAll(":scope > .jp-OutputArea-child"));
    const outputs = cell.model.outputs.toJSON();
    for (let k = 0; k < children.length; k++) {
      if (children[k].contains(target) && outputs[k] && outputs[k].data
          && outputs[k].data[mime]) return outputs[k].data[mime].model_id;
    }
  }
  return null;
}
"""

KERNEL_EXECUTE = """
async (code) => {
  const kernel = window.__rn.panel.sessionContext.session.kernel;
  const future = kernel.requestExecute({ code, store_history: false });
  let out = "";
  future.onIOPub = (msg) => {
    // Solo stdout: los avisos (stderr) no son la respuesta.
    if (msg.header.msg_type === "stream" && msg.content.name === "stdout")
      out += msg.content.text;
    if (msg.header.msg_type === "error")
      out += `ERROR ${msg.content.ename}: ${msg.content.evalue}`;
  };
  await future.done;
  return out;
}
"""

NUMBER = r"([−-]?\d+(?:\.\d+)?(?:e[+−-]?\d+)?)"
SUMMARY_RE = re.compile(rf"μ\s*=\s*{NUMBER};.*σ\s*=\s*{NUMBER}")


def _interaction_notebook() -> Path:
    """El capítulo con la calculadora de media y desviación estándar."""
    for path in NOTEBOOKS:
        if MEAN_STD_PROBE in path.read_text(encoding="utf-8"):
            return path
    pytest.fail("Ningún capítulo crea la calculadora (MeanStdCalculator)")


def test_calculator_chapter_runs_and_a_new_input_reaches_page_and_kernel(lab):
    from resnorm import mean, std

    path = _interaction_notebook()
    rel = lab_path(path)
    errors_before = len(lab.recorder.console_errors)
    with open_and_run(lab, rel) as opened:
        report = cell_report(lab)
        problems = chapter_problems(lab, path, opened, report, errors_before)
        problems += run_all_kept_the_learners_work(lab, path)
        assert not problems, "\n".join(problems)
        scope = f'[id="{opened["id"]}"] section.rn-meanstd'
        widget = lab.page.locator(scope).first
        widget.wait_for(state="visible", timeout=WIDGET_RENDER_TIMEOUT * 1000)
        inputs = widget.locator("input.rn-input")
        summary = widget.locator(".rn-summary")
        before = summary.inner_text()
        values = [inputs.nth(i).input_value() for i in range(inputs.count())]
        assert len(values) == 4, f"la calculadora tiene {len(values)} campos"
        new_last = "2.5" if values[-1] != "2.5" else "3.5"
        inputs.nth(3).fill(new_last)
        values[-1] = new_last
        numbers = [float(v.replace(",", ".")) for v in values]
        expected_mean, expected_std = float(mean(numbers)), float(std(numbers))

        match = SUMMARY_RE.search(summary.inner_text())
        assert match, f"no se lee μ y σ en {summary.inner_text()!r}"
        shown_mean, shown_std = (float(g.replace("−", "-")) for g in match.groups())
        assert summary.inner_text() != before, "el resultado no cambió al editar x₄"
        # El widget muestra 4 decimales: el valor correcto, redondeado.
        assert abs(shown_mean - expected_mean) <= 5e-5 + 1e-12, (shown_mean, numbers)
        assert abs(shown_std - expected_std) <= 5e-5 + 1e-12, (shown_std, numbers)

        # El cambio llega al núcleo: el trait «values» del mismo widget en Python.
        model_id = lab.js(WIDGET_MODEL_ID, [scope, WIDGET_MIME])
        assert model_id, "no se encontró el modelo del widget en la salida"
        probe = (
            "import gc, json\n"
            "from resnorm.widgets import MeanStdCalculator\n"
            "print(json.dumps([w.values for w in gc.get_objects()"
            f" if isinstance(w, MeanStdCalculator) and w.model_id == {model_id!r}]))"
        )
        # Holgado: con la máquina ocupada, el mensaje tarda; si llega, no se espera más.
        deadline = time.monotonic() + WIDGET_RENDER_TIMEOUT
        while True:
            out = lab.js(KERNEL_EXECUTE, probe)
            synced = json.loads(out) if out.startswith("[") else out
            if synced == [values] or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert synced == [values], f"el núcleo tiene {synced}, la página {values}"


# --- Los cuadernos del alumno se leen como la página ---------------------------------

OPEN_ONLY = """
async (path) => {
  const app = window.jupyterapp;
  const panel = await app.commands.execute(
    "docmanager:open", { path, factory: "Notebook" });
  await panel.context.ready;
  app.shell.activateById(panel.id);
  window.__rn = { panel, done: null };
  return { id: panel.id };
}
"""

MARKDOWN_RENDERED = """
() => window.__rn.panel.content.widgets
  .filter((c) => c.model.type === "markdown")
  .every((c) => c.rendered && c.node.querySelector(".jp-RenderedMarkdown"))
"""

READ_REPORT = """
() => {
  const content = window.__rn.panel.content;
  const cells = content.widgets;
  const tagged = (tag) => cells.filter(
    (c) => (c.model.getMetadata("tags") || []).includes(tag));
  const rendered = content.node.querySelectorAll(".jp-RenderedMarkdown");
  return {
    prose: Array.from(rendered).map((n) => n.innerText).join("\\n"),
    text: content.node.innerText,
    solutions: tagged("solucion").map((c) => ({
      type: c.model.type,
      folded: !!c.node.querySelector(".jp-RenderedMarkdown details:not([open])"),
      source: c.model.sharedModel.getSource() })),
    stubs: tagged("ejercicio").map((c) => c.model.sharedModel.getSource()),
    details: content.node.querySelectorAll(".jp-RenderedMarkdown details").length,
    open: content.node.querySelectorAll(".jp-RenderedMarkdown details[open]").length,
    images: Array.from(content.node.querySelectorAll(".jp-RenderedMarkdown img"))
      .map((i) => ({ alt: i.alt, drawn: i.complete && i.naturalWidth > 0 })),
  };
}
"""

RAW_MARKUP = ("{glue", "{numref", "{cite", ":::{", "```{", "{term}", "{doc}", "{ref}")


def page_glued_texts(path: Path) -> list[str]:
    """Lo que la página web muestra de cada valor pegado (``span.pasted-text``)."""
    soup = built_soup(path.relative_to(ROOT).with_suffix(".html").as_posix())
    return [" ".join(s.get_text().split()) for s in soup.select("span.pasted-text")]


@contextlib.contextmanager
def open_to_read(lab: LabPage, rel_path: str):
    """Abre un cuaderno en Lab, sin ejecutarlo, y espera a que dibuje su prosa."""
    try:
        lab.js(OPEN_ONLY, rel_path)
        lab.page.wait_for_function(MARKDOWN_RENDERED, timeout=60_000, polling=250)
        time.sleep(1)  # las imágenes adjuntas y MathJax, tras dibujar el Markdown
        # Con el núcleo conectado, Lab reescribe el kernelspec si no es el suyo y
        # marca el cuaderno como modificado: al cerrarlo, «¿guardar cambios?».
        lab.page.wait_for_function(
            "() => window.__rn.panel.sessionContext.isReady", timeout=60_000)
        time.sleep(1)
        report = lab.js(READ_REPORT)
        report["dirty"] = lab.js("() => window.__rn.panel.context.model.dirty")
        yield report
    finally:
        with contextlib.suppress(Exception):
            lab.js(CLOSE_AND_SHUTDOWN)


READ_CHAPTERS = [p for p in NOTEBOOKS if p.stem.startswith(("04_", "10_"))]


@pytest.mark.build
@pytest.mark.parametrize("path", READ_CHAPTERS, ids=lambda p: p.stem)
def test_learner_notebook_reads_like_the_page_in_jupyterlab(lab, path):
    with open_to_read(lab, lab_path(path)) as report:
        pass
    assert not report["dirty"], (
        f"{path.name}: recién abierto, Lab lo marca como modificado (el kernelspec "
        "de book/_ext/cuadernos.py no es el del núcleo de Lab)")
    prose = " ".join(report["prose"].split())
    raw = [m for m in RAW_MARKUP if m in report["text"]]
    assert not raw, f"{path.name}: Lab muestra en bruto {raw}"
    # Los números de la prosa, los mismos que en la página web.
    glued = page_glued_texts(path)
    assert glued, f"{path.name}: la página no pega ningún valor"
    missing = [t for t in glued if t not in prose]
    assert not missing, f"{path.name}: la página dice {missing[:5]}, Lab no"
    # Las soluciones, plegadas; los ejercicios, por escribir.
    source = nbformat.read(path, as_version=4)
    n_solutions = sum("solucion" in c.metadata.get("tags", []) for c in source.cells)
    assert len(report["solutions"]) == n_solutions > 0, path.name
    learner = nbformat.read(LEARNER / path.name, as_version=4)
    others = [c.source for c in learner.cells
              if "solucion" not in c.metadata.get("tags", [])]
    for solution in report["solutions"]:
        # Markdown plegado (Run All no lo ejecuta), dibujado como <details> cerrado.
        assert solution["type"] == "markdown" and solution["folded"], solution["source"]
        # Ninguna línea propia de la solución se lee en la pestaña.
        code = "\n".join(re.findall(r"```python\n(.*?)\n```", solution["source"], re.S))
        own = [line.strip() for line in code.splitlines()[1:]
               if line.strip() and not any(line in other for other in others)]
        shown = [line for line in own if line in report["text"]]
        assert own and not shown, f"{path.name}: la solución se lee: {shown[:2]}"
    assert report["stubs"] and all("NotImplementedError" in s for s in report["stubs"])
    assert report["open"] == 0, f"{path.name}: un <details> abierto"
    # Las figuras de la prosa (adjuntas o SVG) se dibujan con su texto alternativo.
    figures = sum(c.source.count("![") for c in learner.cells
                  if c.cell_type == "markdown")
    assert len(report["images"]) == figures
    assert all(i["drawn"] and i["alt"] for i in report["images"]), report["images"]


# --- Lab en español -------------------------------------------------------------------


def english_menu_titles() -> set[str]:
    """Los títulos del menú de Lab como los escribe Lab, en inglés: los de los esquemas
    de sus extensiones (``jupyter.lab.menus``), que traduce el paquete de idioma."""
    titles = set()
    for schema in (LAB_VENV / "share" / "jupyter" / "lab" / "schemas").rglob("*.json"):
        menus = json.loads(schema.read_text(encoding="utf-8")).get("jupyter.lab.menus")
        titles |= {m["label"] for m in (menus or {}).get("main", []) if "label" in m}
    return titles


#: En inglés a propósito: *kernel*, la palabra que el curso usa tal cual
#: (book/glosario.md, «*kernel* de Jupyter»), como el paquete de idioma.
AS_IS = {"Kernel"}

MENU_BAR = """() => [...document.querySelectorAll('#jp-MainMenu .lm-MenuBar-itemLabel')]
  .map((e) => e.textContent)"""
FILE_BROWSER_HEADERS = """() => [...document.querySelectorAll(
  '.jp-FileBrowser .jp-DirListing-headerItemText')]
  .filter((e) => e.offsetParent !== null).map((e) => e.textContent)"""


def test_jupyterlab_menu_bar_and_file_browser_speak_spanish(lab):
    # El paquete de idioma 4.5.post3 deja «Run», «Tabs» y la columna «Modified» en
    # inglés; binder/overrides.json los arregla (binder/postBuild dice cómo y por qué).
    english = english_menu_titles()
    assert {"File", "Run", "Tabs", "Kernel"} <= english, english
    shown = lab.js(MENU_BAR)
    assert shown == ["Archivo", "Editar", "Ver", "Ejecutar", "Kernel", "Pestañas",
                     "Configuración", "Ayuda"], shown
    assert not (set(shown) & english) - AS_IS, shown
    headers = lab.js(FILE_BROWSER_HEADERS)
    assert headers == ["Nombre"], headers
