"""Cada ejercicio tiene un comprobador: la solución del libro lo pasa (✓) y el stub
vacío falla con un mensaje amable en español (✗), sin excepción. En la web, donde el
stub se ejecutó al construir el libro, se ve en su lugar un recuadro neutro: qué hacer
y dónde.

Los comprobadores viven uno por capítulo (``resnorm/exercises/chNN.py``); cada
``tests/test_exercises_chNN.py`` da sus soluciones (``SOLUTIONS``) y sus errores típicos
(``MISTAKES``), y este archivo comprueba con ellos el contrato de todos.
"""

from __future__ import annotations

import importlib
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from resnorm import exercises
from resnorm.exercises import Feedback, check_function
from resnorm.exercises._feedback import (
    HOW_TO_RUN_URL,
    WHERE_TO_RUN,
    rounding_unit,
    tolerance,
)
from tests.helpers import ROOT, VIEWPORTS, notebook_paths

NOTEBOOKS = notebook_paths()
CHAPTER_TESTS = [
    importlib.import_module(f"tests.test_exercises_{c.__name__.rsplit('.', 1)[1]}")
    for c in exercises.CHAPTERS
]
SOLUTIONS = [pair for t in CHAPTER_TESTS for pair in t.SOLUTIONS]
MISTAKES = [m for t in CHAPTER_TESTS for m in getattr(t, "MISTAKES", [])]
ALTERNATIVES = [a for t in CHAPTER_TESTS for a in getattr(t, "ALTERNATIVES", [])]
IDS = [check.__name__ for check, _ in SOLUTIONS]
#: Cada comprobador con una respuesta correcta en float32 y otra en float64: las de
#: ``FLOAT32`` y ``FLOAT64`` de cada capítulo y la solución de referencia, float64 salvo
#: si está en ``FLOAT32`` (la del 10.2, con el bloque float32 del capítulo).
FLOAT32 = [(c, a, s) for t in CHAPTER_TESTS for c, a, s in getattr(t, "FLOAT32", [])]
PRECISIONS = (
    [(c, a, "float64", "la solución") for c, a in SOLUTIONS
     if not any(c is c32 and a is a32 for c32, a32, _ in FLOAT32)]
    + [(c, a, "float32", s) for c, a, s in FLOAT32]
    + [(c, a, "float64", s) for t in CHAPTER_TESTS for c, a, s in
       getattr(t, "FLOAT64", [])]
)
#: Comprobadores cuya respuesta no es un número de coma flotante: la predicción del
#: 2.4 es una palabra y la comparación del 2.3, True o False (se calcula en float32,
#: pero no lo devuelve).
NOT_FLOATS = {"check_identity_prediction": "una palabra",
              "check_vectors_close": "True o False"}


def stub(*args):
    raise NotImplementedError  # escribe aquí tu solución


# --- Un módulo por capítulo, todo importable desde resnorm.exercises --------------


def test_every_checker_lives_in_its_chapter_and_has_a_solution():
    for chapter, tests in zip(exercises.CHAPTERS, CHAPTER_TESTS, strict=True):
        checkers = {check.__name__ for check, _ in tests.SOLUTIONS}
        assert checkers == set(chapter.__all__), (
            f"{chapter.__name__}: sus comprobadores ({sorted(chapter.__all__)}) y los "
            f"de SOLUTIONS en {tests.__name__.replace('.', '/')}.py "
            f"({sorted(checkers)}) no coinciden: cada check_… de __all__ necesita su "
            "solución de referencia allí"
        )
        for name in chapter.__all__:
            assert getattr(exercises, name) is getattr(chapter, name)
            assert name in exercises.__all__
            assert getattr(chapter, name).__module__ == chapter.__name__


