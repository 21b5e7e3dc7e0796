"""Las preguntas de cada capítulo, con sus respuestas y errores típicos calculados.

Cada función ``_chNN`` devuelve los bloques de preguntas de un capítulo (nombre del
bloque → preguntas); el notebook pone cada bloque donde se enseña la idea con
``Quiz.from_bank("04_layernorm", "normalizar")``. Ningún valor se escribe a mano: la
respuesta y cada error típico salen de ``resnorm`` (o de la aritmética que el error
describe), y ``tests/test_quiz.py`` los recalcula por su cuenta.
"""

from __future__ import annotations

import math

import numpy as np

from resnorm import (
    examples,
    layer_norm,
    layer_norm_steps,
    mean,
    residual,
    rms_norm,
    std,
    variance,
)
from resnorm.book import format_integer, format_number, format_sci, format_vector
from resnorm.quiz import Choice, Glue, Mistake, Numeric, Option

# El vector del curso (la suma residual del capítulo 2) y los γ, β del capítulo 5.
X = examples.VECTOR
SUMMAND = examples.PERRO_X
BRANCH = examples.PERRO_ATTENTION
GAMMA = examples.GAMMA
BETA = examples.BETA


def _f(value) -> float:
    return float(np.asarray(value, dtype=float))


def _n(value, decimals: int = 2) -> str:
    """Un número del curso como lo escribe la prosa (signo menos tipográfico)."""
    return format_number(value, decimals)


def _grouped(whole: int) -> str:
    """Un entero de 5 cifras o más en grupos de tres, como la RAE: «16 777 216»."""
    return format_integer(whole)


def _v(values, decimals: int = 2) -> str:
    """Un vector del curso como lo escribe la prosa: ``[0.80, 0.95, 0.93, 1.33]``."""
    return format_vector(values, decimals)


# --- Capítulo 1 -------------------------------------------------------------------


def _ch01():
    shrink = 0.9**96
    return {
        "escala": [
            Numeric(
                id="ch01-factor-09",
                prompt=(
                    "Cada capa multiplica la escala de la señal por 0.9. ¿Qué escala "
                    "queda tras 96 capas, como en GPT-3? (Puedes escribir 4e-5.)"
                ),
                answer=shrink,
                tol=1e-6,
                glued=(Glue("factor_09_96", shrink),),
                mistakes=(
                    Mistake(
                        0.9 * 96,
                        "multiplicaste 0.9 por 96",
                        "Las capas se encadenan: cada una multiplica lo que deja "
                        "la anterior, así que el factor se eleva a 96, no se "
                        "multiplica por 96.",
                    ),
                    Mistake(
                        1 - 0.1 * 96,
                        "restaste un 10 % por capa",
                        "Perder un 10 % por capa es multiplicar por 0.9 cada vez; "
                        "restar 0.1 × 96 daría una escala negativa.",
                    ),
                ),
                hints=(
                    "Tras 2 capas la escala es 0.9 × 0.9; tras 3, 0.9 × 0.9 × 0.9.",
                    "Es una potencia: 0.9 elevado al número de capas.",
                ),
                solution=(
                    f"0.9⁹⁶ = exp(96 · ln 0.9) ≈ {format_sci(shrink, 3)}: la señal "
                    "casi desaparece."
                ),
                kind="calculo",
            ),
        ],
        "colapso": [
            Choice(
                id="ch01-que-se-pierde",
                prompt=(
                    "En una pila plana profunda, ¿qué prueba de verdad que se pierde "
                    "información de la entrada?"
                ),
                options=(
                    Option(
                        "Que entradas distintas acaban con salidas casi iguales",
                        True,
                        "Si dos entradas distintas salen iguales, ninguna capa "
                        "posterior puede separarlas: esa información ya no está.",
                    ),
                    Option(
                        "Que el coseno entre x y la salida es casi 0",
                        False,
                        "Una rotación aleatoria (sin pérdida) también da coseno ≈ 0: "
                        "mide alineación, no información.",
                    ),
                    Option(
                        "Que la salida tiene otra escala",
                        False,
                        "Cambiar la escala no borra nada: se puede deshacer.",
                    ),
                ),
                kind="concepto",
                # La capa ortogonal del capítulo: coseno ≈ 0 con la entrada, pero los
                # ángulos entre entradas se conservan y se deshace sin error.
                glued=(
                    Glue("pares_ortogonal"),
                    Glue("pares_entrada"),
                    Glue("error_ortogonal"),
                ),
                reads=("resnorm.experiments.orthogonal_layer_control",),
            ),
        ],
        # La predicción, antes de que la página muestre la respuesta.
        "prediccion": [
            Choice(
                id="ch01-factor-11",
                prompt=(
                    "Predice: si cada capa multiplica la escala por 1.1, ¿qué pasa "
                    "tras 96 capas?"
                ),
                options=(
                    Option(
                        "Crece unas diez mil veces",
                        True,
                        f"1.1⁹⁶ ≈ {1.1**96:.0f}: un 10 % por capa, encadenado, "
                        "explota.",
                    ),
                    Option(
                        "Crece un 10 %",
                        False,
                        "Eso sería una sola capa; aquí se encadenan 96.",
                    ),
                    Option(
                        "Crece unas 106 veces (1.1 × 96)",
                        False,
                        "El factor se eleva a 96, no se multiplica por 96.",
                    ),
                ),
                kind="prediccion",
                glued=(Glue("factor_11_96", 1.1**96),),
            ),
        ],
    }


# --- Capítulo 2 -------------------------------------------------------------------


