"""Capítulo 2: los comprobadores de la suma residual, su derivada y la tolerancia."""

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
]

MISTAKES = [
    (ch02.check_residual_sum, lambda x, fx: fx, "sin atajo"),
    (ch02.check_residual_sum, lambda x, fx: x - fx, "restando"),
    (ch02.check_residual_grad, _grad_only_f, "derivada de la capa sola"),
    (ch02.check_residual_grad, _grad_value, "no su derivada"),
    (ch02.check_vectors_close, lambda a, b: bool(np.all(a == b)), "igualdad exacta"),
    (ch02.check_vectors_close, lambda a, b: np.isclose(a, b), "np.allclose"),
]
