"""Comprobadores de los ejercicios del Capítulo 1: El problema de apilar capas.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from resnorm.exercises._feedback import Case, Feedback, check_with_mistakes
from resnorm.exercises._reference import arr

__all__ = ["check_depth_factor", "check_residual_stack"]


def check_depth_factor(fn: Callable) -> Feedback:
    """Comprueba ``fn(factor, depth)`` = factor ** depth.

    Capítulo 1: El problema de apilar capas. Si cada capa multiplica el gradiente por
    ``factor``, tras ``depth`` capas queda multiplicado por ``factor ** depth``.
    """
    cases = [
        ("factor 0.5 y 10 capas", (0.5, 10), 0.5**10),
        ("factor 0.9 y 96 capas", (0.9, 96), 0.9**96),
        ("factor 1.1 y 96 capas", (1.1, 96), 1.1**96),
        ("factor 1 y 50 capas", (1.0, 50), 1.0),
    ]
    mistakes = [
        (
            "Estás multiplicando factor × profundidad. Cada capa vuelve a multiplicar "
            "lo que le llega: es un producto repetido, factor · factor · … · factor.",
            lambda f, d: f * d,
        ),
        (
            "Te sale una capa de menos: con `depth` capas hay exactamente "
            "`depth` factores.",
            lambda f, d: f ** (d - 1),
        ),
        (
            "Te sale una capa de más: con `depth` capas hay exactamente `depth` "
            "factores.",
            lambda f, d: f ** (d + 1),
        ),
    ]
    return check_with_mistakes(
        "Factor total tras apilar capas",
        fn,
        cases,
        "Cada capa vuelve a multiplicar lo que le llega: tras `depth` capas hay "
        "`depth` factores iguales. Si te atascas, abre las pistas del ejercicio.",
        mistakes,
        rtol=1e-9,
        atol=0.0,
        # factor**depth eleva también el redondeo de factor: en float32,
        # torch.tensor(0.9) ** 96 se aparta ≈ 96 veces el épsilon. Dos por capa, con
        # margen.
        length=2 * max(depth for _, (_, depth), _ in cases),
    )


def _stack_cases() -> list[Case]:
    def half(h):
        return 0.5 * h

    def shift(h):
        return np.tanh(h) - 0.25

    def neg(h):
        return -h

    x = arr([1.0, -2.0, 0.5])
    return [
        ("una capa F(h) = 0.5·h", (x, [half]), x + 0.5 * x),
        ("tres capas F(h) = 0.5·h", (x, [half, half, half]), x * 1.5**3),
        (
            "dos capas distintas, tanh(h) − 0.25 y luego 0.5·h",
            (x, [shift, half]),
            (lambda h: h + 0.5 * h)(x + np.tanh(x) - 0.25),
        ),
        ("ninguna capa: sale x tal cual", (x, []), x),
        ("una capa F(h) = −h: el atajo se anula", (x, [neg]), np.zeros(3)),
    ]


def check_residual_stack(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, layers)``: aplica ``h ← h + F(h)`` con cada capa, en orden.

    Capítulo 1: El problema de apilar capas. ``x`` es un vector (d,) y ``layers`` una
    lista de funciones F que devuelven vectores (d,).
    """

    def no_shortcut(x, layers):
        h = x
        for f in layers:
            h = f(h)
        return h

    def always_x(x, layers):
        h = x
        for f in layers:
            h = h + f(x)
        return h

    def shortcut_to_input(x, layers):
        h = x
        for f in layers:
            h = x + f(h)
        return h

    mistakes = [
        (
            "Tu pila no tiene atajo: haces h = F(h). Con conexión residual cada capa "
            "suma su salida a lo que recibe: h = h + F(h).",
            no_shortcut,
        ),
        (
            "Aplicas cada capa a la entrada original x. Cada capa debe recibir la "
            "salida de la anterior: h = h + F(h), no h = h + F(x).",
            always_x,
        ),
        (
            "Sumas siempre la x original en vez del h que llega a la capa: el atajo de "
            "cada capa rodea solo esa capa, h = h + F(h).",
            shortcut_to_input,
        ),
    ]
    return check_with_mistakes(
        "Pila con conexión residual",
        fn,
        _stack_cases(),
        "Cada capa recibe la salida de la anterior, y el atajo le suma lo que "
        "recibió. Si te atascas, abre las pistas del ejercicio.",
        mistakes,
    )
