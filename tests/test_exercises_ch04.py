"""Capítulo 4: los comprobadores de LayerNorm de un vector, de un lote y de un tensor
(B, T, C): el eje del fallo y la línea que convierte BatchNorm en LayerNorm."""

from __future__ import annotations

import math

import numpy as np

from resnorm.exercises import ch04
from tests.test_exercises_ch03 import _sample_var, mean


def layer_norm(x, eps=1e-5):
    x = np.asarray(x, dtype=float)
    c = x - x.mean(axis=-1, keepdims=True)
    return c / np.sqrt((c**2).mean(axis=-1, keepdims=True) + eps)


def _ln_eps_outside(x, eps=1e-5):
    x = np.asarray(x, dtype=float)
    c = x - x.mean(axis=-1, keepdims=True)
    return c / (np.sqrt((c**2).mean(axis=-1, keepdims=True)) + eps)


def _ln_sample(x, eps=1e-5):
    return np.asarray(
        [(v - mean(x)) / math.sqrt(_sample_var(x) + eps) for v in x]
    )


def _ln_no_eps(x, eps=1e-5):
    x = np.asarray(x, dtype=float)
    return (x - x.mean()) / x.std()


def _ln_by_column(X, eps=1e-5):
    X = np.asarray(X, dtype=float)
    return (X - X.mean(axis=0)) / np.sqrt(X.var(axis=0) + eps)


def _ln_whole_batch(X, eps=1e-5):
    X = np.asarray(X, dtype=float)
    return (X - X.mean()) / np.sqrt(X.var() + eps)


def _over(axis):
    def norm(x, eps=1e-5):
        x = np.asarray(x, dtype=float)
        mu = x.mean(axis=axis, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=axis, keepdims=True)
        return (x - mu) / np.sqrt(var + eps)

    return norm


def layer_norm_con_fallo(x, eps=1e-5):
    """La del ejercicio 4.3, tal cual: escrita para (n, d), falla con (B, T, C)."""
    return _over(1)(x, eps)


def batch_norm(x, eps=1e-5):
    """La del ejercicio 4.4, tal cual: μ y σ² por componente, sobre B y T."""
    return _over((0, 1))(x, eps)


SOLUTIONS = [
    (ch04.check_layer_norm, layer_norm),
    (ch04.check_layer_norm_batch, layer_norm),
    (ch04.check_layer_norm_axis, _over(-1)),
    (ch04.check_batch_to_layer_norm, _over(-1)),
]

MISTAKES = [
    (ch04.check_layer_norm, _ln_eps_outside, "fuera de la raíz"),
    (ch04.check_layer_norm, _ln_sample, "d − 1"),
    (ch04.check_layer_norm, _ln_no_eps, "No usas ε"),
    (ch04.check_layer_norm, lambda x, eps=1e-5: layer_norm(x, 1e-5), "argumento eps"),
    (ch04.check_layer_norm,
     lambda x, eps=1e-5: np.asarray(x) - np.mean(x), "falta el paso 2"),
    (ch04.check_layer_norm_batch, _ln_by_column, "BatchNorm"),
    (ch04.check_layer_norm_batch, _ln_whole_batch, "cada vector por separado"),
    (ch04.check_layer_norm_axis, layer_norm_con_fallo, "a lo largo de T (axis=1)"),
    (ch04.check_layer_norm_axis, _over(0), "a lo largo de B (axis=0)"),
    (ch04.check_layer_norm_axis, _over((0, 1)), "como BatchNorm"),
    (ch04.check_layer_norm_axis, _over(None), "el tensor entero"),
    (ch04.check_layer_norm_axis, _over(2), "cuéntalo desde el final"),
    (ch04.check_batch_to_layer_norm, batch_norm, "Sigue siendo BatchNorm"),
    (ch04.check_batch_to_layer_norm, _over(1), "a lo largo de T (axis=1)"),
    (ch04.check_batch_to_layer_norm, _over((1, 2)), "la frase entera"),
    (ch04.check_batch_to_layer_norm,
     lambda x, eps=1e-5: _over(-1)(x, 1e-5), "argumento eps"),
]


def test_every_wrong_axis_gives_another_result_on_every_btc_case():
    """Los casos (B, T, C) distinguen el eje bueno de cada uno de los malos."""
    inputs = [x for _, x in ch04._btc_inputs()]
    assert all(x.ndim == 3 for x in inputs)
    for axis in [0, 1, (0, 1), (1, 2), None]:
        for x in inputs:
            assert np.abs(_over(axis)(x) - layer_norm(x)).max() > 0.1, (axis, x.shape)


