"""La huella del motor: lo que decide si los notebooks se vuelven a ejecutar.

jupyter-cache reconoce un notebook solo por sus celdas; lo que calculan depende además
de ``resnorm/`` y de las versiones de lo que importa el núcleo. La huella es la de
todos los archivos de ``resnorm/`` y la de las líneas de ``requirements.txt`` de los
paquetes que el núcleo carga (resnorm con torch, ipykernel y myst-nb, que pega los
valores, con todo lo que piden, leído de los metadatos instalados). Lo que solo usa
Sphinx (los temas, las extensiones) no entra: fijar otro tema reconstruye el sitio
(su propia huella, en el Makefile) sin volver a ejecutar ningún notebook.

``python tools/engine_hash.py`` la imprime (``make -s engine-hash``).
"""

from __future__ import annotations

import hashlib
import re
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
#: Lo que carga el núcleo de un notebook del libro.
KERNEL_ROOTS = ("resnorm", "torch", "ipykernel", "myst-nb")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def kernel_packages(roots=KERNEL_ROOTS) -> set[str]:
    """Los paquetes instalados que carga el núcleo: ``roots`` y lo que piden, sin
    extras."""
    seen: set[str] = set()
    todo = [canonical(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:
            continue
        for line in requires:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(canonical(req.name))
    return seen


def kernel_pins(requirements: str, packages: set[str]) -> list[str]:
    """Las líneas ``nombre==versión`` de ``requirements`` de esos paquetes."""
    pins = []
    for line in requirements.splitlines():
        line = line.split("#", 1)[0].strip()
        match = re.match(r"([A-Za-z0-9_.-]+)==", line)
        if match and canonical(match.group(1)) in packages:
            pins.append(line)
    return sorted(pins)


def engine_hash(root: Path = ROOT, packages: set[str] | None = None) -> str:
    digest = hashlib.sha256()
    files = sorted(p for p in (root / "resnorm").rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts
                   and p.suffix != ".pyc")
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    requirements = (root / "requirements.txt").read_text(encoding="utf-8")
    for pin in kernel_pins(requirements, packages or kernel_packages()):
        digest.update(pin.encode() + b"\n")
    return digest.hexdigest()[:16]


if __name__ == "__main__":
    print(engine_hash())
