"""Funciones auxiliares de las pruebas (sin fixtures)."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import re
import signal
import socket
from pathlib import Path
from urllib.parse import urlparse

import nbformat
import yaml

from tools.capitulo import borradores

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
BUILD_HTML = BUILD / "html"
# Lo que deja «make book»: la caché con los notebooks ejecutados (salidas y valores),
# la huella del motor con la que se ejecutaron y el registro de la construcción.
# RESNORM_EJECUCION nombra otra ejecución de los mismos notebooks (la de «make test»
# con los núcleos de otra CPU, Makefile: EXEC_DIR): sus pruebas la leen a ella.
EXEC_DIR = ROOT / os.environ.get("RESNORM_EJECUCION", "_build")
CACHE = EXEC_DIR / ".jupyter_cache"
# La memoria de los entrenamientos del GPT que llenó esa ejecución (Makefile, GPT_MEMO;
# resnorm.gpt.MEMO_ENV): solo la usan las pruebas que la piden (fixture ``gpt_memo``).
GPT_MEMO = EXEC_DIR / ".memo-gpt"
GPT_MEMO_ENV = "RESNORM_MEMO_DIR"  # resnorm.gpt.MEMO_ENV, sin importar torch aquí
ENGINE_STAMP = EXEC_DIR / ".engine-hash"
BOOK_LOG = BUILD / "book.log"
#: Los temas con los que se comprobó el sitio entero: los de requirements.txt. Probados
#: el 4 de diciembre de 2026 pydata-sphinx-theme 0.17.1 y sphinx-book-theme 1.3.0: el
#: libro se construye, pero fallan unas 15 pruebas del navegador (los menús del
#: teléfono no se abren, pydata-sphinx-theme #2451; la cabecera trae controles; los
#: scripts de la búsqueda ya no van diferidos). El 5 de diciembre, la pareja más nueva,
#: sphinx-book-theme 1.4.0 con pydata-sphinx-theme 0.20.0 (1.4.0 pide exactamente esa;
#: con 0.24.0, «make deps» para en «pip check»): el libro se construye sin avisos y
#: fallan 25 pruebas del navegador, lo mismo y además la fuente de iconos entera
#: (fa-solid-900.woff2) que cada capítulo descarga.
CHECKED_THEMES = {"pydata-sphinx-theme": "0.16.1", "sphinx-book-theme": "1.2.0"}


def theme_upgrade_hint() -> str:
    """Qué hacer si los temas instalados no son los comprobados (vacío si lo son)."""
    from importlib.metadata import version

    have = {name: version(name) for name in CHECKED_THEMES}
    if have == CHECKED_THEMES:
        return ""
    show = ", ".join(f"{name} {v}" for name, v in have.items())
    return (f" Tienes {show}; el sitio se comprobó con las de CHECKED_THEMES "
            "(tests/helpers.py). Con pydata-sphinx-theme 0.17 o más, los menús "
            "del teléfono no se abren (pydata-sphinx-theme #2451: mira si ya se "
            "cerró). Si subiste los temas para probarlos y fallan pruebas del "
            "navegador, deshaz el cambio (git checkout requirements.txt) y ejecuta "
            "«make deps»; si pasan todas, pon las versiones nuevas en CHECKED_THEMES "
            "y cambia la nota de requirements.txt.")


#: Lo que puede tardar una celda: el «execute: timeout» de _config.yml, el mismo que
#: usan la construcción (conf.py) y la ejecución del Makefile (CELL_TIMEOUT allí).
CELL_TIMEOUT = int(os.environ.get("CELL_TIMEOUT") or yaml.safe_load(
    (ROOT / "_config.yml").read_text(encoding="utf-8"))["execute"]["timeout"])
#: El Chromium de las pruebas, del PDF y del banco: el «headless shell» de Debian
#: (paquete chromium-headless-shell, el modo sin ventana de siempre) si está, si no, el
#: navegador entero (paquete chromium). Los dos salen del mismo código fuente, con la
#: misma versión de Blink, y el shell no carga lo que solo usa una ventana. Medido
#: aquí (7 de diciembre de 2026, 26 páginas del sitio en teléfono y portátil, la
#: máquina ocupada): ≈ 0,33 CPU-s por carga con el shell y 0,85–1,1 con el navegador
#: entero; y las pruebas del navegador son la mayor parte de «make test». Las páginas
#: miden lo mismo salvo algún corte de línea: de esas 26, un párrafo del capítulo 2
#: en el portátil parte una línea más con el shell (26 px). CHROMIUM elige otro.
CHROMIUM_SHELL = Path("/usr/bin/chromium-headless-shell")
CHROMIUM = Path(os.environ.get("CHROMIUM") or next(
    (p for p in (CHROMIUM_SHELL, Path("/usr/bin/chromium")) if p.exists()),
    Path("/usr/bin/chromium")))

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Ningún nombre de host se resuelve salvo localhost: lo que el sitio pidiera fuera
    # de 127.0.0.1 falla en el acto en el propio navegador, sin salir a la red ni
    # pasar por Playwright (``PageRecorder`` lo anota).
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
]


def chromium_args() -> list[str]:
    return list(CHROMIUM_FLAGS)


#: Solo las fuentes DejaVu (el porqué, en el archivo): sin esto, las medidas dependen de
#: las fuentes que tenga instaladas la máquina.
FONTCONFIG = ROOT / "tests" / "fuentes.conf"


def launch_chromium(playwright):
    """El Chromium de las pruebas y del banco: el del sistema, con las opciones
    ``CHROMIUM_FLAGS`` y las fuentes de ``FONTCONFIG``."""
    env = {**os.environ, "FONTCONFIG_FILE": str(FONTCONFIG)}
    kwargs = {"args": chromium_args(), "env": env}
    if CHROMIUM.exists():
        kwargs["executable_path"] = str(CHROMIUM)
    return playwright.chromium.launch(**kwargs)


def free_port() -> int:
    """Un puerto de 127.0.0.1 libre ahora (lo elige el sistema), para un servidor de
    las pruebas (JupyterLab, JupyterHub)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def die_with_parent() -> None:
    """Para ``preexec_fn`` de un servidor de las pruebas: su propia sesión y, en Linux,
    SIGTERM si pytest muere sin pararlo."""
    os.setsid()
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


