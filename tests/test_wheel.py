"""La rueda de resnorm se instala y se importa con sus dependencias declaradas.

Es lo que hace Colab: ``pip install`` del paquete, sin el requirements.txt del libro.
La prueba construye la rueda, la instala en un entorno virtual limpio (solo lo que
declara ``pyproject.toml``) e importa cada módulo que lleva. PyTorch es un extra
(``resnorm[torch]``): sin él, solo ``resnorm.blocks``, ``resnorm.experiments`` y
``resnorm.gpt`` fallan, y por falta de torch; con el extra, se importan todos.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow

#: Los módulos que importan torch al cargarse: necesitan el extra «torch».
NEEDS_TORCH = {"resnorm.blocks", "resnorm.experiments", "resnorm.gpt",
               "resnorm.widgets.gpt_playground"}

#: Importaciones opcionales, protegidas con try/except: resnorm.book pega valores con
#: myst-nb solo si está (al construir el libro).
OPTIONAL = {"myst_nb"}

#: Las extensiones de Sphinx se van de resnorm al libro (book/_ext) en otra rama.
#: Mientras sigan aquí, no cuentan: importan Sphinx, babel y fontTools, que resnorm no
#: declara. Quitar este salto cuando ya no estén en resnorm/.
def _run(*args, **kwargs):
    out = subprocess.run(args, capture_output=True, text=True, **kwargs)
    command = " ".join(map(str, args))
    assert out.returncode == 0, f"{command}\n{out.stdout}\n{out.stderr}"
    return out.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, ROOT)
    [built] = dist.glob("resnorm-*.whl")
    return built


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory, wheel) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    _run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    _run(python, "-m", "pip", "install", "-q", "--no-compile", wheel)
    return python


def _modules(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as zf:
        names = [n for n in zf.namelist() if n.startswith("resnorm/")]
    modules = []
    for name in names:
        if name.endswith(".py"):
            module = name[: -len(".py")].replace("/", ".")
            modules.append(module.removesuffix(".__init__"))
    return sorted(set(modules))


def _imported_packages(wheel: Path) -> set[str]:
    """Los paquetes de primer nivel que importa algún módulo, también dentro de
    funciones (las importaciones perezosas también son dependencias)."""
    found = set()
    with zipfile.ZipFile(wheel) as zf:
        for module in _modules(wheel):
            path = module.replace(".", "/")
            name = f"{path}.py"
            if name not in zf.namelist():
                name = f"{path}/__init__.py"
            for node in ast.walk(ast.parse(zf.read(name))):
                if isinstance(node, ast.Import):
                    found |= {a.name.split(".")[0] for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"resnorm", "__future__"}


_IMPORT_ALL = """
import importlib, json, sys
result = {}
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
        result[name] = None
    except ModuleNotFoundError as exc:
        result[name] = exc.name
