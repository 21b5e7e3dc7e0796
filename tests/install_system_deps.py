"""Instala lo que las pruebas necesitan fuera de Python (paquetes de Debian): Chromium
y su «headless shell» (el que abren las pruebas), el diccionario español de hunspell,
la biblioteca enchant (PyEnchant, para sphinxcontrib-spelling), poppler-utils
(pdftotext y pdftoppm, para leer el PDF del curso y mirar las páginas impresas) y las
fuentes DejaVu, las únicas que ve el Chromium de las pruebas (``tests/fuentes.conf``).

- Como root (así corre CI): ``apt-get install`` de lo que falte.
- Sin root: no instala nada del sistema; si falta Chromium y no estamos en CI, intenta
  el navegador propio de Playwright (solo donde la red lo permita).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
PACKAGES = {
    "chromium": Path("/usr/bin/chromium"),
    # El que abren las pruebas y el PDF (tests/helpers.py, CHROMIUM: menos CPU por
    # página); el navegador entero queda para Lighthouse (make bench).
    "chromium-headless-shell": Path("/usr/bin/chromium-headless-shell"),
    "hunspell": Path("/usr/bin/hunspell"),
    "hunspell-es": Path("/usr/share/hunspell/es_ES.dic"),
    "libenchant-2-2": Path("/usr/share/doc/libenchant-2-2"),
    "poppler-utils": Path("/usr/bin/pdftotext"),
    # Las únicas fuentes del Chromium de las pruebas (tests/fuentes.conf).
    "fonts-dejavu-core": DEJAVU / "DejaVuSans.ttf",
    "fonts-dejavu-extra": DEJAVU / "DejaVuSansCondensed.ttf",
}


#: Los que se instalan si la distribución los tiene (si no, las pruebas abren el
#: navegador entero).
OPTIONAL = {"chromium-headless-shell"}


def missing() -> list[str]:
    return [name for name, path in PACKAGES.items() if not path.exists()]


def available(name: str) -> bool:
    """apt tiene una versión de ``name`` que instalar."""
    out = subprocess.run(["apt-cache", "policy", name], capture_output=True,
                         text=True).stdout
    return "Candidate:" in out and "Candidate: (none)" not in out


def main() -> int:
    todo = missing()
    required = [name for name in todo if name not in OPTIONAL]
    if os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        if required:  # sin ellas no hay pruebas: con las listas de paquetes al día
            subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        # Las opcionales, si apt las tiene (sin actualizar sus listas solo por ellas).
        todo = required + [n for n in todo if n in OPTIONAL and available(n)]
        if not todo:
            print("Dependencias del sistema: ya instaladas.")
            return 0
        done = subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *todo],
            check=bool(required),
            env=env,
            stdout=subprocess.DEVNULL,
        )
        still = [name for name in missing() if name in required]
        if still:
            print(f"No se pudieron instalar: {', '.join(still)}", file=sys.stderr)
            return 1
        if done.returncode:
            print(f"Aviso: no se pudo instalar {', '.join(todo)} (opcional).")
            return 0
        print(f"Instalados: {', '.join(todo)}")
        return 0
    if not required:
        print("Dependencias del sistema: ya instaladas.")
        return 0
    print(f"Aviso: faltan {', '.join(required)} y no hay permisos de root para "
          "apt-get.")
    if "chromium" in required and not os.environ.get("CI"):
        subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
