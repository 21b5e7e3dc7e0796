"""La página bajo fallos (issue 52), en el sitio construido y en Chromium.

* Las preguntas no pierden lo contestado con el almacenamiento casi lleno, guardan
  acotada una respuesta de millones de cifras, nombran los caracteres invisibles y no
  leen «1, 002» como 1.002.
* «Código en vivo», con un BinderHub de mentira en 127.0.0.1: cada fallo (la
  construcción, un servidor que no contesta) tiene su mensaje y su «Volver a
  intentarlo», sin errores en la consola y sin guardar la clave del servidor.
* Sin ``widgets-estaticos.js`` cada widget lo dice; sin la hoja de un widget, el
  widget se dibuja igual.
* Un «%» suelto en la dirección y una búsqueda de 60 000 caracteres no lanzan.
* El GPT del capítulo 10: un envío con un campo mal para la generación en curso, y
  los campos de números enteros no sugieren «0.8».
* Sin JavaScript: los enunciados de las preguntas se leen, los menús de la cabecera
  se abren y el cuadro del progreso lo explica.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.helpers import PageRecorder, built_soup, draw_widgets, free_port
from tests.test_quiz_site import STATE, _questions, _section

pytestmark = [pytest.mark.browser, pytest.mark.build]

LAYER_NORM = "notebooks/04_layernorm.html"
GPT_PAGE = "notebooks/10_gpt_diminuto.html"
VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]'
# Los que no se ven y no deben salir tal cual en un mensaje (texto.js).
RAW_INVISIBLE = re.compile("[\t\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _recorder(browser, **kwargs) -> PageRecorder:
    return PageRecorder(browser.new_context(viewport={"width": 1000, "height": 900},
                                            **kwargs))


def _js_errors(rec: PageRecorder) -> list[str]:
    """Los errores de JavaScript; no los de red que el propio navegador anota (una
    conexión rechazada por el servidor de mentira)."""
    network = ("Failed to load resource", "WebSocket connection")
    return [e for e in rec.console_errors if not e.startswith(network)]


def _open(rec: PageRecorder, site_url: str, rel: str, widgets: bool = True):
    page = rec.goto(f"{site_url}/{rel}")
    if widgets:
        draw_widgets(page)
    return page


def _numeric_block(page) -> list[dict]:
    """Las preguntas numéricas del primer bloque que tiene dos o más."""
    blocks = page.evaluate(
        """(state) => [...document.querySelectorAll('[data-rn-widget="Quiz"]')]
        .map((area) => {
          const all = JSON.parse(document.querySelector(state).textContent).state;
          const id = JSON.parse(area.nextElementSibling.textContent).model_id;
          return all[id].state.questions;
        })""", STATE)
    return next(b for b in blocks if sum(q["type"] == "numeric" for q in b) >= 2)


def _submit(page, question: dict, text: str) -> str:
    """Escribe ``text`` (tal cual, invisibles incluidos) en la pregunta y la comprueba:
    el mensaje que recibe."""
    section = _section(page, question)
    box = section.locator("input.rn-quiz-input")
    box.evaluate("(el, v) => { el.value = v; }", text)
    section.locator("button.rn-quiz-primary").click()
    return section.locator(".rn-quiz-feedback").first.inner_text()


def _quiz(page, question: dict):
    """El bloque de preguntas de ``question``."""
    return page.locator("section.rn-quiz").filter(
        has=page.get_by_text(question["prompt"], exact=True))


def _progress(page, question: dict) -> str:
    return _quiz(page, question).locator(".rn-quiz-progress").inner_text()


def _decimal(value: float) -> str:
    """La respuesta exacta, sin exponente (lo que escribiría quien la copia)."""
    return f"{value:.12f}"


# --- Lo contestado y lo escrito -------------------------------------------------------

# Casi lleno, con algo ya guardado de otra visita: cabe la prueba de
# almacen-seguro.js («1»), no el progreso nuevo.
NEARLY_FULL = """
(() => {
  const setItem = Storage.prototype.setItem;
  setItem.call(localStorage, "resnorm.quiz.v1", '{"chapters":{}}');
  Storage.prototype.setItem = function (key, value) {
    if (String(value).length > 64) {
      throw new DOMException("El almacenamiento está lleno", "QuotaExceededError");
    }
    return setItem.call(this, key, value);
  };
})();
"""


def test_nearly_full_storage_counts_each_right_answer_and_says_so(browser, site_url):
    rec = _recorder(browser)
    rec.context.add_init_script(NEARLY_FULL)
    try:
        page = _open(rec, site_url, LAYER_NORM)
        first, second = [q for q in _numeric_block(page) if q["type"] == "numeric"][:2]
        assert _progress(page, first).startswith("Progreso del capítulo: 0 de")
        assert "¡Bien!" in _submit(page, first, _decimal(first["answer"]))
        assert "1 de" in _progress(page, first), _progress(page, first)
        assert "¡Bien!" in _submit(page, second, _decimal(second["answer"]))
        assert "2 de" in _progress(page, first), _progress(page, first)
        note = _quiz(page, first).locator(".rn-quiz-almacen")
        assert note.is_visible() and "lleno" in note.inner_text(), note.inner_text()
        assert not _js_errors(rec), rec.console_errors
    finally:
        rec.context.close()


def test_a_six_million_character_answer_is_stored_bounded(browser, site_url):
    """Se guarda el número leído, no los 6 millones de cifras: no sale el aviso de que
    el navegador no deja guardar, y la respuesta siguiente también se guarda."""
    rec = _recorder(browser)
    try:
        page = _open(rec, site_url, LAYER_NORM)
        first, second = [q for q in _numeric_block(page) if q["type"] == "numeric"][:2]
        huge = _decimal(first["answer"]) + "0" * 6_000_000
        assert "¡Bien!" in _submit(page, first, huge)
        assert "¡Bien!" in _submit(page, second, _decimal(second["answer"]))
        assert not _quiz(page, first).locator(".rn-quiz-almacen").is_visible()
        stored = page.evaluate("() => localStorage.getItem('resnorm.quiz.v1')")
        assert stored and len(stored) < 2_000, len(stored or "")
        # Tras recargar, las dos cuentan.
        page = _open(rec, site_url, LAYER_NORM)
        assert "2 de" in _progress(page, first), _progress(page, first)
        assert not _js_errors(rec), rec.console_errors
    finally:
        rec.context.close()


INVISIBLE_ANSWERS = [
    ("\u202e0,25",
     "«0,25» (con un carácter invisible que cambia el sentido del texto, U+202E)"),
    ("\u200d", "No entiendo un carácter invisible (U+200D) como número"),
    ("0,\u200d25", "«0,25» (con un carácter invisible, U+200D)"),
    ("0,\ufeff25", "«0,25» (con un carácter invisible, U+FEFF)"),
    ("1\t2", "«1 2» (con un tabulador)"),
]


def test_invisible_characters_in_an_answer_are_named(browser, site_url):
    rec = _recorder(browser)
    try:
        page = _open(rec, site_url, LAYER_NORM)
        question = next(q for q in _questions(page) if q["type"] == "numeric")
        for typed, named in INVISIBLE_ANSWERS:
            message = _submit(page, question, typed)
            assert named in message, message
            assert not RAW_INVISIBLE.search(message), ascii(message)
    finally:
        rec.context.close()


def test_a_comma_followed_by_a_space_is_not_a_decimal_comma(browser, site_url):
    """«1, 002» son dos números: antes se leía 1.002 y daba la respuesta por buena."""
    rec = _recorder(browser)
    try:
        page = _open(rec, site_url, LAYER_NORM)
        question = next(q for q in _questions(page) if q["type"] == "numeric")
        spaced = _decimal(question["answer"]).replace(".", ", ")
        message = _submit(page, question, spaced)
        assert "parecen varios números" in message, message
        assert "0 de" in _progress(page, question)
    finally:
        rec.context.close()


def test_invisible_characters_in_the_gpt_prompt_are_named(browser, site_url):
    rec = _recorder(browser)
    try:
        page = _open(rec, site_url, GPT_PAGE)
        widget = page.locator("section.rn-gpt")
        error = widget.locator("p.rn-error").first
        prompt = widget.locator("input.rn-gpt-prompt")
        for typed, named in [("Hola\u202e", "cambia el sentido del texto (U+202E)"),
                             ("\t", "un tabulador"),
                             ("a\u200d", "un carácter invisible (U+200D)")]:
            prompt.evaluate("(el, v) => { el.value = v; }", typed)
            widget.locator("button.rn-primary").click()
            message = error.inner_text()
            assert named in message, message
            assert not RAW_INVISIBLE.search(message), ascii(message)
        assert not _js_errors(rec), rec.console_errors
    finally:
        rec.context.close()


# --- «Código en vivo» con un BinderHub de mentira -------------------------------------


class FakeBinder:
    """Un BinderHub en 127.0.0.1: ``/health`` responde y cada ``/build/...`` envía,
    como un BinderHub, la fase «building» y después «failed» (``mode="fallo"``) o
    «ready» con la dirección ``server`` y una clave."""

    TOKEN = "clave-del-servidor"

    def __init__(self, mode: str, server: str = ""):
        self.mode, self.server, self.builds = mode, server, 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path.startswith("/build/"):
                    fake.builds += 1
                    last = ({"phase": "failed", "message": "Error: no se pudo"}
                            if fake.mode == "fallo" else
                            {"phase": "ready", "message": "listo", "url": fake.server,
                             "token": fake.TOKEN})
                    body = "".join(f"data: {json.dumps(e)}\n\n" for e in (
                        {"phase": "building", "message": "construyendo"}, last))
                    kind = "text/event-stream"
                else:
                    body, kind = "{}", "application/json"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
                self.wfile.write(body.encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def fake_binder(mode: str, server: str = ""):
    fake = FakeBinder(mode, server)
    try:
        yield fake
    finally:
        fake.close()


@contextmanager
def silent_server():
    """Un servidor que acepta la conexión y nunca contesta."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        sock.close()


