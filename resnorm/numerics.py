"""Núcleo numérico de ``resnorm``: media, varianza, LayerNorm, RMSNorm y residual.

NumPy puro: importar este módulo no importa torch. Cada función dice su fórmula, sus
formas y el capítulo que la presenta; las pruebas comparan todo con PyTorch.

Convenciones (las mismas en todas las funciones):

- Se normaliza a lo largo de un eje, por defecto el último, como
  ``torch.nn.LayerNorm(d)`` sobre entradas de forma ``(..., d)``.
- Varianza en dos pasadas: primero μ, después la media de (x − μ)². La fórmula
  E[x²] − E[x]² resta dos números casi iguales y, en float32 con x ≈ 1e4, devuelve
  varianzas de −8, 0 u 8 cuando la verdadera es 1.
- ``eps`` va dentro de la raíz, √(σ² + ε), con el valor por defecto de PyTorch.
- dtype: float32 se queda en float32 y float64 en float64; los enteros se calculan en
  float64 y float16 en float32. Los booleanos se rechazan (``TypeError``): la media de
  una máscara sí tiene sentido, pero normalizar ceros y unos casi siempre es un error;
  si lo quieres de verdad, convierte antes con ``x.astype(float)``.
- Números enormes: antes de elevar al cuadrado, cada fila se divide por una potencia
  de 2 exacta, 2**e, que la deja con max|x| < 1. Multiplicar por 2**e solo cambia el
  exponente, así que en rangos normales el resultado es idéntico, bit a bit, al de la
  fórmula sin escalar; y con x ≈ 1e200 ``std`` y ``layer_norm`` no desbordan. La
  varianza de 1e200 (≈ 1e400) no cabe en float64: ``variance`` devuelve inf y avisa.
"""

import numbers
import warnings
from dataclasses import dataclass

import numpy as np

# --- Comprobación de entradas ------------------------------------------------------


def _as_real_array(value, name):
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


def _as_input(x):
    """``x`` como array de al menos una dimensión y sin estar vacío."""
    x = _as_real_array(x, "x")
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


def _like_x(value, name, x):
    """Un array que debe tener la misma forma que ``x`` (F(x), grad_out...)."""
    arr = _as_real_array(value, name)
    if arr.shape != x.shape:
        raise ValueError(
            f"{name} debe tener la misma forma que x, {x.shape}, pero tiene {arr.shape}"
        )
    return arr.astype(x.dtype, copy=False)


def _check_axis(axis, ndim):
    """``axis`` como entero en [0, ndim)."""
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis debe ser un entero (p. ej. -1), pero es {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"axis={axis} está fuera de rango para un array de {ndim} dimensión(es): "
            f"se esperaba un entero entre {-ndim} y {ndim - 1}"
        )
    return int(axis) % ndim


def _check_eps(eps):
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
        raise TypeError(f"eps debe ser un número real ≥ 0, pero es {eps!r}")
    if not np.isfinite(eps) or eps < 0:
        raise ValueError(
            f"eps debe ser un número finito ≥ 0 (se suma dentro de la raíz, "
            f"√(σ² + ε)), pero vale {eps}"
        )
    return float(eps)


def _check_correction(correction, n):
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


def _check_param(value, name, x, axis):
    """γ o β: un valor por dimensión normalizada, con forma lista para difundir."""
    if value is None:
        return None
    d = x.shape[axis]
    arr = _as_real_array(value, name)
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


def _reduced(a, axis, keepdims):
    """Quita el eje reducido salvo que se pida ``keepdims``; 0-d sale como escalar."""
    return a if keepdims else np.squeeze(a, axis=axis)[()]


# --- Escala exacta y dos pasadas ---------------------------------------------------


def _scale_down(x, axis):
    """(x·2**-e, e), con e ≥ 0 por fila tal que max|x·2**-e| < 1.

    2**-e es exacto: solo cambia el exponente. Las filas con max|x| < 1 no se tocan.
    Si ninguna fila puede desbordar al elevar al cuadrado y sumar (lo normal), no se
    escala nada: x se usa tal cual y el resultado es idéntico al de la fórmula directa.
    """
    # max|x| con dos lecturas y sin crear |x| (el coste de LayerNorm es ir a memoria).
    amax = np.maximum(x.max(axis=axis, keepdims=True), -x.min(axis=axis, keepdims=True))
    _, e = np.frexp(amax)
    e = np.maximum(e, 0)
    n = x.shape[axis]
    # Σ (xᵢ − μ)² ≤ n·(2·max|x|)²: cabe si 2·e + log2(n) + 2 < maxexp.
    safe = np.finfo(x.dtype).maxexp // 2 - int(np.ceil(np.log2(n))) // 2 - 2
    if (e <= safe).all():
        return x, np.zeros_like(e)
    return x * np.ldexp(np.ones((), x.dtype), -e), e


