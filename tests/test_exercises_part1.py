"""Los comprobadores de la Parte 1: la solución pasa, el stub falla con un mensaje
amable en español y cada error típico recibe la pista que lo nombra."""

from __future__ import annotations

import math

import numpy as np
import pytest

from resnorm import exercises
from resnorm.exercises import part1


def stub(*args):
    raise NotImplementedError  # escribe aquí tu solución


# --- Soluciones (las mismas ideas que las de los capítulos) --------------------------


def depth_factor(factor, depth):
    return factor**depth


def residual_stack(x, layers):
    h = x
    for layer in layers:
        h = h + layer(h)
    return h


def residual_sum(x, fx):
    return x + fx


def residual_grad(F, x):
    import torch

    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = t + F(t)
    y.backward()
    return t.grad


def vectors_close(a, b):
    return np.allclose(a, b)


def mean(x):
    return sum(x) / len(x)


def variance(x):
    mu = mean(x)
    return sum((v - mu) ** 2 for v in x) / len(x)


def std(x):
    return math.sqrt(variance(x))


def layer_norm(x, eps=1e-5):
    x = np.asarray(x, dtype=float)
    c = x - x.mean(axis=-1, keepdims=True)
    return c / np.sqrt((c**2).mean(axis=-1, keepdims=True) + eps)


def layer_norm_affine(x, gamma, beta, eps=1e-5):
    return np.asarray(gamma) * layer_norm(x, eps) + np.asarray(beta)


def undo(x, eps=1e-5):
    mu = np.mean(x)
    return np.full(len(x), np.sqrt(np.var(x) + eps)), np.full(len(x), mu)


SOLUTIONS = [
    (part1.check_depth_factor, depth_factor),
    (part1.check_residual_stack, residual_stack),
    (part1.check_residual_sum, residual_sum),
    (part1.check_residual_grad, residual_grad),
    (part1.check_vectors_close, vectors_close),
    (part1.check_mean, mean),
    (part1.check_variance, variance),
    (part1.check_std, std),
    (part1.check_layer_norm, layer_norm),
    (part1.check_layer_norm_batch, layer_norm),
    (part1.check_layer_norm_affine, layer_norm_affine),
    (part1.check_undo_normalization, undo),
]
IDS = [check.__name__ for check, _ in SOLUTIONS]


def test_every_part1_checker_is_exported_from_resnorm_exercises():
    for name in part1.__all__:
        assert getattr(exercises, name) is getattr(part1, name)
        assert name in exercises.__all__
    assert {check.__name__ for check, _ in SOLUTIONS} == set(part1.__all__)


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_the_solution_passes(check, solution):
    fb = check(solution)
    assert fb.passed, str(fb)
    assert str(fb).startswith("✅") and "✗" not in str(fb)


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_an_empty_stub_fails_kindly_in_spanish(check, solution):
    fb = check(stub)
    assert not fb.passed
    text = str(fb)
    assert text.startswith("❌")
    assert "Aún no has escrito la función" in text
    assert "Pista:" in text and "Traceback" not in text


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_a_function_that_forgets_return_is_told_so(check, solution):
    fb = check(lambda *args: None)
    assert not fb.passed and "return" in str(fb)


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_an_exception_is_reported_not_raised(check, solution):
    def broken(*args):
        raise ValueError("me equivoqué")

    fb = check(broken)
    assert not fb.passed and "ValueError" in str(fb)


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_html_feedback_is_marked(check, solution):
    assert "✅" in check(solution)._repr_html_()
    assert "❌" in check(stub)._repr_html_()


# --- Cada error típico recibe su pista -----------------------------------------------


def _sample_var(x):
    return variance(x) * len(x) / (len(x) - 1)


def _ln_eps_outside(x, eps=1e-5):
    x = np.asarray(x, dtype=float)
    c = x - x.mean(axis=-1, keepdims=True)
    return c / (np.sqrt((c**2).mean(axis=-1, keepdims=True)) + eps)


def _ln_sample(x, eps=1e-5):
    return np.asarray(
        [(v - mean(x)) / math.sqrt(_sample_var(x) + eps) for v in x]
    )


def _ln_no_eps(x, eps=1e-5):
    x = np.asarray(x, dtype=float)
    return (x - x.mean()) / x.std()


def _ln_by_column(X, eps=1e-5):
    X = np.asarray(X, dtype=float)
    return (X - X.mean(axis=0)) / np.sqrt(X.var(axis=0) + eps)


def _ln_whole_batch(X, eps=1e-5):
    X = np.asarray(X, dtype=float)
    return (X - X.mean()) / np.sqrt(X.var() + eps)


def _grad_only_f(F, x):
    import torch

    t = torch.tensor(x, requires_grad=True, dtype=torch.float64)
    F(t).backward()
    return t.grad