def _closed_port_url() -> str:
    return f"http://127.0.0.1:{free_port()}/"


def _live_code(page, binder_url: str):
    """Pulsa «Código en vivo» con ``binder_url`` como BinderHub del sitio."""
    page.evaluate("(url) => { window.CURSO_BINDER_URL = url; }", binder_url)
    page.locator(".dropdown-launch-buttons button.dropdown-toggle").click()
    page.locator(".dropdown-launch-buttons .btn-launch-thebe").click()


def _wait_notice(page, pattern: str, timeout: float = 60_000) -> str:
    page.wait_for_function(
        "(p) => new RegExp(p).test(document.getElementById('curso-codigo-en-vivo')"
        "?.innerText || '')", arg=pattern, timeout=timeout)
    return page.locator("#curso-codigo-en-vivo").inner_text()


def _wait_builds(page, fake: FakeBinder, n: int, timeout_s: float = 60):
    """Espera a que el BinderHub de mentira haya recibido ``n`` peticiones."""
    for _ in range(int(timeout_s * 10)):
        if fake.builds >= n:
            return
        page.wait_for_timeout(100)
    pytest.fail(f"Binder recibió {fake.builds} peticiones, no {n}")


def test_a_failed_binder_build_says_so_and_can_be_retried(browser, site_url):
    rec = _recorder(browser)
    try:
        with fake_binder("fallo") as fake:
            page = _open(rec, site_url, LAYER_NORM, widgets=False)
            _live_code(page, fake.url)
            text = _wait_notice(page, "no pudo preparar")
            assert "no es cosa de tu conexión" in text, text
            assert "conexión a internet" not in text, text
            assert fake.builds == 1
            # «Volver a intentarlo» vuelve a pedir el entorno a Binder…
            page.locator("#curso-codigo-en-vivo button").click()
            _wait_builds(page, fake, 2)
            _wait_notice(page, "no pudo preparar")
            # …y también el botón «Código en vivo», pulsado otra vez.
            _live_code(page, fake.url)
            _wait_builds(page, fake, 3)
            _wait_notice(page, "no pudo preparar")
        assert not _js_errors(rec), rec.console_errors
    finally:
        rec.context.close()


