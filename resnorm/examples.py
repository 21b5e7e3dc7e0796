"""Los vectores de ejemplo del curso, escritos una sola vez.

Los capítulos, los comprobadores de ejercicios y las pruebas usan estos valores; si
uno cambia, cambia en todas partes. Van entre paréntesis para que nadie los modifique
por error; para calcular con ellos, conviértelos con ``np.array(VECTOR)``.

El hilo del curso es el vector «perro» (Capítulos 2, 4, 5 y 8): entra a la subcapa de
atención, sale ``PERRO_ATTENTION`` y la suma residual es ``VECTOR``, el vector que
normalizan los Capítulos 3 a 5 con ``GAMMA`` y ``BETA``.
"""

#: «perro» a la entrada de la subcapa de atención, x (Capítulos 2 y 8).
PERRO_X = (0.50, 1.15, 0.78, 0.88)

#: La salida de la atención para «perro», F(x), dada (Capítulos 2 y 8).
PERRO_ATTENTION = (0.30, -0.20, 0.15, 0.45)

#: El vector del curso: la suma residual x + F(x) de «perro» (Capítulos 2 a 5),
#: (0.80, 0.95, 0.93, 1.33); μ = 1.0025, σ = 0.1977. Se calcula de los dos de arriba
#: (un solo sitio para cambiarlo), redondeado a sus dos decimales: en float64,
#: 1.15 − 0.20 da 0.9499999999999998, y el curso escribe 0.95.
VECTOR = tuple(round(x + f, 2) for x, f in zip(PERRO_X, PERRO_ATTENTION))

#: γ y β del ejemplo (Capítulo 5; γ₁ y β₁ del bloque «perro», Capítulo 8).
GAMMA = (1.2, 0.8, 1.0, 1.1)
BETA = (0.1, 0.0, -0.2, 0.3)

#: γ₂ y β₂: los de la segunda LayerNorm del bloque «perro» (Capítulo 8).
GAMMA2 = (0.9, 1.1, 1.0, 1.05)
BETA2 = (0.0, 0.1, -0.1, 0.05)

#: Un vector de cuentas redondas: μ = 5 (Capítulo 3).
EVENS = (2.0, 4.0, 6.0, 8.0)

#: Suma con redondeo: x + F(x) es [0.6, 1.0, 0.1] solo con tolerancia, porque
#: −0.3 + 0.4 da 0.10000000000000003 en float64 (Capítulo 2).
ROUNDING_X = (0.5, 1.2, -0.3)
ROUNDING_FX = (0.1, -0.2, 0.4)

#: [2, 4] dividido entre 1000: σ² = 10⁻⁶ es menor que ε = 10⁻⁵ y ε se nota
#: (Capítulo 6).
TINY = (0.002, 0.004)
