"""Comprobadores de los ejercicios del Capítulo 11: Resumen y siguiente paso.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from resnorm.examples import PERRO_X, VECTOR
from resnorm.exercises._feedback import Feedback, check_with_mistakes
from resnorm.exercises._reference import linear
from resnorm.numerics import layer_norm, post_ln, pre_ln

__all__ = ["check_layernorm_count", "check_pre_ln_stack"]


def check_layernorm_count(fn: Callable) -> Feedback:
    """Comprueba ``fn(n_blocks, order)``: cuántas LayerNorm tiene una pila.

    Capítulo 11: Resumen y siguiente paso. Cada bloque tiene dos subcapas y una
    LayerNorm por subcapa; Pre-LN añade una LayerNorm final (``ln_f`` de GPT-2):
    Post-LN: 2N; Pre-LN: 2N + 1. ``order`` es ``"post"`` o ``"pre"``.
    """
    cases = [
        ("1 bloque Post-LN", (1, "post"), 2),
        ("12 bloques Post-LN", (12, "post"), 24),
        ("12 bloques Pre-LN", (12, "pre"), 25),
        ("96 bloques Pre-LN", (96, "pre"), 193),
    ]
    mistakes = [
        (
            "Te falta la LayerNorm final de Pre-LN: el flujo residual llega sin "
            "normalizar al final y GPT-2 añade una más (ln_f).",
            lambda n, order: 2 * n,
        ),
        (
            "Cuentas una LayerNorm por bloque, pero cada bloque tiene dos subcapas "
            "(atención y FFN) y cada una lleva la suya.",
            lambda n, order: n + (order == "pre"),
        ),
        (
            "La LayerNorm final es de Pre-LN; en Post-LN el último bloque ya "
            "termina normalizado.",
            lambda n, order: 2 * n + 1,
        ),
    ]
    return check_with_mistakes(
        "Cuántas LayerNorm hay en la pila",
        fn,
        cases,
        "Cuenta las subcapas de un bloque y piensa qué pasa al final de la pila en "
        "cada orden. Si te atascas, abre las pistas del ejercicio.",
        mistakes,
    )


def _stack_blocks(seed: int, n: int, d: int = 4):
    return [(linear(seed + 2 * i, d), linear(seed + 2 * i + 1, d)) for i in range(n)]


def _pre_ln_stack(x, blocks, eps):
    h = np.asarray(x, dtype=float)
    for attention, ffn in blocks:
        h = pre_ln(h, attention, eps=eps)  # h + Atención(LN(h))
        h = pre_ln(h, ffn, eps=eps)  # h + FFN(LN(h))
    return layer_norm(h, eps=eps)  # ln_f


def check_pre_ln_stack(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, blocks, eps)``: una pila Pre-LN con LayerNorm final.

    Capítulo 11: Resumen y siguiente paso (el gancho al Paso 8). ``blocks`` es una
    lista de pares ``(attention, ffn)`` de funciones (d,) → (d,). Por bloque:
    h ← h + attention(LN(h)); h ← h + ffn(LN(h)). Al final, LN(h) (la ``ln_f``).
    Todas las LayerNorm sin γ ni β y con el mismo ``eps``.
    """
    perro = list(PERRO_X)
    inputs = [
        ("«perro» con 0 bloques (solo la LN final)", (perro, [], 1e-5)),
        ("«perro» con 1 bloque", (perro, _stack_blocks(10, 1), 1e-5)),
        ("«perro» con 6 bloques", (perro, _stack_blocks(20, 6), 1e-5)),
        ("el vector del curso con 3 bloques y ε = 10⁻³", (list(VECTOR),
                                                          _stack_blocks(40, 3), 1e-3)),
    ]
    cases = [(d, a, _pre_ln_stack(*a)) for d, a in inputs]

    def no_final_ln(x, blocks, eps):
        h = np.asarray(x, dtype=float)
        for attention, ffn in blocks:
            h = pre_ln(pre_ln(h, attention, eps=eps), ffn, eps=eps)
        return h

    def post_stack(x, blocks, eps):
        h = np.asarray(x, dtype=float)
        for attention, ffn in blocks:
            h = post_ln(post_ln(h, attention, eps=eps), ffn, eps=eps)
        return layer_norm(h, eps=eps)

    mistakes = [
        (
            "Falta la LayerNorm final (ln_f): en Pre-LN el flujo residual llega sin "
            "normalizar al final de la pila.",
            no_final_ln,
        ),
        (
            "Ese es el orden Post-LN, LN(h + F(h)). En Pre-LN: h + F(LN(h)).",
            post_stack,
        ),
    ]
    return check_with_mistakes(
        "Pila Pre-LN",
        fn,
        cases,
        "Dos subcapas por bloque, las dos en orden Pre-LN, y una LayerNorm al final. "
        "Si te atascas, abre las pistas del ejercicio.",
        mistakes,
    )
