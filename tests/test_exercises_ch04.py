"""Capítulo 4: los comprobadores de LayerNorm de un vector y de un lote."""

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


SOLUTIONS = [
    (ch04.check_layer_norm, layer_norm),
    (ch04.check_layer_norm_batch, layer_norm),
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
]
