"""Capítulos 4 y 5: LayerNorm en vivo, con γ y β (``layer_norm.js``)."""

from __future__ import annotations

import traitlets

from resnorm.widgets._base import (
    DEFAULT_EPS,
    CourseWidget,
    course_example,
    finite_list,
    spanish_error,
)
from resnorm.widgets.bundler import bundle

_, _, _SUM, _GAMMA, _BETA = course_example()


def _presets(x):
    return [
        {"label": "Ejemplo del curso: x + Atención(x)", "x": list(x)},
        {"label": "El mismo vector desplazado +2", "x": [round(v + 2, 10) for v in x]},
        {
            "label": "El mismo vector multiplicado por 3",
            "x": [round(3 * v, 10) for v in x],
        },
        {"label": "Cuatro valores iguales (σ = 0)", "x": [0.5] * len(x)},
    ]


class LayerNormExplorer(CourseWidget):
    """LayerNorm en vivo: y = γ ⊙ (x − μ)/√(σ² + ε) + β, con deslizadores.

    Capítulo 4: LayerNorm, y Capítulo 5: γ y β.

    Deslizadores para las 4 componentes de x (por defecto la suma residual del curso,
    [0.80, 0.95, 0.93, 1.33]), ε ∈ {0, 1e-5, 1e-3} y γ, β por dimensión (por defecto
    los del ejemplo, γ = [1.2, 0.8, 1.0, 1.1], β = [0.1, 0.0, −0.2, 0.3], para que el
    primer fotograma ya muestre que la salida no tiene media 0 ni std 1). Barras antes
    y después y la tabla centrado → dividido → γ/β, calculadas en el navegador con
    ``layerNormSteps`` de ``compute.js`` (igual a ``resnorm.layer_norm_steps``).

    Rangos, pasos, opciones de ε, valores por defecto y casos de prueba se definen
    aquí (``SETTINGS``) y viajan al navegador en ``settings``.
    """

    X_RANGE = (-4.0, 4.0)
    GAMMA_RANGE = (-2.0, 2.0)
    BETA_RANGE = (-2.0, 2.0)
    EPS_CHOICES = (0.0, 1e-5, 1e-3)
    SETTINGS = {
        "ranges": {
            "x": {"min": X_RANGE[0], "max": X_RANGE[1], "step": 0.01},
            "gamma": {"min": GAMMA_RANGE[0], "max": GAMMA_RANGE[1], "step": 0.05},
            "beta": {"min": BETA_RANGE[0], "max": BETA_RANGE[1], "step": 0.05},
        },
        "eps_choices": [
            {"value": 0.0, "label": "0 (sin protección)"},
            {"value": 1e-5, "label": "10⁻⁵ (el valor por defecto de PyTorch)"},
            {"value": 1e-3, "label": "10⁻³"},
        ],
        "defaults": {"x": _SUM, "gamma": _GAMMA, "beta": _BETA, "eps": DEFAULT_EPS},
        "presets": _presets(_SUM),
    }

    _esm = bundle("layer_norm.js")
    x = traitlets.List(traitlets.Float(), default_value=_SUM).tag(sync=True)
    gamma = traitlets.List(traitlets.Float(), default_value=_GAMMA).tag(sync=True)
    beta = traitlets.List(traitlets.Float(), default_value=_BETA).tag(sync=True)
    eps = traitlets.Float(DEFAULT_EPS).tag(sync=True)

    @traitlets.validate("x")
    def _check_x(self, proposal):
        return finite_list(proposal["value"], "x", 4, *self.X_RANGE)

    @traitlets.validate("gamma")
    def _check_gamma(self, proposal):
        return finite_list(proposal["value"], "gamma", 4, *self.GAMMA_RANGE)

    @traitlets.validate("beta")
    def _check_beta(self, proposal):
        return finite_list(proposal["value"], "beta", 4, *self.BETA_RANGE)

    @traitlets.validate("eps")
    def _check_eps(self, proposal):
        eps = proposal["value"]
        if eps not in self.EPS_CHOICES:
            raise spanish_error(
                f"eps debe ser uno de {list(self.EPS_CHOICES)} (las opciones del "
                f"selector), pero es {eps}"
            )
        return float(eps)

    def steps(self):
        """Los mismos pasos que muestra el widget, calculados por ``resnorm``."""
        from resnorm import layer_norm_steps

        return layer_norm_steps(self.x, self.gamma, self.beta, eps=self.eps)
