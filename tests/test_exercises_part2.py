"""Los comprobadores de la Parte 2: la solución pasa, el stub falla con un mensaje
amable en español y cada confusión típica recibe la pista que la nombra."""

from __future__ import annotations

import math

import numpy as np
import pytest

from resnorm import exercises, layer_norm
from resnorm.exercises import part2


def stub(*args):
    raise NotImplementedError  # escribe aquí tu solución


# --- Soluciones (las mismas ideas que las de los capítulos) --------------------------


def rms_norm(x, eps):
    x = np.asarray(x, dtype=float)
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)


def layer_norm_fixed(x, eps):
    import torch

    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, correction=0)
    return (x - mu) / torch.sqrt(var + eps)


def annotated_layer_norm(x, eps):
    # The Annotated Transformer: desviación muestral y ε fuera de la raíz.
    return (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + eps)


def post_ln(x, sublayer):
    x = np.asarray(x, dtype=float)
    return layer_norm(x + sublayer(x))


def pre_ln_forward(block, x):
    x = x + block.attn(block.ln_1(x))
    return x + block.mlp(block.ln_2(x))


def post_ln_forward(block, x):
    x = block.ln_1(x + block.attn(x))
    return block.ln_2(x + block.mlp(x))


def perro_post(ex):
    x1 = layer_norm(ex.x + ex.attention_output, ex.gamma1, ex.beta1)
    return layer_norm(x1 + ex.ffn(x1), ex.gamma2, ex.beta2)


def perro_pre(ex):
    h = ex.x + ex.attention_output
    return h + ex.ffn(layer_norm(h, ex.gamma2, ex.beta2))


def layernorm_count(n_blocks, order):
    return 2 * n_blocks + (1 if order == "pre" else 0)


def pre_ln_stack(x, blocks, eps):
    h = np.asarray(x, dtype=float)
    for attention, ffn in blocks:
        h = h + attention(layer_norm(h, eps=eps))
        h = h + ffn(layer_norm(h, eps=eps))
    return layer_norm(h, eps=eps)


SOLUTIONS = [
    (part2.check_rms_norm, rms_norm),
    (part2.check_layer_norm_fixed, layer_norm_fixed),
    (part2.check_post_ln, post_ln),
    (part2.check_pre_ln_forward, pre_ln_forward),
    (part2.check_perro_post_ln, perro_post),
    (part2.check_perro_pre_ln, perro_pre),
    (part2.check_pre_ln_stream_std, lambda n: math.sqrt(1 + n)),
    (part2.check_residual_stream_std, lambda n: math.sqrt(2) ** n),
    (part2.check_layernorm_count, layernorm_count),
    (part2.check_pre_ln_stack, pre_ln_stack),
]
IDS = [check.__name__ for check, _ in SOLUTIONS]


def test_every_checker_has_a_solution_here():
    assert sorted(IDS) == sorted(part2.__all__)


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_the_solution_passes(check, solution):
    fb = check(solution)
    assert fb.passed, str(fb)
    assert "✅" in fb._repr_html_()


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_a_stub_fails_kindly_in_spanish(check, solution):
    fb = check(stub)
    assert not fb.passed
    assert "Aún no has escrito la función" in str(fb)
    assert "❌" in fb._repr_html_()


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_a_function_returning_none_is_told_to_return(check, solution):
    fb = check(lambda *args: None)
    assert not fb.passed and "return" in str(fb)


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_a_non_function_is_reported(check, solution):
    fb = check(42)
    assert not fb.passed and "Se esperaba una función" in str(fb)


def test_every_part2_checker_is_exported_from_resnorm_exercises():
    for name in part2.__all__:
        assert getattr(exercises, name) is getattr(part2, name)
        assert name in exercises.__all__


def test_importing_the_checkers_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, resnorm.exercises; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


# --- Capítulo 6 ----------------------------------------------------------------------


def test_rms_norm_that_subtracts_the_mean_is_called_layer_norm():
    def centred(x, eps):
        x = np.asarray(x, dtype=float)
        c = x - x.mean(axis=-1, keepdims=True)
        return c / np.sqrt(np.mean(c**2, axis=-1, keepdims=True) + eps)

    fb = part2.check_rms_norm(centred)
    assert not fb.passed and "Estás restando la media" in fb.hint


def test_rms_norm_with_eps_outside_the_root_is_caught_on_the_tiny_vector():
    def outside(x, eps):
        x = np.asarray(x, dtype=float)
        return x / (np.sqrt(np.mean(x**2, axis=-1, keepdims=True)) + eps)

    fb = part2.check_rms_norm(outside)
    assert not fb.passed and "ε va dentro de la raíz" in fb.hint


def test_rms_norm_over_the_whole_batch_is_caught():
    def whole(x, eps):
        x = np.asarray(x, dtype=float)
        return x / np.sqrt(np.mean(x**2) + eps)

    fb = part2.check_rms_norm(whole)
    assert not fb.passed and "por fila" in fb.hint


def test_the_annotated_transformer_layer_norm_fails_with_both_bugs_named():
    fb = part2.check_layer_norm_fixed(annotated_layer_norm)
    assert not fb.passed
    assert "muestral" in fb.hint and "fuera de la raíz" in fb.hint