def _ch02():
    total = residual(np.array(SUMMAND), np.array(BRANCH))
    d_layer = 0.1 * (1 - math.tanh(0.5) ** 2)
    return {
        "suma": [
            Numeric(
                id="ch02-suma-residual",
                prompt=(
                    f"x = {_v(SUMMAND)} y F(x) = {_v(BRANCH)}. "
                    "¿Cuánto vale la segunda componente de x + F(x)?"
                ),
                answer=_f(total[1]),
                tol=5e-3,
                glued=(Glue("suma_ejemplo", _f(total[1]), index=1),),
                reads=("resnorm.residual",),
                mistakes=(
                    Mistake(
                        SUMMAND[1] - BRANCH[1],
                        "restaste F(x)",
                        f"La conexión residual suma: x + F(x). Con F(x) = "
                        f"{_n(BRANCH[1])} la suma baja el valor, pero sigue siendo "
                        "una suma.",
                    ),
                    Mistake(
                        BRANCH[1],
                        "te quedaste solo con F(x)",
                        "El atajo conserva x: la salida es x más lo que añade la rama.",
                    ),
                ),
                hints=(
                    "La suma residual es componente a componente.",
                    f"Segunda componente: {_n(SUMMAND[1])} más el segundo número "
                    "de F(x).",
                ),
                solution=f"{_n(SUMMAND[1])} + ({_n(BRANCH[1])}) = {_n(total[1])}.",
            ),
            Numeric(
                id="ch02-derivada",
                prompt=(
                    "La rama es F(t) = 0.1·tanh(t) y su derivada en t = 0.5 vale "
                    f"{d_layer:.4f}. ¿Cuánto vale la derivada de t + F(t) en ese punto?"
                ),
                answer=1 + d_layer,
                tol=5e-4,
                glued=(
                    Glue("derivada_residual", 1 + d_layer),
                    Glue("derivada_capa", d_layer),
                ),
                mistakes=(
                    Mistake(
                        d_layer,
                        "olvidaste el 1 del atajo",
                        "La derivada de t es 1: el atajo deja pasar el gradiente "
                        "entero y la rama solo suma su parte.",
                    ),
                ),
                hints=(
                    "Deriva cada sumando por separado.",
                    "¿Cuánto vale la derivada de t respecto de t?",
                ),
                solution=f"1 + {d_layer:.4f} = {1 + d_layer:.4f}.",
            ),
        ],
        "bloque": [
            Numeric(
                id="ch02-atajos",
                prompt=(
                    "Cada bloque Transformer tiene dos subcapas (atención y FFN). "
                    "¿Cuántas conexiones residuales hay en una pila de 12 bloques?"
                ),
                answer=2 * 12,
                tol=0.25,
                reads=("resnorm.blocks.build_stack",),
                mistakes=(
                    Mistake(
                        12,
                        "contaste un atajo por bloque",
                        "Hay un atajo alrededor de la atención y otro alrededor de "
                        "la FFN: dos por bloque.",
                    ),
                ),
                hints=(
                    "Cuenta primero los atajos de un solo bloque.",
                    "Uno rodea la atención; otro, la FFN.",
                ),
                solution="2 atajos por bloque × 12 bloques = 24.",
            ),
        ],
    }


# --- Capítulo 3 -------------------------------------------------------------------


def _ch03():
    mu = _f(mean(X))
    sigma = _f(std(X))
    dev = (X[3] - mu) ** 2
    terms = " + ".join(_n(v) for v in X)
    return {
        "media": [
            Numeric(
                id="ch03-media",
                prompt=f"¿Cuál es la media de x = {_v(X)}?",
                answer=mu,
                tol=5e-4,
                glued=(Glue("media_ejemplo", mu), Glue("suma_ejemplo", sum(X))),
                reads=("resnorm.mean",),
                mistakes=(
                    Mistake(
                        sum(X),
                        "no dividiste entre n",
                        "La media es la suma dividida entre el número de "
                        "componentes, 4.",
                    ),
                    Mistake(
                        sum(X) / 3,
                        "dividiste entre n − 1 = 3",
                        "La media siempre divide entre n; el n − 1 solo aparece "
                        "en la varianza muestral, y LayerNorm no la usa.",
                    ),
                ),
                hints=("Suma las cuatro componentes.", "Divide la suma entre 4."),
                solution=f"({terms}) / 4 = {sum(X):.2f} / 4 = {mu:.4f}.",
            ),
            Numeric(
                id="ch03-desvio",
                prompt=(
                    f"Con μ = {mu:.4f}, ¿cuánto vale (x₄ − μ)², el desvío al cuadrado "
                    f"de la última componente, x₄ = {_n(X[3])}?"
                ),
                answer=dev,
                tol=5e-4,
                glued=(
                    Glue("cuadrados", dev, index=3),
                    Glue("desviaciones", X[3] - mu, index=3),
                ),
                reads=("resnorm.layer_norm_steps",),
                mistakes=(
                    Mistake(
                        X[3] - mu,
                        "no elevaste al cuadrado",
                        "El desvío es x₄ − μ; la varianza promedia sus cuadrados.",
                    ),
                    Mistake(
                        (X[3] - 1.0) ** 2,
                        "redondeaste μ a 1.0 antes de restar",
                        "Redondear la media antes de seguir cambia la tercera "
                        "cifra: usa μ con todos sus decimales.",
                    ),
                ),
                hints=(
                    f"Primero resta: {_n(X[3])} − μ.",
                    "Luego multiplica el resultado por sí mismo.",
                ),
                sign_hint="Un cuadrado nunca es negativo.",
                solution=f"({_n(X[3])} − {mu:.4f})² = {X[3] - mu:.4f}² = {dev:.4f}.",
            ),
        ],
        "sigma": [
            Numeric(
                id="ch03-sigma",
                prompt=(
                    "¿Cuál es la desviación estándar poblacional σ de "
                    f"x = {_v(X)}, la que usa LayerNorm?"
                ),
                answer=sigma,
                tol=5e-4,
                glued=(
                    Glue("sigma_ejemplo", sigma),
                    Glue("sigma_muestral", _f(std(X, correction=1))),
                    Glue("varianza_ejemplo", _f(variance(X))),
                ),
                reads=("resnorm.std",),
                mistakes=(
                    Mistake(
                        _f(std(X, correction=1)),
                        "dividiste entre n − 1",
                        "Esa es la desviación muestral (la de torch.std por "
                        "defecto). LayerNorm usa la poblacional: divide entre n.",
                    ),
                    Mistake(
                        _f(variance(X)),
                        "te quedaste en la varianza σ²",
                        "Falta la raíz cuadrada: σ = √σ².",
                    ),
                    Mistake(
                        _f(np.mean(np.abs(np.subtract(X, mu)))),
                        "promediaste los desvíos absolutos",
                        "σ promedia los cuadrados de los desvíos y luego saca la "
                        "raíz; no es la media de |xᵢ − μ|.",
                    ),
                ),
                hints=(
                    "Calcula los cuatro desvíos al cuadrado y promédialos: eso es σ².",
                    "σ es la raíz cuadrada de σ².",
                ),
                solution=(
                    f"σ² = Σ(xᵢ − μ)² / 4 = {_f(variance(X)):.6f}; "
                    f"σ = √σ² = {sigma:.4f}."
                ),
            ),
            Choice(
                id="ch03-prediccion-desplazar",
                prompt="Predice: si sumas 10 a cada componente de x, ¿qué pasa con μ "
                "y con σ?",
                reads=("resnorm.mean", "resnorm.std"),
                options=(
                    Option(
                        "μ sube 10 y σ no cambia",
                        True,
                        "Todas las componentes se mueven lo mismo: la media se "
                        "mueve con ellas y las desviaciones x − μ no cambian.",
                    ),
                    Option(
                        "Las dos suben 10",
                        False,
                        "σ mide la dispersión alrededor de μ; desplazar el vector "
                        "entero no la cambia.",
                    ),
                    Option(
                        "No cambia ninguna",
                        False,
                        "La media sí se mueve: es la suma dividida entre n, y la "
                        "suma crece 4 · 10.",
                    ),
                ),
                kind="prediccion",
            ),
        ],
    }


# --- Capítulo 4 -------------------------------------------------------------------


