"""Pruebas de resnorm.plots: cada figura se dibuja, habla español y se describe.

Las figuras se dibujan con datos reales de ``resnorm.experiments`` en versión pequeña
(para que las pruebas sean rápidas) con el backend Agg, convirtiendo cada aviso en
error: así un glifo que falte en la fuente (√, ‖, ₂…) hace fallar la prueba.
"""

import re
import warnings

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from resnorm import plots  # noqa: E402
from resnorm.examples import VECTOR  # noqa: E402
from resnorm.plots import PALETTE, format_magnitude  # noqa: E402

pytest.importorskip("torch")
from resnorm import experiments as ex  # noqa: E402

OKABE_ITO = {
    "#000000",
    "#e69f00",
    "#56b4e9",
    "#009e73",
    "#f0e442",
    "#0072b2",
    "#d55e00",
    "#cc79a7",
}
SPANISH = re.compile(
    r"capa|norma|gradiente|paso|pérdida|valor|componente|desviación|similitud|"
    r"coseno|entrada|salida|entrenamiento|escala|vectores",
    re.IGNORECASE,
)


@pytest.fixture(scope="module")
def data():
    return {
        "grad": ex.first_layer_grad_vs_depth(depths=(1, 4, 32), width=16, batch_size=8),
        "survival": ex.signal_survival(depths=(1, 5, 20), width=16, batch_size=8),
        "std": ex.activation_std_per_layer(n_layers=12, width=16, batch_size=8),
        "transformer": ex.transformer_grad_norms(
            n_layers=(2, 4), n_seeds=1, d_model=16, n_heads=2, d_ff=32, seq_len=4
        ),
        "adam": ex.tiny_training(steps=30, depth=6, width=16, optimizer="adam"),
        "sgd": ex.tiny_training(steps=40, depth=20, width=32, optimizer="sgd", lr=0.05),
    }


VECTORS = {
    "x": list(VECTOR),
    "x − μ": [-0.2025, -0.0525, -0.0725, 0.3275],
    "LN(x)": [-1.023, -0.265, -0.366, 1.654],
}

# (nombre, función que dibuja, función de texto alternativo, clave de datos)
FIGURES = [
    ("first_layer_grad", plots.plot_first_layer_grad, plots.alt_text_first_layer_grad,
     "grad"),
    ("signal_survival", plots.plot_signal_survival, plots.alt_text_signal_survival,
     "survival"),
    ("activation_std", plots.plot_activation_std, plots.alt_text_activation_std, "std"),
    ("transformer_grad_norms", plots.plot_transformer_grad_norms,
     plots.alt_text_transformer_grad_norms, "transformer"),
    ("last_layer_grad", plots.plot_last_layer_grad, plots.alt_text_last_layer_grad,
     "transformer"),
    ("training_adam", plots.plot_training_curves, plots.alt_text_training, "adam"),
    ("training_sgd", plots.plot_training_curves, plots.alt_text_training, "sgd"),
]
IDS = [f[0] for f in FIGURES]


def _draw(plot, *args, **kwargs):
    fig, ax = plots.new_figure()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        returned = plot(ax, *args, **kwargs)
        fig.canvas.draw()
    return fig, ax, returned


@pytest.fixture(scope="module")
def drawn(data):
    """Cada figura, dibujada una sola vez: nombre → (fig, ax, lo que devolvió)."""
    figures = {name: _draw(plot, data[key]) for name, plot, _, key in FIGURES}
    yield figures
    plt.close("all")


@pytest.mark.parametrize("name", IDS)
def test_figure_draws_with_agg_and_returns_its_axis(drawn, name):
    fig, ax, returned = drawn[name]
    assert returned is ax
    assert len(ax.get_lines()) >= 2


@pytest.mark.parametrize("name", IDS)
def test_figure_labels_are_in_spanish(drawn, name):
    _, ax, _ = drawn[name]
    for text in (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()):
        assert text.strip()
    assert SPANISH.search(ax.get_xlabel() + " " + ax.get_ylabel())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    english = {"plain", "pre_ln", "post_ln", "plain_ln", "loss", "layer", "depth"}
    assert not english & {w.lower() for t in legend for w in t.split()}


