"""La traza del vector «perro» (Capítulo 8) y el apilado de bloques (Capítulo 11)."""

import json
import math

import numpy as np
import pytest

from resnorm import layer_norm, layer_norm_steps, post_ln, pre_ln, residual
from resnorm.examples import VECTOR
from resnorm.trace import PerroExample, block_trace, gelu, perro_example, stack_trace

SUM = list(VECTOR)
POST_KEYS = [
    "input", "attention", "sum1",
    "ln1_mean", "ln1_centered", "ln1_std", "ln1_normalized", "ln1_affine",
    "ffn", "sum2", "ln2",
]
PRE_KEYS = [
    "input",
    "ln1_mean", "ln1_centered", "ln1_std", "ln1_normalized", "ln1_affine",
    "attention", "sum1", "ln2", "ffn", "sum2",
]


def by_key(steps):
    return {s["key"]: s for s in steps}


@pytest.fixture(scope="module")
def ex():
    return perro_example()


# --- Los datos del ejemplo ------------------------------------------------------------


def test_perro_example_has_the_course_data(ex):
    np.testing.assert_array_equal(ex.x, [0.50, 1.15, 0.78, 0.88])
    np.testing.assert_array_equal(ex.attention_output, [0.30, -0.20, 0.15, 0.45])
    np.testing.assert_array_equal(ex.gamma1, [1.2, 0.8, 1.0, 1.1])
    np.testing.assert_array_equal(ex.beta1, [0.1, 0.0, -0.2, 0.3])
    assert ex.ffn_w1.shape == (8, 4) and ex.ffn_b1.shape == (8,)
    assert ex.ffn_w2.shape == (4, 8) and ex.ffn_b2.shape == (4,)


def test_perro_example_is_deterministic_and_read_only(ex):
    again = perro_example()
    for name in PerroExample.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(ex, name), getattr(again, name))
    with pytest.raises(ValueError):
        ex.ffn_w1[0, 0] = 1.0


def test_ffn_weights_are_rounded_to_two_decimals_to_be_readable(ex):
    for w in (ex.ffn_w1, ex.ffn_b1, ex.ffn_w2):
        np.testing.assert_allclose(w, np.round(w, 2), atol=1e-12)


def test_ffn_is_gelu_mlp_4_8_4(ex):
    h = np.array([0.3, -1.0, 2.0, 0.5])
    hidden = ex.ffn_w1 @ h + ex.ffn_b1
    phi = np.array([0.5 * (1 + math.erf(z / math.sqrt(2))) for z in hidden])
    expected = ex.ffn_w2 @ (hidden * phi) + ex.ffn_b2
    np.testing.assert_allclose(ex.ffn(h), expected, rtol=1e-12)
    # Hay pre-activaciones de los dos signos: la no linealidad trabaja.
    assert 0 < ex.active_units(h) < 8


