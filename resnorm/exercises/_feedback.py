"""La pieza común de todos los comprobadores: probar una función del estudiante contra
casos y devolver un ``Feedback`` legible (texto en la terminal, HTML en el notebook).
"""

from __future__ import annotations

import copy
import html
import reprlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

#: Dónde se explica cómo ejecutar un capítulo (Binder, Colab, en tu ordenador),
#: relativo a las páginas de los capítulos (notebooks/*.html).
HOW_TO_RUN_URL = "../book/como-usar.html"

NOT_WRITTEN = "Aún no has escrito la función: sustituye el `raise NotImplementedError`."
#: Lo que dice el comprobador a quien aún no ha escrito nada: la pista llega cuando
#: hay algo que corregir (la pista general a veces es casi la solución).
NOT_WRITTEN_NEXT = (
    "Cuando la escribas, vuelve a ejecutar la celda: te diré qué está bien, qué falla "
    "y, si hace falta, te daré una pista."
)
#: Las marcas de acierto y fallo: «✓» y «✗», que tienen las fuentes de reserva
#: comunes (DejaVu en casi todo Linux, Segoe UI Symbol en Windows). «✅» y «❌» son
#: emoji: sin fuente de emoji, como en muchos Linux, se ven como un cuadro vacío.
PASSED_MARK = "\u2713"
FAILED_MARK = "\u2717"
#: Un resultado con más valores que estos se resume en una línea, no se imprime.
SHOWN_VALUES = 8
#: Las cifras significativas con que se muestra un número; si dos números distintos
#: se ven iguales así, se muestran con las cifras que hagan falta para distinguirlos.
SHOWN_DIGITS = 6
#: El épsilon de máquina de float64, 2⁻⁵² ≈ 2.2·10⁻¹⁶: con él, cada comprobador usa
#: su propia tolerancia, estrecha.
FLOAT64_EPS = float(np.finfo(np.float64).eps)
#: Cuántos redondeos puede acumular la cuenta de un ejercicio corto: una reducción
#: sobre d ≤ 8 valores (d sumas), unas pocas operaciones más (resta, cuadrado, raíz,
#: división) y la cancelación al restar la media, que multiplica el error por
#: |x|/σ (hasta ≈ 8 en los casos de los comprobadores). En los casos del capítulo 4,
#: F.layer_norm en float32 se aparta unas 4 veces el épsilon (por la escala del
#: resultado); 32 deja margen y sigue separando cada error típico, que se aparta un
#: 1 % o más (lo comprueban tests/test_exercises.py con respuestas y errores en
#: float32).
SHORT_COMPUTATION = 32

Case = tuple[str, tuple, Any]  # (descripción, argumentos, resultado esperado)
Mistake = tuple[str, Callable]  # (pista, una función que comete ese error)


