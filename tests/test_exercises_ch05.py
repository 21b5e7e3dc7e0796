"""Capítulo 5: los comprobadores de γ y β, y de deshacer la normalización."""

from __future__ import annotations

import numpy as np

from resnorm.exercises import ch05
from tests.test_exercises_ch04 import layer_norm


def layer_norm_affine(x, gamma, beta, eps=1e-5):
    return np.asarray(gamma) * layer_norm(x, eps) + np.asarray(beta)


def undo(x, eps=1e-5):
    mu = np.mean(x)
    return np.full(len(x), np.sqrt(np.var(x) + eps)), np.full(len(x), mu)


def _undo_sample(x, eps=1e-5):
    return np.std(x, ddof=1), np.mean(x)


SOLUTIONS = [
    (ch05.check_layer_norm_affine, layer_norm_affine),
    (ch05.check_undo_normalization, undo),
]

MISTAKES = [
    (ch05.check_layer_norm_affine,
     lambda x, g, b, eps=1e-5: np.asarray(b) * layer_norm(x, eps) + np.asarray(g),
     "intercambiado"),
    (ch05.check_layer_norm_affine,
     lambda x, g, b, eps=1e-5: layer_norm(np.asarray(g) * x + np.asarray(b), eps),
     "antes de normalizar"),
    (ch05.check_layer_norm_affine,
     lambda x, g, b, eps=1e-5: np.asarray(g) * layer_norm(x, eps), "sumar β"),
    (ch05.check_undo_normalization,
     lambda x, eps=1e-5: (np.mean(x), np.std(x)), "intercambiado"),
    (ch05.check_undo_normalization, _undo_sample, "muestral"),
]


def _affine_nn_layer_norm(x, gamma, beta, eps=1e-5):
    """Con ``nn.LayerNorm``: su salida aún pide gradiente (el caso del issue 30)."""
    import torch

    layer = torch.nn.LayerNorm(len(x), eps=eps).double()
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(gamma))
        layer.bias.copy_(torch.tensor(beta))
    return layer(torch.tensor(x, dtype=torch.float64))


def _undo_torch(x, eps=1e-5):
    import torch

    t = torch.tensor(x, requires_grad=True)
    gamma = torch.sqrt(t.var(correction=0) + eps) * torch.ones_like(t)
    return gamma, t.mean() * torch.ones_like(t)


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch05.check_layer_norm_affine, _affine_nn_layer_norm, "nn.LayerNorm con gradiente"),
    (ch05.check_layer_norm_affine,
     lambda x, g, b, eps=1e-5: [gi * v + bi
                                for gi, v, bi in zip(g, layer_norm(x, eps), b)],
     "lista"),
    (ch05.check_undo_normalization, _undo_torch, "torch con gradiente"),
    (ch05.check_undo_normalization,
     lambda x, eps=1e-5: (float(np.sqrt(np.var(x) + eps)), float(np.mean(x))),
     "escalares"),
]


def _affine_nn_layer_norm_float32(x, gamma, beta, eps=1e-5):
    """Como la §5.2: nn.LayerNorm, con γ y β copiados y un tensor float32."""
    import torch

    layer = torch.nn.LayerNorm(len(x), eps=eps)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(gamma))
        layer.bias.copy_(torch.tensor(beta))
        return layer(torch.tensor(x, dtype=torch.float32))


def _undo_float32(x, eps=1e-5):
    import torch

    t = torch.tensor(x, dtype=torch.float32)
    return torch.sqrt(t.var(correction=0) + eps), t.mean()


#: Respuestas correctas en float32, escritas como las escribe el capítulo: también
#: pasan.
FLOAT32 = [
    (ch05.check_layer_norm_affine, _affine_nn_layer_norm_float32, "nn.LayerNorm"),
    (ch05.check_undo_normalization, _undo_float32, "torch float32"),
]
