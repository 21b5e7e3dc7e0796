"""Comprobadores de los ejercicios del Capítulo 4: LayerNorm.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from resnorm.examples import EVENS, VECTOR
from resnorm.exercises._feedback import (
    Case,
    Feedback,
    Mistake,
    as_numpy,
    check_with_mistakes,
    fresh_args,
    to_numpy,
)
from resnorm.exercises._reference import arr, ln

__all__ = [
    "check_batch_to_layer_norm",
    "check_layer_norm",
    "check_layer_norm_axis",
    "check_layer_norm_batch",
]


def _ln_cases() -> list[Case]:
    x = arr(VECTOR)
    tiny = arr([0.0, 0.001, 0.002, 0.003])
    return [
        ("el vector del curso, ε = 1e-5", (x, 1e-5), ln(x, 1e-5)),
        ("el vector del curso, ε = 1e-3 (el de Keras)", (x, 1e-3), ln(x, 1e-3)),
        ("[2, 4] y [20, 40] dan casi lo mismo: [2, 4]", (arr([2, 4]), 1e-5),
         ln([2, 4])),
        ("un vector diminuto, [0, 0.001, 0.002, 0.003]", (tiny, 1e-5), ln(tiny)),
        ("un vector constante, [3, 3, 3, 3] → ceros", (arr([3, 3, 3, 3]), 1e-5),
         np.zeros(4)),
    ]


def _ln_mistakes() -> list[Mistake]:
    def eps_outside(x, eps):
        x = arr(x)
        c = x - x.mean(-1, keepdims=True)
        return c / (np.sqrt((c**2).mean(-1, keepdims=True)) + eps)

    def no_eps(x, eps):
        return ln(x, 0.0)

    def sample(x, eps):
        x = arr(x)
        c = x - x.mean(-1, keepdims=True)
        d = x.shape[-1]
        return c / np.sqrt((c**2).sum(-1, keepdims=True) / (d - 1) + eps)

    def by_variance(x, eps):
        x = arr(x)
        c = x - x.mean(-1, keepdims=True)
        return c / ((c**2).mean(-1, keepdims=True) + eps)

    def not_centered(x, eps):
        x = arr(x)
        c = x - x.mean(-1, keepdims=True)
        return x / np.sqrt((c**2).mean(-1, keepdims=True) + eps)

    def only_centered(x, eps):
        x = arr(x)
        return x - x.mean(-1, keepdims=True)

    def fixed_eps(x, eps):
        return ln(x, 1e-5)

    return [
        (
            "Sumas ε fuera de la raíz, (x − μ)/(σ + ε). PyTorch y Keras lo ponen "
            "dentro: (x − μ)/√(σ² + ε). Con vectores de varianza pequeña se nota.",
            eps_outside,
        ),
        (
            "No usas ε: con un vector constante σ² = 0 y divides 0 entre 0 (NaN). "
            "Divide entre √(σ² + ε).",
            no_eps,
        ),
        (
            "Divides entre d − 1 al calcular la varianza (la muestral). LayerNorm usa "
            "la poblacional: el promedio de (xᵢ − μ)², dividiendo entre d.",
            sample,
        ),
        (
            "Divides entre la varianza, no entre su raíz: el denominador es "
            "√(σ² + ε).",
            by_variance,
        ),
        (
            "No restas la media antes de dividir: el numerador es x − μ.",
            not_centered,
        ),
        (
            "Solo restas la media: falta el paso 2, dividir entre √(σ² + ε).",
            only_centered,
        ),
        (
            "Usas siempre ε = 1e-5 aunque te pasen otro: usa el argumento eps.",
            fixed_eps,
        ),
    ]


def check_layer_norm(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, eps)`` = (x − μ)/√(σ² + ε) para vectores (d,), sin γ ni β.

    Capítulo 4: LayerNorm.
    """
    return check_with_mistakes(
        "LayerNorm de un vector",
        fn,
        _ln_cases(),
        "Paso 1: resta la media, c = x − μ. Paso 2: divide entre √(σ² + ε), con σ² "
        "el promedio de c².",
        _ln_mistakes(),
    )