def _ch04():
    mu = _f(mean(X))
    sigma = _f(std(X))
    x_hat = (X[3] - mu) / sigma
    keras = _f(layer_norm(X, eps=1e-3)[3])
    keras_outside = (X[3] - mu) / (sigma + 1e-3)
    return {
        "normalizar": [
            Numeric(
                id="ch04-componente",
                prompt=(
                    f"Con μ = {mu:.4f} y σ = {sigma:.4f} (ε = 0, como a mano), "
                    "¿cuánto vale la cuarta componente normalizada x̂₄ de "
                    f"x₄ = {_n(X[3])}?"
                ),
                answer=x_hat,
                # ±0.001: con μ y σ a cuatro decimales sale 1.6566; el desliz de
                # dividir entre σ = 0.198 (1.6540) queda fuera y se diagnostica.
                tol=1e-3,
                glued=(
                    Glue("normalizado", x_hat, index=3),
                    Glue("normalizado_4", x_hat, index=3),
                    Glue("media_ejemplo", mu),
                    Glue("sigma_ejemplo", sigma),
                ),
                reads=("resnorm.layer_norm_steps",),
                mistakes=(
                    Mistake(
                        (X[3] - mu) / _f(std(X, correction=1)),
                        "usaste la σ muestral (n − 1)",
                        "LayerNorm divide entre la σ poblacional; con n − 1 sale "
                        "un x̂ más pequeño.",
                    ),
                    Mistake(
                        (X[3] - mu) / _f(variance(X)),
                        "dividiste entre σ²",
                        "Se divide entre σ, la raíz de la varianza.",
                    ),
                    Mistake(
                        X[3] / sigma,
                        "no restaste la media",
                        "Primero se centra (x − μ) y después se divide entre σ.",
                    ),
                    Mistake(
                        (X[3] - mu) / round(sigma, 1),
                        "redondeaste σ a 0.2 antes de dividir",
                        "Redondear σ antes de dividir arrastra el error a todas "
                        "las componentes.",
                    ),
                    # El desliz del texto original que discute el aviso del capítulo.
                    Mistake(
                        (X[3] - mu) / round(sigma, 3),
                        "redondeaste σ a 0.198 antes de dividir",
                        "Es el desliz que discute el aviso del capítulo: σ redondeada "
                        f"cambia solo un {_n(100 * abs(round(sigma, 3) / sigma - 1))} "
                        "%, pero x̂₄ cambia ya en la tercera cifra decimal. Divide "
                        "entre σ sin redondear y redondea solo el resultado.",
                    ),
                ),
                hints=("Centra: x₄ − μ.", "Divide el resultado entre σ."),
                sign_hint="Revisa quién resta a quién: x₄ − μ.",
                solution=f"x̂₄ = ({_n(X[3])} − {mu:.4f}) / {sigma:.4f} = {x_hat:.3f}.",
            ),
            Numeric(
                id="ch04-epsilon",
                prompt=(
                    "Ahora con un ε mayor, ε = 0.001: ¿cuánto vale x̂₄ = (x₄ − μ) / "
                    "√(σ² + ε)? Usa los mismos μ y σ."
                ),
                answer=keras,
                tol=2e-3,
                reads=("resnorm.layer_norm",),
                mistakes=(
                    Mistake(
                        keras_outside,
                        "pusiste ε fuera de la raíz",
                        "La fórmula suma ε a la varianza, dentro de la raíz: "
                        "√(σ² + ε), no σ + ε.",
                    ),
                    Mistake(
                        x_hat,
                        "no usaste ε",
                        "Con ε = 0.001 el denominador crece algo y x̂₄ baja.",
                    ),
                ),
                hints=(
                    "Calcula σ² + ε primero: σ² es σ al cuadrado.",
                    "Saca la raíz de esa suma y divide x₄ − μ entre ella.",
                ),
                sign_hint="Revisa quién resta a quién: x₄ − μ.",
                solution=(
                    f"√(σ² + ε) = √({sigma**2:.6f} + 0.001) = "
                    f"{math.sqrt(sigma**2 + 1e-3):.5f}; x̂₄ = {keras:.3f}."
                ),
            ),
        ],
        "eje": [
            Choice(
                id="ch04-eje",
                reads=("resnorm.layer_norm",),
                prompt=(
                    "Un tensor de activaciones tiene forma (B, T, C): lote, posiciones "
                    "y componentes. ¿Sobre qué eje calcula LayerNorm μ y σ?"
                ),
                options=(
                    Option(
                        "Sobre C: las componentes de cada token",
                        True,
                        "Cada token se normaliza con sus propias estadísticas; no "
                        "depende de los demás tokens ni del lote.",
                    ),
                    Option(
                        "Sobre B: el lote",
                        False,
                        "Eso hace BatchNorm (por componente, a lo largo del lote): "
                        "la salida de un ejemplo dependería de los demás.",
                    ),
                    Option(
                        "Sobre T: las posiciones de la frase",
                        False,
                        "Mezclaría posiciones: un token dependería de los que "
                        "vienen después, algo prohibido en un modelo causal.",
                    ),
                ),
            ),
        ],
        # La predicción, antes de que la página muestre la respuesta.
        "prediccion": [
            Choice(
                id="ch04-prediccion-escala",
                prompt="Predice: ¿qué da LayerNorm (sin γ ni β) con [20, 40] si con "
                "[2, 4] da [−1, 1]?",
                glued=(Glue("ln_2_4", -1.0, index=0), Glue("ln_20_40", -1.0, index=0)),
                options=(
                    Option(
                        "Casi [−1, 1] otra vez",
                        True,
                        "Multiplicar el vector por 10 multiplica por 10 su desvío "
                        "y su σ: se cancelan (salvo el pequeño ε).",
                    ),
                    Option(
                        "[−10, 10]",
                        False,
                        "Eso es solo centrar; al dividir entre σ = 10 vuelve a "
                        "[−1, 1].",
                    ),
                    Option(
                        "[2, 4]",
                        False,
                        "LayerNorm cambia la escala: la media pasa a 0.",
                    ),
                ),
                kind="prediccion",
            ),
        ],
    }


# --- Capítulo 5 -------------------------------------------------------------------


