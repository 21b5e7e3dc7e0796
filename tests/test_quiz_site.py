"""Las preguntas en el sitio construido, como las usa una persona, sin red.

Para cada pregunta de cada página: la respuesta correcta se acepta y cada error típico
recibe su propio mensaje. En la primera pregunta numérica de cada página, además, la
respuesta correcta vale escrita con coma y con punto, y lo que no es un número recibe
un mensaje en español (nunca NaN, «undefined» ni «Infinity»): esa lectura es la misma
en todas las preguntas (``quiz.js``), y cada respuesta cuesta en una página larga
≈ 0,2 s de CPU del navegador. Todo con el teclado. El
progreso sobrevive a recargar la página, «Empezar de nuevo» lo borra y la portada
muestra el del curso entero. En modo oscuro y a 390 px no se desborda nada.
"""

from __future__ import annotations

import json
import math
import re

import pytest

from tests.helpers import BUILD_HTML, VIEWPORTS, PageRecorder, draw_widgets

pytestmark = [pytest.mark.browser, pytest.mark.build]

STATE = 'script[type="application/vnd.jupyter.widget-state+json"]'
BAD_WORDS = ("NaN", "undefined", "Infinity", "null")


def _quiz_pages() -> list[str]:
    pages = []
    for path in sorted(BUILD_HTML.glob("notebooks/*.html")):
        if "resnorm.quiz.v1" in path.read_text(encoding="utf-8"):
            pages.append(path.relative_to(BUILD_HTML).as_posix())
    return pages


QUIZ_PAGES = _quiz_pages() if BUILD_HTML.exists() else []


def _typed(value: float, tol: float) -> str:
    """La respuesta como la escribiría una persona: redondeada dentro de la "
    "tolerancia."""
    decimals = max(0, math.ceil(-math.log10(tol)) + 1)
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def _questions(page) -> list[dict]:
    state = json.loads(page.locator(STATE).first.text_content())["state"]
    out = []
    for model in state.values():
        s = model.get("state", {})
        if s.get("storage_key") == "resnorm.quiz.v1":
            out.extend(s["questions"])
    return out


def _section(page, question):
    return page.locator(".rn-quiz-question").filter(
        has=page.get_by_text(question["prompt"], exact=True)
    )


def _answer(section, text: str):
    box = section.locator("input.rn-quiz-input")
    box.click()
    box.press("Control+A")
    box.press("Backspace")
    if text:
        box.press_sequentially(text)
    box.press("Enter")
    feedback = section.locator(".rn-quiz-feedback").first
    feedback.wait_for(state="attached")
    return feedback


def _open(browser, site_url, rel, scheme="light", width=390):
    context = browser.new_context(
        color_scheme=scheme, viewport={"width": width, "height": 844}
    )
    recorder = PageRecorder(context)
    page = recorder.goto(f"{site_url}/{rel}")
    draw_widgets(page)
    return context, recorder, page


def test_every_chapter_page_has_questions():
    chapters = sorted(BUILD_HTML.glob("notebooks/*.html"))
    assert chapters, "no hay sitio construido"
    missing = [
        p.name
        for p in chapters
        if p.relative_to(BUILD_HTML).as_posix() not in QUIZ_PAGES
    ]
    assert not missing, (
        f"capítulos sin preguntas: {missing}. Sus preguntas van en "
        "resnorm/quiz/bank.py (una función y una entrada en _CHAPTERS) y el "
        "notebook las muestra con Quiz.from_bank(clave, bloque)"
    )


@pytest.fixture(scope="module")
def phone_tab(browser):
    """Una pestaña a 390 px, en claro, para las páginas de preguntas una tras otra."""
    width, height = VIEWPORTS["telefono"]
    context = browser.new_context(
        color_scheme="light", viewport={"width": width, "height": height}
    )
    yield PageRecorder(context)
    context.close()


def _visit(recorder, site_url, rel):
    """``rel`` en la pestaña ``recorder``, sin el progreso guardado por la página
    anterior (cada prueba empieza como quien llega al curso por primera vez)."""
    page = recorder.next_visit()
    if page.url.startswith(site_url):
        page.evaluate("() => localStorage.clear()")
    recorder.goto(f"{site_url}/{rel}")
    draw_widgets(page)
    return page


@pytest.mark.parametrize("rel", QUIZ_PAGES)
def test_every_question_is_corrected_and_diagnosed_on_the_page(phone_tab, site_url,
                                                                rel):
    recorder = phone_tab
    page = _visit(recorder, site_url, rel)
    questions = _questions(page)
    assert len(questions) >= 3, f"{rel}: menos de tres preguntas"
    first_numeric = next((q["id"] for q in questions if q["type"] == "numeric"), None)
    for q in questions:
        section = _section(page, q)
        assert section.count() == 1, f"{rel}: no encuentro «{q['prompt'][:40]}»"
        if q["type"] == "numeric":
            right = _typed(q["answer"], q["tol"])
            first = q["id"] == first_numeric
            for typed in (right, right.replace(".", ",")) if first else (right,):
                feedback = _answer(section, typed)
                assert "¡Bien!" in feedback.inner_text(), (q["id"], typed)
            for mistake in q["mistakes"]:
                feedback = _answer(section, _typed(mistake["value"], q["tol"]))
                assert mistake["name"] in feedback.inner_text(), (q["id"], mistake)
            for garbage in ("abc", "", "1e400") if first else ():
                text = _answer(section, garbage).inner_text()
                assert text.strip(), (q["id"], garbage)
                assert not any(
                    w in text.replace(f"«{garbage}»", "") for w in BAD_WORDS
                ), (q["id"], garbage, text)
            section.get_by_role("button", name="Dame una pista").click()
            assert "Pista 1 de" in section.inner_text()
        else:
            right = next(i for i, o in enumerate(q["options"]) if o["correct"])
            radios = section.locator("input[type=radio]")
            radios.nth(0).focus()
            page.keyboard.press("Space")
            for _ in range(right):
                page.keyboard.press("ArrowDown")
            page.keyboard.press("Enter")
            feedback = section.locator(".rn-quiz-feedback").first
            assert "¡Bien!" in feedback.inner_text(), q["id"]
            wrong = next(i for i, o in enumerate(q["options"]) if not o["correct"])
            radios.nth(wrong).check()
            section.get_by_role("button", name="Comprobar").click()
            assert q["options"][wrong]["explanation"] in feedback.inner_text()
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - "
        "document.documentElement.clientWidth"
    )
    assert overflow <= 1, f"{rel}: la página se desborda {overflow} px a 390 px"
    assert not recorder.console_errors, recorder.console_errors
    assert not recorder.external, recorder.external