@pytest.mark.parametrize("name", IDS)
def test_figure_has_explicit_white_background(drawn, name):
    fig, ax, _ = drawn[name]
    assert to_hex(fig.get_facecolor(), keep_alpha=True) == "#ffffffff"
    assert to_hex(ax.get_facecolor(), keep_alpha=True) == "#ffffffff"


@pytest.mark.parametrize("name", IDS)
def test_series_use_okabe_ito_and_differ_by_line_style_too(drawn, name):
    _, ax, _ = drawn[name]
    series = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    series = [ln for ln in series if ln.get_alpha() is None]  # sin las guías grises
    assert all(to_hex(ln.get_color()) in OKABE_ITO for ln in series)
    looks = {(str(ln.get_linestyle()), ln.get_marker()) for ln in series}
    assert len(looks) == len(series)  # distinguibles sin color


@pytest.mark.parametrize(
    "name", ["first_layer_grad", "activation_std", "last_layer_grad", "training_adam"]
)
def test_figures_spanning_orders_of_magnitude_use_log_scale(drawn, name):
    assert drawn[name][1].get_yscale() == "log"


def test_palette_is_okabe_ito():
    assert {c.lower() for c in PALETTE.values()} == OKABE_ITO


def test_format_magnitude_is_readable():
    assert format_magnitude(0.80312) == "0.803"
    assert format_magnitude(11.83) == "11.8"
    assert format_magnitude(2.2e-8) == "2.2 × 10⁻⁸"
    assert format_magnitude(-0.0219) == "\u22120.0219"
    assert format_magnitude(3.9e14) == "3.9 × 10¹⁴"
    assert format_magnitude(None) == "ninguno"


# --- Texto alternativo --------------------------------------------------------------


@pytest.mark.parametrize("name, plot, alt, key", FIGURES, ids=IDS)
def test_alt_text_is_spanish_and_nonempty(data, name, plot, alt, key):
    text = alt(data[key])
    assert len(text) > 60
    assert SPANISH.search(text)
    assert "\n" not in text


def test_alt_text_first_layer_grad_mentions_the_numbers(data):
    d = data["grad"]
    text = plots.alt_text_first_layer_grad(d)
    for kind in ("plain", "residual"):
        assert format_magnitude(d["grad_norm"][kind][-1]) in text
    ratio = d["grad_norm"]["residual"][-1] / d["grad_norm"]["plain"][-1]
    assert format_magnitude(ratio) in text  # la profundidad 32 está en los datos
    assert "32" in text and "Pre-LN" in text


def test_alt_text_signal_survival_lists_every_value(data):
    d = data["survival"]
    text = plots.alt_text_signal_survival(d)
    for kind in d["kinds"]:
        for value in d["cosine"][kind]:
            assert format_magnitude(value) in text


def test_alt_text_activation_std_gives_final_values_and_sqrt_reference(data):
    d = data["std"]
    text = plots.alt_text_activation_std(d)
    for name, curve in d["curves"].items():
        assert format_magnitude(curve[-1]) in text, name
    assert format_magnitude((1 + 12) ** 0.5) in text


def test_alt_text_transformer_mentions_first_and_last_layer(data):
    d = data["transformer"]
    text = plots.alt_text_transformer_grad_norms(d)
    for kind in d["kinds"]:
        norms = d["grad_norms"][kind]["4"]
        assert format_magnitude(norms[0]) in text
        assert format_magnitude(norms[-1]) in text
    last = plots.alt_text_last_layer_grad(d)
    for kind in d["kinds"]:
        for value in d["last_layer"][kind]:
            assert format_magnitude(value) in last


def test_alt_text_training_says_where_it_diverged(data):
    d = data["sgd"]
    step = d["diverged_at_step"]["residual"]
    assert step is not None
    text = plots.alt_text_training(d)
    assert f"diverge en el paso {step}" in text
    assert format_magnitude(d["final_loss"]["pre_ln"]) in text