def test_gelu_is_the_exact_erf_gelu_of_torch_and_of_the_blocks():
    torch = pytest.importorskip("torch")
    z = np.linspace(-6.0, 6.0, 121)
    reference = torch.nn.GELU()(torch.tensor(z, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(gelu(z), reference, rtol=1e-12, atol=1e-15)
    # No es la aproximación con tanh: en z = −1 las dos difieren en el cuarto decimal.
    menos_uno = torch.tensor([-1.0], dtype=torch.float64)
    tanh_gelu = torch.nn.GELU(approximate="tanh")(menos_uno)
    assert abs(gelu([-1.0])[0] - tanh_gelu.item()) > 1e-5


def test_gelu_is_not_relu_it_lets_small_negatives_through():
    z = np.array([-3.0, -0.5, 0.0, 0.5, 3.0])
    g = gelu(z)
    assert g[2] == 0.0
    assert -0.2 < g[1] < 0.0  # una pre-activación negativa pequeña no se anula
    assert abs(g[0]) < 0.01 and abs(g[4] - 3.0) < 0.01  # en los extremos, casi ReLU


# --- Post-LN --------------------------------------------------------------------------


def test_post_ln_trace_has_the_eleven_steps_in_order(ex):
    assert [s["key"] for s in block_trace(ex, "post")] == POST_KEYS


def test_pre_ln_trace_has_the_eleven_steps_in_order(ex):
    assert [s["key"] for s in block_trace(ex, "pre")] == PRE_KEYS


@pytest.mark.parametrize("order", ["post", "pre"])
def test_first_residual_sum_is_the_course_vector(ex, order):
    steps = by_key(block_trace(ex, order))
    np.testing.assert_allclose(steps["sum1"]["vector"], SUM, atol=1e-12)


def test_post_ln_first_layer_norm_matches_layer_norm_steps(ex):
    steps = by_key(block_trace(ex, "post"))
    ref = layer_norm_steps(SUM, ex.gamma1, ex.beta1, eps=1e-5)
    assert steps["ln1_mean"]["scalars"] == [["μ", pytest.approx(1.0025, abs=1e-12)]]

    def close(key, expected):
        np.testing.assert_allclose(steps[key]["vector"], expected, rtol=1e-12)

    close("ln1_centered", ref.centered)
    scalars = dict((k, v) for k, v in steps["ln1_std"]["scalars"])
    assert scalars["σ"] == pytest.approx(float(ref.std), rel=1e-12)
    assert scalars["√(σ² + ε)"] == pytest.approx(float(ref.denominator), rel=1e-12)
    close("ln1_normalized", ref.normalized)
    close("ln1_affine", ref.output)


def test_trace_sigma_is_the_std_of_the_residual_sum(ex):
    # Que ese σ vale 0.1977 (y no 0.198) lo comprueba test_numerics.py, una sola vez.
    from resnorm import std

    steps = by_key(block_trace(ex, "post"))
    sigma = dict((k, v) for k, v in steps["ln1_std"]["scalars"])["σ"]
    assert sigma == pytest.approx(std(ex.x + ex.attention_output), rel=1e-12)


def test_post_ln_block_equals_two_post_ln_calls(ex):
    steps = by_key(block_trace(ex, "post"))
    x1 = post_ln(ex.x, ex.attention_output, ex.gamma1, ex.beta1)
    x2 = post_ln(x1, ex.ffn, ex.gamma2, ex.beta2)
    np.testing.assert_allclose(steps["ln1_affine"]["vector"], x1, rtol=1e-12)
    np.testing.assert_allclose(steps["ln2"]["vector"], x2, rtol=1e-12)


def test_pre_ln_block_equals_two_pre_ln_calls_with_the_given_attention(ex):
    steps = by_key(block_trace(ex, "pre"))
    # Simplificación documentada: la salida de la atención es un dato fijo.
    h = pre_ln(ex.x, lambda _: ex.attention_output, ex.gamma1, ex.beta1)
    out = pre_ln(h, ex.ffn, ex.gamma2, ex.beta2)
    np.testing.assert_allclose(steps["sum1"]["vector"], h, rtol=1e-12)
    np.testing.assert_allclose(steps["sum2"]["vector"], out, rtol=1e-12)


def test_pre_ln_normalizes_the_input_not_the_sum(ex):
    pre = by_key(block_trace(ex, "pre"))
    post = by_key(block_trace(ex, "post"))
    np.testing.assert_allclose(
        pre["ln1_affine"]["vector"], layer_norm(ex.x, ex.gamma1, ex.beta1), rtol=1e-12
    )
    assert pre["ln1_mean"]["scalars"][0][1] == pytest.approx(0.8275, abs=1e-12)
    assert post["ln1_mean"]["scalars"][0][1] == pytest.approx(1.0025, abs=1e-12)
    assert not np.allclose(pre["ln1_affine"]["vector"], post["ln1_affine"]["vector"])


def test_pre_ln_attention_step_shows_what_ln1_feeds_it(ex):
    # LN₁ no se queda sin uso: el paso de la atención muestra su entrada, LN₁(x).
    steps = by_key(block_trace(ex, "pre"))
    ln1 = layer_norm(ex.x, ex.gamma1, ex.beta1)
    step = steps["attention"]
    assert "LN₁(x)" in step["title"] and "LN₁(x)" in step["formula"]
    assert "−1.5900" in step["formula"]  # la primera componente de LN₁(x)
    norms = dict(step["scalars"])
    assert norms["‖LN₁(x)‖"] == pytest.approx(np.linalg.norm(ln1), rel=1e-12)
    assert norms["‖x‖"] == pytest.approx(np.linalg.norm(ex.x), rel=1e-12)


def test_pre_ln_residual_path_skips_layer_norm(ex):
    # En Pre-LN la salida es h + FFN(LN₂(h)): sin la FFN queda h intacto.
    steps = by_key(block_trace(ex, "pre"))
    h = np.array(steps["sum1"]["vector"])
    np.testing.assert_allclose(
        np.subtract(steps["sum2"]["vector"], steps["ffn"]["vector"]), h, atol=1e-12
    )


def test_post_ln_output_is_calibrated_but_pre_ln_output_is_not(ex):
    post = by_key(block_trace(ex, "post"))
    pre = by_key(block_trace(ex, "pre"))
    # Post-LN termina en LN₂: su media/std son las que fijan γ₂ y β₂.
    ref = layer_norm_steps(post["sum2"]["vector"], ex.gamma2, ex.beta2)
    expected_std = float(ref.output_std)
    assert post["ln2"]["stats"]["std"] == pytest.approx(expected_std, rel=1e-12)
    # Pre-LN no normaliza la salida: su media está lejos de 0.
    assert abs(pre["sum2"]["stats"]["mean"]) > 0.5
    assert not np.allclose(post["ln2"]["vector"], pre["sum2"]["vector"], atol=0.1)


def test_shortcut_is_the_identity_when_the_sublayer_outputs_zero(ex):
    zero = PerroExample(
        **{
            **{k: getattr(ex, k) for k in PerroExample.__dataclass_fields__},
            "attention_output": np.zeros(4),
            "ffn_w2": np.zeros((4, 8)),
        }
    )
    pre = by_key(block_trace(zero, "pre"))
    np.testing.assert_array_equal(pre["sum1"]["vector"], ex.x)
    np.testing.assert_array_equal(pre["sum2"]["vector"], ex.x)
    np.testing.assert_array_equal(residual(ex.x, np.zeros(4)), ex.x)


def test_trace_stats_are_mean_and_population_std_of_each_vector(ex):
    for step in block_trace(ex, "post") + block_trace(ex, "pre"):
        v = np.array(step["vector"])
        assert step["stats"]["mean"] == pytest.approx(v.mean(), abs=1e-12)
        assert step["stats"]["std"] == pytest.approx(v.std(ddof=0), abs=1e-12)
        assert step["stats"]["norm"] == pytest.approx(np.linalg.norm(v), abs=1e-12)


def test_trace_eps_reaches_every_layer_norm(ex):
    big = by_key(block_trace(ex, "post", eps=1e-1))
    small = by_key(block_trace(ex, "post", eps=1e-5))
    den = dict((k, v) for k, v in big["ln1_std"]["scalars"])["√(σ² + ε)"]
    assert den == pytest.approx(np.sqrt(0.03906875 + 1e-1), rel=1e-12)
    assert not np.allclose(big["ln2"]["vector"], small["ln2"]["vector"])
    assert "10⁻¹" in big["ln1_std"]["explanation"]


def test_trace_is_plain_json_in_spanish(ex):
    for order in ("post", "pre"):
        steps = block_trace(ex, order)
        text = json.dumps(steps, ensure_ascii=False)
        assert len(text) < 12_000
        for step in steps:
            assert len(step["vector"]) == 4
            assert step["title"] and step["explanation"]
            assert "NaN" not in text and "Infinity" not in text
    pre = by_key(block_trace(ex, "pre"))
    assert "misma" in pre["attention"]["explanation"]  # la simplificación, dicha


def test_block_trace_rejects_an_unknown_order(ex):
    with pytest.raises(ValueError, match="«post» o «pre»"):
        block_trace(ex, order="sandwich")


# --- Apilar bloques (gancho al Paso 8) ------------------------------------------------


def test_stack_trace_starts_at_the_perro_vector(ex):
    out = stack_trace(ex, n_blocks=3)
    assert out[0]["label"] == "Entrada" and out[0]["block"] == 0
    np.testing.assert_array_equal(out[0]["vector"], ex.x)
    assert [e["block"] for e in out] == [0, 1, 2, 3, 3]
    assert out[-1]["final"] and not any(e["final"] for e in out[:-1])


def test_stack_trace_is_seeded(ex):
    a = stack_trace(ex, n_blocks=6, seed=3)
    b = stack_trace(ex, n_blocks=6, seed=3)
    c = stack_trace(ex, n_blocks=6, seed=4)
    assert a == b
    assert a[-2]["vector"] != c[-2]["vector"]


def test_stack_trace_blocks_have_their_own_weights(ex):
    # Cada bloque siembra sus pesos con [seed, b]: la corrección que añade el
    # bloque 2 no repite la del bloque 1.
    out = stack_trace(ex, n_blocks=2, final_ln=False)
    delta1 = np.subtract(out[1]["vector"], out[0]["vector"])
    delta2 = np.subtract(out[2]["vector"], out[1]["vector"])
    assert not np.allclose(delta1, delta2)


def test_post_ln_stack_keeps_every_block_output_normalized(ex):
    for entry in stack_trace(ex, n_blocks=24, order="post")[1:]:
        assert entry["mean"] == pytest.approx(0.0, abs=1e-9)
        assert entry["std"] == pytest.approx(1.0, abs=1e-3)  # < 1 por ε


@pytest.mark.slow  # una pila Pre-LN de muchos bloques, con varias semillas
def test_pre_ln_residual_stream_grows_like_sqrt_depth(ex):
    def mean_sq_norm(n_blocks):
        runs = [
            stack_trace(ex, n_blocks=n_blocks, seed=s, final_ln=False)[-1]["norm"] ** 2
            for s in range(40)
        ]
        return np.mean(runs)

    ratio = mean_sq_norm(64) / mean_sq_norm(16)
    assert 2.5 < ratio < 6.0  # ‖x‖² ∝ L  →  4 veces más bloques, ≈ 4 veces ‖x‖²


def test_pre_ln_final_layer_norm_recalibrates_the_stream(ex):
    out = stack_trace(ex, n_blocks=48, order="pre")
    assert out[-2]["std"] > 2.0  # la corriente residual ya no tiene std 1
    assert out[-1]["label"] == "LayerNorm final (ln_f)"
    expected = layer_norm(out[-2]["vector"])
    np.testing.assert_allclose(out[-1]["vector"], expected, rtol=1e-12)
    assert out[-1]["std"] == pytest.approx(1.0, abs=1e-3)


def test_stack_trace_checks_its_arguments(ex):
    with pytest.raises(ValueError, match="n_blocks"):
        stack_trace(ex, n_blocks=-1)
    with pytest.raises(TypeError, match="entero"):
        stack_trace(ex, n_blocks=2.5)
    with pytest.raises(ValueError, match="«post» o «pre»"):
        stack_trace(ex, n_blocks=2, order="mid")
    assert len(stack_trace(ex, n_blocks=0, final_ln=False)) == 1