def test_a_binder_server_that_refuses_gets_its_own_message_and_no_saved_token(
    browser, site_url
):
    rec = _recorder(browser)
    try:
        with fake_binder("listo", _closed_port_url()) as fake:
            page = _open(rec, site_url, LAYER_NORM, widgets=False)
            # Lo que Thebe guardó en una visita anterior (24 h) se borra.
            page.evaluate("() => localStorage.setItem('thebe-binder-viejo', "
                          "JSON.stringify({token: 'clave-vieja'}))")
            _live_code(page, fake.url)
            text = _wait_notice(page, "Volver a intentarlo")
            assert text.startswith("El servidor que abrió Binder no responde"), text
            assert "Servidor listo" not in text
            stored = page.evaluate("() => JSON.stringify({...localStorage})")
            assert "thebe-binder" not in stored and "clave" not in stored, stored
            page.locator("#curso-codigo-en-vivo button").click()
            _wait_builds(page, fake, 2)
            _wait_notice(page, "Volver a intentarlo")
        assert not _js_errors(rec), rec.console_errors
    finally:
        rec.context.close()


def test_a_binder_server_that_never_answers_times_out_with_a_retry(browser, site_url):
    """Con el reloj de la página adelantado: a los 30 s de que Binder diera el
    servidor (que acepta la conexión y calla), el aviso lo dice."""
    rec = _recorder(browser)
    try:
        with silent_server() as server, fake_binder("listo", server) as fake:
            page = _open(rec, site_url, LAYER_NORM, widgets=False)
            # El reloj de la página, parado: solo avanza con run_for. Instalado sin
            # más, también corre con el reloj de verdad, y con la máquina ocupada el
            # segundo que pasa entre leer el aviso y adelantar 29 s bastaba para que
            # saltara el límite de 30 s antes de tiempo.
            page.clock.install()
            page.clock.pause_at(page.evaluate("Date.now()") + 1_000)
            _live_code(page, fake.url)
            for _ in range(600):
                page.clock.run_for(500)
                text = page.locator("#curso-codigo-en-vivo").inner_text()
                if "Binder abrió un servidor" in text:
                    break
                page.wait_for_timeout(50)
            else:
                pytest.fail(f"Binder dio el servidor y el aviso no lo dice: {text!r}")
            notice = page.locator("#curso-codigo-en-vivo")
            page.clock.run_for(29_000)
            assert "no responde" not in notice.inner_text()
            page.clock.run_for(2_000)
            text = _wait_notice(page, "no responde", timeout=10_000)
            assert page.locator("#curso-codigo-en-vivo button").is_visible()
        assert not _js_errors(rec), rec.console_errors
    finally:
        rec.context.close()