def _ch05():
    # El cálculo a mano del capítulo: ε = 0, con los γ y β del ejemplo.
    steps = layer_norm_steps(X, np.array(GAMMA), np.array(BETA), eps=0.0)
    x_hat = _f(steps.normalized[0])
    y = _f(steps.output[0])
    g1, b1 = _n(GAMMA[0], 1), _n(BETA[0], 1)
    blocks = 12
    # §5.3: γ = σ y β = μ deshacen la normalización de x, no la de otro vector.
    sigma, mu = _f(steps.std), _f(steps.mean)
    other = layer_norm(np.array(examples.EVENS), np.full(4, sigma), np.full(4, mu),
                       eps=0.0)
    return {
        "afin": [
            Numeric(
                id="ch05-gamma-beta",
                prompt=(
                    f"La primera componente normalizada es x̂₁ = {_n(x_hat, 4)}, con "
                    f"γ₁ = {g1} y β₁ = {b1}. ¿Cuánto vale y₁ = γ₁·x̂₁ + β₁?"
                ),
                answer=y,
                tol=2e-3,
                glued=(
                    Glue("salida", y, index=0),
                    Glue("normalizado_4", x_hat, index=0),
                ),
                reads=("resnorm.layer_norm_steps",),
                mistakes=(
                    Mistake(
                        GAMMA[0] * x_hat,
                        "olvidaste β",
                        "Después de escalar con γ hay que sumar β.",
                    ),
                    Mistake(
                        GAMMA[0] * (x_hat + BETA[0]),
                        "sumaste β antes de multiplicar",
                        "El orden es γ ⊙ x̂ + β: primero se escala y después se "
                        "desplaza.",
                    ),
                    Mistake(
                        BETA[0] * x_hat + GAMMA[0],
                        "cambiaste γ por β",
                        f"γ multiplica y β se suma: γ₁ = {g1} escala x̂₁ y β₁ = {b1} "
                        "lo desplaza.",
                    ),
                    Mistake(
                        x_hat + BETA[0],
                        "olvidaste γ",
                        f"Falta multiplicar por γ₁ = {g1}.",
                    ),
                ),
                hints=("Multiplica x̂₁ por γ₁.", "Suma β₁ al resultado."),
                sign_hint="x̂₁ es negativo (x₁ está por debajo de la media), y "
                "multiplicar por γ₁ > 0 no le cambia el signo.",
                solution=f"y₁ = {g1} × ({_n(x_hat, 4)}) + {b1} = {_n(y, 3)}.",
            ),
            Choice(
                id="ch05-prediccion-gamma-cero",
                prompt="Predice: con γ = (0, 0, 0, 0), ¿qué sale de γ ⊙ x̂ + β para "
                "cualquier entrada?",
                reads=("resnorm.layer_norm",),
                options=(
                    Option(
                        "β, sea cual sea la entrada",
                        True,
                        "γ ⊙ x̂ vale 0 en cada componente, así que solo queda β: la "
                        "capa olvida la entrada.",
                    ),
                    Option(
                        "x̂, la entrada normalizada",
                        False,
                        "Eso da γ = (1, 1, 1, 1) y β = 0, no γ = 0.",
                    ),
                    Option(
                        "Un vector de ceros",
                        False,
                        "Solo si además β = 0: β se suma después de multiplicar.",
                    ),
                ),
                kind="prediccion",
            ),
        ],
        "cuantos": [
            Numeric(
                id="ch05-cuantos-gamma",
                prompt=(
                    f"Un GPT Pre-LN de {blocks} bloques tiene dos LayerNorm por bloque "
                    "y una final, ln_f. ¿Cuántos vectores γ distintos aprende?"
                ),
                answer=2 * blocks + 1,
                tol=0.25,
                reads=("resnorm.blocks.build_stack",),
                mistakes=(
                    Mistake(
                        1,
                        "pensaste que hay un único γ para todo el modelo",
                        "Dentro de una LayerNorm, el mismo γ sirve a todos los "
                        "tokens; pero cada LayerNorm del modelo tiene el suyo.",
                    ),
                    Mistake(
                        2 * blocks,
                        "olvidaste ln_f",
                        "La LayerNorm final también aprende su γ.",
                    ),
                    Mistake(
                        blocks,
                        "contaste una LayerNorm por bloque",
                        "Hay una antes de la atención y otra antes de la FFN.",
                    ),
                ),
                hints=(
                    "Cuenta las LayerNorm de un bloque.",
                    "No olvides la de después del último bloque.",
                ),
                solution=f"2 × {blocks} + 1 = {2 * blocks + 1}.",
            ),
            Choice(
                id="ch05-para-que",
                prompt="¿Para qué sirven γ y β si LayerNorm ya dejó media 0 y "
                "desviación 1?",
                glued=(
                    Glue("otro_deshecho", _f(other[0]), index=0),
                    Glue("otro_deshecho", _f(other[3]), index=3),
                ),
                reads=("resnorm.layer_norm",),
                options=(
                    Option(
                        "Para que el modelo aprenda, dimensión a dimensión, la "
                        "escala y el desplazamiento que le convienen",
                        True,
                        "Empiezan en γ = 1 y β = 0 (normalizar tal cual) y el "
                        "entrenamiento los ajusta. No le devuelven toda la libertad: "
                        "γ = σ y β = μ deshacen la normalización de un vector, pero "
                        f"con esos mismos γ y β [2, 4, 6, 8] sale {_v(other, 3)}. La "
                        "media y la escala propias de cada vector se pierden.",
                    ),
                    Option(
                        "Para volver a la media 0 y desviación 1",
                        False,
                        "Eso ya lo hizo la normalización; γ y β la cambian.",
                    ),
                    Option(
                        "Para evitar dividir entre 0",
                        False,
                        "Eso lo hace ε, dentro de la raíz.",
                    ),
                ),
            ),
        ],
    }


# --- Capítulo 6 -------------------------------------------------------------------


def _ch06():
    rms = math.sqrt(_f(np.mean(np.square(X))))
    y = _f(rms_norm(X)[0])
    return {
        "rmsnorm": [
            Numeric(
                id="ch06-rms",
                prompt=(
                    "RMSNorm divide cada componente entre √(media de los cuadrados + "
                    f"ε). Con x = {_v(X)}, ¿cuánto vale la primera componente de la "
                    "salida (γ = 1)?"
                ),
                answer=y,
                tol=2e-3,
                glued=(
                    Glue("rms_curso_out", y, index=0),
                    Glue("rms_curso", rms),
                    Glue("ln_curso_out", _f(layer_norm(X)[0]), index=0),
                    Glue("media_curso", _f(mean(X))),
                ),
                reads=("resnorm.rms_norm",),
                mistakes=(
                    Mistake(
                        _f(layer_norm(X)[0]),
                        "restaste la media",
                        "Eso es LayerNorm. RMSNorm no centra: solo divide entre la "
                        "raíz de la media de los cuadrados.",
                    ),
                    Mistake(
                        X[0] / _f(np.mean(np.square(X))),
                        "no sacaste la raíz",
                        "Se divide entre la raíz de la media de los cuadrados "
                        "(el RMS), no entre la media de los cuadrados.",
                    ),
                    Mistake(
                        X[0] / _f(mean(X)),
                        "dividiste entre la media",
                        "El RMS promedia los cuadrados y luego saca la raíz.",
                    ),
                ),
                hints=(
                    "Eleva al cuadrado las cuatro componentes y promédialas.",
                    f"Saca la raíz (el RMS) y divide {_n(X[0])} entre ella.",
                ),
                solution=(
                    f"RMS = √(Σxᵢ² / 4) = {rms:.4f}; {_n(X[0])} / {rms:.4f} = "
                    f"{y:.3f}."
                ),
            ),
        ],
        "invariancia": [
            Choice(
                id="ch06-que-quita",
                prompt="¿Qué le quita RMSNorm a LayerNorm?",
                glued=(Glue("rms_1214_out"), Glue("rms_24_out"), Glue("ln_1214_out"),
                       Glue("ln_24_out")),
                reads=("resnorm.rms_norm",),
                options=(
                    Option(
                        "Restar la media (y β)",
                        True,
                        "RMSNorm solo reescala: no centra, y por eso tampoco suele "
                        "llevar β.",
                    ),
                    Option(
                        "Dividir entre una escala",
                        False,
                        "Eso lo conserva: divide entre el RMS.",
                    ),
                    Option("El parámetro γ", False, "RMSNorm mantiene γ."),
                ),
            ),
        ],
        # La predicción, antes de que la página muestre la respuesta.
        "prediccion": [
            Choice(
                id="ch06-signo",
                prompt="Predice: ¿qué da LayerNorm(−2x), comparado con LayerNorm(x)? "
                "(γ = 1, β = 0)",
                glued=(Glue("ln_neg", _f(layer_norm(np.array([-2.0, -4.0]))[0]),
                            index=0),),
                reads=("resnorm.layer_norm",),
                options=(
                    Option(
                        "−LayerNorm(x)",
                        True,
                        "El factor 2 se cancela con σ, pero el signo no: centrar y "
                        "dividir entre σ > 0 conserva el signo de −x.",
                    ),
                    Option(
                        "LayerNorm(x)",
                        False,
                        "La invariancia a la escala vale solo para factores "
                        "positivos; con −2 la salida cambia de signo.",
                    ),
                    Option(
                        "2·LayerNorm(x)",
                        False,
                        "σ también se multiplica por 2 y lo cancela.",
                    ),
                ),
                kind="prediccion",
            ),
        ],
    }


