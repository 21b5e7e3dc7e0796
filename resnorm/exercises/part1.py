"""Comprobadores de los ejercicios de la Parte 1 (capítulos 1 a 5).

Cada comprobador recibe la función que escribe quien estudia, la prueba con varios
casos y devuelve un ``Feedback`` en español. Si la respuesta falla por un error típico
(dividir entre d − 1, poner ε fuera de la raíz, olvidar el atajo...), la pista nombra
ese error en concreto; si no, da la pista general del ejercicio.

Uso en un capítulo::

    from resnorm.exercises import check_mean

    def mi_media(x):
        raise NotImplementedError  # escribe aquí tu solución

    check_mean(mi_media)
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from resnorm.exercises._feedback import (
    Feedback,
    as_numpy,
    check_with_mistakes,
)

__all__ = [
    "check_depth_factor",
    "check_layer_norm",
    "check_layer_norm_affine",
    "check_layer_norm_batch",
    "check_mean",
    "check_residual_grad",
    "check_residual_stack",
    "check_residual_sum",
    "check_std",
    "check_undo_normalization",
    "check_variance",
    "check_vectors_close",
]

#: El vector del curso: la suma residual [0.50, 1.15, 0.78, 0.88] + F(x).
EXAMPLE = (0.80, 0.95, 0.93, 1.33)
GAMMA = (1.2, 0.8, 1.0, 1.1)
BETA = (0.1, 0.0, -0.2, 0.3)

Case = tuple[str, tuple, Any]
Mistake = tuple[str, Callable]


def _arr(values) -> np.ndarray:
    return np.array(values, dtype=float)


# --- Capítulo 1: el problema de apilar capas ----------------------------------------


def check_depth_factor(fn: Callable) -> Feedback:
    """Comprueba ``fn(factor, depth)`` = factor ** depth.

    Capítulo 1: El problema de apilar capas. Si cada capa multiplica el gradiente por
    ``factor``, tras ``depth`` capas queda multiplicado por ``factor ** depth``.
    """
    cases = [
        ("factor 0.5 y 10 capas", (0.5, 10), 0.5**10),
        ("factor 0.9 y 96 capas", (0.9, 96), 0.9**96),
        ("factor 1.1 y 96 capas", (1.1, 96), 1.1**96),
        ("factor 1 y 50 capas", (1.0, 50), 1.0),
    ]
    mistakes = [
        (
            "Estás multiplicando factor × profundidad. Cada capa vuelve a multiplicar "
            "lo que le llega: es un producto repetido, factor · factor · … · factor.",
            lambda f, d: f * d,
        ),
        (
            "Te sale una capa de menos: con `depth` capas hay exactamente "
            "`depth` factores.",
            lambda f, d: f ** (d - 1),
        ),
        (
            "Te sale una capa de más: con `depth` capas hay exactamente `depth` "
            "factores.",
            lambda f, d: f ** (d + 1),
        ),
    ]
    return check_with_mistakes(
        "Factor total tras apilar capas",
        fn,
        cases,
        "Multiplica `factor` por sí mismo `depth` veces (en Python: factor ** depth).",
        mistakes,
        rtol=1e-9,
        atol=0.0,
    )


def _stack_cases() -> list[Case]:
    def half(h):
        return 0.5 * h

    def shift(h):
        return np.tanh(h) - 0.25

    def neg(h):
        return -h

    x = _arr([1.0, -2.0, 0.5])
    return [
        ("una capa F(h) = 0.5·h", (x, [half]), x + 0.5 * x),
        ("tres capas F(h) = 0.5·h", (x, [half, half, half]), x * 1.5**3),
        (
            "dos capas distintas, tanh(h) − 0.25 y luego 0.5·h",
            (x, [shift, half]),
            (lambda h: h + 0.5 * h)(x + np.tanh(x) - 0.25),
        ),
        ("ninguna capa: sale x tal cual", (x, []), x),
        ("una capa F(h) = −h: el atajo se anula", (x, [neg]), np.zeros(3)),
    ]


def check_residual_stack(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, layers)``: aplica ``h ← h + F(h)`` con cada capa, en orden.

    Capítulo 1: El problema de apilar capas. ``x`` es un vector (d,) y ``layers`` una
    lista de funciones F que devuelven vectores (d,).
    """

    def no_shortcut(x, layers):
        h = x
        for f in layers:
            h = f(h)
        return h

    def always_x(x, layers):
        h = x
        for f in layers:
            h = h + f(x)
        return h

    def shortcut_to_input(x, layers):
        h = x
        for f in layers:
            h = x + f(h)
        return h

    mistakes = [
        (
            "Tu pila no tiene atajo: haces h = F(h). Con conexión residual cada capa "
            "suma su salida a lo que recibe: h = h + F(h).",
            no_shortcut,
        ),
        (
            "Aplicas cada capa a la entrada original x. Cada capa debe recibir la "
            "salida de la anterior: h = h + F(h), no h = h + F(x).",
            always_x,
        ),
        (
            "Sumas siempre la x original en vez del h que llega a la capa: el atajo de "
            "cada capa rodea solo esa capa, h = h + F(h).",
            shortcut_to_input,
        ),
    ]
    return check_with_mistakes(
        "Pila con conexión residual",
        fn,
        _stack_cases(),
        "Empieza con h = x y, para cada capa F de la lista, haz h = h + F(h).",
        mistakes,
    )


