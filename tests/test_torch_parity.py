"""resnorm (NumPy) frente a PyTorch: LayerNorm, RMSNorm, estadísticas, Post-LN y Pre-LN,
y los gradientes frente a autograd. float64 a 1e-10, float32 a 1e-5."""

import inspect

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from resnorm import (
    layer_norm,
    layer_norm_backward,
    mean,
    post_ln,
    pre_ln,
    residual,
    rms_norm,
    std,
    variance,
)
from resnorm.examples import BETA, GAMMA, VECTOR

SHAPES = [(4,), (1, 4), (3, 5), (2, 3, 8), (4, 1), (2, 2, 2, 16), (5, 64)]
TOL = {np.float64: 1e-10, np.float32: 1e-5}
DTYPES = list(TOL)
EPSILONS = [1e-5, 1e-6, 1e-12, 0.1, 1.0]


def sample(shape, dtype, seed, loc=0.0, scale=1.0):
    rng = np.random.default_rng(seed)
    return (loc + scale * rng.standard_normal(shape)).astype(dtype)


def as_torch(a):
    return torch.from_numpy(np.ascontiguousarray(a))


def assert_close(ours, theirs, dtype):
    np.testing.assert_allclose(
        ours, theirs.detach().numpy(), rtol=TOL[dtype], atol=TOL[dtype]
    )


# --- LayerNorm -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("eps", EPSILONS)
def test_layer_norm_matches_torch_functional(shape, dtype, eps):
    x = sample(shape, dtype, seed=len(shape), loc=2.0, scale=3.0)
    d = shape[-1]
    gamma, beta = sample(d, dtype, 1, loc=1.0), sample(d, dtype, 2)
    expected = F.layer_norm(as_torch(x), (d,), as_torch(gamma), as_torch(beta), eps)
    assert_close(layer_norm(x, gamma, beta, eps=eps), expected, dtype)
    plain = F.layer_norm(as_torch(x), (d,), eps=eps)
    assert_close(layer_norm(x, eps=eps), plain, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4,), (3, 7), (2, 5, 32)])
def test_layer_norm_matches_torch_module_with_trained_looking_weights(shape, dtype):
    d = shape[-1]
    module = torch.nn.LayerNorm(d, dtype=torch.float64 if dtype == np.float64 else None)
    with torch.no_grad():
        module.weight.copy_(as_torch(sample(d, dtype, 3, loc=1.0, scale=0.5)))
        module.bias.copy_(as_torch(sample(d, dtype, 4, scale=0.5)))
    x = sample(shape, dtype, 5, loc=-1.0, scale=4.0)
    gamma = module.weight.detach().numpy()
    beta = module.bias.detach().numpy()
    assert_close(layer_norm(x, gamma, beta, eps=module.eps), module(as_torch(x)), dtype)


def test_default_eps_is_torch_layer_norm_default():
    default = inspect.signature(layer_norm).parameters["eps"].default
    assert default == torch.nn.LayerNorm(4).eps == 1e-5
    assert default == inspect.signature(F.layer_norm).parameters["eps"].default


@pytest.mark.parametrize("axis", [0, 1, -2])
def test_layer_norm_along_another_axis_matches_torch_after_moving_it(axis):
    x = sample((3, 4, 5), np.float64, 6)
    d = x.shape[axis]
    gamma, beta = sample(d, np.float64, 7, loc=1.0), sample(d, np.float64, 8)
    moved = as_torch(np.moveaxis(x, axis, -1))
    expected = F.layer_norm(moved, (d,), as_torch(gamma), as_torch(beta))
    expected = expected.movedim(-1, axis)
    assert_close(layer_norm(x, gamma, beta, axis=axis), expected, np.float64)


def test_layer_norm_of_the_course_example_matches_torch():
    x, gamma, beta = np.array(VECTOR), np.array(GAMMA), np.array(BETA)
    expected = F.layer_norm(as_torch(x), (4,), as_torch(gamma), as_torch(beta), eps=0.0)
    assert_close(layer_norm(x, gamma, beta, eps=0), expected, np.float64)


