"""El camino de quien aprende por la página (issue 50): lo que se lee en las fuentes.

* Ninguna celda de importaciones trae ``Quiz`` sin usarlo: lo importa la celda de
  preguntas que lo usa (oculta en la página), y la celda que se lee no nombra lo que
  nunca aparece en ella (como ruff F401, con el AST de cada celda).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb"))


def _code_cells(path: Path):
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            yield "".join(cell["source"]), cell.get("metadata", {}).get("tags", [])


def _tree(source: str) -> ast.Module:
    """El AST de una celda; las líneas mágicas (``%``, ``!``) cuentan como ``pass``."""
    lines = []
    for line in source.splitlines():
        body = line.lstrip()
        lines.append(line[: len(line) - len(body)] + "pass"
                     if body.startswith(("%", "!")) else line)
    return ast.parse("\n".join(lines))


def _imported_from(tree: ast.Module, module: str) -> set[str]:
    return {alias.asname or alias.name for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == module
            for alias in node.names}


def _used(tree: ast.Module) -> set[str]:
    return {node.id for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_quiz_is_imported_only_by_the_cells_that_use_it(path):
    """Issue 50: cada celda de importaciones traía un ``Quiz`` que la página nunca
    muestra en uso. Lo importa, y lo usa, la celda de cada bloque de preguntas."""
    quiz_cells = 0
    for source, tags in _code_cells(path):
        tree = _tree(source)
        unused = _imported_from(tree, "resnorm.quiz") - _used(tree)
        assert not unused, (
            f"{path.name}: una celda importa {sorted(unused)} de resnorm.quiz y no lo "
            f"usa:\n{source}")
        if "Quiz" in _used(tree):
            quiz_cells += 1
            assert "Quiz" in _imported_from(tree, "resnorm.quiz"), (
                f"{path.name}: la celda de preguntas usa Quiz sin importarlo (se "
                f"ejecuta sola, plegada en el cuaderno):\n{source}")
            assert {"remove-input", "hide-input"} & set(tags), source
    assert quiz_cells, f"{path.name} no tiene preguntas"


def test_the_unused_import_check_sees_an_unused_quiz():
    """La comprobación de arriba no pasa siempre: con la línea de antes, falla."""
    old = _tree("import numpy as np\nfrom resnorm.quiz import Quiz\nx = np.ones(3)")
    assert _imported_from(old, "resnorm.quiz") - _used(old) == {"Quiz"}
    new = _tree('from resnorm.quiz import Quiz\nQuiz.from_bank("media", "sigma")')
    assert not _imported_from(new, "resnorm.quiz") - _used(new)


def test_no_notebook_imports_a_name_it_never_uses():
    """Lo que importa un capítulo lo usa en alguna celda (``ruff`` F401, el mismo
    lint que «make check» pasa al código, sobre los notebooks, que «ruff check .» deja
    fuera): en la celda que lee quien aprende, un nombre importado es una promesa."""
    import shutil
    import subprocess
    import sys

    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        pytest.skip("ruff no está en el entorno de pruebas (make test-deps)")
    done = subprocess.run(
        [ruff, "check", "--no-cache", "--isolated", "--select", "F401",
         "--output-format", "concise", *map(str, NOTEBOOKS)],
        capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, (
        "Importaciones que ningún código del capítulo usa (quítalas de la celda):\n"
        + done.stdout + done.stderr)


# --- Las pistas: un solo marcado ------------------------------------------------------

_HINT_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<directive>[\w-]+)\}\s*Pista\b",
                        re.M)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_hint_is_a_folded_admonition_in_the_source(path):
    """Issue 50: las pistas de los capítulos 1, 9 y 11 eran ``{dropdown}`` de
    sphinx-design; las demás, ``{admonition}`` con ``:class: dropdown``. Una sola."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        for hint in _HINT_OPEN.finditer(text):
            # Con ``` o con ::: (colon_fence), la misma directiva: el mismo HTML.
            assert hint["directive"] == "admonition", f"{path.name}: {hint.group(0)!r}"
            options = text[hint.end():].split("\n", 2)[1]
            assert options.strip() == ":class: dropdown", (path.name, options)


