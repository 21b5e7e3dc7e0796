"""Comprobadores de los ejercicios del Capítulo 4: LayerNorm.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from resnorm.examples import EVENS, VECTOR
from resnorm.exercises._feedback import Case, Feedback, Mistake, check_with_mistakes
from resnorm.exercises._reference import arr, ln

__all__ = ["check_layer_norm", "check_layer_norm_batch"]


def _ln_cases() -> list[Case]:
    x = arr(VECTOR)
    tiny = arr([0.0, 0.001, 0.002, 0.003])
    return [
        ("el vector del curso, ε = 1e-5", (x, 1e-5), ln(x, 1e-5)),
        ("el vector del curso, ε = 1e-3 (el de Keras)", (x, 1e-3), ln(x, 1e-3)),
        ("[2, 4] y [20, 40] dan casi lo mismo: [2, 4]", (arr([2, 4]), 1e-5),
         ln([2, 4])),
        ("un vector diminuto, [0, 0.001, 0.002, 0.003]", (tiny, 1e-5), ln(tiny)),
        ("un vector constante, [3, 3, 3, 3] → ceros", (arr([3, 3, 3, 3]), 1e-5),
         np.zeros(4)),
    ]


def _ln_mistakes() -> list[Mistake]:
    def eps_outside(x, eps):
        x = arr(x)
        c = x - x.mean(-1, keepdims=True)
        return c / (np.sqrt((c**2).mean(-1, keepdims=True)) + eps)

    def no_eps(x, eps):
        return ln(x, 0.0)

    def sample(x, eps):
        x = arr(x)
        c = x - x.mean(-1, keepdims=True)
        d = x.shape[-1]
        return c / np.sqrt((c**2).sum(-1, keepdims=True) / (d - 1) + eps)

    def by_variance(x, eps):
        x = arr(x)
        c = x - x.mean(-1, keepdims=True)
        return c / ((c**2).mean(-1, keepdims=True) + eps)

    def not_centered(x, eps):
        x = arr(x)
        c = x - x.mean(-1, keepdims=True)
        return x / np.sqrt((c**2).mean(-1, keepdims=True) + eps)

    def only_centered(x, eps):
        x = arr(x)
        return x - x.mean(-1, keepdims=True)

    def fixed_eps(x, eps):
        return ln(x, 1e-5)

    return [
        (
            "Sumas ε fuera de la raíz, (x − μ)/(σ + ε). PyTorch y Keras lo ponen "
            "dentro: (x − μ)/√(σ² + ε). Con vectores de varianza pequeña se nota.",
            eps_outside,
        ),
        (
            "No usas ε: con un vector constante σ² = 0 y divides 0 entre 0 (NaN). "
            "Divide entre √(σ² + ε).",
            no_eps,
        ),
        (
            "Divides entre d − 1 al calcular la varianza (la muestral). LayerNorm usa "
            "la poblacional: el promedio de (xᵢ − μ)², dividiendo entre d.",
            sample,
        ),
        (
            "Divides entre la varianza, no entre su raíz: el denominador es "
            "√(σ² + ε).",
            by_variance,
        ),
        (
            "No restas la media antes de dividir: el numerador es x − μ.",
            not_centered,
        ),
        (
            "Solo restas la media: falta el paso 2, dividir entre √(σ² + ε).",
            only_centered,
        ),
        (
            "Usas siempre ε = 1e-5 aunque te pasen otro: usa el argumento eps.",
            fixed_eps,
        ),
    ]


def check_layer_norm(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, eps)`` = (x − μ)/√(σ² + ε) para vectores (d,), sin γ ni β.

    Capítulo 4: LayerNorm.
    """
    return check_with_mistakes(
        "LayerNorm de un vector",
        fn,
        _ln_cases(),
        "Paso 1: resta la media, c = x − μ. Paso 2: divide entre √(σ² + ε), con σ² "
        "el promedio de c².",
        _ln_mistakes(),
    )


def check_layer_norm_batch(fn: Callable) -> Feedback:
    """Comprueba ``fn(X, eps)``: LayerNorm de cada fila de un lote ``X`` (n, d).

    Capítulo 4: LayerNorm. Las estadísticas se calculan por fila (por ejemplo y por
    posición), sobre el último eje, nunca mezclando filas.
    """
    rng = np.random.default_rng(7)
    batch = np.stack([arr(VECTOR), arr(EVENS), arr([20, 40, 60, 80])])
    wide = rng.normal(2.0, 3.0, size=(5, 6))
    tokens = rng.normal(size=(2, 3, 4))  # (lote, posiciones, d)
    cases = [
        ("un lote de 3 vectores, forma (3, 4)", (batch, 1e-5), ln(batch)),
        ("un lote de 5 vectores de 6 valores, forma (5, 6)", (wide, 1e-5), ln(wide)),
        ("2 frases de 3 posiciones, forma (2, 3, 4)", (tokens, 1e-5), ln(tokens)),
    ]

    def by_column(X, eps):
        X = arr(X)
        mu = X.mean(axis=0, keepdims=True)
        var = ((X - mu) ** 2).mean(axis=0, keepdims=True)
        return (X - mu) / np.sqrt(var + eps)

    def whole(X, eps):
        X = arr(X)
        return (X - X.mean()) / np.sqrt(X.var() + eps)

    mistakes = [
        (
            "Normalizas cada columna con las estadísticas del lote (axis=0): eso es "
            "lo que hace BatchNorm. LayerNorm usa las de cada fila: axis=-1.",
            by_column,
        ),
        (
            "Calculas una sola media y una sola varianza para todo el lote. LayerNorm "
            "calcula μ y σ² de cada vector por separado: axis=-1, keepdims=True.",
            whole,
        ),
    ]
    return check_with_mistakes(
        "LayerNorm de un lote",
        fn,
        cases,
        "Calcula μ y σ² a lo largo del último eje con keepdims=True (p. ej. "
        "X.mean(axis=-1, keepdims=True)) para que se resten y dividan fila a fila.",
        mistakes,
    )
