"""``resnorm.book``: cómo se formatean, se pegan y se muestran los números y figuras."""

from __future__ import annotations

import base64
import re
import sys
import types

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from resnorm import book  # noqa: E402


def test_format_number_uses_the_typographic_minus_and_no_negative_zero():
    assert book.format_number(-1.0244965, 3) == "\u22121.024"
    assert book.format_number(-0.0001, 2) == "0.00"
    assert book.format_vector([-1.024496, 0.5], 3) == "[\u22121.024, 0.500]"


def test_parse_numbers_reads_back_what_format_vector_writes():
    values = [-1.024496, -0.26561, 2.122591, 1e-3]
    text = book.format_vector(values, 4)
    np.testing.assert_allclose(book.parse_numbers(text), values, atol=5e-5)
    assert book.parse_numbers("2.7e-16 y 1.5E+3") == [2.7e-16, 1500.0]


def test_glue_number_rejects_vectors():
    with pytest.raises(TypeError, match="un solo número"):
        book.glue_number("v", [1.0, 2.0])


def test_glue_without_myst_nb_shows_nothing(monkeypatch, capsys):
    # En Colab o un JupyterHub no está myst-nb: pegar no debe romper el capítulo ni
    # mostrar nada.
    monkeypatch.setitem(sys.modules, "myst_nb", None)
    book.glue_number("x", 1.5)
    book.glue_vector("v", [1.0, 2.0])
    book.glue_sci("g", 2.7e-16)
    assert capsys.readouterr().out == ""


def test_glue_with_myst_nb_passes_a_python_float_or_formatted_text(monkeypatch):
    calls = []

    def glue(name, value, display=False):
        calls.append((name, value, display))

    monkeypatch.setitem(sys.modules, "myst_nb", types.SimpleNamespace(glue=glue))
    book.glue_number("x", np.float32(1.5))
    book.glue_vector("v", [1.0, 2.0])
    assert calls == [("x", 1.5, False), ("v", "[1.000, 2.000]", False)]
    assert type(calls[0][1]) is float


def _figure():
    fig, ax = plt.subplots()
    ax.plot(np.random.default_rng(0).normal(size=(100, 3)))
    ax.set_title("Prueba")
    return fig


def test_figure_html_needs_spanish_alt_text_and_escapes_it():
    with pytest.raises(ValueError, match="texto alternativo"):
        book.figure_html(_figure(), "  ")
    html = book.figure_html(_figure(), 'Curva "a" < b')
    assert 'alt="Curva &quot;a&quot; &lt; b"' in html
    data = re.search(r"base64,([^\"]+)", html).group(1)
    assert base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n"


def test_figure_html_paints_only_its_two_images(monkeypatch):
    """Las colocaciones con que ``fit_to_column`` mide leyendas y ancho no pintan
    píxeles (``book._layout``): solo se pintan las dos imágenes, la del portátil y la
    del teléfono. Aquí la leyenda tapa las curvas y se mueve: la figura se coloca
    nueve veces (antes, cada una de ellas la pintaba entera)."""
    from matplotlib.figure import Figure

    painted, laid_out = [], []
    draw = Figure.draw

    def counting_draw(fig, renderer):
        # Un dibujo que no pinta (``renderer._draw_disabled``) cambia sus métodos
        # ``draw_*`` por otros que no hacen nada.
        method = getattr(renderer.draw_path, "__func__", None)
        paints = method is type(renderer).draw_path
        (painted if paints else laid_out).append(fig)
        return draw(fig, renderer)

    fig = _figure()
    for line, label in zip(fig.axes[0].get_lines(), "abc"):
        line.set_label(f"serie {label}")
    fig.axes[0].legend(loc="center")  # tapa las curvas: se mueve
    monkeypatch.setattr(Figure, "draw", counting_draw)
    book.figure_html(fig, "Tres series de ruido y su leyenda")
    assert len(painted) == 2
    assert len(laid_out) > 2


def test_figures_are_quantized_to_a_smaller_png():
    from io import BytesIO

    fig = _figure()
    buf = BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", facecolor="white")
    small = book._quantize_png(buf.getvalue())
    assert len(small) < 0.7 * len(buf.getvalue())


def test_format_sci_writes_for_readers_and_parses_back():
    assert book.format_sci(2.7427e-16) == "2.7 \u00d7 10\u207b\u00b9\u2076"
    assert book.format_sci(-11372.65, 3) == "\u22121.14 \u00d7 10\u2074"
    assert book.parse_numbers(book.format_sci(2.7427e-16)) == [2.7e-16]
    assert book.parse_numbers("\u22121.14 \u00d7 10\u2074 y 3") == [-11400.0, 3.0]