# --- Capítulos 7 y 8 --------------------------------------------------------------


def _ch07():
    blocks = 6
    return {
        "orden": [
            Choice(
                id="ch07-cual-es-pre",
                prompt="¿Cuál de estas líneas es un bloque Pre-LN (la subcapa de "
                "atención)?",
                reads=("resnorm.blocks.PreLNBlock",),
                options=(
                    Option(
                        "x = x + attn(ln_1(x))",
                        True,
                        "Se normaliza la entrada de la subcapa y el atajo lleva x "
                        "sin normalizar.",
                    ),
                    Option(
                        "x = ln_1(x + attn(x))",
                        False,
                        "Eso es Post-LN: la normalización va después de la suma.",
                    ),
                    Option(
                        "x = attn(ln_1(x))",
                        False,
                        "Falta el atajo: sin «x +» no hay conexión residual.",
                    ),
                ),
            ),
            Numeric(
                id="ch07-cuantas-post",
                prompt=(
                    f"Un Transformer Post-LN como el original, con {blocks} bloques "
                    "de dos subcapas, ¿cuántas LayerNorm tiene en total?"
                ),
                answer=2 * blocks,
                tol=0.25,
                reads=("resnorm.blocks.build_stack",),
                mistakes=(
                    Mistake(
                        2 * blocks + 1,
                        "añadiste una ln_f",
                        "La LayerNorm final la necesita Pre-LN, cuyo flujo "
                        "residual no se normaliza; en Post-LN la salida del último "
                        "bloque ya sale normalizada.",
                    ),
                    Mistake(
                        blocks,
                        "contaste una por bloque",
                        "Post-LN normaliza después de cada suma: dos por bloque.",
                    ),
                ),
                hints=(
                    "¿Cuántas sumas residuales tiene un bloque?",
                    "Post-LN pone una LayerNorm tras cada suma.",
                ),
                solution=f"2 por bloque × {blocks} = {2 * blocks}.",
            ),
            Choice(
                id="ch07-calentamiento",
                prompt="Según Xiong et al., ¿qué orden necesita calentamiento "
                "(warm-up) de la tasa de aprendizaje para entrenar bien?",
                # La comparación que el capítulo reproduce: con 24 bloques, el
                # gradiente de la última capa es mayor en Post-LN que en Pre-LN.
                glued=(Glue("post_last_24"), Glue("pre_last_24")),
                reads=("resnorm.experiments.transformer_grad_norms",),
                options=(
                    Option(
                        "Post-LN",
                        True,
                        "En la inicialización, los gradientes de Post-LN cerca de la "
                        "salida son grandes (en la Figura del capítulo, mayores que "
                        "en Pre-LN con 24 bloques); con una tasa grande desde el "
                        "primer paso, el entrenamiento se desestabiliza. El "
                        "calentamiento empieza con pasos diminutos.",
                    ),
                    Option(
                        "Pre-LN",
                        False,
                        "En los experimentos de Xiong et al., Pre-LN entrena sin "
                        "calentamiento. No es una regla: GPT-3, un modelo Pre-LN, "
                        "también lo usó.",
                    ),
                    Option(
                        "Ninguno de los dos",
                        False,
                        "Xiong et al. muestran que Post-LN sin calentamiento entrena "
                        "peor. El calentamiento es más antiguo que ese problema: He "
                        "et al. ya lo usaron en 2016 para su ResNet de 110 capas.",
                    ),
                ),
            ),
        ],
        # La predicción, antes de que la página muestre la respuesta.
        "prediccion": [
            Choice(
                id="ch07-prediccion-sin-lnf",
                prompt="Predice: en una pila Pre-LN sin la LayerNorm final, ¿sale el "
                "vector de cada token del último bloque con media 0 y σ = 1?",
                reads=("resnorm.blocks.build_stack",),
                options=(
                    Option(
                        "No: el flujo residual no pasa por ninguna LayerNorm",
                        True,
                        "En Pre-LN cada LayerNorm normaliza solo la copia que entra "
                        "en una subcapa; la suma x + F(LN(x)) sigue sin normalizar. "
                        "Por eso GPT-2 añade ln_f.",
                    ),
                    Option(
                        "Sí: cada bloque tiene dos LayerNorm",
                        False,
                        "Están en las ramas, antes de cada subcapa; el atajo lleva x "
                        "hasta la suma sin tocarlas.",
                    ),
                    Option(
                        "Sí, si γ = 1 y β = 0",
                        False,
                        "Aun con γ = 1 y β = 0, lo normalizado es la entrada de la "
                        "subcapa, no la suma que sale del bloque.",
                    ),
                ),
                kind="prediccion",
            ),
        ],
    }


