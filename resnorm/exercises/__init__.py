"""Comprobadores de los ejercicios: responden en español qué está bien, qué falla y una
pista; nunca una traza de error desnuda.

Uso en un capítulo::

    from resnorm.exercises import check_mean
    def mi_media(x):
        ...
    check_mean(mi_media)
"""

from resnorm.exercises._feedback import Feedback, check_function
from resnorm.exercises.part1 import *  # noqa: F403 (capítulos 1 a 5)
from resnorm.exercises.part1 import __all__ as _part1_all
from resnorm.exercises.part2 import *  # noqa: F403 (capítulos 6 a 10)
from resnorm.exercises.part2 import __all__ as _part2_all
from resnorm.exercises.part3 import *  # noqa: F403 (apéndice: coste)
from resnorm.exercises.part3 import __all__ as _part3_all

__all__ = ["Feedback", "check_function", *_part1_all, *_part2_all, *_part3_all]