def test_progress_survives_a_reload_and_start_over_clears_it(browser, site_url):
    rel = next(p for p in QUIZ_PAGES if "layernorm" in p)
    context, recorder, page = _open(browser, site_url, rel, scheme="dark", width=1366)
    try:
        q = next(q for q in _questions(page) if q["type"] == "numeric")
        _answer(_section(page, q), _typed(q["answer"], q["tol"]))
        progress = page.locator(".rn-quiz-progress").first
        assert re.search(r"\b1 de \d+ preguntas", progress.inner_text())
        page.reload(wait_until="load")
        draw_widgets(page)
        assert re.search(r"\b1 de \d+ preguntas", progress.inner_text())
        assert "Ya la contestaste bien" in _section(page, q).inner_text()
        page.goto(f"{site_url}/book/intro.html")
        landing = page.locator("#rn-progreso-curso")
        landing.wait_for()
        assert re.search(r"Llevas 1 de \d+ preguntas del curso", landing.inner_text())
        page.goto(f"{site_url}/{rel}", wait_until="load")
        draw_widgets(page)
        page.get_by_role("button", name="Empezar de nuevo este capítulo").first.click()
        progress = page.locator(".rn-quiz-progress").first
        assert re.search(r"\b0 de \d+ preguntas", progress.inner_text())
        page.reload(wait_until="load")
        draw_widgets(page)
        assert re.search(r"\b0 de \d+ preguntas", progress.inner_text())
        assert not recorder.console_errors, recorder.console_errors
    finally:
        context.close()


def test_a_wrong_retry_keeps_the_credit_and_a_reset_can_be_undone(browser, site_url):
    """El progreso nunca retrocede: un intento fallido tras acertar no quita el
    acierto. «Empezar de nuevo» (del capítulo y del curso) se puede deshacer."""
    rel = next(p for p in QUIZ_PAGES if "layernorm" in p)
    context, recorder, page = _open(browser, site_url, rel, width=1366)
    try:
        q = next(q for q in _questions(page) if q["type"] == "numeric")
        section = _section(page, q)
        _answer(section, _typed(q["answer"], q["tol"]))
        progress = page.locator(".rn-quiz-progress").first
        assert re.search(r"\b1 de \d+ preguntas", progress.inner_text())
        feedback = _answer(section, "1234")
        assert "Todavía no" in feedback.inner_text()
        assert re.search(r"\b1 de \d+ preguntas", progress.inner_text())
        page.reload(wait_until="load")
        draw_widgets(page)
        assert re.search(r"\b1 de \d+ preguntas", progress.inner_text())

        page.get_by_role("button", name="Empezar de nuevo este capítulo").first.click()
        assert re.search(r"\b0 de \d+ preguntas", progress.inner_text())
        page.get_by_role("button", name="Deshacer").first.click()
        assert re.search(r"\b1 de \d+ preguntas", progress.inner_text())

        page.goto(f"{site_url}/book/intro.html")
        landing = page.locator("#rn-progreso-curso")
        landing.wait_for()
        landing.get_by_role("button", name="Empezar de nuevo todo el curso").click()
        assert re.search(r"Llevas 0 de \d+", landing.inner_text())
        landing.get_by_role("button", name="Deshacer").click()
        assert re.search(r"Llevas 1 de \d+", landing.inner_text())
        assert not recorder.console_errors, recorder.console_errors
    finally:
        context.close()


@pytest.mark.parametrize("stored", ["[]", '"texto"', '{"chapters": "x"}', "{roto"],
                         ids=["array", "texto", "capitulos-texto", "json-roto"])
def test_stored_progress_of_the_wrong_shape_never_breaks_an_answer(
    browser, site_url, stored
):
    rel = next(p for p in QUIZ_PAGES if "layernorm" in p)
    context, recorder, page = _open(browser, site_url, rel, width=1366)
    try:
        page.evaluate("([k, v]) => localStorage.setItem(k, v)",
                      ["resnorm.quiz.v1", stored])
        page.reload(wait_until="load")
        draw_widgets(page)
        numeric = [q for q in _questions(page) if q["type"] == "numeric"]
        for q in numeric:
            _answer(_section(page, q), _typed(q["answer"], q["tol"]))
        progress = page.locator(".rn-quiz-progress").first
        assert re.search(rf"\b{len(numeric)} de \d+ preguntas", progress.inner_text())
        page.reload(wait_until="load")
        draw_widgets(page)
        assert re.search(rf"\b{len(numeric)} de \d+ preguntas", progress.inner_text())
        assert not recorder.console_errors, recorder.console_errors
    finally:
        context.close()
