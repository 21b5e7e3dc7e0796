"""Comprobadores de los ejercicios del Capítulo 5: γ y β.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from resnorm.examples import BETA, EVENS, GAMMA, VECTOR
from resnorm.exercises._feedback import (
    TOO_LARGE,
    Feedback,
    check_with_mistakes,
    not_a_function,
    not_written,
    raised,
    to_numpy,
)
from resnorm.exercises._reference import arr, ln, pop_var
from resnorm.numerics import layer_norm

__all__ = ["check_layer_norm_affine", "check_undo_normalization"]


def check_layer_norm_affine(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, gamma, beta, eps)`` = γ ⊙ (x − μ)/√(σ² + ε) + β.

    Capítulo 5: γ y β. ``x``, ``gamma`` y ``beta`` son vectores (d,).
    """
    x, g, b = arr(VECTOR), arr(GAMMA), arr(BETA)
    ones, zeros = np.ones(4), np.zeros(4)
    cases = [
        ("el ejemplo del curso: γ y β del texto", (x, g, b, 1e-5), g * ln(x) + b),
        ("γ = 1 y β = 0 dan el vector normalizado", (x, ones, zeros, 1e-5), ln(x)),
        ("otro vector, [2, 4, 6, 8], con los mismos γ y β",
         (arr(EVENS), g, b, 1e-5), g * ln([2, 4, 6, 8]) + b),
    ]
    mistakes = [
        (
            "Has intercambiado γ y β: γ multiplica (escala) y β se suma (desplaza): "
            "γ ⊙ x̂ + β.",
            lambda x, g, b, e: b * ln(x, e) + g,
        ),
        (
            "Aplicas γ y β antes de normalizar, y la normalización deshace su efecto. "
            "Primero normaliza, x̂ = (x − μ)/√(σ² + ε); después γ ⊙ x̂ + β.",
            lambda x, g, b, e: ln(g * x + b, e),
        ),
        ("Te falta sumar β.", lambda x, g, b, e: g * ln(x, e)),
        ("Te falta multiplicar por γ.", lambda x, g, b, e: ln(x, e) + b),
    ]
    return check_with_mistakes(
        "LayerNorm con γ y β",
        fn,
        cases,
        "Normaliza como en el capítulo 4 y después multiplica por gamma y suma beta, "
        "componente a componente.",
        mistakes,
    )


def check_undo_normalization(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, eps)`` → ``(gamma, beta)`` tales que LN(x; γ, β, ε) ≈ x.

    Capítulo 5: γ y β. Basta con γ = √(σ² + ε) y β = μ en cada dimensión; con γ = σ
    el error es del orden de ε·|x − μ|/(2σ²), muy pequeño. Se acepta un error máximo
    de 1e-3.
    """

    title = "Deshacer la normalización con γ y β"
    hint = (
        "LayerNorm resta μ y divide entre √(σ² + ε), y después multiplica por γ y "
        "suma β. ¿Qué multiplicación y qué suma deshacen los dos primeros pasos? Si "
        "te atascas, abre las pistas del ejercicio."
    )
    if not callable(fn):
        return not_a_function(title, fn, hint)
    vectors = [
        ("el vector del curso", list(VECTOR)),
        ("[2, 4, 6, 8]", list(EVENS)),
        ("[−3, 0.5, 10, 1]", [-3.0, 0.5, 10.0, 1.0]),
    ]
    lines: list[str] = []
    passed = True
    seen = {"swapped": True, "sample": True}
    for name, x in vectors:
        xa = arr(x)
        try:
            with np.errstate(all="ignore"):
                out = fn(xa.copy(), 1e-5)
        except NotImplementedError:
            return not_written(title, hint)
        except Exception as exc:  # el estudiante puede lanzar cualquier cosa
            passed = False
            seen = dict.fromkeys(seen, False)
            lines.append(f"✗ {name}: {raised(exc)}")
            continue
        if out is None:
            msg = "La función devuelve None: ¿te falta el `return`?"
            return Feedback(title, False, [msg], hint)
        try:
            gamma, beta = out
            gamma = np.broadcast_to(arr(gamma), xa.shape)
            beta = np.broadcast_to(arr(beta), xa.shape)
        except OverflowError:
            passed = False
            seen = dict.fromkeys(seen, False)
            lines.append(f"✗ {name}: {TOO_LARGE}")
            continue
        except (TypeError, ValueError):
            passed = False
            seen = dict.fromkeys(seen, False)
            lines.append(
                f"✗ {name}: se esperaba una pareja (gamma, beta), cada uno un número o "
                f"un vector de {len(x)} valores."
            )
            continue
        mu = float(xa.mean())
        sigma = math.sqrt(pop_var(xa))
        seen["swapped"] &= _near(gamma, mu) and _near(beta, sigma)
        seen["sample"] &= _near(gamma, sigma * math.sqrt(len(x) / (len(x) - 1)))
        y = layer_norm(xa, gamma, beta, eps=1e-5)
        err = float(np.max(np.abs(y - xa)))
        if err <= 1e-3:
            lines.append(f"✓ {name}: LN(x; γ, β) devuelve x (error máximo {err:.1e})")
        else:
            passed = False
            shown = np.array2string(y, precision=4, separator=", ")
            lines.append(f"✗ {name}: LN(x; γ, β) da {shown}, no x (error {err:.3g})")
    if not passed and seen["swapped"]:
        hint = (
            "Has intercambiado γ y β: γ escala (debe valer σ) y β desplaza "
            "(debe valer μ)."
        )
    elif not passed and seen["sample"]:
        hint = (
            "Usas la desviación estándar muestral (divide entre d − 1, como "
            "torch.std por defecto). LayerNorm divide entre √(σ² + ε) con la "
            "poblacional."
        )
    return Feedback(title, passed, lines, hint)


def _near(values, target: float, tol: float = 1e-3) -> bool:
    return bool(np.all(np.abs(to_numpy(values) - target) <= tol))
