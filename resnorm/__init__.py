"""resnorm: la conexión residual y LayerNorm, paso a paso (Paso 7 del curso).

El núcleo es NumPy puro: importar ``resnorm`` no importa torch. Los bloques de
Transformer y los experimentos que necesitan gradientes viven en
``resnorm.blocks`` y ``resnorm.experiments``.
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
