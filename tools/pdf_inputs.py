"""La huella de lo que produce el PDF del curso (``make pdf``, el paso del PDF de
``make test``): si coincide con la de la última impresión y el PDF sigue siendo el que
salió de ella, el PDF no se vuelve a hacer (≈ 45 s en una segunda «make test» sin
cambios).

Entra todo lo que puede cambiar una sola página del PDF:

- cada archivo del repositorio (los de git, también los nuevos sin añadir), salvo los
  que la construcción no lee: las pruebas (``tests/test_*.py``) y el banco de medidas
  (``bench/``, menos el servidor con el que se imprime). Así entran los notebooks, las
  páginas, ``conf.py``, ``_config.yml``, ``_toc.yml``, las extensiones y plantillas, las
  hojas y scripts del sitio y de la impresión, ``resnorm/``, los pines de
  ``requirements.txt`` y ``package-lock.json`` (de los que salen ``.venv``,
  ``node_modules`` y ``_assets/vendor``) y las herramientas (``tools/pdf.py``…);
- las salidas de los notebooks tal como las guardó la ejecución (la caché que lee
  Sphinx): una ejecución nueva de los mismos notebooks puede dar otras (el capítulo 12
  mide tiempos);
- el navegador que imprime (su ejecutable, como lo elige ``tests/helpers.py``) y las
  fuentes que ve (``tests/fuentes.conf`` y la carpeta de DejaVu).

Más vale de más que de menos: un archivo de más solo vuelve a imprimir un PDF igual.

``python tools/pdf_inputs.py --check``: sale con 0 si el PDF está al día (y lo dice);
si no, imprime la huella de ahora y sale con 1. ``--write HUELLA``, tras imprimir:
guarda esa huella, la tomada antes de imprimir (un archivo editado durante la
impresión deja una marca que ya no coincide), junto a la del PDF que salió.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "_build" / "pdf"
PDF = OUT / "residual-y-layernorm.pdf"
STAMP = OUT / ".huella-entradas"
#: Lo que la construcción del PDF no lee (rutas de git, con «/»).
NOT_READ = ("tests/test_", "bench/")
READ_ANYWAY = ("bench/server.py", "bench/__init__.py")


def source_files(root: Path = ROOT) -> list[str] | None:
    """Los archivos del repositorio que cuentan, o ``None`` si git no los da (entonces
    el PDF se hace siempre)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    names = sorted({n for n in out.decode("utf-8", "surrogateescape").split("\0") if n})
    return [n for n in names
            if n in READ_ANYWAY or not n.startswith(NOT_READ)]


def _executed_outputs(root: Path) -> list[Path]:
    """Los notebooks ejecutados que guarda la caché de ejecución del libro."""
    cache = root / "_build" / ".jupyter_cache"
    return sorted(p for p in cache.rglob("*") if p.is_file() and p.suffix == ".ipynb")


def _browser_and_fonts() -> list[tuple[str, bytes]]:
    from tests.helpers import CHROMIUM, FONTCONFIG

    items = []
    for path in (CHROMIUM, *sorted(Path("/usr/share/fonts/truetype/dejavu").glob("*"))):
        real = path.resolve()
        if real.is_file():
            st = real.stat()
            items.append((str(path), f"{real} {st.st_size} {st.st_mtime_ns}".encode()))
    # El ejecutable de Chromium es un guion que llama al binario: también el binario.
    binary = CHROMIUM.resolve().parent.parent / "lib" / "chromium" / CHROMIUM.name
    if binary.is_file():
        st = binary.stat()
        items.append((str(binary), f"{st.st_size} {st.st_mtime_ns}".encode()))
    items.append((str(FONTCONFIG), FONTCONFIG.read_bytes()))
    return items


def inputs_hash(root: Path = ROOT) -> str | None:
    """La huella de todo lo que produce el PDF (``None``: no se puede saber)."""
    names = source_files(root)
    if names is None:
        return None
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(label.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(hashlib.sha256(data).digest())

    for name in names:
        path = root / name
        if path.is_file():  # uno borrado sin «git rm» no está, y cuenta como ausente
            add(name, path.read_bytes())
        else:
            add(name, b"\0ausente")
    for path in _executed_outputs(root):
        add(path.relative_to(root).as_posix(), path.read_bytes())
    for label, data in _browser_and_fonts():
        add(label, data)
    return digest.hexdigest()


def _pdf_hash() -> str:
    return hashlib.sha256(PDF.read_bytes()).hexdigest() if PDF.is_file() else ""


def up_to_date(root: Path = ROOT) -> bool:
    """El PDF existe, es el de la última impresión y nada de lo que lo produce
    cambió."""
    if not STAMP.is_file() or not PDF.is_file():
        return False
    now = inputs_hash(root)
    return now is not None and STAMP.read_text().split() == [now, _pdf_hash()]


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        # Al día: lo dice y sale con 0. Si no: la huella de ahora en la salida (la que
        # se guarda con --write si la impresión termina bien) y sale con 1.
        if up_to_date():
            print(f"PDF del curso: nada de lo que lo produce cambió desde la última "
                  f"impresión ({PDF.relative_to(ROOT)}; tools/pdf_inputs.py).",
                  file=sys.stderr)
            return 0
        print(inputs_hash() or "")
        return 1
    if len(argv) == 2 and argv[0] == "--write":
        if argv[1]:
            STAMP.write_text(f"{argv[1]} {_pdf_hash()}\n")
        else:
            STAMP.unlink(missing_ok=True)
        return 0
    print("Uso: pdf_inputs.py --check | --write HUELLA", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
