"""Capítulo 8: los comprobadores del vector «perro» por Post-LN y Pre-LN."""

from __future__ import annotations

import numpy as np

from resnorm import layer_norm
from resnorm.exercises import ch08


def perro_post(ex):
    x1 = layer_norm(ex.x + ex.attention_output, ex.gamma1, ex.beta1)
    return layer_norm(x1 + ex.ffn(x1), ex.gamma2, ex.beta2)


def perro_pre(ex):
    h = ex.x + ex.attention_output
    return h + ex.ffn(layer_norm(h, ex.gamma2, ex.beta2))


SOLUTIONS = [
    (ch08.check_perro_post_ln, perro_post),
    (ch08.check_perro_pre_ln, perro_pre),
]


def test_perro_post_ln_matches_the_last_step_of_the_trace():
    from resnorm.trace import block_trace, perro_example

    expected = block_trace(order="post")[-1]["vector"]
    np.testing.assert_allclose(perro_post(perro_example()), expected, rtol=1e-12)


def test_perro_pre_ln_matches_the_last_step_of_the_trace():
    from resnorm.trace import block_trace, perro_example

    expected = block_trace(order="pre")[-1]["vector"]
    np.testing.assert_allclose(perro_pre(perro_example()), expected, rtol=1e-12)


def test_perro_pre_ln_with_a_final_layer_norm_is_called_post_ln():
    fb = ch08.check_perro_pre_ln(
        lambda ex: layer_norm(perro_pre(ex), ex.gamma2, ex.beta2)
    )
    assert not fb.passed and "Post-LN" in fb.hint


def test_perro_post_ln_without_gamma_and_beta_is_caught():
    def plain(ex):
        x1 = layer_norm(ex.x + ex.attention_output)
        return layer_norm(x1 + ex.ffn(x1))

    fb = ch08.check_perro_post_ln(plain)
    assert not fb.passed and "γ y β" in fb.hint


def _perro_post_torch(ex):
    import torch
    import torch.nn.functional as F

    def ln(v, g, b):
        t = torch.as_tensor(np.asarray(v, dtype=float)).requires_grad_()
        return F.layer_norm(t, (4,), torch.tensor(g), torch.tensor(b))

    x1 = ln(ex.x + ex.attention_output, ex.gamma1, ex.beta1)
    x1 = x1.detach().numpy()
    return ln(x1 + ex.ffn(x1), ex.gamma2, ex.beta2)


def _perro_pre_list(ex):
    h = [a + b for a, b in zip(ex.x, ex.attention_output)]
    return list(np.asarray(h) + ex.ffn(layer_norm(h, ex.gamma2, ex.beta2)))


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch08.check_perro_post_ln, _perro_post_torch, "torch con gradiente"),
    (ch08.check_perro_pre_ln, _perro_pre_list, "lista"),
]


def _ln_float32(v, gamma, beta):
    import torch
    import torch.nn.functional as F

    def f32(a):
        return torch.tensor(np.asarray(a), dtype=torch.float32)

    return F.layer_norm(f32(v), (4,), f32(gamma), f32(beta))


def _perro_post_float32(ex):
    x1 = _ln_float32(ex.x + ex.attention_output, ex.gamma1, ex.beta1).numpy()
    return _ln_float32(x1 + ex.ffn(x1), ex.gamma2, ex.beta2)


def _perro_pre_float32(ex):
    h = (ex.x + ex.attention_output).astype(np.float32)
    normalised = _ln_float32(h, ex.gamma2, ex.beta2).numpy()
    return h + ex.ffn(normalised).astype(np.float32)


#: Respuestas correctas en float32: también pasan.
FLOAT32 = [
    (ch08.check_perro_post_ln, _perro_post_float32, "F.layer_norm float32"),
    (ch08.check_perro_pre_ln, _perro_pre_float32, "float32"),
]
