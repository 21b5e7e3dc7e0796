"""Núcleo numérico de ``resnorm``: media, varianza, LayerNorm, RMSNorm y residual.

NumPy puro: importar este módulo no importa torch. Cada función dice su fórmula, sus
formas y el capítulo que la presenta; las pruebas comparan todo con PyTorch.

Cada función es su fórmula, línea a línea, como la escribe el capítulo. Lo demás vive
al lado, en dos decoradores:

- ``@checked`` (``resnorm/_checks.py``) comprueba las entradas antes de la fórmula y
  explica en español qué se esperaba: NaN, formas, ``eps``, ``gamma``...
- ``@rescaled`` (``resnorm/_overflow.py``) toma otro camino solo si los cuadrados
  podrían desbordar (|x| ≳ 1e150 en float64): reescala cada fila por una potencia de
  2 exacta, 2**e, y en rangos normales da el mismo resultado, bit a bit. Así, con
  x ≈ 1e200, ``std`` y ``layer_norm`` no desbordan. La varianza de 1e200 (≈ 1e400)
  no cabe en float64: ``variance`` devuelve inf y avisa.

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
- γ = 1 y β = 0 cuando no se dan: la última línea es siempre y = γ ⊙ x̂ + β.
"""

import functools
from dataclasses import dataclass

import numpy as np

from resnorm import _checks
from resnorm._checks import checked
from resnorm._overflow import rescaled

#: ε por defecto, el de ``torch.nn.LayerNorm`` y ``F.layer_norm``.
EPS = 1e-5


def _mean(x, axis, keepdims=True):
    """μ = (1/n) Σ xᵢ, sin salirse de [min, max].

    Redondeando, la media de tres copias de 0.1 da 0.10000000000000002; como la media
    exacta siempre está entre el mínimo y el máximo, recortar la deja en 0.1 y una
    fila constante da x − μ = 0 exacto (como en PyTorch).
    """
    mu = np.mean(x, axis=axis, keepdims=True)
    lo, hi = x.min(axis=axis, keepdims=True), x.max(axis=axis, keepdims=True)
    mu = np.clip(mu, lo, hi)
    return mu if keepdims else np.squeeze(mu, axis=axis)[()]


# --- Capítulo 3: media y desviación estándar ---------------------------------------


@checked
@rescaled(degree=1)
def mean(x, axis=-1, keepdims=False):
    """Media aritmética: μ = (1/n) Σᵢ xᵢ.

    Capítulo 3: Media y desviación estándar.

    Formas: ``x`` de forma (..., n, ...); el resultado pierde el eje ``axis``
    (o lo conserva con tamaño 1 si ``keepdims=True``). Un vector da un escalar.
    Ejemplo del curso: ``mean([2, 4, 6, 8])`` es 5.
    """
    return _mean(x, axis, keepdims)  # μ = (1/n) Σ xᵢ


@checked
@rescaled(degree=(2, "La varianza"))
def variance(x, axis=-1, correction=0, keepdims=False):
    """Varianza en dos pasadas: σ² = Σᵢ (xᵢ − μ)² / (n − correction).

    Capítulo 3: Media y desviación estándar.

    ``correction=0`` es la varianza poblacional (la que usa LayerNorm);
    ``correction=1`` es la muestral (Bessel), la de ``torch.var`` por defecto.
    Formas: como ``mean``. Si los valores son tan grandes que σ² no cabe en el dtype
    (x ≈ 1e200 en float64), devuelve inf y emite un ``RuntimeWarning``.
    """
    n = x.shape[axis]
    mu = _mean(x, axis)  # μ = (1/n) Σ xᵢ
    squares = np.sum((x - mu) ** 2, axis=axis, keepdims=keepdims)  # Σ (xᵢ − μ)²
    return (squares / (n - correction))[()]  # σ² = Σ (xᵢ − μ)² / (n − correction)


@checked
@rescaled(degree=1)
def std(x, axis=-1, correction=0, keepdims=False):
    """Desviación estándar: σ = √σ², sin eps.

    Capítulo 3: Media y desviación estándar.

    ``correction=0``: poblacional (LayerNorm); ``correction=1``: muestral, la de
    ``torch.std`` por defecto. Para [0.80, 0.95, 0.93, 1.33], σ = 0.1977 y la
    muestral es 0.2282. Redondear σ a 0.198 antes de dividir ya mueve x̂ en la
    tercera cifra: −1.023 en vez de −1.0245.
    Formas: como ``mean``. No desborda con x ≈ 1e200.
    """
    n = x.shape[axis]
    mu = _mean(x, axis)  # μ = (1/n) Σ xᵢ
    squares = np.sum((x - mu) ** 2, axis=axis, keepdims=keepdims)  # Σ (xᵢ − μ)²
    return np.sqrt(squares / (n - correction))[()]  # σ = √σ²