# --- Widgets sin su código o sin su hoja ---------------------------------------------


@pytest.mark.parametrize("rel", [LAYER_NORM, GPT_PAGE])
def test_without_the_widget_loader_each_widget_says_so(browser, site_url, rel):
    rec = _recorder(browser)
    try:
        rec.page.route("**/widgets-estaticos.js*", lambda route: route.fulfill(
            status=404, body="no está"))
        page = _open(rec, site_url, rel, widgets=False)
        views = page.locator(VIEW).count()
        failed = page.locator(".widget-subarea > .rn-widget-fallo")
        assert views >= 2 and failed.count() == views, (views, failed.count())
        assert all("Recarga la página" in t for t in failed.all_inner_texts())
        assert failed.first.is_visible()
    finally:
        rec.context.close()


def test_a_missing_widget_stylesheet_leaves_the_widgets_working(browser, site_url):
    rec = _recorder(browser)
    try:
        rec.page.route("**/_static/widgets/*.css", lambda route: route.fulfill(
            status=404, body="no está"))
        page = _open(rec, site_url, LAYER_NORM)  # espera a que todos se dibujen
        assert page.locator(".rn-widget-fallo").count() == 0
        assert page.locator("section.rn-widget").count() == page.locator(VIEW).count()
    finally:
        rec.context.close()


# --- La dirección y la búsqueda -------------------------------------------------------


def test_a_stray_percent_in_the_address_hash_throws_nothing(browser, site_url):
    rec = _recorder(browser)
    try:
        page = _open(rec, site_url, LAYER_NORM, widgets=False)
        for bad in ("#50%", "#%E0%A4%A", "#a%zz"):
            page.evaluate("(h) => { location.hash = h; }", bad)
            page.wait_for_function("(h) => location.hash === h", arg=bad)
        page.evaluate("() => new Promise((r) => setTimeout(r, 100))")
        assert not _js_errors(rec), rec.console_errors
    finally:
        rec.context.close()