def test_every_name_the_notebooks_import_exists():
    import ast

    import nbformat

    imported = set()
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            # las líneas mágicas de IPython (%pip, !ls) no son Python: pass en su sitio
            code = re.sub(r"^(\s*)[%!].*$", r"\1pass", cell.source, flags=re.M)
            for node in ast.walk(ast.parse(code)):
                if isinstance(node, ast.ImportFrom) and node.module and (
                    node.module.startswith("resnorm.exercises")
                ):
                    module = importlib.import_module(node.module)
                    for alias in node.names:
                        assert hasattr(module, alias.name), f"{path.name}: {alias.name}"
                        imported.add(alias.name)
    assert len(imported) >= 20  # casi todos los comprobadores


def test_importing_the_checkers_does_not_import_torch():
    code = "import sys, resnorm.exercises; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


# --- El contrato de cada comprobador ------------------------------------------------


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_the_solution_passes(check, solution):
    fb = check(solution)
    assert fb.passed, str(fb)
    assert str(fb).startswith("✓ ") and "✗" not in str(fb)
    html = fb._repr_html_()
    assert "resnorm-feedback-bien" in html and "✗" not in html and not fb.pending


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_an_empty_stub_fails_kindly_in_spanish(check, solution):
    fb = check(stub)
    assert not fb.passed and fb.pending
    text = str(fb)
    assert text.startswith("✗ ")
    assert "Aún no has escrito la función" in text
    assert "Traceback" not in text
    # La primera ejecución de una celda sin tocar no da pista: la general de algunos
    # ejercicios (2.2, 5.2, 6.1, 6.2, 10.1, 12.x) ya es la solución.
    general = check(lambda *args: 0.123456789).hint
    html = fb._repr_html_()
    assert "Pista" not in text and "Pista" not in html
    assert not general or general not in text + html
    assert "resnorm-feedback-mal" in html and "✗" in html


@pytest.mark.parametrize(
    "check,answer,style", ALTERNATIVES,
    ids=[f"{c.__name__}-{s}" for c, _, s in ALTERNATIVES],
)
def test_a_right_answer_written_another_way_passes(check, answer, style):
    """Con torch (y su gradiente), con bucles, con keepdims...: correcto es correcto,
    y nunca sale un error en inglés."""
    fb = check(answer)
    assert fb.passed, f"{style}:\n{fb}"
    assert "Error" not in str(fb)


def test_every_checker_accepts_a_right_answer_in_another_style():
    checked = {c.__name__ for c, _, _ in ALTERNATIVES}
    assert checked == {c.__name__ for c, _ in SOLUTIONS}, (
        {c.__name__ for c, _ in SOLUTIONS} - checked
    )


@pytest.mark.parametrize(
    "check,answer,dtype,style", PRECISIONS,
    ids=[f"{c.__name__}-{d}-{s}" for c, _, d, s in PRECISIONS],
)
def test_a_right_answer_passes_in_float32_and_in_float64(check, answer, dtype, style):
    """Issue 49: una respuesta correcta en float32 (torch por defecto, F.layer_norm,
    nn.LayerNorm) pasa igual que una en float64; la tolerancia sigue al tipo."""
    units = []

    def spy(*args):
        out = answer(*args)
        units.append(rounding_unit(out))
        return out

    fb = check(spy)
    assert fb.passed, f"{style} ({dtype}):\n{fb}"
    if check.__name__ not in NOT_FLOATS:
        # la prueba no es vacía: la respuesta devolvió de verdad ese tipo
        assert float(np.finfo(dtype).eps) in units, (style, units)


def test_every_checker_is_tried_in_float32_and_in_float64():
    tried = {(c.__name__, d) for c, _, d, _ in PRECISIONS}
    for check, _ in SOLUTIONS:
        for dtype in ("float32", "float64"):
            if dtype == "float32" and check.__name__ == "check_identity_prediction":
                continue  # su respuesta es una palabra, sin números
            assert (check.__name__, dtype) in tried, (
                f"{check.__name__}: falta una respuesta correcta en {dtype} (FLOAT32 o "
                "FLOAT64 de su tests/test_exercises_chNN.py)"
            )