# --- Capítulos 4 y 5: LayerNorm, γ y β ---------------------------------------------


@checked
@rescaled(degree=0)
def layer_norm(x, gamma=None, beta=None, eps=EPS, axis=-1):
    """LayerNorm: y = γ ⊙ (x − μ) / √(σ² + ε) + β.

    Capítulo 4: LayerNorm; γ y β, en el Capítulo 5: γ y β.

    μ y σ² (poblacional) se calculan sobre ``axis`` para cada fila por separado.
    Formas: ``x`` (..., d) con ``axis=-1``; ``gamma`` y ``beta`` (d,), uno por
    dimensión (None equivale a γ = 1, β = 0); la salida tiene la forma de ``x``.
    Equivale a ``torch.nn.functional.layer_norm(x, (d,), gamma, beta, eps)``, con el
    mismo ``eps=1e-5`` por defecto.
    """
    mu = _mean(x, axis)  # μ = (1/d) Σ xᵢ
    var = np.mean((x - mu) ** 2, axis=axis, keepdims=True)  # σ² = (1/d) Σ (xᵢ − μ)²
    x_hat = (x - mu) / np.sqrt(var + eps)  # x̂ = (x − μ) / √(σ² + ε)
    return gamma * x_hat + beta  # y = γ ⊙ x̂ + β


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


def _as_steps(formula):
    """Guarda los pasos de ``formula`` en un ``LayerNormSteps`` de solo lectura."""

    @functools.wraps(formula)
    def wrapper(x, gamma=None, beta=None, eps=EPS):
        steps = formula(x, gamma, beta, eps)
        values = dict(
            x=x,
            gamma=gamma.reshape(-1),
            beta=beta.reshape(-1),
            output_mean=mean(steps["output"]),
            output_std=std(steps["output"]),
            **steps,
        )
        return LayerNormSteps(eps=eps, **{k: _read_only(v) for k, v in values.items()})

    return wrapper


def _read_only(a):
    a = np.array(a)  # copia: no cambiamos las banderas del array de quien llama
    a.setflags(write=False)
    return a[()]


_STEP_DEGREES = {  # cómo escala cada paso con x (ver resnorm/_overflow.py)
    "mean": 1,
    "centered": 1,
    "squared_deviations": (2, "(x − μ)²"),
    "variance": (2, "La varianza"),
    "std": 1,
    "denominator": 1,
}


@checked
@_as_steps
@rescaled(degree=_STEP_DEGREES)
def layer_norm_steps(x, gamma=None, beta=None, eps=EPS):
    """LayerNorm paso a paso sobre el último eje: devuelve un ``LayerNormSteps``.

    Capítulo 4: LayerNorm, y Capítulo 5: γ y β.

    μ = (1/d) Σ xᵢ;  σ² = (1/d) Σ (xᵢ − μ)²;  σ̂ = √(σ² + ε);
    x̂ = (x − μ)/σ̂;  y = γ ⊙ x̂ + β.

    Formas: ``x`` (d,) (o un lote (..., d)); ``gamma`` y ``beta`` (d,).
    ``steps.output`` es exactamente ``layer_norm(x, gamma, beta, eps)``.
    """
    mu = _mean(x, -1)  # μ = (1/d) Σ xᵢ
    centered = x - mu  # x − μ
    squared = centered**2  # (x − μ)²
    var = np.mean(squared, axis=-1, keepdims=True)  # σ² = (1/d) Σ (xᵢ − μ)²
    sigma_hat = np.sqrt(var + eps)  # σ̂ = √(σ² + ε)
    x_hat = centered / sigma_hat  # x̂ = (x − μ) / σ̂
    y = gamma * x_hat + beta  # y = γ ⊙ x̂ + β
    return dict(
        mean=mu[..., 0],
        centered=centered,
        squared_deviations=squared,
        variance=var[..., 0],
        std=np.sqrt(var)[..., 0],
        denominator=sigma_hat[..., 0],
        normalized=x_hat,
        output=y,
    )


# --- Capítulo 6: variantes ---------------------------------------------------------


