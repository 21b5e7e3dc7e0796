"""Núcleos de Jupyter que nacen con torch, numpy, matplotlib y resnorm ya importados.

Cada notebook del curso se ejecuta en su propio núcleo, y cada núcleo nuevo gasta
≈ 2 s de CPU en lo mismo antes de su primera celda: arrancar ipykernel e importar
torch (≈ 1,4 s), matplotlib y resnorm. Con doce notebooks y dos núcleos de CPU, eso
es un cuarto del paso del libro en frío.

Aquí un proceso *servidor* importa todo eso una vez y, por cada núcleo que pide
jupyter_client, se bifurca (``fork``): el hijo es un núcleo ipykernel normal, que
comparte con el servidor las páginas de memoria ya importadas. Para jupyter_client
nada cambia: la especificación de núcleo ``python3`` (en una carpeta temporal que se
antepone a ``JUPYTER_PATH``) lanza un *lanzador* pequeño que le pide el núcleo al
servidor por un socket UNIX y vive lo que vive el núcleo:

* le pasa al servidor sus argumentos (``-f <archivo de conexión>``), su carpeta de
  trabajo, su entorno y su entrada y salidas estándar (descriptores por el socket);
* reenvía al núcleo las señales que recibe (interrumpir es SIGINT);
* termina cuando el núcleo termina (el socket se cierra), y si alguien lo mata, el
  núcleo lo nota (el mismo socket se cierra) y termina también.

El hijo empieza como empezaría ``python -m ipykernel_launcher``: su carpeta, su
entorno, sus argumentos y las señales por defecto. Lo único heredado son los módulos
importados, que no guardan estado del cálculo: cada notebook fija sus semillas, y
ningún módulo de resnorm cambia nada al importarse. La prueba de determinismo
(``tests/test_numbers.py``) compara los valores de la construcción, ejecutada así,
con los de una ejecución en un núcleo nuevo; ``tests/test_nucleo_precargado.py``
prueba el núcleo mismo (carpeta, entorno, errores, interrumpir, morir con su
lanzador).

Uso (lo hace ``tools/ejecutar_notebooks.py``)::

    with preloaded_kernels():
        ...  # todo núcleo «python3» que se lance aquí dentro sale del servidor

Fuera de Linux, o si el servidor no arranca, no cambia nada: los núcleos son los de
siempre.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import pkgutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading

# Lo que importa el servidor antes de bifurcarse: lo que importa todo núcleo al
# arrancar (ipykernel) y lo que importan los notebooks del curso (resnorm, con todos
# sus submódulos).
PRELOAD = ("numpy", "torch", "matplotlib.pyplot", "ipykernel.kernelapp")
PRELOAD_PACKAGES = ("resnorm",)
READY = b"listo\n"
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
MAX_MESSAGE = 1 << 20


def _import_package(name: str) -> None:
    """Importa el paquete ``name`` y todos sus submódulos."""
    package = importlib.import_module(name)
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
        importlib.import_module(info.name)


def _start_kernel(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """En el hijo: se convierte en ``python -m ipykernel_launcher`` y no vuelve."""
    status = 1
    try:
        for sig in (signal.SIGCHLD, *FORWARDED_SIGNALS):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        # El padre del núcleo es el servidor: si muere, el núcleo termina (el vigía
        # de ipykernel). Va también en los argumentos porque ipykernel lee la variable
        # al importarse, y aquí ya estaba importado.
        os.environ["JPY_PARENT_PID"] = str(os.getppid())
        sys.argv = ["ipykernel_launcher", *request["argv"],
                    f"--IPKernelApp.parent_handle={os.getppid()}"]
        # Como ipykernel_launcher: sin la carpeta del script (init_path pone la de
        # trabajo).
        del sys.path[0]

        def exit_with_launcher() -> None:
            # El lanzador no escribe nada más: si el socket se cierra, ha muerto.
            while conn.recv(1):
                pass
            os._exit(1)

        threading.Thread(target=exit_with_launcher, daemon=True).start()
        from ipykernel import kernelapp

        kernelapp.launch_new_instance()
        status = 0
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)


def _reap_children(_signum, _frame) -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def serve(path: str) -> None:
    """El servidor: importa ``PRELOAD``, escucha en ``path`` y bifurca un núcleo por
    petición. Escribe ``READY`` en su salida estándar cuando ya puede atender."""
    # Lo que ipykernel haría al arrancar, antes de que matplotlib lea su backend.
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    for name in PRELOAD:
        importlib.import_module(name)
    for name in PRELOAD_PACKAGES:
        _import_package(name)
    # Cada núcleo que termina se recoge (sin zombis), y su CPU cuenta en la del
    # servidor y, al terminar este, en la de quien lo lanzó (``make``, el banco).
    signal.signal(signal.SIGCHLD, _reap_children)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    sys.stdout.buffer.write(READY)
    sys.stdout.flush()
    while True:
        conn, _ = listener.accept()
        try:
            message, fds, _, _ = socket.recv_fds(conn, MAX_MESSAGE, 3)
            request = json.loads(message)
        except (OSError, ValueError):
            conn.close()
            continue
        pid = os.fork()
        if pid == 0:
            listener.close()
            _start_kernel(conn, request, fds)
        for fd in fds:
            os.close(fd)
        with contextlib.suppress(OSError):
            conn.sendall(f"{pid}\n".encode())
        conn.close()


def _standard_streams() -> list[int]:
    """Los descriptores 0, 1 y 2 del lanzador; los cerrados, cambiados por /dev/null."""
    fds = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            fd = os.open(os.devnull, os.O_RDWR)
        fds.append(fd)
    return fds


def launch(path: str, argv: list[str]) -> int:
    """El lanzador: pide un núcleo al servidor y vive lo que viva ese núcleo."""
    env = dict(os.environ)
    request = {"argv": argv, "cwd": os.getcwd(), "env": env}
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    socket.send_fds(conn, [json.dumps(request).encode()], _standard_streams())
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = conn.recv(64)
        if not chunk:
            return 1
        reply += chunk
    pid = int(reply)

    def forward(signum, _frame) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)

    for sig in FORWARDED_SIGNALS:
        signal.signal(sig, forward)
    while True:
        try:
            if not conn.recv(64):
                return 0
        except InterruptedError:
            continue


@contextlib.contextmanager
def preloaded_kernels(timeout: float = 60.0):
    """Mientras dura el bloque, el núcleo ``python3`` sale del servidor precargado.

    Arranca el servidor, escribe la especificación de núcleo en una carpeta temporal y
    la antepone a ``JUPYTER_PATH`` (los procesos que se creen dentro la heredan). Si
    el servidor no llega a estar listo, avisa y deja los núcleos de siempre.
    """
    if not hasattr(os, "fork") or not hasattr(socket, "send_fds"):
        yield False
        return
    with tempfile.TemporaryDirectory(prefix="nucleos-") as tmp:
        path = os.path.join(tmp, "servidor.sock")
        env = dict(os.environ)
        for name in ("JPY_PARENT_PID", "JPY_INTERRUPT_EVENT"):
            env.pop(name, None)
        server = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "servir", path],
            stdout=subprocess.PIPE, env=env, start_new_session=True,
        )
        ready = _wait_ready(server, timeout)
        if not ready:
            print("Aviso: el servidor de núcleos precargados no arrancó; se usan "
                  "núcleos nuevos.", file=sys.stderr)
        saved = os.environ.get("JUPYTER_PATH")
        try:
            if ready:
                spec = os.path.join(tmp, "kernels", "python3")
                os.makedirs(spec)
                with open(os.path.join(spec, "kernel.json"), "w") as fh:
                    json.dump({
                        "argv": [sys.executable, os.path.abspath(__file__), "lanzar",
                                 path, "-f", "{connection_file}"],
                        "display_name": "Python 3 (precargado)",
                        "language": "python",
                        "interrupt_mode": "signal",
                    }, fh)
                os.environ["JUPYTER_PATH"] = os.pathsep.join(
                    p for p in (tmp, saved) if p)
            yield ready
        finally:
            if saved is None:
                os.environ.pop("JUPYTER_PATH", None)
            else:
                os.environ["JUPYTER_PATH"] = saved
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _wait_ready(server: subprocess.Popen, timeout: float) -> bool:
    """¿Escribió el servidor ``READY`` antes de ``timeout`` segundos?"""
    result = []
    reader = threading.Thread(
        target=lambda: result.append(server.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return bool(result) and result[0] == READY


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "servir":
        serve(argv[1])
        return 0
    if len(argv) >= 2 and argv[0] == "lanzar":
        return launch(argv[1], argv[2:])
    print(__doc__.strip().splitlines()[0], file=sys.stderr)
    print("Uso: nucleo_precargado.py servir SOCKET | lanzar SOCKET -f CONEXIÓN",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