def test_float32_near_1e4_is_as_accurate_as_torch():
    # cerca de 1e4 un float32 solo distingue pasos de 0.001 (su ulp): μ ya no puede
    # ser más exacta que eso, así que ni PyTorch ni resnorm bajan de ~1e-3 de error
    x = sample((16, 128), np.float32, 9, loc=1e4)
    exact = layer_norm(x.astype(np.float64))  # los mismos datos, calculados en float64
    ours = layer_norm(x)
    theirs = F.layer_norm(as_torch(x), (128,)).numpy()
    assert ours.dtype == np.float32
    assert np.abs(ours - exact).max() < 2e-3
    assert np.abs(theirs - exact).max() < 2e-3
    np.testing.assert_allclose(ours, theirs, atol=3e-3)


def test_integers_match_torch_in_float64():
    x = np.array([[2, 4, 6, 8], [1, 0, 0, 3]])
    expected = F.layer_norm(as_torch(x.astype(np.float64)), (4,))
    assert_close(layer_norm(x), expected, np.float64)


# --- Estadísticas --------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("correction", [0, 1])
@pytest.mark.parametrize("axis", [0, -1, 1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_mean_variance_std_match_torch(dtype, correction, axis, keepdims):
    x = sample((4, 6, 3), dtype, 10, loc=5.0, scale=2.0)
    t = as_torch(x)
    kw = dict(dim=axis, keepdim=keepdims)
    assert_close(mean(x, axis, keepdims), t.mean(**kw), dtype)
    ours_var = variance(x, axis, correction, keepdims)
    assert_close(ours_var, t.var(correction=correction, **kw), dtype)
    ours_std = std(x, axis, correction, keepdims)
    assert_close(ours_std, t.std(correction=correction, **kw), dtype)


def test_example_std_matches_torch_std_sample_and_population():
    x = np.array(VECTOR)
    torch_std = torch.std(as_torch(x)).item()  # muestral por defecto
    assert torch_std == pytest.approx(0.2282, abs=5e-5)
    assert std(x, correction=1) == pytest.approx(torch_std, abs=1e-15)
    population = torch.std(as_torch(x), correction=0).item()
    assert std(x) == pytest.approx(population, abs=1e-15)


# --- RMSNorm -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("eps", [None, 1e-6, 1e-5, 0.1])
def test_rms_norm_matches_torch_functional(shape, dtype, eps):
    x = sample(shape, dtype, 11, loc=0.5, scale=2.0)
    d = shape[-1]
    gamma = sample(d, dtype, 12, loc=1.0)
    expected = F.rms_norm(as_torch(x), (d,), as_torch(gamma), eps)
    assert_close(rms_norm(x, gamma, eps=eps), expected, dtype)
    assert_close(rms_norm(x, eps=eps), F.rms_norm(as_torch(x), (d,), eps=eps), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm_matches_torch_module_with_default_eps(dtype):
    d = 8
    module = torch.nn.RMSNorm(d, dtype=torch.float64 if dtype == np.float64 else None)
    assert module.eps is None  # None: el épsilon de máquina del dtype de cálculo
    with torch.no_grad():
        module.weight.copy_(as_torch(sample(d, dtype, 13, loc=1.0, scale=0.5)))
    x = sample((3, 5, d), dtype, 14, scale=3.0)
    gamma = module.weight.detach().numpy()
    assert_close(rms_norm(x, gamma), module(as_torch(x)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rms_norm_default_eps_is_what_torch_uses_for_tiny_inputs(dtype):
    # con x ≈ 1e-4, mean(x²) ≈ 1e-8: ahí el eps por defecto sí se nota
    x = sample((4, 16), dtype, 15, scale=1e-4)
    expected = F.rms_norm(as_torch(x), (16,))
    assert_close(rms_norm(x), expected, dtype)
    wrong_eps = np.finfo(np.float64 if dtype == np.float32 else np.float32).eps
    assert not np.allclose(rms_norm(x, eps=wrong_eps), expected.numpy(), rtol=1e-4)


def test_rms_norm_of_float16_is_computed_like_torch_in_float32():
    x16 = sample((3, 8), np.float16, 16)
    expected = F.rms_norm(as_torch(x16), (8,))  # torch devuelve float16
    ours = rms_norm(x16)
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours, expected.float().numpy(), rtol=1e-3, atol=1e-3)


# --- Post-LN y Pre-LN ----------------------------------------------------------------


def linear_sublayer(d, seed):
    w = sample((d, d), np.float64, seed, scale=d**-0.5)
    b = sample(d, np.float64, seed + 1)
    return (lambda h: h @ w + b), (lambda t: t @ as_torch(w) + as_torch(b))


def test_post_ln_and_pre_ln_match_torch_blocks():
    d = 6
    f_np, f_torch = linear_sublayer(d, 17)
    gamma, beta = sample(d, np.float64, 19, loc=1.0), sample(d, np.float64, 20)
    x = sample((2, 5, d), np.float64, 21, scale=2.0)
    t = as_torch(x)
    g, b = as_torch(gamma), as_torch(beta)
    post = F.layer_norm(t + f_torch(t), (d,), g, b)  # LN(x + F(x))
    pre = t + f_torch(F.layer_norm(t, (d,), g, b))  # x + F(LN(x))
    assert_close(post_ln(x, f_np, gamma, beta), post, np.float64)
    assert_close(pre_ln(x, f_np, gamma, beta), pre, np.float64)


# --- Gradientes frente a autograd ----------------------------------------------------


@pytest.mark.parametrize("shape", [(4,), (3, 5), (2, 3, 6), (7, 1)])
@pytest.mark.parametrize("eps", [1e-5, 0.5])
@pytest.mark.parametrize("with_gamma", [True, False])
def test_layer_norm_backward_matches_torch_autograd(shape, eps, with_gamma):
    d = shape[-1]
    x = sample(shape, np.float64, 22, loc=1.0, scale=2.0)
    grad_out = sample(shape, np.float64, 23)
    gamma = sample(d, np.float64, 24, loc=1.0)
    beta = sample(d, np.float64, 25)

    tx = as_torch(x).requires_grad_()
    tg = as_torch(gamma if with_gamma else np.ones(d)).requires_grad_()
    tb = as_torch(beta).requires_grad_()
    F.layer_norm(tx, (d,), tg, tb, eps).backward(as_torch(grad_out))

    grad_x, grad_gamma, grad_beta = layer_norm_backward(
        x, grad_out, gamma if with_gamma else None, eps=eps
    )
    assert_close(grad_x, tx.grad, np.float64)
    assert_close(grad_gamma, tg.grad, np.float64)
    assert_close(grad_beta, tb.grad, np.float64)


def test_layer_norm_backward_float32_matches_torch_autograd():
    x = sample((4, 32), np.float32, 26, loc=3.0)
    grad_out = sample((4, 32), np.float32, 27)
    gamma = sample(32, np.float32, 28, loc=1.0)
    tx, tg = as_torch(x).requires_grad_(), as_torch(gamma).requires_grad_()
    F.layer_norm(tx, (32,), tg).backward(as_torch(grad_out))
    grad_x, grad_gamma, _ = layer_norm_backward(x, grad_out, gamma)
    assert grad_x.dtype == np.float32
    np.testing.assert_allclose(grad_x, tx.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(grad_gamma, tg.grad.numpy(), rtol=1e-4, atol=1e-4)


# --- Capítulo 2: la derivada de x + F(x) es 1 + F'(x) ---------------------------------


def test_residual_derivative_is_1_plus_f_prime_for_tanh():
    x = np.linspace(-4.0, 4.0, 33)
    t = as_torch(x).requires_grad_()
    (t + torch.tanh(t)).sum().backward()
    assert_close(residual(x, np.tanh), t + torch.tanh(t), np.float64)
    one_plus_f_prime = 1.0 + (1.0 - np.tanh(x) ** 2)  # tanh' = 1 − tanh²
    assert_close(one_plus_f_prime, t.grad, np.float64)
    assert np.all(t.grad.numpy() >= 1.0)  # aunque tanh' → 0, el 1 sigue ahí


def test_residual_derivative_is_0_when_the_sublayer_is_minus_x():
    # el límite honesto: si F(x) = −x, F'(x) = −1 y cancela el camino identidad
    x = np.linspace(-2.0, 2.0, 9)
    t = as_torch(x).requires_grad_()
    (t + (-t)).sum().backward()
    np.testing.assert_array_equal(residual(x, lambda h: -h), 0.0)
    np.testing.assert_array_equal(t.grad.numpy(), 0.0)


def test_residual_jacobian_is_identity_plus_jacobian_of_f():
    d = 5
    f_np, f_torch = linear_sublayer(d, 29)
    w = f_np(np.eye(d)) - f_np(np.zeros(d))  # la matriz de la capa lineal
    x = sample(d, np.float64, 31)
    jac = torch.autograd.functional.jacobian(lambda t: t + f_torch(t), as_torch(x))
    assert_close(np.eye(d) + w.T, jac, np.float64)
    assert_close(residual(x, f_np), as_torch(x) + f_torch(as_torch(x)), np.float64)

