"""El núcleo NumPy de resnorm: los ejemplos del curso, los dtypes, los números
enormes y cada mensaje de error."""

import subprocess
import sys
import warnings

import numpy as np
import pytest

import resnorm
from resnorm import (
    LayerNormSteps,
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
from resnorm.examples import (
    BETA,
    EVENS,
    GAMMA,
    PERRO_ATTENTION,
    PERRO_X,
    ROUNDING_FX,
    ROUNDING_X,
)
from resnorm.examples import VECTOR as X  # la salida residual del ejemplo del curso

ATOL = 5e-7  # los valores del curso llevan 6 decimales


# --- Capítulo 2: la conexión residual ----------------------------------------------


def test_residual_of_perro_and_its_attention_is_the_course_vector():
    np.testing.assert_allclose(residual(PERRO_X, PERRO_ATTENTION), X, atol=1e-12)


def test_the_perro_example_uses_the_course_vectors():
    # resnorm.examples es la única copia: el ejemplo «perro» de trace.py la sigue
    from resnorm.examples import BETA2, GAMMA2
    from resnorm.trace import perro_example

    ex = perro_example()
    for got, expected in [
        (ex.x, PERRO_X), (ex.attention_output, PERRO_ATTENTION),
        (ex.gamma1, GAMMA), (ex.beta1, BETA), (ex.gamma2, GAMMA2), (ex.beta2, BETA2),
    ]:
        np.testing.assert_array_equal(got, expected)


def test_residual_sum_is_close_to_0_6_1_0_0_1_but_not_exactly_equal():
    out = residual(ROUNDING_X, ROUNDING_FX)
    np.testing.assert_allclose(out, [0.6, 1.0, 0.1], atol=1e-12)
    # -0.3 + 0.4 es 0.10000000000000003 en float64: por eso se compara con tolerancia
    assert not np.array_equal(out, [0.6, 1.0, 0.1])


def test_residual_with_zero_sublayer_returns_x_unchanged():
    x = np.array([0.5, -1.25, 3.0])
    np.testing.assert_array_equal(residual(x, lambda h: np.zeros_like(h)), x)


def test_residual_accepts_a_function_or_its_output():
    x = np.array([[0.5, 1.2, -0.3], [2.0, 0.0, 1.0]])
    f = np.tanh
    np.testing.assert_array_equal(residual(x, f), residual(x, f(x)))
    np.testing.assert_array_equal(residual(x, f), x + np.tanh(x))


# --- Capítulo 3: media y desviación estándar ---------------------------------------


def test_mean_of_2_4_6_8_is_5():
    assert mean(EVENS) == pytest.approx(5.0, abs=1e-15)


def test_example_mean_is_the_mu_the_course_quotes():
    assert mean(X) == pytest.approx(1.0025, abs=1e-12)


def test_example_variance_is_the_one_the_course_quotes():
    assert variance(X) == pytest.approx(0.03906875, abs=1e-12)


def test_example_sigma_is_0_1977_not_0_198():
    sigma = std(X)
    assert sigma == pytest.approx(0.1976582, abs=ATOL)
    assert round(sigma, 4) == 0.1977
    assert sigma != pytest.approx(0.198, abs=1e-4)  # 0.198 = √0.0391, ya redondeada
    # dividir por 0.198 mueve x̂ en la tercera cifra: −1.023 en vez de −1.0245
    assert round(-0.2025 / 0.198, 3) == -1.023
    assert round(layer_norm(X, eps=0)[0], 4) == -1.0245


def test_example_sample_std_is_the_value_the_course_quotes():
    assert std(X, correction=1) == pytest.approx(0.2282, abs=5e-5)


def test_mean_of_2_4_is_3_and_variance_is_1():
    assert mean([2, 4]) == pytest.approx(3.0, abs=1e-15)
    assert variance([2, 4]) == pytest.approx(1.0, abs=1e-15)


def test_sample_variance_divides_by_n_minus_1():
    x = np.array([1.0, 2.0, 4.0, 7.0])
    centered_sq = (x - x.mean()) ** 2
    assert variance(x, correction=1) == pytest.approx(centered_sq.sum() / 3, rel=1e-15)
    assert variance(x) == pytest.approx(centered_sq.sum() / 4, rel=1e-15)


def test_std_is_square_root_of_variance():
    x = np.random.default_rng(0).normal(size=(3, 7))
    for c in (0, 1):
        np.testing.assert_allclose(std(x, correction=c) ** 2, variance(x, correction=c))


def test_statistics_reduce_axis_and_keepdims_like_numpy():
    x = np.random.default_rng(1).normal(size=(2, 3, 5))
    for axis in (0, 1, 2, -1, -2):
        np.testing.assert_allclose(mean(x, axis=axis), x.mean(axis=axis), rtol=1e-14)
        np.testing.assert_allclose(
            variance(x, axis=axis, correction=1, keepdims=True),
            x.var(axis=axis, ddof=1, keepdims=True),
            rtol=1e-13,
        )
        np.testing.assert_allclose(std(x, axis=axis), x.std(axis=axis), rtol=1e-13)


def test_mean_of_a_vector_is_a_scalar():
    assert np.ndim(mean([1.0, 2.0])) == 0
    assert mean([[1.0, 2.0]], keepdims=True).shape == (1, 1)


# --- Capítulos 4 y 5: LayerNorm, γ y β ---------------------------------------------


def test_example_normalized_is_the_x_hat_the_course_quotes():
    expected = [-1.024496, -0.265610, -0.366795, 1.656901]
    np.testing.assert_allclose(layer_norm(X, eps=0), expected, atol=ATOL)


def test_example_with_gamma_beta_is_the_y_the_course_quotes():
    expected = [-1.129395, -0.212488, -0.566795, 2.122591]
    np.testing.assert_allclose(layer_norm(X, GAMMA, BETA, eps=0), expected, atol=ATOL)


def test_gamma_beta_move_the_example_output_off_mean_0_and_std_1():
    steps = layer_norm_steps(X, GAMMA, BETA, eps=0)
    assert steps.output_mean == pytest.approx(0.053478, abs=ATOL)
    assert steps.output_std == pytest.approx(1.238537, abs=ATOL)


def test_default_eps_barely_changes_the_example():
    np.testing.assert_allclose(layer_norm(X), layer_norm(X, eps=0), atol=3e-4)
    assert not np.allclose(layer_norm(X), layer_norm(X, eps=0), atol=1e-5, rtol=0)


def test_2_4_normalizes_to_about_minus_1_1_and_so_does_20_40():
    np.testing.assert_allclose(layer_norm([2, 4]), [-1, 1], atol=1e-5)
    np.testing.assert_allclose(layer_norm([20, 40]), [-1, 1], atol=1e-7)


def test_eps_goes_inside_the_square_root_not_added_to_std():
    x = np.array([2.0, 4.0])
    eps = 0.5
    np.testing.assert_allclose(layer_norm(x, eps=eps), [-1, 1] / np.sqrt(1 + eps))
    assert not np.allclose(layer_norm(x, eps=eps), np.array([-1, 1]) / (1 + eps))


def test_layer_norm_normalizes_each_row_separately():
    rows = np.array([[2.0, 4.0, 9.0], [20.0, 40.0, 90.0], [-1.0, 0.0, 1.0]])
    out = layer_norm(rows)
    for i, row in enumerate(rows):
        np.testing.assert_array_equal(out[i], layer_norm(row))


def test_layer_norm_along_another_axis_equals_moving_that_axis_last():
    x = np.random.default_rng(2).normal(size=(3, 4, 5))
    gamma = np.linspace(0.5, 2.0, 4)
    beta = np.linspace(-1.0, 1.0, 4)
    moved = layer_norm(np.moveaxis(x, 1, -1), gamma, beta)
    np.testing.assert_allclose(
        layer_norm(x, gamma, beta, axis=1), np.moveaxis(moved, -1, 1), rtol=1e-14
    )


def test_layer_norm_of_a_single_value_is_zero_plus_beta():
    out = layer_norm([[3.0], [-7.0]], beta=[0.25])
    np.testing.assert_array_equal(out, [[0.25], [0.25]])


def test_constant_row_normalizes_to_zero_with_positive_eps():
    np.testing.assert_array_equal(layer_norm([5.0, 5.0, 5.0]), [0.0, 0.0, 0.0])


# --- LayerNormSteps: los valores que muestran la prosa y los widgets ----------------


def test_steps_show_each_intermediate_value_of_the_example():
    s = layer_norm_steps(X, GAMMA, BETA, eps=0)
    assert isinstance(s, LayerNormSteps)
    assert s.mean == pytest.approx(1.0025, abs=1e-12)
    np.testing.assert_allclose(s.centered, [-0.2025, -0.0525, -0.0725, 0.3275])
    np.testing.assert_allclose(
        s.squared_deviations, [0.04100625, 0.00275625, 0.00525625, 0.10725625]
    )
    assert s.variance == pytest.approx(0.03906875, abs=1e-12)
    assert s.std == pytest.approx(0.1976582, abs=ATOL)
    assert s.denominator == pytest.approx(s.std, abs=1e-15)  # eps = 0
    np.testing.assert_allclose(s.gamma, GAMMA)
    np.testing.assert_allclose(s.beta, BETA)
    assert s.eps == 0.0


def test_steps_are_consistent_with_each_other_and_with_layer_norm():
    x = np.random.default_rng(3).normal(3.0, 2.0, size=(4, 6))
    g = np.linspace(0.5, 1.5, 6)
    b = np.linspace(-0.3, 0.3, 6)
    s = layer_norm_steps(x, g, b, eps=1e-3)
    np.testing.assert_array_equal(s.output, layer_norm(x, g, b, eps=1e-3))
    np.testing.assert_allclose(s.mean, mean(x), rtol=1e-15)
    np.testing.assert_allclose(s.centered, x - s.mean[:, None], rtol=1e-15)
    np.testing.assert_allclose(s.squared_deviations, s.centered**2, rtol=1e-15)
    np.testing.assert_allclose(s.variance, s.squared_deviations.mean(-1), rtol=1e-14)
    np.testing.assert_allclose(s.std, np.sqrt(s.variance), rtol=1e-15)
    np.testing.assert_allclose(s.denominator, np.sqrt(s.variance + 1e-3), rtol=1e-15)
    np.testing.assert_allclose(
        s.normalized, s.centered / s.denominator[:, None], rtol=1e-14
    )
    np.testing.assert_allclose(s.output, g * s.normalized + b, rtol=1e-14)
    np.testing.assert_allclose(s.output_mean, s.output.mean(-1), rtol=1e-13)
    np.testing.assert_allclose(s.output_std, s.output.std(-1), rtol=1e-13)


def test_steps_without_gamma_beta_record_ones_and_zeros():
    s = layer_norm_steps([1.0, 2.0, 4.0])
    np.testing.assert_array_equal(s.gamma, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(s.beta, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(s.output, s.normalized)


def test_steps_are_frozen_and_read_only_without_touching_the_callers_array():
    x = np.array([1.0, 2.0, 4.0])
    s = layer_norm_steps(x)
    with pytest.raises(AttributeError):
        s.eps = 1.0
    with pytest.raises(ValueError):
        s.normalized[0] = 0.0
    x[0] = 10.0  # el array de quien llama sigue siendo modificable
    assert s.x[0] == 1.0


# --- Capítulo 6: RMSNorm -----------------------------------------------------------


def test_rms_norm_of_1_2_3_4_divides_by_root_mean_square():
    expected = np.array([1, 2, 3, 4]) / np.sqrt(7.5 + np.finfo(np.float64).eps)
    np.testing.assert_allclose(rms_norm([1, 2, 3, 4]), expected, rtol=1e-15)


def test_rms_norm_does_not_subtract_the_mean_but_layer_norm_does():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert mean(rms_norm(x)) == pytest.approx(2.5 / np.sqrt(7.5), rel=1e-12)
    assert abs(mean(layer_norm(x))) < 1e-15


def test_rms_norm_default_eps_is_machine_epsilon_of_the_dtype():
    x32 = np.array([1e-4, -2e-4], np.float32)
    expected = x32 / np.sqrt(np.mean(x32**2) + np.finfo(np.float32).eps)
    np.testing.assert_allclose(rms_norm(x32), expected, rtol=1e-6)
    x64 = x32.astype(np.float64)
    expected = x64 / np.sqrt(np.mean(x64**2) + np.finfo(np.float64).eps)
    np.testing.assert_allclose(rms_norm(x64), expected, rtol=1e-15)


def test_rms_norm_applies_gamma_per_dimension():
    x = np.array([[3.0, 4.0], [1.0, -1.0]])
    gamma = np.array([2.0, 0.5])
    np.testing.assert_allclose(rms_norm(x, gamma, eps=0), rms_norm(x, eps=0) * gamma)


# --- Capítulo 7: Post-LN y Pre-LN --------------------------------------------------


def test_post_ln_is_layer_norm_of_the_residual_sum():
    out = post_ln(PERRO_X, PERRO_ATTENTION, GAMMA, BETA)
    np.testing.assert_array_equal(out, layer_norm(X, GAMMA, BETA))


def test_pre_ln_adds_x_to_the_sublayer_of_the_normalized_x():
    x = np.random.default_rng(4).normal(size=(2, 4))
    w = np.random.default_rng(5).normal(size=(4, 4))
    out = pre_ln(x, lambda h: h @ w, GAMMA, BETA)
    np.testing.assert_allclose(out, x + layer_norm(x, GAMMA, BETA) @ w, rtol=1e-15)


def test_with_a_silent_sublayer_pre_ln_keeps_x_and_post_ln_normalizes_it():
    x = np.array([[10.0, 20.0, 40.0]])
    def silent(h):
        return np.zeros_like(h)
    np.testing.assert_array_equal(pre_ln(x, silent), x)
    np.testing.assert_array_equal(post_ln(x, silent), layer_norm(x))


# --- Gradiente ---------------------------------------------------------------------


def test_layer_norm_backward_matches_finite_differences():
    rng = np.random.default_rng(6)
    x, grad_out = rng.normal(size=(2, 5)), rng.normal(size=(2, 5))
    gamma = rng.normal(size=5)
    grad_x, grad_gamma, grad_beta = layer_norm_backward(x, grad_out, gamma)

    def loss(x_, gamma_, beta_):
        return np.sum(grad_out * layer_norm(x_, gamma_, beta_))

    h = 1e-6
    beta = np.zeros(5)
    for i in np.ndindex(x.shape):
        dx = np.zeros_like(x)
        dx[i] = h
        numeric = (loss(x + dx, gamma, beta) - loss(x - dx, gamma, beta)) / (2 * h)
        assert grad_x[i] == pytest.approx(numeric, abs=1e-7)
    for j in range(5):
        d = np.zeros(5)
        d[j] = h
        numeric = (loss(x, gamma + d, beta) - loss(x, gamma - d, beta)) / (2 * h)
        assert grad_gamma[j] == pytest.approx(numeric, abs=1e-7)
        numeric = (loss(x, gamma, beta + d) - loss(x, gamma, beta - d)) / (2 * h)
        assert grad_beta[j] == pytest.approx(numeric, abs=1e-7)


def test_layer_norm_gradient_sums_to_zero_along_each_row():
    rng = np.random.default_rng(7)
    grad_x, _, _ = layer_norm_backward(rng.normal(size=(3, 6)), rng.normal(size=(3, 6)))
    np.testing.assert_allclose(grad_x.sum(-1), 0.0, atol=1e-13)


# --- dtypes -------------------------------------------------------------------------


def test_integers_are_computed_in_float64():
    assert layer_norm([2, 4, 6, 8]).dtype == np.float64
    np.testing.assert_array_equal(layer_norm([2, 4, 6, 8]), layer_norm([2.0, 4, 6, 8]))
    assert np.asarray(mean(np.array([1, 2], np.int8))).dtype == np.float64


def test_float32_stays_float32():
    x = np.array([X], np.float32)
    g = np.array(GAMMA)  # γ en float64 no arrastra el resultado a float64
    for out in (
        mean(x),
        variance(x),
        std(x),
        layer_norm(x, g, BETA),
        rms_norm(x, g),
        residual(x, np.ones((1, 4))),
        pre_ln(x, lambda h: 2 * h),
        post_ln(x, np.ones((1, 4))),
        *layer_norm_backward(x, np.ones_like(x), g),
        layer_norm_steps(x).output,
    ):
        assert np.asarray(out).dtype == np.float32


def test_float16_is_computed_and_returned_in_float32():
    x16 = np.array(X, np.float16)
    out = layer_norm(x16)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, layer_norm(x16.astype(np.float32)))


def test_float32_variance_near_1e4_is_1_while_naive_formula_fails():
    rng = np.random.default_rng(8)
    x = (1e4 + rng.standard_normal((64, 256))).astype(np.float32)
    exact = x.astype(np.float64).var(axis=-1)  # varianza de los mismos float32
    two_pass = variance(x)
    naive = np.mean(x * x, axis=-1) - np.mean(x, axis=-1) ** 2  # E[x²] − E[x]²
    assert two_pass.dtype == naive.dtype == np.float32
    np.testing.assert_allclose(two_pass, exact, rtol=1e-3)
    np.testing.assert_allclose(two_pass, 1.0, atol=0.25)
    assert np.max(np.abs(naive - exact)) > 4.0  # la resta se come las cifras


def test_float32_layer_norm_near_1e4_matches_float64():
    rng = np.random.default_rng(9)
    x = (1e4 + rng.standard_normal((8, 64))).astype(np.float32)
    reference = layer_norm(x.astype(np.float64))
    np.testing.assert_allclose(layer_norm(x), reference, atol=2e-3)


# --- Números enormes y diminutos ---------------------------------------------------


def test_std_and_layer_norm_of_1e200_do_not_overflow():
    base = np.array([X, EVENS])
    big = base * 1e200
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ni overflow de NumPy ni avisos nuestros
        np.testing.assert_allclose(std(big), std(base) * 1e200, rtol=1e-14)
        np.testing.assert_allclose(layer_norm(big), layer_norm(base, eps=0), rtol=1e-13)
        np.testing.assert_allclose(mean(big), mean(base) * 1e200, rtol=1e-15)
        np.testing.assert_allclose(rms_norm(big), rms_norm(base, eps=0), rtol=1e-14)


def test_mean_of_two_huge_numbers_does_not_overflow():
    assert mean([1e308, 1e308]) == 1e308
    assert mean([1.7e308, -1.7e308]) == 0.0


def test_variance_of_1e200_is_inf_with_a_warning_in_spanish():
    with pytest.warns(RuntimeWarning, match="La varianza no cabe en float64"):
        assert variance([1e200, 2e200]) == np.inf


def test_float32_std_of_1e30_does_not_overflow():
    x = np.array([1e30, 3e30], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert std(x) == pytest.approx(1e30, rel=1e-6)
        np.testing.assert_allclose(layer_norm(x), [-1.0, 1.0], rtol=1e-6)


def test_huge_constant_row_normalizes_to_zero_and_its_gradient_is_finite():
    x = np.full((2, 3), 1e200)
    x[1] = 3e-300
    np.testing.assert_array_equal(layer_norm(x), 0.0)
    grad_x, grad_gamma, _ = layer_norm_backward(x, np.array([[1.0, 2.0, 6.0]] * 2))
    # σ = 0, así que σ̂ = √ε y grad_x = (g − mean(g))/√ε
    np.testing.assert_allclose(grad_x, [[-2.0, -1.0, 3.0]] * 2 / np.sqrt(1e-5))
    np.testing.assert_array_equal(grad_gamma, 0.0)


def test_steps_of_1e200_give_a_finite_output_and_an_inf_variance_with_warning():
    with pytest.warns(RuntimeWarning, match="no cabe"):
        s = layer_norm_steps(np.array(X) * 1e200)
    assert s.variance == np.inf
    assert s.std == pytest.approx(0.1976582e200, rel=1e-6)
    np.testing.assert_allclose(s.output, layer_norm(X, eps=0), rtol=1e-13)


def test_layer_norm_equals_the_three_textbook_lines_bit_for_bit():
    rng = np.random.default_rng(10)
    for dtype in (np.float64, np.float32):
        for scale in (1e-3, 1.0, 37.0, 1e4, 1e6):
            x = (scale * rng.normal(1.0, 1.0, size=(16, 32))).astype(dtype)
            mu = x.mean(-1, keepdims=True)
            var = ((x - mu) ** 2).mean(-1, keepdims=True)
            textbook = (x - mu) / np.sqrt(var + dtype(1e-5))
            np.testing.assert_array_equal(layer_norm(x), textbook)
            np.testing.assert_array_equal(std(x), np.sqrt(var[:, 0]))


def _every_result(x):
    g, b = np.linspace(0.5, 1.5, x.shape[-1]), np.linspace(-0.3, 0.3, x.shape[-1])
    steps = layer_norm_steps(x, g, b)
    return [
        mean(x), mean(x, axis=0, keepdims=True), variance(x), std(x, correction=1),
        layer_norm(x), layer_norm(x, g, b, eps=1e-3), layer_norm(x, axis=0),
        rms_norm(x), rms_norm(x, g, eps=1e-6),
        *layer_norm_backward(x, np.cos(x), g),
        *(getattr(steps, f) for f in LayerNormSteps.__dataclass_fields__),
    ]


def test_rescaled_path_gives_the_same_bits_as_the_formula_in_normal_ranges(
    monkeypatch,
):
    # El camino para |x| ≳ 1e150 (resnorm/_overflow.py), forzado con números
    # normales, debe dar exactamente lo mismo que las líneas de la fórmula.
    from resnorm import _overflow

    rng = np.random.default_rng(11)
    for dtype in (np.float64, np.float32):
        for scale in (1e-3, 1.0, 37.0, 1e4, 1e6):
            x = (scale * rng.normal(1.0, 1.0, size=(6, 8))).astype(dtype)
            x[2] = x[2, 0]  # una fila constante: σ² = 0
            direct = _every_result(x)
            with monkeypatch.context() as m:
                # como si solo cupieran los |x| < 2**-30: cada fila se divide por 2**e
                m.setattr(_overflow, "safe_exponent", lambda dtype, n: -30)
                assert _overflow.squares_could_overflow(x, -1)
                assert (_overflow.row_exponents(x, -1) >= 10).all()
                rescaled = _every_result(x)
            for a, b in zip(direct, rescaled, strict=True):
                assert np.asarray(a).dtype == np.asarray(b).dtype
                np.testing.assert_array_equal(a, b)


def test_normal_inputs_take_the_formula_and_huge_ones_the_rescaled_path(monkeypatch):
    from resnorm import _overflow

    calls = []
    row_exponents = _overflow.row_exponents
    monkeypatch.setattr(
        _overflow, "row_exponents", lambda *a: calls.append(1) or row_exponents(*a)
    )
    layer_norm(np.array(X) * 1e100)
    layer_norm(np.array(X, np.float32) * 1e15)
    assert calls == []  # los cuadrados caben: ni se reescala
    layer_norm(np.array(X) * 1e160)
    layer_norm(np.array(X, np.float32) * 1e20)
    assert len(calls) == 2


def test_layer_norm_reads_as_the_formula_of_chapter_4():
    import ast
    import inspect

    import resnorm.numerics as numerics

    tree = ast.parse(inspect.getsource(numerics.layer_norm.__wrapped__.__wrapped__))
    body = [ast.unparse(line) for line in tree.body[0].body[1:]]  # sin el docstring
    assert body == [
        "mu = _mean(x, axis)",
        "var = np.mean((x - mu) ** 2, axis=axis, keepdims=True)",
        "x_hat = (x - mu) / np.sqrt(var + eps)",
        "return gamma * x_hat + beta",
    ]


def test_public_functions_keep_their_pytorch_signatures():
    import inspect

    sig = inspect.signature(layer_norm)
    assert list(sig.parameters) == ["x", "gamma", "beta", "eps", "axis"]
    assert sig.parameters["eps"].default == 1e-5
    assert inspect.signature(rms_norm).parameters["eps"].default is None
    assert "Capítulo 4" in layer_norm.__doc__


# --- Importar resnorm ----------------------------------------------------------------


def test_importing_resnorm_is_fast_and_does_not_import_torch():
    # tiempo de CPU del proceso: no depende de cuántos procesos compiten por la máquina
    code = (
        "import sys, time; t = time.process_time(); import resnorm; "
        "print(time.process_time() - t, 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    seconds, torch_loaded = out.stdout.split()
    assert torch_loaded == "False"
    assert float(seconds) < 1.0


def test_every_public_function_has_a_spanish_docstring_with_its_chapter():
    for name in resnorm.__all__:
        doc = getattr(resnorm, name).__doc__
        assert "Capítulo" in doc, name
        assert any(sym in doc for sym in ("=", "√")), name  # lleva la fórmula


# --- Mensajes de error: en español y diciendo qué se esperaba ----------------------


def test_gamma_of_wrong_length_says_how_many_elements_it_needs():
    msg = r"gamma debe tener 4 elementos \(uno por dimensión\), pero tiene 3"
    for fn in (layer_norm, layer_norm_steps, rms_norm):
        with pytest.raises(ValueError, match=msg):
            fn(X, [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=msg):
        layer_norm_backward(X, X, [1.0, 1.0, 1.0])


def test_beta_of_wrong_length_says_how_many_elements_it_needs():
    msg = r"beta debe tener 4 elementos \(uno por dimensión\), pero tiene 5"
    with pytest.raises(ValueError, match=msg):
        layer_norm(X, beta=np.zeros(5))
    with pytest.raises(ValueError, match=msg):
        post_ln(X, np.zeros(4), beta=np.zeros(5))


def test_gamma_matrix_or_scalar_asks_for_a_vector():
    with pytest.raises(ValueError, match=r"gamma debe ser un vector 1-D de 4 elemen"):
        layer_norm(X, np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"vector 1-D de 4 elementos.*forma \(\)"):
        layer_norm(X, 2.0)


def test_gamma_with_nan_or_text_is_rejected():
    with pytest.raises(ValueError, match="gamma contiene NaN o ±inf"):
        layer_norm(X, [1.0, np.nan, 1.0, 1.0])
    with pytest.raises(TypeError, match="gamma debe contener números reales"):
        layer_norm(X, ["a", "b", "c", "d"])


def test_text_or_objects_ask_for_real_numbers():
    for bad in (["a", "b"], [1.0, None], [1, "2"], np.array([1, 2], dtype=object)):
        with pytest.raises(TypeError, match=r"x debe contener números reales"):
            layer_norm(bad)


def test_complex_numbers_ask_for_real_numbers():
    with pytest.raises(TypeError, match="números reales.*complex128"):
        mean([1 + 2j, 3.0])


def test_booleans_are_rejected_with_a_hint_to_convert():
    with pytest.raises(TypeError, match=r"booleanos.*x\.astype\(float\)"):
        mean([True, False, True])


def test_nan_and_inf_are_rejected():
    msg = "x contiene NaN o ±inf.*solo números finitos"
    for bad in ([1.0, np.nan], [np.inf, 1.0], [[1.0, 2.0], [-np.inf, np.nan]]):
        with pytest.raises(ValueError, match=msg):
            std(bad)


def test_empty_input_is_rejected():
    msg = r"x está vacío \(forma .*al menos un valor"
    for bad in ([], np.zeros((3, 0)), np.zeros((0, 4))):
        with pytest.raises(ValueError, match=msg):
            layer_norm(bad)


def test_scalar_input_asks_for_a_vector():
    with pytest.raises(ValueError, match="al menos una dimensión.*es un escalar"):
        layer_norm(3.0)


def test_ragged_rows_ask_for_a_rectangular_array():
    with pytest.raises(ValueError, match="rectangular.*longitudes distintas"):
        mean([[1.0, 2.0], [3.0]])


def test_axis_out_of_range_says_the_valid_range():
    with pytest.raises(ValueError, match=r"axis=2 está fuera de rango.*entre -2 y 1"):
        layer_norm(np.ones((2, 3)), axis=2)
    with pytest.raises(ValueError, match=r"axis=-2 está fuera de rango.*entre -1 y 0"):
        mean(X, axis=-2)


def test_axis_must_be_an_integer():
    with pytest.raises(TypeError, match=r"axis debe ser un entero"):
        mean(X, axis=(0,))
    with pytest.raises(TypeError, match=r"axis debe ser un entero"):
        mean(X, axis=True)


def test_bad_eps_is_rejected():
    with pytest.raises(ValueError, match=r"eps debe ser un número finito ≥ 0.*vale -1"):
        layer_norm(X, eps=-1e-5)
    with pytest.raises(ValueError, match=r"eps debe ser un número finito ≥ 0"):
        rms_norm(X, eps=float("nan"))
    with pytest.raises(TypeError, match=r"eps debe ser un número real ≥ 0"):
        layer_norm(X, eps="1e-5")


def test_eps_zero_on_a_constant_row_explains_the_0_over_0():
    with pytest.raises(ValueError, match=r"eps=0.*varianza 0.*0/0.*usa eps > 0"):
        layer_norm([[1.0, 2.0], [3.0, 3.0]], eps=0)
    with pytest.raises(ValueError, match=r"eps=0.*fila de ceros.*0/0"):
        rms_norm([0.0, 0.0], eps=0)


def test_bad_correction_is_rejected():
    msg = r"correction=1.*n − correction = 0.*más de 1 valores por fila, pero hay 1"
    with pytest.raises(ValueError, match=msg):
        std([5.0], correction=1)
    with pytest.raises(ValueError, match=r"correction debe ser ≥ 0.*vale -1"):
        variance(X, correction=-1)
    with pytest.raises(TypeError, match=r"correction debe ser un número"):
        variance(X, correction=True)


def test_sublayer_output_of_wrong_shape_is_rejected():
    msg = r"F\(x\) \(sublayer\) debe tener la misma forma"
    with pytest.raises(ValueError, match=msg):
        residual(X, [1.0, 2.0, 3.0])
    msg = r"F\(LayerNorm\(x\)\) \(sublayer\) .*\(4,\), pero tiene \(2,\)"
    with pytest.raises(ValueError, match=msg):
        pre_ln(X, lambda h: h[:2])
    with pytest.raises(ValueError, match=r"F\(x\) \(sublayer\) contiene NaN"):
        post_ln(X, lambda h: h * np.nan)


def test_pre_ln_with_an_array_explains_why_it_needs_the_function():
    msg = r"en Pre-LN, sublayer debe ser una función F.*LayerNorm\(x\).*Pasa la función"
    with pytest.raises(TypeError, match=msg):
        pre_ln(X, np.zeros(4))


def test_grad_out_of_wrong_shape_is_rejected():
    with pytest.raises(ValueError, match=r"grad_out debe tener la misma forma que x"):
        layer_norm_backward(np.ones((2, 4)), np.ones(4))


def test_error_messages_use_tu_never_voseo():
    import inspect

    import resnorm._checks as checks
    import resnorm._overflow as overflow
    import resnorm.numerics as numerics

    source = "".join(inspect.getsource(m) for m in (numerics, checks, overflow))
    source = source.lower()
    voseo = ("tenés", "podés", "mirá", "usá", "pasá", "convertí", "querés", "fijate")
    for word in voseo:
        assert word not in source
