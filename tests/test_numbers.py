"""Cada número que la prosa afirma sale del código y coincide con lo esperado.

- Cada valor pegado (myst-nb ``glue``) tiene su entrada en ``expected_values.toml`` y
  cae dentro de su tolerancia; cada entrada esperada se pega en su notebook.
- La prosa no lleva números decimales escritos a mano, salvo la lista justificada de
  ``allowed_numbers.toml`` (datos de entrada, redondeos citados a propósito).
- El propio arnés detecta un valor equivocado.
"""

from __future__ import annotations

import json
import re

import pytest

from resnorm.examples import VECTOR
from tests import numbers
from tests.helpers import ROOT, execute_notebook, notebook_paths

# Los borradores también: lo que peguen ya se compara con lo esperado.
NOTEBOOKS = notebook_paths(drafts=True)
EXPECTED = numbers.load_expected()
ALLOWED = numbers.load_allowed()


def test_expected_file_only_names_existing_notebooks():
    stems = {p.stem for p in NOTEBOOKS}
    unknown = sorted(set(EXPECTED) - stems)
    assert not unknown, (
        f"tests/expected_values.toml tiene secciones de notebooks que no están en "
        f"_toc.yml: {unknown}. Cada sección se llama como el notebook sin .ipynb "
        "([\"04_layernorm\"]): renómbrala, o añade el notebook a _toc.yml"
    )


def test_every_expected_entry_has_a_tolerance_and_a_source():
    bad = [
        f"{nb}.{name}"
        for nb, entries in EXPECTED.items()
        for name, spec in entries.items()
        if ("value" in spec and "tol" not in spec) or not spec.get("source")
        or not ({"value", "text", "below"} & set(spec) or spec.get("measured"))
    ]
    assert not bad, (
        f"tests/expected_values.toml: entradas sin valor, tolerancia o fuente: {bad}. "
        "Cada una es «nombre = { value = …, tol = …, source = \"de dónde sale\" }» "
        "(o { text = \"…\", source = … } para un texto, { below = …, source = … } "
        "para un valor que es ruido de redondeo, o { measured = true, source = … } "
        "para un tiempo, que depende de la máquina)"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_glued_number_matches_its_expected_value(path, executed_notebooks):
    glued = numbers.glued_values(executed_notebooks(path))
    problems = numbers.check_notebook(path.stem, glued, EXPECTED.get(path.stem, {}))
    assert not problems, "\n".join(problems)


def _prose_sources():
    for path in sorted((ROOT / "book").glob("*.md")):
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        text = "\n\n".join(
            "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"
        )
        yield path.relative_to(ROOT).as_posix(), text


def _allowed_for(rel: str) -> set[str]:
    allowed: set[str] = set()
    for entry in ALLOWED:
        pattern = entry.get("file", "*")
        if pattern == "*" or re.fullmatch(pattern.replace("*", ".*"), rel):
            allowed.update(entry["numbers"])
    return allowed


@pytest.mark.parametrize("rel,text", list(_prose_sources()), ids=lambda v: str(v)[:40])
def test_prose_has_no_hand_typed_results(rel, text):
    allowed = {n.replace("\u2212", "-") for n in _allowed_for(rel)}
    allowed = {a.lstrip("-") for a in allowed}
    found = [
        n for n in numbers.hand_typed_decimals(text)
        if n.replace("\u2212", "-").lstrip("-") not in allowed
    ]
    assert not found, (
        f"{rel}: números escritos a mano en la prosa: {sorted(set(found))}. "
        "Pégalos con glue (glue_number, glue_vector… de resnorm.book, con su valor "
        "en tests/expected_values.toml) o, si son datos de entrada, justifícalos en "
        "tests/allowed_numbers.toml (file, numbers y why)"
    )


def test_every_allow_list_entry_is_justified():
    unjustified = [entry for entry in ALLOWED if not entry.get("why", "").strip()]
    assert not unjustified, (
        f"tests/allowed_numbers.toml: entradas sin «why» (por qué ese número va "
        f"escrito a mano): {unjustified}"
    )


# --- El arnés detecta errores ------------------------------------------------------

def test_harness_fails_on_a_wrong_epsilon():
    # Con ε = 1e-3 (Keras) en vez de 1e-5 (PyTorch) el primer valor normalizado cambia
    # en la segunda cifra decimal: el comprobador debe rechazarlo.
    from resnorm import layer_norm
    from resnorm.book import format_vector

    x = list(VECTOR)
    spec = {"value": [-1.024365, -0.265576, -0.366748, 1.656689], "tol": 5e-4,
            "source": "resnorm con eps=1e-5"}
    good = format_vector(layer_norm(x, eps=1e-5), 3)
    wrong = format_vector(layer_norm(x, eps=1e-3), 3)
    assert numbers.compare("prueba", "normalizado", good, spec) is None
    message = numbers.compare("prueba", "normalizado", wrong, spec)
    assert message and "prueba" in message and "normalizado" in message


def test_harness_takes_noise_below_its_threshold_and_nothing_above():
    # Dos CPU dan dos ruidos distintos (1e-8, 7e-7): los dos valen; un valor medido
    # por encima del umbral no, ni NaN.
    spec = {"below": 1e-6, "source": "diferencia float32 frente a float64"}
    for noise in (0.0, 1e-8, -7e-7, [1e-9, 2e-9]):
        assert numbers.compare("prueba", "dif", noise, spec) is None
    for wrong in (3e-6, float("nan"), [1e-9, 0.1]):
        message = numbers.compare("prueba", "dif", wrong, spec)
        assert message and "ruido de redondeo" in message and "1e-06" in message


def test_harness_fails_on_sigma_rounded_before_dividing():
    x = list(VECTOR)
    mu = sum(x) / 4
    slipped = [(v - mu) / 0.198 for v in x]  # σ redondeada a 0.198 antes de dividir
    spec = {"value": [-1.024496, -0.265610, -0.366795, 1.656901], "tol": 5e-4,
            "source": "aritmética exacta"}
    text = "[" + ", ".join(f"{v:.3f}" for v in slipped) + "]"
    assert numbers.compare("03", "normalizado", text, spec) is not None


def test_harness_reports_missing_and_unexpected_names():
    problems = numbers.check_notebook("nb", {"a": 1.0, "extra": 2.0}, {
        "a": {"value": 1.0, "tol": 0.0, "source": "x"},
        "b": {"value": 2.0, "tol": 0.0, "source": "x"},
    })
    assert any("extra" in p and "no tiene valor esperado" in p for p in problems)
    assert any("«b»" in p and "no se pega" in p for p in problems)


def test_scanner_finds_hand_typed_numbers_but_not_glue_math_or_code():
    text = (
        "La media es 1.0025 y σ vale {glue:text}`sigma:.4f`. "
        "En código `x = 0.5`, en fórmula $0.25$ y $$\\sqrt{0.039}$$. "
        "Hay 96 capas y un enlace [aquí](https://ejemplo.org/v1.2)."
    )
    assert numbers.hand_typed_decimals(text) == ["1.0025"]


def test_glued_values_reads_numbers_and_strings():
    import nbformat

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={"application/papermill.record/text/plain": "1.0025"},
            metadata={"scrapbook": {"name": "media",
                                    "mime_prefix": "application/papermill.record/"}},
        ),
        nbformat.v4.new_output(
            "display_data",
            data={"application/papermill.record/text/plain": "'[−1.024, 0.500]'"},
            metadata={"scrapbook": {"name": "v",
                                    "mime_prefix": "application/papermill.record/"}},
        ),
    ]
    nb.cells = [cell]
    assert numbers.glued_values(nb) == {"media": 1.0025, "v": "[−1.024, 0.500]"}