@pytest.mark.build
def test_every_hint_on_the_site_has_the_same_markup(built_site):
    """En el sitio construido, cada «Pista N» es la misma caja plegable."""
    from bs4 import BeautifulSoup

    seen = 0
    for path in NOTEBOOKS:
        page = built_site / "notebooks" / f"{path.stem}.html"
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        titles = [t for t in soup.select(".bd-article p.admonition-title, "
                                         ".bd-article summary")
                  if re.match(r"Pista \d", t.get_text(" ", strip=True))]
        for title in titles:
            box = title.find_parent(class_="admonition")
            assert title.name == "p" and box is not None, (page.name, str(title)[:80])
            assert set(box["class"]) == {"admonition", "dropdown"} | (
                {c for c in box["class"] if c.startswith("admonition-")}), box["class"]
            seen += 1
    # Las de las fuentes (los capítulos 6 y 12 no llevan pistas): ninguna se pierde.
    in_sources = sum(len(_HINT_OPEN.findall("".join(c["source"])))
                     for path in NOTEBOOKS
                     for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                     if c["cell_type"] == "markdown")
    assert seen == in_sources >= 20


# --- Sin JavaScript: los colores del modo del sistema -------------------------------

def test_the_no_js_sheet_copies_each_mode_rule_for_auto():
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import tema_sin_js as t

    css = ("/* a{b:c} */ html[data-theme=dark]{--x:#000}"
           "html:not([data-theme]),html[data-theme=light]{--x:#fff}"
           "p{color:red}"
           "html[data-theme=dark] img:not(.a,.b){filter:none}"
           '@media (min-width:5px){html[data-theme="dark"] .k{content:"}{"}}'
           "@font-face{font-family:x}")
    out = t.fallback_css([css])
    light, dark = out.split("@media (prefers-color-scheme: dark)")
    assert 'html[data-theme="auto"]{--x:#fff}' in light
    assert "#000" not in light and "color:red" not in out
    assert 'html[data-theme="auto"]{--x:#000}' in dark
    assert 'html[data-theme="auto"] img:not(.a,.b){filter:none}' in dark
    assert '@media (min-width:5px){html[data-theme="auto"] .k{content:"}{"}}' in dark
    assert "font-face" not in out and "a{b:c}" not in out
    assert t.split_selectors("a, b:not(.x, .y) ,c") == ["a", "b:not(.x, .y)", "c"]


def test_the_no_js_sheet_version_follows_the_sheets_it_is_made_from(tmp_path):
    """Su ``?v=`` cambia si cambia una hoja que enlaza la página, y no si no cambia
    nada (la misma en frío y en caliente)."""
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import tema_sin_js as t

    (tmp_path / "_static").mkdir()
    sheet = tmp_path / "_static" / "curso.css"
    sheet.write_text("a{color:red}", encoding="utf-8")
    files = ["_static/curso.css", "_static/styles/tema.css?digest=abc"]
    first = t.sheet_version(tmp_path, files)
    assert re.fullmatch(r"[0-9a-f]{8}", first)
    assert t.sheet_version(tmp_path, files) == first
    sheet.write_text("a{color:blue}", encoding="utf-8")
    assert t.sheet_version(tmp_path, files) != first
    assert t.sheet_version(tmp_path, [files[0], "_static/styles/tema.css?digest=abd"]
                           ) != t.sheet_version(tmp_path, files)


# --- En el navegador: el teléfono y sin JavaScript ---------------------------------

LAYER_NORM = "notebooks/04_layernorm.html"
PHONE = {"width": 390, "height": 844}

