"""Un JupyterHub de verdad, en 127.0.0.1: el enlace del hub de un capítulo abre el
cuaderno del alumno en JupyterLab, cada usuario con su copia.

Nada es un doble: el paquete ``jupyterhub`` (del entorno ``.venv-lab``, ver
``requirements-lab.txt``: la misma serie 5 que el hub de Zero to JupyterHub y que el
``jupyterhub-singleuser`` de las imágenes de repo2docker), ``configurable-http-proxy``
de npm (``package.json``), su ``DummyAuthenticator`` (el autenticador por defecto de
Zero to JupyterHub: cualquier nombre y contraseña) y ``SimpleLocalProcessSpawner``
(cada servidor de usuario, un proceso local con su carpeta personal en la carpeta
temporal; ``LocalProcessSpawner`` pediría un usuario del sistema por alumno), con
nbgitpuller en el JupyterLab de cada usuario. A la configuración local (direcciones,
autenticador, lanzador, núcleo) se le añade la sección ``hub.config`` del bloque de
Zero to JupyterHub del README, como la carga el chart: lo que el README propone para
una clase es lo que se prueba aquí.

Un repositorio desnudo hace de GitHub: ``make publish REMOTE=file://…`` llena su rama
de los cuadernos (como en ``tests/test_publicar.py``, con sus mismas funciones) y
``git daemon`` lo sirve en 127.0.0.1 con la ruta ``ORG/REPO`` de ``repository.url``.
El enlace es el del botón JupyterHub del sitio (``urls_de_lanzamiento`` de
``book/_ext/cuadernos.py``) con ``jupyterhub_url`` apuntando a este hub. Cada usuario
es una sesión HTTP que hace lo que haría el navegador: sigue el enlace, entra por el
formulario del hub, espera a su servidor como la página de espera (el flujo de
progreso), sincroniza como la página de nbgitpuller (su API) y abre la dirección a la
que esta lo manda. El núcleo se arranca por la API REST del servidor del usuario y
ejecuta por su websocket las primeras celdas del cuaderno. El hub, el proxy, los
servidores de usuario, sus núcleos y ``git daemon`` se paran al final, pase lo que
pase; todo escucha solo en 127.0.0.1 y vive en la carpeta temporal.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import html
import json
import os
import re
import signal
import subprocess
import textwrap
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import nbformat
import pytest
import requests
import yaml
from bs4 import BeautifulSoup

from tests.helpers import ROOT, die_with_parent, free_port
from tests.test_publicar import (  # noqa: F401  (construccion: una fixture)
    CONFIG,
    clon,
    construccion,
    desnudo,
    git,
    publicar,
    sellar,
)

pytestmark = pytest.mark.slow

LAB_VENV = (ROOT / os.environ.get("LAB_VENV", ".venv-lab")).resolve()
LAB_KERNELS = LAB_VENV / "share" / "resnorm"
PROXY = ROOT / "node_modules" / ".bin" / "configurable-http-proxy"
README = ROOT / "README.md"
CAPITULO = "04_layernorm.ipynb"
#: Lo que puede tardar el hub en responder, un servidor de usuario en arrancar (con
#: la máquina ocupada, JupyterLab tarda), una sincronización o una celda.
ESPERA = 300
#: Una petición HTTP cualquiera.
PETICION = 60
RAMA = CONFIG["cuadernos_rama"]
ORG, REPO = urlsplit(CONFIG["repository"]["url"]).path.strip("/").split("/")


def configuracion_del_readme() -> dict:
    """La sección ``hub.config`` del bloque YAML de Zero to JupyterHub del README."""
    texto = README.read_text(encoding="utf-8")
    bloque = re.search(
        r"^( *)```yaml\n(\1# config\.yaml de Zero to JupyterHub.*?)^\1```$",
        texto, re.M | re.S)
    assert bloque, "README.md: falta el bloque «# config.yaml de Zero to JupyterHub»"
    return yaml.safe_load(textwrap.dedent(bloque.group(2)))["hub"]["config"]


# --- GitHub, el hub y sus procesos ---------------------------------------------------


@contextlib.contextmanager
def git_daemon(raiz: Path):
    """``git daemon`` sirve los repositorios de ``raiz`` en git://127.0.0.1:puerto/."""
    puerto = free_port()
    url = f"git://127.0.0.1:{puerto}"
    proceso = subprocess.Popen(
        ["git", "daemon", f"--base-path={raiz}", "--export-all", "--reuseaddr",
         "--listen=127.0.0.1", f"--port={puerto}", str(raiz)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent)
    try:
        limite = time.monotonic() + 30
        while subprocess.run(["git", "ls-remote", f"{url}/{ORG}/{REPO}"],
                             capture_output=True, timeout=30).returncode != 0:
            assert proceso.poll() is None, "git daemon terminó al arrancar"
            assert time.monotonic() < limite, "git daemon no responde"
            time.sleep(0.2)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proceso.pid, signal.SIGTERM)
        proceso.wait(timeout=30)


