"""Pruebas de los controles del capítulo 1: lo que el texto lee en ellos es cierto.

Propiedades con margen (órdenes de magnitud, cotas), no los valores de hoy; cada una
se comprueba con dos semillas.
"""

import json
import math

import pytest

torch = pytest.importorskip("torch")

from resnorm import experiments as ex  # noqa: E402

SEEDS = (0, 1)


@pytest.fixture(scope="module", params=SEEDS)
def control(request):
    return ex.orthogonal_layer_control(depths=(1, 5, 20, 50), seed=request.param)


@pytest.fixture(scope="module", params=SEEDS)
def by_init(request):
    return ex.first_layer_grad_by_init(depths=(1, 16, 64), seed=request.param)


# --- Capa ortogonal: coseno ≈ 0 sin perder nada -----------------------------------


def test_orthogonal_layer_has_cosine_near_zero_with_its_input(control):
    assert all(abs(c) < 0.1 for c in control["cosine"])


def test_orthogonal_layer_keeps_the_angles_between_inputs(control):
    base = control["input_pairwise_abs_cosine"]
    assert base < 0.15  # entradas aleatorias de 128 componentes: casi perpendiculares
    assert all(abs(p - base) < 1e-3 for p in control["pairwise_abs_cosine"])


def test_orthogonal_layer_is_undone_by_its_transpose(control):
    assert max(control["reconstruction_error"]) < 1e-3


def test_orthogonal_control_inputs_do_not_depend_on_the_depths_asked():
    a = ex.orthogonal_layer_control(depths=(1,), seed=3)
    b = ex.orthogonal_layer_control(depths=(50,), seed=3)
    assert a["input_pairwise_abs_cosine"] == b["input_pairwise_abs_cosine"]


def test_orthogonal_control_is_seeded_and_leaves_global_rng_alone():
    torch.manual_seed(123)
    before = torch.rand(1).item()
    torch.manual_seed(123)
    first = ex.orthogonal_layer_control(depths=(1, 5), seed=0)
    after = torch.rand(1).item()
    second = ex.orthogonal_layer_control(depths=(1, 5), seed=0)
    assert before == after
    assert first == second
    json.dumps(first)


# --- Inicialización: la pila plana necesita la ganancia justa; la residual, no ----


def _plain(data, init):
    return data["grad_norm"]["plain"][init]


def _residual(data, init):
    return data["grad_norm"]["residual"][init]


def test_default_init_makes_the_plain_gradient_vanish(by_init):
    g = _plain(by_init, "default")
    assert g[-1] < 1e-10 * g[0]


@pytest.mark.parametrize("init", ["xavier", "orthogonal"])
def test_gain_one_keeps_the_plain_gradient_within_two_orders(by_init, init):
    g = _plain(by_init, init)
    assert 1e-2 < g[-1] / g[0] < 1


def test_tanh_gain_makes_the_plain_gradient_explode(by_init):
    g = _plain(by_init, "orthogonal_tanh_gain")
    assert g[-1] > 10 * g[0]


@pytest.mark.parametrize("init", ex.INITS)
def test_residual_gradient_never_vanishes_whatever_the_init(by_init, init):
    g = _residual(by_init, init)
    assert g[-1] >= g[0]


def test_init_decides_many_orders_without_shortcut_and_few_with_it(by_init):
    plain = [_plain(by_init, i)[-1] for i in ex.INITS]
    residual = [_residual(by_init, i)[-1] for i in ex.INITS]
    assert math.log10(max(plain) / min(plain)) > 10
    assert math.log10(max(residual) / min(residual)) < 2


def test_default_init_shrinks_by_about_one_over_sqrt3_per_layer():
    data = ex.first_layer_grad_by_init(
        depths=(32, 64), inits=("default",), kinds=("plain",), seed=0
    )
    g = _plain(data, "default")
    factor = (g[1] / g[0]) ** (1 / 32)
    assert abs(factor - 1 / math.sqrt(3)) < 0.05


def test_by_init_rejects_unknown_names():
    with pytest.raises(ValueError, match="inicialización desconocida"):
        ex.first_layer_grad_by_init(depths=(1,), inits=("kaiming",))
    with pytest.raises(ValueError, match="tipo de pila desconocido"):
        ex.first_layer_grad_by_init(depths=(1,), kinds=("pre_ln",))


def test_by_init_is_seeded_and_json_friendly():
    kwargs = dict(depths=(1, 4), inits=("xavier",), seed=0)
    first = ex.first_layer_grad_by_init(**kwargs)
    assert first == ex.first_layer_grad_by_init(**kwargs)
    json.dumps(first)


# --- El colapso de la pila plana y su sesgo común ---------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_the_shared_bias_makes_the_plain_stack_collapse_to_one_line(seed):
    # Capítulo 1: «|cos| = 1.00 tras 20 capas» es de esta pila, con el sesgo que cada
    # capa suma igual a todas las entradas; con los mismos pesos y sesgo cero, las
    # salidas se parecen más que tras una capa, pero no están en una recta.
    kw = dict(depths=(1, 20), kinds=("plain",), seed=seed)
    with_bias = ex.signal_survival(**kw)["pairwise_abs_cosine"]["plain"]
    no_bias = ex.signal_survival(**kw, bias=False)["pairwise_abs_cosine"]["plain"]
    assert with_bias[1] > 0.99
    assert no_bias[0] < no_bias[1] < 0.6
    assert abs(with_bias[0] - no_bias[0]) < 0.02  # tras una capa, el sesgo casi no pesa


def test_zero_bias_is_recorded_and_changes_the_outputs():
    kw = dict(depths=(5,), kinds=("residual",), seed=0)
    a = ex.signal_survival(**kw)
    b = ex.signal_survival(**kw, bias=False)
    assert b["params"]["bias"] is False and a["params"]["bias"] is True
    assert a["cosine"]["residual"] != b["cosine"]["residual"]
