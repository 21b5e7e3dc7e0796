"""«make publish»: el sitio a la rama gh-pages y los cuadernos del alumno a la rama de
los cuadernos de un remoto (REMOTE, por defecto origin), con git de fontanería.

Publica solo lo que se puede reproducir: un árbol de trabajo sin cambios, cuya
construcción (``_build/construccion.json``, la escribe book/_ext/cuadernos.py al
terminar) y cuyas pruebas (``_build/pruebas.json``, la escribe «make test» al
terminar, con ``--sellar-pruebas``) son de HEAD. Si no, se niega y dice por qué.

La rama de los cuadernos es también lo que construye el botón de Binder: lleva
``binder/`` (como ``.binder/``) y ``.binder/fuente``, el repositorio y el commit
fuente, de los que binder/postBuild instala resnorm: Binder usa el resnorm de la
publicación, no el de la cabeza de una rama que sigue avanzando.

Cada rama recibe un commit por publicación, que nombra el commit fuente, encima del
que ya tenga el remoto; si el árbol publicado no cambia, ningún commit. El árbol se
escribe con un índice temporal (``GIT_INDEX_FILE``, ``hash-object``, ``write-tree``,
``commit-tree``) y se empuja por su SHA: no hay checkout ni se toca el árbol ni el
índice de quien publica, y basta git 2.39 (sin ``worktree add --orphan``). Ni
ghp-import ni otra dependencia: solo la biblioteca estándar y git.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CONSTRUCCION = Path("_build/construccion.json")
PRUEBAS = Path("_build/pruebas.json")
REGISTRO = Path("_build/book.log")
#: La última línea de _build/book.log cuando la construcción terminó bien (Makefile).
CONSTRUIDO = "Libro construido en"
SITIO = Path("_build/html")
RAMA_SITIO = "gh-pages"  # la que sirve GitHub Pages
#: Lo que Sphinx deja en la salida para sí (la huella de su configuración).
FUERA_DEL_SITIO = {".buildinfo"}
#: La carpeta que lee Binder (repo2docker), que va también a la rama de los cuadernos:
#: el botón de Binder construye esa rama. Allí se llama .binder (repo2docker lee las
#: dos), que el explorador de Lab no muestra: el hub trae la rama entera con
#: nbgitpuller a la carpeta de quien aprende.
BINDER = Path("binder")
BINDER_CUADERNOS = ".binder"
#: «REPOSITORIO COMMIT»: de dónde instala resnorm binder/postBuild en esa rama (el
#: commit fuente de la publicación, el mismo que la primera celda de cada cuaderno).
FUENTE = f"{BINDER_CUADERNOS}/fuente"


class Rechazo(Exception):
    """Por qué no se publica (en español, para quien ejecuta «make publish»)."""


def git(raiz: Path, *args: str, entrada: str | None = None,
        env: dict | None = None) -> str:
    resultado = subprocess.run(
        ["git", "-C", str(raiz), *args], input=entrada, capture_output=True,
        text=True, env={**os.environ, **(env or {})})
    if resultado.returncode != 0:
        raise Rechazo(f"git {' '.join(args[:2])} falló:\n{resultado.stderr.strip()}")
    return resultado.stdout.strip()


def estado(raiz: Path) -> tuple[str, bool]:
    """(commit de HEAD, si el árbol de trabajo está limpio)."""
    cambios = git(raiz, "status", "--porcelain", "--untracked-files=normal")
    return git(raiz, "rev-parse", "HEAD"), not cambios


def sellar_pruebas(raiz: Path, codigo: int) -> None:
    """Lo que «make test» deja al terminar: de qué commit y cómo acabó."""
    commit, limpio = estado(raiz)
    (raiz / PRUEBAS).parent.mkdir(exist_ok=True)
    (raiz / PRUEBAS).write_text(json.dumps(
        {"commit": commit, "limpio": limpio, "codigo": codigo}) + "\n")


def leer(ruta: Path) -> dict | None:
    try:
        return json.loads(ruta.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def corto(commit: str | None) -> str:
    return (commit or "?")[:12]


def comprobar(raiz: Path) -> dict:
    """La construcción que se puede publicar (su sello) o ``Rechazo``."""
    head, limpio = estado(raiz)
    if not limpio:
        cambios = git(raiz, "status", "--porcelain").splitlines()
        lista = "\n".join(f"  {c}" for c in cambios[:10])
        raise Rechazo(
            "No se publica un árbol con cambios sin commit: lo publicado no saldría "
            f"de ningún commit.\n{lista}\nHaz commit (o descártalos), y después "
            "«make test».")
    construccion = leer(raiz / CONSTRUCCION)
    registro = (raiz / REGISTRO).read_text(encoding="utf-8").strip().splitlines() \
        if (raiz / REGISTRO).is_file() else []
    if construccion is None or not (raiz / SITIO / "index.html").is_file():
        raise Rechazo(f"No hay construcción que publicar ({SITIO}, {CONSTRUCCION}): "
                      "ejecuta «make test», que construye el libro y lo prueba.")
    if not registro or not registro[-1].startswith(CONSTRUIDO):
        raise Rechazo(f"La última construcción falló ({REGISTRO}): arréglala y "
                      "ejecuta «make test».")
    if construccion.get("fuente") != head or not construccion.get("limpio"):
        de = corto(construccion.get("fuente")) + (
            "" if construccion.get("limpio") else " con cambios sin commit")
        raise Rechazo(f"La construcción de {SITIO} es de {de}, no de HEAD "
                      f"({corto(head)}): ejecuta «make test», que la rehace.")
    pruebas = leer(raiz / PRUEBAS)
    if pruebas is None:
        raise Rechazo(f"No consta ninguna ejecución de «make test» ({PRUEBAS}): "
                      "ejecútalo antes de publicar.")
    if pruebas.get("commit") != head:
        raise Rechazo(f"Las pruebas que constan son de {corto(pruebas.get('commit'))}"
                      f", no de HEAD ({corto(head)}): ejecuta «make test».")
    if not pruebas.get("limpio"):
        raise Rechazo("Las pruebas de HEAD que constan se ejecutaron con cambios sin "
                      "commit: ejecuta «make test» otra vez.")
    if pruebas.get("codigo") != 0:
        raise Rechazo(f"«make test» falló en {corto(head)} (código "
                      f"{pruebas.get('codigo')}): no se publica un libro que no pasa "
                      "sus pruebas.")
    return construccion


def archivos_de(carpeta: Path, patron: str = "**/*") -> dict[str, Path]:
    """Ruta en la rama → archivo, de ``carpeta`` (sin lo que Sphinx guarda para sí)."""
    return {p.relative_to(carpeta).as_posix(): p
            for p in sorted(carpeta.glob(patron))
            if p.is_file() and p.name not in FUERA_DEL_SITIO}


def arbol(raiz: Path, archivos: dict[str, Path],
          textos: dict[str, str] | None = None) -> str:
    """El árbol de git de ``archivos`` (y de ``textos``: ruta → contenido), escrito
    con un índice temporal: el índice de quien publica no cambia."""
    rutas = list(archivos)
    blobs = git(raiz, "hash-object", "-w", "--stdin-paths", "--no-filters",
                entrada="\n".join(str(archivos[r].resolve()) for r in rutas) + "\n"
                ).splitlines() if rutas else []
    lineas = [f"{'100755' if os.access(archivos[r], os.X_OK) else '100644'} {b}\t{r}"
              for r, b in zip(rutas, blobs)]
    for nombre, texto in (textos or {}).items():
        if nombre not in archivos:
            blob = git(raiz, "hash-object", "-w", "--stdin", entrada=texto)
            lineas.append(f"100644 {blob}\t{nombre}")
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(raiz, "update-index", "--add", "--index-info",
            entrada="\n".join(lineas) + "\n", env=env)
        return git(raiz, "write-tree", env=env)


def identidad(raiz: Path) -> dict[str, str]:
    """Quien firma la publicación: la de git si la hay; si no (una CI sin
    configurar), quien hizo el commit fuente."""
    env = {}
    for clave, campo in (("name", "%cn"), ("email", "%ce")):
        try:
            git(raiz, "config", f"user.{clave}")
        except Rechazo:
            valor = git(raiz, "log", "-1", f"--format={campo}", "HEAD")
            env[f"GIT_AUTHOR_{clave.upper()}"] = env[
                f"GIT_COMMITTER_{clave.upper()}"] = valor
    return env


def publicar_rama(raiz: Path, remoto: str, rama: str, arbol_sha: str,
                  mensaje: str) -> str | None:
    """Un commit con ``arbol_sha`` encima de ``rama`` de ``remoto``, empujado; None si
    la rama ya tiene ese árbol."""
    padre = git(raiz, "ls-remote", "--heads", remoto, f"refs/heads/{rama}").split()
    args = []
    if padre:
        git(raiz, "fetch", "--quiet", "--no-tags", remoto, f"refs/heads/{rama}")
        if git(raiz, "rev-parse", "FETCH_HEAD^{tree}") == arbol_sha:
            return None
        args = ["-p", git(raiz, "rev-parse", "FETCH_HEAD")]
    commit = git(raiz, "commit-tree", arbol_sha, *args, "-m", mensaje,
                 env=identidad(raiz))
    git(raiz, "push", "--quiet", remoto, f"{commit}:refs/heads/{rama}")
    return commit


def publicar(raiz: Path, remoto: str) -> None:
    construccion = comprobar(raiz)
    fuente = construccion["fuente"]
    titulo = git(raiz, "log", "-1", "--format=%s", fuente)
    cuadernos = archivos_de(raiz / SITIO / "cuadernos", "*.ipynb")
    if not cuadernos:
        raise Rechazo(f"No hay cuadernos del alumno en {SITIO}/cuadernos.")
    # El entorno de Binder de la rama de los cuadernos: binder/ del commit fuente (el
    # árbol está limpio y es HEAD, que es ese commit: comprobar() lo exige) y de dónde
    # instalar resnorm.
    binder = {f"{BINDER_CUADERNOS}/{ruta}": archivo
              for ruta, archivo in archivos_de(raiz / BINDER).items()}
    fuente_binder = {FUENTE: f"{construccion['repositorio']} {fuente}\n"} \
        if construccion.get("repositorio") else {}
    ramas = [
        (RAMA_SITIO, "el sitio", arbol(raiz, archivos_de(raiz / SITIO),
                                       textos={".nojekyll": ""})),
        (construccion["rama_cuadernos"], "los cuadernos del alumno",
         arbol(raiz, cuadernos | binder, textos=fuente_binder)),
    ]
    for rama, que, arbol_sha in ramas:
        mensaje = (f"Publica {que} de {fuente[:7]} ({titulo})\n\n"
                   f"Construido y probado desde el commit {fuente}.\n")
        commit = publicar_rama(raiz, remoto, rama, arbol_sha, mensaje)
        if commit is None:
            print(f"{rama}: sin cambios ({que} de {fuente[:7]} ya está publicado)")
        else:
            print(f"{rama}: publicado {commit[:7]} ({que} de {fuente[:7]})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remoto", default="origin",
                        help="nombre o URL del remoto (REMOTE en el Makefile)")
    parser.add_argument("--raiz", type=Path, default=Path.cwd(),
                        help="el repositorio del libro (la carpeta actual)")
    parser.add_argument("--sellar-pruebas", type=int, metavar="CODIGO",
                        help="anota cómo terminó «make test» en HEAD y sale")
    args = parser.parse_args(argv)
    try:
        if args.sellar_pruebas is not None:
            sellar_pruebas(args.raiz, args.sellar_pruebas)
        else:
            publicar(args.raiz, args.remoto)
    except Rechazo as rechazo:
        print(f"make publish: no se publica.\n{rechazo}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
