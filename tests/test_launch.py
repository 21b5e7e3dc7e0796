"""Lanzar cada capítulo: Binder, Colab, JupyterHub, código en vivo y descargas.

El repositorio y la rama se declaran una sola vez en ``_config.yml`` (``repository``);
de ahí salen los botones de cada página de notebook. Binder, Colab, el hub y la
descarga abren el cuaderno del alumno (``book/_ext/cuadernos.py``), no la fuente: la
publicación copia ``_build/html/cuadernos`` a la rama ``cuadernos_rama``, con
``binder/`` como ``.binder/``, y Binder construye esa rama. Estas pruebas leen el
sitio construido y comprueban cada URL pieza a pieza (servicio, repositorio, rama,
ruta del cuaderno), que la configuración de Binder es la que repo2docker lee y
coincide con ``requirements.txt``, y que la descarga del ``.ipynb`` es el cuaderno
del alumno, válido y que importa resnorm.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import nbformat
import pytest
import yaml
from bs4 import BeautifulSoup
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from tests.helpers import BUILD_HTML, ROOT, built_soup, free_port, notebook_paths

sys.path.insert(0, str(ROOT / "book" / "_ext"))

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
REPOSITORY = CONFIG["repository"]
LAUNCH = CONFIG["launch_buttons"]
LEARNER_BRANCH = CONFIG["cuadernos_rama"]
LEARNER = BUILD_HTML / "cuadernos"
NOTEBOOKS = notebook_paths()
BINDER = ROOT / "binder"
PYTORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
LAUNCH_URLS = ("binderhub_url", "colab_url", "jupyterhub_url")


def repo_parts() -> tuple[str, str]:
    """(organización, repositorio) de ``repository.url``."""
    parts = urlsplit(REPOSITORY["url"])
    org, repo = parts.path.strip("/").split("/")
    return org, repo


def repo_path(notebook: Path) -> str:
    """Ruta del notebook dentro del repositorio, como la ven Binder, Colab y el hub."""
    book = REPOSITORY.get("path_to_book", "").strip("/")
    rel = notebook.relative_to(ROOT / book if book else ROOT).as_posix()
    return f"{book}/{rel}" if book else rel


def page_of(notebook: Path) -> Path:
    return BUILD_HTML / notebook.relative_to(ROOT).with_suffix(".html")


SERVICE_ICONS = {"logo_binder": "Binder", "logo_colab": "Colab",
                 "logo_jupyterhub": "JupyterHub"}


def launch_links(soup) -> dict[str, str]:
    """Los enlaces del menú del cohete de una página, por servicio (según su
    logotipo: el texto del botón puede traducirse)."""
    out = {}
    for a in soup.select(".dropdown-launch-buttons a.dropdown-item"):
        icon = a.find("img")
        name = Path(icon["src"]).stem if icon else a.get_text(" ", strip=True)
        out[SERVICE_ICONS.get(name, name)] = a["href"]
    thebe = soup.select_one(".dropdown-launch-buttons .btn-launch-thebe")
    if thebe is not None:
        out["Thebe"] = thebe.get("onclick", "")
    return out


# --- Un solo ajuste en _config.yml -------------------------------------------------


def test_repository_is_declared_once_as_a_github_url_and_branch():
    parts = urlsplit(REPOSITORY["url"])
    assert parts.scheme == "https" and parts.netloc == "github.com", REPOSITORY["url"]
    assert len(parts.path.strip("/").split("/")) == 2, "ORG/REPO"
    assert REPOSITORY.get("branch"), "falta repository.branch"
    text = (ROOT / "_config.yml").read_text(encoding="utf-8")
    assert text.count(REPOSITORY["url"]) == 1, "la URL del repositorio aparece repetida"
    assert LAUNCH["thebe"] is True
    for key in LAUNCH_URLS:
        if not LAUNCH.get(key):
            continue  # destino sin configurar: su botón no se muestra
        url = urlsplit(LAUNCH[key])
        assert url.scheme == "https" and url.netloc, (key, url)
        assert url.path in ("", "/"), (key, url)
        assert not url.netloc.endswith((".example.edu", ".example.com", ".example.org",
                                        "example.com", ".invalid", ".test")), url
    assert LAUNCH["notebook_interface"] == "jupyterlab"


def test_no_launch_target_is_a_placeholder():
    text = (ROOT / "_config.yml").read_text(encoding="utf-8")
    assert "example.edu" not in text and "example.com" not in text


def test_an_unconfigured_launch_target_is_dropped():
    from curso_sitio import configure_launch_targets

    options = {
        "repository_url": REPOSITORY["url"],
        "use_repository_button": True,
        "launch_buttons": {"binderhub_url": "https://mybinder.org", "colab_url": "",
                           "jupyterhub_url": "", "thebe": True},
    }
    kept = configure_launch_targets(options)["launch_buttons"]
    assert kept == {"binderhub_url": "https://mybinder.org", "thebe": True}
    # Sin BinderHub no hay código en vivo (Thebe arranca allí sus núcleos).
    no_binder = dict(options, launch_buttons={"binderhub_url": "", "thebe": True})
    assert configure_launch_targets(no_binder)["launch_buttons"] == {}
    # Sin repositorio no hay nada que abrir: ni lanzamientos ni botón de GitHub.
    bare = configure_launch_targets(dict(options, repository_url=""))
    assert bare["launch_buttons"] == {} and bare["use_repository_button"] is False


# Thebe con la red cortada de otra forma: el BinderHub «responde» (fetch) y thebelab es
# un doble que guarda las opciones con que se arranca.
_THEBE_STUB_JS = """() => {
  window.fetch = () => Promise.resolve({});
  window.thebelab = {on() {}, bootstrap(options) { window.__thebe = options; }};
  window.initThebe();
}"""


def test_thebe_and_the_binder_button_use_the_same_binderhub(page_factory, site_url):
    # codigo-en-vivo.js arranca Thebe con el BinderHub del botón de Binder (el que la
    # construcción escribe en la página) y sin MathJax 2 de cdnjs.
    rec = page_factory()
    page = rec.next_visit()
    rel = page_of(NOTEBOOKS[0]).relative_to(BUILD_HTML).as_posix()
    page.goto(f"{site_url}/{rel}", wait_until="load")
    page.evaluate(_THEBE_STUB_JS)
    page.wait_for_function("() => window.__thebe", timeout=10_000)
    options = page.evaluate("() => window.__thebe")
    binder = LAUNCH["binderhub_url"].rstrip("/")
    assert options["binderOptions"]["binderUrl"] == binder, options
    assert options["mathjaxUrl"] is False, options  # sin MathJax 2 de cdnjs


@pytest.mark.build
def test_live_code_loads_thebe_from_the_site_never_from_a_cdn(built_site):
    for notebook in NOTEBOOKS:
        html = page_of(notebook).read_text(encoding="utf-8")
        match = re.search(r'const THEBE_JS_URL = "([^"]+)"', html)
        assert match, notebook
        assert not urlsplit(match.group(1)).netloc, match.group(1)
        target = (page_of(notebook).parent / match.group(1)).resolve()
        assert target.is_file(), target
        assert "unpkg.com" not in html and "cdnjs" not in html


# --- Los botones de cada página de notebook ----------------------------------------


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=lambda p: p.stem)
def notebook_page(request, built_site):
    path = request.param
    page = page_of(path)
    assert page.exists(), f"No se construyó {page.relative_to(ROOT)}"
    return path, built_soup(page)


def test_learner_notebooks_come_from_their_own_branch():
    assert LEARNER_BRANCH and LEARNER_BRANCH != REPOSITORY["branch"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"`{LEARNER_BRANCH}`" in readme and "_build/html/cuadernos" in readme
    # El hub (su imagen sale de binder/, README) trae los cuadernos con nbgitpuller:
    # va en el entorno.
    binder_reqs, _ = read_requirements(BINDER / "requirements.txt")
    assert "nbgitpuller" in pins_of(binder_reqs)


def pulled(url: str) -> dict[str, list[str]]:
    """La consulta de nbgitpuller (``git-pull?repo=…``) de un enlace."""
    pull = urlsplit(url)
    assert pull.path.rsplit("/", 1)[-1] == "git-pull", url
    return parse_qs(pull.query, strict_parsing=True)


@pytest.mark.build
def test_binder_button_opens_the_learner_notebook_with_the_binder_environment(
        notebook_page):
    path, soup = notebook_page
    org, repo = repo_parts()
    url = urlsplit(launch_links(soup)["Binder"])
    hub = urlsplit(LAUNCH["binderhub_url"])
    assert (url.scheme, url.netloc) == (hub.scheme, hub.netloc)
    # Binder construye la rama de los cuadernos: su .binder/ es el de la publicación
    # y su resnorm, el del commit fuente (tools/publish.py, tests/test_publicar.py).
    assert url.path.split("/")[1:] == ["v2", "gh", org, repo, LEARNER_BRANCH]
    assert parse_qs(url.query, strict_parsing=True) == {
        "urlpath": [f"lab/tree/{path.name}"]}
    assert (LEARNER / path.name).is_file()


@pytest.mark.build
def test_colab_button_opens_the_learner_notebook_from_its_branch(notebook_page):
    path, soup = notebook_page
    org, repo = repo_parts()
    url = urlsplit(launch_links(soup)["Colab"])
    colab = urlsplit(LAUNCH["colab_url"])
    assert (url.scheme, url.netloc) == (colab.scheme, colab.netloc)
    assert url.path == f"/github/{org}/{repo}/blob/{LEARNER_BRANCH}/{path.name}"
    assert not url.query
    assert (LEARNER / path.name).is_file()


@pytest.mark.build
def test_jupyterhub_button_pulls_the_repository_with_nbgitpuller(notebook_page):
    path, soup = notebook_page
    _, repo = repo_parts()
    if not LAUNCH.get("jupyterhub_url"):
        assert "JupyterHub" not in launch_links(soup), "botón de un hub sin configurar"
        return
    url = urlsplit(launch_links(soup)["JupyterHub"])
    hub = urlsplit(LAUNCH["jupyterhub_url"])
    assert (url.scheme, url.netloc) == (hub.scheme, hub.netloc)
    assert url.path == "/hub/user-redirect/git-pull"
    # nbgitpuller clona en una carpeta con el nombre del repositorio.
    assert pulled(launch_links(soup)["JupyterHub"]) == {
        "repo": [REPOSITORY["url"]],
        "branch": [LEARNER_BRANCH],
        "urlpath": [f"lab/tree/{repo}/{path.name}"],
    }


@pytest.mark.build
def test_live_code_button_starts_thebe_on_this_repository_and_branch(notebook_page):
    path, soup = notebook_page
    org, repo = repo_parts()
    assert launch_links(soup).get("Thebe") == "initThebeSBT()"
    config = soup.select_one('script[type="text/x-thebe-config"]')
    assert config is not None, "falta la configuración de Thebe"
    text = config.string
    assert re.search(rf'repo:\s*"{org}/{repo}"', text), text
    assert re.search(rf'ref:\s*"{REPOSITORY["branch"]}"', text), text
    assert re.search(r'name:\s*"python3"', text), text
    folder = Path(repo_path(path)).parent.as_posix()
    assert re.search(rf'path:\s*"\./{folder}"', text), text
    scripts = [s.get("src", "") for s in soup.find_all("script")]
    assert any("sphinx-thebe.js" in s for s in scripts), scripts
    thebe = next(i for i, s in enumerate(scripts) if "sphinx-thebe.js" in s)
    ours = next(i for i, s in enumerate(scripts) if "codigo-en-vivo.js" in s)
    assert thebe < ours, "codigo-en-vivo.js debe ejecutarse después de sphinx-thebe.js"


@pytest.mark.build
def test_notebook_page_offers_the_ipynb_and_print_to_pdf(notebook_page):
    path, soup = notebook_page
    source = soup.select_one(".dropdown-download-buttons a.btn-download-source-button")
    assert source is not None, "falta el botón de descarga del .ipynb"
    assert source.get_text(strip=True) == ".ipynb"
    target = (page_of(path).parent / source["href"]).resolve()
    assert target == (LEARNER / path.name).resolve()
    assert soup.select_one(".dropdown-download-buttons .btn-download-pdf-button")
    repo_button = soup.select_one("a.btn-source-repository-button")
    assert repo_button is not None and repo_button["href"] == REPOSITORY["url"]


def _imports_resnorm(nb) -> bool:
    from IPython.core.inputtransformer2 import TransformerManager

    transform = TransformerManager().transform_cell
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(transform(cell.source))):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            if any(m.split(".")[0] == "resnorm" for m in modules):
                return True
    return False


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_downloaded_ipynb_is_a_valid_notebook_that_imports_resnorm(path, site_url):
    page_url = f"{site_url}/{path.relative_to(ROOT).with_suffix('.html').as_posix()}"
    with urllib.request.urlopen(page_url, timeout=10) as response:
        soup = BeautifulSoup(response.read(), "html.parser")
    link = soup.select_one("a.btn-download-source-button")
    assert link is not None, f"{page_url}: sin botón de descarga"
    download = urljoin(page_url, link["href"])
    with urllib.request.urlopen(download, timeout=10) as response:
        assert response.status == 200
        data = response.read()
    nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    assert _imports_resnorm(nb), f"{path.name}: la descarga no importa resnorm"
    # Es el mismo cuaderno que abren Binder, Colab y el hub, no la fuente MyST.
    assert data == (LEARNER / path.name).read_bytes(), f"{path.name}: otro cuaderno"
    assert "{glue:" not in data.decode("utf-8"), f"{path.name}: es la fuente"


# --- Binder: la configuración que lee repo2docker ----------------------------------

# repo2docker mira primero binder/ (o .binder/); si existe, ignora los archivos de la
# raíz. Estos archivos de binder/ harían que eligiera otro «buildpack» (Docker,
# conda, pipenv, Nix...) en lugar del de Python con requirements.txt.
OTHER_BUILDPACKS = (
    "Dockerfile", "environment.yml", "Pipfile", "Pipfile.lock", "default.nix",
    "Project.toml", "REQUIRE", "install.R", "DESCRIPTION", "setup.py",
)


def test_binder_folder_is_the_config_repo2docker_reads():
    assert BINDER.is_dir()
    assert not (ROOT / ".binder").exists(), "binder/ y .binder/: repo2docker falla"
    present = {p.name for p in BINDER.iterdir()}
    assert present & set(OTHER_BUILDPACKS) == set(), present
    assert {"requirements.txt", "runtime.txt"} <= present, present


def test_binder_runtime_is_the_python_of_the_book_environment():
    runtime = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    assert runtime == "python-3.11"
    assert runtime == f"python-{sys.version_info.major}.{sys.version_info.minor}"


def read_requirements(path: Path, seen=None) -> tuple[list[str], list[str]]:
    """(requisitos, opciones) de un requirements.txt, siguiendo ``-r`` como pip:
    relativo a la carpeta del archivo que lo incluye."""
    seen = set() if seen is None else seen
    path = path.resolve()
    assert path not in seen, f"-r circular en {path}"
    seen.add(path)
    reqs, options = [], []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("-r ", "--requirement ")):
            sub_reqs, sub_opts = read_requirements(path.parent / line.split()[1], seen)
            reqs += sub_reqs
            options += sub_opts
        elif line.startswith("-"):
            options.append(line)
        else:
            reqs.append(line)
    return reqs, options


def pins_of(lines: list[str]) -> dict[str, list[str]]:
    pins: dict[str, list[str]] = {}
    for line in lines:
        req = Requirement(line)
        name = re.sub(r"[-_.]+", "-", req.name.lower())
        pins.setdefault(name, []).append(str(req.specifier))
    return pins


def test_binder_pins_are_requirements_txt_with_the_cpu_torch_wheel():
    book_reqs, book_opts = read_requirements(ROOT / "requirements.txt")
    binder_reqs, binder_opts = read_requirements(BINDER / "requirements.txt")
    book, binder = pins_of(book_reqs), pins_of(binder_reqs)

    # Los pines de requirements.txt, copiados (sin «-e .»: resnorm va en postBuild)...
    for name, specs in book.items():
        if name != "torch":
            assert binder.get(name) == specs, (
                f"binder/requirements.txt: {name} {binder.get(name)} y no {specs} "
                "(cópialo de requirements.txt)")
    # ...y solo añade torch (rueda +cpu), nbgitpuller (el botón de Binder trae con él
    # los cuadernos del alumno de su rama) y JupyterLab en español.
    extra = sorted(set(binder) - set(book))
    assert extra == ["jupyterlab-language-pack-es-es", "nbgitpuller"], extra
    added = set(binder_opts) - set(book_opts) - {"-e ."}
    assert added == {f"--extra-index-url {PYTORCH_CPU_INDEX}"}, added
    assert not any(o.startswith(("--index-url", "-i ")) for o in binder_opts), (
        "--index-url reemplazaría PyPI: el de PyTorch va como --extra-index-url"
    )
    (book_torch,) = book["torch"]
    version = book_torch.removeprefix("==")
    assert book_torch == f"=={version}", book_torch
    assert binder["torch"] == [f"=={version}+cpu"]
    assert SpecifierSet(book_torch).contains(f"{version}+cpu")  # la misma versión
    assert not [n for n in binder if n.startswith(("nvidia-", "cuda", "triton"))]


def is_local_pip_requirement(line: str) -> bool:
    """La regla de repo2docker (repo2docker/utils.py, is_local_pip_requirement): una
    línea así hace que instale requirements.txt después de copiar el repositorio."""
    line = line.split("#", 1)[0].strip()
    if not line or line.startswith("--pre"):
        return False
    if line.startswith(("-r", "-c", "--requirement", "--constraint")):
        return True
    if line.startswith("--") and "=" in line:
        line = line.split("=", 1)[1]
    if line.startswith("-"):
        rest = line.split(None, 1)[1:]
        if not rest:
            return False
        line = rest[0]
    if "file://" in line:
        return True
    return (line.split("://", 1)[1] if "://" in line else line).startswith(".")


def test_binder_installs_the_pins_before_copying_the_repository():
    lines = (BINDER / "requirements.txt").read_text(encoding="utf-8").splitlines()
    local = [line for line in lines if is_local_pip_requirement(line)]
    assert not local, (
        f"binder/requirements.txt: {local}: repo2docker instalaría todo después de "
        "copiar el repositorio, y cada push reconstruiría el entorno")
    assert is_local_pip_requirement("-e .") and is_local_pip_requirement("-r ../r.txt")


def test_repo2docker_installs_the_pins_before_copying_the_repository():
    # El Dockerfile que haría Binder (repo2docker --no-build, sin Docker): la capa de
    # los pines va antes de la que copia el repositorio, así que un push que no toca
    # binder/requirements.txt la reutiliza; resnorm, en postBuild, después.
    repo2docker = Path(sys.executable).with_name("repo2docker")
    done = subprocess.run(
        [str(repo2docker), "--no-build", "--user-id", "1000", "--user-name", "jovyan",
         str(ROOT)], text=True, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()

    def where(pattern: str) -> int:
        found = [i for i, line in enumerate(lines) if re.search(pattern, line)]
        assert len(found) == 1, (pattern, found)
        return found[0]

    copy_pins = where(r"^COPY .* src/binder/requirements\.txt ")
    pins = where(r'^RUN \S+/pip install --no-cache-dir -r "binder/requirements\.txt"$')
    copy_repo = where(r"^COPY --chown=\S+ src/ \$\{REPO_DIR\}/$")
    post_build = where(r"^RUN \./binder/postBuild$")
    assert copy_pins < pins < copy_repo < post_build, done.stdout


def test_binder_post_build_installs_resnorm_from_the_repository_root():
    # repo2docker ejecuta postBuild desde la raíz del repositorio (WORKDIR ${REPO_DIR}),
    # ya copiado, como el usuario del cuaderno.
    post_build = BINDER / "postBuild"
    assert os.access(post_build, os.X_OK), "binder/postBuild no es ejecutable"
    script = post_build.read_text(encoding="utf-8")
    assert script.startswith("#!/bin/bash\n") and "set -euo pipefail" in script
    assert "python -m pip install --no-cache-dir --no-deps .\n" in script
    assert 'cp "$carpeta/overrides.json"' in script
    overrides = json.loads((BINDER / "overrides.json").read_text(encoding="utf-8"))
    assert overrides["@jupyterlab/translation-extension:plugin"] == {"locale": "es_ES"}
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^name = "resnorm"$', pyproject, re.M)


# --- Colab ---------------------------------------------------------------------------


def test_every_notebook_starts_with_the_cell_the_learner_notebook_replaces():
    # La fuente lleva una celda de Colab oculta («google.colab», remove-cell); el
    # cuaderno del alumno la cambia por la que instala resnorm del repositorio y el
    # commit de la publicación (book/_ext/cuadernos.py: celda_de_instalacion), así que
    # una copia del curso no tiene que tocar los notebooks.
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        colab = [c for c in code if "google.colab" in c.source]
        assert colab, (
            f"{path.name}: falta la celda que instala resnorm en Colab: copia la "
            "primera celda de código de otro capítulo (con la etiqueta remove-cell)"
        )
        assert len(colab) == 1 and colab[0] is code[0], f"{path.name}: no es la primera"
        assert "remove-cell" in colab[0].metadata.get("tags", []), path.name


def test_the_install_cell_pins_the_repository_and_commit_and_runs_anywhere():
    from IPython.core.inputtransformer2 import TransformerManager

    from cuadernos import celda_de_instalacion, instalar_desde

    commit = "0123456789abcdef0123456789abcdef01234567"
    cell = celda_de_instalacion("https://github.com/otra-org/su-copia", commit)
    assert 'repositorio = "https://github.com/otra-org/su-copia"' in cell
    assert f'version = "{commit}"' in cell
    assert '%pip install --quiet "resnorm @ git+{repositorio}@{version}"' in cell
    assert "@main" not in cell and "google.colab" not in cell
    # Solo si falta resnorm (Colab, un hub): en Binder y «make lab» no hace nada.
    assert 'if importlib.util.find_spec("resnorm") is None:' in cell
    ast.parse(TransformerManager().transform_cell(cell))  # %pip dentro del if
    assert max(map(len, cell.splitlines())) <= 88
    source = nbformat.read(NOTEBOOKS[0], as_version=4)
    instalar_desde(source, "https://github.com/otra-org/su-copia", commit)
    first = next(c for c in source.cells if c.cell_type == "code")
    # El capítulo 1 entrena con torch: la celda también lo comprueba.
    with_torch = celda_de_instalacion("https://github.com/otra-org/su-copia", commit,
                                      torch=True)
    assert first.source == with_torch and with_torch.startswith(cell)
    assert 'if importlib.util.find_spec("torch") is None:' in with_torch
    ast.parse(TransformerManager().transform_cell(with_torch))
    assert max(map(len, with_torch.splitlines())) <= 88


def test_the_chapters_that_need_torch_are_the_ones_that_import_it():
    from cuadernos import necesita_torch

    needs = {p.stem[:2] for p in NOTEBOOKS
             if necesita_torch(nbformat.read(p, as_version=4))}
    # Los capítulos 8 y 11 calculan solo con NumPy (lo comprueba también
    # tests/test_wheel.py, en un entorno sin torch).
    assert needs == {f"{n:02d}" for n in range(1, 13)} - {"08", "11"}, needs
    how_to = (ROOT / "book" / "como-usar.md").read_text(encoding="utf-8")
    assert "necesitan todos los capítulos menos el 8 y el 11" in how_to
    fake = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("from resnorm.widgets import GPTPlayground, X")])
    assert necesita_torch(fake)
    fake.cells[0].source = "from resnorm import layer_norm  # torch aparte"
    assert not necesita_torch(fake)


@pytest.mark.build
def test_each_learner_notebook_installs_resnorm_from_the_commit_it_was_built_from(
        built_site):
    from cuadernos import celda_de_instalacion, necesita_torch

    stamp = json.loads((BUILD_HTML.parent / "construccion.json").read_text())
    commit = stamp["fuente"]
    assert re.fullmatch(r"[0-9a-f]{40}", commit), stamp
    subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{commit}^{{commit}}"],
                   check=True)
    assert stamp["repositorio"] == REPOSITORY["url"]
    assert sorted(stamp["cuadernos"]) == sorted(p.name for p in NOTEBOOKS)
    for path in NOTEBOOKS:
        nb = nbformat.read(LEARNER / path.name, as_version=4)
        expected = celda_de_instalacion(REPOSITORY["url"], commit, necesita_torch(nb))
        first = next(c for c in nb.cells if c.cell_type == "code")
        assert first.source == expected, path.name


def test_resnorm_wheel_would_carry_the_widget_javascript():
    # Colab (pip install git+...) y Binder instalan resnorm desde el repositorio: los
    # .js y .css de los widgets deben ir en el paquete, no quedar fuera por .gitignore.
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'packages\s*=\s*\["resnorm"\]', pyproject)
    ignored = [
        line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assets = [p for p in (ROOT / "resnorm" / "widgets").iterdir()
              if p.suffix in (".js", ".css")]
    assert assets
    for pattern in ignored:
        for asset in assets:
            assert not asset.match(pattern.rstrip("/")), (asset, pattern)


# --- «Cómo usar este curso» ----------------------------------------------------------

HOW_TO = ROOT / "book" / "como-usar.md"
# El tiempo de cada fila lo calcula book/_ext/tiempo_lectura.py (rol {tiempo}); que
# coincida con el de cada capítulo lo prueba tests/test_tiempo.py.
TIME_ROW = re.compile(
    r"^\|\s*\{doc\}`\.\./(?P<doc>notebooks/[\w-]+)`\s*\|.*?\|"
    r"\s*\{tiempo\}`\.\./(?P=doc)`\s*\|$"
)


def chapters_with_time(markdown: str) -> list[str]:
    return [m["doc"] for m in map(TIME_ROW.match, markdown.splitlines()) if m]


def test_how_to_page_lists_every_chapter_in_book_order_with_a_time():
    in_book = [p.relative_to(ROOT).with_suffix("").as_posix()
               for p in notebook_paths(drafts=True)]  # la fila del borrador, oculta
    assert chapters_with_time(HOW_TO.read_text(encoding="utf-8")) == in_book, (
        "book/como-usar.md: la tabla de capítulos no sigue _toc.yml. Cada capítulo, "
        "en su orden, lleva una fila «| {doc}`../notebooks/NN_nombre` | … | "
        "{tiempo}`../notebooks/NN_nombre` |» (la portada, book/intro.md, tiene otra "
        "igual)"
    )


@pytest.mark.build
def test_how_to_page_explains_each_way_in_and_the_readme_commands(built_site):
    html = (BUILD_HTML / "book" / "como-usar.html").read_text(encoding="utf-8")
    text = " ".join(built_soup("book/como-usar.html").get_text(" ").split())
    # La página nombra cada botón como lo ve quien lee un capítulo.
    chapter = built_soup(page_of(NOTEBOOKS[0]))
    labels = [b.get_text(" ", strip=True) for b in chapter.select(
        ".dropdown-launch-buttons .dropdown-item, "
        ".dropdown-download-buttons .dropdown-item")]
    # Binder, JupyterHub, Colab, Thebe (los configurados), .ipynb y .pdf.
    expected = sum(bool(LAUNCH.get(k)) for k in LAUNCH_URLS) + 1 + 2
    assert len(labels) == expected, labels
    for name in [*labels, "Thebe"]:
        assert name in text, name
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"^(make \w+)\s", readme, re.M)
    assert {"make book", "make test"} <= set(commands)
    # Quien aprende solo necesita «make lab»; lo de mantenimiento está en el README.
    assert "make lab" in text
    assert "make book" not in text and "_config.yml" not in text
    assert "## Para quien mantiene el curso" in readme
    assert REPOSITORY["url"] in html
    if LAUNCH.get("jupyterhub_url"):
        assert LAUNCH["jupyterhub_url"].rstrip("/").split("//")[1] in text
    assert "jupyterhub_url" in readme  # cómo se configura: cosa de quien mantiene


# --- «make lab»: el trabajo de quien aprende -----------------------------------------


def make_variable(name: str) -> str:
    return subprocess.run(
        ["make", "-s", "--no-print-directory", "--eval", f"_v:\n\t@echo $({name})",
         "_v"], cwd=ROOT, check=True, text=True, capture_output=True).stdout.strip()


def test_make_lab_keeps_the_learners_work_outside_build_ignored_and_never_cleaned():
    lab_dir = make_variable("LAB_DIR")
    assert lab_dir and not lab_dir.startswith(("_build", "/", ".")), lab_dir
    assert Path(lab_dir).parts[0] != make_variable("HTML").split("/")[0]
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q",
                              f"{lab_dir}/04_layernorm.ipynb"])
    assert ignored.returncode == 0, f"git ve {lab_dir}/"
    # Ninguna receta del Makefile borra la carpeta (ni «make clean»).
    dry = subprocess.run(["make", "-n", "--no-print-directory", "clean"], cwd=ROOT,
                         check=True, text=True, capture_output=True).stdout
    assert lab_dir not in dry, dry
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    removals = [line for line in makefile.splitlines()
                if re.match(r"\t.*\brm\b", line) and ("LAB_DIR" in line
                                                       or lab_dir in line)]
    assert not removals, removals
    how_to = HOW_TO.read_text(encoding="utf-8")
    assert f"`{lab_dir}/`" in how_to, "«Cómo usar» no dice dónde se guarda"


# --- JupyterLab en español («make lab»; Binder lo hace en binder/postBuild) ---------


# Como tests/test_jupyterlab.py: necesita .venv-lab (lab-deps), que «make test» instala
# a la vez que la primera tanda; con estas marcas va en la última.
@pytest.mark.browser
@pytest.mark.slow
def test_make_lab_opens_jupyterlab_in_spanish(tmp_path):
    import secrets
    import time

    lab_venv = ROOT / os.environ.get("LAB_VENV", ".venv-lab")
    subprocess.run(["make", "-s", "--no-print-directory", "lab-settings"], cwd=ROOT,
                   check=True)
    port = free_port()
    token = secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "user"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    server = subprocess.Popen(
        [str(lab_venv / "bin" / "jupyter-lab"), "--no-browser", "--ip=127.0.0.1",
         f"--port={port}", f"--ServerApp.token={token}", "--LabApp.news_url=None",
         f"--ServerApp.root_dir={tmp_path}", "--allow-root"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/lab/api"

    def get(path: str):
        with urllib.request.urlopen(f"{base}/{path}?token={token}", timeout=60) as r:
            return json.loads(r.read())

    try:
        # Un límite holgado: con la máquina ocupada (carga 30) Lab tardó más de 60 s
        # en arrancar. Solo se agota si Lab no arranca nunca o se para (sale antes).
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and server.poll() is None:
            try:
                get("translations/")
                break
            except OSError:
                time.sleep(0.5)
        assert server.poll() is None, (
            f"jupyter-lab se paró (código {server.returncode})")
        languages = get("translations/")["data"]
        assert "es_ES" in languages, languages
        plugin = get("settings/@jupyterlab/translation-extension:plugin")
        assert plugin["schema"]["properties"]["locale"]["default"] == "es_ES"
        strings = get("translations/es_ES")["data"]["jupyterlab"]
        assert strings["Run"] == ["Ejecutar"] and strings["Help"] == ["Ayuda"]
    finally:
        server.terminate()
        server.wait(timeout=30)
