"""resnorm: la conexión residual y LayerNorm, paso a paso (Paso 7 del curso).

El núcleo es NumPy puro: importar ``resnorm`` no importa torch. Cada función de
``resnorm.numerics`` es su fórmula, línea a línea; las comprobaciones de entrada viven
en ``resnorm._checks`` y el camino para números enormes en ``resnorm._overflow``. Los
vectores de ejemplo del curso están en ``resnorm.examples``; los comprobadores de
ejercicios, uno por capítulo, en ``resnorm.exercises``. Los bloques de Transformer y los
experimentos que necesitan gradientes viven en ``resnorm.blocks`` y
``resnorm.experiments`` (con el extra ``resnorm[torch]``).
"""

from resnorm.numerics import (
    LayerNormSteps,
    layer_norm,
    layer_norm_backward,
    layer_norm_steps,
    mean,
    post_ln,
    pre_ln,
    residual,
    rms_norm,
    std,
    variance,
)

__all__ = [
    "LayerNormSteps",
    "layer_norm",
    "layer_norm_backward",
    "layer_norm_steps",
    "mean",
    "post_ln",
    "pre_ln",
    "residual",
    "rms_norm",
    "std",
    "variance",
]