@pytest.mark.parametrize(
    "check,wrong,clue", MISTAKES, ids=[f"{c.__name__}-{k}" for c, _, k in MISTAKES]
)
def test_a_typical_mistake_in_float32_is_still_rejected(check, wrong, clue):
    """La tolerancia de float32 crece con la longitud de la cuenta, pero no tanto
    como para aceptar un error típico escrito en float32."""

    def in_float32(*args):
        return _float32(wrong(*args))

    fb = check(in_float32)
    assert not fb.passed, f"{check.__name__} aceptó en float32 un error típico"
    assert clue in fb.hint, f"pista inesperada para {check.__name__}: {fb.hint!r}"


def _float32(value):
    if hasattr(value, "detach"):
        return value.detach().float()
    if isinstance(value, (tuple, list)):
        return type(value)(_float32(v) for v in value)
    if isinstance(value, (float, np.floating)) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "f"
    ):
        return np.float32(value) if np.ndim(value) == 0 else value.astype(np.float32)
    return value


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
@pytest.mark.parametrize(
    "huge", [10**400, [10**400] * 4, (10**400, 10**400)], ids=["int", "lista", "pareja"]
)
def test_a_number_too_large_for_a_float_is_told_in_spanish(check, solution, huge):
    """Issue 52: una función que devuelve 10**400 no escapa como OverflowError."""
    fb = check(lambda *args: huge)
    text = str(fb) + fb._repr_html_()
    assert not fb.passed
    assert "int too large" not in text and "Traceback" not in text, text
    if check.__name__ != "check_identity_prediction":  # «No entiendo la respuesta»
        # o, si no es la pareja que se pide, que se devuelva una pareja
        assert any(w in text for w in ("demasiado grande", "pareja", "dos cosas")), text


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_an_overflow_inside_the_function_is_told_in_spanish(check, solution):
    def overflowing(*args):
        return math.exp(1000.0)  # OverflowError: math range error

    fb = check(overflowing)
    assert not fb.passed
    if check.__name__ != "check_identity_prediction":
        assert "demasiado grande" in str(fb), str(fb)


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_a_function_that_forgets_return_is_told_so(check, solution):
    fb = check(lambda *args: None)
    assert not fb.passed and "return" in str(fb) and not fb.pending


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_an_exception_is_reported_not_raised(check, solution):
    def broken(*args):
        raise ValueError("me equivoqué")

    fb = check(broken)
    assert not fb.passed and "ValueError" in str(fb)


@pytest.mark.parametrize("check,solution", SOLUTIONS, ids=IDS)
def test_a_non_function_is_rejected_kindly(check, solution):
    fb = check(3)
    assert not fb.passed and "Se esperaba una función" in str(fb)


@pytest.mark.parametrize(
    "check,wrong,clue", MISTAKES, ids=[f"{c.__name__}-{k}" for c, _, k in MISTAKES]
)
def test_a_typical_mistake_gets_the_hint_that_names_it(check, wrong, clue):
    fb = check(wrong)
    assert not fb.passed, f"{check.__name__} aceptó un error típico"
    assert clue in fb.hint, f"pista inesperada para {check.__name__}: {fb.hint!r}"
    assert "✗" in str(fb)
    # Un fallo se lee de un vistazo: sin volcar tensores enteros (7.2, 10.2).
    lines = str(fb).splitlines()
    assert len(lines) <= 12 and max(map(len, lines)) <= 400, str(fb)


# --- Pistas escalonadas ------------------------------------------------------------

#: Ejercicios cuya pista del comprobador señala y cuya receta espera en la Pista 2 del
#: notebook (issue 49): comprobador, notebook, el stub, lo que solo dice la receta.
STAGED = [
    ("check_residual_grad", "02_conexion_residual", "def mi_derivada_residual",
     ("requires_grad", "backward")),
    ("check_undo_normalization", "05_gamma_beta", "def deshacer", ("np.full",)),
    ("check_unigram_loss", "10_gpt_diminuto", "def perdida_frecuencias",
     ("bincount",)),
]