def test_glue_figure_glues_the_image_with_its_alt_and_shows_nothing(monkeypatch):
    glued = {}
    monkeypatch.setattr(book, "_glue", lambda n, v, display=False: glued.update({n: v}))
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *a, **k: shown.append(a))
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    book.glue_figure("fig-01-recta", fig, alt="Una recta.")
    assert not shown
    assert 'alt="Una recta."' in glued["fig-01-recta"]._repr_html_()
    assert repr(glued["fig-01-recta"]) == "Una recta."
    fig, _ = plt.subplots()
    with pytest.raises(ValueError, match="Nombre de figura"):
        book.glue_figure("Figura 1", fig, alt="Otra.")


def test_glue_sci_glues_the_reader_notation(monkeypatch):
    glued = {}
    monkeypatch.setattr(book, "_glue", lambda n, v, display=False: glued.update({n: v}))
    book.glue_sci("g", 2.7427e-16)
    assert glued == {"g": "2.7 \u00d7 10\u207b\u00b9\u2076"}


# --- Las referencias: cada obra con su etiqueta ---------------------------------------


def _referencias(site) -> dict[str, str]:
    """{ancla de la obra: etiqueta} de la lista de book/referencias.html."""
    html = (site / "book" / "referencias.html").read_text(encoding="utf-8")
    etiquetas = {}
    for m in re.finditer(r'<div class="citation" id="([^"]+)"[^>]*>(.*?)</div>', html,
                         re.S):
        label = re.search(r'<span class="label">(.*?)<p>', m.group(2), re.S)
        texto = re.sub(r"<[^>]+>", "", label.group(1)) if label else ""
        etiquetas[m.group(1)] = " ".join(texto.split()).strip("[]")
    return etiquetas


def _citas_en_el_texto(site) -> dict[str, set[str]]:
    """{ancla de la obra en referencias.html: textos de los enlaces que la citan}."""
    citas: dict[str, set[str]] = {}
    for page in sorted((site / "notebooks").glob("*.html")):
        html = page.read_text(encoding="utf-8")
        for m in re.finditer(
            r'<a class="reference internal" href="[^"]*referencias\.html#([^"]+)"[^>]*>'
            r"(.*?)</a>", html, re.S,
        ):
            texto = " ".join(re.sub(r"<[^>]+>", "", m.group(2)).split())
            citas.setdefault(m.group(1), set()).add(texto)
    return citas


def test_no_two_references_render_the_same_label(built_site):
    """Dos obras con los mismos autores y año llevan letra: «He et al., 2016a» y
    «2016b», «PyTorch, 2024a» y «2024b» (conf.py, estilo «autor_anio»)."""
    etiquetas = _referencias(built_site)
    assert len(etiquetas) >= 20, f"la lista de referencias está casi vacía: {etiquetas}"
    repetidas = {e for e in etiquetas.values() if list(etiquetas.values()).count(e) > 1}
    assert not repetidas, f"etiquetas repetidas en referencias.html: {repetidas}"
    assert not [e for e in etiquetas.values() if "{" in e or not e], etiquetas
    por_texto = set(etiquetas.values())
    for par in (("He et al., 2016a", "He et al., 2016b"),
                ("PyTorch, 2024a", "PyTorch, 2024b")):
        assert set(par) <= por_texto, f"faltan {par} en {sorted(por_texto)}"


def test_citations_in_the_text_carry_the_letter_of_their_reference(built_site):
    """Lo que enlaza cada cita en los capítulos termina como la etiqueta de su obra en
    la lista (el año con su letra): dos obras distintas nunca se citan igual."""
    etiquetas = _referencias(built_site)
    citas = _citas_en_el_texto(built_site)
    assert len(set(citas) & set(etiquetas)) >= 10, "las citas no enlazan a la lista"
    finales = {texto.split(", ")[-1] for textos in citas.values() for texto in textos}
    assert {"2016a", "2016b", "2024a", "2024b"} <= finales, sorted(finales)
    mal = [f"{ancla}: «{texto}» no termina como «{etiquetas[ancla]}»"
           for ancla, textos in citas.items() if ancla in etiquetas
           for texto in textos
           if not etiquetas[ancla].endswith(", " + texto.split(", ")[-1])]
    assert not mal, "citas cuyo año no es el de su etiqueta:\n" + "\n".join(mal)


def _sin_llaves(texto: str) -> str:
    return re.sub(r"[{}]", "", texto)


