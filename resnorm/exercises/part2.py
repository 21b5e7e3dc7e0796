"""Comprobadores de los ejercicios de la Parte 2 (capítulos 6 a 10).

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español. Si la respuesta falla por una confusión
típica (ε fuera de la raíz, varianza muestral, Post-LN en lugar de Pre-LN, olvidar la
LayerNorm final...), la pista nombra esa confusión; si no, da la pista general.

Uso en un capítulo::

    from resnorm.exercises import check_rms_norm

    def mi_rms_norm(x, eps):
        raise NotImplementedError  # escribe aquí tu solución

    check_rms_norm(mi_rms_norm)

Los comprobadores con torch (``check_layer_norm_fixed``, ``check_pre_ln_forward``)
importan torch solo al llamarlos: importar ``resnorm.exercises`` no importa torch.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np

from resnorm.exercises._feedback import (
    Feedback,
    as_numpy,
    check_with_mistakes,
)
from resnorm.numerics import layer_norm, post_ln, pre_ln, rms_norm

__all__ = [
    "check_layer_norm_fixed",
    "check_layernorm_count",
    "check_perro_post_ln",
    "check_perro_pre_ln",
    "check_post_ln",
    "check_pre_ln_forward",
    "check_pre_ln_stack",
    "check_pre_ln_stream_std",
    "check_residual_stream_std",
    "check_rms_norm",
]

#: La suma residual del ejemplo «perro»: [0.50, 1.15, 0.78, 0.88] + Atención(x).
EXAMPLE = (0.80, 0.95, 0.93, 1.33)
#: [2, 4] dividido entre 1000: σ² = 10⁻⁶ es menor que ε = 10⁻⁵ y ε se nota.
TINY = (0.002, 0.004)

Case = tuple[str, tuple, Any]
Mistake = tuple[str, Callable]


# --- Capítulo 6: variantes de la normalización ---------------------------------------


def check_rms_norm(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, eps)`` = x / √(mean(x²) + ε) sobre el último eje.

    Capítulo 6: Variantes de la normalización (RMSNorm, Zhang y Sennrich 2019, sin
    γ). ``x`` es un array (..., d); la salida tiene su forma.
    """

    def reference(x, eps):
        return rms_norm(np.asarray(x, dtype=float), eps=eps)

    inputs = [
        ("[2, 4] con ε = 10⁻⁶", ([2.0, 4.0], 1e-6)),
        ("[20, 40] con ε = 10⁻⁶", ([20.0, 40.0], 1e-6)),
        ("el vector del curso con ε = 10⁻⁶", (list(EXAMPLE), 1e-6)),
        ("[0.002, 0.004] con ε = 10⁻⁵ (aquí ε pesa)", (list(TINY), 1e-5)),
        (
            "un lote de dos filas [[2, 4], [1, 1]]",
            (np.array([[2.0, 4.0], [1.0, 1.0]]), 1e-6),
        ),
    ]
    cases = [(d, a, reference(*a)) for d, a in inputs]

    def centred(x, eps):
        x = np.asarray(x, dtype=float)
        c = x - x.mean(axis=-1, keepdims=True)
        return c / np.sqrt(np.mean(c**2, axis=-1, keepdims=True) + eps)

    def eps_outside(x, eps):
        x = np.asarray(x, dtype=float)
        return x / (np.sqrt(np.mean(x**2, axis=-1, keepdims=True)) + eps)

    def whole_array(x, eps):
        x = np.asarray(x, dtype=float)
        return x / np.sqrt(np.mean(x**2) + eps)

    mistakes = [
        (
            "Estás restando la media: eso es LayerNorm. RMSNorm solo reescala: "
            "divide x entre √(mean(x²) + ε), sin centrar.",
            centred,
        ),
        (
            "ε va dentro de la raíz: √(mean(x²) + ε), no √mean(x²) + ε "
            "(como en torch.nn.RMSNorm).",
            eps_outside,
        ),
        (
            "La media de x² se toma por fila (el último eje), no sobre todo el "
            "array: usa np.mean(x**2, axis=-1, keepdims=True).",
            whole_array,
        ),
    ]
    return check_with_mistakes(
        "RMSNorm",
        fn,
        cases,
        "RMS(x) = √(mean(x²) + ε) sobre el último eje; la salida es x / RMS(x).",
        mistakes,
    )