def _hints_after(path: Path, stub: str) -> str:
    import nbformat

    cells = nbformat.read(path, as_version=4).cells
    (i,) = [k for k, c in enumerate(cells) if c.cell_type == "code"
            and "ejercicio" in c.metadata.get("tags", []) and stub in c.source]
    hints = []
    for cell in cells[i + 1:]:
        if cell.cell_type != "markdown" or "solution-start" in cell.source:
            break
        hints.append(cell.source)
    return "\n".join(hints)


@pytest.mark.parametrize("name,notebook,stub,recipe", STAGED,
                         ids=[s[0] for s in STAGED])
def test_the_first_hint_points_and_the_recipe_waits_for_the_second(
    name, notebook, stub, recipe
):
    general = getattr(exercises, name)(lambda *args: 0.123456789).hint
    assert "abre las pistas del ejercicio" in general, general
    assert not any(step in general for step in recipe), general
    hints = _hints_after(ROOT / "notebooks" / f"{notebook}.ipynb", stub)
    assert "Pista 1" in hints and "Pista 2" in hints and "dropdown" in hints, hints
    first, second = hints.split("Pista 2", 1)
    assert all(step in second for step in recipe), second
    assert not any(step in first for step in recipe), first


def test_checker_titles_use_the_glossary_terms():
    """«Std» no es un término del glosario: «desviación estándar» sí."""
    for check, _ in SOLUTIONS:
        title = check(stub).title
        assert not re.search(r"\bstd\b", title, re.I), title


def test_exercise_statements_do_not_repeat_a_word():
    """«un array de forma `forma`» se lee «de forma forma» (issue 49)."""
    import nbformat

    for path in NOTEBOOKS:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "markdown" or "{exercise}" not in cell.source:
                continue
            text = re.sub(r"\$[^$]*\$", " § ", cell.source)  # sin fórmulas: F(t) = −t
            doubled = re.search(r"\b([^\W\d_]+)\s+\1\b", text.replace("`", ""),
                                re.I)
            assert not doubled, f"{path.name}: «{doubled.group(0)}»"


# --- check_function y Feedback ------------------------------------------------------

CASES = [("media de [2, 4]", ([2, 4],), 3.0)]


def test_check_function_reports_a_stub_in_spanish():
    fb = check_function("Media", stub, CASES, "suma y divide")
    assert not fb and "Aún no has escrito la función" in str(fb)
    assert "suma y divide" not in str(fb) and "vuelve a ejecutar la celda" in str(fb)


def test_a_wrong_tensor_is_summarised_in_one_line():
    expected = np.arange(48.0).reshape(2, 3, 8)
    wrong = expected.copy()
    wrong[1, 2, 5] += 1
    fb = check_function("Bloque", lambda: wrong, [("un lote", (), expected)], "")
    (line,) = fb.lines
    assert "1 de 48 valores" in line and "[1, 2, 5]" in line, line
    fb = check_function("Bloque", lambda: wrong[0], [("un lote", (), expected)], "")
    assert "forma (3, 8)" in fb.lines[0] and "(2, 3, 8)" in fb.lines[0]


def test_check_function_reports_wrong_values_and_exceptions():
    fb = check_function("Media", lambda x: sum(x), CASES, "")
    assert not fb and "obtuve 6" in str(fb) and "se esperaba 3" in str(fb)
    fb = check_function("Media", lambda x: 1 / 0, CASES, "")
    assert not fb and "ZeroDivisionError" in str(fb)
    fb = check_function("Media", lambda x: None, CASES, "")
    assert "return" in str(fb)