print(json.dumps(result))
"""

_FIND = """
import importlib.util, json, sys
print(json.dumps([n for n in sys.argv[1:] if importlib.util.find_spec(n) is None]))
"""


def _in_venv(python: Path, code: str, args, cwd: Path) -> dict | list:
    # -I: ni el directorio actual ni PYTHONPATH; cwd fuera del repositorio, para que
    # se importe la resnorm instalada y no la de la carpeta.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return json.loads(_run(python, "-I", "-c", code, *args, cwd=cwd, env=env))


def test_the_wheel_holds_the_package_and_its_widget_assets(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    assert "resnorm/__init__.py" in names and "resnorm/numerics.py" in names
    assert "resnorm/widgets/compute.js" in names  # los widgets cargan su JavaScript
    assert not any(n.startswith(("tests/", "notebooks/", "book/")) for n in names)


def test_every_module_imports_with_only_the_declared_dependencies(
    wheel, clean_venv, tmp_path
):
    modules = _modules(wheel)
    assert "resnorm.numerics" in modules and "resnorm.exercises.ch04" in modules
    missing = _in_venv(clean_venv, _IMPORT_ALL, modules, tmp_path)
    failed = {name: dep for name, dep in missing.items() if dep is not None}
    assert failed == dict.fromkeys(NEEDS_TORCH, "torch"), failed


def test_every_package_any_module_imports_is_declared(wheel, clean_venv, tmp_path):
    packages = sorted(_imported_packages(wheel))
    assert {"numpy", "matplotlib", "anywidget", "torch"} <= set(packages)
    absent = set(_in_venv(clean_venv, _FIND, packages, tmp_path))
    assert absent == {"torch"} | (OPTIONAL & set(packages)), absent


def test_the_declared_dependencies_are_what_the_comments_say():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["optional-dependencies"]["torch"] == ["torch"]
    assert not any("torch" in dep for dep in project["dependencies"])


# --- La celda de Colab: rangos, no pines --------------------------------------------

#: Lo que trae Colab instalado, según sus propios anuncios (googlecolab/colabtools, la
#: etiqueta «announce»): NumPy 2.0.2 desde el issue 5115 («Upgrade NumPy to 2.0.2»,
#: febrero de 2025, sin otro anuncio después); torch 2.9 desde el issue 5661
#: («Upgrading PyTorch v2.9.0», en el que el equipo de PyTorch dice en enero de 2026
#: que Colab ya usa torch 2.9), en su rueda para CUDA. Si Colab anuncia otras, se
#: cambian aquí: la prueba dice entonces si los rangos de pyproject.toml las aceptan.
COLAB = {"numpy": "2.0.2", "torch": "2.9.0+cu126"}


def _declared() -> list:
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    extras = [d for deps in project["optional-dependencies"].values() for d in deps]
    return [Requirement(d) for d in project["dependencies"] + extras]


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if "==" in line and not line.startswith("-"):
            name, version = line.split("==")
            pins[name.strip().lower()] = version.strip()
    return pins


def test_declared_dependencies_are_ranges_that_accept_colab_and_the_course_pins():
    """Sin «==»: la celda de Colab instala resnorm sobre lo que Colab ya tiene (sus
    versiones, ``COLAB``) y sobre las del libro (requirements.txt)."""
    declared = _declared()
    assert {r.name for r in declared} >= {"numpy", "torch", "matplotlib"}
    book = _pins(ROOT / "requirements.txt")
    for requirement in declared:
        operators = {spec.operator for spec in requirement.specifier}
        assert not operators & {"==", "==="}, f"{requirement}: un pin, no un rango"
        for version in (COLAB.get(requirement.name), book.get(requirement.name)):
            if version:
                assert requirement.specifier.contains(version), (
                    f"{requirement} no acepta {version}")


def skip_if_offline(python: Path) -> None:
    """Tras un «pip install» fallido: si pip no llega al índice de paquetes (pregunta
    por pip mismo, que está seguro), la prueba se salta y lo dice; si llega, el fallo
    es otro y la prueba sigue (y falla)."""
    out = subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check",
                          "index", "versions", "pip"], capture_output=True, text=True,
                         timeout=300)
    if out.returncode != 0:
        pytest.skip("Sin conexión con el índice de paquetes (pip index versions pip "
                    f"falla): no se puede crear el entorno.\n{out.stderr[-500:]}")


def _pip(python: Path, *args: str) -> str:
    out = subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check",
                          *args], capture_output=True, text=True, timeout=900)
    if out.returncode != 0 and args[0] == "install":
        skip_if_offline(python)
    assert out.returncode == 0, f"pip {' '.join(args)}\n{out.stdout}\n{out.stderr}"
    return out.stdout


def _freeze(python: Path) -> dict[str, str]:
    """Nombre → versión (o «@ URL», lo instalado desde una dirección)."""
    lines = _pip(python, "freeze", "--all").splitlines()
    return dict(line.replace(" @ ", "==@ ", 1).split("==", 1) for line in lines)


def test_the_colab_cell_changes_neither_numpy_nor_torch(wheel, tmp_path):
    """Un entorno que ya tiene otra NumPy que la del libro (la de Colab) y el torch
    del libro (la rueda CPU): instalar resnorm como lo hace la celda de Colab («pip
    install "resnorm @ …"», con sus dependencias) no cambia la versión de nada de lo
    que había; solo añade."""
    numpy = COLAB["numpy"]
    torch = _pins(ROOT / "requirements.txt")["torch"]
    assert numpy != _pins(ROOT / "requirements.txt")["numpy"]
    venv = tmp_path / "colab"
    _run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    _pip(python, "install", "-q", "--no-compile", f"numpy=={numpy}",
         f"torch=={torch}")
    before = _freeze(python)
    assert before["numpy"] == numpy and before["torch"].split("+")[0] == torch
    _pip(python, "install", "-q", "--no-compile", f"resnorm @ {wheel.as_uri()}")
    after = _freeze(python)
    changed = {name: (version, after.get(name)) for name, version in before.items()
               if after.get(name) != version}
    assert not changed, f"la celda de Colab cambió {changed}"
    assert after["resnorm"].startswith(f"@ {wheel.as_uri()}") and "anywidget" in after
    _pip(python, "check")


# Con el extra «torch» se importan también blocks y experiments: lo garantizan la
# prueba anterior (lo único que les falta en el entorno limpio es torch) y la de los
# paquetes importados (todo lo demás está declarado). Instalar torch en otro entorno
# costaba unos 6 minutos de CI para no probar nada nuevo.


_FIRST_CELL = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
out = {}
for name, source, imports in json.load(sys.stdin):
    first = shell.run_cell(source)
    error = first.error_in_exec
    rest = shell.run_cell(imports) if error is None else None
    out[name] = {
        "error": type(error).__name__ if error else None,
        "message": str(error) if error else "",
        "imports": (type(rest.error_in_exec).__name__ if rest and rest.error_in_exec
                    else None),
    }
print(json.dumps(out))
"""


def test_without_torch_the_first_cell_stops_in_spanish_before_the_lesson(
        clean_venv, tmp_path):
    """Un núcleo con resnorm y sin torch (un hub, un Jupyter propio): los capítulos
    que lo necesitan paran en la primera celda con un mensaje en español que dice qué
    instalar (torch para CPU); los que no, siguen (sus importaciones funcionan)."""
    import nbformat

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    from cuadernos import celda_de_instalacion, necesita_torch

    from tests.helpers import notebook_paths

    jobs, needs = [], {}
    for path in notebook_paths():
        nb = nbformat.read(path, as_version=4)
        needs[path.stem] = necesita_torch(nb)
        imports = "\n".join(
            line for c in nb.cells if c.cell_type == "code"
            and "google.colab" not in c.source for line in c.source.splitlines()
            if line.startswith(("import ", "from ")) and "(" not in line)
        jobs.append((path.stem, celda_de_instalacion("https://x.invalid/r", "0" * 40,
                                                     needs[path.stem]), imports))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    done = subprocess.run([str(clean_venv), "-I", "-c", _FIRST_CELL], cwd=tmp_path,
                          input=json.dumps(jobs), capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for name, result in results.items():
        if needs[name]:
            assert result["error"] == "ModuleNotFoundError", (name, result)
            assert "necesita PyTorch" in result["message"], result["message"]
            assert "versión para CPU" in result["message"], result["message"]
        else:
            assert result == {"error": None, "message": "", "imports": None}, (
                name, result)
    assert sum(needs.values()) >= 10 and not all(needs.values())