def test_training_plot_marks_divergence_in_legend(drawn):
    _, ax, _ = drawn["training_sgd"]
    legend = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert "diverge en el paso" in legend


# --- Barras para comparar vectores --------------------------------------------------


def test_plot_vectors_draws_one_bar_per_component_and_vector():
    title = "Paso a paso de LayerNorm"
    _, ax, returned = _draw(plots.plot_vectors, VECTORS, title=title)
    assert returned is ax
    assert len(ax.patches) == 3 * 4
    assert ax.get_title() == title
    assert ax.get_xlabel() == "Componente" and ax.get_ylabel() == "Valor"
    hatches = {p.get_hatch() for p in ax.patches}
    assert len(hatches) == 3  # trama distinta por vector, además del color
    plt.close("all")


def test_plot_vectors_rejects_vectors_of_different_length():
    fig, ax = plots.new_figure()
    with pytest.raises(ValueError, match="misma longitud"):
        plots.plot_vectors(ax, {"a": [1, 2], "b": [1, 2, 3]})
    plt.close(fig)


def test_alt_text_vectors_lists_components():
    text = plots.alt_text_vectors(VECTORS, title="Paso a paso de LayerNorm")
    assert "3 vectores de 4 componentes" in text
    assert "1.33" in text and "\u22121.02" in text
    assert text.startswith("Paso a paso de LayerNorm.")


def test_plots_module_does_not_need_torch():
    import subprocess
    import sys

    code = "import sys, resnorm.plots; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_signal_survival_can_show_pairwise_similarity(data):
    d = data["survival"]
    _, ax, _ = _draw(plots.plot_signal_survival, d, metric="pairwise_abs_cosine")
    assert "distintas" in ax.get_ylabel()
    text = plots.alt_text_signal_survival(d, metric="pairwise_abs_cosine")
    assert format_magnitude(d["pairwise_abs_cosine"]["plain"][-1]) in text
    with pytest.raises(ValueError, match="metric"):
        plots.plot_signal_survival(ax, d, metric="mse")
    plt.close("all")


def test_activation_std_can_draw_only_the_plain_curves(data):
    names = ["plain_gain_0.9", "plain_gain_1.0", "plain_gain_1.1"]
    _, ax, _ = _draw(plots.plot_activation_std, data["std"], curves=names)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [plots.KIND_STYLE[n]["label"] for n in names]  # sin √(1 + l)
    text = plots.alt_text_activation_std(data["std"], curves=names)
    assert "Pre-LN" not in text and "ganancia 1.1" in text
    plt.close("all")


def test_plots_uses_the_book_formatters_and_one_palette():
    """Un solo formateador (resnorm.book) y una sola paleta: plots.py no define su
    propio signo menos ni su propia forma de escribir números."""
    import inspect

    import resnorm.book as book
    from resnorm import cost

    source = inspect.getsource(plots)
    assert "MINUS" not in source and '.replace("-"' not in source
    assert ":.3g" not in source and ":.2f" not in source
    assert plots.format_number is book.format_number
    assert plots.format_sci is book.format_sci
    assert format_magnitude(2.2e-8) == book.format_sci(2.2e-8, 2)
    assert cost.plot_bandwidth is plots.plot_bandwidth  # se puede importar de los dos
    bandwidth = inspect.getsource(plots.plot_bandwidth).lower()
    assert not any(c.lower() in bandwidth for c in PALETTE.values())  # usa PALETTE


def test_figure_lines_take_colour_style_and_name_from_the_series_table(data):
    fig, ax = plots.new_figure()
    names = ["plain_gain_0.9", "plain_gain_1.1", "plain_ln"]
    plots.plot_activation_std(ax, data["std"], curves=names)
    lines = [ln for ln in ax.get_lines() if ln.get_label() in
             {plots.SERIES_STYLE[n]["label"] for n in names}]
    assert len(lines) == len(names)
    for line, name in zip(lines, names):
        style = plots.SERIES_STYLE[name]
        assert to_hex(line.get_color()) == style["color"].lower()
        assert line.get_label() == style["label"]
        assert line.get_marker() == style["marker"]
    plt.close(fig)
