"""Fórmulas dibujadas al construir: sphinxcontrib-katex con ``katex_prerender``.

Lo que sphinxcontrib-katex 0.9.11 no deja configurar: las opciones de KaTeX (con
``katex_prerender`` no pasa ``katex_options`` a node, solo ``KATEX_DEFAULT_OPTIONS``:
hagenw/sphinxcontrib-katex #65 y #145); sus plazos de 5 s (aquí 60); la conexión con
node, que en Linux no reintenta (en una máquina cargada llegaba antes de que node
escuchara); y su hoja, que pone en todas las páginas. Las fuentes de KaTeX van enteras:
el navegador solo descarga las que usa cada página.
"""

from __future__ import annotations

import socket
import time
from subprocess import PIPE, Popen

# Sin ``\char`` KaTeX parte «ó» en «o» y un acento (se vería «Atencioˊn»).
WHOLE_LETTERS = {c: f'\\char"{ord(c):X}' for c in "áéíóúüñÁÉÍÓÚÜÑ"}
# Una fórmula que KaTeX no entiende para la construcción; sin avisos de LaTeX.
KATEX_OPTIONS = {"throwOnError": True, "strict": "ignore", "macros": WHOLE_LETTERS}


def configure_katex(katex) -> None:
    """Opciones, plazos y una conexión que reintenta, antes de la primera fórmula."""
    katex.KATEX_DEFAULT_OPTIONS.update(KATEX_OPTIONS)
    katex.STARTUP_TIMEOUT = katex.RENDER_TIMEOUT = 60.0
    katex.KaTeXServer.start_server_process = classmethod(start_server_process)


def start_server_process(cls, rundir, timeout):
    """La de sphinxcontrib-katex (socket de Unix), pero reintenta: node crea el socket
    un instante antes de escuchar. (Su conexión TCP, que sí reintenta, espera ≈ 40 ms
    por fórmula al ACK: cada lado escribe en dos envíos.)"""
    path = rundir / "katex.sock"
    process = Popen(cls.build_command(socket=path), stdin=PIPE, stdout=PIPE, cwd=rundir)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(path))
            return process, sock
        except (FileNotFoundError, ConnectionRefusedError):  # aún no escucha
            sock.close()
        time.sleep(0.005)
    process.kill()
    raise cls.timeout_error(timeout)


def _katex_only_with_math(app, pagename, templatename, context, doctree) -> None:
    """La hoja de KaTeX solo con fórmulas (y sus fuentes: book/_templates/layout.html);
    en vez de katex-math.css, formulas.css."""
    with_math = 'class="katex' in context.get("body", "")
    drop = ("katex-math.css",) + (() if with_math else (app.config.katex_css_path,))
    context["css_files"] = [css for css in context.get("css_files", ())
                            if not str(css.filename).endswith(drop)]


def setup(app) -> dict:
    from sphinxcontrib import katex

    app.setup_extension("sphinxcontrib.katex")
    configure_katex(katex)
    app.connect("html-page-context", _katex_only_with_math, priority=880)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
