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
