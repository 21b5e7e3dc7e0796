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
