"""Capítulo 7: los comprobadores de Post-LN y el «forward» de un bloque Pre-LN."""

from __future__ import annotations

import numpy as np

from resnorm import layer_norm
from resnorm.exercises import ch07


def post_ln(x, sublayer):
    x = np.asarray(x, dtype=float)
    return layer_norm(x + sublayer(x))


def pre_ln_forward(block, x):
    x = x + block.attn(block.ln_1(x))
    return x + block.mlp(block.ln_2(x))


def post_ln_forward(block, x):
    x = block.ln_1(x + block.attn(x))
    return block.ln_2(x + block.mlp(x))


SOLUTIONS = [
    (ch07.check_post_ln, post_ln),
    (ch07.check_pre_ln_forward, pre_ln_forward),
]


def _ln_1_twice(block, x):
    x = x + block.attn(block.ln_1(x))
    return x + block.mlp(block.ln_1(x))


def _no_shortcut(block, x):
    return block.mlp(block.ln_2(block.attn(block.ln_1(x))))


MISTAKES = [
    (ch07.check_pre_ln_forward, _ln_1_twice, "su propia LayerNorm"),
    (ch07.check_pre_ln_forward, post_ln_forward, "orden Post-LN"),
    (ch07.check_pre_ln_forward, _no_shortcut, "Falta el atajo"),
    (ch07.check_post_ln, lambda x, f: layer_norm(f(np.asarray(x, dtype=float))),
     "Falta el atajo"),
]


def test_the_test_blocks_have_two_different_layer_norms():
    """Con ln_1 y ln_2 iguales (γ = 1, β = 0 los dos), usar ln_1 dos veces daría lo
    mismo que la solución y pasaría por correcto."""
    import torch

    block, _ = ch07._tiny_blocks(0)
    assert not torch.allclose(block.ln_1.weight, block.ln_2.weight)
    assert not torch.allclose(block.ln_1.bias, block.ln_2.bias)


def test_post_ln_written_as_pre_ln_is_told_the_order():
    from resnorm import pre_ln

    fb = ch07.check_post_ln(lambda x, f: pre_ln(np.asarray(x, dtype=float), f))
    assert not fb.passed and "Eso es Pre-LN" in fb.hint


def test_pre_ln_forward_written_as_post_ln_is_told_the_order():
    fb = ch07.check_pre_ln_forward(post_ln_forward)
    assert not fb.passed and "orden Post-LN" in fb.hint


def test_pre_ln_forward_with_a_normalised_shortcut_is_caught():
    def normalised(block, x):
        h = block.ln_1(x)
        x = h + block.attn(h)
        h = block.ln_2(x)
        return h + block.mlp(h)

    fb = ch07.check_pre_ln_forward(normalised)
    assert not fb.passed and "sin normalizar" in fb.hint


def test_pre_ln_forward_does_not_touch_the_global_random_state():
    import torch

    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    ch07.check_pre_ln_forward(pre_ln_forward)
    assert torch.equal(torch.rand(1), before)


def _post_ln_keepdims(x, sublayer):
    h = np.asarray(x, dtype=float)
    h = h + sublayer(h)
    mu = h.mean(axis=-1, keepdims=True)
    return (h - mu) / np.sqrt(h.var(axis=-1, keepdims=True) + 1e-5)


def _pre_ln_forward_named(block, x):
    a = block.attn(block.ln_1(x))
    h = x + a
    f = block.mlp(block.ln_2(h))
    return h + f


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch07.check_post_ln, _post_ln_keepdims, "keepdims"),
    (ch07.check_pre_ln_forward, _pre_ln_forward_named, "con nombres"),
]


def _post_ln_float32(x, sublayer):
    import torch
    import torch.nn.functional as F

    h = np.asarray(x, dtype=np.float32)
    t = torch.tensor(h + sublayer(h), dtype=torch.float32)
    return F.layer_norm(t, t.shape[-1:])


def _pre_ln_forward_float32(block, x):
    import copy

    block = copy.deepcopy(block).float()  # una copia: el bloque del caso no cambia
    return pre_ln_forward(block, x.float())


#: Respuestas correctas en float32: también pasan.
FLOAT32 = [
    (ch07.check_post_ln, _post_ln_float32, "F.layer_norm float32"),
    (ch07.check_pre_ln_forward, _pre_ln_forward_float32, "bloque en float32"),
]
