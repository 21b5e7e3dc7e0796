"""Comprobadores de los ejercicios del Capítulo 3: Media y desviación estándar.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

import math
from typing import Callable

from resnorm.examples import EVENS, VECTOR
from resnorm.exercises._feedback import Case, Feedback, check_with_mistakes
from resnorm.exercises._reference import arr, pop_var

__all__ = ["check_mean", "check_std", "check_variance"]


def _stat_cases(expected: Callable) -> list[Case]:
    vectors = [
        ("[2, 4, 6, 8]", list(EVENS)),
        ("[" + ", ".join(f"{v:.2f}" for v in VECTOR) + "]", list(VECTOR)),
        ("[3, 3, 3]", [3.0, 3.0, 3.0]),
        ("[−1, 5]", [-1.0, 5.0]),
    ]
    return [(name, (arr(v),), expected(arr(v))) for name, v in vectors]


def check_mean(fn: Callable) -> Feedback:
    """Comprueba ``fn(x)`` = μ = (1/d) Σᵢ xᵢ para vectores (d,).

    Capítulo 3: Media y desviación estándar.
    """
    mistakes = [
        ("Devuelves la suma: falta dividir entre la cantidad de valores, len(x).",
         lambda x: sum(x)),
        ("Divides entre len(x) − 1: la media divide entre la cantidad de valores, d.",
         lambda x: sum(x) / (len(x) - 1)),
    ]
    return check_with_mistakes(
        "Media",
        fn,
        _stat_cases(lambda x: sum(x) / len(x)),
        "Suma todos los valores y divide entre cuántos hay.",
        mistakes,
    )


def check_variance(fn: Callable) -> Feedback:
    """Comprueba ``fn(x)`` = σ² = (1/d) Σᵢ (xᵢ − μ)², la varianza poblacional.

    Capítulo 3: Media y desviación estándar.
    """
    mistakes = [
        (
            "Divides entre d − 1: esa es la varianza muestral (la de torch.var por "
            "defecto). LayerNorm usa la poblacional, que divide entre d.",
            lambda x: pop_var(x) * len(x) / (len(x) - 1),
        ),
        (
            "Devuelves la desviación estándar (la raíz). La varianza es el promedio de "
            "los cuadrados, antes de sacar la raíz.",
            lambda x: math.sqrt(pop_var(x)),
        ),
        (
            "Sumas los cuadrados pero no los promedias: divide entre d.",
            lambda x: pop_var(x) * len(x),
        ),
        (
            "Promedias las diferencias sin elevarlas al cuadrado: las positivas y las "
            "negativas se cancelan y siempre sale 0.",
            lambda x: sum(v - sum(x) / len(x) for v in x) / len(x),
        ),
    ]
    return check_with_mistakes(
        "Varianza poblacional",
        fn,
        _stat_cases(pop_var),
        "Calcula la media μ, luego (xᵢ − μ)² para cada valor y promedia esos "
        "cuadrados (divide entre d).",
        mistakes,
    )


def _sample_std(x) -> float:
    """La desviación muestral √(Σ(xᵢ − μ)² / (d − 1)), la de ``torch.std`` por
    defecto."""
    return math.sqrt(pop_var(arr(x)) * len(x) / (len(x) - 1))


def check_std(fn: Callable) -> Feedback:
    """Comprueba ``fn(x)`` = σ = √σ², la desviación estándar poblacional.

    Capítulo 3: Media y desviación estándar.
    """
    # La cifra de la pista sale del vector del curso: si el vector cambia, cambia.
    mistakes = [
        (
            "Divides entre d − 1: esa es la desviación muestral, la de torch.std(x) "
            f"por defecto ({_sample_std(VECTOR):.4f} para el vector del curso). "
            "LayerNorm divide entre d.",
            lambda x: math.sqrt(pop_var(x) * len(x) / (len(x) - 1)),
        ),
        (
            "Devuelves la varianza: te falta la raíz cuadrada (math.sqrt o np.sqrt).",
            pop_var,
        ),
    ]
    return check_with_mistakes(
        "Desviación estándar poblacional",
        fn,
        _stat_cases(lambda x: math.sqrt(pop_var(x))),
        "Saca la raíz cuadrada de la varianza poblacional: el promedio de (xᵢ − μ)².",
        mistakes,
    )