def _grad_value(F, x):
    import torch

    t = torch.tensor(x, requires_grad=True, dtype=torch.float64)
    return t + F(t)


def _stack_without_shortcut(x, layers):
    h = x
    for layer in layers:
        h = layer(h)
    return h


def _undo_sample(x, eps=1e-5):
    return np.std(x, ddof=1), np.mean(x)


MISTAKES = [
    (part1.check_depth_factor, lambda f, d: f * d, "producto repetido"),
    (part1.check_depth_factor, lambda f, d: f ** (d - 1), "una capa de menos"),
    (part1.check_residual_stack, _stack_without_shortcut, "no tiene atajo"),
    (part1.check_residual_stack,
     lambda x, layers: x + sum((layer(x) for layer in layers), 0 * x),
     "entrada original x"),
    (part1.check_residual_sum, lambda x, fx: fx, "sin atajo"),
    (part1.check_residual_sum, lambda x, fx: x - fx, "restando"),
    (part1.check_residual_grad, _grad_only_f, "derivada de la capa sola"),
    (part1.check_residual_grad, _grad_value, "no su derivada"),
    (part1.check_vectors_close, lambda a, b: bool(np.all(a == b)), "igualdad exacta"),
    (part1.check_vectors_close, lambda a, b: np.isclose(a, b), "np.allclose"),
    (part1.check_mean, lambda x: sum(x), "falta dividir"),
    (part1.check_mean, lambda x: sum(x) / (len(x) - 1), "len(x) − 1"),
    (part1.check_variance, _sample_var, "muestral"),
    (part1.check_variance, std, "antes de sacar la raíz"),
    (part1.check_variance, lambda x: sum((v - mean(x)) for v in x) / len(x),
     "sin elevarlas al cuadrado"),
    (part1.check_std, lambda x: math.sqrt(_sample_var(x)), "torch.std"),
    (part1.check_std, variance, "falta la raíz"),
    (part1.check_layer_norm, _ln_eps_outside, "fuera de la raíz"),
    (part1.check_layer_norm, _ln_sample, "d − 1"),
    (part1.check_layer_norm, _ln_no_eps, "No usas ε"),
    (part1.check_layer_norm, lambda x, eps=1e-5: layer_norm(x, 1e-5), "argumento eps"),
    (part1.check_layer_norm,
     lambda x, eps=1e-5: np.asarray(x) - np.mean(x), "falta el paso 2"),
    (part1.check_layer_norm_batch, _ln_by_column, "BatchNorm"),
    (part1.check_layer_norm_batch, _ln_whole_batch, "cada vector por separado"),
    (part1.check_layer_norm_affine,
     lambda x, g, b, eps=1e-5: np.asarray(b) * layer_norm(x, eps) + np.asarray(g),
     "intercambiado"),
    (part1.check_layer_norm_affine,
     lambda x, g, b, eps=1e-5: layer_norm(np.asarray(g) * x + np.asarray(b), eps),
     "antes de normalizar"),
    (part1.check_layer_norm_affine,
     lambda x, g, b, eps=1e-5: np.asarray(g) * layer_norm(x, eps), "sumar β"),
    (part1.check_undo_normalization,
     lambda x, eps=1e-5: (np.mean(x), np.std(x)), "intercambiado"),
    (part1.check_undo_normalization, _undo_sample, "muestral"),
]


@pytest.mark.parametrize(
    "check,wrong,clue", MISTAKES, ids=[f"{c.__name__}-{k}" for c, _, k in MISTAKES]
)
def test_a_typical_mistake_gets_the_hint_that_names_it(check, wrong, clue):
    fb = check(wrong)
    assert not fb.passed, f"{check.__name__} aceptó un error típico"
    assert clue in fb.hint, f"pista inesperada para {check.__name__}: {fb.hint!r}"
    assert "✗" in str(fb)


def test_an_unrecognised_mistake_gets_the_general_hint():
    fb = part1.check_mean(lambda x: 42.0)
    assert not fb.passed and fb.hint.startswith("Suma todos los valores")


def test_the_student_function_gets_copies_of_the_inputs():
    # Una función que modifica su entrada no estropea los casos siguientes ni el
    # diagnóstico: devuelve la suma (error típico) y luego borra el vector.
    def mutating(x):
        total = sum(x)
        x[:] = 0
        return total

    fb = part1.check_mean(mutating)
    assert not fb.passed and "falta dividir" in fb.hint


def test_a_non_function_is_rejected_kindly():
    for check, _ in SOLUTIONS:
        fb = check(3)
        assert not fb.passed and "Se esperaba una función" in str(fb)


def test_example_torch_std_is_0_2282():
    # Lo que dice la pista de check_std (la σ poblacional, 0.1977, la comprueba
    # test_numerics.py).
    x = list(part1.EXAMPLE)
    assert round(math.sqrt(_sample_var(x)), 4) == 0.2282