# Cada rectángulo de texto de cada bloque de código de la página, en la parte que se ve
# de su caja: el elemento que hay encima de unos puntos suyos (elementFromPoint).
COVERED_JS = r"""
(pre) => {
  const box = pre.getBoundingClientRect();
  const left = box.left + pre.clientLeft, right = left + pre.clientWidth;
  const top = box.top + pre.clientTop, bottom = top + pre.clientHeight;
  const out = [];
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      const x0 = Math.max(r.left, left) + 1, x1 = Math.min(r.right, right) - 1;
      const y = (r.top + r.bottom) / 2;
      if (x1 <= x0 || y < top || y > bottom || y < 0 || y > innerHeight) continue;
      for (const x of [x0, (x0 + x1) / 2, x1]) {
        const hit = document.elementFromPoint(x, y);
        if (!hit || !pre.contains(hit)) {
          out.push([node.textContent.trim().slice(0, 30),
                    hit ? hit.tagName + "." + hit.className : "nada"]);
        }
      }
    }
  }
  return out;
}
"""

# Los rectángulos de las líneas de código de un bloque, relativos a su caja.
LINES_JS = r"""
(pre) => {
  const box = pre.getBoundingClientRect();
  const out = [];
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      out.push([r.left - box.left, r.top - box.top, r.right - box.left,
                r.bottom - box.top]);
    }
  }
  return out;
}
"""
HIDE_ARROW = ".curso-desplazable--despues::after { visibility: hidden !important; }"


def _phone_page(browser, site_url, rel, **kwargs):
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, **kwargs)
    page = context.new_page()
    page.goto(f"{site_url}/{rel}", wait_until="load")
    page.wait_for_timeout(300)  # la marca de las cajas desplazables, con rAF
    return context, page


def _arrow_box(pre, page):
    """Dónde dibuja la flecha «→» (un ::after, invisible para elementFromPoint): la
    diferencia entre la caja con la flecha y sin ella, relativa a la caja."""
    import io

    from PIL import Image, ImageChops

    shown = Image.open(io.BytesIO(pre.screenshot())).convert("RGB")
    style = page.add_style_tag(content=HIDE_ARROW)
    hidden = Image.open(io.BytesIO(pre.screenshot())).convert("RGB")
    style.evaluate("(el) => el.remove()")
    return ImageChops.difference(shown, hidden).getbbox()


@pytest.mark.build
@pytest.mark.browser
def test_on_a_phone_nothing_covers_the_code_of_chapter_4(browser, site_url):
    """Issue 50: los discos azules «→» tapaban 29 de los 34 bloques de código del
    capítulo 4 a 390 px. Ni la flecha ni nada fijo (la cabecera, un botón) tapa el
    texto de un bloque."""
    context, page = _phone_page(browser, site_url, LAYER_NORM)
    try:
        blocks = page.locator(".bd-article :is(div.highlight > pre, .cell_output pre)")
        assert blocks.count() >= 20
        arrows = 0
        for i in range(blocks.count()):
            pre = blocks.nth(i)
            if not pre.is_visible():
                continue
            pre.scroll_into_view_if_needed()
            covered = pre.evaluate(COVERED_JS)
            assert not covered, (i, covered[:5])
            if "curso-desplazable--despues" not in (pre.get_attribute("class") or ""):
                continue
            arrow = _arrow_box(pre, page)
            assert arrow, f"bloque {i}: se desplaza y no dibuja la flecha"
            arrows += 1
            ax0, ay0, ax1, ay1 = arrow
            for x0, y0, x1, y1 in pre.evaluate(LINES_JS):
                overlap = min(ax1, x1) - max(ax0, x0) > 0.5 and \
                    min(ay1, y1) - max(ay0, y0) > 0.5
                assert not overlap, f"bloque {i}: la flecha {arrow} tapa el código"
        assert arrows >= 5, "a 390 px hay bloques que se desplazan: con flecha"
    finally:
        context.close()


