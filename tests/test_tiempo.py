"""El tiempo de cada capítulo se calcula de su contenido (book/_ext/tiempo_lectura.py):
la regla, el recuento sobre un doctree y, si hay libro construido, lo que muestra."""

from __future__ import annotations

import importlib.util
import re

import pytest

from tests.helpers import ROOT, notebook_paths

_spec = importlib.util.spec_from_file_location(
    "tiempo_lectura", ROOT / "book" / "_ext" / "tiempo_lectura.py"
)
tl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tl)
Contenido = tl.Contenido


def test_reading_time_is_prose_code_outputs_and_items_and_exercises_come_on_top():
    c = Contenido(palabras=1300, ejercicios=2, widgets=1, preguntas=3, figuras=2,
                  lineas_codigo=40, lineas_salida=60)
    lectura = (1300 / tl.PALABRAS_POR_MINUTO + 40 / tl.LINEAS_DE_CODIGO_POR_MINUTO
               + 60 / tl.LINEAS_DE_SALIDA_POR_MINUTO + tl.MIN_POR_WIDGET
               + 3 * tl.MIN_POR_PREGUNTA + 2 * tl.MIN_POR_FIGURA)
    assert tl.minutos_exactos(c, ejercicios=False) == pytest.approx(lectura)
    assert tl.minutos_exactos(c) == pytest.approx(lectura + 2 * tl.MIN_POR_EJERCICIO)


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
                Contenido(1500, 2, 1, 0, 3), Contenido(1500, 2, 1, 0, 0, 30),
                Contenido(1500, 2, 1, 0, 0, 0, 30)):
        assert tl.minutos(mas) >= tl.minutos(base)
        assert tl.minutos(mas, ejercicios=False) >= tl.minutos(base, ejercicios=False)


def test_the_pace_is_a_technical_one_slower_than_plain_non_fiction():
    """Brysbaert (2019): 238 palabras/min en no ficción; el curso cuenta menos."""
    assert 100 <= tl.PALABRAS_POR_MINUTO < 238


def test_words_count_letters_not_numbers():
    assert tl.contar_palabras("La media es 3, y la σ vale 1,5 (post-LN).") == 8


def test_a_quiz_cell_counts_its_questions_from_the_bank():
    from resnorm.quiz import bank

    fuente = ('Quiz.from_bank("layernorm", "normalizar")\n'
              'Quiz.from_bank("media", "sigma")')
    esperado = (len(bank.chapter("layernorm")["normalizar"])
                + len(bank.chapter("media")["sigma"]))
    assert tl.preguntas_de_la_celda(fuente) == (2, esperado)