def _mean(xs, axis):
    """μ = (1/n) Σ xᵢ, sin salirse de [min, max].

    Redondeando, la media de tres copias de 0.1 da 0.10000000000000002; como la media
    exacta siempre está entre el mínimo y el máximo, recortar la deja en 0.1 y una
    fila constante da x − μ = 0 exacto (como en PyTorch).
    """
    mu = np.mean(xs, axis=axis, keepdims=True)
    lo, hi = xs.min(axis=axis, keepdims=True), xs.max(axis=axis, keepdims=True)
    return np.clip(mu, lo, hi)


def _two_pass(xs, axis, correction=0):
    """(μ, x − μ, σ²): primero la media, después las desviaciones."""
    mu = _mean(xs, axis)  # μ = (1/n) Σ xᵢ
    centered = xs - mu
    n = xs.shape[axis]
    var = np.sum(centered**2, axis=axis, keepdims=True) / (n - correction)
    return mu, centered, var  # σ² = Σ (xᵢ − μ)² / (n − correction)


def _unscale_square(a_scaled, e, what):
    """a·4**e, avisando si no cabe en el dtype (p. ej. la varianza de 1e200)."""
    with np.errstate(over="ignore"):
        a = np.ldexp(a_scaled, 2 * e)
    if np.isinf(a).any():
        warnings.warn(
            f"{what} no cabe en {a.dtype} (los valores son enormes): se devuelve inf. "
            "std() y layer_norm() sí funcionan con estos valores",
            RuntimeWarning,
            stacklevel=3,
        )
    return a


def _standardize(x, axis, eps):
    """Pasos de LayerNorm con x escalado: (xs, e, μs, (x − μ)s, σ²s, σ̂, x̂).

    Las magnitudes con «s» están multiplicadas por 2**-e (σ²s por 4**-e); σ̂ y x̂
    no dependen de la escala.
    """
    xs, e = _scale_down(x, axis)
    mu, centered, var = _two_pass(xs, axis)
    if eps == 0 and (var == 0).any():
        raise ValueError(
            "con eps=0, una fila con varianza 0 (todos sus valores iguales, o tan "
            "pequeños que su cuadrado no se puede representar) da (x − μ)/√σ² = 0/0: "
            "usa eps > 0 (PyTorch usa 1e-5)"
        )
    eps = np.asarray(eps, x.dtype)
    # (x − μ)/√(σ² + ε) = (xs − μs)/√(σ²s + ε·4**-e): la potencia de 2 se cancela.
    den = np.sqrt(var + np.ldexp(eps, -2 * e))
    # den = 0 solo si la fila es constante y ε·4**-e cae por debajo del mínimo
    # representable: entonces x − μ = 0 y la salida correcta es 0, no 0/0.
    normalized = centered / np.where(den > 0, den, 1)
    sigma_hat = np.where(den > 0, np.ldexp(den, e), np.sqrt(eps))  # σ̂ = √(σ² + ε)
    return xs, e, mu, centered, var, sigma_hat, normalized


# --- Capítulo 3: media y desviación estándar ---------------------------------------


def mean(x, axis=-1, keepdims=False):
    """Media aritmética: μ = (1/n) Σᵢ xᵢ.

    Capítulo 3: Media y desviación estándar.

    Formas: ``x`` de forma (..., n, ...); el resultado pierde el eje ``axis``
    (o lo conserva con tamaño 1 si ``keepdims=True``). Un vector da un escalar.
    Ejemplo del curso: ``mean([2, 4, 6, 8])`` es 5.
    """
    x = _as_input(x)
    axis = _check_axis(axis, x.ndim)
    xs, e = _scale_down(x, axis)
    mu = np.ldexp(_mean(xs, axis), e)  # μ = (1/n) Σ xᵢ
    return _reduced(mu, axis, keepdims)