def check_layer_norm_batch(fn: Callable) -> Feedback:
    """Comprueba ``fn(X, eps)``: LayerNorm de cada fila de un lote ``X`` (n, d).

    Capítulo 4: LayerNorm. Las estadísticas se calculan por fila (por ejemplo y por
    posición), sobre el último eje, nunca mezclando filas.
    """
    rng = np.random.default_rng(7)
    batch = np.stack([arr(VECTOR), arr(EVENS), arr([20, 40, 60, 80])])
    wide = rng.normal(2.0, 3.0, size=(5, 6))
    tokens = rng.normal(size=(2, 3, 4))  # (lote, posiciones, d)
    cases = [
        ("un lote de 3 vectores, forma (3, 4)", (batch, 1e-5), ln(batch)),
        ("un lote de 5 vectores de 6 valores, forma (5, 6)", (wide, 1e-5), ln(wide)),
        ("2 frases de 3 posiciones, forma (2, 3, 4)", (tokens, 1e-5), ln(tokens)),
    ]

    def by_column(X, eps):
        X = arr(X)
        mu = X.mean(axis=0, keepdims=True)
        var = ((X - mu) ** 2).mean(axis=0, keepdims=True)
        return (X - mu) / np.sqrt(var + eps)

    def whole(X, eps):
        X = arr(X)
        return (X - X.mean()) / np.sqrt(X.var() + eps)

    mistakes = [
        (
            "Normalizas cada columna con las estadísticas del lote (axis=0): eso es "
            "lo que hace BatchNorm. LayerNorm usa las de cada fila: axis=-1.",
            by_column,
        ),
        (
            "Calculas una sola media y una sola varianza para todo el lote. LayerNorm "
            "calcula μ y σ² de cada vector por separado: axis=-1, keepdims=True.",
            whole,
        ),
    ]
    return check_with_mistakes(
        "LayerNorm de un lote",
        fn,
        cases,
        "Calcula μ y σ² de cada vector a lo largo del último eje, conservando ese "
        "eje con tamaño 1 para que la resta y la división se hagan fila a fila.",
        mistakes,
    )


# --- Ejercicios 4.3 y 4.4: el eje de la reducción en un tensor (B, T, C) ------------

#: Los nombres de los ejes de un tensor (B, T, C), para los mensajes.
_AXIS_NAMES = {
    (0,): "B (axis=0), los ejemplos del lote",
    (1,): "T (axis=1), las posiciones de cada frase",
    (0, 1): "B y T (axis=(0, 1)), todos los tokens del lote, como BatchNorm",
    (-2, -1): "T y C (axis=(1, 2)), la frase entera",
    None: "el tensor entero, sin axis",
}


