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
