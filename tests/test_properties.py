"""Propiedades de LayerNorm, RMSNorm y la conexión residual, comprobadas con hypothesis
sobre muchos vectores (de forma determinista: derandomize=True)."""

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from resnorm import (
    layer_norm,
    layer_norm_backward,
    layer_norm_steps,
    mean,
    post_ln,
    pre_ln,
    residual,
    rms_norm,
    std,
    variance,
)

# derandomize: los mismos ejemplos en cada ejecución (CI determinista)
PROPERTY = settings(max_examples=40, derandomize=True, database=None, deadline=None)

values = st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False)
vectors = arrays(np.float64, st.integers(2, 8), elements=values)
batches = arrays(
    np.float64,
    st.tuples(st.integers(1, 3), st.integers(2, 8)),
    elements=values,
)
scales = st.floats(1e-3, 1e3).flatmap(lambda a: st.sampled_from([a, -a]))


def rounding_tol(x, eps=1e-5):
    """Lo que el redondeo puede mover x̂ = (x − μ)/σ̂: unos ulp de max|x|, entre σ̂."""
    sigma_hat = np.sqrt(variance(x, keepdims=True) + eps)
    return np.max(1e-14 * np.abs(x).max(axis=-1, keepdims=True) / sigma_hat) + 1e-13


# --- Capítulo 3: media y varianza --------------------------------------------------


@PROPERTY
@given(batches)
def test_variance_is_never_negative_and_std_is_its_root(x):
    var = variance(x)
    assert np.all(var >= 0)
    np.testing.assert_allclose(std(x), np.sqrt(var), rtol=1e-15)


@PROPERTY
@given(vectors, st.floats(-1e3, 1e3))
def test_variance_ignores_a_shift_of_all_values(x, c):
    tol = 1e-12 * (1 + np.max(np.abs(x)) + abs(c)) ** 2
    assert abs(variance(x + c) - variance(x)) <= tol


@PROPERTY
@given(vectors, scales)
def test_scaling_x_by_a_scales_mean_by_a_and_std_by_abs_a(x, a):
    tol = 1e-13 * abs(a) * np.abs(x).max()  # lo que redondea a·x, elemento a elemento
    np.testing.assert_allclose(mean(a * x), a * mean(x), rtol=1e-12, atol=tol)
    np.testing.assert_allclose(std(a * x), abs(a) * std(x), rtol=1e-12, atol=tol)


@PROPERTY
@given(vectors)
def test_sample_std_is_population_std_times_sqrt_n_over_n_minus_1(x):
    n = x.size
    np.testing.assert_allclose(
        std(x, correction=1), std(x) * np.sqrt(n / (n - 1)), rtol=1e-13
    )


@PROPERTY
@given(vectors, st.integers(0, 1000))
def test_powers_of_two_pass_straight_through_std_even_near_overflow(x, k):
    assume(np.all((x == 0) | (np.abs(x) > 1e-100)))
    np.testing.assert_allclose(np.ldexp(std(np.ldexp(x, k)), -k), std(x), rtol=1e-14)


# --- Capítulo 4: LayerNorm ---------------------------------------------------------


@PROPERTY
@given(batches, st.floats(-1e3, 1e3))
def test_layer_norm_is_shift_invariant(x, c):
    assume(np.all(std(x) > 1e-2))
    np.testing.assert_allclose(layer_norm(x + c), layer_norm(x), atol=1e-8)


@PROPERTY
@given(batches, scales, st.floats(1e-8, 1.0))
def test_layer_norm_is_scale_invariant_if_eps_scales_too(x, a, eps):
    # (a·x − a·μ)/√(a²σ² + a²ε) = sign(a)·(x − μ)/√(σ² + ε): exacto
    np.testing.assert_allclose(
        layer_norm(a * x, eps=eps * a * a),
        np.sign(a) * layer_norm(x, eps=eps),
        atol=rounding_tol(x, eps),
    )