def _ch08():
    from resnorm.trace import block_trace, perro_example

    ex = perro_example()
    d = len(ex.x)
    post = {step["key"]: step for step in block_trace(ex, order="post")}
    pre = {step["key"]: step for step in block_trace(ex, order="pre")}
    pre_in = _f(mean(ex.x))
    pre_out = _f(pre["sum2"]["stats"]["mean"])
    post_out = _f(post["ln2"]["stats"]["mean"])
    ln1 = pre["ln1_affine"]["vector"]
    return {
        "traza": [
            Choice(
                id="ch08-que-recibe",
                prompt="En un bloque Pre-LN, ¿qué vector recibe la atención?",
                glued=(Glue("pre_ln1", _f(ln1[0]), index=0),),
                reads=("resnorm.trace.block_trace",),
                options=(
                    Option(
                        "LN₁(x): la entrada normalizada",
                        True,
                        "La atención trabaja con la versión normalizada; el atajo "
                        "suma su salida a x sin normalizar.",
                    ),
                    Option("x, sin normalizar", False, "Eso pasa en Post-LN."),
                    Option(
                        "x + LN₁(x)", False, "La suma residual es x + attn(LN₁(x))."
                    ),
                ),
            ),
            Numeric(
                id="ch08-parametros-ln",
                prompt=(
                    f"El vector «perro» tiene d = {d} componentes. ¿Cuántos números "
                    "aprende una LayerNorm de ese tamaño (γ y β juntos)?"
                ),
                answer=2 * d,
                tol=0.25,
                reads=("torch.nn.LayerNorm",),
                mistakes=(
                    Mistake(
                        d,
                        "contaste solo γ",
                        "β también tiene una componente por dimensión.",
                    ),
                    Mistake(
                        2,
                        "contaste un número para γ y otro para β",
                        "γ y β son vectores de d componentes.",
                    ),
                ),
                hints=("γ tiene una componente por dimensión.", "β también."),
                solution=f"γ ({d}) + β ({d}) = {2 * d}.",
            ),
        ],
        # La predicción, antes de que la página muestre la respuesta.
        "prediccion": [
            Choice(
                id="ch08-post-salida",
                prompt="Predice: tras un bloque Post-LN con γ = 1 y β = 0, ¿qué media "
                "tiene el vector de salida?",
                glued=(
                    Glue("post_out_mean", post_out),
                    Glue("pre_mu1", pre_in),
                    Glue("pre_out_mean", pre_out),
                ),
                reads=("resnorm.trace.block_trace",),
                options=(
                    Option(
                        "0 (salvo redondeo)",
                        True,
                        "La última operación de Post-LN es una LayerNorm: con γ = 1 y "
                        "β = 0 deja media 0. En la traza de «perro», con γ₂ y β₂, "
                        f"la media sale {_n(post_out, 4)}: cerca de 0, pero no 0, "
                        "por γ₂ y β₂.",
                    ),
                    Option(
                        "La misma que la entrada",
                        False,
                        "Tampoco la conserva Pre-LN, que no normaliza la salida: allí "
                        "la salida es x + Atención + FFN, y en la traza de «perro» la "
                        f"media pasa de {_n(pre_in)} a {_n(pre_out)}. En Post-LN la "
                        "última operación es una LayerNorm.",
                    ),
                    Option("1", False, "Sale desviación 1 (casi), no media 1."),
                ),
                kind="prediccion",
            ),
        ],
    }


# --- Capítulos 9 a 12 ---------------------------------------------------------------


def _ch09():
    layers = 96  # la pila de la Figura «La escala de las activaciones en 96 capas»
    grown = math.sqrt(1 + layers)
    exploded = math.sqrt(2) ** layers
    scaled = (1 + 1 / layers) ** (layers / 2)
    return {
        "profundidad": [
            Numeric(
                id="ch09-raiz-L",
                prompt=(
                    "En la pila Pre-LN del capítulo, h ← h + W·LN(h): cada capa suma "
                    "a h un término de varianza 1, independiente de h, y la entrada "
                    "tiene varianza 1. ¿Qué desviación estándar tiene h tras "
                    f"{layers} capas?"
                ),
                answer=grown,
                tol=0.01,
                glued=(
                    Glue("teo_pre_ln", grown),
                    Glue("teo_residual", exploded),
                    Glue("std_pre_ln"),
                ),
                reads=("resnorm.experiments.activation_std_per_layer",),
                mistakes=(
                    Mistake(
                        1 + layers,
                        "sumaste desviaciones en vez de varianzas",
                        "Las varianzas de términos independientes se suman; la "
                        "desviación es la raíz de esa suma.",
                    ),
                    Mistake(
                        math.sqrt(layers),
                        "olvidaste la entrada",
                        f"La entrada también aporta su varianza 1: son 1 + {layers}.",
                    ),
                    Mistake(
                        exploded,
                        "calculaste la residual sin LayerNorm",
                        "√2 elevado a las capas es la pila h ← h + W·h, cuya rama es "
                        "tan grande como h y duplica la varianza. En Pre-LN la rama "
                        "recibe LN(h) y suma siempre varianza 1.",
                    ),
                ),
                hints=(
                    "Suma las varianzas: la de la entrada y la de cada capa.",
                    "La desviación es la raíz de la varianza total.",
                ),
                solution=f"Var = 1 + {layers} = {1 + layers}; σ = √{1 + layers} ≈ "
                f"{grown:.2f}.",
            ),
            Choice(
                id="ch09-sin-ln",
                prompt="¿Puede entrenarse una red residual profunda sin normalización?",
                glued=(Glue("teo_rama_escalada", scaled), Glue("std_rama_escalada")),
                reads=("resnorm.experiments.scaled_residual_std",),
                options=(
                    Option(
                        "Sí, si cada rama empieza pequeña",
                        True,
                        "Inicializaciones como la 1/√N de GPT-2, Fixup, SkipInit o "
                        "ReZero escalan las ramas y lo consiguen. En el capítulo, "
                        f"con la rama escalada por 1/√{layers}, la escala tras "
                        f"{layers} capas queda cerca de {scaled:.2f}, no de 10¹⁴.",
                    ),
                    Option(
                        "No, nunca",
                        False,
                        "Hay métodos publicados que lo consiguen escalando las ramas.",
                    ),
                    Option(
                        "Sí, siempre, con cualquier inicialización",
                        False,
                        "Si cada rama es tan grande como h, la escala crece capa a "
                        "capa.",
                    ),
                ),
            ),
        ],
        # La predicción, antes de que la página muestre la respuesta.
        "prediccion": [
            Choice(
                id="ch09-plana-ganancia",
                prompt="Predice: ¿qué necesita una pila plana de 96 capas, sin atajo "
                "ni LayerNorm, para no apagar ni disparar su señal?",
                glued=(Glue("std_g09"), Glue("std_g10"), Glue("std_g11")),
                reads=("resnorm.experiments.activation_std_per_layer",),
                options=(
                    Option(
                        "Una ganancia de inicialización justa",
                        True,
                        "Sin atajo, cualquier factor por capa distinto de 1 se "
                        "eleva a 96: en el capítulo, con g = 0.9 se apaga y con "
                        "g = 1.1 se dispara; solo g = 1 la deja cerca de 1.",
                    ),
                    Option(
                        "Nada: 96 capas son pocas",
                        False,
                        f"0.9⁹⁶ ≈ {format_sci(0.9**96)}: basta un 10 % menos por "
                        "capa para apagarla.",
                    ),
                    Option(
                        "Más datos de entrenamiento",
                        False,
                        "El problema aparece antes de entrenar: en la inicialización.",
                    ),
                ),
                kind="prediccion",
            ),
        ],
    }


