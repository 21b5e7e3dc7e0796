"""El tiempo de cada capítulo se calcula de su contenido (book/_ext/tiempo_lectura.py):
la regla, el recuento sobre un doctree y, si hay libro construido, lo que muestra."""

from __future__ import annotations

import importlib.util
import json
import re
import sys

import pytest
from docutils import nodes

from tests.helpers import BUILD_HTML, ROOT

_spec = importlib.util.spec_from_file_location(
    "tiempo_lectura", ROOT / "book" / "_ext" / "tiempo_lectura.py"
)
tl = importlib.util.module_from_spec(_spec)
sys.modules["tiempo_lectura"] = tl  # dataclass lo busca ahí
_spec.loader.exec_module(tl)
Contenido = tl.Contenido


def test_time_is_words_at_the_reading_pace_plus_minutes_per_item():
    c = Contenido(palabras=1300, ejercicios=2, widgets=1, preguntas=3, figuras=2)
    esperado = (1300 / tl.PALABRAS_POR_MINUTO + 2 * tl.MIN_POR_EJERCICIO
                + tl.MIN_POR_WIDGET + 3 * tl.MIN_POR_PREGUNTA + 2 * tl.MIN_POR_FIGURA)
    assert tl.minutos_exactos(c) == pytest.approx(esperado)


def test_time_is_rounded_to_5_minutes_and_never_below_5():
    ritmo = tl.PALABRAS_POR_MINUTO
    assert tl.minutos(Contenido()) == 5
    assert tl.minutos(Contenido(palabras=ritmo * 12)) == 10
    assert tl.minutos(Contenido(palabras=ritmo * 13)) == 15  # 12,5 o más sube
    assert tl.minutos(Contenido(palabras=ritmo * 22)) == 20
    for n in range(0, 6000, 97):
        m = tl.minutos(Contenido(palabras=n, ejercicios=2))
        assert m % 5 == 0 and abs(m - tl.minutos_exactos(Contenido(n, 2))) <= 2.5


def test_more_content_never_takes_less_time():
    base = Contenido(palabras=1500, ejercicios=2, widgets=1, preguntas=0)
    for mas in (Contenido(1600, 2, 1, 0), Contenido(1500, 3, 1, 0),
                Contenido(1500, 2, 2, 0), Contenido(1500, 2, 1, 4),
                Contenido(1500, 2, 1, 0, 3)):
        assert tl.minutos(mas) >= tl.minutos(base)


def test_the_pace_is_a_technical_one_slower_than_plain_non_fiction():
    """Brysbaert (2019): 238 palabras/min en no ficción; el curso cuenta menos."""
    assert 100 <= tl.PALABRAS_POR_MINUTO < 238


def test_words_count_letters_not_numbers():
    assert tl.contar_palabras("La media es 3, y la σ vale 1,5 (post-LN).") == 8


def _doctree_de_ejemplo() -> nodes.document:
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    doc = new_document("<prueba>", get_default_settings(Parser))
    seccion = nodes.section()
    seccion += nodes.title(text="Título")
    seccion += nodes.paragraph(text="Cuatro palabras de prosa.")
    seccion += nodes.literal_block(text="x = muchas palabras de código que no cuentan")
    seccion += nodes.math_block(text="y = gamma x")
    celda = nodes.container(classes=["cell"])
    celda += nodes.literal_block(text="quiz = Quiz.from_bank('cap1')")
    celda += nodes.raw(text=f'<script type="{tl.VISTA_WIDGET}">{{}}</script>' * 2,
                       format="html")
    celda += nodes.image(uri="figura.png")
    celda += nodes.raw(text='<img class="curso-figura" src="data:,">', format="html")
    seccion += celda
    desplegable = nodes.container(design_component="dropdown")
    desplegable += nodes.paragraph(text="1. ¿Qué sale de x + 0?")
    desplegable += nodes.paragraph(text="Sale x.")
    seccion += desplegable
    seccion += nodes.container(design_component="dropdown")  # sin título: no pregunta
    vf = nodes.container(design_component="dropdown")
    vf += nodes.paragraph(text="8. Verdadero o falso: «x»")
    seccion += vf
    pista = nodes.container(design_component="dropdown")
    pista += nodes.paragraph(text="Pista")
    seccion += pista
    doc += seccion
    return doc


