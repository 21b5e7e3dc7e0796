"""Fórmulas dibujadas al construir (KaTeX en node), sin JavaScript de matemáticas.

``sphinxcontrib-katex`` con ``katex_prerender`` (conf.py) pasa cada fórmula al paquete
npm ``katex`` (``node_modules/katex``, fijado en ``package-lock.json`` y elegido con
``katex_js_path``) por un proceso de node que corre en local durante la construcción:
la página llega ya con el HTML de la fórmula y su MathML para los lectores de
pantalla, con el TeX original en ``<annotation encoding="application/x-tex">``. El
navegador solo descarga la hoja de estilo de KaTeX (``_assets/vendor/katex/``, copiada
por ``make vendor``) y las fuentes WOFF2 que usen las fórmulas de la página.

Lo que ninguna opción de ``sphinxcontrib-katex`` 0.9.11 hace, y por eso vive aquí:

- las opciones de KaTeX al dibujar (``configure_katex``): con ``katex_prerender`` la
  extensión no pasa ``katex_options`` a node (hagenw/sphinxcontrib-katex #65 y #145,
  abiertos), solo su diccionario ``KATEX_DEFAULT_OPTIONS``;
- esperar a que node escuche en su socket (``start_server_process``: la extensión
  conecta una sola vez, y en una máquina cargada llegaba antes de tiempo);
- la hoja de KaTeX solo en las páginas con fórmulas, las dos fuentes de casi toda
  fórmula pedidas desde ``<head>`` y las fuentes recortadas a lo que se dibuja.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Any

# Las letras del español que KaTeX partiría en dos: «ó» es para KaTeX una «o» con un
# acento encima (lo que se ve y se copia sería «Atencioˊn», y un lector de pantalla
# leería el acento aparte). Con la macro ``\char"F3`` llega la letra entera.
WHOLE_LETTERS = {c: f'\\char"{ord(c):X}' for c in "áéíóúüñÁÉÍÓÚÜÑ"}
# Opciones de katex.renderToString para todas las fórmulas del libro (además de las
# de KaTeX por defecto: HTML y MathML).
KATEX_OPTIONS = {
    # Una fórmula que KaTeX no entiende para la construcción (KaTeXError con el TeX).
    "throwOnError": True,
    # Sin avisos de compatibilidad con LaTeX (p. ej. «ó» dentro de ``\mathrm``, que
    # KaTeX dibuja bien): node los escribiría en cada construcción.
    "strict": "ignore",
    "macros": WHOLE_LETTERS,
}
# sphinxcontrib-katex espera 5 s a que arranque node y a cada fórmula: poco para una
# máquina compartida (el mensaje de error de la extensión pide subir estos tiempos).
TIMEOUT = 60.0


def configure_katex(katex) -> None:
    """Ajusta el módulo ``sphinxcontrib.katex`` antes de dibujar la primera fórmula."""
    katex.KATEX_DEFAULT_OPTIONS.clear()
    katex.KATEX_DEFAULT_OPTIONS.update(KATEX_OPTIONS)
    katex.STARTUP_TIMEOUT = katex.RENDER_TIMEOUT = TIMEOUT
    katex.KaTeXServer.start_server_process = classmethod(start_server_process)


def start_server_process(cls, rundir, timeout):
    """Arranca el proceso de node de KaTeX y se conecta a su socket.

    Como la de sphinxcontrib-katex 0.9.11, pero reintenta la conexión: node crea el
    archivo del socket (``bind``) un instante antes de escuchar (``listen``), y en una
    máquina cargada la primera conexión podía llegar en ese instante («Connection
    refused»). La extensión solo reintenta así con un puerto TCP (en Windows).
    """
    import socket
    import time
    from subprocess import PIPE, Popen

    socket_path = rundir / "katex.sock"
    process = Popen(cls.build_command(socket=socket_path), stdin=PIPE, stdout=PIPE,
                    cwd=rundir)
    deadline = time.monotonic() + timeout
    while True:
        if socket_path.is_socket():
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(str(socket_path))
                return process, sock
            except ConnectionRefusedError:
                sock.close()
        if time.monotonic() > deadline:
            process.kill()
            raise cls.timeout_error(timeout)
        time.sleep(0.005)


def _has_math(doctree) -> bool:
    from docutils import nodes

    if doctree is None:
        return False
    found = doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block)))
    return next(iter(found), None) is not None


FORMULAS_CSS = "css/formulas.css"
# Las dos fuentes que usa casi toda fórmula (letras rectas y cursivas). La hoja de
# KaTeX las pide solo después de componer la página; si llegan después del primer
# dibujo, cada fórmula cambia de ancho y el texto de alrededor salta (ch. 5 a 820 px:
# desplazamiento 0.11). Se piden desde <head>, junto a las hojas de estilo.
FIRST_FONTS = (
    "vendor/katex/fonts/KaTeX_Main-Regular.woff2",
    "vendor/katex/fonts/KaTeX_Math-Italic.woff2",
)


def _preload_font(href: str) -> str:
    kind = "woff2" if href.endswith(".woff2") else "woff"
    return (f'\n<link rel="preload" href="{href}" as="font" type="font/{kind}" '
            "crossorigin />")


def _katex_only_with_math(app, pagename, templatename, context, doctree) -> None:
    """La hoja de KaTeX, solo en páginas con fórmulas.

    sphinxcontrib-katex la añade a todas las páginas (``add_css_file`` global, sin
    opción para otra cosa). Su hoja ``katex-math.css`` se cambia por
    ``_assets/css/formulas.css`` (la misma, y con las fórmulas anchas desplazables).
    """
    from sphinx.builders.html._assets import _CascadingStyleSheet

    body = context.get("body", "")
    with_math = _has_math(doctree) or 'class="katex' in body
    if with_math and "pathto" in context:
        context["metatags"] = context.get("metatags", "") + "".join(
            _preload_font(context["pathto"](f"_static/{font}", 1))
            for font in FIRST_FONTS
        )
    css = context.get("css_files")
    if not css:
        return
    own = str(app.config.katex_css_path)
    out = []
    for sheet in css:
        name = str(getattr(sheet, "filename", sheet))
        if name.endswith("katex-math.css"):
            continue
        if name.endswith(own):
            if not with_math:
                continue
            out.append(sheet)
            out.append(_CascadingStyleSheet(f"_static/{FORMULAS_CSS}",
                                            priority=sheet.priority))
            continue
        out.append(sheet)
    context["css_files"] = out


# Las fuentes de KaTeX traen cada una cientos de letras y símbolos; las fórmulas del
# curso usan unas pocas decenas. En un 4G lento, las que pide la primera pantalla
# (Main y Math-Italic, y en algunas páginas AMS, de 27,6 KB, o las de los tamaños de
# paréntesis y raíces) retrasaban el primer dibujo completo. Al terminar, cada fuente
# de _static se recorta a los caracteres que aparecen en el HTML de alguna fórmula
# del sitio (todas se dibujan al construir: en el navegador no aparece ninguna nueva),
# más las cifras y los paréntesis de los números de ecuación (``counter`` del CSS).
# Cada recorte se guarda en _build/.fuentes-katex por la huella de la fuente y de los
# caracteres: una reconstrucción sin fórmulas nuevas no vuelve a recortar.
FONTS_DIR = "vendor/katex/fonts"
ALWAYS_KEPT = " \u00a00123456789()"
SUBSET_CACHE = Path("_build") / ".fuentes-katex"


_VOID = {"br", "img", "hr", "wbr", "input", "meta", "link", "col", "area"}


class _KatexText(HTMLParser):
    """Los caracteres del texto dentro de cada ``span.katex-html`` de una página."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.chars: set[str] = set()

    def handle_starttag(self, tag, attrs):
        if self.depth:
            self.depth += tag not in _VOID
        elif "katex-html" in (dict(attrs).get("class") or "").split():
            self.depth = 1

    def handle_endtag(self, tag):
        if self.depth and tag not in _VOID:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.chars.update(data)


