"""Capítulo 3: la calculadora de media y desviación estándar (``mean_std.js``)."""

from __future__ import annotations

import traitlets

from resnorm.widgets._base import (
    DEFAULT_EPS,
    CourseWidget,
    course_example,
    spanish_error,
)
from resnorm.widgets.bundler import bundle

_, _, _SUM, _, _ = course_example()
#: Los cuatro textos del primer fotograma: la suma residual del Capítulo 2.
DEFAULT_VALUES = [f"{v:.2f}" for v in _SUM]


class MeanStdCalculator(CourseWidget):
    """Calculadora de media y desviación estándar (poblacional), en vivo.

    Capítulo 3: Media y desviación estándar.

    Cuatro campos de texto (por defecto el vector del curso, ``examples.VECTOR``,
    con dos decimales) y la receta:
    suma = Σxᵢ, μ = suma/n, cada (xᵢ − μ)², σ² = Σ(xᵢ − μ)²/n, σ = √σ².
    El cálculo vive en ``compute.js`` (``meanStdRecipe``), igual a
    ``resnorm.mean``/``resnorm.std``. Acepta coma decimal, exponentes y espacios;
    explica σ = 0 (qué hace ε) y muestra sin desbordar valores como 1e200.

    ``values`` (atributo sincronizado) guarda los cuatro textos tal como se escribieron.
    """

    SETTINGS = {"defaults": DEFAULT_VALUES, "eps": DEFAULT_EPS}
    _esm = bundle("mean_std.js")
    values = traitlets.List(traitlets.Unicode(), default_value=DEFAULT_VALUES).tag(
        sync=True
    )

    def __init__(self, values=None, **kwargs):
        if values is not None:
            kwargs["values"] = [
                v if isinstance(v, str) else repr(float(v)) for v in values
            ]
        super().__init__(**kwargs)

    @traitlets.validate("values")
    def _check_values(self, proposal):
        value = list(proposal["value"])
        if len(value) != 4:
            raise spanish_error(
                f"MeanStdCalculator necesita 4 valores, pero recibió {len(value)}"
            )
        return value