def test_count_reads_prose_questions_and_widgets_from_a_doctree():
    c = tl.contar(_doctree_de_ejemplo())
    # «Título» + 4 + «Qué sale de x» (4) + «Sale x» (2) + «Verdadero o falso x» (4)
    # + «Pista»
    assert c.palabras == 1 + 4 + 4 + 2 + 4 + 1
    assert c.preguntas == 3  # «¿…?», «8. Verdadero o falso» y el Quiz.from_bank
    assert c.widgets == 1  # dos vistas, una de ellas es el quiz
    assert c.ejercicios == 0
    assert c.figuras == 2  # una imagen y un <img> en HTML


def test_detail_names_only_what_there_is():
    assert tl.detalle(Contenido(palabras=1, ejercicios=1)) == "1 palabra y 1 ejercicio"
    assert tl.detalle(Contenido(900, 2, 1, 3, 2)) == (
        "900 palabras, 2 ejercicios, 1 widget, 3 preguntas y 2 figuras"
    )


def test_landing_and_how_to_pages_type_no_minutes():
    """Los minutos de las tablas los pone la extensión: ninguno escrito a mano."""
    for pagina in ("intro.md", "como-usar.md"):
        texto = (ROOT / "book" / pagina).read_text(encoding="utf-8")
        a_mano = re.findall(r"\b\d+ min\b", texto)
        assert not a_mano, f"book/{pagina}: minutos escritos a mano: {a_mano}"
        assert "{tiempo}`" in texto


def test_extension_is_registered_in_config():
    import runpy

    assert "tiempo_lectura" in runpy.run_path(str(ROOT / "conf.py"))["extensions"]


# --- Sobre el libro construido -------------------------------------------------------

_CAPITULOS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
_sin_libro = pytest.mark.skipif(
    not (BUILD_HTML / "index.html").exists(), reason="sin libro construido (make book)"
)


def _texto(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@_sin_libro
@pytest.mark.build
@pytest.mark.parametrize("capitulo", _CAPITULOS)
def test_each_built_chapter_shows_its_time_under_the_title(capitulo):
    html = (BUILD_HTML / "notebooks" / f"{capitulo}.html").read_text(encoding="utf-8")
    m = re.search(
        r'<p class="tiempo-lectura"><em>Tiempo: unos (\d+) min \(([^)]*)\)', html
    )
    assert m, f"{capitulo}: falta la línea «Tiempo: unos N min» bajo el título"
    assert int(m.group(1)) % 5 == 0 and int(m.group(1)) >= 5
    assert html.index("tiempo-lectura") > html.index("<h1"), "va tras el título"
    # El número de ejercicios que dice es el de directivas {exercise} del notebook
    nb = json.loads((ROOT / "notebooks" / f"{capitulo}.ipynb").read_text("utf-8"))
    fuente = "".join("".join(c["source"]) for c in nb["cells"]
                     if c["cell_type"] == "markdown")
    n_ej = len(re.findall(r"[`:]{3,}\{exercise(?:-start)?\}", fuente))
    if n_ej:
        assert f"{n_ej} ejercicio" in m.group(2), (capitulo, m.group(2), n_ej)


@_sin_libro
@pytest.mark.build
def test_landing_table_shows_the_same_minutes_as_each_chapter():
    portada = _texto((BUILD_HTML / "book" / "intro.html").read_text(encoding="utf-8"))
    assert "{tiempo}" not in portada and "tiempo_pendiente" not in portada
    for capitulo in _CAPITULOS:
        html = (BUILD_HTML / "notebooks" / f"{capitulo}.html").read_text("utf-8")
        m = re.search(r"Tiempo: unos (\d+) min", html)
        assert m, capitulo
        assert f"{m.group(1)} min" in portada, f"la portada no da {m.group(1)} min"
