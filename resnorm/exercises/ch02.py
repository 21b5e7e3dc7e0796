"""Comprobadores de los ejercicios del Capítulo 2: La conexión residual.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from resnorm.examples import PERRO_ATTENTION, PERRO_X, ROUNDING_FX, ROUNDING_X, VECTOR
from resnorm.exercises._feedback import Case, Feedback, as_numpy, check_with_mistakes
from resnorm.exercises._reference import arr

__all__ = ["check_residual_grad", "check_residual_sum", "check_vectors_close"]


def check_residual_sum(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, fx)`` = x + F(x), componente a componente.

    Capítulo 2: La conexión residual. ``x`` y ``fx`` son vectores (d,).
    """
    x1, f1 = arr(PERRO_X), arr(PERRO_ATTENTION)
    x2, f2 = arr(ROUNDING_X), arr(ROUNDING_FX)
    cases = [
        ("el ejemplo del curso", (x1, f1), x1 + f1),
        ("el segundo ejemplo", (x2, f2), x2 + f2),
        ("F(x) = 0: la identidad", (x1, np.zeros(4)), x1),
    ]
    mistakes = [
        (
            "Devuelves solo F(x): eso es una capa sin atajo. La conexión residual "
            "suma la entrada: x + F(x).",
            lambda x, fx: fx,
        ),
        ("Devuelves x sin más: falta sumar F(x).", lambda x, fx: x),
        ("Estás restando: la conexión residual suma, x + F(x).", lambda x, fx: x - fx),
    ]
    return check_with_mistakes(
        "Suma residual",
        fn,
        cases,
        "Suma los dos vectores componente a componente (con NumPy, x + fx).",
        mistakes,
    )


def _grad_cases() -> list[Case]:
    import torch

    def cube(t):
        return 0.01 * t**3

    def neg(t):
        return -t

    return [
        ("F = sin en x = 0.5", (torch.sin, 0.5), 1 + math.cos(0.5)),
        ("F(t) = 0.01·t³ en x = 2", (cube, 2.0), 1 + 0.03 * 2.0**2),
        ("F(t) = −t en x = 1.3 (el atajo se anula)", (neg, 1.3), 0.0),
    ]


def check_residual_grad(fn: Callable) -> Feedback:
    """Comprueba ``fn(F, x)`` = d/dx [x + F(x)] = 1 + F′(x), calculada con autograd.

    Capítulo 2: La conexión residual. ``F`` es una función de torch y ``x`` un
    número; ``fn`` devuelve un número (o un tensor de un elemento).
    """

    def only_f(F, x):
        import torch

        t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
        F(t).backward()
        return t.grad.item()

    def value(F, x):
        import torch

        return (x + F(torch.tensor(float(x), dtype=torch.float64))).item()

    mistakes = [
        (
            "Devuelves F′(x): es la derivada de la capa sola. Deriva la salida entera "
            "x + F(x); el atajo aporta el 1 de 1 + F′(x).",
            only_f,
        ),
        (
            "Devuelves el valor de x + F(x), no su derivada: llama a .backward() sobre "
            "la salida y lee x.grad.",
            value,
        ),
    ]
    return check_with_mistakes(
        "Derivada de la conexión residual",
        as_numpy(fn) if callable(fn) else fn,
        _grad_cases(),
        "Crea x con torch.tensor(x, requires_grad=True), calcula y = x + F(x), "
        "llama a y.backward() y devuelve x.grad.",
        mistakes,
        rtol=1e-5,
        atol=1e-6,
    )


def check_vectors_close(fn: Callable) -> Feedback:
    """Comprueba ``fn(a, b)``: ``True`` si los vectores coinciden salvo redondeo.

    Capítulo 2: La conexión residual. ``[0.5, 1.2, −0.3] + [0.1, −0.2, 0.4]`` es
    ``[0.6, 1.0, 0.1]`` solo con tolerancia: en coma flotante, −0.3 + 0.4 da
    0.10000000000000003.
    """
    suma = arr(ROUNDING_X) + arr(ROUNDING_FX)
    cases = [
        ("[0.5, 1.2, −0.3] + [0.1, −0.2, 0.4] frente a [0.6, 1.0, 0.1]",
         (suma, arr([0.6, 1.0, 0.1])), True),
        ("un vector frente a sí mismo", (arr(VECTOR), arr(VECTOR)), True),
        ("[0.6, 1.0, 0.1] frente a [0.6, 1.0, 0.2]",
         (arr([0.6, 1.0, 0.1]), arr([0.6, 1.0, 0.2])), False),
        ("[1.0, 2.0] frente a [1.0, 2.001]",
         (arr([1.0, 2.0]), arr([1.0, 2.001])), False),
    ]

    def exact(a, b):
        return bool(np.array_equal(a, b))

    def always_true(a, b):
        return True

    mistakes = [
        (
            "Comparas con igualdad exacta (==). En coma flotante −0.3 + 0.4 da "
            "0.10000000000000003, no 0.1: usa np.allclose(a, b).",
            exact,
        ),
        (
            "Devuelves un vector de True/False (np.isclose compara cada componente). "
            "Se pide una sola respuesta para todo el vector: np.allclose(a, b).",
            lambda a, b: np.isclose(a, b),
        ),
        ("Devuelves siempre True: también hay que detectar vectores distintos.",
         always_true),
    ]
    return check_with_mistakes(
        "Comparar vectores con tolerancia",
        fn,
        cases,
        "Devuelve np.allclose(a, b) (o torch.allclose con tensores).",
        mistakes,
    )
