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
from tests.helpers import BUILD_HTML, ROOT, notebook_paths

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
    # resnorm de este repositorio en el commit del que sale.
    nombres = git(desnuda, "ls-tree", "--name-only", rama_nb).splitlines()
    assert sorted(nombres) == sorted(p.name for p in NOTEBOOKS)
    for nombre in nombres:
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
