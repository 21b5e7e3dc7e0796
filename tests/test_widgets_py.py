"""Los widgets en Python: traits por defecto, validación en español y un estado
guardado ligero (es lo que la web estática carga)."""

from __future__ import annotations

import json
import re

import ipywidgets.embed
import numpy as np
import pytest
import traitlets

import resnorm
from resnorm.examples import VECTOR
from resnorm.trace import block_trace
from resnorm.widgets import (
    SERIES_LABELS,
    BlockStepper,
    DepthExplorer,
    LayerNormExplorer,
    MeanStdCalculator,
    ResidualSum,
    validate_depth_data,
)

GRADIENT = {
    "depths": [2, 4, 8, 16, 32],
    "series": {
        "plain": [1e-2, 1e-4, 1e-8, 1e-16, 0.0],
        "residual": [1.0, 1.2, 1.5, 2.0, 2.9],
        "pre_ln": [0.9, 0.8, 0.7, 0.6, 0.5],
        "post_ln": [1.1, 1.3, 2.1, None, 8.0],
    },
}
ACTIVATIONS = {"layers": list(range(1, 49)), "series": {"pre_ln": [1.0] * 48}}


def make_all():
    return [
        MeanStdCalculator(),
        LayerNormExplorer(),
        ResidualSum(),
        BlockStepper(),
        DepthExplorer(gradient=GRADIENT, activations=ACTIVATIONS),
    ]


# --- El estado guardado ---------------------------------------------------------------


@pytest.mark.parametrize("widget", make_all(), ids=lambda w: type(w).__name__)
def test_state_is_strict_json_and_light(widget):
    state = widget.get_state()
    text = json.dumps(state, allow_nan=False, ensure_ascii=False)
    # El formateador gemelo de resnorm.book (compute.js) va en cada widget: ~3 KB.
    assert len(text.encode("utf-8")) < 50_000
    data = {k: v for k, v in state.items() if k not in ("_esm", "_css")}
    assert len(json.dumps(data, ensure_ascii=False).encode("utf-8")) < 15_000


def test_widgets_embed_as_a_static_state_without_a_kernel():
    # El estado completo (como el que guarda nbclient): sin drop_defaults, porque
    # el _esm es el valor por defecto del trait y la página estática lo necesita.
    widgets = make_all()
    state = ipywidgets.embed.dependency_state(widgets, drop_defaults=False)
    data = ipywidgets.embed.embed_data(views=widgets, state=state)
    text = json.dumps(data["manager_state"], allow_nan=False)
    assert len(text) < 250_000
    states = data["manager_state"]["state"]
    for w in widgets:
        assert "export default" in states[w.model_id]["state"]["_esm"]


@pytest.mark.parametrize("widget", make_all(), ids=lambda w: type(w).__name__)
def test_esm_is_one_module_with_no_imports_and_css_uses_theme_colors(widget):
    esm = str(widget._esm)
    assert not re.search(r"^\s*import\b", esm, re.M)
    assert "export default" in esm
    css = str(widget._css)
    for var in ("--pst-color-text-base", "--pst-color-background",
                "--pst-color-border", "--jp-ui-font-color1", "--jp-layout-color1"):
        assert var in css
    assert ":focus-visible" in css


# --- MeanStdCalculator ----------------------------------------------------------------


def test_mean_std_calculator_defaults_to_the_course_vector():
    w = MeanStdCalculator()
    assert w.values == ["0.80", "0.95", "0.93", "1.33"]


def test_mean_std_calculator_keeps_text_and_accepts_numbers():
    assert MeanStdCalculator(values=["0,5", " 1e3", "", "x"]).values == [
        "0,5", " 1e3", "", "x"]
    assert MeanStdCalculator(values=[1, 2.5, -3, 4]).values == [
        "1.0", "2.5", "-3.0", "4.0"]


def test_mean_std_calculator_needs_four_values():
    with pytest.raises(traitlets.TraitError, match="necesita 4 valores"):
        MeanStdCalculator(values=["1", "2"])


# --- LayerNormExplorer ----------------------------------------------------------------


def test_layer_norm_explorer_first_frame_is_the_course_example():
    w = LayerNormExplorer()
    assert w.x == list(VECTOR)
    assert w.gamma == [1.2, 0.8, 1.0, 1.1]
    assert w.beta == [0.1, 0.0, -0.2, 0.3]
    assert w.eps == 1e-5
    steps = w.steps()
    np.testing.assert_allclose(steps.output, [-1.1292, -0.2125, -0.5667, 2.1224],
                               atol=5e-5)
    # Lo que el primer fotograma enseña: con γ y β, la salida no es media 0 / std 1.
    assert abs(float(steps.output_mean)) > 0.01
    assert abs(float(steps.output_std) - 1) > 0.05