def formula_characters(pages, known: dict[str, str] | None = None,
                       seen: dict[str, str] | None = None) -> set[str]:
    """La unión de los caracteres que dibujan las fórmulas de ``pages`` (rutas de
    HTML), más ``ALWAYS_KEPT``.

    ``known`` (huella del HTML → sus caracteres) evita volver a analizar las páginas
    que no cambiaron: en una construcción incremental, casi todas. En ``seen`` se
    anota lo mismo de cada página con fórmulas de ``pages``.
    """
    import hashlib

    chars = set(ALWAYS_KEPT)
    for page in pages:
        html = Path(page).read_text(encoding="utf-8")
        if "katex-html" not in html:
            continue
        digest = hashlib.sha256(html.encode("utf-8")).hexdigest()
        page_chars = (known or {}).get(digest)
        if page_chars is None:
            parser = _KatexText()
            parser.feed(html)
            page_chars = "".join(sorted(parser.chars))
        if seen is not None:
            seen[digest] = page_chars
        chars.update(page_chars)
    return chars


def subset_font(data: bytes, chars: set[str]) -> bytes:
    """La fuente WOFF2 ``data`` con solo las letras de ``chars`` que tenga."""
    from io import BytesIO

    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(BytesIO(data), recalcTimestamp=False)  # los mismos bytes cada vez
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options=options)
    subsetter.populate(unicodes=sorted(ord(c) for c in chars))
    subsetter.subset(font)
    out = BytesIO()
    font.flavor = "woff2"
    font.save(out)
    return out.getvalue()


def _subset_fonts(app, exception) -> None:
    import hashlib

    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    fonts = sorted((outdir / "_static" / FONTS_DIR).glob("*.woff2"))
    if not fonts:
        return
    import json

    cache = Path(app.srcdir) / SUBSET_CACHE
    cache.mkdir(parents=True, exist_ok=True)
    memo = cache / "caracteres-por-pagina.json"
    try:
        known = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    seen: dict[str, str] = {}
    chars = formula_characters(outdir.rglob("*.html"), known, seen)
    # Solo las páginas de esta construcción: el archivo no crece sin fin.
    if seen != known:
        memo.write_text(json.dumps(seen, ensure_ascii=False), encoding="utf-8")
    key = hashlib.sha256("".join(sorted(chars)).encode("utf-8")).hexdigest()

    def entry(data: bytes) -> Path:
        return cache / f"{hashlib.sha256(data).hexdigest()[:16]}-{key[:16]}.woff2"

    for font in fonts:
        data = font.read_bytes()
        cached = entry(data)
        if not cached.exists():
            small = subset_font(data, chars)
            cached.write_bytes(small)
            # Un recorte ya recortado (una construcción incremental que no vuelve a
            # copiar _static) se reconoce sin recortar otra vez.
            entry(small).write_bytes(small)
        small = cached.read_bytes()
        if small != data:
            font.write_bytes(small)


def setup(app) -> dict[str, Any]:
    from sphinxcontrib import katex

    app.setup_extension("sphinxcontrib.katex")
    configure_katex(katex)
    app.connect("html-page-context", _katex_only_with_math, priority=880)
    app.connect("build-finished", _subset_fonts, priority=930)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