def _ch11_resumen():
    rms_small = [_f(v) for v in rms_norm(np.array([2.0, 4.0]))]
    return {
        "repaso": [
            Choice(
                id="resumen-residual",
                prompt="¿Qué problema resuelve sobre todo la conexión residual?",
                reads=("resnorm.residual",),
                options=(
                    Option(
                        "Da al gradiente y a la señal un camino directo entre capas",
                        True,
                        "La derivada de x + F(x) es 1 + F′(x): el 1 pasa entero.",
                    ),
                    Option(
                        "Mantiene la escala de cada vector",
                        False,
                        "Eso lo hace LayerNorm.",
                    ),
                    Option(
                        "Reduce el número de parámetros",
                        False,
                        "El atajo no tiene parámetros, pero no quita ninguno.",
                    ),
                ),
            ),
            Choice(
                id="resumen-layernorm",
                prompt="¿Y LayerNorm?",
                reads=("resnorm.layer_norm",),
                options=(
                    Option(
                        "Da a cada vector una escala estable y predecible",
                        True,
                        "Cada token sale con media 0 y desviación casi 1 antes de γ "
                        "y β, llegue con la escala que llegue (salvo si es casi "
                        "constante: ahí manda ε).",
                    ),
                    Option(
                        "Hace que los tokens no se mezclen",
                        False,
                        "LayerNorm trabaja token a token, pero no impide la mezcla de "
                        "la atención.",
                    ),
                    Option(
                        "Garantiza que toda la red sea estable",
                        False,
                        "Ayuda mucho, pero no garantiza la estabilidad de la red "
                        "entera.",
                    ),
                ),
            ),
            Choice(
                id="resumen-orden",
                prompt="¿Qué orden usan GPT-2 y GPT-3?",
                # La traza del capítulo: el flujo residual Pre-LN crece bloque a
                # bloque y solo la LayerNorm final lo recalibra (norma √d = 2).
                glued=(Glue("norma_entrada"), Glue("norma_12"), Glue("norma_lnf")),
                reads=("resnorm.blocks.build_stack",),
                options=(
                    Option(
                        "Pre-LN, con una LayerNorm final",
                        True,
                        "Normalizan la entrada de cada subcapa y dejan el flujo "
                        "residual sin normalizar hasta ln_f. GPT-3 declara la "
                        "arquitectura de GPT-2. No es el único orden en uso: LLaMA "
                        "normaliza igual, pero con RMSNorm en vez de LayerNorm.",
                    ),
                    Option(
                        "Post-LN, como el Transformer original",
                        False,
                        "Ese es el orden de 2017; GPT-2 pasó la normalización a la "
                        "entrada de cada subcapa y añadió una al final.",
                    ),
                    Option(
                        "Ninguna normalización",
                        False,
                        "Los dos normalizan: una LayerNorm antes de cada subcapa y "
                        "otra al final de la pila.",
                    ),
                ),
            ),
        ],
        # La predicción, antes de que la página muestre la respuesta.
        "prediccion": [
            Choice(
                id="ch11-prediccion-rms-escala",
                prompt="Predice: ¿qué da RMSNorm (sin γ) con [20, 40], si con [2, 4] "
                f"da [{rms_small[0]:.2f}, {rms_small[1]:.2f}]?",
                glued=(
                    Glue("rms_24_out", rms_small[0], index=0, chapter="variantes"),
                    Glue("rms_2040_out", rms_small[0], index=0, chapter="variantes"),
                ),
                reads=("resnorm.rms_norm",),
                options=(
                    Option(
                        f"Lo mismo, [{rms_small[0]:.2f}, {rms_small[1]:.2f}]",
                        True,
                        "Multiplicar por 10 multiplica también la raíz de la media "
                        "de los cuadrados por 10: se cancelan.",
                    ),
                    Option(
                        f"[{10 * rms_small[0]:.1f}, {10 * rms_small[1]:.1f}]",
                        False,
                        "RMSNorm divide entre la escala del vector: si el vector "
                        "crece 10 veces, el divisor también.",
                    ),
                    Option(
                        "[−1, 1], como LayerNorm",
                        False,
                        "RMSNorm no resta la media: los dos valores siguen siendo "
                        "positivos.",
                    ),
                ),
                kind="prediccion",
            ),
        ],
    }


def _ch12_coste():
    from resnorm.cost import FUSED, count_sweeps, naive_layer_norm

    rows, cols = 4096, 1024
    mib = rows * cols * 4 / 2**20
    sample = np.random.default_rng(0).standard_normal((8, 1024), dtype=np.float32)
    naive = count_sweeps(naive_layer_norm, sample)
    fused = FUSED
    return {
        "coste": [
            Numeric(
                id="coste-mib",
                prompt=f"¿Cuántos MiB ocupa un tensor float32 de {rows} × {cols}?",
                answer=mib,
                tol=0.05,
                glued=(Glue("mib_x", mib),),
                unit="MiB",
                mistakes=(
                    Mistake(
                        rows * cols * 4 / 10**6,
                        "diste MB, no MiB",
                        f"Un MB son 10⁶ bytes; un MiB, 2²⁰ = {_grouped(2**20)} bytes: "
                        "divide entre 2²⁰.",
                    ),
                    Mistake(
                        rows * cols / 2**20,
                        "olvidaste los 4 bytes de cada float32",
                        "Cada número float32 ocupa 4 bytes.",
                    ),
                    Mistake(
                        rows * cols * 32 / 2**20,
                        "contaste bits, no bytes",
                        "float32 son 32 bits, que son 4 bytes.",
                    ),
                ),
                hints=(
                    "Cuenta los elementos: filas × columnas.",
                    "Multiplica por 4 bytes y divide entre 2²⁰.",
                ),
                solution=(
                    f"{rows} × {cols} × 4 B = {_grouped(rows * cols * 4)} B = "
                    f"{mib:.0f} MiB."
                ),
            ),
            Numeric(
                id="coste-pasadas",
                prompt=(
                    "Una LayerNorm fusionada recorre la memoria una sola vez: lee la "
                    "entrada x y escribe la salida y. ¿Cuál es su tráfico, en arrays "
                    "completos leídos más escritos?"
                ),
                answer=fused["arrays"],
                tol=0.25,
                glued=(
                    Glue("trafico_torch_ln", fused["arrays"]),
                    Glue("trafico_copia", fused["arrays"]),
                    Glue("pasadas_torch_ln", fused["sweeps"]),
                    Glue("trafico_ln_ingenua", naive["arrays"]),
                ),
                reads=("resnorm.cost.count_torch_sweeps",),
                mistakes=(
                    Mistake(
                        fused["sweeps"],
                        "contaste pasadas, no arrays",
                        "Es una sola pasada, pero en ella lee x y escribe y: dos "
                        "arrays de tráfico, como una copia.",
                    ),
                    Mistake(
                        naive["arrays"],
                        "contaste la receta ingenua",
                        "Ese es el tráfico de la LayerNorm escrita con una operación "
                        "de NumPy por paso; la fusionada hace todo en un recorrido.",
                    ),
                ),
                hints=(
                    "El tráfico cuenta arrays leídos más arrays escritos.",
                    "Una lectura de x más una escritura de y.",
                ),
                solution=(
                    f"1 lectura + 1 escritura = {fused['arrays']} arrays de tráfico, "
                    f"en {fused['sweeps']} pasada: lo mismo que una copia."
                ),
            ),
            Choice(
                id="coste-rms",
                prompt="¿Por qué RMSNorm puede ser algo más barata que LayerNorm?",
                glued=(Glue("trafico_rms_ingenua"), Glue("trafico_ln_ingenua")),
                reads=("resnorm.cost.naive_rms_norm",),
                options=(
                    Option(
                        "Porque no calcula ni resta la media",
                        True,
                        "Se ahorra una reducción y una resta por componente.",
                    ),
                    Option(
                        "Porque no necesita raíz cuadrada",
                        False,
                        "También divide entre una raíz: el RMS.",
                    ),
                    Option("Porque no tiene parámetros", False, "Tiene γ."),
                ),
            ),
            Choice(
                id="ch12-prediccion-media-precision",
                prompt="Predice: si el tensor pasa de float32 a float16, ¿cuántos "
                "bytes lee y escribe una LayerNorm que recorre x una vez y escribe y?",
                reads=("resnorm.cost.minimum_bytes",),
                options=(
                    Option(
                        "La mitad",
                        True,
                        "Cada número ocupa 2 bytes en lugar de 4, y el número de "
                        "pasadas por la memoria no cambia.",
                    ),
                    Option(
                        "Los mismos",
                        False,
                        "Los bytes son números × bytes por número, y cada número "
                        "ocupa la mitad.",
                    ),
                    Option(
                        "La cuarta parte",
                        False,
                        "Eso sería si cada número ocupara un byte: float16 ocupa "
                        "dos, la mitad que float32.",
                    ),
                ),
                kind="prediccion",
            ),
        ],
    }


