"""Preguntas en la página: se contestan y se diagnostican en el navegador, sin núcleo.

Cada capítulo tiene sus preguntas en ``resnorm.quiz.bank``: cálculos a mano que enseñan
las fuentes, predicciones («¿qué pasa si…?») y preguntas de concepto. Los valores
esperados y los errores típicos (dividir entre n − 1, ε fuera de la raíz, olvidar β…)
se calculan con ``resnorm`` al construir el libro: nada se escribe a mano.

El widget ``Quiz`` (anywidget) lleva las preguntas como estado; su JavaScript
(``quiz.js``, con el cálculo puro en ``quiz_core.js``) comprueba la respuesta, nombra
el error si coincide con uno típico y guarda el progreso en ``localStorage`` (nada
sale del navegador). Funciona igual en la web estática y en JupyterLab.
"""

from __future__ import annotations

import hashlib
import html
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import anywidget
import traitlets

__all__ = ["Choice", "Glue", "Mistake", "Numeric", "Option", "Quiz", "STORAGE_KEY"]

_HERE = Path(__file__).resolve().parent

#: Clave de ``localStorage`` donde el navegador guarda el progreso del curso.
STORAGE_KEY = "resnorm.quiz.v1"


@dataclass(frozen=True)
class Glue:
    """Un resultado que pega el notebook del capítulo y en el que se apoya una pregunta.

    ``name`` es el nombre pegado en el capítulo (``show("teo_pre_ln", …)``). Con
    ``value``, la pregunta usa ese número (su respuesta, un error típico o una cifra de
    una explicación), calculado con la misma función que el capítulo; ``index`` elige
    una componente si lo pegado es un vector. ``tests/test_quiz.py`` compara ``value``
    con lo que pegó el capítulo ejecutado. Sin ``value``, la pregunta lee ese
    resultado en palabras («se queda en la pérdida de solo frecuencias») y una prueba
    de ``tests/test_quiz.py`` comprueba esa lectura sobre el capítulo ejecutado.
    """

    name: str
    value: float | None = None
    index: int | None = None
    #: La clave (en el banco) del capítulo que lo pega, si no es el de la pregunta.
    chapter: str | None = None


@dataclass(frozen=True)
class Mistake:
    """Un error típico: el valor que sale al cometerlo, su nombre y por qué está mal."""

    value: float
    name: str
    explanation: str


@dataclass(frozen=True)
class Numeric:
    """Pregunta de respuesta numérica.

    ``tol`` es la tolerancia absoluta, que se le dice al estudiante; ``hints`` son
    pistas escalonadas (un empujón, luego otro más cerca, nunca el código);
    ``solution`` es la solución resuelta, que se muestra solo si se pide.

    ``glued`` y ``reads`` dicen de dónde sale la pregunta: los valores que pega el
    capítulo (``Glue``) y las funciones de ``resnorm`` que muestra (``"resnorm.x.f"``).
    ``sign_hint`` es lo que se dice si solo falla el signo (si hay una resta que
    revisar); sin él, se dice solo que el signo no es. ``unit`` es la unidad en que se
    pide la respuesta («MiB»): se acepta escrita detrás del número, y otra unidad se
    nombra (``quiz_core.js``).
    """

    id: str
    prompt: str
    answer: float
    tol: float
    mistakes: tuple[Mistake, ...] = ()
    hints: tuple[str, ...] = ()
    solution: str = ""
    kind: str = "calculo"
    glued: tuple[Glue, ...] = ()
    reads: tuple[str, ...] = ()
    sign_hint: str = ""
    unit: str = ""

    def __post_init__(self):
        _check_id(self.id)
        if self.unit and not (self.unit.isascii() and self.unit.isalpha()
                              and len(self.unit) <= 4):
            raise ValueError(f"{self.id}: la unidad debe ser una palabra corta: "
                             f"{self.unit!r}")
        values = [("la respuesta", self.answer)] + [
            (f"el error «{m.name}»", m.value) for m in self.mistakes
        ]
        for what, value in values:
            if not (isinstance(value, (int, float)) and math.isfinite(value)):
                raise ValueError(f"{self.id}: {what} no es un número finito: {value!r}")
        if not (self.tol > 0 and math.isfinite(self.tol)):
            raise ValueError(f"{self.id}: la tolerancia debe ser positiva")
        # Cada error debe distinguirse de la respuesta y de los demás errores: si dos
        # valores caen dentro de la tolerancia, el diagnóstico no podría decidir.
        for i, (what_a, a) in enumerate(values):
            for what_b, b in values[i + 1 :]:
                if abs(a - b) <= 2 * self.tol:
                    raise ValueError(
                        f"{self.id}: {what_a} ({a:.6g}) y {what_b} ({b:.6g}) no se "
                        f"distinguen con la tolerancia ±{self.tol:g}"
                    )
        if not self.hints or not self.solution:
            raise ValueError(
                f"{self.id}: cada pregunta numérica lleva pistas y solución"
            )


@dataclass(frozen=True)
class Option:
    """Una opción de una pregunta de elección, con la explicación de por qué sí o no."""

    text: str
    correct: bool
    explanation: str


@dataclass(frozen=True)
class Choice:
    """Pregunta de elección (concepto o predicción): se explica cada opción.

    ``glued`` y ``reads``, como en ``Numeric``: de dónde salen la opción correcta y
    las cifras de las explicaciones.
    """

    id: str
    prompt: str
    options: tuple[Option, ...]
    kind: str = "concepto"
    glued: tuple[Glue, ...] = ()
    reads: tuple[str, ...] = ()

    def __post_init__(self):
        _check_id(self.id)
        if len(self.options) < 2:
            raise ValueError(f"{self.id}: hacen falta al menos dos opciones")
        if sum(o.correct for o in self.options) != 1:
            raise ValueError(f"{self.id}: debe haber exactamente una opción correcta")
        if any(not o.explanation.strip() for o in self.options):
            raise ValueError(f"{self.id}: cada opción lleva su explicación")