def check_layer_norm_fixed(fn: Callable) -> Feedback:
    """Comprueba la LayerNorm corregida ``fn(x, eps)`` con tensores de torch.

    Capítulo 6: Variantes de la normalización. Debe dar lo mismo que
    ``torch.nn.functional.layer_norm(x, (d,), eps=eps)``: varianza poblacional y ε
    dentro de la raíz. ``x`` es un tensor (..., d) de float64.
    """
    import torch
    from torch.nn import functional as F

    def tensor(values):
        return torch.tensor(values, dtype=torch.float64)

    inputs = [
        ("el vector del curso, ε = 10⁻⁵", (tensor(EXAMPLE), 1e-5)),
        ("[0.002, 0.004], ε = 10⁻⁵ (σ² < ε)", (tensor(TINY), 1e-5)),
        ("[2, 4], ε = 10⁻³ (el de Keras)", (tensor([2.0, 4.0]), 1e-3)),
        ("un lote (2, 4)", (tensor([EXAMPLE, [2.0, 4.0, 6.0, 8.0]]), 1e-5)),
    ]
    cases = [
        (d, a, F.layer_norm(a[0], a[0].shape[-1:], eps=a[1]).numpy()) for d, a in inputs
    ]

    def annotated(x, eps):  # la versión de The Annotated Transformer, tal cual
        return (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + eps)

    def sample_only(x, eps):
        var = x.var(-1, keepdim=True)  # muestral: correction=1 por defecto
        return (x - x.mean(-1, keepdim=True)) / torch.sqrt(var + eps)

    def outside_only(x, eps):
        std = x.std(-1, keepdim=True, correction=0)
        return (x - x.mean(-1, keepdim=True)) / (std + eps)

    mistakes = [
        (
            "Siguen los dos fallos del original: x.std() es la desviación muestral "
            "(divide entre d − 1) y ε está fuera de la raíz. Usa "
            "x.var(-1, keepdim=True, correction=0) y divide entre √(σ² + ε).",
            as_numpy(annotated),
        ),
        (
            "ε ya está dentro de la raíz, pero la varianza es la muestral: x.var() "
            "divide entre d − 1 por defecto. Pasa correction=0.",
            as_numpy(sample_only),
        ),
        (
            "La varianza ya es la poblacional, pero ε sigue fuera de la raíz: "
            "(x − μ)/(σ + ε). Escribe (x − μ)/√(σ² + ε).",
            as_numpy(outside_only),
        ),
    ]
    student = as_numpy(fn) if callable(fn) else fn
    return check_with_mistakes(
        "LayerNorm corregida",
        student,
        cases,
        "μ = x.mean(-1, keepdim=True); σ² = x.var(-1, keepdim=True, correction=0); "
        "devuelve (x − μ)/torch.sqrt(σ² + eps).",
        mistakes,
    )


# --- Capítulo 7: el bloque completo --------------------------------------------------


def _linear(seed: int, d: int) -> Callable:
    w = np.random.default_rng(seed).normal(0.0, 1.0 / math.sqrt(d), (d, d))

    def sublayer(h):
        return np.asarray(h, dtype=float) @ w.T

    return sublayer


