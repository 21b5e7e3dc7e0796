"""Comprobadores de los ejercicios del Capítulo 6: Variantes de la normalización.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from resnorm.examples import EVENS, TINY, VECTOR
from resnorm.exercises._feedback import Feedback, as_numpy, check_with_mistakes
from resnorm.numerics import rms_norm

__all__ = ["check_layer_norm_fixed", "check_rms_norm"]


def check_rms_norm(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, eps)`` = x / √(mean(x²) + ε) sobre el último eje.

    Capítulo 6: Variantes de la normalización (RMSNorm, Zhang y Sennrich 2019, sin
    γ). ``x`` es un array (..., d); la salida tiene su forma.
    """

    def reference(x, eps):
        return rms_norm(np.asarray(x, dtype=float), eps=eps)

    # Arrays de NumPy, como promete el enunciado: x.mean(...) y x**2 deben valer.
    inputs = [
        ("[2, 4] con ε = 10⁻⁶", (np.array([2.0, 4.0]), 1e-6)),
        ("[20, 40] con ε = 10⁻⁶", (np.array([20.0, 40.0]), 1e-6)),
        ("el vector del curso con ε = 10⁻⁶", (np.array(VECTOR), 1e-6)),
        ("[0.002, 0.004] con ε = 10⁻⁵ (aquí ε pesa)", (np.array(TINY), 1e-5)),
        (
            "un lote de dos filas [[2, 4], [1, 1]]",
            (np.array([[2.0, 4.0], [1.0, 1.0]]), 1e-6),
        ),
    ]
    cases = [(d, a, reference(*a)) for d, a in inputs]

    def centred(x, eps):
        x = np.asarray(x, dtype=float)
        c = x - x.mean(axis=-1, keepdims=True)
        return c / np.sqrt(np.mean(c**2, axis=-1, keepdims=True) + eps)

    def eps_outside(x, eps):
        x = np.asarray(x, dtype=float)
        return x / (np.sqrt(np.mean(x**2, axis=-1, keepdims=True)) + eps)

    def whole_array(x, eps):
        x = np.asarray(x, dtype=float)
        return x / np.sqrt(np.mean(x**2) + eps)

    mistakes = [
        (
            "Estás restando la media: eso es LayerNorm. RMSNorm solo reescala: "
            "divide x entre √(mean(x²) + ε), sin centrar.",
            centred,
        ),
        (
            "ε va dentro de la raíz: √(mean(x²) + ε), no √mean(x²) + ε "
            "(como en torch.nn.RMSNorm).",
            eps_outside,
        ),
        (
            "La media de x² se toma por fila (el último eje), no sobre todo el "
            "array: usa np.mean(x**2, axis=-1, keepdims=True).",
            whole_array,
        ),
    ]
    return check_with_mistakes(
        "RMSNorm",
        fn,
        cases,
        "RMS(x) = √(mean(x²) + ε) sobre el último eje; la salida es x / RMS(x).",
        mistakes,
    )


def check_layer_norm_fixed(fn: Callable) -> Feedback:
    """Comprueba la LayerNorm corregida ``fn(x, eps)`` con tensores de torch.

    Capítulo 6: Variantes de la normalización. Debe dar lo mismo que
    ``torch.nn.functional.layer_norm(x, (d,), eps=eps)``: varianza poblacional y ε
    dentro de la raíz. ``x`` es un tensor (..., d) de float64.
    """
    import torch
    from torch.nn import functional as F

    def tensor(values):
        return torch.tensor(values, dtype=torch.float64)

    inputs = [
        ("el vector del curso, ε = 10⁻⁵", (tensor(VECTOR), 1e-5)),
        ("[0.002, 0.004], ε = 10⁻⁵ (σ² < ε)", (tensor(TINY), 1e-5)),
        ("[2, 4], ε = 10⁻³ (el de Keras)", (tensor([2.0, 4.0]), 1e-3)),
        ("un lote (2, 4)", (tensor([VECTOR, EVENS]), 1e-5)),
    ]
    cases = [
        (d, a, F.layer_norm(a[0], a[0].shape[-1:], eps=a[1]).numpy()) for d, a in inputs
    ]

    def annotated(x, eps):  # la versión de The Annotated Transformer, tal cual
        return (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + eps)

    def sample_only(x, eps):
        var = x.var(-1, keepdim=True)  # muestral: correction=1 por defecto
        return (x - x.mean(-1, keepdim=True)) / torch.sqrt(var + eps)

    def outside_only(x, eps):
        std = x.std(-1, keepdim=True, correction=0)
        return (x - x.mean(-1, keepdim=True)) / (std + eps)

    mistakes = [
        (
            "Siguen los dos fallos del original: x.std() es la desviación muestral "
            "(divide entre d − 1) y ε está fuera de la raíz. Usa "
            "x.var(-1, keepdim=True, correction=0) y divide entre √(σ² + ε).",
            as_numpy(annotated),
        ),
        (
            "ε ya está dentro de la raíz, pero la varianza es la muestral: x.var() "
            "divide entre d − 1 por defecto. Pasa correction=0.",
            as_numpy(sample_only),
        ),
        (
            "La varianza ya es la poblacional, pero ε sigue fuera de la raíz: "
            "(x − μ)/(σ + ε). Escribe (x − μ)/√(σ² + ε).",
            as_numpy(outside_only),
        ),
    ]
    student = as_numpy(fn) if callable(fn) else fn
    return check_with_mistakes(
        "LayerNorm corregida",
        student,
        cases,
        "Dos arreglos: la varianza poblacional, que divide entre d (mira el "
        "argumento correction de x.var), y ε dentro de la raíz: (x − μ)/√(σ² + ε).",
        mistakes,
    )
