"""Comprobadores de los ejercicios del Capítulo 9: Profundidad: escalas y gradientes.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

import math
from typing import Callable

from resnorm.exercises._feedback import Feedback, check_with_mistakes

__all__ = ["check_pre_ln_stream_std", "check_residual_stream_std"]


def _layers(n: int) -> str:
    """«1 capa», «3 capas»: el caso, con el número en su plural."""
    return f"{n} capa" if n == 1 else f"{n} capas"


def check_pre_ln_stream_std(fn: Callable) -> Feedback:
    """Comprueba ``fn(n_layers)`` = √(1 + L): la desviación estándar del flujo
    residual Pre-LN.

    Capítulo 9: Profundidad: escalas y gradientes. Entrada con varianza 1 y cada
    capa suma W·LN(h), de varianza 1 e independiente de h: Var(h_L) = 1 + L.
    """
    cases = [
        (_layers(n), (n,), math.sqrt(1 + n)) for n in (0, 1, 3, 24, 96)
    ]
    mistakes = [
        (
            "Te falta la entrada: antes de la primera capa la varianza ya es 1, así "
            "que tras L capas es 1 + L, no L.",
            lambda n: math.sqrt(n),
        ),
        (
            "Eso es la varianza. La desviación estándar es su raíz: √(1 + L).",
            lambda n: 1 + n,
        ),
        (
            "Eso sería sin LayerNorm (cada capa duplica la varianza). Con Pre-LN, "
            "cada capa suma varianza 1: Var = 1 + L.",
            lambda n: math.sqrt(2) ** n,
        ),
    ]
    return check_with_mistakes(
        "Desviación estándar del flujo residual Pre-LN",
        fn,
        cases,
        "Las varianzas de sumandos independientes se suman, y la desviación estándar "
        "es la raíz de la varianza. Si te atascas, abre las pistas del ejercicio.",
        mistakes,
    )


def check_residual_stream_std(fn: Callable) -> Feedback:
    """Comprueba ``fn(n_layers)`` = √2^L: la desviación estándar de h ← h + W h sin
    LayerNorm.

    Capítulo 9: Profundidad: escalas y gradientes. Con Var(W h) = Var(h) y W h
    independiente de h, cada capa duplica la varianza: Var(h_L) = 2^L.
    """
    cases = [(_layers(n), (n,), math.sqrt(2.0) ** n) for n in (0, 1, 4, 10, 96)]
    mistakes = [
        (
            "Eso es la varianza (2^L). La desviación estándar es su raíz: √2^L.",
            lambda n: 2.0**n,
        ),
        (
            "Eso es Pre-LN (cada capa suma varianza 1). Sin LayerNorm, W h tiene la "
            "varianza de h: cada capa la duplica.",
            lambda n: math.sqrt(1 + n),
        ),
    ]
    return check_with_mistakes(
        "Desviación estándar del flujo residual sin LayerNorm",
        fn,
        cases,
        "Lo que suma cada capa tiene la varianza de h en ese momento. Si te atascas, "
        "abre las pistas del ejercicio.",
        mistakes,
        rtol=1e-9,
        # √2 ** L eleva también el redondeo de √2: en float32 se aparta ≈ L veces
        # el épsilon. Dos por capa, con margen.
        length=2 * max(n for _, (n,), _ in cases),
    )