# --- Determinismo ------------------------------------------------------------------

# Un capítulo basta: el de los entrenamientos con semilla fija (el más sensible a una
# semilla olvidada). El resto de capítulos se ejecuta una sola vez, en «make book».
DETERMINISM = [p for p in NOTEBOOKS if p.stem.startswith("09_")]
# Las figuras no son valores pegados que se comparen (``glued_values`` las salta), y
# dibujarlas para la página (``figure_html``) es más de la mitad de la ejecución:
# la segunda, sin dibujarlas. Sus textos alternativos se siguen calculando.
WITHOUT_FIGURES = "import resnorm.book\nresnorm.book.figure_html = lambda fig, alt: alt"


@pytest.mark.slow
@pytest.mark.parametrize("path", DETERMINISM or NOTEBOOKS[:1], ids=lambda p: p.stem)
def test_executing_twice_gives_identical_glued_values(path, executed_notebooks):
    # La ejecución de «make book» (leída de la caché) frente a una nueva.
    first = numbers.glued_values(executed_notebooks(path))
    second = numbers.glued_values(execute_notebook(path, first_cell=WITHOUT_FIGURES))
    assert first and first == second


# --- Enteros en grupos de tres (la RAE) ----------------------------------------------


@pytest.mark.parametrize("text,values", [
    ("45\u202f711", [45711]),  # espacio fino duro, el de resnorm.book
    ("45\u00a0711", [45711]),  # espacio duro
    ("45\u2009711", [45711]),  # espacio fino
    ("45 711", [45711]),
    ("16\u202f777\u202f216 B", [16777216]),
    ("\u221212\u202f288", [-12288]),
    ("12\u202f288.5", [12288.5]),
    ("[1 000 000, 2]", [1000000, 2]),
    # No son grupos: «1 2» son dos números, y uno de 4 cifras no lleva grupos.
    ("1 2", [1, 2]),
    ("1\u202f234", [1, 234]),
    ("123 4567", [123, 4567]),
    ("[0.80, 0.95]", [0.80, 0.95]),
    ("2.7 \u00d7 10\u207b\u00b9\u2076", [2.7e-16]),
])
def test_grouped_integers_are_read_as_one_number(text, values):
    from resnorm.book import parse_numbers

    assert parse_numbers(text) == pytest.approx(values)


@pytest.mark.parametrize("value,text", [
    (4096, "4096"), (12288, "12\u202f288"), (45711, "45\u202f711"),
    (16777216, "16\u202f777\u202f216"), (-12288, "\u221212\u202f288"), (0, "0"),
])
def test_format_integer_groups_from_five_digits(value, text):
    from resnorm.book import format_integer, parse_numbers

    assert format_integer(value) == text
    assert parse_numbers(text) == [value]


def test_a_grouped_glued_integer_matches_its_expected_value():
    from resnorm.book import format_integer

    spec = {"value": 45711, "tol": 0, "source": "len(corpus)"}
    assert numbers.compare("10", "n_chars", format_integer(45711), spec) is None
    assert numbers.compare("10", "n_chars", format_integer(45712), spec) is not None


def test_a_measured_time_only_has_to_be_a_measurement():
    spec = {"measured": True, "source": "cociente de tiempos de CPU"}
    assert numbers.compare("12", "cociente", 3.16, spec) is None
    assert numbers.compare("12", "cociente", 0.51, spec) is None
    for bad in (0.0, -1.0, float("nan"), float("inf"), "[1, 2]"):
        assert numbers.compare("12", "cociente", bad, spec) is not None
