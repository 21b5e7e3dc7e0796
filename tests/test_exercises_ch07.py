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
