"""Capítulo 2: los comprobadores de la suma residual, su derivada, la tolerancia, la
predicción de la identidad y los pesos que hacen de la capa residual la identidad."""

from __future__ import annotations

import numpy as np

from resnorm.exercises import ch02


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


def identity_prediction():
    return "residual"


def identity_weights(d):
    return np.zeros((d, d)), np.zeros(d)


def _grad_only_f(F, x):
    import torch

    t = torch.tensor(x, requires_grad=True, dtype=torch.float64)
    F(t).backward()
    return t.grad


def _grad_value(F, x):
    import torch

    t = torch.tensor(x, requires_grad=True, dtype=torch.float64)
    return t + F(t)


SOLUTIONS = [
    (ch02.check_residual_sum, residual_sum),
    (ch02.check_residual_grad, residual_grad),
    (ch02.check_vectors_close, vectors_close),
    (ch02.check_identity_prediction, identity_prediction),
    (ch02.check_identity_weights, identity_weights),
]

MISTAKES = [
    (ch02.check_residual_sum, lambda x, fx: fx, "sin atajo"),
    (ch02.check_residual_sum, lambda x, fx: x - fx, "restando"),
    (ch02.check_residual_grad, _grad_only_f, "derivada de la capa sola"),
    (ch02.check_residual_grad, _grad_value, "no su derivada"),
    (ch02.check_vectors_close, lambda a, b: bool(np.all(a == b)), "igualdad exacta"),
    (ch02.check_vectors_close, lambda a, b: np.isclose(a, b), "variante"),
    (ch02.check_vectors_close,
     lambda a, b: bool(np.isclose(np.sum(a), np.sum(b))), "Comparas las sumas"),
    (ch02.check_vectors_close,
     lambda a, b: np.allclose(sorted(a), sorted(b)), "Ordenas los vectores"),
    (ch02.check_identity_prediction, lambda: "plana", "tanh se curva"),
    (ch02.check_identity_prediction, lambda: "iguales", "No acaban igual"),
    (ch02.check_identity_weights, lambda d: (np.eye(d), np.zeros(d)), "W = I"),
    (ch02.check_identity_weights, lambda d: (np.zeros((d, d)), np.ones(d)), "b ≠ 0"),
]


def test_the_prediction_accepts_accents_capitals_and_synonyms():
    for answer in ("Residual", "  residual ", "con atajo", "«residual»",
                   "La capa residual", "la capa residual.", "Gana la residual",
                   "La capa con atajo"):
        assert ch02.check_identity_prediction(lambda a=answer: a).passed, answer
    for answer in ("Sin atajo", "La capa plana", "la plana"):
        fb = ch02.check_identity_prediction(lambda a=answer: a)
        assert fb.hint.startswith("La capa plana"), (answer, str(fb))
    for answer in ("Las dos iguales", "empate", "Las dos"):
        fb = ch02.check_identity_prediction(lambda a=answer: a)
        assert fb.hint.startswith("No acaban igual"), (answer, str(fb))


def test_comparing_summaries_of_the_vectors_is_not_comparing_them():
    """Ejercicio 2.3: «coinciden» es componente a componente. Dos vectores con la
    misma suma, o con los mismos números en otro orden, no coinciden."""
    for summary in (lambda a, b: bool(np.isclose(np.sum(a), np.sum(b))),
                    lambda a, b: np.allclose(np.sort(a), np.sort(b))):
        fb = ch02.check_vectors_close(summary)
        assert not fb.passed, str(fb)
        assert any(line.startswith("✗") for line in fb.lines)


def test_an_answer_the_prediction_checker_does_not_know_is_told_so():
    for answer in ("tal vez", 3, ["residual"]):
        fb = ch02.check_identity_prediction(lambda a=answer: a)
        assert not fb.passed and "No entiendo la respuesta" in str(fb)


def test_the_identity_weights_checker_names_a_wrong_shape():
    fb = ch02.check_identity_weights(lambda d: (np.zeros(d), np.zeros(d)))
    assert not fb.passed and "W debe tener forma" in str(fb)
    fb = ch02.check_identity_weights(lambda d: np.zeros((d, d)))
    assert not fb.passed and "W y b" in str(fb)


def test_the_general_hints_do_not_give_the_code():
    # Issue 14: una pista orienta, no da la solución.
    for check in (ch02.check_residual_sum, ch02.check_vectors_close):
        hint = check(lambda *args: 42.0).hint
        assert "x + fx" not in hint and "allclose(a, b)" not in hint, hint
    # Issue 49: la del 2.2 tampoco es la receta (requires_grad, backward, grad).
    hint = ch02.check_residual_grad(lambda *args: 42.0).hint
    assert not any(step in hint for step in ("requires_grad", "backward", ".grad"))


def _residual_sum_torch(x, fx):
    import torch

    return torch.tensor(x, requires_grad=True) + torch.tensor(fx)


def _residual_grad_item(F, x):
    import torch

    t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    (t + F(t)).backward()
    return t.grad.item()


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch02.check_residual_sum, _residual_sum_torch, "torch con gradiente"),
    (ch02.check_residual_sum, lambda x, fx: [a + b for a, b in zip(x, fx)], "lista"),
    (ch02.check_residual_grad, _residual_grad_item, ".item()"),
    (ch02.check_vectors_close,
     lambda a, b: all(abs(p - q) <= 1e-8 + 1e-5 * abs(q) for p, q in zip(a, b)),
     "bucle"),
    (ch02.check_identity_prediction, lambda: "Residual", "mayúscula"),
    (ch02.check_identity_weights,
     lambda d: (np.zeros((d, d)).tolist(), [0.0] * d), "listas"),
]


def _residual_sum_float32(x, fx):
    import torch

    return torch.tensor(x, dtype=torch.float32) + torch.tensor(fx, dtype=torch.float32)


def _residual_grad_float32(F, x):
    import torch

    t = torch.tensor(x, requires_grad=True)  # un float de Python: float32
    (t + F(t)).backward()
    return t.grad


def _identity_weights_float32(d):
    import torch

    return torch.zeros(d, d), torch.zeros(d)


#: Respuestas correctas en float32 (el tipo por defecto de torch): también pasan. La
#: predicción (2.4) no tiene números: es una palabra.
FLOAT32 = [
    (ch02.check_residual_sum, _residual_sum_float32, "tensores float32"),
    (ch02.check_residual_grad, _residual_grad_float32, "torch.tensor(x) float32"),
    (ch02.check_vectors_close,
     lambda a, b: np.allclose(np.float32(a), np.float32(b)), "NumPy en float32"),
    (ch02.check_identity_weights, _identity_weights_float32, "torch.zeros"),
]
