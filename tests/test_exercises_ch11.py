"""Capítulo 11: los comprobadores del recuento de LayerNorm y la pila Pre-LN."""

from __future__ import annotations

import numpy as np

from resnorm import layer_norm
from resnorm.examples import PERRO_X
from resnorm.exercises import ch11


def layernorm_count(n_blocks, order):
    return 2 * n_blocks + (1 if order == "pre" else 0)


def pre_ln_stack(x, blocks, eps):
    h = np.asarray(x, dtype=float)
    for attention, ffn in blocks:
        h = h + attention(layer_norm(h, eps=eps))
        h = h + ffn(layer_norm(h, eps=eps))
    return layer_norm(h, eps=eps)


SOLUTIONS = [
    (ch11.check_layernorm_count, layernorm_count),
    (ch11.check_pre_ln_stack, pre_ln_stack),
]


def test_layernorm_count_without_ln_f_is_caught():
    fb = ch11.check_layernorm_count(lambda n, order: 2 * n)
    assert not fb.passed and "ln_f" in fb.hint


def test_pre_ln_stack_without_final_layer_norm_is_caught():
    def no_final(x, blocks, eps):
        h = np.asarray(x, dtype=float)
        for attention, ffn in blocks:
            h = h + attention(layer_norm(h, eps=eps))
            h = h + ffn(layer_norm(h, eps=eps))
        return h

    fb = ch11.check_pre_ln_stack(no_final)
    assert not fb.passed and "Falta la LayerNorm final" in fb.hint


def test_pre_ln_stack_reference_matches_stack_trace_shape_of_computation():
    # La referencia del comprobador es la misma receta que resnorm.trace.stack_trace.
    from resnorm.trace import stack_trace

    out = stack_trace(n_blocks=0, order="pre")
    np.testing.assert_allclose(
        out[-1]["vector"], pre_ln_stack(list(PERRO_X), [], 1e-5), rtol=1e-12
    )


def _count_dict(n_blocks, order):
    return {"pre": 2 * n_blocks + 1, "post": 2 * n_blocks}[order]


def _pre_ln_stack_sublayers(x, blocks, eps):
    h = np.asarray(x, dtype=float)
    for block in blocks:
        for sublayer in block:
            h = h + sublayer(layer_norm(h, eps=eps))
    return layer_norm(h, eps=eps)


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch11.check_layernorm_count, _count_dict, "diccionario"),
    (ch11.check_pre_ln_stack, _pre_ln_stack_sublayers, "bucle por subcapa"),
]


def _count_float32(n_blocks, order):
    import torch

    return torch.tensor(layernorm_count(n_blocks, order), dtype=torch.float32)


def _pre_ln_stack_float32(x, blocks, eps):
    import torch
    import torch.nn.functional as F

    def ln(t):
        return F.layer_norm(t, t.shape[-1:], eps=eps)

    def float32(a):
        return torch.tensor(np.asarray(a), dtype=torch.float32)

    h = float32(x)
    for attention, ffn in blocks:
        h = h + float32(attention(ln(h).numpy()))
        h = h + float32(ffn(ln(h).numpy()))
    return ln(h)


#: Respuestas correctas en float32: también pasan.
FLOAT32 = [
    (ch11.check_layernorm_count, _count_float32, "tensor float32"),
    (ch11.check_pre_ln_stack, _pre_ln_stack_float32, "F.layer_norm float32"),
]