@dataclass
class Hub:
    url: str
    homes: Path
    log: Path

    def home(self, usuario: str) -> Path:
        return self.homes / usuario

    def registro(self, lineas: int = 60) -> str:
        texto = self.log.read_text(encoding="utf-8", errors="replace")
        return "\n".join(texto.splitlines()[-lineas:])


def configuracion_local(carpeta: Path, puertos: dict[str, int]) -> dict:
    """Lo que cambia de Kubernetes a esta máquina: direcciones en 127.0.0.1, el
    lanzador de procesos locales (sin usuarios del sistema) y el núcleo con resnorm
    (el Python de ``.venv``, como en «make lab»; en la imagen, el de la imagen). Lo
    del servidor de cada usuario va en un archivo de configuración de Jupyter
    (``JUPYTER_CONFIG_PATH``), no en ``Spawner.args``, que es del README."""
    servidor = carpeta / "jupyter-config"
    servidor.mkdir()
    (servidor / "jupyter_server_config.json").write_text(json.dumps({
        "ServerApp": {"allow_root": True},  # la CI corre como root
        "KernelSpecManager": {"ensure_native_kernel": False},
    }), encoding="utf-8")
    return {
        "JupyterHub": {
            "bind_url": f"http://127.0.0.1:{puertos['hub']}",
            "hub_bind_url": f"http://127.0.0.1:{puertos['api']}",
            "authenticator_class": "dummy",
            "spawner_class": "simple",
            "db_url": f"sqlite:///{carpeta / 'jupyterhub.sqlite'}",
            "cookie_secret_file": str(carpeta / "jupyterhub_cookie_secret"),
        },
        "ConfigurableHTTPProxy": {
            "command": [str(PROXY)],
            "api_url": f"http://127.0.0.1:{puertos['proxy']}",
            "pid_file": str(carpeta / "jupyterhub-proxy.pid"),
        },
        "Spawner": {
            "cmd": [str(LAB_VENV / "bin" / "jupyterhub-singleuser")],
            "ip": "127.0.0.1",
            "environment": {"JUPYTER_PATH": str(LAB_KERNELS),
                            "JUPYTER_CONFIG_PATH": str(servidor)},
            "start_timeout": ESPERA,
            "http_timeout": ESPERA,
        },
        "SimpleLocalProcessSpawner": {
            "home_dir_template": str(carpeta / "homes" / "{username}"),
        },
    }


def escribir_configuracion(carpeta: Path, local: dict, clase: dict) -> Path:
    """``jupyterhub_config.py``: lo local y después ``hub.config`` del README, sección
    a sección, como lo carga el ``jupyterhub_config.py`` de Zero to JupyterHub."""
    ruta = carpeta / "jupyterhub_config.py"
    ruta.write_text(
        "import json\n\nc = get_config()  # noqa: F821\n"
        f"for config in json.loads({json.dumps(json.dumps([local, clase]))}):\n"
        "    for section, cfg in config.items():\n"
        "        c[section].update(cfg)\n", encoding="utf-8")
    return ruta


