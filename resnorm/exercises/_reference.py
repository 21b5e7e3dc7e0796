"""Las cuentas de referencia que comparten los comprobadores de varios capítulos.

Son las soluciones más directas, escritas aparte de ``resnorm.numerics`` a propósito:
un comprobador compara la función del estudiante con una receta que se lee de un
vistazo.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from resnorm.numerics import EPS


def arr(values) -> np.ndarray:
    """``values`` como array de float64 (una copia; un tensor de torch, sin su
    gradiente)."""
    from resnorm.exercises._feedback import to_numpy

    return np.array(to_numpy(values), dtype=float)


def pop_var(x) -> float:
    """σ² = (1/d) Σ (xᵢ − μ)², con Python puro (Capítulos 3 y 5)."""
    m = sum(x) / len(x)
    return sum((v - m) ** 2 for v in x) / len(x)


def ln(x, eps=EPS) -> np.ndarray:
    """(x − μ)/√(σ² + ε) sobre el último eje, sin γ ni β (Capítulos 4 y 5)."""
    x = arr(x)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps)


def linear(seed: int, d: int) -> Callable:
    """Subcapa lineal con semilla fija, h ↦ W h, W ~ N(0, 1/d) (Capítulos 7 y 10)."""
    w = np.random.default_rng(seed).normal(0.0, 1.0 / math.sqrt(d), (d, d))

    def sublayer(h):
        return np.asarray(h, dtype=float) @ w.T

    return sublayer