def test_detail_names_only_what_there_is_with_digit_groups():
    assert tl.detalle(Contenido(palabras=1, ejercicios=1)) == "1 palabra y 1 ejercicio"
    assert tl.detalle(Contenido(12288, 2, 1, 3, 2, 1, 0)) == (
        "12\u202f288 palabras, 1 línea de código, 2 figuras, 1 widget, 3 preguntas y "
        "2 ejercicios"
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

_CAPITULOS = sorted(p.stem for p in notebook_paths())  # los borradores no se construyen
_LINEA = re.compile(
    r'<p class="tiempo-lectura"><em>Tiempo: leer, unos (\d+) min'
    r"(?:; con los ejercicios, unos (\d+) min)?\.</em>"
)
_OCULTAS = {"remove-input", "remove-cell", "hide-input", "hide-cell"}


def _texto(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _cuenta(detalle: str, nombre: str) -> int:
    m = re.search(r"(\d[\d\u202f]*) " + nombre, detalle)
    return int(m.group(1).replace("\u202f", "")) if m else 0


def _recuento(nb) -> dict[str, int]:
    """Lo que tiene un capítulo ejecutado, contado aparte de la extensión: el código
    que se ve, sus widgets (sin los bloques de preguntas), las preguntas y los
    ejercicios."""
    from resnorm.quiz import bank

    cuenta = dict.fromkeys(("codigo", "widgets", "preguntas", "ejercicios"), 0)
    for celda in nb.cells:
        fuente = celda.source
        if celda.cell_type == "markdown":
            cuenta["ejercicios"] += len(re.findall(r"[`:]{3,}\{exercise(?:-start)?\}",
                                                   fuente))
            for titulo in re.findall(r"[`:]{3,}\{dropdown\}\s*([^\n]*)", fuente):
                if "?" in titulo or re.match(r"\d+\.\s", titulo) or (
                        titulo.lower().startswith("verdadero o falso")):
                    cuenta["preguntas"] += 1
            continue
        etiquetas = set(celda.metadata.get("tags", []))
        llamadas = re.findall(r'Quiz\.from_bank\("([\w-]+)", "([\w-]+)"\)', fuente)
        bloques = len(llamadas)
        cuenta["preguntas"] += sum(len(bank.chapter(c)[b]) for c, b in llamadas)
        if not etiquetas & (_OCULTAS | tl.ETIQUETAS_DE_EJERCICIO):
            cuenta["codigo"] += sum(1 for r in fuente.splitlines() if r.strip())
        if etiquetas & {"remove-output", "remove-cell"}:
            continue
        vistas = sum(tl.VISTA_WIDGET in out.get("data", {})
                     for out in celda.get("outputs", []))
        cuenta["widgets"] += vistas - bloques
    return cuenta


def _fila_de_estadisticas(built_site, capitulo: str) -> list[str]:
    """La fila del capítulo en la tabla de lo contado de la página de estadísticas:
    capítulo, leer, con ejercicios y lo contado (las cifras de la construcción)."""
    from bs4 import BeautifulSoup

    html = (built_site / "book" / "estadisticas.html").read_text(encoding="utf-8")
    tabla = BeautifulSoup(html, "html.parser").select_one("table.tiempo-contado")
    assert tabla is not None, "la página de estadísticas no da lo contado"
    for fila in tabla.select("tbody tr"):
        celdas = [" ".join(td.get_text().split()) for td in fila.select("td")]
        enlace = fila.select_one("a")
        if enlace and enlace["href"].split("#")[0].endswith(f"{capitulo}.html"):
            return celdas
    raise AssertionError(f"{capitulo}: no está en la tabla de lo contado")


@pytest.mark.parametrize("capitulo", _CAPITULOS)
def test_each_built_chapter_counts_what_its_page_holds(capitulo, executed_notebooks,
                                                       built_site):
    """La línea bajo el título dice «leer» y «con los ejercicios»; lo que cuenta (en
    la página de estadísticas, no en el texto del lector) es lo que tiene el capítulo
    ejecutado: los bloques de preguntas son preguntas (del banco), no widgets; el
    código que se ve, líneas de código."""
    html = (built_site / "notebooks" / f"{capitulo}.html").read_text(encoding="utf-8")
    m = _LINEA.search(html)
    assert m, f"{capitulo}: falta la línea «Tiempo: leer, unos N min» bajo el título"
    assert html.index("tiempo-lectura") > html.index("<h1"), "va tras el título"
    leer, con_ejercicios = int(m.group(1)), m.group(2)
    fila = _fila_de_estadisticas(built_site, capitulo)
    assert fila[1:3] == [str(leer), con_ejercicios or "—"], fila
    detalle = fila[3]
    esperado = _recuento(executed_notebooks(ROOT / "notebooks" / f"{capitulo}.ipynb"))
    assert _cuenta(detalle, "ejercicio") == esperado["ejercicios"], detalle
    assert _cuenta(detalle, "pregunta") == esperado["preguntas"], detalle
    assert _cuenta(detalle, "widget") == esperado["widgets"], detalle
    assert _cuenta(detalle, "línea") == esperado["codigo"], detalle
    assert leer % 5 == 0 and leer >= 5
    if esperado["ejercicios"]:
        assert con_ejercicios and int(con_ejercicios) > leer
    else:
        assert con_ejercicios is None


def test_the_landing_table_shows_the_same_minutes_as_each_chapter(built_site):
    portada = _texto((built_site / "book" / "intro.html").read_text(encoding="utf-8"))
    assert "{tiempo}" not in portada and "tiempo_pendiente" not in portada
    for capitulo in _CAPITULOS:
        html = (built_site / "notebooks" / f"{capitulo}.html").read_text("utf-8")
        m = _LINEA.search(html)
        assert m, capitulo
        texto = f"{m.group(1)} min" + (f" ({m.group(2)} con ejercicios)"
                                       if m.group(2) else "")
        assert texto in portada, f"la portada no da «{texto}» para {capitulo}"


def test_the_landing_page_offers_a_short_path_under_45_minutes(built_site):
    """Para quien tiene prisa: las secciones centrales, con su tiempo contado como el
    de los capítulos, en 45 minutos o menos, y cada enlace lleva a su sección."""
    html = (built_site / "book" / "intro.html").read_text(encoding="utf-8")
    total = re.search(r"En total, unos (\d+) min de lectura", _texto(html))
    assert total and int(total.group(1)) <= 45, total
    enlaces = re.findall(r'href="(\.\./notebooks/[\w.]+\.html)#([\w-]+)"[^>]*>'
                         r"[^<]*</a>[^<]*, (\d+) min", html)
    assert len(enlaces) >= 4, enlaces
    for pagina, ancla, _ in enlaces:
        destino = (built_site / "book" / pagina).resolve().read_text(encoding="utf-8")
        assert f'id="{ancla}"' in destino, (pagina, ancla)
    suma = sum(int(m) for _, _, m in enlaces)  # cada sección, redondeada al minuto
    assert abs(suma - int(total.group(1))) <= 2.5 + 0.5 * len(enlaces), (suma, total)