def test_a_60000_character_search_finishes_and_says_it_was_cut(browser, site_url):
    rec = _recorder(browser)
    try:
        page = rec.page
        page.goto(f"{site_url}/search.html?q=capa{'a' * 60_000}", wait_until="load")
        page.wait_for_function(
            "() => { const s = document.querySelector('#search-results "
            "p.search-summary'); return s && s.innerText.trim() && "
            "!/Buscando|Preparando/.test(s.innerText); }", timeout=60_000)
        note = page.locator(".curso-busqueda-recortada").inner_text()
        assert "muy larga" in note and "200" in note, note
        assert not _js_errors(rec), rec.console_errors
    finally:
        rec.context.close()


# --- El GPT del capítulo 10 -----------------------------------------------------------


def test_an_invalid_submit_stops_the_running_generation(browser, site_url):
    rec = _recorder(browser)
    try:
        page = _open(rec, site_url, GPT_PAGE)
        widget = page.locator("section.rn-gpt")
        status = widget.locator(".rn-gpt-status")
        seed, n_chars = (widget.locator("input.rn-gpt-number").nth(i) for i in (0, 2))
        n_chars.fill("300")
        widget.locator("button.rn-primary").click()
        page.wait_for_function(
            "(el) => /^Generando/.test(el.textContent)", arg=status.element_handle(),
            timeout=120_000)
        seed.fill("")
        widget.locator("button.rn-primary").click()
        said = status.inner_text()
        assert said.startswith("Generación detenida"), said
        assert widget.locator(".rn-gpt-cursor").count() == 0
        texts = widget.locator(".rn-gpt-new").all_inner_texts()
        assert all(len(t) < 300 for t in texts), [len(t) for t in texts]
        page.evaluate("() => new Promise((r) => setTimeout(r, 300))")
        assert widget.locator(".rn-gpt-new").all_inner_texts() == texts
        assert not _js_errors(rec), rec.console_errors
    finally:
        rec.context.close()


def test_whole_number_fields_do_not_suggest_a_decimal(browser, site_url):
    rec = _recorder(browser)
    try:
        page = _open(rec, site_url, GPT_PAGE)
        widget = page.locator("section.rn-gpt")
        for i in (0, 2):  # semilla y caracteres nuevos
            widget.locator("input.rn-gpt-number").nth(i).fill("")
        widget.locator("button.rn-primary").click()
        message = widget.locator("p.rn-error").nth(1).inner_text()
        assert message.count("número entero") == 2, message
        assert "0.8" not in message, message
        assert "por ejemplo 1." in message and "por ejemplo 80." in message, message
    finally:
        rec.context.close()


# --- Sin JavaScript -------------------------------------------------------------------


def _prompts(rel: str) -> list[str]:
    state = json.loads(built_soup(rel).select_one(STATE).get_text())["state"]
    return [q["prompt"] for model in state.values()
            for q in model["state"].get("questions", [])]


def test_without_javascript_the_quiz_prompts_can_be_read(browser, site_url):
    rec = _recorder(browser, java_script_enabled=False)
    try:
        page = _open(rec, site_url, LAYER_NORM, widgets=False)
        prompts = _prompts(LAYER_NORM)
        shown = page.locator("ol.rn-quiz-sin-js > li > p").all_inner_texts()
        assert len(prompts) >= 3 and sorted(shown) == sorted(prompts), (shown, prompts)
        assert page.locator("ol.rn-quiz-sin-js").first.is_visible()
    finally:
        rec.context.close()


def test_without_javascript_the_header_menus_open(browser, site_url):
    rec = _recorder(browser, java_script_enabled=False)
    try:
        page = _open(rec, site_url, LAYER_NORM, widgets=False)
        launch = page.locator(".dropdown-launch-buttons")
        binder = launch.locator(".dropdown-menu a", has_text="Binder")
        assert not binder.is_visible()
        launch.locator("button.dropdown-toggle").focus()
        assert binder.is_visible()
        # Lo que solo funciona con JavaScript no se ofrece.
        assert not launch.locator(".btn-launch-thebe").is_visible()
        download = page.locator(".dropdown-download-buttons")
        download.locator("button.dropdown-toggle").hover()
        assert download.locator("a", has_text=".ipynb").is_visible()
        assert not download.locator("button", has_text=".pdf").is_visible()
    finally:
        rec.context.close()