def toc_files(drafts: bool = False, root: Path = ROOT) -> list[str]:
    """Los documentos del libro en el orden de ``_toc.yml`` (sin extensión); sin los
    capítulos en borrador, que el libro no publica, salvo con ``drafts``."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    hidden = set() if drafts else set(borradores(root))
    return [f for f in files if f not in hidden]


def chapter_numbers(toc_path: Path = ROOT / "_toc.yml") -> dict[str, int]:
    """Documento → número de capítulo, como los numera el libro.

    Solo llevan número los capítulos de las partes con ``numbered: true`` de
    ``_toc.yml``, en su orden; la numeración sigue de una parte a la siguiente
    (``use_multitoc_numbering``), y las secciones dentro de un capítulo no cuentan.
    Un borrador no lleva número (el libro no lo publica).
    Es el único lugar que sabe qué capítulo es el 7: añadir uno es añadirlo al índice.
    """
    toc = yaml.safe_load(Path(toc_path).read_text(encoding="utf-8"))
    drafts = borradores(Path(toc_path).parent)
    numbers: dict[str, int] = {}
    for part in toc.get("parts", []):
        if not part.get("numbered"):
            continue
        for entry in part.get("chapters") or []:
            if "file" in entry and entry["file"] not in drafts:
                numbers[entry["file"]] = len(numbers) + 1
    return numbers


def notebook_paths(drafts: bool = False, root: Path = ROOT) -> list[Path]:
    """Los notebooks que el índice del libro incluye: los publicados, los capítulos
    enteros que piden las pruebas de capítulo entero (tres números citados, dos
    ejercicios, tres preguntas). Con ``drafts``, también los borradores («"borrador":
    true» en sus metadatos; tools/capitulo.py), que se ejecutan con los demás y pasan
    las pruebas de las fuentes."""
    paths = [root / f"{f}.ipynb" for f in toc_files(drafts=drafts, root=root)]
    return [p for p in paths if p.exists()]


def draft_paths(root: Path = ROOT) -> list[Path]:
    """Los notebooks del índice en borrador, que el libro aún no publica."""
    published = set(notebook_paths(root=root))
    return [p for p in notebook_paths(drafts=True, root=root) if p not in published]


def engine_hash() -> str:
    """La huella del motor (resnorm/ y requirements.txt), calculada por el Makefile."""
    import subprocess

    out = subprocess.run(
        ["make", "-s", "--no-print-directory", "engine-hash"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return out.stdout.strip()


def built_notebook(path: Path):
    """El notebook que ejecutó la última construcción, leído de la caché de ejecución.

    La caché identifica cada notebook por sus celdas: si el fuente cambió después de
    «make book», no hay coincidencia y se avisa (las pruebas leerían salidas de otro
    código). La huella del motor la comprueba ``fresh_build`` (tests/conftest.py).
    """
    from jupyter_cache import get_cache

    if not CACHE.exists():
        raise FileNotFoundError("No hay caché de ejecución: ejecuta «make book».")
    try:
        _, nb = get_cache(str(CACHE)).merge_match_into_notebook(
            nbformat.read(path, as_version=4)
        )
    except KeyError:
        raise RuntimeError(
            f"{path.name} cambió después de la última construcción (o no se "
            "construyó): ejecuta «make book»."
        ) from None
    return nb


def execute_notebook(path: Path, timeout: int = CELL_TIMEOUT, first_cell: str = ""):
    """Ejecuta un notebook de arriba abajo en un núcleo nuevo, en su carpeta; con
    ``first_cell``, ese código antes que la primera celda."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    if first_cell:
        nb.cells.insert(0, nbformat.v4.new_code_cell(first_cell))
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        allow_errors=False,
    )
    return client.execute()


