"""Lo que lee quien aprende, escrito como se lee en cualquier pantalla.

- **Cifras**, la regla de la RAE en todo el curso: un entero de 5 cifras o más va en
  grupos de tres separados por un espacio fino (``45 711``, ``16 777 216``); uno de 4,
  sin separador (``4096``). Se buscan enteros de corrido en la prosa de las páginas
  construidas (fuera de código, fórmulas y URLs; con los textos alternativos), en las
  preguntas del banco y en las cadenas de los comprobadores y de los widgets.
- **Símbolos**: ningún emoji ni carácter que no tengan las fuentes DejaVu (las de
  reserva de casi todo Linux; matplotlib trae una copia): «✅» se veía como un cuadro
  vacío donde no hay fuente de emoji (nuestras capturas, muchos Linux). El curso
  marca con «✓» (U+2713) y «✗» (U+2717), que DejaVu tiene.
"""

from __future__ import annotations

import os
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import pytest

from resnorm.quiz import bank, question_state
from tests import numbers
from tests.helpers import BUILD_HTML, ROOT, html_pages

# --------------------------------------------------------------------------------------
# El texto de una página construida
# --------------------------------------------------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr", "param"}
# Lo que no se lee como texto de la página: código del navegador y estilos.
HIDDEN = {"script", "style", "template", "noscript"}
# Código: se lee, pero no es prosa (sus cifras son las de Python).
CODE = {"pre", "code", "kbd", "samp", "tt"}
# Fórmulas: KaTeX las dibuja con sus propias fuentes (van con el sitio).
MATH_CLASSES = {"katex", "katex-display", "math"}
READ_ATTRIBUTES = ("alt", "title", "aria-label", "placeholder")


