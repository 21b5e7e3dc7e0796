"""Apéndice «¿Cuánto cuesta normalizar?»: las soluciones pasan sus comprobadores.

Los errores típicos de estos dos ejercicios se prueban en ``tests/test_cost.py``; aquí,
el que solo distingue el caso en que ε pesa (``MISTAKES``).
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


def _gb_float32(shape, seconds, itemsize=4):
    return np.float32(2 * math.prod(shape) * itemsize) / np.float32(seconds) / 1e9


#: Respuestas correctas en float32. El primer caso de RMSNorm en tres pasadas ya es un
#: lote float32: con él, la solución devuelve float32 (y float64 con los demás).
FLOAT32 = [
    (ch12.check_effective_gbps, _gb_float32, "NumPy en float32"),
    (ch12.check_rms_norm_sweeps, rms_norm_three_sweeps, "el lote float32 del caso"),
]
#: La misma solución devuelve float64 con los lotes float64 de los demás casos.
FLOAT64 = [
    (ch12.check_rms_norm_sweeps, rms_norm_three_sweeps, "los lotes float64"),
]


def _rms_eps_outside(x, eps):
    return x / (np.sqrt(np.mean(x * x, axis=-1, keepdims=True)) + eps)


MISTAKES = [
    # El vector diminuto del capítulo 6 (mean(x²) = ε) distingue ε fuera de la raíz.
    (ch12.check_rms_norm_sweeps, _rms_eps_outside, "ε va dentro de la raíz"),
]


def test_rms_norm_with_torch_is_told_this_exercise_counts_numpy_passes():
    import torch
    import torch.nn.functional as F

    def with_torch(x, eps):
        t = torch.as_tensor(x)
        return F.rms_norm(t, t.shape[-1:], eps=eps)

    def with_torch_back_to_numpy(x, eps):
        return with_torch(np.asarray(x), eps).numpy()

    for answer in (with_torch, with_torch_back_to_numpy):
        fb = ch12.check_rms_norm_sweeps(answer)
        assert not fb.passed
        text = str(fb)
        assert "cuenta las pasadas de NumPy" in text and "torch" in text, text
        assert "np.asarray o recorres" not in text, text
