"""Instala lo que las pruebas necesitan fuera de Python (paquetes de Debian): Chromium,
el diccionario español de hunspell, la biblioteca enchant (PyEnchant, para
sphinxcontrib-spelling), poppler-utils (pdftotext y pdftoppm, para leer el
PDF del curso y mirar las páginas impresas) y las fuentes DejaVu, las únicas que ve el
Chromium de las pruebas (``tests/fuentes.conf``).

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
    "hunspell": Path("/usr/bin/hunspell"),
    "hunspell-es": Path("/usr/share/hunspell/es_ES.dic"),
    "libenchant-2-2": Path("/usr/share/doc/libenchant-2-2"),
    "poppler-utils": Path("/usr/bin/pdftotext"),
    # Las únicas fuentes del Chromium de las pruebas (tests/fuentes.conf).
    "fonts-dejavu-core": DEJAVU / "DejaVuSans.ttf",
    "fonts-dejavu-extra": DEJAVU / "DejaVuSansCondensed.ttf",
}


def missing() -> list[str]:
    return [name for name, path in PACKAGES.items() if not path.exists()]


def main() -> int:
    todo = missing()
    if not todo:
        print("Dependencias del sistema: ya instaladas.")
        return 0
    if os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *todo],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        still = missing()
        if still:
            print(f"No se pudieron instalar: {', '.join(still)}", file=sys.stderr)
            return 1
        print(f"Instalados: {', '.join(todo)}")
        return 0
    print(f"Aviso: faltan {', '.join(todo)} y no hay permisos de root para apt-get.")
    if "chromium" in todo and not os.environ.get("CI"):
        subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
