"""Lo que afirman los capítulos 9 a 11, comprobado en los experimentos de ``resnorm``.

Capítulo 9: la rama escalada no explota, la pila plana necesita la ganancia justa y
la residual no, y sus curvas plana y residual son las de la Figura 1.3. Apéndice
«¿Cuánto cuesta normalizar?»: solo relaciones que valen en cualquier máquina
(pasadas y tráfico contados), nunca tiempos.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from resnorm import cost  # noqa: E402
from resnorm.experiments import (  # noqa: E402
    first_layer_grad_vs_depth,
    first_layer_grad_vs_gain,
    scaled_residual_std,
)

F = torch.nn.functional


# --- Capítulo 9: la rama escalada ---------------------------------------------------


@pytest.fixture(scope="module")
def scaled():
    return scaled_residual_std(n_layers=96, width=256, batch_size=64, seed=0)


def test_scaled_branch_defaults_to_one_over_sqrt_depth(scaled):
    assert scaled["branch_scale"] == pytest.approx(1 / math.sqrt(96))
    assert scaled["layers"] == list(range(97))
    assert scaled["theory"][-1] == pytest.approx((1 + 1 / 96) ** 48)


def test_scaled_branch_follows_one_plus_alpha_squared_per_layer(scaled):
    ratio = np.asarray(scaled["std"]) / np.asarray(scaled["theory"])
    assert np.all(np.abs(ratio - 1) < 0.1)


def test_scaled_branch_stays_near_sqrt_e_at_any_depth():
    for depth in (12, 96, 384):
        run = scaled_residual_std(n_layers=depth, width=128, batch_size=32, seed=1)
        std = run["std"]
        assert max(std) < 2.5 and std[-1] > 1.2, depth


def test_unscaled_branch_doubles_the_variance_per_layer():
    std = scaled_residual_std(n_layers=40, width=256, branch_scale=1.0, seed=0)["std"]
    assert 1 / 4 < std[-1] / 2**20 < 4  # √2^40 = 2^20


# --- Capítulo 9: la Figura 9.2 repite las curvas de la Figura 1.3 ---------------


def test_adding_pre_ln_leaves_the_plain_and_residual_curves_of_chapter_1():
    # El capítulo 9 pide las tres pilas; el 1, solo la plana y la residual. La prosa
    # del 9 dice que las dos comunes dan los mismos números que en el capítulo 1.
    depths = (1, 4, 16)
    ch01 = first_layer_grad_vs_depth(depths=depths, kinds=("plain", "residual"), seed=0)
    ch09 = first_layer_grad_vs_depth(depths=depths, seed=0)
    assert ch09["kinds"] == ["plain", "residual", "pre_ln"]
    for kind in ("plain", "residual"):
        assert ch09["grad_norm"][kind] == ch01["grad_norm"][kind], kind


# --- Capítulo 9: la ganancia, con y sin atajo ---------------------------------------


@pytest.fixture(scope="module")
def sweep():
    return first_layer_grad_vs_gain(gains=(0.5, 1.0, 2.0), depth=64, seed=0)


def test_a_plain_stack_needs_exactly_the_right_gain(sweep):
    low, right, high = sweep["ratio"]["plain"]
    assert low < 1e-6  # g = 0.5: se desvanece
    assert high > 1e2  # g = 2: explota
    assert 1e-2 < right < 10  # g = 1: en rango


def test_a_residual_stack_never_vanishes_whatever_the_gain(sweep):
    ratios = np.asarray(sweep["ratio"]["residual"])
    assert np.all(ratios > 1)
    assert np.all(np.diff(ratios) > 0)  # lo que cambia con g es cuánto crece


def test_the_plain_stack_is_far_more_sensitive_to_the_gain(sweep):
    plain, res = (np.asarray(sweep["ratio"][k]) for k in ("plain", "residual"))
    assert plain.max() / plain.min() > 1e6 * res.max() / res.min()


def test_one_layer_is_the_same_network_with_or_without_shortcut(sweep):
    # Con una capa, el atajo no cambia ∂ℓ/∂W₁: los dos tipos parten del mismo valor.
    one_plain = [norms[0] for norms in sweep["grad_norm"]["plain"]]
    one_res = [norms[0] for norms in sweep["grad_norm"]["residual"]]
    np.testing.assert_allclose(one_plain, one_res, rtol=1e-6)


def test_the_gain_sweep_rejects_unknown_kinds():
    with pytest.raises(ValueError, match="tipo de pila desconocido"):
        first_layer_grad_vs_gain(kinds=("pre_ln",), depth=2)


# --- Las dos funciones nuevas, como las demás de resnorm.experiments ---------------

SMALL_CALLS = [
    (first_layer_grad_vs_gain, dict(gains=(0.5, 2.0), depth=3, width=8, batch_size=4)),
    (scaled_residual_std, dict(n_layers=4, width=8, batch_size=4)),
]
SMALL_IDS = [fn.__name__ for fn, _ in SMALL_CALLS]


@pytest.mark.parametrize("fn, kwargs", SMALL_CALLS, ids=SMALL_IDS)
def test_new_experiment_is_seeded(fn, kwargs):
    assert fn(**kwargs) == fn(**kwargs)
    assert fn(**kwargs, seed=0) != fn(**kwargs, seed=1)


@pytest.mark.parametrize("fn, kwargs", SMALL_CALLS, ids=SMALL_IDS)
def test_new_experiment_returns_strict_json_with_its_params(fn, kwargs):
    data = fn(**kwargs)
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert data["params"]["seed"] == 0


@pytest.mark.parametrize("fn, kwargs", SMALL_CALLS, ids=SMALL_IDS)
def test_new_experiment_leaves_global_rng_and_threads_alone(fn, kwargs):
    threads = torch.get_num_threads()
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    fn(**kwargs)
    assert torch.equal(torch.rand(3), expected)
    assert torch.get_num_threads() == threads


# --- Apéndice: lo que vale en cualquier máquina ------------------------------------

X = np.random.default_rng(0).standard_normal((8, 1024), dtype=np.float32)


def test_traffic_orders_the_recipes_copy_equals_fused_kernel():
    copy = cost.count_sweeps(lambda a: a.copy(), X)
    naive_ln = cost.count_sweeps(cost.naive_layer_norm, X)
    naive_rms = cost.count_sweeps(cost.naive_rms_norm, X)
    fused = cost.count_torch_sweeps(lambda t: F.layer_norm(t, (1024,)), X)
    assert naive_ln["arrays"] > naive_rms["arrays"] > copy["arrays"] == fused["arrays"]
    assert naive_ln["sweeps"] > naive_rms["sweeps"] > copy["sweeps"] == fused["sweeps"]


def test_torch_rms_norm_on_cpu_moves_more_memory_than_torch_layer_norm():
    ln = cost.count_torch_sweeps(lambda t: F.layer_norm(t, (1024,)), X)
    rms = cost.count_torch_sweeps(lambda t: F.rms_norm(t, (1024,)), X)
    assert rms["sweeps"] > ln["sweeps"] == 1 and rms["arrays"] > ln["arrays"]


def test_squaring_1e200_overflows_float64():
    with np.errstate(over="ignore"):
        assert np.isinf(np.float64(1e200) ** 2)
    assert np.isfinite(np.float64(1e200))  # el número cabe; su cuadrado, no
