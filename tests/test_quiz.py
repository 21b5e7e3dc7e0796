"""Las preguntas del curso: sus valores salen de resnorm y el navegador las corrige.

- Cada respuesta y cada error típico del banco coinciden con un cálculo independiente
  (NumPy directo, aritmética), y cada error se distingue de la respuesta.
- ``quiz_core.js``, ejecutado con Node, lee lo que escribe una persona (coma o punto,
  espacios, signo menos tipográfico, fracciones) y da un mensaje en español ante lo
  que no es un número; nunca NaN, «undefined» ni «Infinity».
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from resnorm.quiz import Choice, Mistake, Numeric, Option, Quiz, bank, question_state
from resnorm.examples import VECTOR

QUIZ_DIR = Path(bank.__file__).resolve().parent
NODE = shutil.which("node")
X = np.array(VECTOR)


def _numeric(qid):
    for key in bank.chapters():
        for questions in bank.chapter(key).values():
            for q in questions:
                if q.id == qid:
                    return q
    raise KeyError(qid)


def _mistake(q, fragment):
    found = [m for m in q.mistakes if fragment in m.name]
    assert len(found) == 1, (q.id, fragment, [m.name for m in q.mistakes])
    return found[0].value


def test_every_chapter_has_at_least_three_questions():
    counts = {
        key: sum(len(qs) for qs in bank.chapter(key).values())
        for key in bank.chapters()
    }
    assert all(n >= 3 for n in counts.values()), (
        f"preguntas por capítulo: {counts}. Cada capítulo necesita al menos tres en "
        "su función de resnorm/quiz/bank.py"
    )


def test_question_ids_are_unique_across_the_course():
    ids = [qid for qs in bank.manifest().values() for qid in qs]
    assert len(ids) == len(set(ids))


def test_sigma_question_and_its_mistakes_match_numpy():
    q = _numeric("ch03-sigma")
    assert q.answer == pytest.approx(X.std(), abs=1e-12)
    assert _mistake(q, "n − 1") == pytest.approx(X.std(ddof=1), abs=1e-12)
    assert _mistake(q, "varianza") == pytest.approx(X.var(), abs=1e-12)
    assert _mistake(q, "absolutos") == pytest.approx(
        np.abs(X - X.mean()).mean(), abs=1e-12
    )


def test_mean_and_deviation_questions_match_numpy():
    q = _numeric("ch03-media")
    assert q.answer == pytest.approx(X.mean())
    assert _mistake(q, "no dividiste") == pytest.approx(X.sum())
    assert _mistake(q, "n − 1") == pytest.approx(X.sum() / 3)
    q = _numeric("ch03-desvio")
    assert q.answer == pytest.approx((X[3] - X.mean()) ** 2)
    assert _mistake(q, "cuadrado") == pytest.approx(X[3] - X.mean())


def test_layer_norm_questions_match_the_formula():
    q = _numeric("ch04-componente")
    assert q.answer == pytest.approx((X[3] - X.mean()) / X.std())
    assert _mistake(q, "muestral") == pytest.approx((X[3] - X.mean()) / X.std(ddof=1))
    assert _mistake(q, "σ²") == pytest.approx((X[3] - X.mean()) / X.var())
    q = _numeric("ch04-epsilon")
    assert q.answer == pytest.approx((X[3] - X.mean()) / np.sqrt(X.var() + 1e-3))
    assert _mistake(q, "fuera de la raíz") == pytest.approx(
        (X[3] - X.mean()) / (X.std() + 1e-3)
    )


def test_gamma_beta_and_rms_questions_match_the_formula():
    x_hat = (X - X.mean()) / np.sqrt(X.var() + 1e-5)
    q = _numeric("ch05-gamma-beta")
    assert q.answer == pytest.approx(1.2 * x_hat[0] + 0.1)
    assert _mistake(q, "olvidaste β") == pytest.approx(1.2 * x_hat[0])
    assert _mistake(q, "antes") == pytest.approx(1.2 * (x_hat[0] + 0.1))
    q = _numeric("ch06-rms")
    assert q.answer == pytest.approx(X[0] / np.sqrt(np.mean(X**2) + 1e-8), abs=1e-6)
    assert _mistake(q, "restaste la media") == pytest.approx(x_hat[0])


def test_counting_and_cost_questions_match_the_arithmetic():
    assert _numeric("ch05-cuantos-gamma").answer == 25
    assert _numeric("ch07-cuantas-post").answer == 12
    assert _numeric("ch02-atajos").answer == 24
    assert _numeric("coste-mib").answer == 4096 * 1024 * 4 / 2**20
    assert _numeric("ch09-raiz-L").answer == pytest.approx(math.sqrt(17))
    assert _numeric("ch01-factor-09").answer == pytest.approx(0.9**96)
    assert _numeric("gpt-uniforme").answer == pytest.approx(math.log(80))


def test_a_mistake_that_equals_the_answer_is_refused():
    with pytest.raises(ValueError, match="no se distinguen"):
        Numeric(
            id="x",
            prompt="?",
            answer=1.0,
            tol=0.1,
            mistakes=(Mistake(1.05, "casi igual", "…"),),
            hints=("h",),
            solution="s",
        )


def test_a_choice_needs_exactly_one_right_option_and_every_explanation():
    with pytest.raises(ValueError, match="exactamente una"):
        Choice(
            id="c", prompt="?", options=(Option("a", True, "e"), Option("b", True, "e"))
        )
    with pytest.raises(ValueError, match="explicación"):
        Choice(
            id="c",
            prompt="?",
            options=(Option("a", True, "e"), Option("b", False, " ")),
        )


def test_question_version_changes_when_the_question_changes():
    q = _numeric("ch03-media")
    changed = Numeric(**{**q.__dict__, "prompt": q.prompt + " "})
    assert question_state(q)["version"] != question_state(changed)["version"]
    assert (
        question_state(q)["version"]
        == question_state(_numeric("ch03-media"))["version"]
    )


def test_from_bank_carries_the_whole_chapter_for_its_progress():
    quiz = Quiz.from_bank("layernorm", "normalizar")
    assert set(quiz.chapter_questions) == set(bank.manifest()["layernorm"])
    assert [q["id"] for q in quiz.questions] == ["ch04-componente", "ch04-epsilon"]
    with pytest.raises(KeyError, match="no tiene el bloque"):
        Quiz.from_bank("layernorm", "no-existe")


def test_every_block_bundles_into_one_module_with_its_style():
    quiz = Quiz.from_bank("media", "sigma")
    assert "export default" in quiz._esm and "import " not in quiz._esm
    assert ".rn-quiz" in quiz._css


# --- quiz_core.js con Node ----------------------------------------------------------

RUNNER = """
import { pathToFileURL } from "node:url";
const mod = await import(pathToFileURL(process.argv[2]).href);
const cases = JSON.parse(process.argv[3]);
const out = cases.map(([name, args]) => mod[name](...args));
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    if NODE is None:
        pytest.skip("hace falta node en el PATH")
    runner = tmp_path_factory.mktemp("quiz") / "runner.mjs"
    runner.write_text(RUNNER, encoding="utf-8")

    def call(cases):
        result = subprocess.run(
            [NODE, str(runner), str(QUIZ_DIR / "quiz_core.js"), json.dumps(cases)],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
        return json.loads(result.stdout)

    return call


@pytest.mark.parametrize(
    "typed,value",
    [
        ("0.25", 0.25),
        ("0,25", 0.25),
        (" 0,25 ", 0.25),
        ("\u22120.2", -0.2),
        ("-0,2", -0.2),
        ("1/4", 0.25),
        ("4e-5", 4e-5),
        ("4E-5", 4e-5),
        ("+2", 2.0),
        ("1 000", 1000.0),
        (".5", 0.5),
        ("24", 24.0),
    ],
)
def test_answers_typed_as_a_person_would_are_read(js, typed, value):
    (out,) = js([["parseAnswer", [typed]]])
    assert out["ok"] and out["value"] == pytest.approx(value)


@pytest.mark.parametrize(
    "typed,fragment",
    [
        ("", "Escribe"),
        ("   ", "Escribe"),
        ("abc", "No entiendo"),
        ("1e400", "demasiado"),
        ("1.234,5", "un solo separador"),
        ("1/0", "divide entre 0"),
        ("NaN", "No entiendo"),
        ("Infinity", "No entiendo"),
        ("0,5,1", "un solo separador"),
        ("1/x", "No entiendo"),
    ],
)
def test_garbage_gets_a_spanish_message_never_nan(js, typed, fragment):
    (out,) = js([["parseAnswer", [typed]]])
    assert not out["ok"] and fragment in out["message"]
    own_words = out["message"].replace(f"«{typed.strip()}»", "")  # sin el eco
    assert not any(w in own_words for w in ("NaN", "undefined", "Infinity"))


def test_check_names_the_mistake_the_value_matches(js):
    q = question_state(_numeric("ch03-sigma"))
    cases = [["checkNumeric", [q, q["answer"]]]]
    cases += [["checkNumeric", [q, m["value"]]] for m in q["mistakes"]]
    cases += [["checkNumeric", [q, -q["answer"]]], ["checkNumeric", [q, 7.0]]]
    out = js(cases)
    assert out[0]["status"] == "correct"
    for m, got in zip(q["mistakes"], out[1:-2]):
        assert got["status"] == "mistake" and got["mistake"]["name"] == m["name"]
    assert out[-2]["status"] == "sign" and out[-1]["status"] == "wrong"


def test_every_numeric_question_is_diagnosed_in_javascript(js):
    cases, expected = [], []
    for key in bank.chapters():
        for questions in bank.chapter(key).values():
            for q in map(question_state, questions):
                if q["type"] != "numeric":
                    continue
                cases.append(["checkNumeric", [q, q["answer"] + 0.9 * q["tol"]]])
                expected.append(("correct", None))
                for m in q["mistakes"]:
                    cases.append(["checkNumeric", [q, m["value"]]])
                    expected.append(("mistake", m["name"]))
    for got, (status, name) in zip(js(cases), expected):
        assert got["status"] == status
        if name:
            assert got["mistake"]["name"] == name


def test_progress_counts_only_right_answers_of_the_current_version(js):
    every = {"a": "v1", "b": "v1", "c": "v1"}
    saved = {
        "a": {"v": "v1", "ok": True},
        "b": {"v": "v0", "ok": True},
        "c": {"v": "v1", "ok": False},
        "z": {"v": "v1", "ok": True},
    }
    out = js(
        [
            ["chapterProgress", [every, saved]],
            ["progressText", [1, 3]],
            ["progressText", [1, 1]],
        ]
    )
    assert out[0] == {"done": 1, "total": 3}
    assert out[1:] == ["1 de 3 preguntas", "1 de 1 pregunta"]


def test_every_chapter_asks_for_a_prediction_before_it_shows():
    """Cada capítulo pide predecir antes de ver: una pregunta «prediccion» del banco
    o, en el capítulo 2, el ejercicio «Predice antes de ejecutar» (ejercicio 2.4)."""
    without = [key for key in bank.chapters()
               if not any(q.kind == "prediccion"
                          for qs in bank.chapter(key).values() for q in qs)]
    assert without == ["residual"], without
    chapter_2 = QUIZ_DIR.parents[1] / "notebooks" / "02_conexion_residual.ipynb"
    nb = json.loads(chapter_2.read_text(encoding="utf-8"))
    text = "".join("".join(c["source"]) for c in nb["cells"])
    assert "Predice antes de ejecutar" in text
