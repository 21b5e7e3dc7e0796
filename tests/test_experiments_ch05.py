"""Ejecuciones de control de los capítulos 5–8 (``resnorm.experiments``)."""

import numpy as np
import pytest
import torch

from resnorm.experiments import linear_post_ln_input_grad

DEPTHS = (1, 4, 16, 64)


@pytest.fixture(scope="module")
def control():
    return linear_post_ln_input_grad(depths=DEPTHS, d=128, n_seeds=2, seed=0)


def test_linear_post_ln_input_gradient_does_not_vanish_with_depth(control):
    # Capítulo 7: atravesar L jacobianas de LayerNorm no desvanece el gradiente.
    g = np.array(control["grad_norm"])
    assert g.shape == (len(DEPTHS),)
    assert np.all(np.isfinite(g)) and np.all(g > 0)
    assert g.max() / g.min() < 2.0


def test_without_layer_norm_the_same_linear_residual_stack_grows():
    # El contraste: sin LayerNorm, h ← h + W h multiplica el gradiente por capa.
    torch.manual_seed(0)
    d, depth = 128, 16
    weights = [torch.randn(d, d) / d**0.5 for _ in range(depth)]
    x = torch.randn(d, requires_grad=True)
    h = x
    for w in weights:
        h = h + w @ h
    h.sum().backward()
    plain = x.grad.norm().item()
    normalized = linear_post_ln_input_grad(depths=(depth,), d=d, n_seeds=1)
    assert plain > 10 * normalized["grad_norm"][0]


def test_linear_post_ln_control_is_seeded_and_leaves_global_rng_alone(control):
    state = torch.random.get_rng_state()
    again = linear_post_ln_input_grad(depths=DEPTHS, d=128, n_seeds=2, seed=0)
    assert torch.equal(state, torch.random.get_rng_state())
    assert again == control
    other = linear_post_ln_input_grad(depths=DEPTHS, d=128, n_seeds=2, seed=1)
    assert other["grad_norm"] != control["grad_norm"]


def test_linear_post_ln_control_reports_its_parameters(control):
    assert control["depths"] == list(DEPTHS)
    assert control["params"]["d"] == 128 and control["params"]["n_seeds"] == 2
    assert control["params"]["seed"] == 0


def test_linear_post_ln_control_checks_depths():
    with pytest.raises(ValueError, match="depths"):
        linear_post_ln_input_grad(depths=(0, 2))
