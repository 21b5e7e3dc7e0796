"""Capítulo 1: los comprobadores del factor tras apilar capas y de la pila residual."""

from __future__ import annotations

import numpy as np

from resnorm.exercises import ch01


def depth_factor(factor, depth):
    return factor**depth


def residual_stack(x, layers):
    h = x
    for layer in layers:
        h = h + layer(h)
    return h


def _stack_without_shortcut(x, layers):
    h = x
    for layer in layers:
        h = layer(h)
    return h


SOLUTIONS = [
    (ch01.check_depth_factor, depth_factor),
    (ch01.check_residual_stack, residual_stack),
]

MISTAKES = [
    (ch01.check_depth_factor, lambda f, d: f * d, "producto repetido"),
    (ch01.check_depth_factor, lambda f, d: f ** (d - 1), "una capa de menos"),
    (ch01.check_residual_stack, _stack_without_shortcut, "no tiene atajo"),
    (ch01.check_residual_stack,
     lambda x, layers: x + sum((layer(x) for layer in layers), 0 * x),
     "entrada original x"),
]


def _depth_factor_loop(factor, depth):
    total = 1.0
    for _ in range(depth):
        total *= factor
    return total


def _residual_stack_reduce(x, layers):
    from functools import reduce

    return reduce(lambda h, layer: h + layer(h), layers, x)


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch01.check_depth_factor, _depth_factor_loop, "bucle"),
    (ch01.check_depth_factor, lambda f, d: __import__("math").pow(f, d), "math.pow"),
    (ch01.check_residual_stack, _residual_stack_reduce, "reduce"),
]


def _depth_factor_float32(factor, depth):
    import torch

    return torch.tensor(factor) ** depth  # torch.tensor(0.9) es float32


def _residual_stack_float32(x, layers):
    h = np.asarray(x, dtype=np.float32)
    for layer in layers:
        h = h + layer(h)
    return h


#: Respuestas correctas en float32 (el tipo por defecto de torch): también pasan.
FLOAT32 = [
    (ch01.check_depth_factor, _depth_factor_float32, "torch.tensor(factor) ** depth"),
    (ch01.check_residual_stack, _residual_stack_float32, "NumPy en float32"),
]
