"""¿Es el entorno el fijado? Compara lo instalado con las versiones de los archivos de
requisitos (``nombre==versión``) y dice, en español, qué falta o qué sobra.

La marca ``.venv/.deps`` dice que la instalación terminó, no que siga entera: un
``pip uninstall`` o una subida a mano la dejan vieja, y Sphinx fallaba luego con una
traza en inglés. ``make deps`` y ``make test-deps`` lo comprueban siempre (≈ 0,2 s) y
reinstalan si no coincide. (pip no tiene una orden que compare un entorno con un
archivo de requisitos: ``pip check`` solo mira que las dependencias declaradas estén.)

Uso: ``python tools/check_env.py requirements.txt [otro.txt …]``; sale con 1 y la lista
si algo no coincide.
"""

from __future__ import annotations

import re
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^\s;#]+)")


def pins(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        match = PIN.match(line.strip())
        if match:
            out[match.group(1)] = match.group(2)
    return out


def mismatches(wanted: dict[str, str], installed=version) -> list[str]:
    """Lo que no coincide: «nombre: falta» o «nombre: hay X, se fijó Y»."""
    out = []
    for name, want in sorted(wanted.items()):
        try:
            have = installed(name)
        except PackageNotFoundError:
            out.append(f"{name}: falta (se fijó {want})")
            continue
        if have != want and have.split("+")[0] != want.split("+")[0]:
            out.append(f"{name}: hay {have}, se fijó {want}")
    return out


def main(paths: list[str]) -> int:
    wanted: dict[str, str] = {}
    for path in paths:
        wanted.update(pins(Path(path).read_text(encoding="utf-8")))
    problems = mismatches(wanted)
    try:
        version("resnorm")
    except PackageNotFoundError:
        problems.append("resnorm: falta (pip install -e .)")
    if problems:
        print("El entorno no es el fijado:\n  " + "\n  ".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