# --- Capítulo 2: la conexión residual -----------------------------------------------


def check_residual_sum(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, fx)`` = x + F(x), componente a componente.

    Capítulo 2: La conexión residual. ``x`` y ``fx`` son vectores (d,).
    """
    x1, f1 = _arr([0.50, 1.15, 0.78, 0.88]), _arr([0.30, -0.20, 0.15, 0.45])
    x2, f2 = _arr([0.5, 1.2, -0.3]), _arr([0.1, -0.2, 0.4])
    cases = [
        ("el ejemplo del curso", (x1, f1), x1 + f1),
        ("el segundo ejemplo", (x2, f2), x2 + f2),
        ("F(x) = 0: la identidad", (x1, np.zeros(4)), x1),
    ]
    mistakes = [
        (
            "Devuelves solo F(x): eso es una capa sin atajo. La conexión residual "
            "suma la entrada: x + F(x).",
            lambda x, fx: fx,
        ),
        ("Devuelves x sin más: falta sumar F(x).", lambda x, fx: x),
        ("Estás restando: la conexión residual suma, x + F(x).", lambda x, fx: x - fx),
    ]
    return check_with_mistakes(
        "Suma residual",
        fn,
        cases,
        "Suma los dos vectores componente a componente (con NumPy, x + fx).",
        mistakes,
    )


def _grad_cases() -> list[Case]:
    import torch

    def cube(t):
        return 0.01 * t**3

    def neg(t):
        return -t

    return [
        ("F = sin en x = 0.5", (torch.sin, 0.5), 1 + math.cos(0.5)),
        ("F(t) = 0.01·t³ en x = 2", (cube, 2.0), 1 + 0.03 * 2.0**2),
        ("F(t) = −t en x = 1.3 (el atajo se anula)", (neg, 1.3), 0.0),
    ]


def check_residual_grad(fn: Callable) -> Feedback:
    """Comprueba ``fn(F, x)`` = d/dx [x + F(x)] = 1 + F′(x), calculada con autograd.

    Capítulo 2: La conexión residual. ``F`` es una función de torch y ``x`` un
    número; ``fn`` devuelve un número (o un tensor de un elemento).
    """

    def only_f(F, x):
        import torch

        t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
        F(t).backward()
        return t.grad.item()

    def value(F, x):
        import torch

        return (x + F(torch.tensor(float(x), dtype=torch.float64))).item()

    mistakes = [
        (
            "Devuelves F′(x): es la derivada de la capa sola. Deriva la salida entera "
            "x + F(x); el atajo aporta el 1 de 1 + F′(x).",
            only_f,
        ),
        (
            "Devuelves el valor de x + F(x), no su derivada: llama a .backward() sobre "
            "la salida y lee x.grad.",
            value,
        ),
    ]
    return check_with_mistakes(
        "Derivada de la conexión residual",
        as_numpy(fn) if callable(fn) else fn,
        _grad_cases(),
        "Crea x con torch.tensor(x, requires_grad=True), calcula y = x + F(x), "
        "llama a y.backward() y devuelve x.grad.",
        mistakes,
        rtol=1e-5,
        atol=1e-6,
    )


def check_vectors_close(fn: Callable) -> Feedback:
    """Comprueba ``fn(a, b)``: ``True`` si los vectores coinciden salvo redondeo.

    Capítulo 2: La conexión residual. ``[0.5, 1.2, −0.3] + [0.1, −0.2, 0.4]`` es
    ``[0.6, 1.0, 0.1]`` solo con tolerancia: en coma flotante, −0.3 + 0.4 da
    0.10000000000000003.
    """
    suma = _arr([0.5, 1.2, -0.3]) + _arr([0.1, -0.2, 0.4])
    cases = [
        ("[0.5, 1.2, −0.3] + [0.1, −0.2, 0.4] frente a [0.6, 1.0, 0.1]",
         (suma, _arr([0.6, 1.0, 0.1])), True),
        ("un vector frente a sí mismo", (_arr(EXAMPLE), _arr(EXAMPLE)), True),
        ("[0.6, 1.0, 0.1] frente a [0.6, 1.0, 0.2]",
         (_arr([0.6, 1.0, 0.1]), _arr([0.6, 1.0, 0.2])), False),
        ("[1.0, 2.0] frente a [1.0, 2.001]",
         (_arr([1.0, 2.0]), _arr([1.0, 2.001])), False),
    ]

    def exact(a, b):
        return bool(np.array_equal(a, b))

    def always_true(a, b):
        return True

    mistakes = [
        (
            "Comparas con igualdad exacta (==). En coma flotante −0.3 + 0.4 da "
            "0.10000000000000003, no 0.1: usa np.allclose(a, b).",
            exact,
        ),
        (
            "Devuelves un vector de True/False (np.isclose compara cada componente). "
            "Se pide una sola respuesta para todo el vector: np.allclose(a, b).",
            lambda a, b: np.isclose(a, b),
        ),
        ("Devuelves siempre True: también hay que detectar vectores distintos.",
         always_true),
    ]
    return check_with_mistakes(
        "Comparar vectores con tolerancia",
        fn,
        cases,
        "Devuelve np.allclose(a, b) (o torch.allclose con tensores).",
        mistakes,
    )


# --- Capítulo 3: media y desviación estándar ----------------------------------------


def _stat_cases(expected: Callable) -> list[Case]:
    vectors = [
        ("[2, 4, 6, 8]", [2.0, 4.0, 6.0, 8.0]),
        ("[0.80, 0.95, 0.93, 1.33]", list(EXAMPLE)),
        ("[3, 3, 3]", [3.0, 3.0, 3.0]),
        ("[−1, 5]", [-1.0, 5.0]),
    ]
    return [(name, (_arr(v),), expected(_arr(v))) for name, v in vectors]


def _pop_var(x):
    m = sum(x) / len(x)
    return sum((v - m) ** 2 for v in x) / len(x)


def check_mean(fn: Callable) -> Feedback:
    """Comprueba ``fn(x)`` = μ = (1/d) Σᵢ xᵢ para vectores (d,).

    Capítulo 3: Media y desviación estándar.
    """
    mistakes = [
        ("Devuelves la suma: falta dividir entre la cantidad de valores, len(x).",
         lambda x: sum(x)),
        ("Divides entre len(x) − 1: la media divide entre la cantidad de valores, d.",
         lambda x: sum(x) / (len(x) - 1)),
    ]
    return check_with_mistakes(
        "Media",
        fn,
        _stat_cases(lambda x: sum(x) / len(x)),
        "Suma todos los valores y divide entre cuántos hay: sum(x) / len(x).",
        mistakes,
    )


def check_variance(fn: Callable) -> Feedback:
    """Comprueba ``fn(x)`` = σ² = (1/d) Σᵢ (xᵢ − μ)², la varianza poblacional.

    Capítulo 3: Media y desviación estándar.
    """
    mistakes = [
        (
            "Divides entre d − 1: esa es la varianza muestral (la de torch.var por "
            "defecto). LayerNorm usa la poblacional, que divide entre d.",
            lambda x: _pop_var(x) * len(x) / (len(x) - 1),
        ),
        (
            "Devuelves la desviación estándar (la raíz). La varianza es el promedio de "
            "los cuadrados, antes de sacar la raíz.",
            lambda x: math.sqrt(_pop_var(x)),
        ),
        (
            "Sumas los cuadrados pero no los promedias: divide entre d.",
            lambda x: _pop_var(x) * len(x),
        ),
        (
            "Promedias las diferencias sin elevarlas al cuadrado: las positivas y las "
            "negativas se cancelan y siempre sale 0.",
            lambda x: sum(v - sum(x) / len(x) for v in x) / len(x),
        ),
    ]
    return check_with_mistakes(
        "Varianza poblacional",
        fn,
        _stat_cases(_pop_var),
        "Calcula la media μ, luego (xᵢ − μ)² para cada valor y promedia esos "
        "cuadrados (divide entre d).",
        mistakes,
    )


def check_std(fn: Callable) -> Feedback:
    """Comprueba ``fn(x)`` = σ = √σ², la desviación estándar poblacional.

    Capítulo 3: Media y desviación estándar.
    """
    mistakes = [
        (
            "Divides entre d − 1: esa es la desviación muestral, la de torch.std(x) "
            "por defecto (0.2282 para el vector del curso). LayerNorm divide entre d.",
            lambda x: math.sqrt(_pop_var(x) * len(x) / (len(x) - 1)),
        ),
        (
            "Devuelves la varianza: te falta la raíz cuadrada (math.sqrt o np.sqrt).",
            _pop_var,
        ),
    ]
    return check_with_mistakes(
        "Desviación estándar poblacional",
        fn,
        _stat_cases(lambda x: math.sqrt(_pop_var(x))),
        "Saca la raíz cuadrada de la varianza poblacional: el promedio de (xᵢ − μ)².",
        mistakes,
    )


# --- Capítulo 4: LayerNorm ----------------------------------------------------------


def _ln(x, eps=1e-5):
    x = _arr(x)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps)


def _ln_cases() -> list[Case]:
    x = _arr(EXAMPLE)
    tiny = _arr([0.0, 0.001, 0.002, 0.003])
    return [
        ("el vector del curso, ε = 1e-5", (x, 1e-5), _ln(x, 1e-5)),
        ("el vector del curso, ε = 1e-3 (el de Keras)", (x, 1e-3), _ln(x, 1e-3)),
        ("[2, 4] y [20, 40] dan casi lo mismo: [2, 4]", (_arr([2, 4]), 1e-5),
         _ln([2, 4])),
        ("un vector diminuto, [0, 0.001, 0.002, 0.003]", (tiny, 1e-5), _ln(tiny)),
        ("un vector constante, [3, 3, 3, 3] → ceros", (_arr([3, 3, 3, 3]), 1e-5),
         np.zeros(4)),
    ]


def _ln_mistakes() -> list[Mistake]:
    def eps_outside(x, eps):
        x = _arr(x)
        c = x - x.mean(-1, keepdims=True)
        return c / (np.sqrt((c**2).mean(-1, keepdims=True)) + eps)

    def no_eps(x, eps):
        return _ln(x, 0.0)

    def sample(x, eps):
        x = _arr(x)
        c = x - x.mean(-1, keepdims=True)
        d = x.shape[-1]
        return c / np.sqrt((c**2).sum(-1, keepdims=True) / (d - 1) + eps)

    def by_variance(x, eps):
        x = _arr(x)
        c = x - x.mean(-1, keepdims=True)
        return c / ((c**2).mean(-1, keepdims=True) + eps)

    def not_centered(x, eps):
        x = _arr(x)
        c = x - x.mean(-1, keepdims=True)
        return x / np.sqrt((c**2).mean(-1, keepdims=True) + eps)

    def only_centered(x, eps):
        x = _arr(x)
        return x - x.mean(-1, keepdims=True)

    def fixed_eps(x, eps):
        return _ln(x, 1e-5)

    return [
        (
            "Sumas ε fuera de la raíz, (x − μ)/(σ + ε). PyTorch y Keras lo ponen "
            "dentro: (x − μ)/√(σ² + ε). Con vectores de varianza pequeña se nota.",
            eps_outside,
        ),
        (
            "No usas ε: con un vector constante σ² = 0 y divides 0 entre 0 (NaN). "
            "Divide entre √(σ² + ε).",
            no_eps,
        ),
        (
            "Divides entre d − 1 al calcular la varianza (la muestral). LayerNorm usa "
            "la poblacional: el promedio de (xᵢ − μ)², dividiendo entre d.",
            sample,
        ),
        (
            "Divides entre la varianza, no entre su raíz: el denominador es "
            "√(σ² + ε).",
            by_variance,
        ),
        (
            "No restas la media antes de dividir: el numerador es x − μ.",
            not_centered,
        ),
        (
            "Solo restas la media: falta el paso 2, dividir entre √(σ² + ε).",
            only_centered,
        ),
        (
            "Usas siempre ε = 1e-5 aunque te pasen otro: usa el argumento eps.",
            fixed_eps,
        ),
    ]


def check_layer_norm(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, eps)`` = (x − μ)/√(σ² + ε) para vectores (d,), sin γ ni β.

    Capítulo 4: LayerNorm.
    """
    return check_with_mistakes(
        "LayerNorm de un vector",
        fn,
        _ln_cases(),
        "Paso 1: resta la media, c = x − μ. Paso 2: divide entre √(σ² + ε), con σ² "
        "el promedio de c².",
        _ln_mistakes(),
    )


