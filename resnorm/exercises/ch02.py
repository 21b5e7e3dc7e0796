"""Comprobadores de los ejercicios del Capítulo 2: La conexión residual.

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español; si falla por un error típico, la
pista nombra ese error.
"""

from __future__ import annotations

import math
import reprlib
import unicodedata
from functools import lru_cache
from typing import Callable

import numpy as np

from resnorm.examples import PERRO_ATTENTION, PERRO_X, ROUNDING_FX, ROUNDING_X, VECTOR
from resnorm.exercises._feedback import (
    TOO_LARGE_NUMBER,
    Case,
    Feedback,
    as_numpy,
    check_with_mistakes,
    not_a_function,
    not_written,
    raised,
    to_numpy,
)
from resnorm.exercises._reference import arr
from resnorm.identity import residual_tanh

__all__ = [
    "check_identity_prediction",
    "check_identity_weights",
    "check_residual_grad",
    "check_residual_sum",
    "check_vectors_close",
]


def check_residual_sum(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, fx)`` = x + F(x), componente a componente.

    Capítulo 2: La conexión residual. ``x`` y ``fx`` son vectores (d,).
    """
    x1, f1 = arr(PERRO_X), arr(PERRO_ATTENTION)
    x2, f2 = arr(ROUNDING_X), arr(ROUNDING_FX)
    cases = [
        ("el ejemplo del curso", (x1, f1), x1 + f1),
        ("el segundo ejemplo", (x2, f2), x2 + f2),
        ("F(x) = 0: la identidad", (x1, np.zeros(4)), x1),
    ]
    mistakes = [
        (
            "Devuelves solo F(x): eso es una capa sin atajo. La conexión residual "
            "suma la entrada: x + F(x).",
            lambda x, fx: fx,
        ),
        ("Devuelves x sin más: falta sumar F(x).", lambda x, fx: x),
        ("Estás restando: la conexión residual suma, x + F(x).", lambda x, fx: x - fx),
    ]
    return check_with_mistakes(
        "Suma residual",
        fn,
        cases,
        "La conexión residual deja pasar la entrada y le añade lo que produce la "
        "subcapa. Con arrays de NumPy, la operación se hace componente a componente "
        "con un solo operador.",
        mistakes,
    )


def _grad_cases() -> list[Case]:
    import torch

    def cube(t):
        return 0.01 * t**3

    def neg(t):
        return -t

    return [
        ("F = sin en x = 0.5", (torch.sin, 0.5), 1 + math.cos(0.5)),
        ("F(t) = 0.01·t³ en x = 2", (cube, 2.0), 1 + 0.03 * 2.0**2),
        ("F(t) = −t en x = 1.3 (el atajo se anula)", (neg, 1.3), 0.0),
    ]


def check_residual_grad(fn: Callable) -> Feedback:
    """Comprueba ``fn(F, x)`` = d/dx [x + F(x)] = 1 + F′(x), calculada con autograd.

    Capítulo 2: La conexión residual. ``F`` es una función de torch y ``x`` un
    número; ``fn`` devuelve un número (o un tensor de un elemento).
    """

    def only_f(F, x):
        import torch

        t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
        F(t).backward()
        return t.grad.item()

    def value(F, x):
        import torch

        return (x + F(torch.tensor(float(x), dtype=torch.float64))).item()

    mistakes = [
        (
            "Devuelves F′(x): es la derivada de la capa sola. Deriva la salida entera "
            "x + F(x); el atajo aporta el 1 de 1 + F′(x).",
            only_f,
        ),
        (
            "Devuelves el valor de x + F(x), no su derivada: llama a .backward() sobre "
            "la salida y lee x.grad.",
            value,
        ),
    ]
    return check_with_mistakes(
        "Derivada de la conexión residual",
        as_numpy(fn) if callable(fn) else fn,
        _grad_cases(),
        "Deriva con autograd la salida entera del bloque, x + F(x), no solo F: el "
        "atajo también aporta a la derivada. Si te atascas, abre las pistas del "
        "ejercicio.",
        mistakes,
        rtol=1e-5,
        atol=1e-6,
    )


def check_vectors_close(fn: Callable) -> Feedback:
    """Comprueba ``fn(a, b)``: ``True`` si los vectores coinciden salvo redondeo.

    Capítulo 2: La conexión residual. ``[0.5, 1.2, −0.3] + [0.1, −0.2, 0.4]`` es
    ``[0.6, 1.0, 0.1]`` solo con tolerancia: en coma flotante, −0.3 + 0.4 da
    0.10000000000000003.
    """
    suma = arr(ROUNDING_X) + arr(ROUNDING_FX)
    cases = [
        ("[0.5, 1.2, −0.3] + [0.1, −0.2, 0.4] frente a [0.6, 1.0, 0.1]",
         (suma, arr([0.6, 1.0, 0.1])), True),
        ("un vector frente a sí mismo", (arr(VECTOR), arr(VECTOR)), True),
        ("[0.6, 1.0, 0.1] frente a [0.6, 1.0, 0.2]",
         (arr([0.6, 1.0, 0.1]), arr([0.6, 1.0, 0.2])), False),
        ("[1.0, 2.0] frente a [1.0, 2.001]",
         (arr([1.0, 2.0]), arr([1.0, 2.001])), False),
        # Los mismos números en otro orden, y otros números con la misma suma: dos
        # vectores distintos que una comparación de resúmenes daría por iguales.
        ("[1.0, 2.0] frente a [2.0, 1.0]: otro orden",
         (arr([1.0, 2.0]), arr([2.0, 1.0])), False),
        ("[1.0, 2.0] frente a [1.5, 1.5]: la misma suma",
         (arr([1.0, 2.0]), arr([1.5, 1.5])), False),
    ]

    def exact(a, b):
        return bool(np.array_equal(a, b))

    def always_true(a, b):
        return True

    mistakes = [
        (
            "Comparas con igualdad exacta (==). En coma flotante −0.3 + 0.4 da "
            "0.10000000000000003, no 0.1: compara con una tolerancia.",
            exact,
        ),
        (
            "Devuelves un vector de True/False (np.isclose compara cada componente). "
            "Se pide una sola respuesta para todo el vector: NumPy tiene la variante "
            "que las resume.",
            lambda a, b: np.isclose(a, b),
        ),
        ("Devuelves siempre True: también hay que detectar vectores distintos.",
         always_true),
        (
            "Comparas las sumas: [1, 2] y [1.5, 1.5] suman lo mismo y no son el mismo "
            "vector. Compara componente a componente, en su sitio.",
            lambda a, b: bool(np.isclose(np.sum(a), np.sum(b))),
        ),
        (
            "Ordenas los vectores antes de compararlos: [1, 2] y [2, 1] tienen los "
            "mismos números, pero en otro orden, y no son el mismo vector. Cada "
            "componente se compara con la que ocupa su sitio.",
            lambda a, b: bool(np.allclose(np.sort(a), np.sort(b))),
        ),
    ]
    return check_with_mistakes(
        "Comparar vectores con tolerancia",
        fn,
        cases,
        "No compares con ==: dos números pueden diferir en la última cifra por el "
        "redondeo. Compara con una tolerancia, para el vector entero y con una sola "
        "respuesta, True o False.",
        mistakes,
    )


# --- Ejercicio 2.4: predecir antes de ejecutar -------------------------------------

#: Respuestas que entiende ``check_identity_prediction`` (sin tildes ni mayúsculas).
_PREDICTIONS = {
    "plana": "plain", "sin atajo": "plain",
    "residual": "residual", "con atajo": "residual",
    "iguales": "tie", "igual": "tie", "empate": "tie", "dos": "tie",
    "dos iguales": "tie", "acaban igual": "tie",
}
_PREDICTION_NAME = {"plain": "la capa plana", "residual": "la capa residual",
                    "tie": "un empate"}
#: Cuántas veces más baja tiene que acabar una pérdida para no contar como empate.
WIN_FACTOR = 10.0


#: Palabras que rodean la respuesta sin cambiarla: «La capa residual.», «Gana la
#: plana», «Las dos iguales».
_FILLER = {"la", "el", "las", "los", "capa", "gana", "ganara"}


def _normalise(answer: str) -> str:
    text = unicodedata.normalize("NFKD", answer.strip().lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    for mark in "«»\"'.,;:!¡?¿":
        text = text.replace(mark, " ")
    words = text.split()
    kept = [w for w in words if w not in _FILLER]
    return " ".join(kept if kept else words)


@lru_cache(maxsize=1)
def _identity_outcome() -> tuple[str, float, float, int]:
    """(quién gana, pérdida final plana, pérdida final residual, pasos)."""
    from resnorm.identity import identity_learning

    data = identity_learning()
    plain, res = data["final"]["plain"], data["final"]["residual"]
    steps = data["params"]["steps"]
    if plain >= WIN_FACTOR * res:
        return "residual", plain, res, steps
    if res >= WIN_FACTOR * plain:
        return "plain", plain, res, steps
    return "tie", plain, res, steps


def check_identity_prediction(fn: Callable) -> Feedback:
    """Comprueba la predicción ``fn()``: ¿qué capa aprende mejor la identidad?

    Capítulo 2: La conexión residual. ``fn()`` devuelve ``"plana"``, ``"residual"`` o
    ``"iguales"``. El comprobador ejecuta ``resnorm.identity.identity_learning`` (las
    dos capas ``tanh(W x + b)`` y ``x + tanh(W x + b)``, mismos pesos iniciales, 200
    pasos de Adam) y compara: gana la capa cuya pérdida final es al menos
    ``WIN_FACTOR`` veces menor; si no, es un empate.
    """
    title = "Predicción: ¿qué capa aprende la identidad?"
    hint = (
        "Piensa qué tendría que valer tanh(W x + b) en cada capa para que la salida "
        "sea exactamente x, y si existen unos W y b que lo consigan."
    )
    if not callable(fn):
        return not_a_function(title, fn, hint)
    try:
        got = fn()
    except NotImplementedError:
        return not_written(title, hint)
    except Exception as exc:  # el estudiante puede lanzar cualquier cosa
        line = "✗ L" + raised(exc)[1:]  # «La función lanzó…»
        return Feedback(title, False, [line], hint)
    if got is None:
        return Feedback(
            title, False, ["La función devuelve None: ¿te falta el `return`?"], hint
        )
    key = _PREDICTIONS.get(_normalise(got)) if isinstance(got, str) else None
    if key is None:
        line = (
            f"✗ No entiendo la respuesta {reprlib.repr(got)}: devuelve el texto "
            "«plana», «residual» o «iguales»."
        )
        return Feedback(title, False, [line], hint)
    winner, plain, res, steps = _identity_outcome()
    from resnorm.book import format_sci

    result = (
        f"Tras {steps} pasos, la pérdida de la capa plana es {format_sci(plain)} y la "
        f"de la residual, {format_sci(res)}."
    )
    if key == winner:
        return Feedback(title, True, [f"✓ Predijiste {_PREDICTION_NAME[key]}.",
                                      f"✓ {result}"])
    wrong_hint = {
        "plain": (
            "La capa plana tendría que convertir tanh(W x + b) en x, y tanh se curva "
            "y nunca pasa de ±1: ningún W, b lo consigue del todo. ¿Qué le basta a la "
            "residual?"
        ),
        "tie": (
            "No acaban igual. En una de las dos capas existen unos pesos que dan la "
            "identidad exacta; en la otra, no. ¿En cuál?"
        ),
        "residual": hint,
    }[key]
    lines = [f"✗ Predijiste {_PREDICTION_NAME[key]}, pero ganó "
             f"{_PREDICTION_NAME[winner]}.", f"  {result}"]
    return Feedback(title, False, lines, wrong_hint)


# --- Ejercicio 2.5: los pesos que hacen de la capa residual la identidad -------------


def _identity_cases() -> list[Case]:
    rng = np.random.default_rng(0)
    vectors = [
        ("el vector del curso, d = 4", arr(PERRO_X)),
        ("valores grandes, [−3, 0, 5]: fuera del rango de tanh", arr([-3.0, 0.0, 5.0])),
        ("un lote de 2 vectores aleatorios, d = 5", rng.normal(0.0, 2.0, (2, 5))),
    ]
    return [(name, (x,), x) for name, x in vectors]


def _block_output(weights: Callable) -> Callable:
    """``x ↦ x + tanh(W x + b)`` con los ``(W, b) = weights(d)`` del estudiante."""

    def output(x):
        d = x.shape[-1]
        answer = weights(d)
        if answer is None:
            return None
        try:
            W, b = answer
        except (TypeError, ValueError):
            raise ValueError(
                "devuelve dos cosas, W y b: return W, b"
            ) from None
        try:
            W, b = to_numpy(W), to_numpy(b)
        except OverflowError:
            raise ValueError(f"W o b llevan {TOO_LARGE_NUMBER}") from None
        if W.shape != (d, d):
            raise ValueError(f"W debe tener forma ({d}, {d}), pero tiene {W.shape}")
        if b.shape != (d,):
            raise ValueError(f"b debe tener forma ({d},), pero tiene {b.shape}")
        return residual_tanh(x, W, b)

    return output


def check_identity_weights(fn: Callable) -> Feedback:
    """Comprueba ``fn(d) = (W, b)`` tales que ``x + tanh(W x + b) = x`` para todo x.

    Capítulo 2: La conexión residual. ``W``: (d, d), ``b``: (d,). La capa residual
    contiene la identidad: con la rama a cero, ``F(x) = tanh(0) = 0``.
    """
    title = "La capa residual que no hace nada"
    hint = (
        "La salida es x + F(x). Para que sea x, ¿cuánto tiene que valer F(x) = "
        "tanh(W x + b) para cualquier x? ¿Dónde vale eso tanh?"
    )
    if not callable(fn):
        return not_a_function(title, fn, hint)

    def eye(d):
        return np.eye(d), np.zeros(d)

    def ones_b(d):
        return np.zeros((d, d)), np.ones(d)

    mistakes = [
        (
            "Con W = I la rama da tanh(x), no 0: la salida sería x + tanh(x). En la "
            "capa residual no hace falta copiar x, eso ya lo hace el atajo; la rama "
            "tiene que valer 0.",
            _block_output(eye),
        ),
        (
            "Con b ≠ 0 la rama vale tanh(b) aunque W = 0: la salida se desplaza. La "
            "rama tiene que valer 0 para cualquier x.",
            _block_output(ones_b),
        ),
    ]
    fb = check_with_mistakes(title, _block_output(fn), _identity_cases(), hint,
                             mistakes)
    if fb.passed:
        fb.lines.append(
            "✓ Con esos pesos la rama vale 0 y la salida es x, también fuera de ±1. "
            "Sin el atajo, tanh(W x + b) daría 0, no x: la capa plana no contiene "
            "la identidad."
        )
    return fb
