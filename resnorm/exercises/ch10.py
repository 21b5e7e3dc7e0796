"""Comprobadores de los ejercicios del capítulo 10, «Un GPT diminuto».

1. ``check_unigram_loss``: la pérdida de un modelo que solo conoce la frecuencia de
   cada carácter (en inglés, *unigram*), la referencia de «no ha aprendido nada más».
2. ``check_remove_ffn_shortcut``: quitar un atajo a un bloque Pre-LN que funciona.
   Después, ``train_without_ffn_shortcut`` entrena el GPT con ese bloque, para
   comparar la predicción con lo que pasa.

Uso en el capítulo::

    from resnorm.exercises.ch10 import check_remove_ffn_shortcut

    def sin_atajo_ffn(block, x):
        raise NotImplementedError  # escribe aquí tu solución

    check_remove_ffn_shortcut(sin_atajo_ffn)
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from resnorm.exercises._feedback import (
    Feedback,
    as_numpy,
    check_with_mistakes,
    not_a_function,
)
from resnorm.exercises.ch07 import distinct_layer_norms

# train_without_ffn_shortcut no es un comprobador: el capítulo lo importa por su nombre.
__all__ = [
    "check_remove_ffn_shortcut",
    "check_unigram_loss",
]

Case = tuple[str, tuple, Any]


# --- 1. La pérdida de solo frecuencias ---------------------------------------------


def _unigram(train, val, vocab_size):
    counts = np.bincount(np.asarray(train), minlength=vocab_size) + 1.0
    return float(-np.log(counts / counts.sum())[np.asarray(val)].mean())


def check_unigram_loss(fn: Callable) -> Feedback:
    """Comprueba ``fn(train, val, vocab_size)`` = ``−mean(log p(c))`` sobre ``val``.

    ``p(c) = (n_c + 1) / (N + V)``: la frecuencia de ``c`` en ``train``, con 1 más por
    carácter para que ninguno tenga probabilidad 0. Capítulo 10: Un GPT diminuto.
    """
    rng = np.random.default_rng(10)
    train = rng.integers(0, 6, size=200).tolist()
    val = rng.integers(0, 6, size=50).tolist()
    cases: list[Case] = [
        ("train [0, 0, 1] y val [0, 1], vocabulario de 3", ([0, 0, 1], [0, 1], 3),
         _unigram([0, 0, 1], [0, 1], 3)),
        ("200 caracteres de un vocabulario de 6", (train, val, 6),
         _unigram(train, val, 6)),
        ("un carácter que no sale en train (vocabulario de 8)", (train, val + [7], 8),
         _unigram(train, val + [7], 8)),
    ]

    def without_smoothing(t, v, n):
        counts = np.bincount(np.asarray(t), minlength=n).astype(float)
        with np.errstate(divide="ignore"):
            return float(-np.log(counts / counts.sum())[np.asarray(v)].mean())

    def frequencies_of_val(t, v, n):
        return _unigram(v, v, n)

    def log2(t, v, n):
        return _unigram(t, v, n) / math.log(2)

    def uniform(t, v, n):
        return math.log(n)

    mistakes = [
        ("Sin sumar 1 a cada cuenta, un carácter que no sale en train tiene "
         "probabilidad 0 y su −log es infinito.", without_smoothing),
        ("Cuentas las frecuencias en val: el modelo solo puede aprenderlas de train.",
         frequencies_of_val),
        ("Usas logaritmo en base 2 (bits); la pérdida de PyTorch usa el logaritmo "
         "natural: np.log.", log2),
        ("Eso es ln V, la pérdida de adivinar al azar: aquí cada carácter tiene la "
         "probabilidad de su frecuencia.", uniform),
    ]
    return check_with_mistakes(
        "La pérdida de solo frecuencias",
        fn,
        cases,
        "Comprueba cada paso por separado: las cuentas de train (una por carácter del "
        "vocabulario, también los que no salen), las probabilidades, que suman 1, y "
        "la media de −ln p(c) sobre val. Si te atascas, abre las pistas del "
        "ejercicio.",
        mistakes,
        rtol=1e-6,
    )


# --- 2. Quitar un atajo ---------------------------------------------------------------


def _solution(block, x):
    x = x + block.attn(block.ln_1(x))
    return block.mlp(block.ln_2(x))


def _block_and_inputs():
    import torch

    from resnorm.blocks import PreLNBlock

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(10)
        block = PreLNBlock(d_model=16, n_heads=2, d_ff=32, causal=True).eval()
        distinct_layer_norms(block, torch.Generator().manual_seed(110))
        # Entradas lejos de media 0 y std 1: así se nota si falta una LayerNorm.
        xs = [3 * torch.randn(2, 5, 16) + 1, torch.randn(1, 7, 16)]
    return block, xs


def check_remove_ffn_shortcut(fn: Callable) -> Feedback:
    """Comprueba ``fn(block, x)``: el bloque Pre-LN sin el atajo de la FFN.

    ``h = x + Attn(LN₁(x))`` (el primer atajo se queda) y la salida es
    ``FFN(LN₂(h))``, sin ``h +``. Se prueba con un ``PreLNBlock`` causal de
    ``d_model = 16`` y entradas ``(B, T, 16)``. Capítulo 10: Un GPT diminuto.
    """
    if not callable(fn):
        return not_a_function(
            "Un bloque Pre-LN sin el atajo de la FFN", fn,
            "Escribe una función forward(block, x) y pásala sin llamarla.",
        )
    import torch

    block, xs = _block_and_inputs()
    with torch.no_grad():
        cases: list[Case] = [
            (f"bloque Pre-LN, entrada de forma {tuple(x.shape)}", (block, x),
             _solution(block, x).numpy())
            for x in xs
        ]

    def pre_ln(b, x):
        x = x + b.attn(b.ln_1(x))
        return x + b.mlp(b.ln_2(x))

    def no_attn_shortcut(b, x):
        x = b.attn(b.ln_1(x))
        return x + b.mlp(b.ln_2(x))

    def no_shortcut(b, x):
        return b.mlp(b.ln_2(b.attn(b.ln_1(x))))

    def no_ln(b, x):
        x = x + b.attn(b.ln_1(x))
        return b.mlp(x)

    def post_ln(b, x):
        x = b.ln_1(x + b.attn(x))
        return b.ln_2(b.mlp(x))

    def ln_1_twice(b, x):
        x = x + b.attn(b.ln_1(x))
        return b.mlp(b.ln_1(x))

    mistakes = [
        ("Tu bloque aún tiene los dos atajos: quita el de la FFN.", pre_ln),
        ("Quitaste el atajo de la atención; el ejercicio pide quitar el de la FFN.",
         no_attn_shortcut),
        ("Quitaste los dos atajos; deja el de la atención.", no_shortcut),
        ("Quitaste también LN₂: la FFN sigue recibiendo block.ln_2(x).", no_ln),
        ("Ese orden es Post-LN; parte del bloque Pre-LN: la LayerNorm va antes de "
         "cada subcapa.", post_ln),
        ("La FFN recibe `block.ln_2(x)`, no `block.ln_1(x)`: cada subcapa tiene su "
         "propia LayerNorm.", ln_1_twice),
    ]

    def guarded(b, x):
        with torch.no_grad():
            return as_numpy(fn)(b, x)

    return check_with_mistakes(
        "Un bloque Pre-LN sin el atajo de la FFN",
        guarded,
        cases,
        "Parte del forward de PreLNBlock y quita solo el atajo de la FFN: la "
        "atención, su atajo, LN₁ y LN₂ se quedan como están. Mira las pistas.",
        [(hint, as_numpy(wrong)) for hint, wrong in mistakes],
        rtol=1e-5,
        atol=1e-6,
    )


def train_without_ffn_shortcut(fn: Callable, seed: int = 0, **kwargs) -> dict | None:
    """Entrena el GPT Pre-LN con ``fn`` como ``forward`` de cada bloque (Capítulo 10).

    Primero comprueba ``fn`` con ``check_remove_ffn_shortcut``: si no pasa, muestra
    el comprobador y devuelve ``None``, sin entrenar. Entrena con
    ``resnorm.gpt.train_gpts`` (un lote de un modelo, como los demás entrenamientos
    del capítulo; ``fn`` recibe el bloque con sus piezas ``attn``, ``mlp``, ``ln_1``
    y ``ln_2``); ``kwargs`` pasa a ``train_gpts``. Devuelve lo que devolvería
    ``train_gpt("pre_ln", block_forward=fn, seed=seed, ...)``.

    El capítulo solo lee la pérdida final: si no se dan ``eval_every`` ni
    ``n_samples``, la validación se mide al empezar y al terminar, y no se generan
    textos: cada validación pasa el modelo por todo el texto de validación (varias
    veces lo que cuesta un paso de entrenamiento) y cada carácter generado es otra
    pasada. Medir menos no toca los pesos ni los lotes: la pérdida final es la misma.
    """
    feedback = check_remove_ffn_shortcut(fn)
    if not feedback:
        print("Primero completa el ejercicio: el bloque aún no es el que se pide.")
        print(feedback)
        return None
    from resnorm.gpt import DEFAULTS, train_gpts

    kwargs.setdefault("eval_every", kwargs.get("steps", DEFAULTS["steps"]))
    kwargs.setdefault("n_samples", 0)
    return train_gpts([{"config": "pre_ln", "seed": seed}], block_forward=fn,
                      **kwargs)[0]
