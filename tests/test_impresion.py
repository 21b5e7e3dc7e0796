"""Un capítulo impreso es una hoja para clase (_assets/css/impresion.css,
_assets/js/impresion.js): en el sitio construido, con los medios de impresión y el
evento «beforeprint» que lanza el navegador al imprimir, nada se corta en el margen,
las soluciones no salen debajo de sus ejercicios sino al final, en «Soluciones», cada
pregunta tiene su hueco para contestar, cada widget está dibujado (aunque el lector no
haya llegado a él) y no se imprimen ni barras laterales ni botones."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.helpers import BUILD, PageRecorder

pytestmark = [pytest.mark.browser, pytest.mark.build]

# El capítulo 4 (el de la prueba del issue) y el 11 (su autoevaluación plegada).
CHAPTERS = ["notebooks/04_layernorm.html", "notebooks/11_resumen.html"]
# El ancho útil de una hoja A4 con los márgenes de @page (210 − 2 × 15 mm), en px CSS.
PAPER_WIDTH = 680
SHOTS = BUILD / "impresion"

# El navegador nunca queda libre: los widgets que no están cerca de la pantalla no se
# dibujan solos (widgets-estaticos.js los dibuja «cuando el navegador queda libre»).
# Así, si están dibujados al imprimir, es por «beforeprint».
NEVER_IDLE = "window.requestIdleCallback = function () { return 0; };"

UNDRAWN = """() => [...document.querySelectorAll('.widget-subarea')]
  .filter((box) => !box.querySelector('.rn-widget')).length"""

# «beforeprint», y lo que el navegador imprimiría justo después: las tareas que ese
# evento dejó encadenadas (promesas ya resueltas) corren antes de componer la página;
# la red, no.
BEFORE_PRINT = """async () => {
  window.dispatchEvent(new Event('beforeprint'));
  for (let i = 0; i < 100; i++) await null;
}"""

MEASURE = """() => {
  const shown = (el) => {
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    return style.display !== 'none' && style.visibility !== 'hidden'
      && box.width > 0 && box.height > 0;
  };
  const text = (el) => el.textContent.replace(/\\s+/g, ' ').trim();
  const width = document.documentElement.clientWidth;
  const article = document.querySelector('.bd-article');
  const cut = [...article.querySelectorAll(
      'pre, p, li, table, img, svg, figure, .katex-display, .rn-widget, .admonition')]
    .filter((el) => shown(el) && el.getBoundingClientRect().right > width + 1)
    .map((el) => el.tagName + ': ' + text(el).slice(0, 60));
  const scrolled = [...article.querySelectorAll('pre')]
    .filter((pre) => shown(pre) && pre.scrollWidth > pre.clientWidth + 1)
    .map((pre) => text(pre).slice(0, 60));
  const section = document.querySelector('.rn-soluciones');
  const solutions = [...document.querySelectorAll('.solution')];
  const questions = [...document.querySelectorAll('.rn-quiz-question')];
  const quizAnswers = section
    ? [...section.querySelectorAll('.rn-respuestas-preguntas > li')].map(text) : [];
  const dropdowns = [...article.querySelectorAll('details.sd-dropdown')];
  const selfCheck = dropdowns.filter((d) =>
    !/^\\s*Pista\\b/.test(d.querySelector('.sd-summary-text').textContent));
  return {
    pageWide: document.documentElement.scrollWidth <= width + 1,
    cut, scrolled,
    chrome: ['.bd-header', '.bd-header-article', '.bd-sidebar-primary',
             '.bd-sidebar-secondary', '.prev-next-area', '.dropdown-launch-buttons',
             '.article-header-buttons', '.bd-footer']
      .filter((sel) => [...document.querySelectorAll(sel)].some(shown)),
    buttons: [...article.querySelectorAll('button')].filter(shown).map(text),
    section: section ? {
      title: text(section.querySelector('h1, h2, h3')),
      last: section === section.parentElement.lastElementChild,
      afterEveryExercise: [...document.querySelectorAll('.exercise')].every((ex) =>
        ex.compareDocumentPosition(section) & Node.DOCUMENT_POSITION_FOLLOWING),
    } : null,
    solutions: solutions.length,
    solutionsAtEnd: solutions.filter((s) => section && section.contains(s)
      && shown(s) && s.querySelector('.admonition-title ~ *')
      && shown(s.querySelector('.admonition-title ~ *'))).length,
    solutionsShownElsewhere: solutions.filter((s) =>
      !(section && section.contains(s)) && shown(s)).length,
    pointers: [...document.querySelectorAll('.rn-remite-solucion')].filter(shown)
      .map((p) => p.querySelector('a').getAttribute('href')),
    sectionId: section ? section.id : null,
    quizzes: document.querySelectorAll('.widget-subarea[data-rn-widget="Quiz"]').length,
    questions: questions.map((q) => {
      const input = q.querySelector('.rn-quiz-input');
      const radios = [...q.querySelectorAll('input[type=radio]')];
      return {
        prompt: text(q.querySelector('.rn-quiz-prompt')),
        promptShown: shown(q.querySelector('.rn-quiz-prompt')),
        room: input ? (shown(input) ? input.getBoundingClientRect().height : 0)
          : radios.filter(shown).length,
        kind: input ? 'numeric' : 'choice',
        options: radios.length,
      };
    }),
    quizAnswers,
    selfCheck: selfCheck.length,
    selfCheckAnswers: section
      ? section.querySelectorAll('.rn-respuestas-autoevaluacion > li').length : 0,
    selfCheckRoom: [...document.querySelectorAll('.rn-hueco')].filter(shown).length,
    hintsClosed: dropdowns.filter((d) => !selfCheck.includes(d) && !d.open).length,
    widgets: [...document.querySelectorAll('.widget-subarea')].map((box) => {
      const widget = box.querySelector('.rn-widget');
      return {
        kind: box.dataset.rnWidget,
        height: widget ? widget.getBoundingClientRect().height : 0,
        drawn: widget ? widget.querySelectorAll('svg *, canvas, input, p').length : 0,
      };
    }),
    theme: document.documentElement.dataset.theme,
    // Una sombra hacia dentro (inset: el fondo de una celda de tabla de Bootstrap) no
    // sale de la caja; las demás, sí.
    shadows: [...article.querySelectorAll('*')]
      .filter((el) => shown(el) && getComputedStyle(el).boxShadow
        .replace(/\\([^)]*\\)/g, '').split(',').some((s) => s.trim() !== 'none'
          && !/\\binset\\b/.test(s)))
      .map((el) => el.nodeName.toLowerCase() + '.' + [...el.classList].join('.')),
  };
}"""


def _open(browser, site_url, rel, color_scheme="light", block_widget_code=False):
    context = browser.new_context(color_scheme=color_scheme,
                                  viewport={"width": PAPER_WIDTH, "height": 960})
    context.add_init_script(NEVER_IDLE)
    if block_widget_code:
        context.route("**/_static/widgets/*", lambda route: route.abort())
    rec = PageRecorder(context)
    rec.goto(f"{site_url}/{rel}")
    # El código de los widgets se descarga al terminar de cargar (sin dibujarlos).
    rec.page.wait_for_load_state("networkidle")
    return context, rec.page


@pytest.fixture(scope="module", params=CHAPTERS)
def printed(request, browser, site_url):
    """El capítulo abierto arriba del todo, con el navegador ocupado, y después lo que
    imprimiría: (capítulo, widgets sin dibujar antes de imprimir, medidas)."""
    context, page = _open(browser, site_url, request.param)
    before = page.evaluate(UNDRAWN)
    page.emulate_media(media="print")
    page.evaluate(BEFORE_PRINT)
    data = page.evaluate(MEASURE)
    yield request.param, before, data, page
    context.close()


def test_nothing_is_cut_at_the_right_margin(printed):
    rel, _, data, _ = printed
    assert not data["scrolled"], (
        f"{rel}: código cortado en el margen: {data['scrolled']}")
    assert not data["cut"], f"{rel}: elementos más anchos que la hoja: {data['cut']}"
    assert data["pageWide"], f"{rel}: la página impresa es más ancha que la hoja"


def test_no_box_prints_a_shadow(printed):
    """En papel, una sombra es una mancha gris que el margen corta (las cajas llegan
    al margen derecho)."""
    rel, _, data, _ = printed
    assert not data["shadows"], (
        f"{rel}: se imprimen con sombra {sorted(set(data['shadows']))}: quítala en "
        "_assets/css/impresion.css")


def test_no_sidebars_header_or_buttons_are_printed(printed):
    rel, _, data, _ = printed
    assert not data["chrome"], f"{rel}: se imprimen {data['chrome']}"
    assert not data["buttons"], f"{rel}: se imprimen botones: {data['buttons']}"


def test_solutions_print_at_the_end_not_under_their_exercise(printed):
    rel, _, data, _ = printed
    assert data["solutions"] > 0, f"{rel}: el capítulo no tiene soluciones"
    assert data["section"] is not None, f"{rel}: no hay sección «Soluciones»"
    assert data["section"]["title"] == "Soluciones"
    assert data["section"]["last"], f"{rel}: «Soluciones» no cierra el capítulo"
    assert data["section"]["afterEveryExercise"]
    assert data["solutionsShownElsewhere"] == 0, (
        f"{rel}: {data['solutionsShownElsewhere']} soluciones abiertas en el texto")
    assert data["solutionsAtEnd"] == data["solutions"], (
        f"{rel}: en «Soluciones» se ven {data['solutionsAtEnd']} de "
        f"{data['solutions']}")
    # Cada ejercicio remite a «Soluciones», en su lugar.
    assert data["pointers"] == [f"#{data['sectionId']}"] * data["solutions"]


def test_each_question_prints_its_prompt_with_room_to_answer(printed):
    rel, _, data, _ = printed
    questions = data["questions"]
    assert questions, f"{rel}: no se imprime ninguna pregunta"
    for q in questions:
        assert q["promptShown"] and len(q["prompt"]) > 5, f"{rel}: {q}"
        if q["kind"] == "numeric":
            assert q["room"] >= 30, f"{rel}: sin hueco para contestar: {q['prompt']}"
        else:
            assert q["room"] == q["options"] >= 2, f"{rel}: opciones: {q}"


def test_each_quiz_answer_is_in_the_solutions(printed):
    rel, _, data, _ = printed
    answers = data["quizAnswers"]
    assert len(answers) == len(data["questions"]), (
        f"{rel}: {len(data['questions'])} preguntas y {len(answers)} respuestas")
    assert all(len(a) > 10 for a in answers), answers


def test_self_check_questions_keep_room_and_answers_go_to_the_end(printed):
    rel, _, data, _ = printed
    assert data["selfCheckAnswers"] == data["selfCheck"]
    assert data["selfCheckRoom"] == data["selfCheck"]
    assert data["hintsClosed"] == 0, f"{rel}: pistas que se imprimen plegadas"
    if rel.endswith("11_resumen.html"):
        assert data["selfCheck"] >= 5


def test_every_widget_is_drawn_before_printing_wherever_the_reader_is(printed):
    rel, before, data, _ = printed
    # Al abrir arriba del todo, sin gestos y con el navegador ocupado, los widgets
    # lejos de la pantalla aún no están dibujados: los dibuja «beforeprint».
    assert before > 0, f"{rel}: todos los widgets ya estaban dibujados al abrir"
    widgets = data["widgets"]
    assert widgets and all(w["height"] > 50 and w["drawn"] > 0 for w in widgets), (
        f"{rel}: widgets vacíos al imprimir: {widgets}")


def test_after_printing_the_page_is_as_it_was(printed):
    rel, _, data, page = printed
    state = page.evaluate("""() => {
      window.dispatchEvent(new Event('afterprint'));
      return {
        sections: document.querySelectorAll('.rn-soluciones').length,
        pointers: document.querySelectorAll('.rn-remite-solucion').length,
        room: document.querySelectorAll('.rn-hueco').length,
        underExercise: [...document.querySelectorAll('.solution')].every((s) => {
          let prev = s.previousElementSibling;
          while (prev && !prev.matches('.exercise')) prev = prev.previousElementSibling;
          return prev !== null;
        }),
        folded: [...document.querySelectorAll('.solution')]
          .every((s) => s.classList.contains('toggle-hidden')),
      };
    }""")
    page.evaluate(BEFORE_PRINT)  # otra vez como al imprimir, para las demás pruebas
    assert state["sections"] == state["pointers"] == state["room"] == 0, state
    assert state["underExercise"], f"{rel}: las soluciones no volvieron a su sitio"
    assert state["folded"], f"{rel}: las soluciones quedaron desplegadas en pantalla"


def test_dark_mode_prints_in_light_and_comes_back(browser, site_url):
    context, page = _open(browser, site_url, CHAPTERS[0], color_scheme="dark")
    try:
        page.wait_for_function("document.documentElement.dataset.theme === 'dark'")
        page.evaluate(BEFORE_PRINT)
        printing = page.evaluate("document.documentElement.dataset.theme")
        page.evaluate("window.dispatchEvent(new Event('afterprint'))")
        after = page.evaluate("document.documentElement.dataset.theme")
    finally:
        context.close()
    assert (printing, after) == ("light", "dark")


def test_a_widget_that_cannot_be_drawn_prints_a_one_line_note(browser, site_url):
    context, page = _open(browser, site_url, CHAPTERS[0], block_widget_code=True)
    try:
        page.emulate_media(media="print")
        page.evaluate(BEFORE_PRINT)
        notes = page.evaluate("""() => [...document.querySelectorAll('.widget-subarea')]
          .map((box) => {
            const style = getComputedStyle(box, '::before');
            return { content: style.content, drawn: !!box.querySelector('.rn-widget'),
                     height: box.getBoundingClientRect().height };
          })""")
    finally:
        context.close()
    assert notes and not any(n["drawn"] for n in notes)
    for note in notes:
        assert "figura interactiva" in note["content"], note
        assert note["height"] < 80, f"la caja sin dibujar deja un hueco: {note}"


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="falta poppler-utils")
def test_chapter_4_prints_as_a_handout(browser, site_url):
    """El capítulo 4 en PDF, como «Imprimir» del navegador: ninguna página en blanco,
    «Soluciones» después de los ejercicios, y tres páginas en PNG para mirarlas
    (_build/impresion/)."""
    context, page = _open(browser, site_url, CHAPTERS[0])
    try:
        page.emulate_media(media="print")
        page.evaluate(BEFORE_PRINT)
        SHOTS.mkdir(parents=True, exist_ok=True)
        pdf = SHOTS / "capitulo-04.pdf"
        page.pdf(path=str(pdf), format="A4", print_background=True)
    finally:
        context.close()
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                          capture_output=True, text=True).stdout
    pages = text.split("\f")[:-1]
    blank = [i + 1 for i, p in enumerate(pages) if not p.strip()]
    assert len(pages) > 5 and not blank, f"páginas en blanco: {blank}"
    # «Soluciones» empieza en su propia página, después de todos los ejercicios.
    start = [i for i, p in enumerate(pages)
             if any(line.strip() == "Soluciones" for line in p.splitlines())]
    solved = [i for i, p in enumerate(pages) if "Solución del Ejercicio" in p]
    assert start and solved and min(solved) >= start[0], (start, solved)
    for first in (1, len(pages) // 2, len(pages) - 1):
        subprocess.run(["pdftoppm", "-r", "70", "-png", "-f", str(first), "-l",
                        str(first), str(pdf), str(SHOTS / "capitulo-04")], check=True)