@dataclass
class Feedback:
    """Resultado de comprobar un ejercicio.

    ``passed`` dice si todo está bien (el título va tras «✓» o «✗», y en HTML la
    clase ``resnorm-feedback-bien`` o ``-mal``); ``lines`` lleva los aciertos (✓) y
    los fallos (✗); ``hint``, una pista cuando algo falla. ``pending`` marca que la
    función aún es el esqueleto del ejercicio (``raise NotImplementedError``): en la
    web, donde esa celda se ejecutó al construir el libro, eso no es un fallo sino un
    ejercicio por hacer, y se muestra un recuadro neutro que dice qué hacer y dónde
    ejecutarlo. En un núcleo (Jupyter, Colab, código en vivo) se ve el mensaje de
    siempre.
    """

    title: str
    passed: bool
    lines: list[str] = field(default_factory=list)
    hint: str = ""
    pending: bool = False
    #: Si el recuadro de la web dice dónde se ejecuta el código (la primera vez en
    #: la página; lo decide ``_repr_html_``).
    _where: bool | None = field(default=None, init=False, repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        head = f"{PASSED_MARK if self.passed else FAILED_MARK} "
        body = "\n".join(f"  {line}" for line in self.lines)
        tail = f"\n  Pista: {self.hint}" if (self.hint and not self.passed) else ""
        return f"{head}{self.title}\n{body}{tail}"

    __repr__ = __str__

    def _repr_html_(self) -> str:
        result = self._result_html()
        if not self.pending:
            return result
        # Dos vistas en la misma salida: _assets/css/ejercicios.css (solo en la web)
        # oculta la del núcleo y muestra la de la web; sin esa hoja, como en Jupyter
        # o Colab, la de la web queda oculta.
        return (
            '<div class="resnorm-exercise-pending">'
            f'<div class="resnorm-feedback-kernel">{result}</div>'
            f"{self._web_html()}</div>"
        )

    def _result_html(self) -> str:
        colour = "#1b7837" if self.passed else "#b2182b"
        items = "".join(f"<li>{_inline_html(line)}</li>" for line in self.lines)
        hint = (
            f"<p><strong>Pista:</strong> {_inline_html(self.hint)}</p>"
            if self.hint and not self.passed
            else ""
        )
        mark = PASSED_MARK if self.passed else FAILED_MARK
        outcome = "bien" if self.passed else "mal"
        return (
            f'<div class="resnorm-feedback resnorm-feedback-{outcome}" role="status" '
            f'style="border-left:4px solid {colour};padding:0.3em 0.8em">'
            f"<p><strong>{mark} {html.escape(self.title)}</strong></p>"
            f"<ul>{items}</ul>{hint}</div>"
        )

    def _web_html(self) -> str:
        # Dónde se ejecuta, una vez por página (issue 50: repetido bajo cada ejercicio
        # era ruido); los demás recuadros dicen qué hacer y enlazan a «Cómo usar».
        if self._where is None:
            self._where = _first_on_page()
        if self._where:
            body = (
                "<p>Escribe tu solución en la celda de arriba, en lugar de "
                "<code>raise NotImplementedError</code>, y ejecútala: esta "
                "comprobación te dirá qué está bien, qué falla y te dará una pista.</p>"
                f"<p>{WHERE_TO_RUN} Ábrela con Python: en Binder o en Colab (el botón "
                "del cohete, arriba) o en tu ordenador. "
                f'<a href="{HOW_TO_RUN_URL}">Cómo ejecutar los capítulos</a>.</p>'
            )
        else:
            body = (
                "<p>Escribe tu solución en la celda de arriba y ejecútala con Python "
                f'(<a href="{HOW_TO_RUN_URL}">cómo ejecutar los capítulos</a>).</p>'
            )
        return (
            '<div class="resnorm-feedback-web" hidden style="display:none">'
            f"<p><strong>Ejercicio: {html.escape(self.title)}</strong></p>"
            f"{body}</div>"
        )


#: Lo que se dice una sola vez por página, en el primer ejercicio.
WHERE_TO_RUN = "En esta página el código no se ejecuta."

#: Los núcleos (``id`` de su intérprete de IPython) que ya dijeron dónde se ejecuta.
_WHERE_SAID: set[int] = set()


def _first_on_page() -> bool:
    """¿Es este el primer recuadro de la página? La construcción ejecuta cada capítulo
    en su propio núcleo, de arriba abajo: el primero que se muestra en un núcleo es el
    primero de la página. Fuera de un núcleo (una prueba, la terminal), siempre."""
    try:
        from IPython import get_ipython
    except ImportError:
        return True
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return True
    first = id(shell) not in _WHERE_SAID
    _WHERE_SAID.add(id(shell))
    return first


def _inline_html(text: str) -> str:
    """Texto con `código` entre comillas invertidas, escapado y con <code>."""
    parts = html.escape(text).split("`")
    if len(parts) % 2 == 0:  # comillas sin pareja: se dejan como texto
        return html.escape(text)
    return "".join(
        f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts)
    )


