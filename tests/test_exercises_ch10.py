"""Capítulo 10: los comprobadores del GPT diminuto (pérdida del unigrama y el bloque
Pre-LN sin el atajo de la FFN)."""

from __future__ import annotations

import math
import numpy as np

from resnorm.exercises import ch10


def stub(*args):
    raise NotImplementedError  # escribe aquí tu solución


def unigram_solution(train, val, vocab_size):
    counts = np.bincount(train, minlength=vocab_size) + 1
    return float(-np.log((counts / counts.sum())[val]).mean())


SOLUTIONS = [
    (ch10.check_unigram_loss, unigram_solution),
    (ch10.check_remove_ffn_shortcut, ch10._solution),
]


def _kept_both(block, x):
    x = x + block.attn(block.ln_1(x))
    return x + block.mlp(block.ln_2(x))


def _ln_1_twice(block, x):
    x = x + block.attn(block.ln_1(x))
    return block.mlp(block.ln_1(x))


def _post_ln(block, x):
    x = block.ln_1(x + block.attn(x))
    return block.ln_2(block.mlp(x))


MISTAKES = [
    (ch10.check_remove_ffn_shortcut, _kept_both, "dos atajos"),
    (ch10.check_remove_ffn_shortcut, _ln_1_twice, "block.ln_2(x)"),
    (ch10.check_remove_ffn_shortcut, _post_ln, "Post-LN"),
    (ch10.check_unigram_loss, lambda t, v, n: math.log(n), "ln V"),
    (ch10.check_unigram_loss,
     lambda t, v, n: unigram_solution(t, v, n) / math.log(2), "base 2"),
]


def test_remove_shortcut_checker_names_the_typical_mistakes():
    def kept_both(block, x):
        x = x + block.attn(block.ln_1(x))
        return x + block.mlp(block.ln_2(x))

    def cut_attention(block, x):
        x = block.attn(block.ln_1(x))
        return x + block.mlp(block.ln_2(x))

    def dropped_ln(block, x):
        x = x + block.attn(block.ln_1(x))
        return block.mlp(x)

    assert "dos atajos" in ch10.check_remove_ffn_shortcut(kept_both).hint
    assert "atención" in ch10.check_remove_ffn_shortcut(cut_attention).hint
    assert "LN₂" in ch10.check_remove_ffn_shortcut(dropped_ln).hint


def test_unigram_checker_names_the_missing_smoothing():
    def no_smoothing(train, val, vocab_size):
        counts = np.bincount(train, minlength=vocab_size).astype(float)
        with np.errstate(divide="ignore"):
            return float(-np.log((counts / counts.sum())[val]).mean())

    feedback = ch10.check_unigram_loss(no_smoothing)
    assert not feedback and "sumar 1" in feedback.hint


def test_training_the_exercise_waits_for_a_passing_block(capsys):
    assert ch10.train_without_ffn_shortcut(stub) is None
    assert "Primero completa el ejercicio" in capsys.readouterr().out


def _unigram_counter(train, val, vocab_size):
    from collections import Counter

    counts = Counter(train)
    total = len(train) + vocab_size
    return -sum(math.log((counts[c] + 1) / total) for c in val) / len(val)


def _without_ffn_shortcut_named(block, x):
    h = x + block.attn(block.ln_1(x))
    out = block.mlp(block.ln_2(h))
    return out


#: Respuestas correctas escritas de otra manera: también pasan.
ALTERNATIVES = [
    (ch10.check_unigram_loss, _unigram_counter, "Counter"),
    (ch10.check_remove_ffn_shortcut, _without_ffn_shortcut_named, "con nombres"),
]


def _unigram_float32(train, val, vocab_size):
    import torch

    counts = torch.bincount(torch.tensor(train), minlength=vocab_size).float() + 1
    return -torch.log((counts / counts.sum())[torch.tensor(val)]).mean()


def _without_ffn_shortcut_float64(block, x):
    import copy

    block = copy.deepcopy(block).double()  # una copia: el bloque del caso no cambia
    return ch10._solution(block, x.double())


#: Respuestas correctas en float32: también pasan. (El bloque del ejercicio 10.2 ya es
#: float32, como el del capítulo: su solución es la respuesta float32.)
FLOAT32 = [
    (ch10.check_unigram_loss, _unigram_float32, "torch float32"),
    (ch10.check_remove_ffn_shortcut, ch10._solution, "el bloque float32 del caso"),
]

#: Respuestas correctas en float64 que no son la solución de referencia.
FLOAT64 = [
    (ch10.check_remove_ffn_shortcut, _without_ffn_shortcut_float64, "bloque.double()"),
]
