"""Capítulo 3: los comprobadores de la media, la varianza y la desviación estándar."""

from __future__ import annotations

import math

import numpy as np

from resnorm.examples import VECTOR
from resnorm.exercises import ch03


def mean(x):
    return sum(x) / len(x)


def variance(x):
    mu = mean(x)
    return sum((v - mu) ** 2 for v in x) / len(x)


def std(x):
    return math.sqrt(variance(x))


def _sample_var(x):
    return variance(x) * len(x) / (len(x) - 1)


SOLUTIONS = [
    (ch03.check_mean, mean),
    (ch03.check_variance, variance),
    (ch03.check_std, std),
]

MISTAKES = [
    (ch03.check_mean, lambda x: sum(x), "falta dividir"),
    (ch03.check_mean, lambda x: sum(x) / (len(x) - 1), "len(x) − 1"),
    (ch03.check_variance, _sample_var, "muestral"),
    (ch03.check_variance, std, "antes de sacar la raíz"),
    (ch03.check_variance, lambda x: sum((v - mean(x)) for v in x) / len(x),
     "sin elevarlas al cuadrado"),
    (ch03.check_std, lambda x: math.sqrt(_sample_var(x)), "torch.std"),
    (ch03.check_std, variance, "falta la raíz"),
]


def test_an_unrecognised_mistake_gets_the_general_hint():
    fb = ch03.check_mean(lambda x: 42.0)
    assert not fb.passed and fb.hint.startswith("Suma todos los valores")
    assert "sum(x) / len(x)" not in fb.hint  # issue 14: la pista no da el código


def test_the_student_function_gets_copies_of_the_inputs():
    # Una función que modifica su entrada no estropea los casos siguientes ni el
    # diagnóstico: devuelve la suma (error típico) y luego borra el vector.
    def mutating(x):
        total = sum(x)
        x[:] = 0
        return total

    fb = ch03.check_mean(mutating)
    assert not fb.passed and "falta dividir" in fb.hint


def test_check_std_hint_quotes_the_sample_std_of_the_example():
    # La pista de check_std cita la desviación muestral del vector del curso, calculada
    # aquí aparte (que la poblacional vale 0.1977 lo comprueba test_numerics.py).
    x = list(VECTOR)
    sample = f"{math.sqrt(_sample_var(x)):.4f}"
    fb = ch03.check_std(lambda v: math.sqrt(_sample_var(list(v))))
    assert not fb.passed and f"({sample} para el vector del curso)" in fb.hint


def _torch(fn):
    def wrapped(x):
        import torch

        return fn(torch.tensor(x, dtype=torch.float64, requires_grad=True))

    return wrapped


def _variance_loop(x):
    m = 0.0
    for v in x:
        m += v / len(x)
    total = 0.0
    for v in x:
        total += (v - m) ** 2
    return total / len(x)


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch03.check_mean, _torch(lambda t: t.mean()), "torch con gradiente"),
    (ch03.check_mean, lambda x: float(np.mean(x)), "np.mean"),
    (ch03.check_variance, _variance_loop, "bucle"),
    (ch03.check_variance, _torch(lambda t: t.var(correction=0)), "torch con gradiente"),
    (ch03.check_std, _torch(lambda t: t.std(correction=0)), "torch con gradiente"),
    (ch03.check_std, lambda x: np.std(x), "np.std"),
]


def _float32(x):
    import torch

    return torch.tensor(x, dtype=torch.float32)


#: Respuestas correctas en float32 (el tipo por defecto de torch): también pasan.
FLOAT32 = [
    (ch03.check_mean, lambda x: _float32(x).mean(), "torch float32"),
    (ch03.check_variance, lambda x: _float32(x).var(correction=0), "torch float32"),
    (ch03.check_std, lambda x: _float32(x).std(correction=0), "torch float32"),
]