class PageText(HTMLParser):
    """Separa el texto de una página HTML en ``prose`` (fuera de código y fórmulas) y
    ``shown`` (todo lo que se dibuja con las fuentes del sistema: prosa y código,
    sin fórmulas). Los atributos que se leen (``alt``, ``title``...) cuentan como
    prosa."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []  # (etiqueta, "hidden"|"math"|"code"|"")
        self.prose: list[str] = []
        self.shown: list[str] = []

    def _state(self) -> str:
        kinds = {kind for _, kind in self.stack}
        for kind in ("hidden", "math", "code"):
            if kind in kinds:
                return kind
        return ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = set((attrs.get("class") or "").split())
        state = self._state()
        if state in ("", "code"):
            for name in READ_ATTRIBUTES:
                if attrs.get(name):
                    self.shown.append(attrs[name])
                    if state == "":
                        self.prose.append(attrs[name])
        if tag in VOID:
            return
        if tag in HIDDEN:
            kind = "hidden"
        elif classes & MATH_CLASSES or tag == "math":
            kind = "math"
        elif tag in CODE or "highlight" in classes:
            kind = "code"
        else:
            kind = ""
        self.stack.append((tag, kind))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        state = self._state()
        if state in ("", "code"):
            self.shown.append(data)
        if state == "":
            self.prose.append(data)


def page_text(html: str) -> PageText:
    parser = PageText()
    parser.feed(html)
    parser.close()
    return parser


# --------------------------------------------------------------------------------------
# Los caracteres que cualquier pantalla dibuja
# --------------------------------------------------------------------------------------

# Caracteres del plano básico con presentación de emoji por defecto (Unicode,
# emoji-data.txt, Emoji_Presentation=Yes): se dibujan con la fuente de emoji, y sin
# ella, como un cuadro vacío. Del plano 1 (U+1F000 en adelante) no vale ninguno.
EMOJI_PRESENTATION_BMP = (
    [0x231A, 0x231B, 0x23E9, 0x23EA, 0x23EB, 0x23EC, 0x23F0, 0x23F3, 0x25FD, 0x25FE,
     0x2614, 0x2615, *range(0x2648, 0x2654), 0x267F, 0x2693, 0x26A1, 0x26AA, 0x26AB,
     0x26BD, 0x26BE, 0x26C4, 0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2, 0x26F3, 0x26F5,
     0x26FA, 0x26FD, 0x2705, 0x270A, 0x270B, 0x2728, 0x274C, 0x274E, 0x2753, 0x2754,
     0x2755, 0x2757, 0x2795, 0x2796, 0x2797, 0x27B0, 0x27BF, 0x2B1B, 0x2B1C, 0x2B50,
     0x2B55]
)
VARIATION_SELECTORS = {0xFE0E, 0xFE0F}
FALLBACK_FONTS = ("DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf")


@cache
def drawable() -> frozenset[int]:
    """Los caracteres de las fuentes DejaVu (la copia de matplotlib), sin emoji."""
    import matplotlib
    from fontTools.ttLib import TTFont

    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    points: set[int] = {0x09, 0x0A, 0x0D}
    for name in FALLBACK_FONTS:
        with TTFont(folder / name, lazy=True) as font:
            points |= set(font["cmap"].getBestCmap())
    return frozenset(points - set(EMOJI_PRESENTATION_BMP))


def undrawable(text: str) -> list[str]:
    """Los caracteres de ``text`` que una pantalla sin fuente de emoji no dibuja."""
    ok = drawable()
    return sorted({
        c for c in text
        if ord(c) not in ok or ord(c) >= 0x1F000 or ord(c) in VARIATION_SELECTORS
    })


def _describe(chars: list[str]) -> str:
    import unicodedata

    return ", ".join(f"«{c}» U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in chars)


# --------------------------------------------------------------------------------------
# Las cadenas de las preguntas, los comprobadores y los widgets
# --------------------------------------------------------------------------------------


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def quiz_strings() -> list[tuple[str, str]]:
    """(pregunta, texto) de cada cadena que el banco manda al navegador."""
    out = []
    for key in bank.chapters():
        for questions in bank.chapter(key).values():
            for q in questions:
                state = question_state(q)
                for name in ("id", "version", "type", "kind"):
                    state.pop(name, None)
                out += [(q.id, s) for s in _strings(state)]
    return out


def code_strings() -> list[tuple[str, str]]:
    """(dónde, texto) de las cadenas de los comprobadores (``resnorm/exercises``), de
    las preguntas y widgets (``resnorm/quiz``, ``resnorm/widgets``) y de la interfaz
    del sitio (``_assets/js``), sin lo que va entre comillas invertidas (código)."""
    from tests.test_spelling import RST_LITERAL, _python_strings, javascript_strings

    out = []
    folders = [ROOT / "resnorm" / "exercises", ROOT / "resnorm" / "quiz",
               ROOT / "resnorm" / "widgets"]
    for folder in folders:
        for path in sorted(folder.glob("*.py")):
            _, strings, _ = _python_strings(path.read_text(encoding="utf-8"),
                                            path.relative_to(ROOT).as_posix())
            out += [(f.where, RST_LITERAL.sub(" ", f.text)) for f in strings]
    for path in [*sorted((ROOT / "resnorm").rglob("*.js")),
                 *sorted((ROOT / "_assets" / "js").glob("*.js"))]:
        rel = path.relative_to(ROOT).as_posix()
        out += [(f.where, f.text)
                for f in javascript_strings(path.read_text(encoding="utf-8"), rel)]
    return out


# --------------------------------------------------------------------------------------
# El detector, probado
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,found", [
    ("con 45711 caracteres", ["45711"]),
    ("con 45\u202f711 caracteres y 4096 filas", []),
    ("16777216 B = 16 MiB", ["16777216"]),
    ("−12288 y 12288.5", ["12288", "12288"]),
    ("σ = 0.004069258786 y 1e-05", []),  # parte decimal, exponente
    ("en 2015 y 2020", []),  # años: 4 cifras
    ("commit 9d2c173, fig_12345, v1.20345", []),  # identificadores
    ("en https://arxiv.org/abs/1706.03762 y doi 10.48550/x", []),  # URLs
    ("notebooks/12345.html#s10000", []),
    ("guía DU-09797-001 y x = -12345", ["12345"]),  # código de documento; signo
])
def test_the_detector_finds_ungrouped_integers_only(text, found):
    assert numbers.ungrouped_numbers(text) == found


@pytest.mark.parametrize("text,found", [
    ("175 000 millones", ["175 000"]),
    ("16 777 216 B", ["16 777 216"]),
    ("175\u202f000 millones y 12\u00a0288", []),
    ("GPT-3 175B, 96 bloques", []),
    ("tras 1, 5, 20 y 50 capas", []),
    ("[0.5 100 200]", []),  # cifras al lado: una lista, no un número
])
def test_the_detector_finds_groups_a_line_can_break(text, found):
    assert numbers.breakable_groups(text) == found


def test_the_page_reader_keeps_code_and_math_out_of_the_prose():
    page = page_text(
        '<p>Hay 45711 <code>x = 45711</code> <span class="math">12345</span></p>'
        '<pre>cuenta 99999</pre><script>var a = 77777;</script>'
        '<img src="a.png" alt="figura con 88888 puntos"><p>fin ✅</p>'
    )
    prose = " ".join(page.prose)
    assert numbers.ungrouped_numbers(prose) == ["45711", "88888"]
    shown = " ".join(page.shown)
    assert "99999" in shown and "77777" not in shown and "12345" not in shown
    assert undrawable(shown) == ["✅"]


def test_check_marks_that_every_font_has_pass_and_emoji_do_not():
    assert undrawable("✓ bien, ✗ mal, «45 711», −0.5, σ, √2, ≈, ⊙, ☰") == []
    assert undrawable("✅ ❌ ⏱ 🎉 ⭐ ✔️") == sorted("✅❌⏱⭐🎉\ufe0f")


# --------------------------------------------------------------------------------------
# El curso
# --------------------------------------------------------------------------------------


def badly_grouped(text: str) -> list[str]:
    """Enteros de 5 cifras o más sin grupos, o con grupos que la línea puede partir."""
    return numbers.ungrouped_numbers(text) + numbers.breakable_groups(text)

def grouping_and_drawing_problems(strings) -> tuple[list[str], list[str]]:
    """De cada (dónde, texto): sus enteros mal agrupados y sus caracteres sin dibujo."""
    bad_numbers, bad_chars = [], []
    for where, text in strings:
        bad_numbers += [f"{where}: «{n}» en «{text[:80]}»" for n in badly_grouped(text)]
        if undrawable(text):
            bad_chars.append(f"{where}: {_describe(undrawable(text))}")
    return bad_numbers, bad_chars


def test_quiz_questions_group_their_digits_and_draw_everywhere():
    bad_numbers, bad_chars = grouping_and_drawing_problems(quiz_strings())
    assert not bad_numbers, (
        "Preguntas con enteros de 5 cifras o más sin agrupar, o con un espacio que "
        "parte la línea (la RAE: «45 711», con espacio fino; usa "
        "resnorm.book.format_integer):\n" + "\n".join(bad_numbers)
    )
    assert not bad_chars, (
        "Preguntas con caracteres que sin fuente de emoji se ven como un cuadro "
        "(usa ✓ o ✗):\n" + "\n".join(bad_chars)
    )


def test_checker_widget_and_site_strings_group_their_digits_and_draw_everywhere():
    bad_numbers, bad_chars = grouping_and_drawing_problems(code_strings())
    assert not bad_numbers, (
        "Mensajes con enteros de 5 cifras o más sin agrupar, o con un espacio que "
        "parte la línea (la RAE: «45 711», con espacio fino o duro; si es "
        "código, como una forma (16384, 1024), va entre comillas invertidas):\n"
        + "\n".join(bad_numbers)
    )
    assert not bad_chars, (
        "Mensajes con caracteres que sin fuente de emoji se ven como un cuadro (usa ✓ "
        "o ✗):\n" + "\n".join(bad_chars)
    )


def _pages() -> list[str]:
    return [p for p in html_pages() if not p.startswith(("_static/", "cuadernos/"))]


@pytest.mark.parametrize("rel", _pages() or ["index.html"])
def test_built_pages_group_their_digits_and_draw_everywhere(rel, built_site):
    page = page_text((built_site / rel).read_text(encoding="utf-8"))
    found = badly_grouped("\n".join(page.prose))
    assert not found, (
        f"{rel}: enteros de 5 cifras o más sin agrupar (o agrupados con un espacio "
        f"que parte la línea) en la prosa: {found}. La RAE los escribe en grupos de "
        "tres con un espacio fino que no se parte («45 711»): un número pegado, con "
        "glue_integer de resnorm.book y {glue:text}`nombre` (sin «:.0f»); uno escrito "
        "en el texto, con espacio fino (U+202F)"
    )
    chars = undrawable("\n".join(page.shown))
    assert not chars, (
        f"{rel}: caracteres que sin fuente de emoji se ven como un cuadro vacío: "
        f"{_describe(chars)}. Usa «✓» (U+2713) o «✗» (U+2717), que tiene DejaVu"
    )


def test_the_built_site_is_there_for_the_page_tests(built_site):
    assert _pages(), f"no hay páginas en {os.path.relpath(BUILD_HTML, ROOT)}"
