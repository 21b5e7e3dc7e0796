"""Piezas comunes de los widgets: la clase base, los constantes que viajan al
JavaScript y las comprobaciones de entrada con mensajes en español.

Infraestructura de los widgets (sin capítulo).
"""

from __future__ import annotations

import math
import numbers

import inspect

import anywidget
import traitlets

from resnorm.numerics import layer_norm

from resnorm.plots import PALETTE
from resnorm.widgets.bundler import read_css

#: Colores de la paleta Okabe-Ito que usan los widgets, con los nombres de ``PALETTE``.
#: Viajan al JavaScript en ``settings["palette"]``: ningún ``.js`` repite un color.
WIDGET_PALETTE = {
    name: PALETTE[name]
    for name in ("blue", "sky_blue", "orange", "bluish_green", "vermillion")
}


#: El ε por defecto de ``resnorm.layer_norm`` (el de PyTorch), el de los widgets.
DEFAULT_EPS = inspect.signature(layer_norm).parameters["eps"].default


#: La nota que deja un widget en una página sin JavaScript (``<noscript>``): el
#: navegador la muestra solo si no ejecuta scripts, y en Jupyter no se ve.
NOSCRIPT_WIDGET = (
    '<noscript><p class="rn-sin-js">Este widget interactivo necesita JavaScript: '
    "actívalo en el navegador o abre el notebook en Jupyter para usarlo.</p></noscript>"
)


def display_with_noscript(widget, note: str = NOSCRIPT_WIDGET) -> None:
    """Muestra ``widget`` y, en otra salida de la misma celda, la nota ``note``.

    La vista del widget queda como primera salida (JupyterLab y myst-nb la buscan
    ahí); la nota va en una salida HTML aparte porque myst-nb dibuja de cada salida
    un solo tipo MIME (el del widget, no el HTML).
    """
    from IPython.display import display

    bundle = widget._repr_mimebundle_()
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    display(data, metadata=metadata, raw=True)
    display({"text/html": note}, raw=True)


class CourseWidget(anywidget.AnyWidget):
    """Base de los widgets del curso: hoja de estilo común y ``settings``.

    ``settings`` (atributo sincronizado de solo lectura para el navegador) lleva las
    constantes que el JavaScript necesita: paleta, valores por defecto, rangos de
    los deslizadores, opciones de ε... Se definen una vez, aquí en Python
    (``SETTINGS`` de cada widget), y el ``.js`` las lee del modelo.
    """

    _css = read_css()
    SETTINGS: dict = {}
    settings = traitlets.Dict().tag(sync=True)

    @traitlets.default("settings")
    def _default_settings(self):
        return {"palette": dict(WIDGET_PALETTE), **type(self).SETTINGS}

    def _ipython_display_(self) -> None:
        display_with_noscript(self)


def spanish_error(message: str) -> traitlets.TraitError:
    return traitlets.TraitError(message)


def finite_list(value, name, length=None, lo=None, hi=None):
    """Lista de floats finitos (y en [lo, hi]); error en español si no."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise spanish_error(f"{name} debe ser una lista de números, no {value!r}")
    out = []
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise spanish_error(f"{name}[{i}] debe ser un número, pero es {v!r}")
        v = float(v)
        if not math.isfinite(v):
            raise spanish_error(f"{name}[{i}] debe ser un número finito, pero es {v}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise spanish_error(
                f"{name}[{i}] = {v} está fuera del rango del deslizador [{lo}, {hi}]"
            )
        out.append(v)
    if length is not None and len(out) != length:
        raise spanish_error(
            f"{name} debe tener {length} componentes, pero tiene {len(out)}"
        )
    if not out:
        raise spanish_error(f"{name} no puede estar vacío")
    return out


def course_example():
    """Los vectores del ejemplo del curso, de ``resnorm.trace.perro_example``.

    Devuelve ``(x, atención, suma, γ, β)`` como listas de floats: la entrada del
    Capítulo 2, lo que aporta la atención, su suma [0.80, 0.95, 0.93, 1.33] (la que
    normalizan los Capítulos 3 a 5) y el γ₁, β₁ del Capítulo 5.
    """
    from resnorm.trace import perro_example

    ex = perro_example()
    x = [float(v) for v in ex.x]
    fx = [float(v) for v in ex.attention_output]
    total = [round(a + b, 10) for a, b in zip(x, fx)]
    return x, fx, total, [float(v) for v in ex.gamma1], [float(v) for v in ex.beta1]