def test_references_join_authors_with_y_in_spanish(built_site):
    """La lista de referencias y las citas unen a los autores con «y», no con «and»
    («Ba, Kiros y Hinton»; «De y Smith, 2020»), y el «and others» de BibTeX es «y
    otros» (book/_ext/referencias_es.py). Los títulos, en inglés, no cuentan: se mira
    lo que va delante del título de cada obra."""
    from pybtex.database import parse_file

    from tests.helpers import ROOT

    html = (built_site / "book" / "referencias.html").read_text(encoding="utf-8")
    textos = [" ".join(re.sub(r"<[^>]+>", "", m.group(1)).split())
              for m in re.finditer(r'<div class="citation"[^>]*>(.*?)</div>', html,
                                   re.S)]
    obras = parse_file(ROOT / "book" / "referencias.bib").entries.values()
    mal, con_y = [], 0
    for obra in obras:
        titulo = ". " + _sin_llaves(obra.fields["title"])[:30]  # tras los autores
        (texto,) = [t for t in textos if titulo in t] or [f"«{titulo}» no está"]
        autores = texto.partition(titulo)[0].partition("] ")[2]
        if re.search(r"\band\b|\bothers\b", autores) or not autores:
            mal.append(autores or texto)
        elif len(obra.persons.get("author", [])) > 1:
            con_y += " y " in autores
    autores_con_varios = sum(len(o.persons.get("author", [])) > 1 for o in obras)
    assert not mal, f"autores en inglés en referencias.html: {mal}"
    assert con_y == autores_con_varios >= 10, (con_y, autores_con_varios)
    # Las citas del texto: «Zhang y Sennrich, 2019», nunca «Zhang and Sennrich».
    citas = {t for textos in _citas_en_el_texto(built_site).values() for t in textos}
    assert not [c for c in citas if re.search(r"\band\b", c)], sorted(citas)
    etiquetas = set(_referencias(built_site).values())
    assert {"Zhang y Sennrich, 2019", "De y Smith, 2020"} <= etiquetas, etiquetas


# --- Frases del issue 49 que no deben volver ----------------------------------------


def _prosa_de(notebook: str) -> str:
    import json

    from tests.helpers import ROOT

    nb = json.loads((ROOT / "notebooks" / f"{notebook}.ipynb").read_text("utf-8"))
    md = [" ".join("".join(c["source"]).split())
          for c in nb["cells"] if c["cell_type"] == "markdown"]
    return "\n".join(md)


def test_chapter_11_names_the_course_steps_and_this_books_chapters():
    """Los Pasos 4 a 7 del curso son embedding, atención, FFN y este paso; las piezas
    de este paso son los capítulos 1 a 7 del libro (la conexión residual, el 2)."""
    prosa = _prosa_de("11_resumen")
    assert "capítulos 4 a 7 ya tienes" not in prosa
    assert "Pasos 4 a 7 del curso" in prosa and "capítulos 1 a 7" in prosa


def test_chapter_10_keeps_the_three_explanations_of_warm_up():
    """§10.6 no da por hecha la explicación de Xiong et al.: las tres del capítulo 7."""
    prosa = _prosa_de("10_gpt_diminuto")
    calentamiento = prosa.split("## La tasa de aprendizaje y el calentamiento")[1]
    calentamiento = calentamiento.split("\n")[0]
    assert "viste por qué" not in calentamiento
    for clave in ("xiong2020layer", "liu2020understanding", "takase2023b2t"):
        assert clave in calentamiento, f"§10.6 no cita {clave}"


def test_chapter_10_says_which_seeds_the_build_and_the_bench_check():
    """El libro afirma la semilla 0 al construirse; las 1 y 2, «make bench»."""
    prosa = _prosa_de("10_gpt_diminuto")
    assert "las pruebas del curso" not in prosa
    assert prosa.count("`make bench`") >= 2 and prosa.count("semilla 0") >= 2
    assert "no es mayor que el de Pre-LN" not in prosa
    assert "del mismo orden que el de Pre-LN, entre {glue:text}`ratio_w2_min" in prosa


def test_appendix_defines_times_copy_as_the_code_computes_it():
    """«×copia» divide entre la copia más rápida de la ejecución (resnorm.cost)."""
    prosa = _prosa_de("12_cuanto_cuesta_normalizar")
    assert "lo que la copia a un búfer;" not in prosa
    assert "y marca el límite" not in prosa
    assert "«×copia» dice cuántas veces tarda cada método lo que la copia más rápida" \
        in prosa
    pie = prosa.split(":name: fig-12-ancho-de-banda")[1].split("```")[0]
    assert "copia más rápida de esta ejecución" in pie and "«×copia»" in pie


def test_chapter_11_slope_is_an_estimate_with_its_error():
    prosa = _prosa_de("11_resumen")
    assert "{glue:text}`pendiente:.1f` ± {glue:text}`pendiente_err:.1f`" in prosa
    assert "la cuenta daría 6" not in prosa


def test_appendix_figure_alt_text_names_the_fastest_copy(built_site):
    """El texto alternativo de la figura dice qué es la línea: la copia más rápida de
    la ejecución, la que vale 1 en «×copia»."""
    html = (built_site / "notebooks" / "12_cuanto_cuesta_normalizar.html").read_text(
        encoding="utf-8")
    alts = re.findall(r'alt="(Barras horizontales[^"]*)"', html)
    assert alts, "no encuentro la figura de los GB/s en el apéndice"
    assert all("copia más rápida de esta ejecución" in a and "×copia" in a
               for a in alts), alts[0]