def variance(x, axis=-1, correction=0, keepdims=False):
    """Varianza en dos pasadas: σ² = Σᵢ (xᵢ − μ)² / (n − correction).

    Capítulo 3: Media y desviación estándar.

    ``correction=0`` es la varianza poblacional (la que usa LayerNorm);
    ``correction=1`` es la muestral (Bessel), la de ``torch.var`` por defecto.
    Formas: como ``mean``. Si los valores son tan grandes que σ² no cabe en el dtype
    (x ≈ 1e200 en float64), devuelve inf y emite un ``RuntimeWarning``.
    """
    x = _as_input(x)
    axis = _check_axis(axis, x.ndim)
    _check_correction(correction, x.shape[axis])
    xs, e = _scale_down(x, axis)
    _, _, var = _two_pass(xs, axis, correction)
    return _reduced(_unscale_square(var, e, "La varianza"), axis, keepdims)


def std(x, axis=-1, correction=0, keepdims=False):
    """Desviación estándar: σ = √σ², sin eps.

    Capítulo 3: Media y desviación estándar.

    ``correction=0``: poblacional (LayerNorm); ``correction=1``: muestral, la de
    ``torch.std`` por defecto. Para [0.80, 0.95, 0.93, 1.33], σ = 0.1977 y la
    muestral es 0.2282. Redondear σ a 0.198 antes de dividir ya mueve x̂ en la
    tercera cifra: −1.023 en vez de −1.0245.
    Formas: como ``mean``. No desborda con x ≈ 1e200.
    """
    x = _as_input(x)
    axis = _check_axis(axis, x.ndim)
    _check_correction(correction, x.shape[axis])
    xs, e = _scale_down(x, axis)
    _, _, var = _two_pass(xs, axis, correction)
    return _reduced(np.ldexp(np.sqrt(var), e), axis, keepdims)  # σ = √σ²


# --- Capítulos 4 y 5: LayerNorm, γ y β ---------------------------------------------


def layer_norm(x, gamma=None, beta=None, eps=1e-5, axis=-1):
    """LayerNorm: y = γ ⊙ (x − μ) / √(σ² + ε) + β.

    Capítulo 4: LayerNorm; γ y β, en el Capítulo 5: γ y β.

    μ y σ² (poblacional) se calculan sobre ``axis`` para cada fila por separado.
    Formas: ``x`` (..., d) con ``axis=-1``; ``gamma`` y ``beta`` (d,), uno por
    dimensión (None equivale a γ = 1, β = 0); la salida tiene la forma de ``x``.
    Equivale a ``torch.nn.functional.layer_norm(x, (d,), gamma, beta, eps)``, con el
    mismo ``eps=1e-5`` por defecto.
    """
    x = _as_input(x)
    axis = _check_axis(axis, x.ndim)
    eps = _check_eps(eps)
    gamma = _check_param(gamma, "gamma", x, axis)
    beta = _check_param(beta, "beta", x, axis)
    *_, normalized = _standardize(x, axis, eps)  # x̂ = (x − μ)/√(σ² + ε)
    # x̂ es un array nuevo: γ y β se aplican en su sitio, sin más copias en memoria.
    if gamma is not None:
        normalized *= gamma  # γ ⊙ x̂
    if beta is not None:
        normalized += beta  # + β
    return normalized


def _affine(normalized, gamma, beta):
    y = normalized if gamma is None else gamma * normalized  # γ ⊙ x̂
    return y if beta is None else y + beta  # + β


@dataclass(frozen=True, eq=False)
class LayerNormSteps:
    """Cada paso intermedio de y = γ ⊙ (x − μ)/√(σ² + ε) + β, para mostrarlo.

    Capítulos 4 (LayerNorm) y 5 (γ y β). La prosa y los widgets muestran estos
    valores; no los recalculan. Para un vector x de forma (d,): ``mean``,
    ``variance``, ``std``, ``denominator``, ``output_mean`` y ``output_std`` son
    escalares; el resto, vectores (d,). Con un lote (..., d), los escalares pasan a
    tener forma (...). Los arrays son de solo lectura.
    """

    x: np.ndarray
    mean: np.ndarray  # μ = (1/d) Σ xᵢ
    centered: np.ndarray  # x − μ
    squared_deviations: np.ndarray  # (x − μ)²
    variance: np.ndarray  # σ² = media de (x − μ)²  (poblacional)
    std: np.ndarray  # σ = √σ²  (sin eps)
    denominator: np.ndarray  # σ̂ = √(σ² + ε)
    normalized: np.ndarray  # x̂ = (x − μ)/σ̂
    gamma: np.ndarray  # γ usado (unos si no se dio)
    beta: np.ndarray  # β usado (ceros si no se dio)
    output: np.ndarray  # y = γ ⊙ x̂ + β
    eps: float
    output_mean: np.ndarray  # media de y
    output_std: np.ndarray  # desviación estándar poblacional de y


