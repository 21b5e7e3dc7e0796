"""¿Cuánto cuesta normalizar? Pasadas por memoria y tiempos de LayerNorm y RMSNorm.

Apéndice: ¿Cuánto cuesta normalizar? El mismo código lo usa ``python -m bench``.

LayerNorm y RMSNorm hacen muy pocas cuentas por cada número que leen: en una GPU su
coste lo marca cuántas veces recorren la memoria, no cuántas operaciones hacen (en una
CPU con un solo hilo, las cuentas también pesan: lo mide ``measure_norms``). Una
*pasada* es una operación que recorre el array completo de forma (N, d); su *tráfico*
son los arrays completos que lee más los que escribe. Una copia ``y = x`` es una pasada
con tráfico 2 (lee x, escribe y): es el límite, porque cualquier normalización tiene
que leer x y escribir y al menos una vez.

Todas las funciones devuelven datos planos (números, dicts y listas), listos para
una tabla o un JSON. torch se importa solo dentro de las funciones que lo usan.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

import numpy as np

# La figura vive con las demás en resnorm.plots; el capítulo la importa de aquí.
from resnorm.plots import plot_bandwidth

__all__ = [
    "FUSED",
    "METHODS",
    "count_sweeps",
    "copy_limit",
    "count_torch_sweeps",
    "describe_bandwidth",
    "effective_gbps",
    "measure_norms",
    "minimum_bytes",
    "naive_layer_norm",
    "naive_rms_norm",
    "plot_bandwidth",
    "rows_by_method",
    "sweep_counts",
    "table_text",
    "time_once",
]

#: Una implementación fusionada (el núcleo de ``torch.nn.functional.layer_norm`` en
#: CPU): cada fila se lee de memoria una vez, se normaliza mientras está en la caché
#: y se escribe una vez. Mismo tráfico que una copia.
FUSED = {"sweeps": 1, "reads": 1, "writes": 1, "arrays": 2}


# --- Las recetas ingenuas: una operación de NumPy por línea -------------------------


def naive_layer_norm(x, eps=1e-5):
    """LayerNorm sin γ ni β, una operación de NumPy por paso: y = (x − μ)/√(σ² + ε).

    Apéndice: ¿Cuánto cuesta normalizar?

    Formas: ``x`` (..., d) → y (..., d); μ y σ² (poblacional, dos pasadas) por fila.
    Cada línea recorre el array entero: 5 pasadas, tráfico 8 (lee 5 arrays completos
    y escribe 3). Da lo mismo que ``resnorm.layer_norm`` con números normales, sin
    sus comprobaciones ni su protección contra desbordamientos.
    """
    d = x.shape[-1]
    mu = np.add.reduce(x, axis=-1, keepdims=True) / d  # lee x
    centered = x - mu  # lee x, escribe x − μ
    squared = centered * centered  # lee x − μ, escribe (x − μ)²
    var = np.add.reduce(squared, axis=-1, keepdims=True) / d  # lee (x − μ)²
    return centered / np.sqrt(var + eps)  # lee x − μ, escribe y


def naive_rms_norm(x, eps=None):
    """RMSNorm sin γ, una operación de NumPy por paso: y = x / √(mean(x²) + ε).

    Apéndice: ¿Cuánto cuesta normalizar?

    Formas: ``x`` (..., d) → y (..., d). ``eps=None`` usa ``finfo(x.dtype).eps``,
    como ``torch.nn.functional.rms_norm``. No resta la media: 3 pasadas, tráfico 5
    (lee 3 arrays completos y escribe 2).
    """
    if eps is None:
        eps = float(np.finfo(x.dtype).eps)
    d = x.shape[-1]
    squared = x * x  # lee x, escribe x²
    mean_sq = np.add.reduce(squared, axis=-1, keepdims=True) / d  # lee x²
    return x / np.sqrt(mean_sq + eps)  # lee x, escribe y


# --- Contar pasadas -----------------------------------------------------------------


def sweep_counts(ops: list[dict]) -> dict[str, Any]:
    """Resume una lista de operaciones ``{"op", "reads", "writes"}`` en un recuento.

    Apéndice: ¿Cuánto cuesta normalizar?

    Devuelve ``{"sweeps": pasadas, "reads": arrays leídos, "writes": arrays escritos,
    "arrays": lecturas + escrituras (el tráfico), "ops": nombres en orden}``.
    """
    reads = sum(op["reads"] for op in ops)
    writes = sum(op["writes"] for op in ops)
    return {
        "sweeps": len(ops),
        "reads": reads,
        "writes": writes,
        "arrays": reads + writes,
        "ops": [op["op"] for op in ops],
    }


def _record(log: list, size: int, name: str, inputs, outputs) -> None:
    """Apunta una operación si toca algún array completo (``size`` elementos o más)."""
    if log is None:
        return
    seen = set()
    for a in inputs:
        if isinstance(a, np.ndarray) and a.size >= size:
            seen.add((a.__array_interface__["data"][0], a.shape, a.strides))
    writes = sum(1 for a in outputs if isinstance(a, np.ndarray) and a.size >= size)
    if seen or writes:
        log.append({"op": name, "reads": len(seen), "writes": writes})


class _Traced(np.ndarray):
    """Un ndarray que apunta cada ufunc y cada copia que lo recorre.

    Es una subclase: las funciones de NumPy (``np.mean``, ``np.var``...) la conservan
    y sus ufuncs internas también pasan por ``__array_ufunc__``.
    """

    _log: list | None = None
    _size: int = 0

    def __array_finalize__(self, obj):
        self._log = getattr(obj, "_log", None)
        self._size = getattr(obj, "_size", 0)

    def _wrap(self, result):
        if isinstance(result, np.ndarray) and not isinstance(result, _Traced):
            result = result.view(_Traced)
            result._log, result._size = self._log, self._size
        return result

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        plain = [a.view(np.ndarray) if isinstance(a, _Traced) else a for a in inputs]
        if out is not None:
            kwargs["out"] = tuple(
                o.view(np.ndarray) if isinstance(o, _Traced) else o for o in out
            )
        result = getattr(ufunc, method)(*plain, **kwargs)
        results = result if isinstance(result, tuple) else (result,)
        name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
        _record(self._log, self._size, name, plain, results)
        if out is not None:
            return out if isinstance(result, tuple) else out[0]
        if isinstance(result, tuple):
            return tuple(self._wrap(r) for r in result)
        return self._wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        if func in (np.copy, np.copyto):
            plain = [a.view(np.ndarray) if isinstance(a, _Traced) else a for a in args]
            if func is np.copy:
                result = np.copy(*plain, **kwargs)
                _record(self._log, self._size, "copy", plain, (result,))
                return self._wrap(result)
            np.copyto(*plain, **kwargs)
            _record(self._log, self._size, "copyto", plain[1:], plain[:1])
            return None
        return super().__array_function__(func, types, args, kwargs)

    def copy(self, order="C"):
        result = self.view(np.ndarray).copy(order=order)
        _record(self._log, self._size, "copy", (self.view(np.ndarray),), (result,))
        return self._wrap(result)

    def astype(self, dtype, *args, **kwargs):
        plain = self.view(np.ndarray)
        result = plain.astype(dtype, *args, **kwargs)
        if result is not plain:
            _record(self._log, self._size, "astype", (plain,), (result,))
        return self._wrap(result)


def count_sweeps(fn: Callable, x, *args, **kwargs) -> dict[str, Any]:
    """Cuenta las pasadas por memoria que hace ``fn(x, ...)`` escrita con NumPy.

    Apéndice: ¿Cuánto cuesta normalizar?

    ``x`` es un array (N, d); se le pasa a ``fn`` envuelto para que cada ufunc de
    NumPy (operaciones elemento a elemento como ``x - mu`` y reducciones como
    ``np.add.reduce`` o ``np.mean``) y cada copia (``copy``, ``astype``, ``np.copy``)
    quede apuntada si toca un array completo. Devuelve lo de ``sweep_counts``. No ve
    lo que ``fn`` haga fuera de NumPy ni lo que convierta con ``np.asarray`` (que
    quita la envoltura): para esas funciones el recuento sale por debajo.
    """
    x = np.array(x)
    log: list[dict] = []
    traced = x.view(_Traced)
    traced._log, traced._size = log, x.size
    fn(traced, *args, **kwargs)
    return sweep_counts(log)


def count_torch_sweeps(fn: Callable, x, *args, **kwargs) -> dict[str, Any]:
    """Cuenta los núcleos de ATen que recorren el tensor completo en ``fn(x, ...)``.

    Apéndice: ¿Cuánto cuesta normalizar?

    Usa un ``TorchDispatchMode``, que ve cada operación que PyTorch despacha: así se
    distingue un núcleo fusionado (``native_layer_norm``: una pasada) de una receta
    compuesta de varias operaciones (``rms_norm`` en CPU: ``pow``, ``mean``,
    ``mul``). Cada operación cuenta los tensores completos distintos que lee y si su
    resultado es completo. Devuelve lo de ``sweep_counts``.
    """
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    x = torch.as_tensor(x)
    size = x.numel()
    ops: list[dict] = []

    def full(t):
        return isinstance(t, torch.Tensor) and t.numel() >= size

    class _Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            result = func(*args, **(kwargs or {}))
            inputs = {
                (t.data_ptr(), tuple(t.shape), t.stride())
                for t in list(args) + list((kwargs or {}).values())
                if full(t)
            }
            results = result if isinstance(result, (tuple, list)) else (result,)
            writes = sum(1 for r in results if full(r))
            if inputs or writes:
                name = func.overloadpacket.__name__
                ops.append({"op": name, "reads": len(inputs), "writes": writes})
            return result

    with _Log():
        fn(x, *args, **kwargs)
    return sweep_counts(ops)


# --- Medir tiempos ------------------------------------------------------------------


def minimum_bytes(shape, itemsize: int) -> int:
    """Bytes que toda normalización mueve como mínimo: leer x y escribir y.

    Apéndice: ¿Cuánto cuesta normalizar? ``2 · N · d · itemsize``; para (4096, 1024)
    en float32, 2 · 16 MiB = 32 MiB.
    """
    return 2 * int(np.prod(shape)) * int(itemsize)


def effective_gbps(shape, itemsize: int, seconds: float) -> float:
    """GB/s efectivos: (bytes leídos + escritos, los mínimos) / tiempo / 10⁹.

    Apéndice: ¿Cuánto cuesta normalizar? Con los bytes *mínimos*
    (``minimum_bytes``), una implementación que recorre la memoria más veces de lo
    necesario sale con menos GB/s efectivos que la copia, aunque su memoria trabaje
    igual de deprisa.
    """
    return minimum_bytes(shape, itemsize) / seconds / 1e9


def _minor_faults() -> int:
    """Faltas de página menores de este hilo hasta ahora (0 si no se pueden leer)."""
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    except (ImportError, AttributeError, OSError):
        return 0


def time_once(fn: Callable) -> dict[str, float]:
    """Una llamada a ``fn()``: tiempo de reloj, de CPU del hilo y faltas de página.

    Apéndice: ¿Cuánto cuesta normalizar? Devuelve ``{"wall_s", "cpu_s", "faults"}``.
    El tiempo de CPU del hilo no cuenta los ratos en que otro proceso ocupa el
    núcleo: en una máquina compartida es la medida más estable (vale si ``fn``
    trabaja en un solo hilo, como aquí). Las faltas de página cuentan las veces que
    el sistema operativo tuvo que preparar memoria recién pedida la primera vez que
    se escribe en ella: explican por qué pedir memoria nueva cuesta.
    """
    f0, c0, w0 = _minor_faults(), time.thread_time_ns(), time.perf_counter_ns()
    fn()
    w1, c1, f1 = time.perf_counter_ns(), time.thread_time_ns(), _minor_faults()
    return {"wall_s": (w1 - w0) / 1e9, "cpu_s": (c1 - c0) / 1e9, "faults": f1 - f0}


#: Qué se mide: clave → (etiqueta en español, biblioteca, ¿es una copia?).
METHODS: dict[str, tuple[str, str, bool]] = {
    "copy_into": ("copia a un búfer", "NumPy", True),
    "copy_new": ("copia nueva (clone)", "torch", True),
    "torch_layer_norm": ("F.layer_norm (fusionada)", "torch", False),
    "torch_rms_norm": ("F.rms_norm", "torch", False),
    "naive_layer_norm": ("LayerNorm ingenua", "NumPy", False),
    "naive_rms_norm": ("RMSNorm ingenua", "NumPy", False),
    "resnorm_layer_norm": ("resnorm.layer_norm", "NumPy", False),
    "resnorm_rms_norm": ("resnorm.rms_norm", "NumPy", False),
}


def _callables(x: np.ndarray, t) -> dict[str, Callable[[], Any]]:
    import torch.nn.functional as F

    import resnorm

    d = x.shape[-1]
    buffer = np.ones_like(x)  # ya escrito una vez: sin faltas de página al copiar
    return {
        "copy_into": lambda: np.copyto(buffer, x),
        "copy_new": lambda: t.clone(),
        "torch_layer_norm": lambda: F.layer_norm(t, (d,)),
        "torch_rms_norm": lambda: F.rms_norm(t, (d,)),
        "naive_layer_norm": lambda: naive_layer_norm(x),
        "naive_rms_norm": lambda: naive_rms_norm(x),
        "resnorm_layer_norm": lambda: resnorm.layer_norm(x),
        "resnorm_rms_norm": lambda: resnorm.rms_norm(x),
    }


def _sweeps_of(key: str, x_small: np.ndarray) -> dict[str, Any] | None:
    """Pasadas de cada método, contadas en un array pequeño de la misma dimensión."""
    import torch.nn.functional as F

    d = x_small.shape[-1]
    if key == "copy_into":
        buffer = np.empty_like(x_small)
        return count_sweeps(lambda a: np.copyto(buffer, a), x_small)
    if key == "copy_new":
        return count_torch_sweeps(lambda a: a.clone(), x_small)
    if key == "torch_layer_norm":
        return count_torch_sweeps(lambda a: F.layer_norm(a, (d,)), x_small)
    if key == "torch_rms_norm":
        return count_torch_sweeps(lambda a: F.rms_norm(a, (d,)), x_small)
    if key == "naive_layer_norm":
        return count_sweeps(naive_layer_norm, x_small)
    if key == "naive_rms_norm":
        return count_sweeps(naive_rms_norm, x_small)
    return None  # resnorm convierte con np.asarray: no se deja contar así


def measure_norms(
    shape=(4096, 1024),
    repeats: int = 7,
    warmup: int = 2,
    seed: int = 0,
    methods=None,
) -> list[dict[str, Any]]:
    """Mide cada método de ``METHODS`` en un array float32 de forma ``shape``.

    Apéndice: ¿Cuánto cuesta normalizar?

    x ~ N(0, 1) con semilla fija (``numpy.random.default_rng(seed)``); torch usa la
    misma memoria (``torch.from_numpy``) y un solo hilo, como NumPy, para comparar lo
    mismo. Cada método se calienta (``warmup`` llamadas) y después se repite
    ``repeats`` veces seguidas: así se mide su régimen estable, con la memoria que pide
    y suelta reutilizada igual en cada llamada. El tiempo es de CPU del hilo
    (``time_once``), que apenas cambia si otros procesos cargan la máquina. La «copia a
    un búfer» escribe en un array ya reservado: mide solo el ancho de banda, y es el
    límite. Las demás piden memoria nueva para su resultado, como en el uso normal.

    Devuelve una fila (dict plano) por método: ``shape``, ``method``, ``label``,
    ``library``, ``cpu_s`` y ``wall_s`` (medianas), ``faults`` (mediana de faltas de
    página por llamada), ``gbps`` (efectivos, con ``cpu_s``), ``vs_copy`` (``cpu_s``
    entre el de la copia más rápida de esta misma ejecución), ``repeats`` y las pasadas
    contadas (``sweeps``, ``arrays``; ``None`` si no se pueden contar).
    """
    import torch

    keys = list(METHODS) if methods is None else list(methods)
    x = np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        t = torch.from_numpy(x)
        calls = _callables(x, t)
        samples: dict[str, list[dict]] = {}
        for key in keys:
            for _ in range(warmup):
                calls[key]()
            samples[key] = [time_once(calls[key]) for _ in range(repeats)]
        small = x[: min(8, shape[0])]
        sweeps = {key: _sweeps_of(key, small) for key in keys}
    finally:
        torch.set_num_threads(threads)

    def median(key, field):
        return statistics.median(s[field] for s in samples[key])

    cpu = {k: median(k, "cpu_s") for k in keys}
    copies = [cpu[k] for k in keys if METHODS[k][2]]
    reference = min(copies) if copies else float("nan")
    rows = []
    for key in keys:
        label, library, _ = METHODS[key]
        counted = sweeps[key]
        rows.append(
            {
                "shape": list(shape),
                "method": key,
                "label": label,
                "library": library,
                "cpu_s": cpu[key],
                "wall_s": median(key, "wall_s"),
                "faults": median(key, "faults"),
                "gbps": effective_gbps(shape, x.itemsize, cpu[key]),
                "vs_copy": cpu[key] / reference,
                "repeats": repeats,
                "sweeps": None if counted is None else counted["sweeps"],
                "arrays": None if counted is None else counted["arrays"],
            }
        )
    return rows


def rows_by_method(rows: list[dict]) -> dict[str, dict]:
    """Las filas de ``measure_norms`` indexadas por ``method`` (para una sola forma).

    Apéndice: ¿Cuánto cuesta normalizar?
    """
    shapes = {tuple(r["shape"]) for r in rows}
    if len(shapes) > 1:
        raise ValueError(
            f"rows_by_method espera filas de una sola forma, pero hay {sorted(shapes)}"
        )
    return {r["method"]: r for r in rows}


# --- Mostrar los resultados ---------------------------------------------------------


def copy_limit(rows: list[dict]) -> float:
    """GB/s de la copia más rápida de las filas (el límite de ancho de banda)."""
    copies = [r["gbps"] for r in rows if METHODS.get(r["method"], ("", "", False))[2]]
    if not copies:
        raise ValueError(
            "Las filas no incluyen ninguna copia: no hay límite con el que comparar"
        )
    return max(copies)


_copy_limit = copy_limit  # nombre anterior


def table_text(rows: list[dict]) -> str:
    """Las filas de ``measure_norms`` como tabla de texto (una línea por método).

    Apéndice: ¿Cuánto cuesta normalizar? Columnas: método, pasadas, tráfico
    (arrays), milisegundos de CPU (mediana), GB/s efectivos, veces la copia y faltas
    de página por llamada (mediana). Cabe en 68 columnas, el ancho de una celda.
    """
    head = (
        f"{'método':<25}{'pasadas':>8}{'tráfico':>8}{'ms':>7}{'GB/s':>6}"
        f"{'×copia':>7}{'faltas':>7}"
    )
    lines = [head, "─" * len(head)]
    for r in rows:
        sweeps = "—" if r["sweeps"] is None else str(r["sweeps"])
        arrays = "—" if r["arrays"] is None else str(r["arrays"])
        lines.append(
            f"{r['label']:<25}{sweeps:>8}{arrays:>8}{1e3 * r['cpu_s']:>7.1f}"
            f"{r['gbps']:>6.1f}{r['vs_copy']:>7.1f}{r['faults']:>7.0f}"
        )
    return "\n".join(lines)


def describe_bandwidth(rows: list[dict]) -> str:
    """Texto alternativo (español) de la figura de ``plot_bandwidth``, con sus datos.

    Apéndice: ¿Cuánto cuesta normalizar?
    """
    shape = "×".join(str(n) for n in rows[0]["shape"])
    limit = copy_limit(rows)
    parts = [f"{r['label']}: {r['gbps']:.1f} GB/s" for r in rows]
    return (
        f"Barras horizontales con los GB/s efectivos de cada método sobre un array "
        f"float32 de {shape}, con una línea vertical en el límite de la copia "
        f"({limit:.1f} GB/s). " + "; ".join(parts) + "."
    )
