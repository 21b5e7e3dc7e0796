"""Comprobadores de los ejercicios: responden en español qué está bien, qué falla y una
pista; nunca una traza de error desnuda.

Un módulo por capítulo (``ch04.py``: los ejercicios del Capítulo 4, ``ch12.py``: los
del apéndice de coste); aquí se reúnen todos. Uso en un capítulo::

    from resnorm.exercises import check_mean

    def mi_media(x):
        raise NotImplementedError  # escribe aquí tu solución

    check_mean(mi_media)

Si la respuesta falla por un error típico (dividir entre d − 1, poner ε fuera de la
raíz, olvidar el atajo...), la pista nombra ese error; si no, da la pista general del
ejercicio. Los comprobadores que usan torch lo importan solo al llamarlos: importar
``resnorm.exercises`` no importa torch.
"""

from resnorm.exercises import (
    ch01,
    ch02,
    ch03,
    ch04,
    ch05,
    ch06,
    ch07,
    ch08,
    ch09,
    ch10,
    ch11,
    ch12,
)
from resnorm.exercises._feedback import Feedback, check_function
from resnorm.exercises.ch01 import *  # noqa: F403
from resnorm.exercises.ch02 import *  # noqa: F403
from resnorm.exercises.ch03 import *  # noqa: F403
from resnorm.exercises.ch04 import *  # noqa: F403
from resnorm.exercises.ch05 import *  # noqa: F403
from resnorm.exercises.ch06 import *  # noqa: F403
from resnorm.exercises.ch07 import *  # noqa: F403
from resnorm.exercises.ch08 import *  # noqa: F403
from resnorm.exercises.ch09 import *  # noqa: F403
from resnorm.exercises.ch10 import *  # noqa: F403
from resnorm.exercises.ch11 import *  # noqa: F403
from resnorm.exercises.ch12 import *  # noqa: F403

#: Los módulos de comprobadores, en el orden del libro.
CHAPTERS = (ch01, ch02, ch03, ch04, ch05, ch06, ch07, ch08, ch09, ch10, ch11,
            ch12)

__all__ = ["Feedback", "check_function"] + [
    name for chapter in CHAPTERS for name in chapter.__all__
]
