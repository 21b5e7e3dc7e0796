"""Núcleos de Jupyter que nacen con las bibliotecas ya importadas (un «fork server»).

«make book» ejecuta doce notebooks, cada uno en un núcleo nuevo: un proceso de Python
que, antes de su primera celda, arranca ipykernel e importa NumPy, torch, matplotlib,
Pillow y los widgets; ≈ 3–4 s de CPU cada vez, lo mismo doce veces. Aquí un solo
proceso (``servir``) lo importa una vez y, para cada núcleo que pide el ejecutor, se
bifurca (``os.fork``): el hijo es un núcleo nuevo, con su propio proceso, su espacio
de nombres vacío y sin nada de resnorm importado, que encuentra esas bibliotecas ya
en memoria. Las cuentas no cambian: importar no calcula nada (el estado aleatorio de
torch al importarse es fijo; el de ``random`` se vuelve a sembrar en el hijo; los
notebooks fijan sus semillas).

Piezas:

- ``servir CARPETA``: escribe en ``CARPETA/kernels/python3`` la especificación del
  núcleo «python3» (el nombre que llevan los notebooks) y atiende en
  ``CARPETA/s``. El ejecutor la encuentra con ``JUPYTER_PATH=CARPETA``.
- La especificación lanza este archivo (``python -S``, sin importar nada de fuera de
  la biblioteca estándar): el proceso que ve el gestor de núcleos de Jupyter. Pide
  un núcleo al servidor, le pasa su entrada y salida estándar, reenvía al hijo las
  señales que recibe (interrumpir, terminar) y termina con su código de salida. Si
  muere sin avisar (``SIGKILL``), el hijo lo nota y termina también. Sin servidor
  (el socket no está), se convierte en el núcleo de siempre
  (``python -m ipykernel_launcher``).

El servidor es hijo de quien lo arranca y espera a cada núcleo (``waitpid``): la CPU
de los núcleos cuenta en la de la construcción (``make bench``).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

SOCKET = "s"
#: Lo que importa casi todo notebook del curso antes de calcular (y ipykernel).
PRELOAD = ("ipykernel.kernelapp", "numpy", "torch", "matplotlib.pyplot", "PIL.Image",
           "PIL.PngImagePlugin", "ipywidgets", "anywidget", "IPython.display")
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT,
           signal.SIGUSR1, signal.SIGUSR2)


def kernelspec(folder: str) -> None:
    """La especificación «python3» que lanza este archivo con el servidor de
    ``folder``."""
    spec = os.path.join(folder, "kernels", "python3")
    os.makedirs(spec, exist_ok=True)
    argv = [sys.executable, "-S", os.path.abspath(__file__), "-f", "{connection_file}"]
    with open(os.path.join(spec, "kernel.json"), "w", encoding="utf-8") as fh:
        json.dump({"argv": argv, "display_name": "Python 3 (ipykernel)",
                   "language": "python", "env": {"RESNORM_NUCLEOS": folder}}, fh)


def _exit_code(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _run_kernel(request: dict) -> int:
    """En el hijo: el núcleo, como ``python -m ipykernel_launcher ARGS``."""
    import atexit
    import select
    import traceback

    # Su propia sesión, como el núcleo que lanza Jupyter (start_new_session): con los
    # grupos automáticos del planificador de Linux, una sesión es un grupo que reparte
    # la CPU con los demás; en la del servidor, los núcleos compartían uno solo.
    os.setsid()
    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(request["cwd"])
    sys.path[0] = request["cwd"]  # como «python -m»: la carpeta de trabajo
    os.environ.clear()
    os.environ.update(request["env"])
    # ipykernel lee JPY_PARENT_PID al importarse (en el servidor, sin ella): vigilar
    # al padre lo hace ``watch``, y 1 le dice que no vigile ni avise de Ctrl-C.
    sys.argv = ["ipykernel_launcher", *request["argv"], "--IPKernelApp.parent_handle=1"]
    watched = os.pidfd_open(request["pid"])

    def watch():  # si el proceso que ve Jupyter muere, el núcleo también
        select.select([watched], [], [])
        os._exit(1)

    import threading

    threading.Thread(target=watch, daemon=True).start()
    code = 0
    try:
        from ipykernel import kernelapp

        kernelapp.launch_new_instance()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001  (lo que fuera, dicho en stderr)
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfuncs()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return code


def serve(folder: str) -> None:
    """El servidor: importa ``PRELOAD`` y bifurca un núcleo por petición."""
    import importlib
    import selectors

    # Terminar (make, al acabar el ejecutor) es salir bien, también a media carga.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    path = os.path.join(folder, SOCKET)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)  # antes de importar: las peticiones esperan en la cola
    server.listen(16)
    children: dict[int, tuple[int, socket.socket]] = {}  # pidfd → (pid, conexión)
    try:
        kernelspec(folder)
        for name in PRELOAD:
            importlib.import_module(name)
        selector = selectors.DefaultSelector()
        selector.register(server, selectors.EVENT_READ, None)
        while True:
            for key, _ in selector.select():
                if key.data is None:
                    conn, _ = server.accept()
                    message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
                    request = json.loads(message)
                    sys.stdout.flush()
                    sys.stderr.flush()
                    pid = os.fork()
                    if pid == 0:
                        for other in children:
                            os.close(other)
                        selector.close()
                        server.close()
                        conn.close()
                        for fd, std in zip(fds, (0, 1, 2)):
                            os.dup2(fd, std)
                            os.close(fd)
                        os._exit(_run_kernel(request))
                    for fd in fds:
                        os.close(fd)
                    conn.sendall(f"{pid}\n".encode())
                    pidfd = os.pidfd_open(pid)
                    children[pidfd] = (pid, conn)
                    selector.register(pidfd, selectors.EVENT_READ, pid)
                else:
                    pidfd = key.fd
                    pid, conn = children.pop(pidfd)
                    selector.unregister(pidfd)
                    os.close(pidfd)
                    _, status = os.waitpid(pid, 0)
                    try:
                        conn.sendall(f"{_exit_code(status)}\n".encode())
                    except OSError:
                        pass
                    conn.close()
    finally:
        for pid, conn in children.values():  # al terminar, ningún núcleo huérfano
            try:
                os.kill(pid, signal.SIGTERM)
                os.waitpid(pid, 0)
            except OSError:
                pass
        server.close()
        os.unlink(path)
        # Sin deshacer torch y compañía al salir (segundos de CPU con la máquina
        # cargada): no queda nada que guardar.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def launch(argv: list[str]) -> int:
    """El proceso que lanza Jupyter: pide el núcleo y espera a que termine."""
    folder = os.environ.get("RESNORM_NUCLEOS", "")
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        client.connect(os.path.join(folder, SOCKET))
    except OSError:  # sin servidor: el núcleo de siempre
        client.close()
        os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv])
    env = {k: v for k, v in os.environ.items() if k != "RESNORM_NUCLEOS"}
    request = {"argv": argv, "cwd": os.getcwd(), "env": env, "pid": os.getpid()}
    socket.send_fds(client, [json.dumps(request).encode()], [0, 1, 2])
    reader = client.makefile("r")
    pid = int(reader.readline())
    for sig in SIGNALS:
        signal.signal(sig, lambda signum, _: os.kill(pid, signum))
    while True:
        try:
            line = reader.readline()
            break
        except InterruptedError:
            continue
    return int(line) if line.strip() else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["servir"]:
        serve(sys.argv[2])
    else:
        sys.exit(launch(sys.argv[1:]))