# Las cajas desplazables que no son código: las fórmulas (KaTeX en bloque) y las
# tablas (de las celdas, del tema, y las de los widgets).
FORMULAS = ".bd-article .katex-display > .katex"
TABLES = ".bd-article :is(.pst-scrollable-table-container, .rn-table-box)"
# Páginas con fórmulas y tablas más anchas que un teléfono (4 fórmulas, 3 tablas).
WIDE_PAGES = ("notebooks/06_variantes.html", "notebooks/07_bloque_completo.html",
              "book/como-usar.html")


def _under_arrow(box, page, text: bool) -> tuple:
    """Lo que hay debajo de la flecha de ``box``: con la flecha oculta, los colores
    distintos en el rectángulo donde la dibuja (uno solo: fondo, nada tapado) y, con
    ``text``, los rectángulos de texto de la caja que lo cruzan (no en una fórmula:
    KaTeX da a cada glifo la caja de toda su línea, más alta que lo que pinta).
    Capturas de la pantalla con el pie de la caja a la vista (la de un elemento más
    alto que ella no dibuja la flecha, que es «sticky»)."""
    import io

    from PIL import Image, ImageChops

    box.evaluate("(b) => b.scrollIntoView({ block: 'end' })")
    page.wait_for_timeout(100)
    rect = box.evaluate("""(b) => { const r = b.getBoundingClientRect();
      const top = Math.max(0, r.top);
      return { x: r.left, y: top, width: r.width, height: r.bottom - top }; }""")

    def shot():
        return Image.open(io.BytesIO(page.screenshot(clip=rect))).convert("RGB")

    shown = shot()
    style = page.add_style_tag(content=HIDE_ARROW)
    hidden = shot()
    style.evaluate("(el) => el.remove()")
    # Solo lo que cambia de verdad: con la caja desplazada, el suavizado de los
    # glifos de una fórmula varía un poco de una captura a otra.
    diff = ImageChops.difference(shown, hidden).convert("L")
    arrow = diff.point(lambda v: 255 if v > 48 else 0).getbbox()
    if arrow is None:
        return None, 0, []
    colours = hidden.crop(arrow).getcolors(maxcolors=4096) or [(0, "muchos")]
    # El rectángulo de la flecha, relativo a la caja (como LINES_JS).
    dy = rect["y"] - box.evaluate("(b) => b.getBoundingClientRect().top")
    ax0, ay0, ax1, ay1 = arrow[0], arrow[1] + dy, arrow[2], arrow[3] + dy
    crossed = [line for line in (box.evaluate(LINES_JS) if text else [])
               if min(ax1, line[2]) - max(ax0, line[0]) > 0.5
               and min(ay1, line[3]) - max(ay0, line[1]) > 0.5]
    return arrow, len(colours), crossed


@pytest.mark.build
@pytest.mark.browser
def test_on_a_phone_the_arrow_covers_no_table_or_formula(browser, site_url):
    """Issue 50: el disco «→» ya no tapaba el código, pero sí la esquina inferior
    derecha de las tablas y de las fórmulas. Debajo de él, con la flecha oculta, solo
    hay fondo (un color), al principio y a media caja desplazada, y ningún texto de
    la caja cruza su rectángulo."""
    seen = {FORMULAS: 0, TABLES: 0}
    for rel in WIDE_PAGES:
        context, page = _phone_page(browser, site_url, rel)
        try:
            for selector in seen:
                boxes = page.locator(selector)
                for i in range(boxes.count()):
                    box = boxes.nth(i)
                    if not box.is_visible():
                        continue
                    box.scroll_into_view_if_needed()
                    page.wait_for_timeout(50)
                    if "curso-desplazable--despues" not in (
                            box.get_attribute("class") or ""):
                        continue
                    seen[selector] += 1
                    for where in ("inicio", "mitad"):
                        if where == "mitad":
                            box.evaluate("(b) => { b.scrollLeft ="
                                         " (b.scrollWidth - b.clientWidth) / 2; }")
                            page.wait_for_timeout(100)
                        arrow, colours, crossed = _under_arrow(box, page,
                                                                selector == TABLES)
                        assert arrow, f"{rel} {selector} {i}: sin flecha ({where})"
                        assert colours == 1 and not crossed, (
                            f"{rel} {selector} {i} ({where}): bajo la flecha {arrow} "
                            f"hay {colours} colores y el texto {crossed[:3]}")
                    box.evaluate("(b) => { b.scrollLeft = 0; }")
        finally:
            context.close()
    assert seen[FORMULAS] >= 3 and seen[TABLES] >= 2, seen


