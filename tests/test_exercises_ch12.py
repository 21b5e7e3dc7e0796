"""Apéndice «¿Cuánto cuesta normalizar?»: las soluciones pasan sus comprobadores.

Los errores típicos de estos dos ejercicios se prueban en ``tests/test_cost.py``.
"""

from __future__ import annotations

import math

import numpy as np

from resnorm.exercises import ch12


def gb_per_second(shape, seconds, itemsize=4):
    return 2 * math.prod(shape) * itemsize / seconds / 1e9


def rms_norm_three_sweeps(x, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)


SOLUTIONS = [
    (ch12.check_effective_gbps, gb_per_second),
    (ch12.check_rms_norm_sweeps, rms_norm_three_sweeps),
]


def _gb_loop(shape, seconds, itemsize=4):
    n = 1
    for size in shape:
        n *= size
    return 2 * n * itemsize / seconds / 1e9


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch12.check_effective_gbps, _gb_loop, "bucle"),
    (ch12.check_effective_gbps,
     lambda shape, seconds, itemsize=4: 2 * np.prod(shape) * itemsize / seconds * 1e-9,
     "np.prod"),
    (ch12.check_rms_norm_sweeps,
     lambda x, eps: x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps), "x**2"),
]