def procesos_de(pid: int) -> list:
    import psutil

    try:
        raiz = psutil.Process(pid)
        return [raiz, *raiz.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def parar(proceso: subprocess.Popen) -> list[str]:
    """Para el hub (que para el proxy y los servidores de usuario) y, si algo queda,
    lo mata: los servidores van en su propia sesión, los núcleos son hijos suyos."""
    import psutil

    familia = procesos_de(proceso.pid)
    proceso.send_signal(signal.SIGTERM)
    try:
        proceso.wait(timeout=90)
    except subprocess.TimeoutExpired:
        proceso.kill()
        proceso.wait(timeout=30)
    _, vivos = psutil.wait_procs(familia, timeout=15)
    for p in vivos:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
    _, vivos = psutil.wait_procs(vivos, timeout=10)
    return [f"{p.pid} {p.name()}" for p in vivos if p.is_running()]


@dataclass
class GitHub:
    url: str  # git://127.0.0.1:puerto/ORG/REPO
    desnudo: Path

    def cuaderno(self, nombre: str) -> bytes:
        """Un cuaderno de la rama publicada, tal cual."""
        return subprocess.run(
            ["git", "-C", str(self.desnudo), "show", f"{RAMA}:{nombre}"], check=True,
            capture_output=True, timeout=PETICION).stdout


@pytest.fixture(scope="module")
def github(construccion, tmp_path_factory):  # noqa: F811
    """La rama de los cuadernos publicada con «make publish» en un repositorio
    desnudo, servido por git daemon como git://127.0.0.1:puerto/ORG/REPO."""
    carpeta = tmp_path_factory.mktemp("github")
    fuente = clon(carpeta / "fuente", construccion)
    desnuda = carpeta / "repos" / ORG / REPO
    desnuda.parent.mkdir(parents=True)
    remoto = desnudo(desnuda)
    sellar(fuente, 0)
    hecho = publicar(fuente, remoto)
    assert hecho.returncode == 0, hecho.stderr
    with git_daemon(carpeta / "repos") as url:
        yield GitHub(f"{url}/{ORG}/{REPO}", desnuda)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    if not (LAB_VENV / "bin" / "jupyterhub").exists():
        pytest.fail(f"No está JupyterHub en {LAB_VENV}: ejecuta «make test» (o «make "
                    "lab-deps») para crearlo.")
    if not PROXY.exists():
        pytest.fail("Falta configurable-http-proxy (package.json): ejecuta «make "
                    "test» (o «npm ci»).")
    # JupyterLab en español, como «make lab» y Binder: overrides.json en el entorno
    # de Lab (en la imagen de la clase lo escribe binder/postBuild).
    subprocess.run(["make", "-s", "--no-print-directory", "lab-settings"], cwd=ROOT,
                   check=True, timeout=PETICION)
    carpeta = tmp_path_factory.mktemp("hub")
    puertos = {nombre: free_port() for nombre in ("hub", "api", "proxy")}
    configuracion = escribir_configuracion(
        carpeta, configuracion_local(carpeta, puertos), configuracion_del_readme())
    # El entorno de quien aprende (como «make lab»: sin MPLBACKEND ni
    # OMP_NUM_THREADS, que pone el Makefile de las pruebas).
    entorno = {k: v for k, v in os.environ.items()
               if k not in {"MPLBACKEND", "OMP_NUM_THREADS", "JUPYTER_PATH"}}
    log = carpeta / "jupyterhub.log"
    with log.open("wb") as salida:
        proceso = subprocess.Popen(
            [str(LAB_VENV / "bin" / "jupyterhub"), "-f", str(configuracion)],
            cwd=carpeta, env=entorno, stdout=salida, stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent)
    estado = Hub(f"http://127.0.0.1:{puertos['hub']}", carpeta / "homes", log)
    try:
        limite = time.monotonic() + ESPERA
        while True:
            assert proceso.poll() is None, f"el hub terminó:\n{estado.registro()}"
            assert time.monotonic() < limite, (
                f"el hub no responde:\n{estado.registro()}")
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"{estado.url}/hub/api", timeout=5).ok:
                    break
            time.sleep(0.5)
        yield estado
    finally:
        vivos = parar(proceso)
        assert not vivos, f"procesos que siguen vivos: {vivos}"