_REFRESH = re.compile(
    r'<meta http-equiv="Refresh" content="0; url=([^"]+)"', re.IGNORECASE
)


def open_page(page, url: str, timeout: float = 30_000):
    """Abre ``url`` del sitio construido y espera a ``load`` (los scripts diferidos
    ya se han ejecutado: van antes de DOMContentLoaded). Si la página solo
    redirige (``<meta http-equiv="Refresh">``, como ``index.html``), espera también a
    que cargue la de destino: lo que se mida después es de esa."""
    page.goto(url, wait_until="load", timeout=timeout)
    built = BUILD_HTML / (urlparse(url).path.lstrip("/") or "index.html")
    if built.is_file():
        match = _REFRESH.search(built.read_text(encoding="utf-8"))
        if match:
            target = match.group(1)
            page.wait_for_url(f"**/{target}", wait_until="load", timeout=timeout)
    return page


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def draw_widgets(page, timeout: float = 30_000) -> None:
    """Espera a que cada widget de la página esté dibujado, no solo su caja reservada.

    Los widgets lejos de la pantalla se dibujan tras el primer gesto del lector (o
    2 s después de cargar, ``_assets/js/widgets-estaticos.js``): un evento «scroll»
    hace de ese gesto (no cuenta como entrada del lector para los desplazamientos de
    diseño)."""
    page.evaluate("() => window.dispatchEvent(new Event('scroll'))")
    page.wait_for_function(
        "() => { const boxes = [...document.querySelectorAll('.widget-subarea')];"
        " return boxes.length >= "
        f"document.querySelectorAll(\"script[type='{WIDGET_VIEW}']\").length"
        " && boxes.every(b => b.querySelector('.rn-widget')); }",
        timeout=timeout,
    )


def wait_for_math(page, timeout: float = 30_000) -> None:
    """Espera a que la página tenga sus fórmulas dibujadas (KaTeX), si tiene alguna."""
    page.wait_for_function(
        "() => !document.querySelector('.math') || "
        "document.querySelectorAll('.katex').length > 0",
        timeout=timeout,
    )


def is_local(url: str) -> bool:
    parsed = urlparse(url)
    if parsed.scheme in ("data", "blob", "about", "javascript"):
        return True
    return parsed.hostname in ("127.0.0.1", "localhost", "::1")