@PROPERTY
@given(batches, st.floats(1.0, 1e3))
def test_layer_norm_is_scale_invariant_except_for_eps(x, a):
    assume(np.all(variance(x) > 1.0))  # σ² ≫ ε = 1e-5
    np.testing.assert_allclose(layer_norm(a * x), layer_norm(x), atol=1e-4)


@PROPERTY
@given(batches)
def test_layer_norm_output_has_mean_0_and_std_sigma_over_sigma_hat(x):
    out = layer_norm(x)
    sigma2 = variance(x)
    tol = rounding_tol(x)
    np.testing.assert_allclose(mean(out), 0.0, atol=tol)
    # std(x̂) = σ/√(σ² + ε): casi 1 cuando σ² ≫ ε, casi 0 cuando σ² ≪ ε
    np.testing.assert_allclose(std(out), np.sqrt(sigma2 / (sigma2 + 1e-5)), atol=tol)


@PROPERTY
@given(batches)
def test_layer_norm_output_has_std_about_1_when_variance_dominates_eps(x):
    assume(np.all(variance(x) > 1e-2))
    np.testing.assert_allclose(std(layer_norm(x)), 1.0, atol=1e-3)


@PROPERTY
@given(batches, st.randoms(use_true_random=False))
def test_layer_norm_commutes_with_reordering_the_dimensions(x, rnd):
    perm = list(range(x.shape[-1]))
    rnd.shuffle(perm)
    np.testing.assert_allclose(
        layer_norm(x[..., perm]), layer_norm(x)[..., perm], atol=rounding_tol(x)
    )


@PROPERTY
@given(batches, st.integers(0, 900))
def test_layer_norm_of_huge_values_equals_layer_norm_of_small_ones(x, k):
    assume(np.all(std(x) > 1e-3))
    big = np.ldexp(x, k)  # hasta ~1e274: σ² no cabría en float64
    np.testing.assert_allclose(layer_norm(big, eps=0), layer_norm(x, eps=0), atol=1e-12)


@PROPERTY
@given(arrays(np.float32, st.integers(2, 64), elements=st.floats(-1e4, 1e4, width=32)))
def test_float32_layer_norm_stays_close_to_float64(x):
    assume(std(x) > 1e-3 * np.abs(x).max())
    out = layer_norm(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, layer_norm(x.astype(np.float64)), atol=1e-3)


# --- Capítulo 5: γ y β -------------------------------------------------------------


@PROPERTY
@given(vectors, st.sampled_from([0.0, 1e-5, 0.5]))
def test_gamma_sigma_hat_and_beta_mu_undo_the_normalization(x, eps):
    assume(eps > 0 or variance(x) > 0)
    steps = layer_norm_steps(x, eps=eps)
    d = x.size
    gamma = np.full(d, steps.denominator)  # γ = √(σ² + ε)
    beta = np.full(d, steps.mean)  # β = μ
    undone = layer_norm(x, gamma, beta, eps=eps)
    np.testing.assert_allclose(undone, x, atol=1e-12 * (1 + np.abs(x).max()))


@PROPERTY
@given(batches)
def test_gamma_scales_and_beta_shifts_each_dimension(x):
    d = x.shape[-1]
    gamma = np.linspace(-2.0, 3.0, d)
    beta = np.linspace(1.0, -1.0, d)
    np.testing.assert_allclose(
        layer_norm(x, gamma, beta), gamma * layer_norm(x) + beta, rtol=1e-15, atol=1e-15
    )


@PROPERTY
@given(batches)
def test_steps_output_is_exactly_layer_norm(x):
    d = x.shape[-1]
    gamma, beta = np.linspace(0.5, 1.5, d), np.linspace(-1.0, 1.0, d)
    steps = layer_norm_steps(x, gamma, beta)
    np.testing.assert_array_equal(steps.output, layer_norm(x, gamma, beta))
    np.testing.assert_array_equal(steps.normalized, layer_norm(x))
    np.testing.assert_allclose(steps.output_mean, mean(steps.output), rtol=1e-15)