# --- Quien aprende: una sesión HTTP que hace lo que haría el navegador ---------------


def eventos(respuesta: requests.Response):
    """Los mensajes de un flujo de eventos (``text/event-stream``), como JSON."""
    for linea in respuesta.iter_lines(decode_unicode=True):
        if linea and linea.startswith("data:"):
            yield json.loads(linea.removeprefix("data:").strip())


#: Lo que el navegador dice de cada petición (``Sec-Fetch-*``): con ello el hub y los
#: servidores comprueban el token XSRF como con un navegador de verdad (sin ello, lo
#: saltan con un aviso). Una página que se abre es «navigate»; lo que pide su
#: JavaScript (la API, los flujos de eventos), «cors».
PAGINA = {"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Site": "same-origin"}
SCRIPT = {"Sec-Fetch-Mode": "cors", "Sec-Fetch-Site": "same-origin"}


class Alumno:
    def __init__(self, hub: Hub, nombre: str):
        self.hub, self.nombre = hub, nombre
        self.sesion = requests.Session()
        self.base = f"{hub.url}/user/{nombre}/"
        self.lab: requests.Response | None = None  # la página de Lab que abrió

    def get(self, url: str, **kwargs) -> requests.Response:
        """Abre una página (y sigue sus redirecciones), como el navegador."""
        respuesta = self.sesion.get(url, timeout=PETICION, headers=PAGINA, **kwargs)
        respuesta.raise_for_status()
        return respuesta

    def flujo(self, url: str, **kwargs) -> requests.Response:
        """Un flujo de eventos (``EventSource``) del JavaScript de una página."""
        respuesta = self.sesion.get(url, timeout=ESPERA, headers=SCRIPT, stream=True,
                                    **kwargs)
        respuesta.raise_for_status()
        return respuesta

    def xsrf(self) -> str:
        """El token que Lab lee de la cookie ``_xsrf`` de su servidor."""
        ruta = urlsplit(self.base).path
        return next(c.value for c in self.sesion.cookies
                    if c.name == "_xsrf" and c.path == ruta)

    def api(self, metodo: str, ruta: str, **kwargs):
        respuesta = self.sesion.request(
            metodo, f"{self.base}{ruta}", timeout=PETICION,
            headers={**SCRIPT, "X-XSRFToken": self.xsrf()}, **kwargs)
        assert respuesta.ok, (respuesta.status_code, respuesta.text[:500])
        return respuesta.json() if respuesta.content else None

    def entrar(self, formulario: requests.Response) -> requests.Response:
        """Rellena el formulario de entrada del hub (DummyAuthenticator)."""
        form = BeautifulSoup(formulario.text, "html.parser").select_one("form")
        datos = {"username": self.nombre, "password": "cualquiera",
                 "_xsrf": form.select_one("input[name=_xsrf]")["value"]}
        respuesta = self.sesion.post(urljoin(formulario.url, form["action"]),
                                     data=datos, timeout=PETICION, headers=PAGINA)
        respuesta.raise_for_status()
        return respuesta

    def esperar_servidor(self, pagina: requests.Response) -> requests.Response:
        """Como la página de espera del hub: sigue su flujo de progreso hasta que el
        servidor está listo y la vuelve a cargar."""
        fuente = re.search(r'new EventSource\("([^"]+)"\)', pagina.text)
        assert fuente, pagina.text[:500]
        with self.flujo(urljoin(pagina.url, html.unescape(fuente.group(1)))) as flujo:
            for evento in eventos(flujo):
                assert not evento.get("failed"), f"{evento}\n{self.hub.registro()}"
                if evento.get("ready"):
                    break
        return self.get(pagina.url)

    def abrir(self, enlace: str) -> requests.Response:
        """Sigue el enlace del hub hasta JupyterLab, con la sincronización de por
        medio; devuelve la página de Lab."""
        respuesta = self.get(enlace)
        for _ in range(5):
            ruta = urlsplit(respuesta.url).path
            if ruta == "/hub/login":
                respuesta = self.entrar(respuesta)
            elif ruta.startswith("/hub/spawn-pending/"):
                respuesta = self.esperar_servidor(respuesta)
            else:
                break
        assert urlsplit(respuesta.url).path == f"/user/{self.nombre}/git-pull", (
            respuesta.url, self.hub.registro())
        return self.sincronizar(respuesta)

    def sincronizar(self, pagina: requests.Response) -> requests.Response:
        """Como la página de nbgitpuller (``gitsync.js``): llama a su API con los
        datos de la página y, al terminar, va a la dirección que esta dice."""
        cuerpo = BeautifulSoup(pagina.text, "html.parser").body

        def dato(nombre: str) -> str | None:
            valor = cuerpo.get(f"data-{nombre}")
            return None if valor is None else requests.utils.unquote(valor)

        base = dato("base-url")
        parametros = {"_xsrf": dato("xsrf"), "repo": dato("repo"),
                      "targetpath": dato("targetpath")}
        for opcional in ("depth", "branch", "backup"):
            if dato(opcional) is not None:
                parametros[opcional] = dato(opcional)
        with self.flujo(urljoin(pagina.url, f"{base}git-pull/api"),
                        params=parametros) as flujo:
            fases = [evento for evento in eventos(flujo)
                     if evento.get("phase") in ("finished", "error")]
        assert fases and fases[-1]["phase"] == "finished", fases
        return self.get(urljoin(pagina.url, base + dato("path")))


