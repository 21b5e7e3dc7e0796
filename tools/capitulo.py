"""Un capítulo nuevo, en borrador: ``make capitulo NN=13 NOMBRE=atencion``.

Escribe lo que antes se hacía a mano en unos diez archivos (README.md, «Añadir un
capítulo»):

- ``notebooks/NN_nombre.ipynb``: el título, la celda que instala ``resnorm`` en Colab
  (copiada del primer capítulo), las importaciones y la celda oculta de ``glue``; con
  ``"borrador": true`` en sus metadatos;
- su línea en ``_toc.yml`` y su fila en las tablas de capítulos (``TABLAS``), detrás
  del capítulo de número anterior;
- su sección en ``tests/expected_values.toml``;
- los comprobadores ``resnorm/exercises/chNN.py`` (vacíos, importados en
  ``resnorm/exercises/__init__.py``) y sus soluciones, ``tests/test_exercises_chNN.py``;
- su función de preguntas en ``resnorm/quiz/bank.py`` (vacía) y su entrada en
  ``_CHAPTERS``.

**Un borrador** (``"borrador": true`` en los metadatos del notebook) se ejecuta con
los demás en «make book» y pasa las pruebas de las fuentes, pero el libro no lo
publica: ``conf.py`` lo deja fuera de la construcción, de su índice y de las tablas
(``borradores``, ``sin_filas_de``), y las pruebas que piden un capítulo entero (tres
números citados, dos ejercicios, tres preguntas) no lo cuentan
(``tests/helpers.py``, ``notebook_paths``). Quitar esa línea lo publica.

Solo la biblioteca estándar y nbformat: ``conf.py`` importa este módulo.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
#: La marca de borrador en los metadatos del notebook.
BORRADOR = "borrador"
#: Las páginas con una tabla de capítulos (una fila por capítulo).
TABLAS = ("book/intro.md", "book/como-usar.md")
#: Lo que el generador deja por escribir: ningún capítulo publicado lo conserva
#: (tests/test_capitulo.py).
PENDIENTE = "Por escribir:"

_FILA = re.compile(r"^\|\s*\{doc\}`\.\./(notebooks/(\d\d)_[\w-]+)`.*\|\s*$")
_TOC = re.compile(r"^(\s*)- file: notebooks/(\d\d)_[\w-]+\s*$")


def es_borrador(notebook: Path) -> bool:
    """Si el notebook lleva ``"borrador": true`` en sus metadatos."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    return nb.get("metadata", {}).get(BORRADOR) is True


def borradores(raiz: Path = RAIZ) -> list[str]:
    """Los capítulos en borrador, como documentos (``notebooks/NN_nombre``)."""
    return sorted(f"notebooks/{p.stem}" for p in (Path(raiz) / "notebooks").glob(
        "*.ipynb") if es_borrador(p))


def sin_filas_de(texto: str, docs) -> str:
    """``texto`` sin las filas de tabla que enlazan (``{doc}``) a alguno de ``docs``."""
    docs = set(docs)
    lineas = texto.splitlines(keepends=True)
    return "".join(linea for linea in lineas
                   if not ((m := _FILA.match(linea)) and m[1] in docs))


# --- El generador ---------------------------------------------------------------------


def _detras_de(lineas: list[str], patron: re.Pattern, nn: str) -> int:
    """Dónde va la línea del capítulo ``nn``: tras la del último de número menor (y
    lo que cuelga de ella, más sangrado), o antes de la primera si no hay ninguno."""
    antes = [i for i, linea in enumerate(lineas)
             if (m := patron.match(linea)) and m[2] < nn]
    if not antes:
        return next(i for i, linea in enumerate(lineas) if patron.match(linea))
    i = antes[-1]
    sangria = len(lineas[i]) - len(lineas[i].lstrip())
    i += 1
    while i < len(lineas) and lineas[i].strip() and (
            len(lineas[i]) - len(lineas[i].lstrip()) > sangria):
        i += 1
    return i


def _insertar(ruta: Path, patron: re.Pattern, nn: str, nueva) -> None:
    lineas = ruta.read_text(encoding="utf-8").splitlines(keepends=True)
    if not any(patron.match(linea) for linea in lineas):
        raise SystemExit(f"{ruta}: no tiene ninguna línea de capítulo a la que seguir")
    i = _detras_de(lineas, patron, nn)
    vecina = lineas[i - 1] if i else lineas[i]
    lineas.insert(i, nueva(vecina))
    ruta.write_text("".join(lineas), encoding="utf-8")


