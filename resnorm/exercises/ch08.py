"""Comprobadores de los ejercicios del Capítulo 8: El vector «perro» paso a paso.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from resnorm.exercises._feedback import Feedback, check_with_mistakes
from resnorm.numerics import layer_norm

__all__ = ["check_perro_post_ln", "check_perro_pre_ln"]


def _perro_cases():
    from resnorm.trace import perro_example

    ex = perro_example()
    other = dataclasses.replace(
        ex,
        x=np.array([1.0, -0.5, 0.25, 2.0]),
        attention_output=np.array([-0.1, 0.4, 0.2, -0.3]),
    )
    return [
        ("el ejemplo «perro» del curso", (ex,)),
        ("otro vector y otra atención", (other,)),
    ]


def _perro_post(ex):
    x1 = layer_norm(ex.x + ex.attention_output, ex.gamma1, ex.beta1)
    return layer_norm(x1 + ex.ffn(x1), ex.gamma2, ex.beta2)


def _perro_pre(ex):
    h = ex.x + ex.attention_output  # la salida de la atención es un dato
    return h + ex.ffn(layer_norm(h, ex.gamma2, ex.beta2))


def check_perro_post_ln(fn: Callable) -> Feedback:
    """Comprueba ``fn(ex)``: «perro» por un bloque Post-LN, devuelve x″ (4,).

    Capítulo 8: El vector «perro» paso a paso. ``ex`` es un
    ``resnorm.trace.PerroExample``; la salida de la atención es el dato
    ``ex.attention_output``: x′ = LN₁(x + Atención), x″ = LN₂(x′ + FFN(x′)).
    """
    inputs = _perro_cases()
    cases = [(d, a, _perro_post(*a)) for d, a in inputs]

    def no_gamma(ex):
        x1 = layer_norm(ex.x + ex.attention_output)
        return layer_norm(x1 + ex.ffn(x1))

    def ffn_skips_shortcut(ex):
        x1 = layer_norm(ex.x + ex.attention_output, ex.gamma1, ex.beta1)
        return layer_norm(ex.ffn(x1), ex.gamma2, ex.beta2)

    mistakes = [
        (
            "Te faltan γ y β: cada LayerNorm lleva los suyos (gamma1/beta1 y "
            "gamma2/beta2).",
            no_gamma,
        ),
        (
            "Falta el segundo atajo: antes de LN₂ hay que sumar x′ + FFN(x′).",
            ffn_skips_shortcut,
        ),
    ]
    return check_with_mistakes(
        "«perro» por un bloque Post-LN",
        fn,
        cases,
        "Post-LN repite dos veces el mismo paso: primero la suma residual, después "
        "la LayerNorm de ese paso, con su γ y su β. Mira las pistas.",
        mistakes,
    )


def check_perro_pre_ln(fn: Callable) -> Feedback:
    """Comprueba ``fn(ex)``: «perro» por un bloque Pre-LN, devuelve la salida (4,).

    Capítulo 8: El vector «perro» paso a paso. Con la salida de la atención dada:
    h = x + Atención; salida = h + FFN(LN₂(h)), con γ₂ y β₂. Sin LN al final.
    """
    inputs = _perro_cases()
    cases = [(d, a, _perro_pre(*a)) for d, a in inputs]

    def final_ln(ex):
        return layer_norm(_perro_pre(ex), ex.gamma2, ex.beta2)

    def normalised_shortcut(ex):
        h = ex.x + ex.attention_output
        n = layer_norm(h, ex.gamma2, ex.beta2)
        return n + ex.ffn(n)

    mistakes = [
        (
            "Has normalizado la salida del bloque: eso sería Post-LN. En Pre-LN la "
            "salida es h + FFN(LN₂(h)), sin LayerNorm detrás.",
            final_ln,
        ),
        (
            "El atajo suma h sin normalizar: h + FFN(LN₂(h)), no LN₂(h) + FFN(LN₂(h)).",
            normalised_shortcut,
        ),
    ]
    return check_with_mistakes(
        "«perro» por un bloque Pre-LN",
        fn,
        cases,
        "En Pre-LN la suma residual usa el vector sin normalizar, y solo la entrada "
        "de la FFN pasa por LN₂. Mira las pistas.",
        mistakes,
    )
