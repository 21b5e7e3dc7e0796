"""Las preguntas leen lo que escribe quien aprende con la notación de la página.

Issue 50: «4.0 × 10⁻⁵» (la notación de ``format_sci``), «16 MiB» (con la unidad de la
pregunta) y tres despistes que recibían el «Todavía no» genérico: MB por MiB, γ y β
cambiados y el logaritmo en base 10. ``quiz_core.js`` se ejecuta con Node, como en
``tests/test_quiz.py``, y lee cada número que escribe Python (``resnorm.book``) igual
que ``parse_numbers``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from resnorm import examples
from resnorm.book import format_number, format_sci, parse_numbers
from resnorm.numerics import layer_norm_steps
from resnorm.quiz import Numeric, bank, question_state
from tests import test_quiz
from tests.test_quiz import _mistake, _numeric

#: La fixture que ejecuta quiz_core.js con Node: la misma de test_quiz.py.
js = test_quiz.js


def _check(js, qid, typed):
    """Lo que dice el navegador de ``typed`` como respuesta a la pregunta ``qid``."""
    q = question_state(_numeric(qid))
    (parsed,) = js([["parseAnswer", [typed, q.get("unit")]]])
    assert parsed["ok"], (typed, parsed)
    (got,) = js([["checkNumeric", [q, parsed["value"], parsed.get("decimals"),
                                   parsed.get("otherUnit")]]])
    return got


@pytest.mark.parametrize("typed", [
    "4.0 \u00d7 10\u207b\u2075", "4,0 \u00d7 10\u207b\u2075", "4.0\u00d710\u207b\u2075",
    "4.0 x 10^-5", "4.0*10**-5", "4,04\u00b710^-5",
])
def test_the_page_s_own_times_ten_notation_is_accepted(js, typed):
    assert _check(js, "ch01-factor-09", typed)["status"] == "correct"


def test_js_reads_every_number_python_writes_as_parse_numbers_does(js):
    """Paridad: lo que escribe ``format_sci`` o ``format_number`` (la prosa, las
    soluciones) lo lee ``parseAnswer`` como ``resnorm.book.parse_numbers``."""
    values = [4.04e-5, -2.7427e-16, 1.14e4, 6.02e23, 0.9**96, -1.1294, 16.0, 1e-5]
    texts = [format_sci(v, d) for v in values for d in (1, 2, 3)]
    texts += [format_number(v, 4) for v in values if abs(v) > 1e-3]
    out = js([["parseAnswer", [t]] for t in texts])
    for text, got in zip(texts, out, strict=True):
        (expected,) = parse_numbers(text)
        assert got["ok"], (text, got)
        assert got["value"] == pytest.approx(expected, rel=1e-12), text


def test_every_numeric_answer_written_as_the_page_writes_it_is_correct(js):
    """Cada respuesta numérica del banco, escrita con ``format_sci`` con las cifras
    que pide su tolerancia, se da por buena."""
    cases = []
    for key in bank.chapters():
        for questions in bank.chapter(key).values():
            for q in questions:
                if not isinstance(q, Numeric) or q.answer == 0:
                    continue
                # Cifras significativas para que el redondeo caiga dentro de ±tol.
                digits = max(1, math.ceil(math.log10(abs(q.answer) / q.tol)) + 1)
                cases.append((question_state(q), format_sci(q.answer, digits)))
    parsed = js([["parseAnswer", [text, q.get("unit")]] for q, text in cases])
    checks = js([["checkNumeric", [q, p["value"], p.get("decimals")]]
                 for (q, _), p in zip(cases, parsed, strict=True)])
    for (q, text), got in zip(cases, checks, strict=True):
        assert got["status"] == "correct", (q["id"], text, got)


@pytest.mark.parametrize("typed", ["16 MiB", "16MiB", "16 mib", "16,0 MiB", "16"])
def test_the_answer_with_its_unit_is_correct(js, typed):
    assert _check(js, "coste-mib", typed)["status"] == "correct"


def test_megabytes_for_mebibytes_is_named(js):
    q = _numeric("coste-mib")
    mb = _mistake(q, "MB, no MiB")
    assert mb == pytest.approx(4096 * 1024 * 4 / 1e6)
    for typed in ("16.78", "16,78 MB", "16.777"):
        got = _check(js, "coste-mib", typed)
        assert got["status"] == "mistake", typed
        assert "diste MB, no MiB" in got["message"] and "10⁶" in got["message"]


def test_the_right_number_in_another_unit_is_named_not_accepted(js):
    got = _check(js, "coste-mib", "16 MB")
    assert got["status"] == "unit" and got["otherUnit"] == "MB"
    (text,) = js([["unitText", [got]]])
    assert "MiB" in text and "«MB»" in text


def test_a_unit_where_the_question_has_none_is_not_a_number(js):
    (got,) = js([["parseAnswer", ["0.25 MiB", None]]])
    assert not got["ok"]


def test_gamma_and_beta_swapped_is_named(js):
    q = _numeric("ch05-gamma-beta")
    steps = layer_norm_steps(np.array(examples.VECTOR), np.array(examples.GAMMA),
                             np.array(examples.BETA), eps=0.0)
    x_hat = float(steps.normalized[0])
    swapped = examples.BETA[0] * x_hat + examples.GAMMA[0]
    assert _mistake(q, "cambiaste γ por β") == pytest.approx(swapped)
    got = _check(js, "ch05-gamma-beta", format_number(swapped, 4))
    assert got["status"] == "mistake" and "cambiaste γ por β" in got["message"]


def test_log10_in_the_log_question_is_named(js):
    q = _numeric("gpt-uniforme")
    vocab = round(math.exp(q.answer))
    assert _mistake(q, "base 10") == pytest.approx(math.log10(vocab))
    got = _check(js, "gpt-uniforme", format_number(math.log10(vocab), 3))
    assert got["status"] == "mistake" and "base 10" in got["message"]


def test_only_a_question_with_a_unit_carries_it_to_the_browser():
    with_unit = question_state(_numeric("coste-mib"))
    without = question_state(_numeric("ch01-factor-09"))
    assert with_unit["unit"] == "MiB" and "unit" not in without
    with pytest.raises(ValueError, match="unidad"):
        Numeric(id="x", prompt="?", answer=1.0, tol=0.1, hints=("a",),
                solution="b", unit="mega bytes")