def check_layer_norm_batch(fn: Callable) -> Feedback:
    """Comprueba ``fn(X, eps)``: LayerNorm de cada fila de un lote ``X`` (n, d).

    Capítulo 4: LayerNorm. Las estadísticas se calculan por fila (por ejemplo y por
    posición), sobre el último eje, nunca mezclando filas.
    """
    rng = np.random.default_rng(7)
    batch = np.stack([_arr(EXAMPLE), _arr([2, 4, 6, 8]), _arr([20, 40, 60, 80])])
    wide = rng.normal(2.0, 3.0, size=(5, 6))
    tokens = rng.normal(size=(2, 3, 4))  # (lote, posiciones, d)
    cases = [
        ("un lote de 3 vectores, forma (3, 4)", (batch, 1e-5), _ln(batch)),
        ("un lote de 5 vectores de 6 valores, forma (5, 6)", (wide, 1e-5), _ln(wide)),
        ("2 frases de 3 posiciones, forma (2, 3, 4)", (tokens, 1e-5), _ln(tokens)),
    ]

    def by_column(X, eps):
        X = _arr(X)
        mu = X.mean(axis=0, keepdims=True)
        var = ((X - mu) ** 2).mean(axis=0, keepdims=True)
        return (X - mu) / np.sqrt(var + eps)

    def whole(X, eps):
        X = _arr(X)
        return (X - X.mean()) / np.sqrt(X.var() + eps)

    mistakes = [
        (
            "Normalizas cada columna con las estadísticas del lote (axis=0): eso es "
            "lo que hace BatchNorm. LayerNorm usa las de cada fila: axis=-1.",
            by_column,
        ),
        (
            "Calculas una sola media y una sola varianza para todo el lote. LayerNorm "
            "calcula μ y σ² de cada vector por separado: axis=-1, keepdims=True.",
            whole,
        ),
    ]
    return check_with_mistakes(
        "LayerNorm de un lote",
        fn,
        cases,
        "Calcula μ y σ² a lo largo del último eje con keepdims=True (p. ej. "
        "X.mean(axis=-1, keepdims=True)) para que se resten y dividan fila a fila.",
        mistakes,
    )