@checked(denominator="mean_square")
@rescaled(degree=0)
def rms_norm(x, gamma=None, eps=None, axis=-1):
    """RMSNorm: y = x / √(mean(x²) + ε) ⊙ γ. No resta la media.

    Capítulo 6: Variantes de la normalización.

    Solo regula la escala: conserva el signo de cada componente y la dirección del
    vector, y deja RMS(y) = √(mean(x²)/(mean(x²) + ε)) ≈ 1. Formas: ``x`` (..., d);
    ``gamma`` (d,). ``eps=None`` usa, como ``torch.nn.functional.rms_norm``, el
    épsilon de máquina del dtype de cálculo: ``np.finfo(np.float32).eps`` para
    float32 (y float16), ``np.finfo(np.float64).eps`` para float64 y enteros.
    """
    mean_square = np.mean(x**2, axis=axis, keepdims=True)  # mean(x²) = (1/d) Σ xᵢ²
    return x / np.sqrt(mean_square + eps) * gamma  # y = x / √(mean(x²) + ε) ⊙ γ


# --- Capítulos 2 y 7: residual, Post-LN y Pre-LN -----------------------------------


@checked
def residual(x, sublayer):
    """Conexión residual: y = x + F(x).

    Capítulo 2: La conexión residual.

    ``sublayer`` es la función F (se llama con ``x``) o su salida ya calculada.
    Formas: ``x`` y F(x) con la misma forma (...); la salida, también. Si F(x) = 0,
    la salida es x: la información pasa intacta.
    """
    fx = sublayer(x) if callable(sublayer) else sublayer  # F(x)
    return x + _checks.like_x(fx, "F(x) (sublayer)", x)  # y = x + F(x)


def post_ln(x, sublayer, gamma=None, beta=None, eps=EPS):
    """Post-LN (Transformer original, 2017): y = LayerNorm(x + F(x)).

    Capítulo 7: El bloque completo: Post-LN y Pre-LN.

    Normaliza después de sumar: la salida siempre queda calibrada, pero el camino
    residual también pasa por LayerNorm. Formas: ``x`` (..., d); ``gamma`` y
    ``beta`` (d,). ``sublayer``: función F o F(x) ya calculada.
    """
    return layer_norm(residual(x, sublayer), gamma, beta, eps)  # LN(x + F(x))


def pre_ln(x, sublayer, gamma=None, beta=None, eps=EPS):
    """Pre-LN (GPT-2, GPT-3, LLaMA...): y = x + F(LayerNorm(x)).

    Capítulo 7: El bloque completo: Post-LN y Pre-LN.

    Normaliza solo la entrada de F; la suma usa el x sin normalizar, así que el
    camino identidad queda limpio. Formas: ``x`` (..., d); ``gamma`` y ``beta`` (d,).
    ``sublayer`` debe ser la función F: hay que aplicarla a LayerNorm(x).
    """
    _checks.sublayer_is_a_function(sublayer)
    x = _checks.as_input(x)
    fx = sublayer(layer_norm(x, gamma, beta, eps))  # F(LN(x))
    return x + _checks.like_x(fx, "F(LayerNorm(x)) (sublayer)", x)  # x + F(LN(x))


@checked
@rescaled(degree=(-1, 0, 0))
def layer_norm_backward(x, grad_out, gamma=None, eps=EPS):
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
    mu = _mean(x, -1)  # μ = (1/d) Σ xᵢ
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)  # σ² = (1/d) Σ (xᵢ − μ)²
    sigma_hat = np.sqrt(var + eps)  # σ̂ = √(σ² + ε)
    x_hat = (x - mu) / sigma_hat  # x̂ = (x − μ) / σ̂
    g = grad_out * gamma  # g = ∂L/∂x̂ = grad_out ⊙ γ
    g_mean = np.mean(g, axis=-1, keepdims=True)  # mean(g)
    gx_mean = np.mean(g * x_hat, axis=-1, keepdims=True)  # mean(g ⊙ x̂)
    grad_x = (g - g_mean - x_hat * gx_mean) / sigma_hat  # ∂L/∂x
    batch_axes = tuple(range(x.ndim - 1))
    grad_gamma = np.sum(grad_out * x_hat, axis=batch_axes)  # ∂L/∂γ = Σ grad_out ⊙ x̂
    grad_beta = np.sum(grad_out, axis=batch_axes)  # ∂L/∂β = Σ grad_out
    return grad_x, grad_gamma, grad_beta