def _notebook(raiz: Path, doc: str, titulo: str):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    publicados = sorted(p for p in (raiz / "notebooks").glob("*.ipynb")
                        if not es_borrador(p))
    modelo = nbformat.read(publicados[0], as_version=4)
    colab = next(c for c in modelo.cells if c.cell_type == "code")
    oculta = {"tags": ["remove-cell"]}
    nb = new_notebook(metadata={**modelo.metadata, BORRADOR: True})
    nb.cells = [
        new_markdown_cell(f"# {titulo}\n\n{PENDIENTE} qué aprenderás en este "
                          "capítulo y por qué importa."),
        new_code_cell(colab.source, metadata=dict(colab.metadata)),
        new_code_cell("import resnorm"),
        new_code_cell("from resnorm.book import glue_number", metadata=oculta),
        new_markdown_cell(f"## Primera sección\n\n{PENDIENTE} el texto, con cada "
                          "número que cite calculado e impreso en una celda "
                          "visible."),
    ]
    nbformat.validate(nb)
    nbformat.write(nb, raiz / f"{doc}.ipynb")


def _comprobadores(raiz: Path, nn: str, titulo: str) -> None:
    modulo = f"ch{nn}"
    (raiz / "resnorm" / "exercises" / f"{modulo}.py").write_text(
        f'"""Comprobadores de los ejercicios del Capítulo {int(nn)}: {titulo}.\n\n'
        "Cada comprobador recibe la función que escribe quien estudia, la prueba con "
        "varios\ncasos y devuelve un ``Feedback`` en español (como los de "
        "``ch04.py``). Cada uno va en\n``__all__``, y su solución, en "
        f"``tests/test_exercises_{modulo}.py``.\n"
        '"""\n\nfrom __future__ import annotations\n\n__all__: list[str] = []\n',
        encoding="utf-8")
    (raiz / "tests" / f"test_exercises_{modulo}.py").write_text(
        f'"""Capítulo {int(nn)}: la solución de cada comprobador de '
        f"resnorm/exercises/{modulo}.py\n"
        "(``SOLUTIONS``: pares comprobador, solución) y sus errores típicos "
        "(``MISTAKES``); el\ncontrato de todos lo prueba tests/test_exercises.py.\n"
        '"""\n\nfrom __future__ import annotations\n\n'
        f"from resnorm.exercises import {modulo}  # noqa: F401\n\n"
        "SOLUTIONS = []\nMISTAKES = []\n",
        encoding="utf-8")
    init = raiz / "resnorm" / "exercises" / "__init__.py"
    texto = init.read_text(encoding="utf-8")
    modulos = sorted(set(re.findall(r"^    (ch\d\d),$", texto, re.M)) | {modulo})
    texto = re.sub(r"(?m)^from resnorm\.exercises import \(\n(?:    ch\d\d,\n)+\)",
                   "from resnorm.exercises import (\n"
                   + "".join(f"    {m},\n" for m in modulos) + ")", texto)
    texto = re.sub(r"(?m)(?:^from resnorm\.exercises\.ch\d\d import \*.*\n)+",
                   "".join(f"from resnorm.exercises.{m} import *  # noqa: F403\n"
                           for m in modulos), texto)
    tupla = textwrap.fill(", ".join(modulos) + ")", width=88,
                          initial_indent="CHAPTERS = (", subsequent_indent=" " * 12)
    texto = re.sub(r"(?m)^CHAPTERS = \([^)]*\)", lambda _: tupla, texto)
    init.write_text(texto, encoding="utf-8")