def test_without_javascript_the_progress_box_explains_itself(browser, site_url):
    rec = _recorder(browser, java_script_enabled=False)
    try:
        page = _open(rec, site_url, "book/intro.html", widgets=False)
        box = page.locator("#rn-progreso-curso")
        said = box.evaluate("(el) => getComputedStyle(el, '::before').content")
        assert "JavaScript" in said, said
        assert box.bounding_box()["height"] > 20
    finally:
        rec.context.close()


# --- Issue 52, lo que quedaba: las citas de los widgets y «Deshacer» ---------------

MEAN_STD = "notebooks/03_media_desviacion.html"


def test_invisible_characters_in_a_widget_number_are_named(browser, site_url):
    """Lo que cita ``quoteInput`` (compute.js) salía tal cual en la calculadora del
    capítulo 3: un U+202E pegado daba la vuelta al mensaje y un tabulador dejaba «».
    mean_std.js lo muestra con ``nameInvisible`` (texto.js), como el GPT."""
    rec = _recorder(browser)
    try:
        page = _open(rec, site_url, MEAN_STD)
        box = page.locator("input.rn-input").first
        error = page.locator("span.rn-error").first
        for typed, named in [
                ("0,5\u202e", "«0,5» (con un carácter invisible que cambia el sentido "
                 "del texto, U+202E)"),
                ("1\t2", "«1 2» (con un tabulador) no es un número"),
                ("\u200b", "un carácter invisible (U+200B) no es un número"),
                ("1\u200d", "«1» (con un carácter invisible, U+200D)")]:
            box.fill(typed)
            message = error.inner_text()
            assert named in message, (ascii(typed), message)
            assert not RAW_INVISIBLE.search(message), ascii(message)
        assert not _js_errors(rec), rec.console_errors
    finally:
        rec.context.close()


# Lo guardado de otra visita: una pregunta bien contestada del capítulo 3.
SAVED_PROGRESS = """
(() => {
  if (sessionStorage.getItem("rn-prueba-sembrado")) return;
  sessionStorage.setItem("rn-prueba-sembrado", "1");
  localStorage.setItem("resnorm.quiz.v1", JSON.stringify(%s));
})();
"""
# Desde que se llama, setItem lanza como con el almacenamiento lleno.
FILL_STORAGE = """() => {
  window.rnSetItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function () {
    throw new DOMException("El almacenamiento está lleno", "QuotaExceededError");
  };
}"""


def test_undo_with_full_storage_says_so_and_can_be_retried(browser, site_url):
    """«Deshacer» en la portada lanzaba un QuotaExceededError sin capturar si el
    almacenamiento se llenó tras «Empezar de nuevo»: ahora lo dice en español, lo
    borrado sigue en la página y un segundo «Deshacer» lo recupera."""
    page_state = json.loads(built_soup("book/intro.html").select_one(
        "#rn-quiz-manifest").get_text())
    chapter = page_state["chapters"][0]
    qid, version = next(iter(chapter["questions"].items()))
    saved = {"chapters": {chapter["key"]: {qid: {"v": version, "ok": True, "a": 1}}}}
    rec = _recorder(browser)
    rec.context.add_init_script(SAVED_PROGRESS % json.dumps(saved))
    try:
        page = _open(rec, site_url, "book/intro.html", widgets=False)
        box = page.locator("#rn-progreso-curso")
        total = box.locator(".rn-progreso-total")
        assert total.inner_text().startswith("Llevas 1 de"), total.inner_text()
        box.locator(".rn-progreso-reset").click()
        assert total.inner_text().startswith("Llevas 0 de")
        page.evaluate(FILL_STORAGE)
        box.locator(".rn-progreso-deshacer").click()
        alert = box.locator(".rn-progreso-error")
        assert alert.is_visible(), box.inner_text()
        said = alert.inner_text()
        assert "No se pudo deshacer" in said and "lleno" in said, said
        assert not _js_errors(rec), rec.console_errors
        # Hay sitio otra vez: el mismo botón lo recupera.
        page.evaluate("() => { Storage.prototype.setItem = window.rnSetItem; }")
        box.locator(".rn-progreso-deshacer").click()
        assert total.inner_text().startswith("Llevas 1 de"), total.inner_text()
        assert box.locator(".rn-progreso-error").count() == 0
        assert json.loads(page.evaluate(
            "localStorage.getItem('resnorm.quiz.v1')")) == saved
    finally:
        rec.context.close()
