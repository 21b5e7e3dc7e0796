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
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from resnorm import exercises
from resnorm.exercises import Feedback, check_function
from resnorm.exercises._feedback import HOW_TO_RUN_URL
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
            assert "Binder" in text and "Colab" in text and "`" not in text, text
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
