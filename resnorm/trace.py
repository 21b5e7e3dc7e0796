"""La traza del vector «perro» por un bloque de Transformer, paso a paso.

Capítulo 8: El vector «perro» paso a paso (y, para el gancho al Paso 8, el
Capítulo 11: Resumen y siguiente paso).

NumPy puro (no importa torch). Cada LayerNorm se calcula con
``resnorm.layer_norm_steps``, así que los números que enseña el widget
``BlockStepper`` son exactamente los de la biblioteca. Las funciones devuelven datos
planos (listas y floats de Python), listos para JSON y para el estado del widget.

Una simplificación, dicha claramente: la salida de la atención es un dato fijo,
[0.30, −0.20, 0.15, 0.45], porque depende de los demás tokens de la frase, que aquí
no tenemos. En Pre-LN la atención recibe LN₁(x) en lugar de x y su salida
cambiaría; ``block_trace`` usa la misma salida en los dos órdenes para que la
comparación aísle una sola cosa: dónde va LayerNorm. El paso de la atención en
Pre-LN muestra, eso sí, lo que LN₁ le entrega: el vector del que la atención saca
sus consultas, claves y valores.

La FFN de ``block_trace`` usa GELU, la activación de GPT-2 y de ``resnorm.blocks``
(la GELU exacta, con erf, la de ``torch.nn.GELU()`` por defecto); el Transformer
original usaba ReLU. ``stack_trace`` (Capítulo 11) usa la misma GELU: una sola
activación en todo el curso.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from resnorm import examples

from resnorm.numerics import layer_norm, layer_norm_steps, mean, std

__all__ = ["PerroExample", "block_trace", "gelu", "perro_example", "stack_trace"]

FFN_SEED = 1  # semilla de los pesos de la FFN de ejemplo (redondeados a 2 decimales)


def gelu(z):
    """GELU(z) = z · Φ(z) = z · (1 + erf(z/√2)) / 2, elemento a elemento.

    Capítulo 8: El vector «perro» paso a paso. Es la GELU exacta, la de
    ``torch.nn.GELU()`` por defecto y la de ``resnorm.blocks``; forma (n,) → (n,).
    """
    z = np.asarray(z, dtype=np.float64)
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * z * (1.0 + erf(z / math.sqrt(2.0)))


@dataclass(frozen=True, eq=False)
class PerroExample:
    """Los datos fijos del ejemplo «perro».

    Capítulo 8: El vector «perro» paso a paso.

    Formas (d = 4, oculta = 8): ``x``, ``attention_output``, ``gamma1``, ``beta1``,
    ``gamma2``, ``beta2``: (4,); ``ffn_w1``: (8, 4); ``ffn_b1``: (8,); ``ffn_w2``:
    (4, 8); ``ffn_b2``: (4,). Los pesos siguen la convención de ``torch.nn.Linear``
    (forma (salida, entrada), y = x Wᵀ + b).
    """

    x: np.ndarray
    attention_output: np.ndarray
    gamma1: np.ndarray
    beta1: np.ndarray
    gamma2: np.ndarray
    beta2: np.ndarray
    ffn_w1: np.ndarray
    ffn_b1: np.ndarray
    ffn_w2: np.ndarray
    ffn_b2: np.ndarray

    def ffn(self, h):
        """FFN(h) = W₂ · GELU(W₁ h + b₁) + b₂, de 4 → 8 → 4. Formas: (4,) → (4,)."""
        h = np.asarray(h, dtype=np.float64)
        hidden = gelu(h @ self.ffn_w1.T + self.ffn_b1)  # (8,)
        return hidden @ self.ffn_w2.T + self.ffn_b2  # (4,)

    def active_units(self, h):
        """Cuántas de las 8 neuronas ocultas tienen pre-activación W₁ h + b₁ > 0.

        GELU deja pasar casi entera una pre-activación positiva y casi anula una
        negativa grande: estas son las neuronas que más aportan a la salida.
        """
        pre = np.asarray(h, dtype=np.float64) @ self.ffn_w1.T + self.ffn_b1
        return int(np.count_nonzero(pre > 0))


def _frozen(values):
    a = np.array(values, dtype=np.float64)
    a.setflags(write=False)
    return a


def perro_example() -> PerroExample:
    """El ejemplo del curso: el vector «perro» que entra a la subcapa de atención.

    Capítulo 8: El vector «perro» paso a paso.

    x = [0.50, 1.15, 0.78, 0.88]; Atención(x) = [0.30, −0.20, 0.15, 0.45] (dada), de
    modo que x + Atención(x) = [0.80, 0.95, 0.93, 1.33]; γ₁ = [1.2, 0.8, 1.0, 1.1],
    β₁ = [0.1, 0.0, −0.2, 0.3] (los del Capítulo 5); γ₂ = [0.9, 1.1, 1.0, 1.05],
    β₂ = [0.0, 0.1, −0.1, 0.05]. La FFN 4 → 8 → 4 con GELU tiene pesos con semilla fija
    (``FFN_SEED``) y redondeados a dos decimales para poder leerlos: W₁ ~ N(0, 0.5²),
    b₁ ~ N(0, 0.1²), W₂ ~ N(0, (0.5/√8)²), b₂ = 0.
    """
    rng = np.random.default_rng(FFN_SEED)
    w1 = np.round(rng.normal(0.0, 0.5, (8, 4)), 2)
    b1 = np.round(rng.normal(0.0, 0.1, 8), 2)
    w2 = np.round(rng.normal(0.0, 0.5 / np.sqrt(8), (4, 8)), 2)
    return PerroExample(
        x=_frozen(examples.PERRO_X),
        attention_output=_frozen(examples.PERRO_ATTENTION),
        gamma1=_frozen(examples.GAMMA),
        beta1=_frozen(examples.BETA),
        gamma2=_frozen(examples.GAMMA2),
        beta2=_frozen(examples.BETA2),
        ffn_w1=_frozen(w1),
        ffn_b1=_frozen(b1),
        ffn_w2=_frozen(w2),
        ffn_b2=_frozen(np.zeros(4)),
    )


# --- Pasos ----------------------------------------------------------------------------


def _floats(v):
    return [float(a) for a in np.asarray(v, dtype=np.float64).ravel()]


def _f(v):
    """Un número con 4 decimales y «−» tipográfico, para las fórmulas con números."""
    return f"{float(v):.4f}".replace("-", "\u2212")


def _eps_text(eps):
    """ε legible: 1e-05 → «10⁻⁵», 2e-03 → «2 × 10⁻³»."""
    if eps == 0:
        return "0"
    mantissa, exponent = f"{eps:.6e}".split("e")
    sup = str(int(exponent)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    m = mantissa.rstrip("0").rstrip(".")
    return f"10{sup}" if m == "1" else f"{m} × 10{sup}"


def _vec(v):
    return "[" + ", ".join(_f(a) for a in np.asarray(v).ravel()) + "]"


def _step(key, title, explanation, vector, scalars=(), formula=None):
    """Un paso de la traza: datos planos, listos para JSON."""
    vector = np.asarray(vector, dtype=np.float64)
    return {
        "key": key,
        "title": title,
        "explanation": explanation,
        "formula": formula,
        "vector": _floats(vector),
        "scalars": [[label, float(value)] for label, value in scalars],
        "stats": {
            "mean": float(mean(vector)),
            "std": float(std(vector)),
            "norm": float(np.linalg.norm(vector)),
        },
    }


def _ln_steps(prefix, name, s, sub, what):
    """Los cinco pasos de una LayerNorm (media, centrado, σ, normalizado, γ/β).

    ``name``: cómo se llama la LN en los títulos («LayerNorm», «LN₁»); ``sub``: el
    subíndice de γ y β; ``what``: a qué vector se aplica, para las explicaciones.
    """
    eps = s.eps
    return [
        _step(
            f"{prefix}mean",
            f"{name}, 1: la media μ",
            f"LayerNorm empieza por la media de {what}: se suman sus 4 valores y se "
            "divide entre 4.",
            s.x,
            [("μ", s.mean)],
            "μ = (" + " + ".join(_f(a) for a in s.x) + f") / 4 = {_f(s.mean)}",
        ),
        _step(
            f"{prefix}centered",
            f"{name}, 2: centrar, x − μ",
            "Se resta la media a cada componente: el vector centrado tiene media 0.",
            s.centered,
            [("μ", s.mean)],
            f"x − μ = {_vec(s.centered)}",
        ),
        _step(
            f"{prefix}std",
            f"{name}, 3: la dispersión σ",
            "La varianza es la media de los cuadrados del vector centrado "
            "(poblacional: se divide entre 4); σ es su raíz. LayerNorm divide entre "
            f"√(σ² + ε), con ε = {_eps_text(eps)} dentro de la raíz.",
            s.centered,
            [("σ²", s.variance), ("σ", s.std), ("√(σ² + ε)", s.denominator)],
            f"σ² = {_f(s.variance)};  σ = {_f(s.std)};  √(σ² + ε) = "
            f"{_f(s.denominator)}",
        ),
        _step(
            f"{prefix}normalized",
            f"{name}, 4: dividir entre √(σ² + ε)",
            "Cada componente centrada se divide entre √(σ² + ε): el vector queda con "
            "media 0 y desviación estándar casi 1 (un poco menos, por ε).",
            s.normalized,
            [("√(σ² + ε)", s.denominator)],
            f"(x − μ)/√(σ² + ε) = {_vec(s.normalized)}",
        ),
        _step(
            f"{prefix}affine",
            f"{name}, 5: escalar con γ{sub} y desplazar con β{sub}",
            f"γ{sub} multiplica y β{sub} suma, dimensión a dimensión: la salida ya no "
            "tiene por qué tener media 0 ni desviación estándar 1.",
            s.output,
            [],
            f"γ{sub} = {_vec(s.gamma)};  β{sub} = {_vec(s.beta)}",
        ),
    ]


def _ln_single(key, title, explanation, s, sub):
    """Una LayerNorm entera en un solo paso (con μ y σ como escalares)."""
    return _step(
        key,
        title,
        explanation,
        s.output,
        [("μ", s.mean), ("σ", s.std), ("√(σ² + ε)", s.denominator)],
        f"γ{sub} ⊙ (v − μ)/√(σ² + ε) + β{sub} = {_vec(s.output)}",
    )


_ATTENTION_NOTE = (
    "Lo que la atención aporta a «perro» tras mirar a los demás tokens. Es un dato "
    "fijo: depende de las otras palabras de la frase, que aquí no tenemos."
)


def block_trace(example: PerroExample | None = None, order="post", eps=1e-5):
    """Los pasos del vector «perro» por un bloque, en orden Post-LN o Pre-LN.

    Capítulo 8: El vector «perro» paso a paso.

    Post-LN (Vaswani et al., 2017):  x′ = LN₁(x + Atención(x));
    x″ = LN₂(x′ + FFN(x′)).
    Pre-LN (GPT-2):  h = x + Atención(LN₁(x));  salida = h + FFN(LN₂(h)).

    Simplificación: ``example.attention_output`` se usa como salida de la atención
    en los dos órdenes (en Pre-LN la atención recibiría LN₁(x) y, con los demás
    tokens, daría otra cosa). Así la primera suma es [0.80, 0.95, 0.93, 1.33] en
    ambos y la diferencia que se ve es solo la posición de LayerNorm.

    Devuelve 11 pasos, cada uno un dict con ``key``, ``title`` y ``explanation``
    (español), ``formula`` (texto con números o None), ``vector`` (4 floats),
    ``scalars`` (pares [etiqueta, valor], p. ej. [["μ", 1.0025]]) y ``stats``
    (``mean``, ``std`` poblacional y ``norm`` del vector). Cada LayerNorm sale de
    ``resnorm.layer_norm_steps`` con el ``eps`` dado.
    """
    ex = perro_example() if example is None else example
    if order not in ("post", "pre"):
        raise ValueError(f"order debe ser «post» o «pre», pero es {order!r}")
    x = ex.x
    attn = ex.attention_output
    steps = [
        _step(
            "input",
            "Entrada: el vector «perro»",
            "El vector de «perro» que llega al bloque (4 dimensiones, para poder "
            "seguirlo a mano).",
            x,
            formula=f"x = {_vec(x)}",
        )
    ]
    attention = _step(
        "attention",
        "Salida de la atención",
        _ATTENTION_NOTE,
        attn,
        formula=f"Atención = {_vec(attn)}",
    )
    if order == "post":
        total = x + attn  # x + Atención(x)
        s1 = layer_norm_steps(total, ex.gamma1, ex.beta1, eps=eps)
        x1 = s1.output  # x′
        f1 = ex.ffn(x1)
        total2 = x1 + f1  # x′ + FFN(x′)
        s2 = layer_norm_steps(total2, ex.gamma2, ex.beta2, eps=eps)
        steps += [
            attention,
            _step(
                "sum1",
                "Suma residual: x + Atención(x)",
                "El atajo suma la entrada original a lo que aporta la atención. El "
                "resultado conserva el perfil de x.",
                total,
                formula=f"{_vec(x)} + {_vec(attn)} = {_vec(total)}",
            ),
        ]
        steps += _ln_steps("ln1_", "LayerNorm", s1, "₁", "la suma")
        steps[-1]["title"] += ": x′"
        steps += [
            _step(
                "ffn",
                "FFN(x′): la red feed-forward",
                "La FFN (4 → 8 → 4, con GELU) procesa x′ por su cuenta: "
                f"{ex.active_units(x1)} de sus 8 neuronas ocultas tienen "
                "pre-activación positiva.",
                f1,
                formula=f"FFN(x′) = {_vec(f1)}",
            ),
            _step(
                "sum2",
                "Suma residual: x′ + FFN(x′)",
                "El segundo atajo del bloque: la FFN solo añade una corrección a x′.",
                total2,
                formula=f"{_vec(x1)} + {_vec(f1)} = {_vec(total2)}",
            ),
            _ln_single(
                "ln2",
                "LayerNorm final del bloque: x″ = LN₂(x′ + FFN(x′))",
                "En Post-LN se normaliza después de cada suma: la salida del bloque "
                "sale calibrada, pero el atajo también pasa por LayerNorm.",
                s2,
                "₂",
            ),
        ]
        return steps
    s1 = layer_norm_steps(x, ex.gamma1, ex.beta1, eps=eps)
    total = x + attn  # h = x + Atención(LN₁(x)), con la salida de atención dada
    s2 = layer_norm_steps(total, ex.gamma2, ex.beta2, eps=eps)
    f2 = ex.ffn(s2.output)
    out = total + f2  # h + FFN(LN₂(h))
    steps += _ln_steps("ln1_", "LN₁", s1, "₁", "x (en Pre-LN se normaliza la entrada)")
    steps[-1]["title"] += ": lo que entra a la atención"
    steps += [
        {
            **attention,
            "title": "Atención(LN₁(x)): la atención recibe la copia normalizada",
            "explanation": _ATTENTION_NOTE
            + " En Pre-LN la atención recibe LN₁(x), no x: de ese vector, con media "
            "y escala controladas, saca sus consultas, claves y valores. Como su "
            "salida depende de los otros tokens, usamos la misma que en Post-LN para "
            "que solo cambie dónde va LayerNorm.",
            "scalars": [["‖x‖", float(np.linalg.norm(x))],
                        ["‖LN₁(x)‖", float(np.linalg.norm(s1.output))]],
            "formula": f"entra LN₁(x) = {_vec(s1.output)};  "
            f"sale Atención = {_vec(attn)}",
        },
        _step(
            "sum1",
            "Suma residual: h = x + Atención(LN₁(x))",
            "La suma usa x sin normalizar: el camino identidad queda limpio, sin "
            "ninguna LayerNorm en medio.",
            total,
            formula=f"{_vec(x)} + {_vec(attn)} = {_vec(total)}",
        ),
        _ln_single(
            "ln2",
            "LN₂(h): lo que entra a la FFN",
            "Antes de la FFN se normaliza una copia de h; h sigue intacto por el "
            "atajo.",
            s2,
            "₂",
        ),
        _step(
            "ffn",
            "FFN(LN₂(h)): la red feed-forward",
            "La FFN (4 → 8 → 4, con GELU) procesa la copia normalizada: "
            f"{ex.active_units(s2.output)} de sus 8 neuronas ocultas tienen "
            "pre-activación positiva.",
            f2,
            formula=f"FFN(LN₂(h)) = {_vec(f2)}",
        ),
        _step(
            "sum2",
            "Suma residual: salida = h + FFN(LN₂(h))",
            "La salida del bloque no pasa por ninguna LayerNorm: no está calibrada "
            "(su media y su std no son 0 y 1). Por eso los modelos Pre-LN añaden una "
            "LayerNorm final tras el último bloque.",
            out,
            formula=f"{_vec(total)} + {_vec(f2)} = {_vec(out)}",
        ),
    ]
    return steps


# --- Gancho al Paso 8: apilar bloques -------------------------------------------------


def _stack_weights(seed, block, d=4, hidden=8):
    """Pesos de un bloque, con semilla fija: W_V, W_O, W₁ y W₂.

    Formas: W_V, W_O (d, d); W₁ (hidden, d); W₂ (d, hidden).

    Varianza 1/fan_in (como la inicialización de Kaiming/LeCun), sin sesgos.
    """
    rng = np.random.default_rng([seed, block])
    return {
        "w_v": rng.normal(0.0, 1.0 / np.sqrt(d), (d, d)),
        "w_o": rng.normal(0.0, 1.0 / np.sqrt(d), (d, d)),
        "w1": rng.normal(0.0, 1.0 / np.sqrt(d), (hidden, d)),
        "w2": rng.normal(0.0, 1.0 / np.sqrt(hidden), (d, hidden)),
    }


def stack_trace(
    example: PerroExample | None = None,
    n_blocks=12,
    order="pre",
    eps=1e-5,
    seed=0,
    final_ln=True,
):
    """El vector «perro» a través de ``n_blocks`` bloques apilados, capa a capa.

    Capítulo 11: Resumen y siguiente paso (el gancho al Paso 8: apilar bloques).

    Cada bloque b tiene pesos propios con semilla fija ``[seed, b]`` (varianza
    1/fan_in, γ = 1, β = 0, como al inicializar). Con un solo token, la atención
    es su proyección de valores y de salida: Atención(v) = W_O W_V v (el softmax
    sobre una sola posición vale 1); FFN(v) = W₂ GELU(W₁ v). Por bloque:

    - ``order="pre"``:  x ← x + Atención(LN(x));  x ← x + FFN(LN(x)).
    - ``order="post"``: x ← LN(x + Atención(x));  x ← LN(x + FFN(x)).

    En Pre-LN el flujo residual crece con la profundidad (en promedio sobre
    semillas, ‖x‖² crece como L, es decir, ‖x‖ como √L; con d = 4 una sola semilla
    es ruidosa) y una LayerNorm final (``final_ln``, la ``ln_f`` de GPT-2) lo
    recalibra; en Post-LN cada bloque termina normalizado. La entrada es
    ``example.x``.

    Devuelve una lista de dicts: ``label`` (español), ``block`` (0 = entrada),
    ``final`` (True solo en la LayerNorm final), ``vector`` (4 floats), ``norm``
    (‖x‖₂), ``mean`` y ``std`` (poblacional).
    """
    ex = perro_example() if example is None else example
    if order not in ("post", "pre"):
        raise ValueError(f"order debe ser «post» o «pre», pero es {order!r}")
    if isinstance(n_blocks, bool) or not isinstance(n_blocks, (int, np.integer)):
        raise TypeError(f"n_blocks debe ser un entero, pero es {n_blocks!r}")
    if n_blocks < 0:
        raise ValueError(f"n_blocks debe ser ≥ 0, pero es {n_blocks}")

    def entry(label, block, v, final=False):
        return {
            "label": label,
            "block": int(block),
            "final": final,
            "vector": _floats(v),
            "norm": float(np.linalg.norm(v)),
            "mean": float(mean(v)),
            "std": float(std(v)),
        }

    x = np.array(ex.x, dtype=np.float64)
    out = [entry("Entrada", 0, x)]
    for b in range(1, n_blocks + 1):
        w = _stack_weights(seed, b, d=x.shape[0])

        def attention(v, w=w):
            return w["w_o"] @ (w["w_v"] @ v)

        def ffn(v, w=w):
            return w["w2"] @ gelu(w["w1"] @ v)

        if order == "pre":
            x = x + attention(layer_norm(x, eps=eps))  # x + Atención(LN(x))
            x = x + ffn(layer_norm(x, eps=eps))  # x + FFN(LN(x))
        else:
            x = layer_norm(x + attention(x), eps=eps)  # LN(x + Atención(x))
            x = layer_norm(x + ffn(x), eps=eps)  # LN(x + FFN(x))
        out.append(entry(f"Tras el bloque {b}", b, x))
    if final_ln and order == "pre":
        ln_f = layer_norm(x, eps=eps)
        out.append(entry("LayerNorm final (ln_f)", n_blocks, ln_f, final=True))
    return out
