"""Las preguntas del curso: sus valores salen de resnorm y el navegador las corrige.

- Cada respuesta y cada error típico del banco coinciden con un cálculo independiente
  (NumPy directo, aritmética), y cada error se distingue de la respuesta.
- Cada pregunta dice de dónde sale (``glued``: lo que pega su capítulo; ``reads``: la
  función de ``resnorm`` que el capítulo muestra). Cada valor pegado que usa coincide
  con el del capítulo ejecutado, y cada lectura en palabras tiene aquí su prueba
  (``@claim``).
- ``quiz_core.js``, ejecutado con Node, lee lo que escribe una persona (coma o punto,
  espacios, signo menos tipográfico, fracciones) y da un mensaje en español ante lo
  que no es un número; nunca NaN, «undefined» ni «Infinity».
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from resnorm import examples
from resnorm.quiz import (
    Choice,
    Glue,
    Mistake,
    Numeric,
    Option,
    Quiz,
    bank,
    question_state,
)
from tests.helpers import draft_paths

QUIZ_DIR = Path(bank.__file__).resolve().parent
ROOT = QUIZ_DIR.parents[1]
NODE = shutil.which("node")
X = np.array(examples.VECTOR)
# Las claves de los capítulos publicados: un borrador (tests/helpers.py) aún no pide
# sus preguntas.
PUBLISHED = [key for key in bank.chapters() if not any(
    p.stem.endswith(bank.doc_suffix(key)) for p in draft_paths(ROOT))]

#: Pregunta → las pruebas de este archivo que comprueban lo que afirma (``@claim``).
CLAIMS: dict[str, list[str]] = {}


def claim(*qids):
    """Marca una prueba como la que comprueba lo que afirman las preguntas ``qids``."""

    def mark(test):
        for qid in qids:
            CLAIMS.setdefault(qid, []).append(test.__name__)
        return test

    return mark


def _every_question():
    for key in bank.chapters():
        for questions in bank.chapter(key).values():
            for q in questions:
                yield key, q


def _numeric_states():
    """El estado (``question_state``, lo que recibe el JavaScript) de cada pregunta
    numérica del banco."""
    for _, q in _every_question():
        state = question_state(q)
        if state["type"] == "numeric":
            yield state


def _numeric(qid):
    for _, q in _every_question():
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
        for key in PUBLISHED
    }
    assert all(n >= 3 for n in counts.values()), (
        f"preguntas por capítulo: {counts}. Cada capítulo necesita al menos tres en "
        "su función de resnorm/quiz/bank.py"
    )


def test_question_ids_are_unique_across_the_course():
    ids = [qid for qs in bank.manifest().values() for qid in qs]
    assert len(ids) == len(set(ids))


@claim("ch03-sigma")
def test_sigma_question_and_its_mistakes_match_numpy():
    q = _numeric("ch03-sigma")
    assert q.answer == pytest.approx(X.std(), abs=1e-12)
    assert _mistake(q, "n − 1") == pytest.approx(X.std(ddof=1), abs=1e-12)
    assert _mistake(q, "varianza") == pytest.approx(X.var(), abs=1e-12)
    assert _mistake(q, "absolutos") == pytest.approx(
        np.abs(X - X.mean()).mean(), abs=1e-12
    )


@claim("ch03-media", "ch03-desvio")
def test_mean_and_deviation_questions_match_numpy():
    q = _numeric("ch03-media")
    assert q.answer == pytest.approx(X.mean())
    assert _mistake(q, "no dividiste") == pytest.approx(X.sum())
    assert _mistake(q, "n − 1") == pytest.approx(X.sum() / 3)
    q = _numeric("ch03-desvio")
    assert q.answer == pytest.approx((X[3] - X.mean()) ** 2)
    assert _mistake(q, "cuadrado") == pytest.approx(X[3] - X.mean())


@claim("ch04-componente", "ch04-epsilon")
def test_layer_norm_questions_match_the_formula():
    q = _numeric("ch04-componente")
    assert q.answer == pytest.approx((X[3] - X.mean()) / X.std())
    assert _mistake(q, "muestral") == pytest.approx((X[3] - X.mean()) / X.std(ddof=1))
    assert _mistake(q, "σ²") == pytest.approx((X[3] - X.mean()) / X.var())
    # El desliz del texto original (el aviso del capítulo 4): σ = 0.198 da 1.654.
    assert _mistake(q, "0.198") == pytest.approx((X[3] - X.mean()) / 0.198)
    assert round(_mistake(q, "0.198"), 3) == 1.654
    assert abs(_mistake(q, "0.198") - q.answer) > 2 * q.tol  # se distingue
    q = _numeric("ch04-epsilon")
    assert q.answer == pytest.approx((X[3] - X.mean()) / np.sqrt(X.var() + 1e-3))
    assert _mistake(q, "fuera de la raíz") == pytest.approx(
        (X[3] - X.mean()) / (X.std() + 1e-3)
    )


@claim("ch05-gamma-beta", "ch06-rms")
def test_gamma_beta_and_rms_questions_match_the_formula():
    x_hat = (X - X.mean()) / X.std()  # el cálculo a mano del capítulo 5: ε = 0
    q = _numeric("ch05-gamma-beta")
    assert q.answer == pytest.approx(1.2 * x_hat[0] + 0.1)
    assert _mistake(q, "olvidaste β") == pytest.approx(1.2 * x_hat[0])
    assert _mistake(q, "antes") == pytest.approx(1.2 * (x_hat[0] + 0.1))
    q = _numeric("ch06-rms")
    assert q.answer == pytest.approx(X[0] / np.sqrt(np.mean(X**2) + 1e-8), abs=1e-6)
    with_eps = (X - X.mean()) / np.sqrt(X.var() + 1e-5)
    assert _mistake(q, "restaste la media") == pytest.approx(with_eps[0])


def test_counting_and_cost_questions_match_the_arithmetic():
    assert _numeric("ch05-cuantos-gamma").answer == 25
    assert _numeric("ch07-cuantas-post").answer == 12
    assert _numeric("ch02-atajos").answer == 24
    assert _numeric("coste-mib").answer == 4096 * 1024 * 4 / 2**20
    assert _numeric("ch09-raiz-L").answer == pytest.approx(math.sqrt(97))
    assert _numeric("ch01-factor-09").answer == pytest.approx(0.9**96)
    # El capítulo 12: una fusionada es 1 pasada con tráfico 2 (leer x, escribir y).
    q = _numeric("coste-pasadas")
    assert q.answer == 2 and _mistake(q, "pasadas") == 1


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


# --- De dónde sale cada pregunta -----------------------------------------------------

# Un número pegado como texto («[−1.129, …]», «4.0 × 10⁻⁵»), con su precisión.
_TOKEN = re.compile(
    r"([-\u2212]?)(\d+)(?:\.(\d+))?(?:\s?\u00d7\s?10([\u207b\u207a]?[\u2070\u00b9"
    r"\u00b2\u00b3\u2074-\u2079]+))?"
)
_SUPERSCRIPTS = str.maketrans("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078"
                              "\u2079\u207b\u207a", "0123456789-+")


def _shown_numbers(text: str) -> list[tuple[float, float]]:
    """Los números de un texto pegado, cada uno con la mitad de su última cifra."""
    out = []
    for sign, whole, decimals, power in _TOKEN.findall(text):
        decimals = decimals or ""
        exponent = int(power.translate(_SUPERSCRIPTS)) if power else 0
        value = float(f"{whole}.{decimals or 0}") * 10.0**exponent
        half = 0.5 * 10.0 ** (exponent - len(decimals))
        out.append((-value if sign else value, half))
    return out


def _notebook(key: str) -> Path:
    (path,) = sorted(ROOT.glob(f"notebooks/[0-9][0-9]_{bank.doc_suffix(key)}.ipynb"))
    return path


def _glued(executed_notebooks, key: str) -> dict:
    from tests.numbers import glued_values

    return glued_values(executed_notebooks(_notebook(key)))


def _glued_number(values: dict, glue: Glue) -> tuple[float, float]:
    """El número que pegó el capítulo y la tolerancia con que se pegó."""
    value = values[glue.name]
    if isinstance(value, str):
        numbers = _shown_numbers(value)
        return numbers[glue.index or 0]
    if isinstance(value, (list, tuple)):
        value = value[glue.index or 0]
    return float(value), 1e-9 * max(1.0, abs(float(value)))


def test_every_question_names_the_chapter_result_it_rests_on():
    """Cada pregunta nombra lo que pega su capítulo o la función que el capítulo
    muestra; cada función nombrada existe."""
    import importlib

    for _, q in _every_question():
        assert q.glued or q.reads, f"{q.id}: no dice de dónde sale"
        for dotted in q.reads:
            module, _, name = dotted.rpartition(".")
            try:
                found = getattr(importlib.import_module(module), name)
            except (ImportError, AttributeError):  # p. ej. resnorm.blocks.build_stack
                module, _, attr = module.rpartition(".")
                found = getattr(getattr(importlib.import_module(module), attr), name)
            assert callable(found), f"{q.id}: {dotted} no es una función"


def test_every_glued_value_a_question_uses_is_what_its_chapter_glued(
    executed_notebooks,
):
    """La respuesta, los errores típicos y las cifras de las explicaciones que salen
    de un valor pegado coinciden con el capítulo ejecutado (p. ej. «coste-pasadas» ↔
    el tráfico de ``F.layer_norm`` del capítulo 12; «ch09-raiz-L» ↔ ``teo_pre_ln``)."""
    failures = []
    for key, q in _every_question():
        for glue in q.glued:
            values = _glued(executed_notebooks, glue.chapter or key)
            if glue.name not in values:
                failures.append(f"{q.id}: el capítulo no pega «{glue.name}»")
                continue
            if glue.value is None:
                continue
            shown, tol = _glued_number(values, glue)
            if abs(shown - glue.value) > tol + 1e-12:
                failures.append(f"{q.id}: «{glue.name}» vale {shown} en el capítulo; "
                                f"la pregunta usa {glue.value}")
    assert not failures, "\n".join(failures)


def test_every_answer_is_a_glued_value_or_has_a_claim_test():
    """Una respuesta numérica es un valor pegado por su capítulo; si no (un recuento
    como «ch02-atajos»), una prueba de aquí la comprueba con la función que nombra.
    Una pregunta que lee un resultado en palabras (``Glue`` sin valor) o que solo
    nombra funciones tiene también su prueba."""
    missing = []
    for _, q in _every_question():
        values = [g.value for g in q.glued if g.value is not None]
        answer_glued = isinstance(q, Numeric) and any(
            v == pytest.approx(q.answer, rel=1e-12) for v in values
        )
        needs_claim = (
            (isinstance(q, Numeric) and not answer_glued)
            or any(g.value is None for g in q.glued)
            or not values
        )
        if needs_claim and q.id not in CLAIMS:
            missing.append(q.id)
    assert not missing, f"preguntas sin prueba de lo que afirman: {missing}"


def test_a_claim_names_only_questions_that_exist():
    ids = {q.id for _, q in _every_question()}
    assert set(CLAIMS) <= ids, set(CLAIMS) - ids


# Lo que afirman en palabras, comprobado con la función que nombran ...

@claim("ch02-atajos", "ch05-cuantos-gamma", "ch07-cuantas-post")
def test_counts_of_shortcuts_and_layer_norms_are_those_of_build_stack():
    import torch

    from resnorm.blocks import PreLNBlock, build_stack

    sizes = dict(d_model=8, n_heads=2, d_ff=16)
    pre = build_stack("pre_ln", n_layers=12, **sizes)
    blocks = [m for m in pre.modules() if isinstance(m, PreLNBlock)]
    # Dos atajos por bloque: uno alrededor de la atención y otro de la FFN.
    assert all(hasattr(b, "attn") and hasattr(b, "mlp") for b in blocks)
    assert 2 * len(blocks) == _numeric("ch02-atajos").answer
    norms = [m for m in pre.modules() if isinstance(m, torch.nn.LayerNorm)]
    assert len(norms) == _numeric("ch05-cuantos-gamma").answer
    post = build_stack("post_ln", n_layers=6, **sizes)
    norms = [m for m in post.modules() if isinstance(m, torch.nn.LayerNorm)]
    assert len(norms) == _numeric("ch07-cuantas-post").answer


@claim("ch08-parametros-ln")
def test_a_layer_norm_of_width_4_learns_8_numbers():
    import torch

    from resnorm.trace import perro_example

    width = len(perro_example().x)
    layer = torch.nn.LayerNorm(width)
    learned = sum(p.numel() for p in layer.parameters())
    assert learned == _numeric("ch08-parametros-ln").answer == 8


@claim("ch03-prediccion-desplazar")
def test_shifting_by_10_moves_the_mean_and_keeps_sigma():
    from resnorm import mean, std

    assert float(mean(X + 10)) == pytest.approx(float(mean(X)) + 10)
    assert float(std(X + 10)) == pytest.approx(float(std(X)), abs=1e-12)


@claim("ch04-eje")
def test_layer_norm_normalises_each_token_on_its_own():
    from resnorm import layer_norm

    x = np.random.default_rng(0).normal(2.0, 3.0, size=(2, 3, 4))
    y = layer_norm(x)
    assert np.allclose(y.mean(axis=-1), 0, atol=1e-12)
    changed = x.copy()
    changed[1] *= 50  # otro ejemplo del lote
    changed[0, 2] += 7  # otra posición
    assert np.allclose(layer_norm(changed)[0, :2], y[0, :2])


@claim("ch05-prediccion-gamma-cero")
def test_gamma_zero_leaves_only_beta():
    from resnorm import layer_norm

    beta = np.array(examples.BETA)
    for x in (X, np.array(examples.EVENS), np.array([-3.0, 0.5, 10.0, 1.0])):
        assert np.allclose(layer_norm(x, np.zeros(4), beta), beta)


@claim("ch05-para-que")
def test_gamma_sigma_beta_mu_undo_one_vector_only():
    from resnorm import layer_norm

    sigma, mu = X.std(), X.mean()
    assert np.allclose(layer_norm(X, np.full(4, sigma), np.full(4, mu), eps=0.0), X)
    evens = np.array(examples.EVENS)
    other = layer_norm(evens, np.full(4, sigma), np.full(4, mu), eps=0.0)
    assert np.abs(other - evens).max() > 1.0
    text = [o.explanation for o in _numeric("ch05-para-que").options if o.correct][0]
    assert "no le quita libertad" not in text and "[2, 4, 6, 8]" in text


@claim("ch06-signo")
def test_layer_norm_of_minus_2x_is_minus_layer_norm_of_x():
    from resnorm import layer_norm

    # Igual salvo ε, que pesa distinto con σ y con 2σ.
    assert np.allclose(layer_norm(-2 * X), -layer_norm(X), atol=1e-3)
    assert not np.allclose(layer_norm(-2 * X), layer_norm(X), atol=0.1)


@claim("ch07-cual-es-pre")
def test_pre_ln_block_is_x_plus_attn_of_ln_1():
    import torch

    from resnorm.blocks import PreLNBlock

    torch.manual_seed(0)
    block = PreLNBlock(d_model=8, n_heads=2, d_ff=16).double().eval()
    x = torch.randn(2, 3, 8, dtype=torch.float64)
    with torch.no_grad():
        h = x + block.attn(block.ln_1(x))
        assert torch.allclose(block(x), h + block.mlp(block.ln_2(h)))


@claim("ch07-prediccion-sin-lnf")
def test_a_pre_ln_stack_without_ln_f_is_not_normalised():
    import torch

    from resnorm.blocks import build_stack

    torch.manual_seed(0)
    stack = build_stack("pre_ln", n_layers=4, d_model=16, n_heads=2, d_ff=32)
    x = 3 * torch.randn(2, 5, 16) + 1
    with torch.no_grad():
        h = x
        for block in stack.blocks:
            h = block(h)
        out = stack.ln_f(h)
    assert (h.std(dim=-1, unbiased=False) - 1).abs().min() > 0.3
    assert torch.allclose(out.std(dim=-1, unbiased=False), torch.ones(2, 5), atol=1e-3)


@claim("resumen-residual")
def test_the_shortcut_adds_1_to_the_derivative():
    import torch

    t = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    (t + 0.1 * torch.tanh(t)).backward()
    assert t.grad.item() == pytest.approx(1 + 0.1 * (1 - math.tanh(0.5) ** 2))


@claim("resumen-layernorm")
def test_layer_norm_gives_every_vector_the_same_scale():
    from resnorm import layer_norm

    for scale in (0.1, 1.0, 1e3):
        y = layer_norm(scale * np.array(examples.EVENS))
        assert y.mean() == pytest.approx(0, abs=1e-9)
        assert y.std() == pytest.approx(1, abs=1e-3)
    # Casi constante: ε manda y la desviación no llega a 1.
    assert layer_norm(1e-4 * np.array(examples.EVENS)).std() < 0.5


@claim("ch12-prediccion-media-precision")
def test_half_precision_moves_half_the_bytes():
    from resnorm.cost import minimum_bytes

    assert minimum_bytes((4096, 1024), 2) * 2 == minimum_bytes((4096, 1024), 4)


# ... y lo que leen en el capítulo ejecutado.

@claim("ch01-que-se-pierde")
def test_an_orthogonal_layer_loses_nothing_in_chapter_1(executed_notebooks):
    g = _glued(executed_notebooks, "problema")
    (error, _), = _shown_numbers(g["error_ortogonal"])
    assert error < 1e-3
    ortho = [v for v, _ in _shown_numbers(g["pares_ortogonal"])]
    assert abs(np.mean(ortho) - float(g["pares_entrada"])) < 0.05


@claim("ch06-que-quita")
def test_rms_norm_does_not_subtract_the_mean_in_chapter_6(executed_notebooks):
    g = _glued(executed_notebooks, "variantes")
    assert g["ln_1214_out"] == g["ln_24_out"]
    assert g["rms_1214_out"] != g["rms_24_out"]


@claim("ch07-calentamiento")
def test_post_ln_has_the_larger_last_layer_gradient_in_chapter_7(executed_notebooks):
    g = _glued(executed_notebooks, "bloque")
    assert g["post_last_24"] > 2 * g["pre_last_24"]


@claim("ch09-raiz-L", "ch09-plana-ganancia", "ch09-sin-ln")
def test_the_depth_readings_of_chapter_9(executed_notebooks):
    g = _glued(executed_notebooks, "profundidad")
    assert abs(g["std_pre_ln"] / g["teo_pre_ln"] - 1) < 0.1
    (g09, _), = _shown_numbers(g["std_g09"])
    (g11, _), = _shown_numbers(g["std_g11"])
    assert g09 < 1e-3 and g11 > 1e3 and 0.5 < g["std_g10"] < 2
    assert abs(g["std_rama_escalada"] / g["teo_rama_escalada"] - 1) < 0.2


@claim("gpt-unigrama", "gpt-que-prueba")
def test_without_shortcuts_the_gpt_stays_at_the_frequencies(executed_notebooks):
    g = _glued(executed_notebooks, "gpt")
    for config in ("val_plain", "val_ln_only"):
        assert abs(g[config] - g["perdida_frec"]) < 0.1
    assert g["val_pre_ln"] < g["perdida_frec"] - 0.3


@claim("resumen-orden")
def test_the_pre_ln_stream_grows_until_ln_f_in_chapter_11(executed_notebooks):
    g = _glued(executed_notebooks, "resumen")
    assert g["norma_12"] > g["norma_entrada"]
    assert abs(g["norma_lnf"] - 2) < 1e-3  # √d: media 0 y desviación 1 en d = 4


@claim("coste-rms")
def test_naive_rms_norm_moves_less_memory_in_chapter_12(executed_notebooks):
    g = _glued(executed_notebooks, "coste")
    assert g["trafico_rms_ingenua"] < g["trafico_ln_ingenua"]


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
    for q in _numeric_states():
        cases.append(["checkNumeric", [q, q["answer"] + 0.9 * q["tol"]]])
        expected.append(("correct", None))
        for m in q["mistakes"]:
            cases.append(["checkNumeric", [q, m["value"]]])
            expected.append(("mistake", m["name"]))
    for got, (status, name) in zip(js(cases), expected):
        assert got["status"] == status
        if name:
            assert got["mistake"]["name"] == name


#: Un error típico está «cerca» de la respuesta si se aparta de ella un 10 % o menos.
CLOSE_FRACTION = 0.1


def test_a_mistake_opens_with_casi_only_when_it_is_close_to_the_answer(js):
    """Issue 49: «Casi: multiplicaste 0.9 por 96» con 86.4 frente a 4·10⁻⁵, no."""
    cases, expected = [], []
    for q in _numeric_states():
        for m in q["mistakes"]:
            cases.append(["checkNumeric", [q, m["value"]]])
            close = abs(m["value"] - q["answer"]) <= CLOSE_FRACTION * abs(q["answer"])
            expected.append((q["id"], m["name"], close))
    out = js(cases)
    seen = set()
    for got, (qid, name, close) in zip(out, expected, strict=True):
        assert got["status"] == "mistake" and got["close"] is close, (qid, name)
        opening = "Casi: " if close else "Todavía no: "
        assert got["message"].startswith(opening + name), (qid, got["message"])
        seen.add(close)
    assert seen == {True, False}  # el banco tiene de los dos


def test_far_and_close_mistakes_of_the_issue_read_as_they_should(js):
    far = question_state(_numeric("ch01-factor-09"))
    near = question_state(_numeric("ch04-componente"))
    out = js([["checkNumeric", [far, 86.4]], ["checkNumeric", [near, 1.654]],
              ["isClose", [1.09, 1.0]], ["isClose", [1.11, 1.0]]])
    assert out[0]["message"].startswith("Todavía no: multiplicaste 0.9 por 96")
    assert out[1]["message"].startswith("Casi: redondeaste σ a 0.198")
    assert out[2:] == [True, False]


def test_quiz_texts_say_entrada_not_input():
    texts = []
    for _, q in _every_question():
        texts.append(q.prompt)
        texts += [o.text + " " + o.explanation for o in getattr(q, "options", ())]
        texts += [m.name + " " + m.explanation for m in getattr(q, "mistakes", ())]
    for text in texts:
        assert not re.search(r"\b(input|output)s?\b", text, re.I), text


def test_the_post_ln_count_says_each_block_has_two_sublayers():
    assert "bloques de dos subcapas" in _numeric("ch07-cuantas-post").prompt


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
    without = [key for key in PUBLISHED
               if not any(q.kind == "prediccion"
                          for qs in bank.chapter(key).values() for q in qs)]
    assert without == ["residual"], without
    chapter_2 = QUIZ_DIR.parents[1] / "notebooks" / "02_conexion_residual.ipynb"
    nb = json.loads(chapter_2.read_text(encoding="utf-8"))
    text = "".join("".join(c["source"]) for c in nb["cells"])
    assert "Predice antes de ejecutar" in text


# --- Justicia: redondeos, progreso que no retrocede, lo guardado reparado -----------


@pytest.mark.parametrize(
    "typed,fragment",
    [
        ("1 2", "varios números"),
        ("0,78 0,8", "varios números"),
        ("1\n2", "una línea"),
        ("0.78\r\n", None),  # un salto final al pegar no es otro número
        ("1\r\n2", "una línea"),
    ],
)
def test_two_numbers_are_not_read_as_one(js, typed, fragment):
    (out,) = js([["parseAnswer", [typed]]])
    if fragment is None:
        assert out["ok"] and out["value"] == pytest.approx(0.78)
        return
    assert not out["ok"] and fragment in out["message"], out
    # El ejemplo «12 288», con espacio duro: la línea no se parte entre sus grupos.
    assert "12" not in out["message"].replace("12\u00a0288", "")


def test_a_right_value_rounded_to_one_or_two_decimals_is_named_as_rounding(js):
    """En ninguna pregunta numérica la respuesta redondeada a 1 o 2 decimales recibe
    el «Todavía no» genérico ni un error típico: o es correcta, o se le dice que es
    un redondeo y cuántos decimales hacen falta (6.1: 0.8 no es «dividir entre la
    media»)."""
    cases, shown = [], []
    for _, q in _every_question():
        if not isinstance(q, Numeric):
            continue
        state = question_state(q)
        for decimals in (1, 2):
            typed = f"{q.answer:.{decimals}f}"
            if float(typed) == 0:
                continue
            cases.append(["parseAnswer", [typed]])
            shown.append((state, typed))
    parsed = js(cases)
    checks = [["checkNumeric", [state, p["value"], p["decimals"]]]
              for (state, _), p in zip(shown, parsed)]
    for (state, typed), got in zip(shown, js(checks)):
        assert got["status"] in ("correct", "rounded"), (state["id"], typed, got)
        if got["status"] == "rounded":
            assert 0.5 * 10 ** -got["needed"] <= state["tol"], (state["id"], got)


def test_a_rounding_within_the_tolerance_is_simply_correct(js):
    q = question_state(_numeric("ch06-rms"))
    (parsed,) = js([["parseAnswer", ["0,783"]]])
    (got,) = js([["checkNumeric", [q, parsed["value"], parsed["decimals"]]]])
    assert got["status"] == "correct"
    (got,) = js([["checkNumeric", [q, 0.8, 1]]])
    assert got == {"status": "rounded", "decimals": 1, "needed": 3}


def test_the_sign_message_is_the_question_s_own():
    """«Revisa quién resta a quién» solo donde hay una resta (no en 5.1 ni en 10.1)."""
    hints = {q.id: q.sign_hint for _, q in _every_question() if isinstance(q, Numeric)}
    assert "resta" in hints["ch04-componente"]
    for qid in ("ch05-gamma-beta", "gpt-uniforme", "ch06-rms"):
        assert "resta a quién" not in hints[qid]
    js_text = (QUIZ_DIR / "quiz.js").read_text(encoding="utf-8")
    assert "quién resta a quién" not in js_text and "sign_hint" in js_text


def test_a_wrong_retry_never_takes_a_right_answer_away(js):
    right = {"v": "v1", "ok": True, "a": "0,783"}
    wrong = {"v": "v1", "ok": False, "a": "7"}
    newer = {"v": "v2", "ok": False, "a": "7"}
    out = js([
        ["mergeEntry", [right, wrong]],
        ["mergeEntry", [wrong, right]],
        ["mergeEntry", [right, newer]],
        ["mergeEntry", [None, wrong]],
    ])
    assert out == [right, right, newer, wrong]


@pytest.mark.parametrize(
    "stored",
    [
        [],
        "texto",
        7,
        None,
        {"chapters": []},
        {"chapters": "x"},
        {"chapters": {"layernorm": "x", "media": [1, 2]}},
        {"chapters": {"layernorm": {"a": "x", "b": {"ok": True}}}},
    ],
    ids=["array", "texto", "numero", "null", "capitulos-array", "capitulos-texto",
         "capitulo-malo", "entradas-malas"],
)
def test_stored_progress_of_the_wrong_shape_is_repaired(js, stored):
    (out,) = js([["repairStore", [stored]]])
    assert isinstance(out, dict) and isinstance(out["chapters"], dict)
    for saved in out["chapters"].values():
        assert isinstance(saved, dict)
        assert all(isinstance(e, dict) and isinstance(e["v"], str)
                   for e in saved.values())


def test_repairing_keeps_every_good_answer(js):
    stored = {"chapters": {"layernorm": {"a": {"v": "1", "ok": True, "a": "1,6"},
                                         "b": "basura"},
                           "media": [], "otro": {"c": {"v": "2", "ok": False, "a": 0}}},
              "extra": 5}
    (out,) = js([["repairStore", [stored]]])
    assert out == {"chapters": {"layernorm": {"a": {"v": "1", "ok": True, "a": "1,6"}},
                                "otro": {"c": {"v": "2", "ok": False, "a": 0}}}}


def _source(cell) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def test_predictions_come_before_the_page_answers_them():
    """«Predice antes de mirar»: el bloque de preguntas va antes de la primera celda
    que muestra (o pega) el resultado en que se apoya la predicción."""
    for key in bank.chapters():
        path = _notebook(key)
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for group, questions in bank.chapter(key).items():
            predictions = [q for q in questions if q.kind == "prediccion"]
            names = {g.name for q in predictions for g in q.glued if not g.chapter}
            if not names:
                continue
            call = f'Quiz.from_bank("{key}", "{group}")'
            (where,) = [i for i, c in enumerate(cells) if call in _source(c)]
            shown = re.compile(r"[\"`{]" + "(?:" + "|".join(map(re.escape, names))
                               + r")[\"`:}]")
            first = next(i for i, c in enumerate(cells) if shown.search(_source(c)))
            assert where < first, (
                f"{path.name}: {call} (celda {where}) va después de la celda {first}, "
                f"que ya muestra {sorted(names)}"
            )