HEADER_BUTTONS_JS = r"""
() => [...document.querySelectorAll(
    ".bd-header-article :is(button, a.btn)")]
  .filter((e) => !e.closest(".dropdown-menu") && e.checkVisibility() &&
                 e.getBoundingClientRect().width > 0)
  .map((e) => e.getAttribute("aria-label") || e.title ||
              e.dataset.bsOriginalTitle || e.className)
"""


@pytest.mark.build
@pytest.mark.browser
def test_on_a_phone_the_header_keeps_four_buttons_and_a_menu(browser, site_url):
    """Issue 50: 8 iconos en la cabecera de un teléfono. Quedan el índice del curso,
    «Más opciones», buscar y el índice de la página; lo demás, en el menú."""
    context, page = _phone_page(browser, site_url, LAYER_NORM)
    try:
        shown = page.evaluate(HEADER_BUTTONS_JS)
        assert len(shown) == 4 and "Más opciones" in shown, shown
        page.locator(".dropdown-mas-opciones .dropdown-toggle").click()
        menu = page.locator(".dropdown-mas-opciones .dropdown-menu")
        assert menu.is_visible()
        for item in ("Binder", "Colab", "Código en vivo", "Repositorio del curso",
                     ".ipynb", ".pdf", "Modo de color: automático"):
            assert menu.get_by_text(item, exact=True).is_visible(), item
        # El modo de color del menú pulsa el del tema: cambia el modo y lo dice.
        menu.get_by_text("Modo de color: automático").click()
        assert page.evaluate("document.documentElement.dataset.mode") != "auto"
        page.locator(".dropdown-mas-opciones .dropdown-toggle").click()
        assert not menu.get_by_text("Modo de color: automático").count()
    finally:
        context.close()
    wide = browser.new_context(viewport={"width": 1366, "height": 900})
    try:
        page = wide.new_page()
        page.goto(f"{site_url}/{LAYER_NORM}", wait_until="load")
        shown = page.evaluate(HEADER_BUTTONS_JS)
        assert "Más opciones" not in shown and "Ejecutar el cuaderno" in shown, shown
    finally:
        wide.close()


# Lo que pinta el tema según el modo: el fondo, un enlace del texto y una palabra
# clave del código (Pygments).
COLOURS_JS = r"""
() => {
  const css = (sel, prop) => {
    const el = document.querySelector(sel);
    return el ? getComputedStyle(el)[prop] : null;
  };
  return {
    background: css("body", "backgroundColor"),
    text: css("body", "color"),
    link: css(".bd-article p a.reference", "color"),
    keyword: css(".bd-article div.highlight .kn, .bd-article div.highlight .k",
                 "color"),
  };
}
"""


@pytest.mark.build
@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_without_javascript_the_page_follows_the_system_colours(
        browser, site_url, scheme):
    """Issue 50: sin JavaScript el tema se quedaba en «auto»: sin colores de sintaxis,
    enlaces negros, siempre claro. Ahora pinta como con JavaScript en el modo del
    sistema, y no muestra botones de la cabecera que necesitan JavaScript."""
    seen = {}
    for js in (True, False):
        context = browser.new_context(viewport={"width": 1366, "height": 900},
                                      color_scheme=scheme, java_script_enabled=js)
        try:
            page = context.new_page()
            page.goto(f"{site_url}/{LAYER_NORM}", wait_until="load")
            seen[js] = page.evaluate(COLOURS_JS)
            if not js:
                assert page.evaluate("document.documentElement.dataset.theme") == "auto"
                shown = page.evaluate(HEADER_BUTTONS_JS)
                toggles = page.locator(".bd-header-article button:visible")
                for i in range(toggles.count()):
                    button = toggles.nth(i)
                    # Solo los menús, que se abren sin JavaScript (al pasar o con foco).
                    assert button.get_attribute("data-bs-toggle") == "dropdown", shown
        finally:
            context.close()
    assert all(seen[True].values()), seen[True]
    assert seen[False] == seen[True], seen
    dark_background = seen[False]["background"] in ("rgb(18, 18, 18)",) or \
        sum(map(int, re.findall(r"\d+", seen[False]["background"])[:3])) < 200
    assert dark_background is (scheme == "dark"), seen[False]
    assert seen[False]["link"] != seen[False]["text"], "enlaces del color del texto"