def check_post_ln(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, sublayer)`` = LayerNorm(x + sublayer(x)) (γ = 1, β = 0).

    Capítulo 7: El bloque completo: Post-LN y Pre-LN (Vaswani et al. 2017, §3.1).
    ``x`` es un vector (d,) o un lote (..., d); ``sublayer`` una función F.
    """
    attention = np.array([0.30, -0.20, 0.15, 0.45])
    inputs = [
        (
            "«perro» con la salida de atención del curso",
            ([0.50, 1.15, 0.78, 0.88], lambda h: attention),
        ),
        ("una subcapa que devuelve 0", (list(EXAMPLE), lambda h: 0.0 * np.asarray(h))),
        ("una subcapa lineal aleatoria", (list(EXAMPLE), _linear(7, 4))),
        (
            "un lote (3, 4) con una subcapa lineal",
            (np.random.default_rng(3).normal(size=(3, 4)), _linear(8, 4)),
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


def _tiny_blocks(seed: int = 0):
    """Un bloque Pre-LN y un lote pequeños y sembrados (sin tocar el RNG global)."""
    import torch

    from resnorm.blocks import PreLNBlock

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        block = PreLNBlock(d_model=8, n_heads=2, d_ff=16).double().eval()
        x = torch.randn(2, 3, 8, dtype=torch.float64)
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
        what = f"un bloque Pre-LN sembrado (semilla {seed}), x de forma (2, 3, 8)"
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
    ]

    def student(block, x):
        with torch.no_grad():
            return as_numpy(fn)(block, x)

    return check_with_mistakes(
        "El «forward» de un bloque Pre-LN",
        student if callable(fn) else fn,
        cases,
        "Dos líneas: x = x + block.attn(block.ln_1(x)); "
        "x = x + block.mlp(block.ln_2(x)); return x.",
        mistakes,
        rtol=1e-9,
        atol=1e-12,
    )


# --- Capítulo 8: el vector «perro» paso a paso --------------------------------------


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
        "x1 = layer_norm(ex.x + ex.attention_output, ex.gamma1, ex.beta1); "
        "después layer_norm(x1 + ex.ffn(x1), ex.gamma2, ex.beta2).",
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
        "h = ex.x + ex.attention_output; "
        "devuelve h + ex.ffn(layer_norm(h, ex.gamma2, ex.beta2)).",
        mistakes,
    )


# --- Capítulo 9: profundidad ---------------------------------------------------------


def check_pre_ln_stream_std(fn: Callable) -> Feedback:
    """Comprueba ``fn(n_layers)`` = √(1 + L): la std del flujo residual Pre-LN.

    Capítulo 9: Profundidad: escalas y gradientes. Entrada con varianza 1 y cada
    capa suma W·LN(h), de varianza 1 e independiente de h: Var(h_L) = 1 + L.
    """
    cases = [
        (f"{n} capas", (n,), math.sqrt(1 + n)) for n in (0, 1, 3, 24, 96)
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
        "Std del flujo residual Pre-LN",
        fn,
        cases,
        "Las varianzas de sumandos independientes se suman: 1 (la entrada) + 1 por "
        "capa. La std es la raíz de la varianza.",
        mistakes,
    )


def check_residual_stream_std(fn: Callable) -> Feedback:
    """Comprueba ``fn(n_layers)`` = √2^L: la std de h ← h + W h sin LayerNorm.

    Capítulo 9: Profundidad: escalas y gradientes. Con Var(W h) = Var(h) y W h
    independiente de h, cada capa duplica la varianza: Var(h_L) = 2^L.
    """
    cases = [(f"{n} capas", (n,), math.sqrt(2.0) ** n) for n in (0, 1, 4, 10, 96)]
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
        "Std del flujo residual sin LayerNorm",
        fn,
        cases,
        "Var(h + W h) = Var(h) + Var(W h) = 2·Var(h) en cada capa; std = √Var.",
        mistakes,
        rtol=1e-9,
    )


# --- Capítulo 10: resumen y siguiente paso ------------------------------------------


def check_layernorm_count(fn: Callable) -> Feedback:
    """Comprueba ``fn(n_blocks, order)``: cuántas LayerNorm tiene una pila.

    Capítulo 10: Resumen y siguiente paso. Cada bloque tiene dos subcapas y una
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
        "Dos por bloque (una por subcapa) y, solo en Pre-LN, una más al final.",
        mistakes,
    )


def _stack_blocks(seed: int, n: int, d: int = 4):
    return [(_linear(seed + 2 * i, d), _linear(seed + 2 * i + 1, d)) for i in range(n)]


def _pre_ln_stack(x, blocks, eps):
    h = np.asarray(x, dtype=float)
    for attention, ffn in blocks:
        h = pre_ln(h, attention, eps=eps)  # h + Atención(LN(h))
        h = pre_ln(h, ffn, eps=eps)  # h + FFN(LN(h))
    return layer_norm(h, eps=eps)  # ln_f


def check_pre_ln_stack(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, blocks, eps)``: una pila Pre-LN con LayerNorm final.

    Capítulo 10: Resumen y siguiente paso (el gancho al Paso 8). ``blocks`` es una
    lista de pares ``(attention, ffn)`` de funciones (d,) → (d,). Por bloque:
    h ← h + attention(LN(h)); h ← h + ffn(LN(h)). Al final, LN(h) (la ``ln_f``).
    Todas las LayerNorm sin γ ni β y con el mismo ``eps``.
    """
    perro = [0.50, 1.15, 0.78, 0.88]
    inputs = [
        ("«perro» con 0 bloques (solo la LN final)", (perro, [], 1e-5)),
        ("«perro» con 1 bloque", (perro, _stack_blocks(10, 1), 1e-5)),
        ("«perro» con 6 bloques", (perro, _stack_blocks(20, 6), 1e-5)),
        ("el vector del curso con 3 bloques y ε = 10⁻³", (list(EXAMPLE),
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
        "Recorre blocks; en cada uno h = h + attention(layer_norm(h, eps=eps)) y "
        "h = h + ffn(layer_norm(h, eps=eps)). Devuelve layer_norm(h, eps=eps).",
        mistakes,
    )
