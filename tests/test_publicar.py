"""«make publish» de punta a punta, con git de verdad (tools/publish.py).

Un repositorio desnudo en una carpeta temporal hace de GitHub. La fuente es un clon
del repositorio en el commit del que salió la construcción de ``_build`` (su sello,
``_build/construccion.json``), con esa construcción al lado: lo que publicaría quien
mantiene el curso tras «make test». ``make publish REMOTE=file://…`` llena la rama
gh-pages con el sitio y la de los cuadernos con los cuadernos del alumno; el checkout
de gh-pages, servido en 127.0.0.1, es el sitio (cada página y lo que pide cargan, el
botón de descarga da el cuaderno del alumno de la otra rama); publicar otra vez sin
cambios no hace ningún commit. Y se niega, con su porqué en español, a publicar un
árbol con cambios, una construcción que no es de HEAD y sin pruebas (o con pruebas
fallidas) de HEAD.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import nbformat
import pytest
import yaml
from bs4 import BeautifulSoup

from bench.server import serve
from tests.helpers import BUILD_HTML, CELL_TIMEOUT, ROOT, notebook_paths

sys.path.insert(0, str(ROOT / "book" / "_ext"))
sys.path.insert(0, str(ROOT / "tools"))

import publish  # noqa: E402  (tools/publish.py)
from cuadernos import celda_de_instalacion, necesita_torch  # noqa: E402

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
SELLO = ROOT / publish.CONSTRUCCION
NOTEBOOKS = notebook_paths()
#: Para los commits que hace la prueba en su clon (no en el repositorio).
IDENTIDAD = {"GIT_AUTHOR_NAME": "Prueba", "GIT_AUTHOR_EMAIL": "prueba@localhost",
             "GIT_COMMITTER_NAME": "Prueba", "GIT_COMMITTER_EMAIL": "prueba@localhost"}


def git(raiz: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(raiz), *args], check=True, text=True,
                          capture_output=True, env={**os.environ, **IDENTIDAD}
                          ).stdout.strip()


@pytest.fixture(scope="module")
def construccion(built_site) -> dict:
    """El sello de la construcción de _build: debe ser de un commit, sin cambios."""
    sello = json.loads(SELLO.read_text(encoding="utf-8"))
    if not sello.get("fuente") or not sello.get("limpio"):
        # En la CI (un clon limpio) no pasa nunca: ahí es un fallo. En la máquina de
        # quien está cambiando algo, lo normal: se salta, diciendo por qué.
        message = (f"La construcción de _build ({SELLO.name}) no sale de un commit "
                   "sin cambios: lo que no está en un commit no se puede publicar ni "
                   "probar publicado. Haz commit y «make book».")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return sello


def clon(destino: Path, sello: dict) -> Path:
    """Un clon en el commit de la construcción, con ella en su _build (el sitio,
    enlazado; el sello y el registro, copiados)."""
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT),
                    str(destino)], check=True)
    git(destino, "checkout", "--quiet", "--detach", sello["fuente"])
    (destino / "_build").mkdir()
    (destino / "_build" / "html").symlink_to(BUILD_HTML.resolve())
    for ruta in (publish.CONSTRUCCION, publish.REGISTRO):
        shutil.copy(ROOT / ruta, destino / ruta)
    return destino


def desnudo(destino: Path) -> str:
    subprocess.run(["git", "init", "--quiet", "--bare", str(destino)], check=True)
    return destino.as_uri()


def publicar(fuente: Path, remoto: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "-s", "--no-print-directory", "publish", f"REMOTE={remoto}"],
        cwd=fuente, text=True, capture_output=True)


def sellar(fuente: Path, codigo: int) -> None:
    subprocess.run([sys.executable, "tools/publish.py", "--sellar-pruebas",
                    str(codigo)], cwd=fuente, check=True)


def ramas(remoto: str) -> dict[str, str]:
    salida = subprocess.run(["git", "ls-remote", "--heads", remoto], check=True,
                            text=True, capture_output=True).stdout
    return {ref.removeprefix("refs/heads/"): sha
            for sha, ref in (linea.split() for linea in salida.splitlines())}


def rechazo(fuente: Path, remoto: str, *motivo: str) -> None:
    hecho = publicar(fuente, remoto)
    assert hecho.returncode != 0, hecho.stdout
    assert "no se publica" in hecho.stderr, hecho.stderr
    for palabras in motivo:
        assert palabras in hecho.stderr, hecho.stderr
    assert ramas(remoto) == {}, "se negó, pero publicó"


def test_publish_refuses_missing_or_failed_tests_a_dirty_tree_and_a_stale_build(
        construccion, tmp_path):
    fuente = clon(tmp_path / "fuente", construccion)
    remoto = desnudo(tmp_path / "github.git")
    rechazo(fuente, remoto, "No consta ninguna ejecución de «make test»")
    sellar(fuente, 2)
    rechazo(fuente, remoto, "«make test» falló", "código 2")
    sellar(fuente, 0)
    (fuente / "notas.txt").write_text("sin commit", encoding="utf-8")
    rechazo(fuente, remoto, "cambios sin commit", "notas.txt")
    git(fuente, "add", "notas.txt")
    git(fuente, "commit", "--quiet", "-m", "Notas")
    sellar(fuente, 0)  # las pruebas, de HEAD; la construcción, del commit anterior
    rechazo(fuente, remoto, f"es de {construccion['fuente'][:12]}, no de HEAD",
            "«make test»")


def local_assets(soup) -> list[str]:
    """Lo que una página pide al sitio: hojas, scripts, imágenes e iconos."""
    refs = [t.get("href") for t in soup.select("link[href]")
            if not {"canonical", "alternate"} & set(t.get("rel", []))]
    refs += [t.get("src") for t in soup.select("script[src], img[src]")]
    return [r for r in refs if r and not urlsplit(r).scheme and not r.startswith("#")]


def abrir(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as respuesta:
        assert respuesta.status == 200, url
        return respuesta.read()


def test_make_publish_fills_gh_pages_and_the_notebooks_branch_once_and_serves_the_site(
        construccion, tmp_path):
    fuente = clon(tmp_path / "fuente", construccion)
    remoto = desnudo(tmp_path / "github.git")
    sellar(fuente, 0)
    hecho = publicar(fuente, remoto)
    assert hecho.returncode == 0, hecho.stderr
    rama_nb = CONFIG["cuadernos_rama"]
    tips = ramas(remoto)
    assert set(tips) == {"gh-pages", rama_nb}, tips
    desnuda = tmp_path / "github.git"
    commit = construccion["fuente"]
    for rama in tips:  # un commit por publicación, que nombra el commit fuente
        assert git(desnuda, "rev-list", "--count", rama) == "1"
        assert commit in git(desnuda, "log", "-1", "--format=%B", rama)

    # Los cuadernos del alumno, tal cual, en la raíz de su rama; cada uno instala
    # resnorm de este repositorio en el commit del que sale. Y el entorno de Binder
    # (binder/, como .binder/), con ese mismo repositorio y commit en .binder/fuente.
    nombres = git(desnuda, "ls-tree", "--name-only", rama_nb).splitlines()
    assert sorted(nombres) == sorted([".binder", *(p.name for p in NOTEBOOKS)])
    entorno = git(desnuda, "ls-tree", "-r", rama_nb, ".binder").splitlines()
    modos = {linea.split("\t")[1]: linea.split()[0] for linea in entorno}
    assert modos == {**{f".binder/{p.name}": "100755" if os.access(p, os.X_OK)
                        else "100644" for p in (ROOT / "binder").iterdir()},
                     ".binder/fuente": "100644"}
    assert modos[".binder/postBuild"] == "100755"
    assert git(desnuda, "show", f"{rama_nb}:.binder/fuente") == (
        f"{CONFIG['repository']['url']} {commit}")
    for nombre in [n for n in nombres if n.endswith(".ipynb")]:
        datos = subprocess.run(["git", "-C", str(desnuda), "show",
                                f"{rama_nb}:{nombre}"], check=True,
                               capture_output=True).stdout
        assert datos == (BUILD_HTML / "cuadernos" / nombre).read_bytes(), nombre
        nb = nbformat.reads(datos.decode("utf-8"), as_version=4)
        primera = next(c for c in nb.cells if c.cell_type == "code")
        assert primera.source == celda_de_instalacion(
            CONFIG["repository"]["url"], commit, necesita_torch(nb)), nombre

    # Sin cambios, otra publicación no hace ningún commit.
    otra = publicar(fuente, remoto)
    assert otra.returncode == 0, otra.stderr
    assert ramas(remoto) == tips
    assert otra.stdout.count("sin cambios") == 2, otra.stdout

    # El checkout de gh-pages es el sitio: .nojekyll (GitHub Pages no pasa Jekyll,
    # que quitaría _static, _images y _sources) y cada página carga con lo que pide.
    sitio = tmp_path / "gh-pages"
    subprocess.run(["git", "clone", "--quiet", "--branch", "gh-pages", remoto,
                    str(sitio)], check=True)
    assert (sitio / ".nojekyll").is_file()
    publicadas = {p.relative_to(sitio).as_posix() for p in sitio.rglob("*")
                  if p.is_file() and ".git" not in p.relative_to(sitio).parts}
    construidas = {p.relative_to(BUILD_HTML).as_posix() for p in BUILD_HTML.rglob("*")
                   if p.is_file() and p.name not in publish.FUERA_DEL_SITIO}
    assert publicadas - {".nojekyll"} == construidas
    with serve(sitio) as url:
        pedidos: set[str] = set()
        for path in NOTEBOOKS:
            pagina = f"{url}/{path.relative_to(ROOT).with_suffix('.html').as_posix()}"
            soup = BeautifulSoup(abrir(pagina), "html.parser")
            for ref in local_assets(soup):
                if (destino := urljoin(pagina, ref).split("#")[0]) not in pedidos:
                    abrir(destino)
                    pedidos.add(destino)
            boton = soup.select_one("a.btn-download-source-button")
            assert boton is not None, f"{pagina}: sin botón de descarga"
            descarga = abrir(urljoin(pagina, boton["href"]))
            assert descarga == subprocess.run(
                ["git", "-C", str(desnuda), "show", f"{rama_nb}:{path.name}"],
                check=True, capture_output=True).stdout, path.name
        abrir(f"{url}/index.html")
        assert any("/_static/" in p for p in pedidos), "ninguna página pide _static"


# --- Binder: la rama de los cuadernos construida como la construye repo2docker ------

#: El Python de Binder (binder/runtime.txt): el de las pruebas, que crea el venv.
RUNTIME = (ROOT / "binder" / "runtime.txt").read_text(encoding="utf-8").strip()


def dockerfile(carpeta: Path) -> list[str]:
    """El Dockerfile que repo2docker escribe para ``carpeta`` (``--no-build``: sin
    Docker), como lo haría Binder."""
    repo2docker = Path(sys.executable).with_name("repo2docker")
    hecho = subprocess.run(
        [str(repo2docker), "--no-build", "--user-id", "1000", "--user-name", "jovyan",
         str(carpeta)], text=True, capture_output=True, timeout=120)
    assert hecho.returncode == 0, hecho.stderr[-2000:]
    return hecho.stdout.splitlines()


def construir_como_repo2docker(checkout: Path, repo_dir: Path, env: dict) -> list[str]:
    """Repite en ``repo_dir`` los pasos del Dockerfile de repo2docker que dependen del
    repositorio, en su orden: cada ``COPY src/… ${REPO_DIR}/…`` copia de ``checkout``
    (los pines primero, el repositorio entero después) y cada ``RUN`` se ejecuta con
    bash desde ``${REPO_DIR}`` (su ``WORKDIR``), con el entorno ``env`` (el venv hace de
    ``${KERNEL_PYTHON_PREFIX}``). Única diferencia: sin ``--no-cache-dir``, pip usa su
    caché (la construcción se repite en cada «make test»), y no compila los .pyc
    (``PIP_COMPILE`` en ``env``). Devuelve las órdenes."""
    lineas = dockerfile(checkout)
    inicio = next(i for i, linea in enumerate(lineas)
                  if re.match(r"^COPY \S+ src/\.binder/requirements\.txt ", linea))
    fin = lineas.index("RUN ./.binder/postBuild")
    assert "WORKDIR ${REPO_DIR}" in lineas[:inicio]
    ordenes = []
    copiar = re.compile(r"^COPY --chown=\S+ src/(\S*) \$\{REPO_DIR\}/(\S*)$")
    for linea in lineas[inicio:fin + 1]:
        if copia := copiar.match(linea):
            origen, destino = checkout / copia[1], repo_dir / copia[2]
            if origen.is_dir():
                shutil.copytree(origen, destino, dirs_exist_ok=True, symlinks=True)
            else:
                destino.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origen, destino)
        elif linea.startswith("RUN "):
            orden = linea.removeprefix("RUN ").replace(" --no-cache-dir", "")
            hecho = subprocess.run(["bash", "-c", orden], cwd=repo_dir, env=env,
                                   text=True, capture_output=True, timeout=1800)
            if hecho.returncode != 0 and "pip install" in orden:
                from tests.test_wheel import skip_if_offline

                skip_if_offline(Path(env["KERNEL_PYTHON_PREFIX"]) / "bin" / "python")
            assert hecho.returncode == 0, f"{orden}\n{hecho.stdout[-3000:]}" \
                                          f"\n{hecho.stderr[-3000:]}"
            ordenes.append(orden)
    return ordenes


@pytest.mark.slow
def test_binder_builds_the_notebooks_branch_with_resnorm_from_the_source_commit(
        construccion, tmp_path):
    """El botón de Binder construye la rama de los cuadernos. Aquí, esa rama recién
    publicada en un repositorio desnudo se construye como lo hace repo2docker
    (Python 3.11, venv nuevo): los pines de .binder/requirements.txt antes de copiar
    el repositorio y .binder/postBuild después, que instala resnorm del commit fuente
    (no de la cabeza de main, que ya va por delante) y el español de Lab. Con ese
    entorno, el cuaderno del alumno del capítulo 1 corre entero."""
    assert RUNTIME == f"python-{sys.version_info[0]}.{sys.version_info[1]}" == (
        "python-3.11"), RUNTIME
    fuente = clon(tmp_path / "fuente", construccion)
    desnuda = tmp_path / "github.git"
    remoto = desnudo(desnuda)
    sellar(fuente, 0)
    hecho = publicar(fuente, remoto)
    assert hecho.returncode == 0, hecho.stderr
    commit = construccion["fuente"]
    # GitHub tiene también la rama del libro, la de por defecto (su HEAD), que
    # después sigue avanzando.
    git(fuente, "push", "--quiet", remoto, f"{commit}:refs/heads/main")
    git(desnuda, "symbolic-ref", "HEAD", "refs/heads/main")
    git(fuente, "commit", "--quiet", "--allow-empty", "-m", "Después de publicar")
    git(fuente, "push", "--quiet", remoto, "HEAD:refs/heads/main")

    rama = tmp_path / "rama"  # lo que clona Binder
    subprocess.run(["git", "clone", "--quiet", "--branch", CONFIG["cuadernos_rama"],
                    remoto, str(rama)], check=True)
    venv = tmp_path / "binder-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "JUPYTER", "GIT_"))}
    env.update(
        KERNEL_PYTHON_PREFIX=str(venv), NB_PYTHON_PREFIX=str(venv),
        # Un índice que no responde (aquí, el de PyTorch: solo se llega al de
        # paquetes) se da por perdido a la primera: pip lo reintentaría 5 veces por
        # paquete, más de 100 paquetes. torch sale entonces de donde lo encuentra pip
        # (la rueda para CPU que tiene esta máquina), y se comprueba abajo.
        PIP_RETRIES="0",
        # Sin compilar al instalar los .pyc de cada paquete (más de 10 000 archivos,
        # torch aparte): nada de lo que se comprueba depende de ellos, y Python compila
        # al importar lo que el cuaderno usa. (PIP_COMPILE=0 es «--compile» en falso;
        # ojo: PIP_NO_COMPILE=1 lo activa.)
        PIP_COMPILE="0",
        PATH=f"{venv / 'bin'}:{os.environ['PATH']}",
        # git (y pip, que lo llama) encuentra «GitHub» en el repositorio desnudo.
        GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0=f"url.{desnuda.as_uri()}.insteadOf",
        GIT_CONFIG_VALUE_0=CONFIG["repository"]["url"])
    repo_dir = tmp_path / "home-jovyan"
    repo_dir.mkdir()
    ordenes = construir_como_repo2docker(rama, repo_dir, env)
    assert ordenes == ['${KERNEL_PYTHON_PREFIX}/bin/pip install -r '
                       '".binder/requirements.txt"', "chmod +x .binder/postBuild",
                       "./.binder/postBuild"], ordenes

    python = venv / "bin" / "python"
    instalado = json.loads(subprocess.run(
        [str(python), "-I", "-c", "import importlib.metadata as m, json, resnorm, "
         "torch; print(json.dumps([m.distribution('resnorm').read_text("
         "'direct_url.json'), torch.__version__]))"],
        cwd=tmp_path, env=env, check=True, capture_output=True, text=True).stdout)
    origen = json.loads(instalado[0])
    assert origen["url"] == CONFIG["repository"]["url"]
    assert origen["vcs_info"]["commit_id"] == commit  # no la cabeza de main
    assert instalado[1] == "2.13.0+cpu"  # la rueda para CPU, no la de CUDA
    ajustes = venv / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    assert ajustes.read_bytes() == (ROOT / "binder" / "overrides.json").read_bytes()

    # El capítulo 1, el cuaderno de la rama (el de _build), en un núcleo de ese venv.
    capitulo = rama / NOTEBOOKS[0].name
    assert NOTEBOOKS[0].name.startswith("01_")
    assert capitulo.read_bytes() == (BUILD_HTML / "cuadernos" / capitulo.name
                                     ).read_bytes()
    ejecutar = (
        "import sys, nbformat\n"
        "from nbclient import NotebookClient\n"
        "nb = nbformat.read(sys.argv[1], as_version=4)\n"
        "NotebookClient(nb, kernel_name='python3', timeout=int(sys.argv[2]),\n"
        "               resources={'metadata': {'path': sys.argv[3]}}).execute()\n"
        "codigo = [c for c in nb.cells if c.cell_type == 'code']\n"
        "print(len(codigo), sum(c.execution_count is not None for c in codigo))\n")
    hecho = subprocess.run(
        [str(python), "-I", "-c", ejecutar, str(capitulo), str(CELL_TIMEOUT),
         str(repo_dir)], cwd=repo_dir, env=env, capture_output=True, text=True,
        timeout=1800)
    assert hecho.returncode == 0, hecho.stderr[-3000:]
    celdas, ejecutadas = map(int, hecho.stdout.split())
    assert ejecutadas == celdas > 0, hecho.stdout  # sin un error, que la pararía


# --- El flujo de GitHub Actions ------------------------------------------------------

WORKFLOW = ROOT / ".github" / "workflows" / "publicar.yml"


def test_the_workflow_runs_the_readme_commands_and_make_publish_in_order():
    flujo = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    (trabajo,) = flujo["jobs"].values()
    ordenes = [paso["run"] for paso in trabajo["steps"] if "run" in paso]
    assert [o for o in ordenes if o.startswith("make ")] == [
        "make book", "make test", "make publish"]
    assert flujo[True]["push"]["branches"] == [CONFIG["repository"]["branch"]]
    assert flujo["permissions"] == {"contents": "write"}  # empuja las dos ramas
    checkout = next(p for p in trabajo["steps"] if "checkout" in p.get("uses", ""))
    assert checkout["with"]["fetch-depth"] == 0


def test_the_workflow_passes_actionlint():
    actionlint = Path(sys.executable).with_name("actionlint")
    assert actionlint.exists() or shutil.which("actionlint"), (
        "falta actionlint (requirements-test.txt): ejecuta «make test-deps»")
    done = subprocess.run([str(actionlint), str(WORKFLOW)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, f"actionlint: {done.stdout}{done.stderr}"


def test_actionlint_rejects_a_broken_workflow(tmp_path):
    broken = tmp_path / "roto.yml"
    broken.write_text(WORKFLOW.read_text(encoding="utf-8").replace(
        "runs-on:", "runs-onn:"), encoding="utf-8")
    actionlint = Path(sys.executable).with_name("actionlint")
    done = subprocess.run([str(actionlint), str(broken)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0 and "runs-on" in done.stdout
