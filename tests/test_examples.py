"""Los vectores de ejemplo del curso se definen una vez: ``resnorm/examples.py``.

Las pruebas y ``resnorm`` los importan. Los capítulos, en cambio, escriben el vector a
la vista (``x = [0.80, 0.95, 0.93, 1.33]``): es la lección, y un notebook que importara
sus datos no se leería. Por eso esta prueba lee cada vector de cuatro números escrito en
los notebooks y en ``resnorm/`` (Python con sus docstrings, y el JavaScript de los
widgets, que recibe sus valores por defecto de Python) y exige que sea uno de los
de ``resnorm/examples.py`` o uno de ``OTHER_VECTORS`` (los que solo usa un sitio). Si
cambias ``VECTOR`` en un solo sitio, los que repetían el viejo dejan de reconocerse y
la prueba nombra cada archivo y celda que hay que cambiar.
"""

from __future__ import annotations

import json
import re

from resnorm import examples
from tests.helpers import ROOT

_NUMBER = r"[-−]?\d+(?:\.\d+)?"
#: Una lista de cuatro números escrita a mano: «[0.80, 0.95, 0.93, 1.33]».
FOUR = re.compile(r"\[\s*" + r"\s*,\s*".join([f"({_NUMBER})"] * 4) + r"\s*\]")

#: Los vectores de examples.py con cuatro componentes, por su valor.
EXAMPLES = {
    tuple(float(v) for v in value): name
    for name, value in vars(examples).items()
    if name.isupper() and isinstance(value, tuple) and len(value) == 4
}

#: Vectores de cuatro números que no son los del curso: cada uno sirve a un solo
#: capítulo o comprobador (un contraejemplo, un caso de prueba, un resultado). Uno
#: nuevo va aquí; si lo usan dos sitios, va a resnorm/examples.py.
OTHER_VECTORS = {
    (3.0, 3.0, 3.0, 3.0), (0.0, 0.0, 0.0, 0.0), (1.0, 1.0, 1.0, 1.0),
    (4.0, 5.0, 5.0, 6.0), (20.0, 40.0, 60.0, 80.0), (-20.0, 0.0, 5.0, 1.0),
    (-0.001, 0.0005, 0.001, -0.0005), (1.2, 0.7, 0.95, 0.85),
    (0.0, 0.001, 0.002, 0.003), (-3.0, 0.5, 10.0, 1.0), (-0.1, 0.4, 0.2, -0.3),
    (1.0, -0.5, 0.25, 2.0),
    # los pasos «redondos» de las escalas de los widgets (resnorm/widgets/compute.js)
    (1.0, 2.0, 5.0, 10.0),
    # LayerNorm(VECTOR) redondeado, en el ejemplo de format_vector (resnorm/book.py)
    (-1.024, -0.266, -0.367, 1.657),
}


def _sources():
    """(archivo, lugar, texto): cada celda de los notebooks, cada módulo de resnorm
    (Python y JavaScript)."""
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            yield path.relative_to(ROOT), f"celda {i}, ", "".join(cell["source"])
    modules = [*(ROOT / "resnorm").rglob("*.py"), *(ROOT / "resnorm").rglob("*.js")]
    for path in sorted(modules):
        yield path.relative_to(ROOT), "", path.read_text(encoding="utf-8")


def four_number_literals(text: str) -> list[tuple[float, ...]]:
    return [vector for vector, _ in _with_lines(text)]


def _with_lines(text: str):
    """(vector, número de línea) de cada lista de cuatro números del texto."""
    for m in FOUR.finditer(text):
        vector = tuple(float(n.replace("−", "-")) for n in m.groups())
        yield vector, text.count("\n", 0, m.start()) + 1


def test_four_number_literals_are_read_as_written():
    text = "x = [0.80, 0.95, 0.93, 1.33]  # y `[−1, 0.5, 2, 3]`; [1, 2, 3] no"
    assert four_number_literals(text) == [
        (0.8, 0.95, 0.93, 1.33), (-1.0, 0.5, 2.0, 3.0)
    ]


def test_every_vector_written_in_a_chapter_is_the_one_examples_py_defines():
    unknown = []
    for path, where, text in _sources():
        for vector, line in _with_lines(text):
            if vector not in EXAMPLES and vector not in OTHER_VECTORS:
                written = "[" + ", ".join(f"{v:g}" for v in vector) + "]"
                unknown.append(f"{path} ({where}línea {line}): {written}")
    assert not unknown, (
        "Vectores de cuatro números que no están en resnorm/examples.py:\n"
        + "\n".join(unknown)
        + "\nSi es el vector del curso (o otro de examples.py) escrito con sus valores "
        "de antes, cámbialo ahí por el de resnorm/examples.py: "
        + ", ".join(
            f"{name} = [{', '.join(f'{v:g}' for v in value)}]"
            for value, name in EXAMPLES.items()
        )
        + ". Si es un vector nuevo que solo usa ese capítulo, añádelo a OTHER_VECTORS "
        "en tests/test_examples.py."
    )