def test_the_buggy_layer_norm_works_on_rows_and_fails_on_btc():
    rows = np.random.default_rng(0).normal(size=(3, 4))
    assert np.allclose(layer_norm_con_fallo(rows), layer_norm(rows))
    fb = ch04.check_layer_norm_axis(layer_norm_con_fallo)
    assert fb.lines[0].startswith("✓") and all(
        line.startswith("✗") for line in fb.lines[1:]
    )
    assert "Cada token no queda con media 0" in fb.hint
    # el síntoma en cada tensor (B, T, C), no el volcado del tensor entero
    assert all("la media de un token llega a" in line for line in fb.lines[1:])
    assert all("obtuve" not in line for line in fb.lines)


def test_batch_norm_of_the_exercise_is_torch_batch_norm_in_training_mode():
    import torch
    from torch.nn import functional as F

    x = np.random.default_rng(1).normal(size=(2, 3, 4))
    flat = torch.tensor(x.reshape(-1, 4))
    expected = F.batch_norm(flat, None, None, training=True, eps=1e-5)
    assert np.allclose(batch_norm(x), expected.numpy().reshape(x.shape))


def test_the_checker_compares_with_torch_layer_norm():
    import torch
    from torch.nn import functional as F

    def torch_ln(x, eps):
        t = torch.tensor(x)
        return F.layer_norm(t, t.shape[-1:], eps=eps)

    assert ch04.check_batch_to_layer_norm(torch_ln).passed


def test_an_output_that_loses_the_reduced_axis_is_told_its_shape():
    def squeezed(x, eps=1e-5):
        x = np.asarray(x, dtype=float)
        return (x - x.mean(axis=-1, keepdims=True)).mean(axis=-1)

    fb = ch04.check_layer_norm_axis(squeezed)
    assert not fb.passed and "forma" in fb.hint


def _ln_torch(x, eps=1e-5):
    import torch
    import torch.nn.functional as F

    t = torch.tensor(np.asarray(x, dtype=float), requires_grad=True)
    return F.layer_norm(t, t.shape[-1:], eps=eps)


def _ln_keepdim(x, eps=1e-5):
    x = np.asarray(x, dtype=float)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps)


def _ln_loop(x, eps=1e-5):
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    for i in np.ndindex(x.shape[:-1]):
        v = x[i]
        out[i] = (v - v.mean()) / np.sqrt(v.var() + eps)
    return out


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch04.check_layer_norm, _ln_torch, "torch con gradiente"),
    (ch04.check_layer_norm, _ln_loop, "bucle"),
    (ch04.check_layer_norm_batch, _ln_keepdim, "keepdims"),
    (ch04.check_layer_norm_batch, _ln_torch, "torch con gradiente"),
    (ch04.check_layer_norm_axis, _ln_loop, "bucle por token"),
    (ch04.check_layer_norm_axis, _ln_torch, "torch con gradiente"),
    (ch04.check_batch_to_layer_norm, _ln_keepdim, "keepdims"),
]


def _ln_float32(x, eps=1e-5):
    """Como la §4.6: F.layer_norm sobre un tensor float32."""
    import torch
    import torch.nn.functional as F

    t = torch.tensor(x, dtype=torch.float32)
    return F.layer_norm(t, t.shape[-1:], eps=eps)


def _ln_module_float32(x, eps=1e-5):
    """Como la §4.6: torch.nn.LayerNorm, con sus γ y β en float32."""
    import torch

    layer = torch.nn.LayerNorm(np.shape(x)[-1], eps=eps)
    return layer(torch.tensor(x, dtype=torch.float32))  # aún pide gradiente


#: Respuestas correctas en float32, escritas como las escribe el capítulo: también
#: pasan (issue 49: «obtuve −0.265576 y se esperaba −0.265576»).
FLOAT32 = [
    (ch04.check_layer_norm, _ln_float32, "F.layer_norm float32"),
    (ch04.check_layer_norm, _ln_module_float32, "nn.LayerNorm"),
    (ch04.check_layer_norm_batch, _ln_float32, "F.layer_norm float32"),
    (ch04.check_layer_norm_batch, _ln_module_float32, "nn.LayerNorm"),
    (ch04.check_layer_norm_axis, _ln_float32, "F.layer_norm float32"),
    (ch04.check_batch_to_layer_norm, _ln_float32, "F.layer_norm float32"),
]


def test_a_typical_mistake_written_in_float32_still_gets_its_hint():
    def eps_outside_float32(x, eps=1e-5):
        x = np.asarray(x, dtype=np.float32)
        c = x - x.mean(axis=-1, keepdims=True)
        return c / (np.sqrt((c**2).mean(axis=-1, keepdims=True)) + np.float32(eps))

    fb = ch04.check_layer_norm(eps_outside_float32)
    assert not fb.passed and "fuera de la raíz" in fb.hint, str(fb)