def _gpt():
    from resnorm.data import load_corpus

    # El vocabulario del capítulo: los caracteres distintos del corpus.
    vocab = len(set(load_corpus()))
    return {
        "perdida": [
            Numeric(
                id="gpt-uniforme",
                prompt=(
                    f"Un modelo que reparte la probabilidad por igual entre {vocab} "
                    "caracteres, ¿qué pérdida de entropía cruzada (logaritmo natural) "
                    "tiene?"
                ),
                answer=math.log(vocab),
                tol=0.01,
                glued=(Glue("perdida_azar", math.log(vocab)), Glue("vocab", vocab)),
                mistakes=(
                    Mistake(
                        math.log2(vocab),
                        "usaste logaritmo en base 2",
                        "La pérdida de PyTorch usa el logaritmo natural.",
                    ),
                    Mistake(
                        math.log10(vocab),
                        "usaste logaritmo en base 10",
                        "La pérdida de PyTorch usa el logaritmo natural, ln (en "
                        "Python, math.log).",
                    ),
                    Mistake(
                        1 / vocab,
                        "diste la probabilidad, no la pérdida",
                        f"La pérdida es −ln p, con p = 1/{vocab}.",
                    ),
                ),
                hints=(
                    f"Cada carácter tiene probabilidad 1/{vocab}.",
                    f"La pérdida es −ln(1/{vocab}) = ln {vocab}.",
                ),
                solution=f"−ln(1/{vocab}) = ln {vocab} = {math.log(vocab):.3f}.",
            ),
            Choice(
                id="gpt-que-prueba",
                prompt="¿Qué NO puede probar un entrenamiento pequeño en CPU?",
                glued=(Glue("val_plain"), Glue("val_pre_ln"), Glue("perdida_frec")),
                reads=("resnorm.gpt.gpt_comparison",),
                options=(
                    Option(
                        "Cómo se comportan los modelos a la escala de GPT-3",
                        True,
                        "Un modelo de pocas capas y pocos pasos muestra la tendencia, "
                        "no el comportamiento a gran escala.",
                    ),
                    Option(
                        "Que sin atajos la pérdida se queda arriba",
                        False,
                        "Eso sí se ve en el experimento del capítulo.",
                    ),
                    Option(
                        "Que con ambas piezas el modelo aprende",
                        False,
                        "También se ve.",
                    ),
                ),
            ),
        ],
        # La predicción, antes de que la página muestre la respuesta.
        "prediccion": [
            Choice(
                id="gpt-unigrama",
                prompt="Predice: si un modelo profundo sin atajos no consigue "
                "entrenar, ¿hasta dónde baja su pérdida?",
                glued=(Glue("perdida_frec"), Glue("val_plain"), Glue("val_ln_only")),
                reads=("resnorm.gpt.unigram_loss",),
                options=(
                    Option(
                        "Hasta cerca de la pérdida de solo frecuencias",
                        True,
                        "Lo más fácil de aprender es la frecuencia de cada carácter, "
                        "sin mirar el contexto; usarlo exige que la señal cruce todas "
                        "las capas. Las dos versiones sin atajo del capítulo se "
                        "quedan ahí.",
                    ),
                    Option(
                        "Hasta 0",
                        False,
                        "Ni siquiera un buen modelo llega a 0 en texto real.",
                    ),
                    Option(
                        "No baja nada",
                        False,
                        "Aprender las frecuencias ya baja la pérdida desde ln V.",
                    ),
                ),
                kind="prediccion",
            ),
        ],
    }


# Clave estable (no cambia si se renumeran los capítulos) → (sufijo del notebook,
# título corto para la portada, función que crea las preguntas).
_CHAPTERS = {
    "problema": ("problema_apilar", "El problema de apilar", _ch01),
    "residual": ("conexion_residual", "La conexión residual", _ch02),
    "media": ("media_desviacion", "Media y desviación", _ch03),
    "layernorm": ("layernorm", "LayerNorm", _ch04),
    "gamma_beta": ("gamma_beta", "γ y β", _ch05),
    "variantes": ("variantes", "Variantes", _ch06),
    "bloque": ("bloque_completo", "El bloque completo", _ch07),
    "perro": ("perro_paso_a_paso", "«perro» paso a paso", _ch08),
    "profundidad": ("profundidad", "Profundidad", _ch09),
    "gpt": ("gpt_diminuto", "Un GPT diminuto", _gpt),
    "resumen": ("resumen", "Resumen", _ch11_resumen),
    "coste": ("cuanto_cuesta_normalizar", "El coste de normalizar", _ch12_coste),
}


def chapters() -> list[str]:
    """Las claves de los capítulos que tienen preguntas, en el orden del curso."""
    return list(_CHAPTERS)


def chapter(key: str) -> dict:
    """Los bloques de preguntas de un capítulo: nombre del bloque → preguntas."""
    if key not in _CHAPTERS:
        raise KeyError(f"No hay preguntas para el capítulo «{key}»; hay {chapters()}")
    return _CHAPTERS[key][2]()


def doc_suffix(key: str) -> str:
    """El final del nombre del notebook del capítulo (sin número: puede cambiar)."""
    return _CHAPTERS[key][0]


def title(key: str) -> str:
    """El título corto del capítulo, para la portada."""
    return _CHAPTERS[key][1]


def chapter_manifest(key: str) -> dict:
    """Las preguntas de un capítulo: {id: versión}. Construye solo ese capítulo: una
    pregunta que no se sostiene (por ejemplo, con otro vector del curso) para su
    capítulo, no el de los demás."""
    from resnorm.quiz import question_state

    return {s["id"]: s["version"]
            for qs in chapter(key).values()
            for s in map(question_state, qs)}


def manifest() -> dict:
    """Todas las preguntas del curso: clave del capítulo → {id: versión}."""
    return {key: chapter_manifest(key) for key in _CHAPTERS}