def test_fixing_only_the_eps_still_flags_the_sample_variance():
    import torch

    def sample(x, eps):
        var = x.var(-1, keepdim=True)
        return (x - x.mean(-1, keepdim=True)) / torch.sqrt(var + eps)

    fb = part2.check_layer_norm_fixed(sample)
    assert not fb.passed and "correction=0" in fb.hint


def test_fixing_only_the_variance_still_flags_eps_outside():
    def outside(x, eps):
        std = x.std(-1, keepdim=True, correction=0)
        return (x - x.mean(-1, keepdim=True)) / (std + eps)

    fb = part2.check_layer_norm_fixed(outside)
    assert not fb.passed and "ε sigue fuera de la raíz" in fb.hint


# --- Capítulo 7 ----------------------------------------------------------------------


def test_post_ln_written_as_pre_ln_is_told_the_order():
    from resnorm import pre_ln

    fb = part2.check_post_ln(lambda x, f: pre_ln(np.asarray(x, dtype=float), f))
    assert not fb.passed and "Eso es Pre-LN" in fb.hint


def test_pre_ln_forward_written_as_post_ln_is_told_the_order():
    fb = part2.check_pre_ln_forward(post_ln_forward)
    assert not fb.passed and "orden Post-LN" in fb.hint


def test_pre_ln_forward_with_a_normalised_shortcut_is_caught():
    def normalised(block, x):
        h = block.ln_1(x)
        x = h + block.attn(h)
        h = block.ln_2(x)
        return h + block.mlp(h)

    fb = part2.check_pre_ln_forward(normalised)
    assert not fb.passed and "sin normalizar" in fb.hint


def test_pre_ln_forward_does_not_touch_the_global_random_state():
    import torch

    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    part2.check_pre_ln_forward(pre_ln_forward)
    assert torch.equal(torch.rand(1), before)


# --- Capítulo 8 ----------------------------------------------------------------------


def test_perro_post_ln_matches_the_last_step_of_the_trace():
    from resnorm.trace import block_trace, perro_example

    expected = block_trace(order="post")[-1]["vector"]
    np.testing.assert_allclose(perro_post(perro_example()), expected, rtol=1e-12)


def test_perro_pre_ln_matches_the_last_step_of_the_trace():
    from resnorm.trace import block_trace, perro_example

    expected = block_trace(order="pre")[-1]["vector"]
    np.testing.assert_allclose(perro_pre(perro_example()), expected, rtol=1e-12)


def test_perro_pre_ln_with_a_final_layer_norm_is_called_post_ln():
    fb = part2.check_perro_pre_ln(
        lambda ex: layer_norm(perro_pre(ex), ex.gamma2, ex.beta2)
    )
    assert not fb.passed and "Post-LN" in fb.hint


def test_perro_post_ln_without_gamma_and_beta_is_caught():
    def plain(ex):
        x1 = layer_norm(ex.x + ex.attention_output)
        return layer_norm(x1 + ex.ffn(x1))

    fb = part2.check_perro_post_ln(plain)
    assert not fb.passed and "γ y β" in fb.hint


# --- Capítulo 9 ----------------------------------------------------------------------


def test_pre_ln_std_without_the_input_variance_is_caught():
    fb = part2.check_pre_ln_stream_std(lambda n: math.sqrt(n))
    assert not fb.passed and "Te falta la entrada" in fb.hint


def test_residual_std_given_as_variance_is_caught():
    fb = part2.check_residual_stream_std(lambda n: 2.0**n)
    assert not fb.passed and "Eso es la varianza" in fb.hint


def test_pre_ln_prediction_matches_the_experiment_within_ten_percent():
    from resnorm.experiments import activation_std_per_layer

    data = activation_std_per_layer(n_layers=24, width=256, batch_size=64, seed=0)
    for layer in (1, 4, 24):
        measured = data["curves"]["pre_ln"][layer]
        assert measured == pytest.approx(math.sqrt(1 + layer), rel=0.1)


# --- Capítulo 10 ---------------------------------------------------------------------


def test_layernorm_count_without_ln_f_is_caught():
    fb = part2.check_layernorm_count(lambda n, order: 2 * n)
    assert not fb.passed and "ln_f" in fb.hint


def test_pre_ln_stack_without_final_layer_norm_is_caught():
    def no_final(x, blocks, eps):
        h = np.asarray(x, dtype=float)
        for attention, ffn in blocks:
            h = h + attention(layer_norm(h, eps=eps))
            h = h + ffn(layer_norm(h, eps=eps))
        return h

    fb = part2.check_pre_ln_stack(no_final)
    assert not fb.passed and "Falta la LayerNorm final" in fb.hint


def test_pre_ln_stack_reference_matches_stack_trace_shape_of_computation():
    # La referencia del comprobador es la misma receta que resnorm.trace.stack_trace.
    from resnorm.trace import stack_trace

    out = stack_trace(n_blocks=0, order="pre")
    np.testing.assert_allclose(
        out[-1]["vector"], pre_ln_stack([0.50, 1.15, 0.78, 0.88], [], 1e-5), rtol=1e-12
    )
