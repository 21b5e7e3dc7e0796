"""Comprobadores de los ejercicios del Capítulo 7: El bloque completo: Post-LN y Pre-LN.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from resnorm.examples import PERRO_ATTENTION, PERRO_X, VECTOR
from resnorm.exercises._feedback import Feedback, as_numpy, check_with_mistakes
from resnorm.exercises._reference import linear
from resnorm.numerics import layer_norm, post_ln, pre_ln

__all__ = ["check_post_ln", "check_pre_ln_forward"]


def check_post_ln(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, sublayer)`` = LayerNorm(x + sublayer(x)) (γ = 1, β = 0).

    Capítulo 7: El bloque completo: Post-LN y Pre-LN (Vaswani et al. 2017, §3.1).
    ``x`` es un vector (d,) o un lote (..., d); ``sublayer`` una función F.
    """
    attention = np.array(PERRO_ATTENTION)
    inputs = [
        (
            "«perro» con la salida de atención del curso",
            (list(PERRO_X), lambda h: attention),
        ),
        ("una subcapa que devuelve 0", (list(VECTOR), lambda h: 0.0 * np.asarray(h))),
        ("una subcapa lineal aleatoria", (list(VECTOR), linear(7, 4))),
        (
            "un lote (3, 4) con una subcapa lineal",
            (np.random.default_rng(3).normal(size=(3, 4)), linear(8, 4)),
        ),
    ]
    cases = [(d, a, post_ln(*a)) for d, a in inputs]

    def pre(x, sublayer):
        return pre_ln(np.asarray(x, dtype=float), sublayer)

    def ln_of_sublayer(x, sublayer):
        return layer_norm(sublayer(np.asarray(x, dtype=float)))

    mistakes = [
        (
            "Eso es Pre-LN: x + F(LN(x)). Post-LN suma primero y normaliza después: "
            "LN(x + F(x)).",
            pre,
        ),
        (
            "Falta el atajo: normalizas F(x) sola. Suma antes la entrada: "
            "LN(x + F(x)).",
            ln_of_sublayer,
        ),
    ]
    return check_with_mistakes(
        "Post-LN",
        fn,
        cases,
        "Suma x + sublayer(x) y normaliza el resultado con layer_norm.",
        mistakes,
    )


def distinct_layer_norms(block, generator) -> None:
    """Da a ``ln_1`` y ``ln_2`` γ y β distintos (como tras entrenar): con los dos en
    γ = 1 y β = 0 serían la misma función, y usar ``ln_1`` en las dos subcapas
    pasaría por correcto."""
    import torch

    with torch.no_grad():
        for ln in (block.ln_1, block.ln_2):
            shape = ln.weight.shape
            ln.weight.copy_(1 + 0.5 * torch.randn(shape, generator=generator))
            ln.bias.copy_(0.5 * torch.randn(shape, generator=generator))


def _tiny_blocks(seed: int = 0):
    """Un bloque Pre-LN y un lote pequeños, con semilla fija; no toca el RNG global."""
    import torch

    from resnorm.blocks import PreLNBlock

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        block = PreLNBlock(d_model=8, n_heads=2, d_ff=16).double().eval()
        x = torch.randn(2, 3, 8, dtype=torch.float64)
        distinct_layer_norms(block, torch.Generator().manual_seed(100 + seed))
    return block, x


def check_pre_ln_forward(fn: Callable) -> Feedback:
    """Comprueba ``fn(block, x)`` = el ``forward`` de un bloque Pre-LN de PyTorch.

    Capítulo 7: El bloque completo. ``block`` es un ``resnorm.blocks.PreLNBlock``
    (con ``ln_1``, ``attn``, ``ln_2`` y ``mlp``) y ``x`` un tensor (B, T, C); debe
    devolver ``x + attn(ln_1(x))`` seguido de ``+ mlp(ln_2(·))``.
    """
    import torch

    inputs = []
    for seed in (0, 1):
        block, x = _tiny_blocks(seed)
        what = f"un bloque Pre-LN con semilla fija ({seed}), x de forma (2, 3, 8)"
        inputs.append((what, (block, x)))
    with torch.no_grad():
        cases = [(d, a, a[0](a[1]).numpy()) for d, a in inputs]

    def post(block, x):
        x = block.ln_1(x + block.attn(x))
        return block.ln_2(x + block.mlp(x))

    def no_shortcut(block, x):
        x = block.attn(block.ln_1(x))
        return block.mlp(block.ln_2(x))

    def normalised_shortcut(block, x):
        h = block.ln_1(x)
        x = h + block.attn(h)
        h = block.ln_2(x)
        return h + block.mlp(h)

    def ln_1_twice(block, x):
        x = x + block.attn(block.ln_1(x))
        return x + block.mlp(block.ln_1(x))

    mistakes = [
        (
            "Ese es el orden Post-LN: LN(x + F(x)). En Pre-LN la LayerNorm va a la "
            "entrada de cada subcapa: x = x + attn(ln_1(x)).",
            as_numpy(post),
        ),
        (
            "Falta el atajo: hay que sumar x a la salida de cada subcapa.",
            as_numpy(no_shortcut),
        ),
        (
            "Sumas la entrada ya normalizada (ln_1(x) + attn(ln_1(x))). El atajo de "
            "Pre-LN usa x sin normalizar: x + attn(ln_1(x)).",
            as_numpy(normalised_shortcut),
        ),
        (
            "Usas `ln_1` también antes de la FFN. Cada subcapa tiene su propia "
            "LayerNorm, con sus propios γ y β: la FFN recibe `ln_2(x)`.",
            as_numpy(ln_1_twice),
        ),
    ]

    def student(block, x):
        with torch.no_grad():
            return as_numpy(fn)(block, x)

    return check_with_mistakes(
        "El «forward» de un bloque Pre-LN",
        student if callable(fn) else fn,
        cases,
        "En Pre-LN cada subcapa recibe una copia normalizada con su propia "
        "LayerNorm, y su salida se suma a la x sin normalizar. Mira las pistas.",
        mistakes,
        rtol=1e-9,
        atol=1e-12,
    )
