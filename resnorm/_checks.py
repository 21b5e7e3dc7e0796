"""Comprobación de entradas del núcleo numérico, en español y fuera de las fórmulas.

Las funciones de ``resnorm.numerics`` llevan ``@checked``: antes de ejecutar sus
líneas, este decorador comprueba cada argumento por su nombre (``x``, ``axis``,
``correction``, ``eps``, ``gamma``, ``beta``, ``grad_out``) y lo deja listo para la
fórmula. Así la fórmula recibe siempre:

- ``x``: un ndarray de floats finitos, de al menos una dimensión y no vacío. Los enteros
  pasan a float64 y float16 a float32; los booleanos se rechazan.
- ``axis``: un entero en [0, x.ndim).
- ``eps``: un float ≥ 0 (``None`` en RMSNorm: el épsilon de máquina del dtype).
- ``gamma`` y ``beta``: arrays del dtype de ``x`` con la forma que difunde sobre
  ``axis`` (``None`` pasa a γ = 1 y β = 0): ``gamma * x_hat + beta`` vale siempre.
- ``grad_out``: un array de la forma y el dtype de ``x``.

Cada mensaje dice qué se esperaba y qué llegó.
"""

import functools
import inspect
import numbers
import warnings

import numpy as np


def checked(formula=None, *, denominator="variance"):
    """Decorador: comprueba los argumentos de ``formula`` por su nombre y la llama.

    ``denominator`` dice qué hay bajo la raíz del denominador de la fórmula
    (``"variance"``, σ² + ε, o ``"mean_square"``, mean(x²) + ε): con ``eps=0`` y una
    fila en la que eso vale 0, la fórmula daría 0/0 y se explica en español.
    """
    if formula is None:
        return functools.partial(checked, denominator=denominator)
    signature = inspect.signature(formula)

    @functools.wraps(formula)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = _checked_arguments(bound.arguments)
        if arguments.get("eps") == 0:
            _nonzero_denominator(arguments, denominator)
        return formula(**arguments)

    return wrapper


def _checked_arguments(a):
    """Los argumentos de una función del núcleo, comprobados y convertidos."""
    a = dict(a)
    x = a["x"] = as_input(a["x"])
    if "axis" in a:
        a["axis"] = check_axis(a["axis"], x.ndim)
    axis = a.get("axis", x.ndim - 1)
    if "correction" in a:
        check_correction(a["correction"], x.shape[axis])
    if "eps" in a:
        eps = a["eps"]
        a["eps"] = float(np.finfo(x.dtype).eps) if eps is None else check_eps(eps)
    if "gamma" in a:
        a["gamma"] = check_param(a["gamma"], "gamma", x, axis, default=1.0)
    if "beta" in a:
        a["beta"] = check_param(a["beta"], "beta", x, axis, default=0.0)
    if "grad_out" in a:
        a["grad_out"] = like_x(a["grad_out"], "grad_out", x)
    return a


def as_real_array(value, name):
    """``value`` como ndarray de floats finitos; error en español si no se puede."""
    try:
        arr = np.asarray(value)
    except ValueError:
        raise ValueError(
            f"{name} debe ser un array rectangular de números (todas las filas con la "
            "misma longitud), pero sus filas tienen longitudes distintas"
        ) from None
    if arr.dtype == np.bool_:
        raise TypeError(
            f"{name} contiene booleanos; se esperaban números reales. Si de verdad "
            f"quieres tratarlos como 0 y 1, conviértelos antes: {name}.astype(float)"
        )
    if np.issubdtype(arr.dtype, np.integer):
        arr = arr.astype(np.float64)
    elif arr.dtype == np.float16:
        arr = arr.astype(np.float32)
    elif not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(
            f"{name} debe contener números reales (enteros o floats), pero su dtype "
            f"es {arr.dtype}: ¿hay texto, None u objetos entre los valores?"
        )
    if not np.isfinite(arr).all():
        raise ValueError(
            f"{name} contiene NaN o ±inf en {np.count_nonzero(~np.isfinite(arr))} "
            "posiciones; se esperaban solo números finitos (con NaN o inf la media y "
            "la varianza no están definidas)"
        )
    return arr


def as_input(x):
    """``x`` como array de al menos una dimensión y sin estar vacío."""
    x = as_real_array(x, "x")
    if x.ndim == 0:
        raise ValueError(
            "x debe tener al menos una dimensión (un vector de forma (d,) o un lote "
            "(..., d)), pero es un escalar: no hay nada que normalizar"
        )
    if x.size == 0:
        raise ValueError(
            f"x está vacío (forma {x.shape}); se esperaba al menos un valor en cada "
            "fila: la media de cero números no está definida"
        )
    return x