def test_layer_norm_explorer_steps_equal_resnorm():
    w = LayerNormExplorer(x=[2.0, -1.0, 0.5, 3.9], eps=1e-3)
    np.testing.assert_array_equal(
        w.steps().output, resnorm.layer_norm(w.x, w.gamma, w.beta, eps=1e-3)
    )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"eps": 1e-4}, "eps debe ser uno de"),
        ({"x": [0.8, 0.95, 0.93]}, "4 componentes"),
        ({"x": [0.8, 0.95, 0.93, 9.0]}, "fuera del rango"),
        ({"gamma": [1, 1, 1, float("nan")]}, "finito"),
        ({"beta": [0, 0, 0, 5]}, "fuera del rango"),
    ],
)
def test_layer_norm_explorer_rejects_bad_values_in_spanish(kwargs, match):
    with pytest.raises(traitlets.TraitError, match=match):
        LayerNormExplorer(**kwargs)


# --- ResidualSum ----------------------------------------------------------------------


def test_residual_sum_defaults_show_the_course_sum():
    w = ResidualSum()
    assert w.x == [0.50, 1.15, 0.78, 0.88]
    assert w.fx == [0.30, -0.20, 0.15, 0.45]
    assert w.scale == 1.0 and w.scale_max == 3.0
    np.testing.assert_allclose(resnorm.residual(w.x, w.fx), VECTOR)


def test_residual_sum_accepts_other_vectors():
    w = ResidualSum(x=[0.5, 1.2, -0.3], fx=[0.1, -0.2, 0.4])
    assert len(w.x) == 3


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"x": [1, 2, 3]}, "misma longitud"),
        ({"scale": -0.5}, "entre 0 y"),
        ({"scale": 4.0}, "entre 0 y"),
        ({"x": ["a", 1, 2, 3]}, "debe ser un número"),
        ({"x": list(range(9)), "fx": list(range(9))}, "como mucho 8"),
    ],
)
def test_residual_sum_rejects_bad_values_in_spanish(kwargs, match):
    with pytest.raises(traitlets.TraitError, match=match):
        ResidualSum(**kwargs)


# --- BlockStepper ---------------------------------------------------------------------


def test_block_stepper_carries_both_traces_from_resnorm_trace():
    w = BlockStepper()
    assert w.steps_post == block_trace(order="post")
    assert w.steps_pre == block_trace(order="pre")
    assert w.order == "post" and w.index == 0
    assert len(w.steps_post) == len(w.steps_pre) == 11


def test_block_stepper_uses_the_given_eps():
    w = BlockStepper(eps=1e-3)
    assert w.steps_post == block_trace(order="post", eps=1e-3)


@pytest.mark.parametrize(
    "kwargs, match",
    [({"order": "medio"}, "«post» o «pre»"), ({"index": 11}, "entre 0 y 10")],
)
def test_block_stepper_rejects_bad_values_in_spanish(kwargs, match):
    with pytest.raises(traitlets.TraitError, match=match):
        BlockStepper(**kwargs)


# --- DepthExplorer --------------------------------------------------------------------


def test_depth_explorer_defaults():
    w = DepthExplorer(gradient=GRADIENT)
    assert w.view == "gradient"
    assert w.position == len(GRADIENT["depths"]) - 1  # la más profunda
    assert w.visible == ["plain", "residual", "pre_ln", "post_ln"]
    assert w.labels == {k: SERIES_LABELS[k] for k in w.visible}
    assert w.activations == {}
    assert w.gradient["series"]["post_ln"][3] is None


def test_depth_explorer_with_only_activations_starts_there():
    w = DepthExplorer(activations=ACTIVATIONS)
    assert w.view == "activations" and w.position == 47


def test_depth_explorer_custom_labels_for_new_series():
    data = {"layers": [1, 2], "series": {"plain_g0.9": [1.0, 0.9]}}
    with pytest.raises(ValueError, match="Faltan etiquetas en español"):
        DepthExplorer(activations=data)
    labels = {"plain_g0.9": "Sin residual, ganancia 0.9"}
    w = DepthExplorer(activations=data, labels=labels)
    assert w.labels == {"plain_g0.9": "Sin residual, ganancia 0.9"}


def test_depth_explorer_allows_at_most_eight_series_styles():
    grad = {"depths": [1, 2], "series": {f"g{i}": [1.0, 1.0] for i in range(5)}}
    act = {"layers": [1, 2], "series": {f"a{i}": [1.0, 1.0] for i in range(4)}}
    labels = {k: k.upper() for k in list(grad["series"]) + list(act["series"])}
    with pytest.raises(ValueError, match="como mucho 8"):
        DepthExplorer(gradient=grad, activations=act, labels=labels)


