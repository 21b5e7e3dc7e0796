"""Capítulo 6: los comprobadores de RMSNorm y de la LayerNorm corregida."""

from __future__ import annotations

import numpy as np

from resnorm.exercises import ch06


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


SOLUTIONS = [
    (ch06.check_rms_norm, rms_norm),
    (ch06.check_layer_norm_fixed, layer_norm_fixed),
]


def test_rms_norm_that_subtracts_the_mean_is_called_layer_norm():
    def centred(x, eps):
        x = np.asarray(x, dtype=float)
        c = x - x.mean(axis=-1, keepdims=True)
        return c / np.sqrt(np.mean(c**2, axis=-1, keepdims=True) + eps)

    fb = ch06.check_rms_norm(centred)
    assert not fb.passed and "Estás restando la media" in fb.hint


def test_rms_norm_with_eps_outside_the_root_is_caught_on_the_tiny_vector():
    def outside(x, eps):
        x = np.asarray(x, dtype=float)
        return x / (np.sqrt(np.mean(x**2, axis=-1, keepdims=True)) + eps)

    fb = ch06.check_rms_norm(outside)
    assert not fb.passed and "ε va dentro de la raíz" in fb.hint


def test_rms_norm_over_the_whole_batch_is_caught():
    def whole(x, eps):
        x = np.asarray(x, dtype=float)
        return x / np.sqrt(np.mean(x**2) + eps)

    fb = ch06.check_rms_norm(whole)
    assert not fb.passed and "por fila" in fb.hint


def test_the_annotated_transformer_layer_norm_fails_with_both_bugs_named():
    fb = ch06.check_layer_norm_fixed(annotated_layer_norm)
    assert not fb.passed
    assert "muestral" in fb.hint and "fuera de la raíz" in fb.hint


def test_fixing_only_the_eps_still_flags_the_sample_variance():
    import torch

    def sample(x, eps):
        var = x.var(-1, keepdim=True)
        return (x - x.mean(-1, keepdim=True)) / torch.sqrt(var + eps)

    fb = ch06.check_layer_norm_fixed(sample)
    assert not fb.passed and "correction=0" in fb.hint


def test_fixing_only_the_variance_still_flags_eps_outside():
    def outside(x, eps):
        std = x.std(-1, keepdim=True, correction=0)
        return (x - x.mean(-1, keepdim=True)) / (std + eps)

    fb = ch06.check_layer_norm_fixed(outside)
    assert not fb.passed and "ε sigue fuera de la raíz" in fb.hint


def _rms_torch(x, eps):
    import torch
    import torch.nn.functional as F

    t = torch.tensor(np.asarray(x, dtype=float), requires_grad=True)
    return F.rms_norm(t, t.shape[-1:], eps=eps)


def _layer_norm_fixed_torch(x, eps):
    import torch
    import torch.nn.functional as F

    t = torch.tensor(np.asarray(x, dtype=float), requires_grad=True)
    return F.layer_norm(t, t.shape[-1:], eps=eps)


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch06.check_rms_norm, _rms_torch, "torch con gradiente"),
    (ch06.check_layer_norm_fixed, _layer_norm_fixed_torch, "torch con gradiente"),
]


def _rms_float32(x, eps):
    import torch
    import torch.nn.functional as F

    t = torch.tensor(x, dtype=torch.float32)
    return F.rms_norm(t, t.shape[-1:], eps=eps)


def _layer_norm_fixed_float32(x, eps):
    return layer_norm_fixed(x.float(), eps)


#: Respuestas correctas en float32: también pasan.
FLOAT32 = [
    (ch06.check_rms_norm, _rms_float32, "F.rms_norm float32"),
    (ch06.check_layer_norm_fixed, _layer_norm_fixed_float32, "x.float()"),
]


def test_rms_norm_cases_are_numpy_arrays_as_the_statement_says():
    """El enunciado promete «un array de NumPy»: x.mean(...) y x**2 deben valer."""
    def with_array_methods(x, eps):
        return x / np.sqrt((x**2).mean(axis=-1, keepdims=True) + eps)

    seen = []

    def spy(x, eps):
        seen.append(type(x))
        return with_array_methods(x, eps)

    fb = ch06.check_rms_norm(spy)
    assert fb.passed, str(fb)
    assert seen and all(t is np.ndarray for t in seen), seen