def layer_norm_steps(x, gamma=None, beta=None, eps=1e-5):
    """LayerNorm paso a paso sobre el último eje: devuelve un ``LayerNormSteps``.

    Capítulo 4: LayerNorm, y Capítulo 5: γ y β.

    μ = (1/d) Σ xᵢ;  σ² = (1/d) Σ (xᵢ − μ)²;  σ̂ = √(σ² + ε);
    x̂ = (x − μ)/σ̂;  y = γ ⊙ x̂ + β.

    Formas: ``x`` (d,) (o un lote (..., d)); ``gamma`` y ``beta`` (d,).
    ``steps.output`` es exactamente ``layer_norm(x, gamma, beta, eps)``.
    """
    x = _as_input(x)
    eps = _check_eps(eps)
    d = x.shape[-1]
    gamma = np.ones(d, x.dtype) if gamma is None else gamma
    beta = np.zeros(d, x.dtype) if beta is None else beta
    gamma = _check_param(gamma, "gamma", x, -1).reshape(d)
    beta = _check_param(beta, "beta", x, -1).reshape(d)
    _, e, mu, centered, var, sigma_hat, normalized = _standardize(x, -1, eps)
    output = _affine(normalized, gamma, beta)
    values = dict(
        x=x,
        mean=np.ldexp(mu, e)[..., 0],
        centered=np.ldexp(centered, e),
        squared_deviations=_unscale_square(centered**2, e, "(x − μ)²"),
        variance=_unscale_square(var, e, "La varianza")[..., 0],
        std=np.ldexp(np.sqrt(var), e)[..., 0],
        denominator=sigma_hat[..., 0],
        normalized=normalized,
        gamma=gamma,
        beta=beta,
        output=output,
        output_mean=mean(output),
        output_std=std(output),
    )
    return LayerNormSteps(eps=eps, **{k: _read_only(v) for k, v in values.items()})


def _read_only(a):
    a = np.array(a)  # copia: no cambiamos las banderas del array de quien llama
    a.setflags(write=False)
    return a[()]


# --- Capítulo 6: variantes ---------------------------------------------------------


def rms_norm(x, gamma=None, eps=None, axis=-1):
    """RMSNorm: y = x / √(mean(x²) + ε) ⊙ γ. No resta la media.

    Capítulo 6: Variantes de la normalización.

    Solo regula la escala: conserva el signo de cada componente y la dirección del
    vector, y deja RMS(y) = √(mean(x²)/(mean(x²) + ε)) ≈ 1. Formas: ``x`` (..., d);
    ``gamma`` (d,). ``eps=None`` usa, como ``torch.nn.functional.rms_norm``, el
    épsilon de máquina del dtype de cálculo: ``np.finfo(np.float32).eps`` para
    float32 (y float16), ``np.finfo(np.float64).eps`` para float64 y enteros.
    """
    x = _as_input(x)
    axis = _check_axis(axis, x.ndim)
    eps = np.finfo(x.dtype).eps if eps is None else _check_eps(eps)
    gamma = _check_param(gamma, "gamma", x, axis)
    xs, e = _scale_down(x, axis)
    mean_square = np.mean(xs**2, axis=axis, keepdims=True)  # mean(x²)
    if eps == 0 and (mean_square == 0).any():
        raise ValueError(
            "con eps=0, una fila de ceros da x/√mean(x²) = 0/0: usa eps > 0 "
            "(o eps=None, el épsilon de máquina, como PyTorch)"
        )
    # x/√(mean(x²) + ε) = xs/√(mean(xs²) + ε·4**-e)
    y = xs / np.sqrt(mean_square + np.ldexp(np.asarray(eps, x.dtype), -2 * e))
    return y if gamma is None else y * gamma  # ⊙ γ


# --- Capítulos 2 y 7: residual, Post-LN y Pre-LN -----------------------------------