@pytest.mark.parametrize("expected", [-0.2655761, 1.656689, 4.0483766e-05, 9402.9])
@pytest.mark.parametrize("off", [2e-6, 1e-5, 3e-4])
def test_two_different_numbers_are_never_shown_equal(expected, off):
    """Issue 49: nunca «obtuve −0.265576 y se esperaba −0.265576»."""
    got = expected * (1 + off)
    for shape in [(), (4,), (2, 3, 8)]:
        e = np.full(shape, expected)
        g = e.copy()
        g.flat[-1] = got
        fb = check_function("Prueba", lambda g=g: g, [("caso", (), e)], "", atol=0.0)
        assert not fb.passed
        numbers = re.findall(r"-?\d[\d.e+-]*", fb.lines[0].split(":", 1)[1])
        shown = [n for n in numbers if "." in n or "e" in n]
        assert len(set(shown)) >= 2, fb.lines[0]


def test_float32_tolerance_grows_with_the_length_of_the_computation():
    e = np.array([1.0, -0.5, 0.0])
    assert tolerance(e, e, 1e-6, 1e-9) == (1e-6, 1e-9)  # float64: la del comprobador
    eps32 = float(np.finfo(np.float32).eps)
    rtol, atol = tolerance(e.astype(np.float32), e, 1e-6, 1e-9, length=10)
    assert rtol == pytest.approx(10 * eps32) and atol == pytest.approx(10 * eps32)
    rtol, atol = tolerance(e.astype(np.float32), 100 * e, 1e-6, 1e-9, length=50)
    assert rtol == pytest.approx(50 * eps32) and atol == pytest.approx(5000 * eps32)


def test_rounding_unit_reads_the_dtype_of_numpy_torch_and_python_numbers():
    import torch

    eps32, eps64 = (float(np.finfo(t).eps) for t in (np.float32, np.float64))
    assert rounding_unit(0.5) == rounding_unit(3) == rounding_unit(True) == eps64
    assert rounding_unit(np.float32(0.5)) == rounding_unit(torch.ones(2)) == eps32
    assert rounding_unit(torch.ones(2, dtype=torch.float64)) == eps64
    assert rounding_unit((np.zeros(2), torch.zeros(2))) == eps32  # el menos preciso
    assert rounding_unit(torch.arange(3)) == eps64  # enteros: exactos


def test_feedback_renders_html_without_raw_markup():
    html = Feedback("Título <b>", True, ["✓ a < b"])._repr_html_()
    assert "&lt;b&gt;" in html and "✓ Título" in html


def test_code_in_backticks_is_rendered_as_code_not_as_backticks():
    html = check_function("Media", stub, CASES, "")._repr_html_()
    assert "`" not in html
    assert "<code>raise NotImplementedError</code>" in html
    fb = check_function("Media", lambda x: 0.0, CASES, "usa `sum(x)` y `len(x)`")
    html = fb._repr_html_()
    assert "`" not in html
    assert "<code>sum(x)</code> y <code>len(x)</code>" in html


def _kernel_and_web_views(html: str) -> tuple[str, str]:
    kernel = re.search(r'<div class="resnorm-feedback-kernel">(.*?</div>)</div>', html)
    web = re.search(r'<div class="resnorm-feedback-web"[^>]*>(.*?)</div>', html)
    assert kernel and web, html
    return kernel.group(1), web.group(0)


def test_a_stub_shows_the_kernel_feedback_and_hides_the_web_box_by_default():
    # Sin la hoja de estilo del sitio (Jupyter, Colab) el recuadro de la web no se ve:
    # lo ocultan el atributo hidden y un estilo en línea.
    kernel, web = _kernel_and_web_views(check_function("Media", stub, CASES, "")
                                        ._repr_html_())
    assert "✗" in kernel and "Aún no has escrito la función" in kernel
    assert " hidden " in web and 'style="display:none"' in web


def test_the_web_box_says_what_to_do_and_where_to_run_it_without_failing():
    _, web = _kernel_and_web_views(check_function("Media", stub, CASES, "")
                                   ._repr_html_())
    text = re.sub(r"<[^>]+>", "", web)
    assert "✗" not in web and "resnorm-feedback-mal" not in web and "#b2182b" not in web
    assert "Escribe tu solución" in text and "raise NotImplementedError" in text
    for where in ("Binder", "Colab", "tu ordenador"):
        assert where in text
    assert f'href="{HOW_TO_RUN_URL}"' in web