# --- Capítulo 6: RMSNorm -----------------------------------------------------------


@PROPERTY
@given(batches)
def test_rms_norm_keeps_the_sign_of_every_component(x):
    np.testing.assert_array_equal(np.sign(rms_norm(x)), np.sign(x))


@PROPERTY
@given(batches)
def test_rms_norm_keeps_the_direction_and_only_rescales(x):
    assume(np.all(np.abs(x).max(axis=-1) > 1e-3))
    y = rms_norm(x)
    # y = c·x con c = 1/√(mean(x²) + ε) > 0, el mismo c para toda la fila
    c = np.sum(y * x, axis=-1) / np.sum(x * x, axis=-1)
    assert np.all(c > 0)
    np.testing.assert_allclose(y, c[:, None] * x, rtol=1e-13, atol=1e-13)


@PROPERTY
@given(batches)
def test_rms_norm_output_has_root_mean_square_about_1(x):
    mean_square = mean(x * x)
    assume(np.all(mean_square > 1e-6))
    rms = np.sqrt(mean(rms_norm(x) ** 2))
    eps = np.finfo(np.float64).eps
    expected = np.sqrt(mean_square / (mean_square + eps))  # RMS(y) exacto
    np.testing.assert_allclose(rms, expected, rtol=1e-13)
    np.testing.assert_allclose(rms, 1.0, rtol=1e-9)


@PROPERTY
@given(batches, st.floats(1e-8, 1.0))
def test_rms_norm_of_the_centered_vector_is_layer_norm(x, eps):
    # RMSNorm no centra; si le das x − μ, hace lo mismo que LayerNorm
    centered = x - mean(x, keepdims=True)
    np.testing.assert_allclose(
        rms_norm(centered, eps=eps), layer_norm(x, eps=eps), atol=rounding_tol(x, eps)
    )


# --- Capítulos 2 y 7: residual, Post-LN y Pre-LN -----------------------------------


@PROPERTY
@given(batches)
def test_residual_with_silent_sublayer_is_the_identity(x):
    np.testing.assert_array_equal(residual(x, np.zeros_like(x)), x)
    np.testing.assert_array_equal(pre_ln(x, np.zeros_like), x)


@PROPERTY
@given(batches)
def test_residual_adds_exactly_what_the_sublayer_returns(x):
    np.testing.assert_array_equal(residual(x, np.sin), x + np.sin(x))


@PROPERTY
@given(batches)
def test_post_ln_output_is_always_normalized_whatever_the_sublayer(x):
    def f(h):
        return 3.0 * h**2 - 10.0

    out = post_ln(x, f)
    np.testing.assert_allclose(mean(out), 0.0, atol=rounding_tol(x + f(x)))
    assert np.all(std(out) <= 1.0 + 1e-12)


@PROPERTY
@given(batches)
def test_pre_ln_output_minus_x_is_the_sublayer_of_layer_norm(x):
    def f(h):
        return np.tanh(2.0 * h)

    np.testing.assert_allclose(pre_ln(x, f) - x, f(layer_norm(x)), atol=1e-12)


# --- Gradiente ---------------------------------------------------------------------


@PROPERTY
@given(batches)
def test_layer_norm_gradient_rows_sum_to_zero(x):
    # LN(x + c) = LN(x): mover todos los xᵢ a la vez no cambia nada
    grad_out = np.cos(np.arange(x.size, dtype=float)).reshape(x.shape)
    grad_x, _, grad_beta = layer_norm_backward(x, grad_out)
    scale = np.abs(grad_x).max() + 1
    np.testing.assert_allclose(grad_x.sum(-1), 0.0, atol=1e-12 * scale * x.shape[-1])
    np.testing.assert_allclose(grad_beta, grad_out.sum(0), rtol=1e-15)
