"""Comprobadores de los ejercicios del apéndice «¿Cuánto cuesta normalizar?».

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

import math
import sys
from typing import Callable

import numpy as np

from resnorm.cost import count_sweeps, effective_gbps
from resnorm.examples import TINY
from resnorm.exercises._feedback import Case, Feedback, Mistake, check_with_mistakes
from resnorm.numerics import rms_norm

__all__ = ["check_effective_gbps", "check_rms_norm_sweeps"]


# --- GB/s efectivos -----------------------------------------------------------------


def check_effective_gbps(fn: Callable) -> Feedback:
    """Comprueba ``fn(forma, segundos, itemsize=4)`` = 2 · N · d · itemsize / s / 10⁹.

    Apéndice: ¿Cuánto cuesta normalizar? Los GB/s efectivos cuentan los bytes que
    toda normalización tiene que mover como mínimo: leer x y escribir y, cada uno de
    N · d números de ``itemsize`` bytes.
    """
    cases = [
        ("`(4096, 1024)` en float32 en 4 ms", ((4096, 1024), 0.004),
         effective_gbps((4096, 1024), 4, 0.004)),
        ("`(16384, 1024)` en float32 en 20 ms", ((16384, 1024), 0.02),
         effective_gbps((16384, 1024), 4, 0.02)),
        ("`(1000, 500)` en float64 (itemsize=8) en 1 ms", ((1000, 500), 0.001, 8),
         effective_gbps((1000, 500), 8, 0.001)),
    ]

    def elements(shape):
        return math.prod(shape)

    mistakes = [
        ("Cuentas solo lo que se lee: y también se escribe, así que son dos arrays "
         "completos (2 · N · d · itemsize bytes).",
         lambda s, t, i=4: elements(s) * i / t / 1e9),
        ("Divides entre 2³⁰ (un GiB); aquí un GB son 10⁹ bytes, como en las hojas de "
         "datos de la memoria.",
         lambda s, t, i=4: 2 * elements(s) * i / t / 2**30),
        ("Cuentas números, no bytes: multiplica por itemsize (4 bytes en float32).",
         lambda s, t, i=4: 2 * elements(s) / t / 1e9),
        ("Multiplicas por el tiempo: el ancho de banda es bytes entre segundos.",
         lambda s, t, i=4: 2 * elements(s) * i * t / 1e9),
        ("Te olvidas de pasar a GB: divide los bytes por segundo entre 10⁹.",
         lambda s, t, i=4: 2 * elements(s) * i / t),
    ]
    return check_with_mistakes(
        "GB/s efectivos",
        fn,
        cases,
        "Bytes = 2 · N · d · itemsize (leer x y escribir y); GB/s = bytes / segundos "
        "/ 10⁹.",
        mistakes,
    )


# --- RMSNorm en tres pasadas --------------------------------------------------------

MAX_SWEEPS = 3
MAX_ARRAYS = 5


def _rms_cases() -> list[Case]:
    rng = np.random.default_rng(11)
    batch = rng.standard_normal((3, 4)).astype(np.float32)
    shifted = rng.standard_normal((2, 5)) + 3.0
    # El vector diminuto del capítulo 6: mean(x²) = ε, así que ε fuera de la raíz
    # da otra cosa (√ε + ε en vez de √(2ε) en el denominador).
    tiny = np.array([TINY])
    return [
        ("lote (3, 4) en float32, ε = 1e-6", (batch, 1e-6), rms_norm(batch, eps=1e-6)),
        ("lote (2, 5) con media 3, ε = 1e-5", (shifted, 1e-5),
         rms_norm(shifted, eps=1e-5)),
        ("fila de ceros con ε = 1e-5 (sale 0, no NaN)", (np.zeros((1, 4)), 1e-5),
         np.zeros((1, 4))),
        ("[[0.002, 0.004]] con ε = 1e-5: mean(x²) = ε, aquí ε pesa", (tiny, 1e-5),
         rms_norm(tiny, eps=1e-5)),
    ]


def _rms_mistakes() -> list[Mistake]:
    def mean_sq(x):
        return np.mean(np.asarray(x, float) ** 2, axis=-1, keepdims=True)

    def centered(x, eps):
        x = np.asarray(x, float)
        c = x - x.mean(axis=-1, keepdims=True)
        return c / np.sqrt(np.mean(c**2, axis=-1, keepdims=True) + eps)

    return [
        ("Restas la media: eso es LayerNorm. RMSNorm divide x entre √(mean(x²) + ε) "
         "sin centrar.", centered),
        ("ε va dentro de la raíz: √(mean(x²) + ε), no √mean(x²) + ε.",
         lambda x, eps: np.asarray(x, float) / (np.sqrt(mean_sq(x)) + eps)),
        ("Divides entre √(suma de x²): hace falta la media, la suma entre d.",
         lambda x, eps: np.asarray(x, float)
         / np.sqrt(np.sum(np.asarray(x, float) ** 2, axis=-1, keepdims=True) + eps)),
        ("Calculas la media de x² sobre todo el lote: cada fila lleva la suya "
         "(axis=-1, keepdims=True).",
         lambda x, eps: np.asarray(x, float)
         / np.sqrt(np.mean(np.asarray(x, float) ** 2) + eps)),
    ]


def check_rms_norm_sweeps(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, eps)`` = x / √(mean(x²) + ε) por fila, en ≤ 3 pasadas.

    Apéndice: ¿Cuánto cuesta normalizar? Además del resultado (igual a
    ``resnorm.rms_norm`` para lotes (N, d)), cuenta con ``resnorm.cost.count_sweeps``
    las pasadas por memoria de la función sobre un lote: como mucho 3 pasadas y
    tráfico 5 (la receta x² → media → x / √(… + ε)). Lo que calcula torch
    (``F.rms_norm``) no se puede contar, y el mensaje lo dice.
    """
    title = "RMSNorm en tres pasadas"
    fb = check_with_mistakes(
        title,
        fn,
        _rms_cases(),
        "Tres pasos, uno por pasada: x² (elemento a elemento), su media por fila "
        "(axis=-1, keepdims=True) y x / √(media + ε).",
        _rms_mistakes(),
        rtol=1e-5,
        atol=1e-6,
    )
    if not fb.passed:
        return fb
    x = np.random.default_rng(12).standard_normal((8, 32)).astype(np.float32)
    try:
        counted = count_sweeps(fn, x, 1e-6)
    except Exception as exc:  # el estudiante puede usar algo que no se deja envolver
        fb.passed = False
        fb.lines.append(
            f"✗ No pude contar las pasadas: la función lanzó {type(exc).__name__} con "
            "el array envuelto. Usa operaciones de NumPy (np.mean, np.sqrt, *, /)."
        )
        return fb
    ops = ", ".join(counted["ops"]) or "ninguna"
    if counted["sweeps"] == 0 and _uses_torch(fn, x, 1e-6):
        fb.passed = False
        fb.lines.append(
            "✗ El resultado es correcto, pero está calculado con torch. Este "
            "ejercicio cuenta las pasadas de NumPy sobre x, y lo que hace torch "
            "(F.rms_norm, torch.mean…) no se puede contar desde aquí."
        )
        fb.hint = (
            "Escríbela con operaciones de NumPy sobre x (x * x, np.mean(..., "
            "axis=-1, keepdims=True), np.sqrt), sin pasar x a un tensor."
        )
    elif counted["sweeps"] == 0:
        fb.passed = False
        fb.lines.append(
            "✗ No vi ninguna operación de NumPy sobre el lote completo: ¿conviertes x "
            "con np.asarray o recorres los números con un bucle de Python? Usa "
            "operaciones de NumPy sobre x para que se puedan contar."
        )
        fb.hint = "Trabaja con x directamente: x * x, np.mean(..., axis=-1), np.sqrt."
    elif counted["sweeps"] > MAX_SWEEPS or counted["arrays"] > MAX_ARRAYS:
        fb.passed = False
        fb.lines.append(
            f"✗ El resultado es correcto, pero haces {counted['sweeps']} pasadas "
            f"(tráfico {counted['arrays']} arrays: {ops}); se puede en "
            f"{MAX_SWEEPS} con tráfico {MAX_ARRAYS}."
        )
        fb.hint = (
            "No guardes pasos intermedios que no hacen falta: x² para la media, y "
            "después una sola división de x entre √(media + ε), que es (N, 1)."
        )
    else:
        fb.lines.append(
            f"✓ {counted['sweeps']} pasadas por memoria, tráfico {counted['arrays']} "
            f"arrays ({ops})"
        )
    return fb


def _uses_torch(fn: Callable, x: np.ndarray, eps: float) -> bool:
    """¿Calcula ``fn(x, eps)`` con torch? Sí si devuelve un tensor o si PyTorch
    despacha alguna operación mientras se ejecuta. Sin torch importado, no puede."""
    if "torch" not in sys.modules:
        return False
    from torch.utils._python_dispatch import TorchDispatchMode

    seen = []

    class _Seen(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    try:
        with np.errstate(all="ignore"), _Seen():
            out = fn(x.copy(), eps)
    except Exception:  # el estudiante puede lanzar cualquier cosa
        return False
    return bool(seen) or hasattr(out, "detach")