def test_the_how_to_run_link_points_to_the_page_that_explains_it():
    # Los capítulos están en notebooks/; el enlace es relativo a sus páginas.
    target = (ROOT / "notebooks" / HOW_TO_RUN_URL).resolve().with_suffix(".md")
    assert target.exists(), target
    assert "## Binder" in target.read_text(encoding="utf-8")
    assert all(p.parent.name == "notebooks" for p in NOTEBOOKS)


def test_solutions_and_wrong_answers_have_no_web_box():
    for fb in (check_function("Media", lambda x: sum(x) / len(x), CASES, ""),
               check_function("Media", lambda x: 0.0, CASES, "")):
        assert "resnorm-feedback-web" not in fb._repr_html_()


def test_the_site_style_sheet_swaps_the_two_views():
    css = (ROOT / "_assets" / "css" / "ejercicios.css").read_text(encoding="utf-8")
    rules = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    assert re.search(r"\.resnorm-feedback-web\s*\{[^}]*display:\s*block\s*!important",
                     rules)
    assert re.search(r"\.resnorm-feedback-kernel\s*\{[^}]*display:\s*none\s*!important",
                     rules)
    # Con código en vivo (Thebe) la salida nueva sale de un núcleo: se ve la de verdad.
    assert ".jp-OutputArea .resnorm-exercise-pending .resnorm-feedback-kernel" in rules
    config = (ROOT / "conf.py").read_text(encoding="utf-8")
    assert re.search(r"html_css_files = .*css/ejercicios\.css", config)


# --- Los notebooks, ejecutados -------------------------------------------------------


def _text(outputs) -> str:
    parts = []
    for out in outputs:
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        for key in ("text/plain", "text/html"):
            parts.append(str(out.get("data", {}).get(key, "")))
    return "\n".join(parts)


