"""Widgets interactivos del curso (anywidget), que responden también sin núcleo.

Cada widget tiene tres capas (como en el estilo de la casa):

1. cálculo puro en ``compute.js`` (sin DOM; probado con Node contra ``resnorm``);
2. dibujo en ``ui.js`` (HTML, SVG, accesibilidad);
3. cableado en el ``.js`` de cada widget (``mean_std.js``, ``layer_norm.js``...), con
   su módulo de Python al lado (``mean_std.py``, ``layer_norm.py``...).

En la web estática (Jupyter Book) no hay núcleo: el widget se dibuja desde su estado
guardado y todo lo que reacciona se calcula en el navegador. Lo que necesita Python
(la traza del vector «perro», los experimentos de profundidad) se calcula al construir
el widget y viaja como atributo sincronizado («trait»); también las constantes (rangos,
valores por defecto, opciones de ε, paleta), en ``settings``: se definen una sola vez,
en Python. El mismo widget funciona en JupyterLab con núcleo.

``bundler.py`` junta cada widget con ``compute.js``, ``dom.js`` y ``ui.js`` en un único
módulo ES; sus colores (``colores.css``) los comparten con las preguntas.
"""

from __future__ import annotations

from resnorm.widgets.block_stepper import BlockStepper
from resnorm.widgets.bundler import bundle, minify_css, strip_comments
from resnorm.widgets.depth_explorer import (
    SERIES_LABELS,
    DepthExplorer,
    series_styles,
    validate_depth_data,
)
from resnorm.widgets.layer_norm import LayerNormExplorer
from resnorm.widgets.mean_std import MeanStdCalculator
from resnorm.widgets.residual import ResidualSum

__all__ = [
    "BlockStepper",
    "DepthExplorer",
    "GPTPlayground",
    "LayerNormExplorer",
    "MeanStdCalculator",
    "ResidualSum",
    "SERIES_LABELS",
    "bundle",
    "minify_css",
    "series_styles",
    "strip_comments",
    "validate_depth_data",
]


def __getattr__(name: str):
    # GPTPlayground importa torch: solo lo paga quien lo usa (Capítulo 10).
    if name == "GPTPlayground":
        from resnorm.widgets.gpt_playground import GPTPlayground

        return GPTPlayground
    raise AttributeError(f"el módulo {__name__!r} no tiene {name!r}")