# Los enlaces del cajón del índice que se pueden pulsar: a la vista y encima de todo
# en su centro (elementFromPoint), con la dirección absoluta a la que llevan.
REACHABLE_JS = r"""
(drawer) => [...drawer.querySelectorAll("a[href]")].filter((a) => {
  if (!a.checkVisibility({ visibilityProperty: true })) return false;
  a.scrollIntoView({ block: "center" });
  const r = a.getBoundingClientRect();
  const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  return r.width > 0 && r.right <= innerWidth && hit !== null && a.contains(hit);
}).map((a) => a.href.split("#")[0])
"""


def _reachable_once(page, drawer, done, timeout_ms=10_000):
    """Los enlaces del cajón que se pueden pulsar, en cuanto cumplen ``done`` (el tema
    abre y cierra el cajón en una transición de 0,25 s: justo tras el clic aún se ve a
    medias); si no llega a cumplirlo, lo último visto."""
    waited = 0
    while True:
        reachable = set(drawer.evaluate(REACHABLE_JS))
        if done(reachable) or waited >= timeout_ms:
            return reachable
        page.wait_for_timeout(100)
        waited += 100


@pytest.mark.build
@pytest.mark.browser
def test_without_javascript_a_phone_opens_the_course_index(browser, site_url):
    """Issue 50: sin JavaScript, en un teléfono, el índice del curso (el cajón del
    tema) no se abría: el botón de la cabecera necesita un script. Desde un capítulo,
    un enlace de la cabecera lo abre; en él se pulsa cada capítulo del curso, y uno de
    ellos lleva a su página; otro enlace lo cierra."""
    from tests.helpers import toc_files

    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{site_url}/{LAYER_NORM}", wait_until="load")
        drawer = page.locator("#pst-primary-sidebar")
        assert not drawer.evaluate(REACHABLE_JS), "el índice ya se ve, sin abrirlo"
        opener = page.get_by_role("link", name="Índice del curso")
        assert opener.count() == 1 and opener.is_visible()
        opener.click()
        wanted = {f"{site_url}/{doc}.html" for doc in toc_files()}
        reachable = _reachable_once(page, drawer, wanted.issubset)
        missing = sorted(wanted - reachable)
        assert not missing, f"sin enlace que pulsar: {missing}"
        page.get_by_role("link", name="Cerrar el índice").click()
        closed = _reachable_once(page, drawer, lambda seen: not seen)
        assert not closed, "el índice no se cierra"
        opener.click()
        chapter = drawer.locator('a[href$="10_gpt_diminuto.html"]')
        chapter.click()
        page.wait_for_url("**/notebooks/10_gpt_diminuto.html")
        assert "GPT" in page.locator("h1").first.inner_text()
    finally:
        context.close()
    wide = browser.new_context(viewport={"width": 1366, "height": 900},
                               java_script_enabled=False)
    try:  # en pantalla ancha el índice está a la vista: sin enlace que lo abra
        page = wide.new_page()
        page.goto(f"{site_url}/{LAYER_NORM}", wait_until="load")
        assert not page.get_by_role("link", name="Índice del curso").is_visible()
        assert not page.get_by_role("link", name="Cerrar el índice").is_visible()
    finally:
        wide.close()
