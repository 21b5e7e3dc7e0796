"""Capítulo 10: los comprobadores del GPT diminuto (pérdida del unigrama y el bloque
Pre-LN sin el atajo de la FFN)."""

from __future__ import annotations

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