def _tagged(nb, tag):
    return [
        c for c in nb.cells
        if c.cell_type == "code" and tag in c.metadata.get("tags", [])
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_solutions_pass_and_stubs_fail_gracefully(path, executed_notebooks):
    nb = executed_notebooks(path)
    stubs, solutions = _tagged(nb, "ejercicio"), _tagged(nb, "solucion")
    assert len(stubs) >= 2, (
        f"{path.name}: hacen falta al menos dos ejercicios: celdas de código con la "
        "etiqueta «ejercicio» (el stub que llama a su check_… de "
        "resnorm/exercises/chNN.py) y otra «solucion» con la respuesta"
    )
    assert solutions, f"{path.name}: ejercicios sin solución ejecutable"
    for cell in solutions:
        text = _text(cell.outputs)
        assert "resnorm-feedback-bien" in text and "✗" not in text, (
            f"{path.name}: falla:\n{text}"
        )
    for cell in stubs:
        text = _text(cell.outputs)
        assert "resnorm-feedback-mal" in text, (
            f"{path.name}: stub sin fallo amable:\n{text}"
        )
        assert "resnorm-feedback-web" in text, f"{path.name}: stub sin recuadro web"
        assert not any(o.get("output_type") == "error" for o in cell.outputs)


def _stub_outputs(page: Path) -> list[str]:
    html = page.read_text(encoding="utf-8")
    cells = html.split('<div class="cell tag_ejercicio')[1:]
    return [cell.split('<div class="cell ', 1)[0] for cell in cells]


@pytest.mark.build
def test_built_chapters_show_a_neutral_box_for_every_stub(built_site):
    for path in NOTEBOOKS:
        page = built_site / "notebooks" / f"{path.stem}.html"
        outputs = _stub_outputs(page)
        assert len(outputs) >= 2, page.name
        for out in outputs:
            assert 'class="resnorm-feedback-web"' in out, page.name
            web = re.search(r'<div class="resnorm-feedback-web".*?</div>', out, re.S)
            assert "`" not in web.group(0), page.name
    css = built_site / "_static" / "css" / "ejercicios.css"
    assert css.exists()
    assert "css/ejercicios.css" in (built_site / "notebooks" / "04_layernorm.html"
                                    ).read_text(encoding="utf-8")


@pytest.mark.build
def test_where_the_code_runs_is_said_once_per_page(built_site):
    """Issue 50: «En esta página el código no se ejecuta…» se repetía bajo cada
    ejercicio. Lo dice el primer recuadro de cada página; los demás enlazan a
    «Cómo usar»."""
    for path in NOTEBOOKS:
        page = built_site / "notebooks" / f"{path.stem}.html"
        html = page.read_text(encoding="utf-8")
        assert html.count(WHERE_TO_RUN) == 1, page.name
        outputs = _stub_outputs(page)
        assert WHERE_TO_RUN in outputs[0], page.name
        for out in outputs:
            assert f'href="{HOW_TO_RUN_URL}"' in out, page.name


def test_in_one_kernel_only_the_first_box_says_where_the_code_runs(monkeypatch):
    """Dentro de un núcleo (la construcción), el segundo recuadro ya no lo repite."""
    from resnorm.exercises import _feedback

    class Shell:
        kernel = object()

    shell = Shell()
    monkeypatch.setattr("IPython.get_ipython", lambda: shell)
    monkeypatch.setattr(_feedback, "_WHERE_SAID", set())
    first = check_function("Media", stub, CASES, "")._repr_html_()
    second = check_function("Media", stub, CASES, "")._repr_html_()
    assert WHERE_TO_RUN in first and WHERE_TO_RUN not in second
    assert f'href="{HOW_TO_RUN_URL}"' in second and "Escribe tu solución" in second
    # La misma salida mostrada otra vez no cambia.
    fb = check_function("Media", stub, CASES, "")
    assert fb._repr_html_() == fb._repr_html_()


@pytest.mark.build
@pytest.mark.browser
@pytest.mark.parametrize("dark", [False, True], ids=["claro", "oscuro"])
def test_a_reader_of_the_site_sees_the_neutral_box_not_a_failure(
    site_url, browser, dark
):
    width, height = VIEWPORTS["telefono"]
    context = browser.new_context(
        viewport={"width": width, "height": height},
        color_scheme="dark" if dark else "light",
    )
    try:
        page = context.new_page()
        page.goto(f"{site_url}/notebooks/04_layernorm.html", wait_until="load")
        stubs = page.locator(".cell.tag_ejercicio .cell_output")
        assert stubs.count() >= 2
        for i in range(stubs.count()):
            out = stubs.nth(i)
            text = out.inner_text()  # solo lo visible
            assert "✗" not in text and "Aún no has escrito" not in text, text
            assert "Escribe tu solución" in text and "`" not in text, text
            # Dónde se ejecuta, solo en el primero (issue 50); todos enlazan a
            # «Cómo usar».
            assert ("Binder" in text and "Colab" in text) is (i == 0), text
            assert out.locator(f'a[href="{HOW_TO_RUN_URL}"]').count() == 1
            box = out.locator(".resnorm-feedback-web")
            assert box.is_visible()
            width = box.evaluate("e => e.getBoundingClientRect().right")
            assert width <= 390, "el recuadro se sale de la pantalla"
            colour = box.evaluate("e => getComputedStyle(e).borderLeftColor")
            assert colour != "rgb(178, 24, 43)", "borde rojo de fallo"
            # en modo oscuro, sin el marco claro que el tema pone a las salidas HTML
            frame = box.evaluate(
                "e => getComputedStyle(e.closest('.text_html')).backgroundColor"
            )
            assert frame == "rgba(0, 0, 0, 0)", frame
    finally:
        context.close()
