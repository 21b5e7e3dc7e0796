"""Capítulo 9: los comprobadores de la std del flujo residual con y sin LayerNorm."""

from __future__ import annotations

import math

import pytest

from resnorm.exercises import ch09

SOLUTIONS = [
    (ch09.check_pre_ln_stream_std, lambda n: math.sqrt(1 + n)),
    (ch09.check_residual_stream_std, lambda n: math.sqrt(2) ** n),
]


def test_pre_ln_std_without_the_input_variance_is_caught():
    fb = ch09.check_pre_ln_stream_std(lambda n: math.sqrt(n))
    assert not fb.passed and "Te falta la entrada" in fb.hint


def test_residual_std_given_as_variance_is_caught():
    fb = ch09.check_residual_stream_std(lambda n: 2.0**n)
    assert not fb.passed and "Eso es la varianza" in fb.hint


def test_pre_ln_prediction_matches_the_experiment_within_ten_percent():
    from resnorm.experiments import activation_std_per_layer

    data = activation_std_per_layer(n_layers=24, width=256, batch_size=64, seed=0)
    for layer in (1, 4, 24):
        measured = data["curves"]["pre_ln"][layer]
        assert measured == pytest.approx(math.sqrt(1 + layer), rel=0.1)


def _pre_ln_loop(n):
    var = 1.0
    for _ in range(n):
        var += 1.0
    return var**0.5


def _residual_loop(n):
    var = 1.0
    for _ in range(n):
        var *= 2
    return math.sqrt(var)


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch09.check_pre_ln_stream_std, _pre_ln_loop, "bucle"),
    (ch09.check_residual_stream_std, _residual_loop, "bucle"),
    (ch09.check_residual_stream_std, lambda n: 2 ** (n / 2), "2^(L/2)"),
]


def _pre_ln_std_float32(n):
    import torch

    return torch.sqrt(torch.tensor(1.0 + n))  # float32


def _residual_std_float32(n):
    import torch

    return torch.tensor(2.0).sqrt() ** n  # el redondeo de √2, elevado a n


#: Respuestas correctas en float32 (el tipo por defecto de torch): también pasan.
FLOAT32 = [
    (ch09.check_pre_ln_stream_std, _pre_ln_std_float32, "torch float32"),
    (ch09.check_residual_stream_std, _residual_std_float32, "torch float32"),
]


def test_the_titles_say_desviacion_estandar_as_the_glossary():
    for check in (ch09.check_pre_ln_stream_std, ch09.check_residual_stream_std):
        title = check(lambda n: 0.0).title
        assert title.startswith("Desviación estándar del flujo residual"), title