class PageRecorder:
    """Una página de Playwright que registra los problemas y lo que pide fuera.

    Lo externo no se intercepta: el Chromium de las pruebas no resuelve ningún nombre
    de host (``CHROMIUM_FLAGS``), así que esas peticiones fallan solas; aquí solo se
    anotan. (Interceptar cada petición con ``context.route`` la hacía esperar a
    Python: ≈ 0,2 s de CPU más por página cargada.)"""

    def __init__(self, context):
        self.context = context
        self.external: list[str] = []
        self.failed: list[str] = []
        self.console_errors: list[str] = []
        self.responses: list = []
        context.on("request", self._request)
        self.page = self._open()

    def _open(self):
        page = self.context.new_page()
        page.on("console", self._console)
        page.on("pageerror", self._page_error)
        page.on("requestfailed", self._failed)
        page.on("response", self._response)
        return page

    def next_visit(self):
        """La misma pestaña para abrir otra página, como quien sigue un enlace, con los
        registros vacíos: lo que se anote después es de la página siguiente. (Una
        pestaña nueva por página costaría en Chromium ≈ 0,7 s más de CPU por carga.)"""
        if self.page.is_closed():
            self.page = self._open()
        self.external, self.failed, self.console_errors, self.responses = [], [], [], []
        return self.page

    def _request(self, request):
        if not is_local(request.url):
            self.external.append(request.url)

    def _page_error(self, exc):
        self.console_errors.append(f"pageerror: {exc}")

    def _console(self, msg):
        if msg.type == "error":
            self.console_errors.append(msg.text)

    def _failed(self, request):
        # Lo que aún llegaba cuando la pestaña pasó a otra página lo cancela el
        # navegador (ERR_ABORTED): una imagen con loading="lazy", o el icono de
        # index.html, que redirige a la portada en el acto. No es un fallo del sitio;
        # un archivo que falta sí lo es, y llega como respuesta HTTP 404.
        if request.failure and "ERR_ABORTED" in request.failure:
            return
        if is_local(request.url):
            self.failed.append(f"{request.url}: {request.failure}")

    def _response(self, response):
        self.responses.append(response)
        if response.status >= 400 and is_local(response.url):
            self.failed.append(f"{response.url}: HTTP {response.status}")

    def goto(self, url: str):
        """Abre ``url`` y espera a ``load`` (HTML, hojas, scripts, fuentes e imágenes
        a la vista). Lo que llega después (los widgets) lo espera cada prueba por lo
        que necesita ver, no por un silencio de red."""
        return open_page(self.page, url)


#: Script de inicio (``context.add_init_script``) que suma los desplazamientos de
#: diseño (layout shift de Chromium) que no siguen a un gesto del lector, en
#: ``window.__rnShift`` = {cls, shifts: [[ms, valor, nodos], ...]}.
LAYOUT_SHIFT_PROBE = """
window.__rnShift = {cls: 0, shifts: []};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.hadRecentInput) continue;
    window.__rnShift.cls += e.value;
    const nodes = (e.sources || []).map((s) => s.node && (s.node.id ||
      s.node.className || s.node.nodeName)).filter(Boolean).slice(0, 3);
    window.__rnShift.shifts.push([Math.round(e.startTime), e.value, String(nodes)]);
  }
}).observe({type: "layout-shift", buffered: true});
"""
MAX_LAYOUT_SHIFT = 0.05

#: Los tamaños de ventana del sitio (ancho, alto en px CSS): los de
#: ``tests/test_site_view.py`` y los de ``make bench`` (``bench/widget_load.py``).
VIEWPORTS = {
    "telefono": (390, 844),
    "tableta": (820, 1180),
    "portatil": (1366, 900),
}


def layout_shifts(page, settle_ms: int = 50) -> tuple[float, str]:
    """El desplazamiento acumulado de ``page`` (con ``LAYOUT_SHIFT_PROBE``) y una
    descripción de cada salto, tras dos fotogramas y ``settle_ms`` (los últimos
    saltos se notifican así)."""
    page.evaluate(
        "(ms) => new Promise((r) => requestAnimationFrame(() => "
        "requestAnimationFrame(() => setTimeout(r, ms))))",
        settle_ms,
    )
    probe = page.evaluate("window.__rnShift")
    text = ", ".join(f"{v:.3f} en {t} ms ({n})" for t, v, n in probe["shifts"])
    return probe["cls"], text


def html_pages(build: Path = BUILD_HTML) -> list[str]:
    """Todas las páginas HTML del sitio construido, relativas a la raíz."""
    pages = []
    for path in sorted(build.rglob("*.html")):
        rel = path.relative_to(build).as_posix()
        if rel.startswith(("_static/", "_sources/", "_images/")):
            continue
        pages.append(rel)
    return pages


def built_soup(page: str | Path):
    """Una página del sitio construido (``notebooks/04_layernorm.html`` o su ruta en
    ``BUILD_HTML``), analizada una vez por proceso: la leen decenas de pruebas, y
    analizar un capítulo con BeautifulSoup cuesta ≈ 0,06 s (sin esta caché eran ≈ 380
    análisis en la tanda del navegador). Es compartida: solo para leerla; quien quite o
    cambie nodos, que lo haga sobre ``copy.copy(built_soup(…))``."""
    if isinstance(page, Path):
        page = page.relative_to(BUILD_HTML).as_posix()
    return _parsed(page)


@functools.cache
def _parsed(rel: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup((BUILD_HTML / rel).read_text(encoding="utf-8"), "html.parser")


WORD_RE = re.compile(r"\w+", re.UNICODE)