def _normalize_over(axes):
    """(x − μ)/√(σ² + ε) con μ y σ² calculadas a lo largo de ``axes``."""

    def norm(x, eps=1e-5):
        x = arr(x)
        mu = x.mean(axis=axes, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
        return (x - mu) / np.sqrt(var + eps)

    return norm


def _btc_inputs() -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(14)
    course = np.stack([arr(VECTOR), arr(EVENS), arr([20, 40, 60, 80])])[None]
    return [
        ("2 frases de 3 tokens con d = 4, forma (2, 3, 4)",
         rng.normal(1.0, 2.0, size=(2, 3, 4))),
        ("4 frases de 5 tokens con d = 6, forma (4, 5, 6)",
         rng.normal(-3.0, 0.5, size=(4, 5, 6))),
        ("1 frase con el vector del curso, [2, 4, 6, 8] y [20, 40, 60, 80], "
         "forma (1, 3, 4)", course),
    ]


def _axis_mistakes(verb: str) -> list[Mistake]:
    mistakes = []
    for axes, name in _AXIS_NAMES.items():
        mistakes.append((
            f"Cada token no queda con media 0 y desviación 1: {verb} a lo largo de "
            f"{name}. LayerNorm calcula μ y σ² de cada token con sus propias C "
            "componentes, y nada más.",
            _normalize_over(axes),
        ))
    return mistakes


def _token_means_hint(fn: Callable, cases: list[Case]) -> str:
    """Si la salida tiene la forma correcta pero sus tokens no quedan con media 0."""
    for _, args, expected in cases:
        try:
            with np.errstate(all="ignore"):
                out = to_numpy(fn(*fresh_args(args)))
        except Exception:  # el estudiante puede lanzar cualquier cosa
            return ""
        if out.shape != np.shape(expected):
            return (
                f"La salida tiene forma {out.shape} y la entrada {np.shape(expected)}: "
                "si reduces un eje, mantén ese eje con tamaño 1 para que la resta y "
                "la división se hagan token a token."
            )
        if np.abs(out.mean(axis=-1)).max() > 1e-6:
            return (
                "Cada token no queda con media 0: la media que restas no es la de "
                "las C componentes de ese token."
            )
    return ""


def _summarize_btc_lines(fb: Feedback, fn: Callable, cases: list[Case]) -> None:
    """Cambia el volcado de un tensor (B, T, C) mal normalizado por su síntoma."""
    if len(fb.lines) != len(cases):
        return
    for k, (description, args, expected) in enumerate(cases):
        if np.ndim(expected) < 3 or not fb.lines[k].startswith("✗ "):
            continue
        if "obtuve" not in fb.lines[k]:
            continue
        try:
            with np.errstate(all="ignore"):
                out = to_numpy(fn(*fresh_args(args)))
        except Exception:  # el estudiante puede lanzar cualquier cosa
            continue
        if out.shape != np.shape(expected):
            fb.lines[k] = (
                f"✗ {description}: la salida tiene forma {out.shape}, se esperaba "
                f"{np.shape(expected)}"
            )
            continue
        diff = float(np.nanmax(np.abs(out - expected)))
        token_mean = float(np.nanmax(np.abs(out.mean(axis=-1))))
        symptom = (
            f"la media de un token llega a {token_mean:.3g}, no a 0"
            if token_mean > 1e-6
            else "cada token tiene media 0, pero los valores no coinciden"
        )
        fb.lines[k] = (
            f"✗ {description}: no coincide (diferencia máxima {diff:.3g}); {symptom}"
        )


def _check_btc(title: str, fn: Callable, extra_cases: list[Case], hint: str,
               verb: str) -> Feedback:
    cases = extra_cases + [
        (description, (x, 1e-5), ln(x)) for description, x in _btc_inputs()
    ]
    fb = check_with_mistakes(title, fn, cases, hint, _axis_mistakes(verb))
    if not fb.passed and callable(fn):
        _summarize_btc_lines(fb, fn, cases)
    if fb.passed or fb.hint != hint or len(fb.lines) != len(cases):
        return fb  # bien, sin escribir, sin return o con un error típico reconocido
    n = len(extra_cases)
    if all(line.startswith("✓") for line in fb.lines[n:]):
        fb.hint = (
            "Con (B, T, C) ya funciona; con un lote (n, d), no. El eje de las "
            "componentes es el último en las dos formas: cuéntalo desde el final."
        )
    else:
        fb.hint = _token_means_hint(fn, cases[n:]) or hint
    return fb


def check_layer_norm_axis(fn: Callable) -> Feedback:
    """Comprueba la LayerNorm arreglada ``fn(x, eps)`` de un tensor (B, T, C).

    Capítulo 4: LayerNorm (ejercicio del fallo). μ y σ² se calculan por token, a lo
    largo del último eje (C): ``x.mean(axis=-1, keepdims=True)``. Los casos (B, T, C)
    están elegidos para que reducir a lo largo de B, de T o de los dos dé otra cosa.
    """
    rows = np.stack([arr(VECTOR), arr(EVENS)])
    extra = [("un lote de 2 vectores, forma (2, 4)", (rows, 1e-5), ln(rows))]
    return _check_btc(
        "LayerNorm de un tensor (B, T, C), arreglada",
        fn,
        extra,
        "Escribe la forma de cada paso: ¿qué forma tiene μ? Debe haber una media "
        "por token, (B, T, 1), no una por frase ni por componente.",
        "normalizas",
    )


def check_batch_to_layer_norm(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, eps)``: la BatchNorm del capítulo con una línea cambiada.

    Capítulo 4: LayerNorm. Debe dar lo mismo que
    ``torch.nn.functional.layer_norm(x, (C,), eps=eps)`` en tensores (B, T, C): la
    reducción pasa de los ejes B y T (BatchNorm) al eje C (LayerNorm).
    """
    import torch
    from torch.nn import functional as F

    def reference(x, eps):
        t = torch.as_tensor(x, dtype=torch.float64)
        return F.layer_norm(t, t.shape[-1:], eps=eps).numpy()

    cases = [
        (description, (x, 1e-5), reference(x, 1e-5))
        for description, x in _btc_inputs()
    ]
    x_keras = _btc_inputs()[0][1]
    cases.append((
        "el primer tensor (2, 3, 4) con eps = 1e-3", (x_keras, 1e-3),
        reference(x_keras, 1e-3),
    ))
    mistakes = _axis_mistakes("reduces")
    mistakes[2] = (
        "Sigue siendo BatchNorm: cada componente se normaliza con los tokens de todo "
        "el lote, a lo largo de B y T. Cambia los ejes de la reducción: LayerNorm "
        "reduce a lo largo del otro eje, el de las C componentes de cada token.",
        _normalize_over((0, 1)),
    )
    mistakes.append((
        "El eje es el bueno, pero usas siempre ε = 1e-5: usa el argumento eps.",
        lambda x, eps=1e-5: ln(x, 1e-5),
    ))
    fb = check_with_mistakes(
        "De BatchNorm a LayerNorm",
        fn,
        cases,
        "Copia batch_norm tal cual y cambia solo la línea que dice a lo largo de qué "
        "ejes se calculan μ y σ².",
        mistakes,
    )
    if not fb.passed and callable(fn):
        _summarize_btc_lines(fb, as_numpy(fn), cases)
    return fb
