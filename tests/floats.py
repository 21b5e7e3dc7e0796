"""Tolerancias que salen de la cantidad comparada, no de la máquina (STYLE.md, 20).

Un número de coma flotante redondea a ≈ ``EPS[dtype]`` relativo en cada operación, y
una cuenta larga acumula ese redondeo; torch elige sus núcleos según la CPU
(``ATEN_CPU_CAPABILITY``: ``default``, ``avx2``, ``avx512``) y NumPy los suyos
(``NPY_DISABLE_CPU_FEATURES``), así que otra CPU suma en otro orden y da otro
redondeo. Un valor medido se compara con una tolerancia derivada de su tipo, su escala
y la longitud de la cuenta; un valor que se hundió hasta el ruido (una dispersión que
colapsó, una diferencia que debería ser 0) se afirma «por debajo» de un umbral, nunca
igual al ruido de otra máquina. Y cuando falla, el mensaje dice la cantidad, su escala
y en qué núcleos se calculó (``cpu_note``).
"""

from __future__ import annotations

import functools
import math
import os

#: El redondeo relativo de cada tipo (la distancia de 1 al siguiente número): 2⁻²³ y
#: 2⁻⁵².
EPS = {"float32": 2.0**-23, "float64": 2.0**-52}
#: Las variables de entorno que eligen los núcleos de cálculo (other_kernels).
KERNEL_VARIABLES = ("ATEN_CPU_CAPABILITY", "NPY_DISABLE_CPU_FEATURES",
                    "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA")


def noise_floor(scale: float, dtype: str = "float32", ulps: float = 100) -> float:
    """El nivel del ruido de redondeo junto a valores de tamaño ``scale``: ``ulps``
    veces el redondeo relativo del tipo. Cada suma o producto redondea a ≈ 1 ulp; una
    cuenta de unas decenas de pasos se queda en pocas decenas de ulps, así que 100 ulps
    (≈ 1,2e-5 relativo en float32) separa el ruido de cualquier valor medido. Una cuenta
    más larga pide más ulps, dicho junto a la llamada."""
    return ulps * EPS[dtype] * abs(scale)


def is_noise(value: float, scale: float, dtype: str = "float32",
             ulps: float = 100) -> bool:
    """¿``value`` está al nivel del ruido de redondeo junto a valores de tamaño
    ``scale``? Un valor así no se compara con otro: se afirma por debajo del umbral."""
    return abs(value) <= noise_floor(scale, dtype, ulps)


@functools.cache
def cpu_note() -> str:
    """En qué núcleos se calculó: la capacidad de ATen que usa torch y las
    extensiones de la CPU que NumPy despacha (para los mensajes de fallo)."""
    parts = []
    try:
        import torch

        parts.append(f"torch {torch.__version__} con núcleos ATen "
                     f"«{torch.backends.cpu.get_cpu_capability()}»")
    except ImportError:
        pass
    try:
        from numpy._core._multiarray_umath import (
            __cpu_baseline__,
            __cpu_dispatch__,
            __cpu_features__,
        )

        on = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
        parts.append(f"NumPy hasta {on[-1]}" if on else
                     f"NumPy en su base {__cpu_baseline__[-1]}")
    except ImportError:
        pass
    forced = {k: os.environ[k] for k in KERNEL_VARIABLES if os.environ.get(k)}
    if forced:
        parts.append("forzado: " + ", ".join(f"{k}={v}" for k, v in forced.items()))
    return "; ".join(parts) or "CPU desconocida"


def close_or_both_noise(got: float, want: float, *, what: str, scale: float,
                        dtype: str = "float32", ulps: float = 100,
                        rel: float = 1e-4) -> str | None:
    """``None`` si ``got`` y ``want`` (dos cálculos de la misma cantidad) coinciden: o
    los dos están por debajo del ruido de redondeo (``is_noise``), o ``got`` está a
    ``rel`` relativo de ``want``. Si no, el mensaje: la cantidad, su escala, el umbral
    del ruido y la CPU."""
    floor = noise_floor(scale, dtype, ulps)
    if abs(want) <= floor:
        if abs(got) <= floor:
            return None
        return (f"{what}: el valor de referencia ({want:.3g}) es ruido de {dtype} "
                f"(≤ {floor:.2g}, escala {scale:.3g}), pero este vale {got:.3g}, por "
                f"encima del ruido; {cpu_note()}")
    if math.isfinite(got) and abs(got - want) <= rel * abs(want) + floor:
        return None
    return (f"{what}: {got!r} frente a {want!r} (±{rel:g} relativo; escala "
            f"{scale:.3g}, ruido de {dtype} ≤ {floor:.2g}); {cpu_note()}")


def other_kernels() -> dict[str, str]:
    """Las variables de entorno que ponen los cálculos en otra familia de núcleos que
    la de esta máquina, como los tendría otra CPU x86-64 (con o sin AVX-512):

    - torch: ``ATEN_CPU_CAPABILITY=default`` (sus núcleos sin vectores anchos), si no
      es ya la suya;
    - NumPy: ``NPY_DISABLE_CPU_FEATURES`` con los destinos de su despacho que esta CPU
      activa (vuelve a su línea base, X86_V2);
    - el álgebra de torch (MKL y oneDNN): limitada a AVX2 si la CPU tiene AVX-512, como
      una CPU sin AVX-512.

    Vacío si esta máquina ya calcula con los núcleos más sencillos de todos."""
    import torch
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    env = {}
    if torch.backends.cpu.get_cpu_capability().lower() != "default":
        env["ATEN_CPU_CAPABILITY"] = "default"
    dispatched = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    if dispatched:
        env["NPY_DISABLE_CPU_FEATURES"] = ",".join(dispatched)
    if __cpu_features__.get("AVX512F"):
        env["MKL_ENABLE_INSTRUCTIONS"] = "AVX2"
        env["ONEDNN_MAX_CPU_ISA"] = "AVX2"
    return env


if __name__ == "__main__":  # «python -m tests.floats»: las variables, para el Makefile
    print(" ".join(f"{k}={v}" for k, v in other_kernels().items()))