def _check_id(qid: str) -> None:
    if not qid or not all(c.isascii() and (c.isalnum() or c in "-_") for c in qid):
        raise ValueError(f"Identificador de pregunta no válido: {qid!r}")


def _format_tol(tol: float) -> str:
    from resnorm.book import format_number

    decimals = max(0, -math.floor(math.log10(tol)) + (0 if tol >= 1 else 0))
    text = format_number(tol, decimals)
    return text if float(text) == tol else format_number(tol, decimals + 1)


def question_state(question: Numeric | Choice) -> dict:
    """La pregunta como datos JSON, con su ``version`` (un hash de su contenido).

    Si la pregunta cambia, cambia su versión y el navegador olvida la respuesta vieja.
    """
    data = asdict(question)
    # De dónde sale la pregunta importa a las pruebas, no al navegador.
    del data["glued"], data["reads"]
    data["type"] = "numeric" if isinstance(question, Numeric) else "choice"
    if isinstance(question, Numeric):
        data["tol_text"] = _format_tol(question.tol)
        # Sin unidad, la pregunta se guarda como antes de que existiera ``unit``: su
        # versión no cambia y nadie pierde lo que ya contestó.
        if not question.unit:
            del data["unit"]
    text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    data["version"] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    return data


def _bundle_esm() -> str:
    from resnorm.widgets import bundle

    return bundle("quiz.js", _HERE)


def _read_css() -> str:
    from resnorm.widgets.bundler import read_css

    return read_css(_HERE / "quiz.css")


#: La nota de unas preguntas en una página sin JavaScript (ver
#: ``resnorm.widgets._base.display_with_noscript``).
NOSCRIPT_QUIZ = (
    '<noscript><p class="rn-sin-js">Estas preguntas necesitan JavaScript para '
    "contestarlas y corregirlas: actívalo en el navegador o abre el notebook en "
    "Jupyter.</p></noscript>"
)


def noscript_quiz(questions: list[dict]) -> str:
    """``NOSCRIPT_QUIZ`` con los enunciados debajo (y las opciones de las de elegir):
    sin JavaScript no se contestan, pero se leen y se piensan."""
    items = []
    for q in questions:
        options = "".join(f"<li>{html.escape(o['text'])}</li>"
                          for o in q.get("options") or ())
        items.append(f"<li><p>{html.escape(q['prompt'])}</p>"
                     + (f"<ul>{options}</ul>" if options else "") + "</li>")
    listing = f'<ol class="rn-quiz-sin-js">{"".join(items)}</ol>'
    return NOSCRIPT_QUIZ.replace("</noscript>", listing + "</noscript>")


class Quiz(anywidget.AnyWidget):
    """Unas preguntas de un capítulo, contestadas y diagnosticadas en el navegador.

    ``chapter`` es la clave estable del capítulo en el banco (p. ej. ``"layernorm"``);
    ``chapter_questions`` lista los identificadores y versiones de *todas* las
    preguntas del capítulo, para que cada bloque muestre «3 de 7» del capítulo entero.
    """

    _esm = _bundle_esm()
    _css = _read_css()
    chapter = traitlets.Unicode().tag(sync=True)
    questions = traitlets.List(traitlets.Dict()).tag(sync=True)
    chapter_questions = traitlets.Dict().tag(sync=True)
    storage_key = traitlets.Unicode(STORAGE_KEY).tag(sync=True)

    def __init__(self, chapter: str, questions, chapter_questions=None, **kwargs):
        states = [question_state(q) for q in questions]
        if not states:
            raise ValueError("Un Quiz necesita al menos una pregunta")
        ids = [s["id"] for s in states]
        if len(set(ids)) != len(ids):
            raise ValueError(f"Preguntas repetidas en {chapter}: {ids}")
        every = chapter_questions or {s["id"]: s["version"] for s in states}
        super().__init__(
            chapter=chapter,
            questions=states,
            chapter_questions=every,
            **kwargs,
        )

    @classmethod
    def from_bank(cls, chapter: str, group: str) -> "Quiz":
        """El bloque ``group`` de preguntas del capítulo, tal como está en el banco."""
        from resnorm.quiz import bank

        groups = bank.chapter(chapter)
        if group not in groups:
            raise KeyError(
                f"El capítulo {chapter} no tiene el bloque de preguntas «{group}»; "
                f"tiene {sorted(groups)}"
            )
        # Solo este capítulo (como bank.chapter_manifest): una pregunta que no se
        # sostiene rompe la celda de su capítulo, no la de los demás.
        every = {s["id"]: s["version"]
                 for qs in groups.values() for s in map(question_state, qs)}
        return cls(chapter, groups[group], chapter_questions=every)

    def _ipython_display_(self) -> None:
        """Se muestra el widget y, después, se pegan sus respuestas: la vista del widget
        queda como primera salida de la celda (JupyterLab y myst-nb la buscan ahí)."""
        from resnorm.widgets._base import display_with_noscript

        display_with_noscript(self, noscript_quiz(self.questions))
        self.glue_answers()

    def glue_answers(self) -> None:
        """Pega cada respuesta numérica como ``quiz_<id>``: el arnés de números la
        compara con ``tests/expected_values.toml``, como cualquier otro número."""
        from resnorm.book import glue_number

        for q in self.questions:
            if q["type"] == "numeric":
                glue_number("quiz_" + q["id"].replace("-", "_"), q["answer"])