def residual(x, sublayer):
    """Conexión residual: y = x + F(x).

    Capítulo 2: La conexión residual.

    ``sublayer`` es la función F (se llama con ``x``) o su salida ya calculada.
    Formas: ``x`` y F(x) con la misma forma (...); la salida, también. Si F(x) = 0,
    la salida es x: la información pasa intacta.
    """
    x = _as_input(x)
    fx = sublayer(x) if callable(sublayer) else sublayer
    return x + _like_x(fx, "F(x) (sublayer)", x)  # y = x + F(x)


def post_ln(x, sublayer, gamma=None, beta=None, eps=1e-5):
    """Post-LN (Transformer original, 2017): y = LayerNorm(x + F(x)).

    Capítulo 7: El bloque completo: Post-LN y Pre-LN.

    Normaliza después de sumar: la salida siempre queda calibrada, pero el camino
    residual también pasa por LayerNorm. Formas: ``x`` (..., d); ``gamma`` y
    ``beta`` (d,). ``sublayer``: función F o F(x) ya calculada.
    """
    return layer_norm(residual(x, sublayer), gamma, beta, eps)  # LN(x + F(x))


def pre_ln(x, sublayer, gamma=None, beta=None, eps=1e-5):
    """Pre-LN (GPT-2, GPT-3, LLaMA...): y = x + F(LayerNorm(x)).

    Capítulo 7: El bloque completo: Post-LN y Pre-LN.

    Normaliza solo la entrada de F; la suma usa el x sin normalizar, así que el
    camino identidad queda limpio. Formas: ``x`` (..., d); ``gamma`` y ``beta`` (d,).
    ``sublayer`` debe ser la función F: hay que aplicarla a LayerNorm(x).
    """
    if not callable(sublayer):
        raise TypeError(
            "en Pre-LN, sublayer debe ser una función F, no un array: F se aplica a "
            "LayerNorm(x), un valor que pre_ln calcula dentro, así que un resultado "
            "ya calculado (como F(x)) daría un bloque distinto. Pasa la función, "
            "p. ej. pre_ln(x, lambda h: h @ W)"
        )
    x = _as_input(x)
    fx = sublayer(layer_norm(x, gamma, beta, eps))
    return x + _like_x(fx, "F(LayerNorm(x)) (sublayer)", x)  # x + F(LN(x))


def layer_norm_backward(x, grad_out, gamma=None, eps=1e-5):
    """Gradiente de LayerNorm escrito a mano: (grad_x, grad_gamma, grad_beta).

    Capítulo 7: El bloque completo: Post-LN y Pre-LN (el gradiente que atraviesa
    LayerNorm).

    Con σ̂ = √(σ² + ε), x̂ = (x − μ)/σ̂, y = γ ⊙ x̂ + β y g = grad_out ⊙ γ:

        ∂L/∂x = (1/σ̂) · (g − mean(g) − x̂ · mean(g ⊙ x̂))    (medias sobre el eje d)
        ∂L/∂γ = Σ grad_out ⊙ x̂,   ∂L/∂β = Σ grad_out   (sumas sobre todos los ejes
                                                           salvo el último)

    Formas: ``x`` y ``grad_out`` (..., d); ``gamma`` (d,) o None (γ = 1).
    Devuelve grad_x (..., d), grad_gamma (d,) y grad_beta (d,). Coincide con el
    autograd de PyTorch.
    """
    x = _as_input(x)
    grad_out = _like_x(grad_out, "grad_out", x)
    eps = _check_eps(eps)
    gamma = _check_param(gamma, "gamma", x, -1)
    *_, sigma_hat, x_hat = _standardize(x, -1, eps)
    g = grad_out if gamma is None else grad_out * gamma  # g = ∂L/∂x̂ = grad_out ⊙ γ
    g_mean = np.mean(g, axis=-1, keepdims=True)
    gx_mean = np.mean(g * x_hat, axis=-1, keepdims=True)
    grad_x = (g - g_mean - x_hat * gx_mean) / sigma_hat
    batch_axes = tuple(range(x.ndim - 1))
    grad_gamma = np.sum(grad_out * x_hat, axis=batch_axes)  # Σ grad_out ⊙ x̂
    grad_beta = np.sum(grad_out, axis=batch_axes)  # Σ grad_out
    return grad_x, grad_gamma, grad_beta