def like_x(value, name, x):
    """Un array que debe tener la misma forma que ``x`` (F(x), grad_out...)."""
    arr = as_real_array(value, name)
    if arr.shape != x.shape:
        raise ValueError(
            f"{name} debe tener la misma forma que x, {x.shape}, pero tiene {arr.shape}"
        )
    return arr.astype(x.dtype, copy=False)


def check_axis(axis, ndim):
    """``axis`` como entero en [0, ndim)."""
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis debe ser un entero (p. ej. -1), pero es {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"axis={axis} está fuera de rango para un array de {ndim} dimensión(es): "
            f"se esperaba un entero entre {-ndim} y {ndim - 1}"
        )
    return int(axis) % ndim


def check_eps(eps):
    """``eps`` como float finito ≥ 0."""
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise TypeError(f"eps debe ser un número real ≥ 0, pero es {eps!r}")
    if not np.isfinite(eps) or eps < 0:
        raise ValueError(
            f"eps debe ser un número finito ≥ 0 (se suma dentro de la raíz, "
            f"√(σ² + ε)), pero vale {eps}"
        )
    return float(eps)


def check_correction(correction, n):
    """``correction`` ≥ 0 y menor que ``n``, el número de valores por fila."""
    if isinstance(correction, bool) or not isinstance(correction, numbers.Real):
        raise TypeError(
            f"correction debe ser un número (0 = poblacional, 1 = muestral), "
            f"pero es {correction!r}"
        )
    if correction < 0:
        raise ValueError(
            f"correction debe ser ≥ 0 (0 = poblacional, 1 = muestral), "
            f"pero vale {correction}"
        )
    if n - correction <= 0:
        raise ValueError(
            f"con correction={correction} se divide por n − correction = "
            f"{n - correction}, que debe ser > 0: hacen falta más de {correction} "
            f"valores por fila, pero hay {n}"
        )


def check_param(value, name, x, axis, default):
    """γ o β: un valor por dimensión normalizada, con forma lista para difundir.

    ``None`` pasa a ``default`` en cada dimensión (γ = 1, β = 0).
    """
    d = x.shape[axis]
    if value is None:
        value = np.full(d, default, x.dtype)
    arr = as_real_array(value, name)
    if arr.ndim != 1:
        raise ValueError(
            f"{name} debe ser un vector 1-D de {d} elementos (uno por dimensión), "
            f"pero tiene forma {arr.shape}"
        )
    if arr.shape[0] != d:
        raise ValueError(
            f"{name} debe tener {d} elementos (uno por dimensión), "
            f"pero tiene {arr.shape[0]}"
        )
    shape = [1] * x.ndim
    shape[axis] = d
    return arr.astype(x.dtype).reshape(shape)


def sublayer_is_a_function(sublayer):
    """Pre-LN necesita la función F, no su salida (F se aplica a LayerNorm(x))."""
    if not callable(sublayer):
        raise TypeError(
            "en Pre-LN, sublayer debe ser una función F, no un array: F se aplica a "
            "LayerNorm(x), un valor que pre_ln calcula dentro, así que un resultado "
            "ya calculado (como F(x)) daría un bloque distinto. Pasa la función, "
            "p. ej. pre_ln(x, lambda h: h @ W)"
        )


def _nonzero_denominator(a, denominator):
    """Con ``eps=0``, ninguna fila puede tener 0 bajo la raíz (0/0)."""
    from resnorm.numerics import variance

    x = a["x"]
    axis = a.get("axis", x.ndim - 1)
    if denominator == "mean_square":
        with np.errstate(over="ignore"):
            if (np.mean(np.square(x), axis=axis) == 0).any():
                raise ValueError(
                    "con eps=0, una fila de ceros da x/√mean(x²) = 0/0: usa eps > 0 "
                    "(o eps=None, el épsilon de máquina, como PyTorch)"
                )
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # σ² = inf no es 0
        zero = (variance(x, axis=axis) == 0).any()
    if zero:
        raise ValueError(
            "con eps=0, una fila con varianza 0 (todos sus valores iguales, o tan "
            "pequeños que su cuadrado no se puede representar) da (x − μ)/√σ² = 0/0: "
            "usa eps > 0 (PyTorch usa 1e-5)"
        )