async def ejecutar_por_websocket(url: str, cookies: str, codigos: list[str]):
    """Ejecuta cada código en el núcleo de ``url`` (el websocket de la API de
    Jupyter Server, protocolo JSON) y devuelve, de cada uno, su respuesta y sus
    salidas."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    sesion, resultados = uuid.uuid4().hex, []
    conexion = await websocket_connect(HTTPRequest(
        f"{url}?session_id={sesion}",
        headers={"Cookie": cookies, "Sec-Fetch-Mode": "websocket"},
        request_timeout=PETICION))
    try:
        for codigo in codigos:
            pedido = uuid.uuid4().hex
            conexion.write_message(json.dumps({
                "header": {"msg_id": pedido, "session": sesion, "username": "",
                           "msg_type": "execute_request", "version": "5.3"},
                "parent_header": {}, "metadata": {}, "buffers": [],
                "channel": "shell",
                "content": {"code": codigo, "silent": False, "store_history": True,
                            "user_expressions": {}, "allow_stdin": False,
                            "stop_on_error": True}}))
            respuesta, salidas, inactivo = None, [], False
            limite = time.monotonic() + ESPERA
            while respuesta is None or not inactivo:
                crudo = await asyncio.wait_for(conexion.read_message(),
                                               limite - time.monotonic())
                assert crudo is not None, "el núcleo cerró el websocket"
                mensaje = json.loads(crudo)
                if mensaje["parent_header"].get("msg_id") != pedido:
                    continue
                tipo, contenido = mensaje["msg_type"], mensaje["content"]
                if tipo == "execute_reply":
                    respuesta = contenido
                elif tipo == "status":
                    inactivo = contenido["execution_state"] == "idle"
                elif tipo in ("stream", "error", "execute_result", "display_data"):
                    salidas.append({"output_type": tipo, **contenido})
            resultados.append((respuesta, salidas))
    finally:
        conexion.close()
    return resultados


def primeras_celdas(cuaderno) -> list:
    """Las celdas de código del cuaderno hasta la primera que imprime algo (con su
    salida de la construcción)."""
    celdas = []
    for celda in cuaderno.cells:
        if celda.cell_type != "code":
            continue
        celdas.append(celda)
        if any(s.output_type == "stream" for s in celda.outputs):
            return celdas
    raise AssertionError("ninguna celda imprime nada")


# --- Las pruebas ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def enlace(hub, github) -> str:
    """El enlace del botón JupyterHub del capítulo 4, con este hub y este GitHub."""
    from cuadernos import urls_de_lanzamiento

    lanzar = {**CONFIG["launch_buttons"], "jupyterhub_url": hub.url}
    return urls_de_lanzamiento(CAPITULO, github.url, RAMA, lanzar)["JupyterHub"]


@pytest.fixture(scope="module")
def ana(hub, enlace) -> Alumno:
    """La primera alumna, con el capítulo abierto por el enlace (``ana.lab``)."""
    alumna = Alumno(hub, "ana")
    alumna.lab = alumna.abrir(enlace)
    return alumna


def pagina_de_lab(respuesta: requests.Response) -> dict:
    datos = BeautifulSoup(respuesta.text, "html.parser").select_one(
        "script#jupyter-config-data")
    assert datos is not None, respuesta.text[:500]
    return json.loads(datos.string)


def test_the_hub_link_pulls_the_learner_notebook_into_the_users_home_and_opens_it(
        ana, hub, github, enlace):
    # El botón del sitio lleva al hub, con nbgitpuller, a la rama de los cuadernos.
    assert enlace.startswith(f"{hub.url}/hub/user-redirect/git-pull?")
    ruta = f"{REPO}/{CAPITULO}"
    assert urlsplit(ana.lab.url).path == f"/user/ana/lab/tree/{ruta}"
    pagina = pagina_de_lab(ana.lab)
    assert pagina["appName"] == "JupyterLab" and pagina["treePath"] == ruta, pagina
    # La hub.config del README: Lab por defecto, sin noticias.
    assert urlsplit(ana.get(ana.base).url).path == "/user/ana/lab"
    assert pagina["news"] == {"disabled": True}, pagina.get("news")
    # En su carpeta personal, el cuaderno del alumno tal como se publicó.
    copia = hub.home("ana") / REPO / CAPITULO
    assert copia.read_bytes() == github.cuaderno(CAPITULO)
    modelo = ana.api("GET", f"api/contents/{ruta}", params={"content": 0})
    assert modelo["type"] == "notebook" and modelo["path"] == ruta


def test_the_kernel_runs_the_first_cells_and_prints_what_the_book_printed(ana, hub):
    cuaderno = nbformat.reads(
        (hub.home("ana") / REPO / CAPITULO).read_text(encoding="utf-8"), as_version=4)
    celdas = primeras_celdas(cuaderno)
    nucleo = ana.api("POST", "api/kernels", json={"name": "python3"})
    try:
        url = f"{ana.base}api/kernels/{nucleo['id']}/channels".replace("http", "ws", 1)
        cookies = ana.sesion.prepare_request(requests.Request(
            "GET", url.replace("ws", "http", 1))).headers["Cookie"]
        # En su propio hilo: en un proceso de pytest-xdist que ya abrió Chromium, la
        # API síncrona de Playwright deja un bucle de asyncio corriendo en este, y
        # asyncio.run no se puede llamar desde dentro de otro bucle.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as hilo:
            resultados = hilo.submit(asyncio.run, ejecutar_por_websocket(
                url, cookies, [c.source for c in celdas])).result()
    finally:
        ana.api("DELETE", f"api/kernels/{nucleo['id']}")
    for n, (celda, (respuesta, salidas)) in enumerate(zip(celdas, resultados), 1):
        errores = [s for s in salidas if s["output_type"] == "error"]
        assert respuesta["status"] == "ok" and not errores, (
            f"celda de código {n}: {respuesta.get('ename')}: "
            f"{respuesta.get('evalue')}\n{celda.source}")
    # La última imprime lo mismo que en la construcción del libro.
    impreso = "".join(s["text"] for s in resultados[-1][1]
                      if s["output_type"] == "stream")
    esperado = "".join(s.text for s in celdas[-1].outputs if s.output_type == "stream")
    assert impreso == esperado


def test_a_second_user_gets_their_own_copy_and_the_first_keeps_their_edits(
        ana, hub, github, enlace, tmp_path):
    ruta = f"{REPO}/{CAPITULO}"
    # Ana escribe en su copia (lo que hace Lab al guardar: PUT a la API).
    modelo = ana.api("GET", f"api/contents/{ruta}")
    nota = f"Nota de Ana {uuid.uuid4().hex}"
    modelo["content"]["cells"].append(nbformat.v4.new_markdown_cell(nota))
    ana.api("PUT", f"api/contents/{ruta}",
            json={"type": "notebook", "format": "json", "content": modelo["content"]})
    copia_ana = hub.home("ana") / REPO / CAPITULO
    assert nota in copia_ana.read_text(encoding="utf-8")

    # Berta sigue el mismo enlace: su propia copia, en su carpeta, sin la nota.
    berta = Alumno(hub, "berta")
    lab = berta.abrir(enlace)
    assert pagina_de_lab(lab)["treePath"] == ruta
    copia_berta = hub.home("berta") / REPO / CAPITULO
    assert copia_berta.read_bytes() == github.cuaderno(CAPITULO)
    assert not copia_berta.samefile(copia_ana)

    # La rama recibe una novedad en otro capítulo y Ana vuelve a seguir el enlace:
    # nbgitpuller le trae la novedad sin tocar lo suyo.
    otro, novedad = publicar_novedad(github, tmp_path)
    ana.abrir(enlace)
    assert nota in copia_ana.read_text(encoding="utf-8")
    assert (hub.home("ana") / REPO / otro).read_bytes() == novedad
    assert nota not in copia_berta.read_text(encoding="utf-8")


def publicar_novedad(github: GitHub, carpeta: Path) -> tuple[str, bytes]:
    """Un commit nuevo en la rama de los cuadernos que cambia otro capítulo (como
    una publicación nueva): devuelve su nombre y su contenido nuevo."""
    trabajo = carpeta / "novedad"
    subprocess.run(["git", "clone", "--quiet", "--branch", RAMA,
                    github.desnudo.as_uri(), str(trabajo)], check=True,
                   timeout=PETICION)
    otro = next(p for p in sorted(trabajo.glob("*.ipynb")) if p.name != CAPITULO)
    cuaderno = nbformat.read(otro, as_version=4)
    cuaderno.cells.append(nbformat.v4.new_markdown_cell("Novedad de la rama."))
    nbformat.write(cuaderno, otro)
    git(trabajo, "commit", "--quiet", "--all", "--message", "Novedad")
    git(trabajo, "push", "--quiet", "origin", RAMA)
    return otro.name, github.cuaderno(otro.name)


def test_the_hubs_jupyterlab_speaks_spanish(ana):
    # Como «make lab» y Binder (tests/test_launch.py): el paquete de idioma y el
    # español elegido por defecto.
    def lab_api(ruta: str):
        return ana.api("GET", f"lab/api/{ruta}")

    assert "es_ES" in lab_api("translations/")["data"]
    plugin = lab_api("settings/@jupyterlab/translation-extension:plugin")
    assert plugin["schema"]["properties"]["locale"]["default"] == "es_ES"
    textos = lab_api("translations/es_ES")["data"]["jupyterlab"]
    assert textos["Run"] == ["Ejecutar"] and textos["Help"] == ["Ayuda"]
    # Los títulos de menú que el paquete no traduce, de binder/overrides.json (la
    # barra de menús, leída en Chromium: tests/test_jupyterlab.py).
    menus = lab_api("settings/@jupyterlab/mainmenu-extension:plugin")
    titulos = {m["id"]: m["label"]
               for m in menus["schema"]["properties"]["menus"]["default"]}
    assert titulos == {"jp-mainmenu-run": "Ejecutar", "jp-mainmenu-tabs": "Pestañas"}