# --- Capítulo 5: γ y β --------------------------------------------------------------


def check_layer_norm_affine(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, gamma, beta, eps)`` = γ ⊙ (x − μ)/√(σ² + ε) + β.

    Capítulo 5: γ y β. ``x``, ``gamma`` y ``beta`` son vectores (d,).
    """
    x, g, b = _arr(EXAMPLE), _arr(GAMMA), _arr(BETA)
    ones, zeros = np.ones(4), np.zeros(4)
    cases = [
        ("el ejemplo del curso: γ y β del texto", (x, g, b, 1e-5), g * _ln(x) + b),
        ("γ = 1 y β = 0 dan el vector normalizado", (x, ones, zeros, 1e-5), _ln(x)),
        ("otro vector, [2, 4, 6, 8], con los mismos γ y β",
         (_arr([2, 4, 6, 8]), g, b, 1e-5), g * _ln([2, 4, 6, 8]) + b),
    ]
    mistakes = [
        (
            "Has intercambiado γ y β: γ multiplica (escala) y β se suma (desplaza): "
            "γ ⊙ x̂ + β.",
            lambda x, g, b, e: b * _ln(x, e) + g,
        ),
        (
            "Aplicas γ y β antes de normalizar, y la normalización deshace su efecto. "
            "Primero normaliza, x̂ = (x − μ)/√(σ² + ε); después γ ⊙ x̂ + β.",
            lambda x, g, b, e: _ln(g * x + b, e),
        ),
        ("Te falta sumar β.", lambda x, g, b, e: g * _ln(x, e)),
        ("Te falta multiplicar por γ.", lambda x, g, b, e: _ln(x, e) + b),
    ]
    return check_with_mistakes(
        "LayerNorm con γ y β",
        fn,
        cases,
        "Normaliza como en el capítulo 4 y después multiplica por gamma y suma beta, "
        "componente a componente.",
        mistakes,
    )


def check_undo_normalization(fn: Callable) -> Feedback:
    """Comprueba ``fn(x, eps)`` → ``(gamma, beta)`` tales que LN(x; γ, β, ε) ≈ x.

    Capítulo 5: γ y β. Basta con γ = √(σ² + ε) y β = μ en cada dimensión; con γ = σ
    el error es del orden de ε·|x − μ|/(2σ²), muy pequeño. Se acepta un error máximo
    de 1e-3.
    """
    from resnorm.numerics import layer_norm

    title = "Deshacer la normalización con γ y β"
    hint = (
        "LayerNorm resta μ y divide entre √(σ² + ε); para deshacer ese paso, "
        "multiplica por lo mismo y suma μ: γ = √(σ² + ε) (o σ) y β = μ, en cada "
        "dimensión."
    )
    if not callable(fn):
        got = type(fn).__name__
        return Feedback(title, False, [f"Se esperaba una función, pero recibí {got}."],
                        hint)
    vectors = [
        ("el vector del curso", list(EXAMPLE)),
        ("[2, 4, 6, 8]", [2.0, 4.0, 6.0, 8.0]),
        ("[−3, 0.5, 10, 1]", [-3.0, 0.5, 10.0, 1.0]),
    ]
    lines: list[str] = []
    passed = True
    seen = {"swapped": True, "sample": True}
    for name, x in vectors:
        xa = _arr(x)
        try:
            with np.errstate(all="ignore"):
                out = fn(xa.copy(), 1e-5)
        except NotImplementedError:
            msg = (
                "Aún no has escrito la función: sustituye el "
                "`raise NotImplementedError`."
            )
            return Feedback(title, False, [msg], hint)
        except Exception as exc:  # el estudiante puede lanzar cualquier cosa
            passed = False
            seen = dict.fromkeys(seen, False)
            lines.append(f"✗ {name}: la función lanzó {type(exc).__name__}: {exc}")
            continue
        if out is None:
            msg = "La función devuelve None: ¿te falta el `return`?"
            return Feedback(title, False, [msg], hint)
        try:
            gamma, beta = out
            gamma = np.broadcast_to(_arr(gamma), xa.shape)
            beta = np.broadcast_to(_arr(beta), xa.shape)
        except (TypeError, ValueError):
            passed = False
            seen = dict.fromkeys(seen, False)
            lines.append(
                f"✗ {name}: se esperaba una pareja (gamma, beta), cada uno un número o "
                f"un vector de {len(x)} valores."
            )
            continue
        mu = float(xa.mean())
        sigma = math.sqrt(_pop_var(xa))
        seen["swapped"] &= _near(gamma, mu) and _near(beta, sigma)
        seen["sample"] &= _near(gamma, sigma * math.sqrt(len(x) / (len(x) - 1)))
        y = layer_norm(xa, gamma, beta, eps=1e-5)
        err = float(np.max(np.abs(y - xa)))
        if err <= 1e-3:
            lines.append(f"✓ {name}: LN(x; γ, β) devuelve x (error máximo {err:.1e})")
        else:
            passed = False
            shown = np.array2string(y, precision=4, separator=", ")
            lines.append(f"✗ {name}: LN(x; γ, β) da {shown}, no x (error {err:.3g})")
    if not passed and seen["swapped"]:
        hint = (
            "Has intercambiado γ y β: γ escala (debe valer σ) y β desplaza "
            "(debe valer μ)."
        )
    elif not passed and seen["sample"]:
        hint = (
            "Usas la desviación estándar muestral (divide entre d − 1, como "
            "torch.std por defecto). LayerNorm divide entre √(σ² + ε) con la "
            "poblacional."
        )
    return Feedback(title, passed, lines, hint)


def _near(values, target: float, tol: float = 1e-3) -> bool:
    return bool(np.all(np.abs(np.asarray(values, dtype=float) - target) <= tol))