def _preguntas(raiz: Path, nn: str, nombre: str, titulo: str) -> None:
    banco = raiz / "resnorm" / "quiz" / "bank.py"
    texto = banco.read_text(encoding="utf-8")
    funcion = f"_ch{nn}_{nombre}"
    texto = texto.replace(
        "\n# Clave estable",
        f'\ndef {funcion}():\n    """Las preguntas del Capítulo {int(nn)}: bloque → '
        'preguntas (al menos tres,\n    una de predicción)."""\n    return {}\n\n'
        "\n# Clave estable", 1)
    entradas = list(re.finditer(r'(?m)^    "\w+": \("(\w+)", .*\n', texto))
    numeros = {p.stem[3:]: p.stem[:2] for p in (raiz / "notebooks").glob("*.ipynb")}
    antes = [m for m in entradas if numeros.get(m[1], "99") < nn]
    donde = antes[-1].end() if antes else entradas[0].start()
    entrada = f'    "{nombre}": ("{nombre}", {json.dumps(titulo, ensure_ascii=False)},'
    entrada += f" {funcion}),\n" if len(entrada) + len(funcion) < 86 else (
        f"\n{' ' * (len(nombre) + 8)}{funcion}),\n")
    banco.write_text(texto[:donde] + entrada + texto[donde:], encoding="utf-8")


def nuevo_capitulo(raiz: Path, nn: str, nombre: str, titulo: str = "") -> str:
    """Crea el capítulo ``NN_nombre`` en borrador; devuelve su documento."""
    raiz = Path(raiz)
    if not re.fullmatch(r"\d\d", nn):
        raise SystemExit(f"NN={nn!r}: el número va con dos cifras (NN=13)")
    if not re.fullmatch(r"[a-z][a-z0-9_]*", nombre):
        raise SystemExit(f"NOMBRE={nombre!r}: minúsculas sin tildes, cifras y «_» "
                         "(NOMBRE=atencion_causal)")
    doc = f"notebooks/{nn}_{nombre}"
    titulo = titulo or nombre.replace("_", " ").capitalize()
    ocupados = [p.name for p in (raiz / "notebooks").glob(f"{nn}_*.ipynb")]
    ocupados += [p.relative_to(raiz).as_posix() for p in (
        raiz / "resnorm" / "exercises" / f"ch{nn}.py",
        raiz / "tests" / f"test_exercises_ch{nn}.py") if p.exists()]
    if ocupados:
        raise SystemExit(f"El número {nn} ya lo usa {', '.join(ocupados)}: elige el "
                         "siguiente libre, o renombra antes los que van detrás")
    if re.search(rf'(?m)^    "{nombre}": \(|^    "\w+": \("{nombre}",',
                 (raiz / "resnorm" / "quiz" / "bank.py").read_text(encoding="utf-8")):
        raise SystemExit(f"NOMBRE={nombre}: ya es un capítulo de resnorm/quiz/bank.py")

    _notebook(raiz, doc, titulo)
    _insertar(raiz / "_toc.yml", _TOC, nn,
              lambda vecina: f"{_TOC.match(vecina)[1]}- file: {doc}\n")
    for tabla in TABLAS:
        _insertar(raiz / tabla, _FILA, nn, lambda vecina: (
            f"| {{doc}}`../{doc}` | {PENDIENTE} de qué trata | "
            f"{{tiempo}}`../{doc}` |\n"))
    with (raiz / "tests" / "expected_values.toml").open("a", encoding="utf-8") as f:
        f.write(f'\n["{nn}_{nombre}"]\n# nombre = {{ value = …, tol = …, '
                'source = "de dónde sale" }\n')
    _comprobadores(raiz, nn, titulo)
    _preguntas(raiz, nn, nombre, titulo)
    return doc


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nn", help="el número del capítulo, con dos cifras")
    parser.add_argument("nombre", help="el nombre del archivo, sin número")
    parser.add_argument("--titulo", default="", help="el título (si no, del nombre)")
    args = parser.parse_args(argv)
    doc = nuevo_capitulo(RAIZ, args.nn, args.nombre, args.titulo)
    print(f"{doc}.ipynb creado en borrador (\"{BORRADOR}\": true en sus metadatos).\n"
          "Escritos también: _toc.yml, " + ", ".join(TABLAS) + ",\n"
          "  tests/expected_values.toml, resnorm/exercises/"
          f"ch{args.nn}.py y __init__.py,\n"
          f"  tests/test_exercises_ch{args.nn}.py, resnorm/quiz/bank.py.\n"
          "Qué llenar y cómo publicarlo: README.md, «Añadir un capítulo».")


if __name__ == "__main__":
    sys.exit(main())
