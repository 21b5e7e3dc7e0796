"""Capítulo 2: la suma residual x + α·F(x) (``residual.js``)."""

from __future__ import annotations

import math

import traitlets

from resnorm.widgets._base import (
    CourseWidget,
    course_example,
    finite_list,
    spanish_error,
)
from resnorm.widgets.bundler import bundle

_X, _FX, _, _, _ = course_example()


class ResidualSum(CourseWidget):
    """Suma residual: salida = x + α·F(x), con un deslizador para α.

    Capítulo 2: La conexión residual.

    Por defecto x = [0.50, 1.15, 0.78, 0.88] y F(x) = [0.30, −0.20, 0.15, 0.45] (el
    ejemplo del curso) con α = 1, así que el primer fotograma muestra la suma
    [0.80, 0.95, 0.93, 1.33]. Con α = 0 la salida es x: la identidad sale gratis.
    Formas: ``x`` y ``fx`` listas de la misma longitud (≤ 8).
    """

    MAX_COMPONENTS = 8
    SETTINGS = {"scale_step": 0.05}
    _esm = bundle("residual.js")
    x = traitlets.List(traitlets.Float(), default_value=_X).tag(sync=True)
    fx = traitlets.List(traitlets.Float(), default_value=_FX).tag(sync=True)
    scale = traitlets.Float(1.0).tag(sync=True)
    scale_max = traitlets.Float(3.0).tag(sync=True)

    def __init__(self, x=None, fx=None, **kwargs):
        if x is not None:
            kwargs["x"] = finite_list(x, "x")
        if fx is not None:
            kwargs["fx"] = finite_list(fx, "fx")
        super().__init__(**kwargs)
        if len(self.x) != len(self.fx):
            raise spanish_error(
                f"x y F(x) deben tener la misma longitud, pero tienen {len(self.x)} "
                f"y {len(self.fx)}"
            )
        if len(self.x) > self.MAX_COMPONENTS:
            raise spanish_error(
                f"ResidualSum dibuja como mucho {self.MAX_COMPONENTS} componentes"
            )

    @traitlets.validate("x", "fx")
    def _check_vectors(self, proposal):
        return finite_list(proposal["value"], proposal["trait"].name)

    @traitlets.validate("scale")
    def _check_scale(self, proposal):
        value = float(proposal["value"])
        if not 0 <= value <= self.scale_max:
            raise spanish_error(
                f"scale (α) debe estar entre 0 y {self.scale_max}, pero es {value}"
            )
        return value

    @traitlets.validate("scale_max")
    def _check_scale_max(self, proposal):
        value = float(proposal["value"])
        if not (math.isfinite(value) and value > 0):
            raise spanish_error(f"scale_max debe ser un número > 0, pero es {value}")
        return value
