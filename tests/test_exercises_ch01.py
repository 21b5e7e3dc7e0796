"""Capítulo 1: los comprobadores del factor tras apilar capas y de la pila residual."""

from __future__ import annotations

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