def test_depth_explorer_needs_data():
    with pytest.raises(ValueError, match="DepthExplorer necesita datos"):
        DepthExplorer()
    with pytest.raises(ValueError, match="no tiene datos"):
        DepthExplorer(gradient=GRADIENT, view="activations")


def bad(**changes):
    data = {"depths": [2, 4, 8], "series": {"plain": [1.0, 0.1, 0.01]}}
    data.update(changes)
    return data


@pytest.mark.parametrize(
    "data, match",
    [
        ([1, 2, 3], "deben ser un dict"),
        ({"depths": [1, 2]}, "necesitan las claves"),
        (bad(extra=1), "no se esperaban"),
        (bad(depths=[]), "está vacío"),
        (bad(depths=[2, 2, 8]), "estrictamente creciente"),
        (bad(depths=[2, float("inf"), 8]), "no es un número finito"),
        (bad(series={}), "dict no vacío"),
        (bad(series={"plain": [1.0, 0.1]}), "uno por posición"),
        (bad(series={"plain": [1.0, float("nan"), 0.1]}), "usa None"),
        (bad(series={"plain": [1.0, float("inf"), 0.1]}), "usa None"),
        (bad(series={"plain": [1.0, -0.1, 0.1]}), "logarítmica"),
        (bad(series={"plain": [1.0, "a", 0.1]}), "no es un número"),
        (bad(depths=list(range(1, 402)), series={"plain": [1.0] * 401}), "ligero"),
        (bad(series={f"s{i}": [1.0, 1.0, 1.0] for i in range(8)}), "como mucho 7"),
    ],
)
def test_depth_data_validation_says_what_is_wrong_in_spanish(data, match):
    with pytest.raises(ValueError, match=match):
        validate_depth_data(data, "gradient")
    with pytest.raises(ValueError, match=match):
        DepthExplorer(gradient=data)


def test_depth_data_validation_converts_numpy_to_plain_json():
    data = {"depths": np.array([2, 4]), "series": {"plain": np.array([0.5, 1e-30])}}
    clean = validate_depth_data(data, "gradient")
    assert clean == {"depths": [2, 4], "series": {"plain": [0.5, 1e-30]}}
    assert type(clean["depths"][0]) is int
    json.dumps(clean, allow_nan=False)


def test_depth_data_validation_knows_the_axis_of_each_kind():
    with pytest.raises(ValueError, match="«layers»"):
        validate_depth_data(GRADIENT, "activations")
    with pytest.raises(ValueError, match="kind"):
        validate_depth_data(GRADIENT, "loss")


# --- Una tabla de estilos para figuras y widgets ------------------------------------


def test_depth_explorer_styles_are_the_figures_styles():
    """Color, trazo, marcador y nombre de cada serie: los de resnorm.plots.SERIES_STYLE,
    la tabla que usan las figuras (Capítulo 9: «Sin residual» en las dos)."""
    from resnorm.plots import PALETTE, SERIES_STYLE, svg_series_style

    keys = list(SERIES_STYLE)[:7]
    w = DepthExplorer(gradient={"depths": [1, 2],
                                "series": {k: [1.0, 0.5] for k in keys}})
    assert set(w.styles) == set(keys)
    for key in keys:
        style = w.styles[key]
        expected = SERIES_STYLE[key]
        black = expected["color"] == PALETTE["black"]
        color = "currentColor" if black else expected["color"]
        assert style["color"] == color
        assert style["label"] == expected["label"] == w.labels[key]
        assert w.labels[key] == SERIES_LABELS[key]
        assert style == svg_series_style(key)


def test_series_styles_follow_the_labels_a_chapter_passes():
    w = DepthExplorer(
        activations={"layers": [0, 1], "series": {"plain_gain_0.9": [1, 0.9],
                                                   "mia": [1, 1]}},
        labels={"mia": "Mi serie"},
    )
    assert w.styles["mia"]["label"] == "Mi serie"
    assert w.styles["plain_gain_0.9"]["label"] == "Sin residual, ganancia 0.9"
    assert w.styles["mia"]["color"].startswith("#")


def test_each_widget_module_sits_beside_its_javascript():
    from pathlib import Path

    import resnorm.widgets as pkg

    here = Path(pkg.__file__).parent
    names = ["mean_std", "layer_norm", "residual", "block_stepper", "depth_explorer"]
    for name in names:
        assert (here / f"{name}.py").exists() and (here / f"{name}.js").exists()
    assert (here / "bundler.py").exists()
    for name in pkg.__all__:
        assert getattr(pkg, name) is not None