def not_written(title: str, hint: str = "") -> Feedback:
    """El ejercicio aún es su esqueleto (``raise NotImplementedError``).

    Sin pista: quien no ha escrito nada aún no ha fallado, y la pista general de
    algunos ejercicios ya es la solución. ``hint`` se acepta y se ignora, para que
    cada comprobador siga llamándolo igual.
    """
    del hint
    return Feedback(title, False, [NOT_WRITTEN, NOT_WRITTEN_NEXT], "", pending=True)


def not_a_function(title: str, fn: Any, hint: str) -> Feedback:
    line = f"Se esperaba una función, pero recibí {type(fn).__name__}."
    return Feedback(title, False, [line], hint)


def to_numpy(value: Any) -> np.ndarray:
    """``value`` como array de float64, también si es un tensor de torch que aún pide
    gradiente (``nn.LayerNorm`` devuelve uno): una respuesta correcta escrita con
    torch se acepta igual que una de NumPy."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    elif isinstance(value, (list, tuple)) and any(hasattr(v, "detach") for v in value):
        value = [to_numpy(v) for v in value]
    return np.asarray(value, dtype=float)


#: Lo que puede lanzar convertir una respuesta en números: un texto (ValueError), un
#: objeto cualquiera (TypeError), un tensor raro (RuntimeError) o un entero de Python
#: que no cabe en un float, como 10**400 (OverflowError).
NOT_NUMBERS = (TypeError, ValueError, RuntimeError, OverflowError)

#: Un número que no cabe en un float, dicho en español (sin la traza de Python).
TOO_LARGE_NUMBER = (
    "un número demasiado grande para un float (el mayor float64 es ≈ 1.8·10³⁰⁸): "
    "¿se te ha colado una potencia o un producto de más?"
)
TOO_LARGE = f"la función devuelve {TOO_LARGE_NUMBER}"


def raised(exc: BaseException) -> str:
    """«la función lanzó …», con el desbordamiento dicho en español."""
    if isinstance(exc, OverflowError):
        return f"la función lanzó OverflowError: calcula {TOO_LARGE_NUMBER}"
    return f"la función lanzó {type(exc).__name__}: {exc}"


def too_large(value: Any) -> bool:
    """¿Lleva ``value`` un entero de Python que no cabe en un float (10**400)?"""
    try:
        to_numpy(value)
    except OverflowError:
        return True
    except NOT_NUMBERS:
        pass
    return False


def rounding_unit(value: Any) -> float:
    """El épsilon de máquina del tipo menos preciso de los números de ``value``.

    2⁻²³ ≈ 1.2·10⁻⁷ en float32 (un tensor de torch por defecto, ``nn.LayerNorm``),
    2⁻⁵² ≈ 2.2·10⁻¹⁶ en float64 (NumPy por defecto, los float de Python); los
    enteros y los booleanos son exactos y cuentan como float64.
    """
    if isinstance(value, (list, tuple)):
        return max((rounding_unit(v) for v in value), default=FLOAT64_EPS)
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return FLOAT64_EPS
    if hasattr(value, "detach"):  # un tensor: torch ya está importado
        import torch

        if dtype.is_floating_point or dtype.is_complex:
            return float(torch.finfo(dtype).eps)
        return FLOAT64_EPS
    if np.issubdtype(dtype, np.inexact):
        return float(np.finfo(dtype).eps)
    return FLOAT64_EPS


def tolerance(got: Any, expected: Any, rtol: float, atol: float,
              length: float = SHORT_COMPUTATION) -> tuple[float, float]:
    """La tolerancia ``(rtol, atol)`` con que se compara ``got`` con ``expected``.

    En float64 (los dos) es la del comprobador, estrecha. Si alguno es menos preciso
    (float32), cada una de las ``length`` operaciones de la cuenta puede añadir un
    redondeo de un épsilon: se acepta un error de ``length`` veces el épsilon,
    relativo a cada valor y también a la escala del resultado (el mayor |valor|),
    porque un componente cercano a 0 (x − μ ≈ 0) hereda el error absoluto de los
    grandes.
    """
    unit = max(rounding_unit(got), rounding_unit(expected))
    if unit <= FLOAT64_EPS:
        return rtol, atol
    try:
        e = np.abs(to_numpy(expected))
    except NOT_NUMBERS:
        return rtol, atol
    finite = e[np.isfinite(e)]
    scale = float(finite.max()) if finite.size else 0.0
    return max(rtol, length * unit), max(atol, length * unit * scale)


def _format(value: np.ndarray, digits: int) -> str:
    if value.ndim == 0:
        return f"{float(value):.{digits}g}"
    with np.printoptions(floatmode="maxprec"):
        return np.array2string(value, precision=digits, separator=", ")


def _formats(got: np.ndarray, expected: np.ndarray) -> tuple[str, str]:
    """Los dos valores escritos con ``SHOWN_DIGITS`` cifras, o con las que hagan falta
    para que no se vean iguales siendo distintos (−0.265576 y −0.2655758)."""
    g = e = ""
    for digits in range(SHOWN_DIGITS, 18):
        g, e = _format(got, digits), _format(expected, digits)
        if g != e:
            break
    return g, e


def _describe(value: Any) -> str:
    try:
        arr = to_numpy(value)
    except NOT_NUMBERS:
        return reprlib.repr(value)
    return _format(arr, SHOWN_DIGITS)


def _shape(shape: tuple) -> str:
    return "(" + ", ".join(str(n) for n in shape) + (",)" if len(shape) == 1 else ")")


def describe_mismatch(got: Any, expected: Any, rtol: float = 1e-6,
                      atol: float = 1e-9) -> str:
    """Qué falla, en una línea si el resultado es grande (un tensor (2, 3, 8) son 48
    números: imprimirlos no ayuda a nadie). Dos números distintos nunca se muestran
    iguales: se escriben con las cifras que hagan falta."""
    if too_large(got):
        return TOO_LARGE
    try:
        g, e = to_numpy(got), to_numpy(expected)
    except NOT_NUMBERS:
        return f"obtuve {_describe(got)}, se esperaba {_describe(expected)}"
    if isinstance(got, (bool, np.bool_)) or isinstance(expected, (bool, np.bool_)):
        return f"obtuve {got}, se esperaba {expected}"
    if g.size <= SHOWN_VALUES and e.size <= SHOWN_VALUES:
        shown_g, shown_e = _formats(g, e)
        if g.shape != e.shape and shown_g == shown_e:
            return (f"obtuve un resultado de forma {_shape(g.shape)}; se esperaba la "
                    f"forma {_shape(e.shape)}")
        return f"obtuve {shown_g}, se esperaba {shown_e}"
    if g.shape != e.shape:
        return (f"obtuve un resultado de forma {_shape(g.shape)}; se esperaba la "
                f"forma {_shape(e.shape)}")
    with np.errstate(all="ignore"):
        diff = np.abs(g - e)
    wrong = ~np.isclose(g, e, rtol=rtol, atol=atol)
    worst = np.unravel_index(int(np.nanargmax(np.where(wrong, diff, -1.0))), g.shape)
    where = ", ".join(str(int(i)) for i in worst)
    shown_g, shown_e = _formats(g[worst], e[worst])
    return (
        f"la forma {_shape(g.shape)} es la correcta, pero {int(wrong.sum())} de "
        f"{g.size} valores no coinciden; por ejemplo, en [{where}] obtuve "
        f"{shown_g} y se esperaba {shown_e}"
    )


def _close(got: Any, expected: Any, rtol: float, atol: float) -> bool:
    try:
        g = to_numpy(got)
        e = to_numpy(expected)
    except NOT_NUMBERS:
        return False
    if g.shape != e.shape:
        return False
    return bool(np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=False))


def check_function(
    title: str,
    fn: Callable,
    cases: Iterable[tuple[str, tuple, Any]],
    hint: str,
    rtol: float = 1e-6,
    atol: float = 1e-9,
    length: float = SHORT_COMPUTATION,
) -> Feedback:
    """Ejecuta ``fn(*args)`` en cada caso ``(descripción, args, esperado)``.

    Cada caso se informa por separado. Si la función aún no está escrita
    (``NotImplementedError`` o devuelve ``None``) o lanza un error, se dice en español
    qué pasó, sin traza. ``rtol`` y ``atol`` son la tolerancia en float64; con una
    respuesta en float32 crece con ``length``, la longitud de la cuenta (ver
    ``tolerance``).
    """
    if not callable(fn):
        return not_a_function(title, fn, hint)
    lines: list[str] = []
    passed = True
    for description, args, expected in cases:
        try:
            got = fn(*args)
        except NotImplementedError:
            return not_written(title, hint)
        except Exception as exc:  # el estudiante puede lanzar cualquier cosa
            passed = False
            lines.append(f"✗ {description}: {raised(exc)}")
            continue
        if got is None:
            return Feedback(
                title,
                False,
                ["La función devuelve None: ¿te falta el `return`?"],
                hint,
            )
        tol = tolerance(got, expected, rtol, atol, length)
        if _close(got, expected, *tol):
            lines.append(f"✓ {description}")
        else:
            passed = False
            lines.append(f"✗ {description}: {describe_mismatch(got, expected, *tol)}")
    return Feedback(title, passed, lines, hint)


# --- Piezas comunes de los comprobadores con pistas para errores típicos ------------

def fresh_args(args: tuple) -> tuple:
    """Copias de los argumentos: la función del estudiante puede modificarlos."""
    return tuple(copy.deepcopy(a) for a in args)


def same_values(got: Any, expected: Any, rtol: float = 1e-6, atol: float = 1e-9,
                length: float = SHORT_COMPUTATION):
    """¿Coinciden forma y valores (NaN igual a NaN)? Para reconocer un error típico,
    con la tolerancia del tipo de ``got`` (ver ``tolerance``)."""
    try:
        g = to_numpy(got)
        e = to_numpy(expected)
    except NOT_NUMBERS:
        return False
    if g.shape != e.shape:
        return False
    rtol, atol = tolerance(got, expected, rtol, atol, length)
    return bool(np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True))


def diagnose(fn: Callable, cases: list[Case], mistakes: list[Mistake],
             length: float = SHORT_COMPUTATION) -> str:
    """La pista del primer error típico que ``fn`` reproduce en todos los casos."""
    for hint, wrong in mistakes:
        try:
            with np.errstate(all="ignore"):
                if all(
                    same_values(fn(*fresh_args(a)), wrong(*fresh_args(a)),
                                length=length)
                    for _, a, _ in cases
                ):
                    return hint
        except Exception:  # el estudiante puede lanzar cualquier cosa
            continue
    return ""


def check_with_mistakes(
    title: str,
    fn: Callable,
    cases,
    hint: str,
    mistakes=(),
    rtol: float = 1e-6,
    atol: float = 1e-9,
    length: float = SHORT_COMPUTATION,
) -> Feedback:
    """``check_function`` con copias de las entradas y, si falla, la pista del error
    típico que la función reproduce (si reproduce alguno)."""
    if not callable(fn):
        return check_function(title, fn, cases, hint)

    def guarded(*args):
        with np.errstate(all="ignore"):
            return fn(*fresh_args(args))

    fb = check_function(title, guarded, cases, hint, rtol=rtol, atol=atol,
                        length=length)
    if not fb.passed and mistakes:
        fb.hint = diagnose(guarded, cases, mistakes, length) or fb.hint
    return fb


def as_numpy(fn: Callable) -> Callable:
    """Envuelve ``fn`` para que un tensor de torch salga como array de NumPy."""

    def wrapped(*args):
        out = fn(*args)
        if hasattr(out, "detach"):
            out = out.detach().cpu().numpy()
        return out

    return wrapped
