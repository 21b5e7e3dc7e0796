"""El camino para números enormes (|x| ≳ 1e150 en float64): reescalar por 2**e.

Las fórmulas de ``resnorm.numerics`` elevan al cuadrado: con x ≈ 1e200, x² ≈ 1e400 no
cabe en float64 y saldría inf. Antes de eso, ``@rescaled`` mira el mayor |x| de la
entrada; si los cuadrados (y su suma) caben, que es lo normal, llama a la fórmula tal
cual. Si no, la llama con cada fila dividida por una potencia de 2 exacta, 2**e, y
después deshace la escala en el resultado.

Por qué es exacto: multiplicar por 2**e solo cambia el exponente del número, no sus
cifras, así que cada suma, resta, división y raíz da el mismo resultado escalado. Cada
fórmula es homogénea en x con un grado: si x pasa a x·2**-e (y ε a ε·4**-e, porque
ε se suma a σ²), la media y σ se escalan por 2**-e (grado 1), σ² por 4**-e (grado 2)
y x̂ no cambia (grado 0: LayerNorm no ve la escala). Para deshacer, basta multiplicar
cada salida por 2**(grado·e). En rangos normales este camino da, bit a bit, lo mismo
que la fórmula directa (lo comprueba ``tests/test_numerics.py``).

Lo que no cabe de ninguna forma, como la varianza de 1e200 (≈ 1e400), sale inf con
un aviso en español.
"""

import functools
import inspect
import warnings

import numpy as np


def rescaled(degree):
    """Decorador: la fórmula decorada no desborda con |x| enorme.

    ``degree`` es el grado de la salida en x (0, 1, 2, −1...); si la fórmula devuelve
    varias salidas, uno por salida, ``(-1, 0, 0)``, o un dict con el de cada clave (las
    que faltan, grado 0). Un grado puede ir
    con el nombre de la magnitud, ``(2, "La varianza")``, para el aviso si no cabe.
    """

    def decorate(formula):
        signature = inspect.signature(formula)

        @functools.wraps(formula)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            a = bound.arguments
            x = a["x"]
            axis = a.get("axis", x.ndim - 1)
            if not squares_could_overflow(x, axis):
                return formula(**a)
            e = row_exponents(x, axis)
            a["x"] = x * np.ldexp(np.ones((), x.dtype), -e)  # x·2**-e, exacto
            if "eps" in a:
                a["eps"] = _scaled_eps(a["eps"], e, x.dtype)
            return _unscale(formula(**a), degree, e, axis, x.ndim)

        return wrapper

    return decorate


def safe_exponent(dtype, n):
    """El mayor E tal que, con max|x| < 2**E, Σ (xᵢ − μ)² de n valores cabe en dtype.

    |xᵢ − μ| < 2·2**E, así que la suma es < n·4·4**E: cabe si 2E + 2 + log2(n) queda
    por debajo del exponente máximo (1024 en float64: E ≈ 509, |x| ≈ 1e153).
    """
    return np.finfo(dtype).maxexp // 2 - int(np.ceil(np.log2(n))) // 2 - 2


def squares_could_overflow(x, axis):
    """¿Podría desbordar algún cuadrado, o su suma, en las fórmulas?"""
    amax = max(x.max(), -x.min())  # dos lecturas, sin crear |x|
    _, exponent = np.frexp(amax)  # amax < 2**exponent
    return exponent > safe_exponent(x.dtype, x.shape[axis])


def row_exponents(x, axis):
    """e ≥ 0 por fila (con keepdims): la menor potencia que deja la fila sin desbordar.

    Las filas que ya caben llevan e = 0 y no se tocan.
    """
    amax = np.maximum(x.max(axis=axis, keepdims=True), -x.min(axis=axis, keepdims=True))
    _, exponent = np.frexp(amax)
    return np.maximum(exponent - safe_exponent(x.dtype, x.shape[axis]), 0)


def _scaled_eps(eps, e, dtype):
    """ε·4**-e por fila: se suma a σ²·4**-e.

    Si ε > 0 no se deja caer a 0 por debajo del menor número representable: en una
    fila constante σ² = 0 y el denominador √(σ² + ε) tiene que seguir siendo > 0.
    """
    scaled = np.ldexp(np.asarray(eps, dtype), -2 * e)
    if eps > 0:
        scaled = np.maximum(scaled, np.finfo(dtype).smallest_subnormal)
    return scaled


def _unscale(out, degree, e, axis, ndim):
    """Multiplica cada salida por 2**(grado·e), con el e de su fila."""
    if isinstance(degree, dict):
        return {k: _unscale(v, degree.get(k, 0), e, axis, ndim) for k, v in out.items()}
    if isinstance(degree, tuple) and isinstance(out, tuple):
        return tuple(_unscale(o, d, e, axis, ndim) for o, d in zip(out, degree))
    degree, what = degree if isinstance(degree, tuple) else (degree, None)
    if degree == 0:
        return out
    # Una salida sin el eje reducido (la media de cada fila...) lleva e sin ese eje.
    row_e = e if np.ndim(out) == ndim else np.squeeze(e, axis=axis)
    with np.errstate(over="ignore"):
        unscaled = np.ldexp(out, degree * row_e)
    if np.isinf(unscaled).any():
        warnings.warn(
            f"{what or 'El resultado'} no cabe en {unscaled.dtype} (los valores son "
            "enormes): se devuelve inf. std() y layer_norm() sí funcionan con estos "
            "valores",
            RuntimeWarning,
            stacklevel=_outside_resnorm(),
        )
    return unscaled[()]


def _outside_resnorm():
    """El ``stacklevel`` del primer marco fuera de ``resnorm``: quien llamó."""
    frame, level = inspect.currentframe().f_back, 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith(
        "resnorm"
    ):
        frame, level = frame.f_back, level + 1
    return level
