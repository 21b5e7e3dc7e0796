"""¿Cuánto cuesta normalizar? Los tiempos de cada receta y sus cocientes, con
presupuestos.

Las cuentas (pasadas, arrays movidos) las comprueba ``tests/test_cost.py``; lo que
dice el apéndice sobre los tiempos depende de la máquina y de su carga, y se comprueba
aquí. Cocientes con margen, nunca «a < b» a secas: en una máquina cargada de 2 núcleos
dos tiempos parecidos se cruzan. Cada margen (``MARGIN``) es bastante menor que el
cociente de una máquina tranquila (entre paréntesis, el de referencia) y mayor que 1.
Cada método cuenta por su mejor mediana de ``runs`` medidas seguidas: su coste propio,
sin los ratos en que la máquina (o dónde cayeron sus arrays) lo frenó. En 36 medidas
sueltas el cociente más justo salió 1,26; con la mejor de tres, 1,62.
"""

from __future__ import annotations

import ctypes

MARGIN = 1.2


def reuse_freed_memory() -> None:
    """Fija el reparto de memoria de glibc en este proceso: lo soltado se reutiliza.

    Qué memoria reutiliza cada llamada depende de la historia del proceso: glibc sube su
    umbral de mmap y devuelve memoria al sistema según lo que se pidió y soltó antes. Si
    en una corrida el resultado de F.layer_norm pide páginas nuevas cada vez y la receta
    ingenua no, el cociente mide faltas de página (≈ 2,4 µs cada una, 2048 por
    llamada), no pasadas: así salió 0,56× en una CI. Con los umbrales fijos, los
    resultados de 8 MiB se sirven del montón y nadie devuelve memoria al sistema. (Solo
    afecta a este proceso; fuera de glibc no hace nada.)
    """
    libc = ctypes.CDLL(None)
    if hasattr(libc, "mallopt"):
        m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
        libc.mallopt(m_mmap_threshold, 32 * 2**20)  # el máximo de glibc en 64 bits
        libc.mallopt(m_trim_threshold, 2**30)


def best_of(runs: list[list[dict]]) -> dict[str, dict]:
    """Cada método con la mejor ``cpu_s`` de las corridas (filas de
    ``measure_norms``)."""
    from resnorm.cost import rows_by_method

    rows = {key: dict(row) for key, row in rows_by_method(runs[0]).items()}
    for key, row in rows.items():
        row["cpu_s"] = min(rows_by_method(run)[key]["cpu_s"] for run in runs)
    return rows


def ratios(best: dict[str, dict]) -> list[dict]:
    """Los cocientes que el apéndice afirma, cada uno con su presupuesto."""
    from resnorm.cost import METHODS

    def ratio(slow, fast):
        return best[slow]["cpu_s"] / best[fast]["cpu_s"]

    copy = min(best["copy_into"]["cpu_s"], best["copy_new"]["cpu_s"])
    # Copiar a un búfer es el límite: cualquier normalización tarda más (≈ 2,7×).
    fastest_norm = min((r["cpu_s"] for k, r in best.items() if not METHODS[k][2]))
    out = [
        ("la normalización más rápida / la copia", fastest_norm / copy, MARGIN, None),
        ("LayerNorm ingenua / RMSNorm ingenua (≈ 1,7×)",
         ratio("naive_layer_norm", "naive_rms_norm"), MARGIN, None),
        ("RMSNorm ingenua / copia a un búfer (≈ 5×)",
         ratio("naive_rms_norm", "copy_into"), MARGIN, None),
        ("LayerNorm ingenua / F.layer_norm (≈ 2×)",
         ratio("naive_layer_norm", "torch_layer_norm"), MARGIN, None),
        # El apéndice dice la dirección (NumPy en dos pasadas es más lenta que el
        # kernel de torch), no cuánto: el cociente (≈ 4–11×) depende de la CPU, y un
        # techo fallaba siempre en unas máquinas y nunca en otras.
        ("resnorm.layer_norm / F.layer_norm (≈ 4–11×)",
         ratio("resnorm_layer_norm", "torch_layer_norm"), MARGIN, None),
        ("F.rms_norm / F.layer_norm", ratio("torch_rms_norm", "torch_layer_norm"),
         None, None),
    ]
    return [{"name": name, "ratio": value, "min": low, "max": high,
             "ok": (low is None or value > low) and (high is None or value <= high)}
            for name, value, low, high in out]


def bench_cost(shapes, repeats: int, runs: int = 3, log=print) -> list[dict]:
    from resnorm.cost import measure_norms

    reuse_freed_memory()
    blocks = []
    for shape in shapes:
        log(f"  coste de normalizar {shape} ({runs} corridas)…")
        measured = [measure_norms(shape, repeats=repeats, warmup=1, seed=0)
                    for _ in range(runs)]
        blocks.append({"shape": list(shape), "rows": measured[0],
                       "ratios": ratios(best_of(measured))})
    return blocks


def rows_for(results: dict) -> list[tuple[str, str, str, str, str]]:
    out = []
    for block in results.get("cost", []) or []:
        shape = "×".join(str(n) for n in block["shape"])
        for r in block["rows"]:
            out.append((
                f"Coste {shape}", f"{r['label']} ({r['library']})",
                f"{1e3 * r['cpu_s']:.2f} ms, {r['gbps']:.2f} GB/s, "
                f"×{r['vs_copy']:.2f} copia, {r['faults']:.0f} faltas",
                "sin presupuesto: depende de la CPU (se juzgan los cocientes)", "",
            ))
        for r in block["ratios"]:
            goal = (f"> {r['min']}×" if r["min"] is not None
                    else f"≤ {r['max']}×" if r["max"] is not None
                    else "sin presupuesto: el apéndice no afirma su dirección")
            mark = ("✓" if r["ok"] else "✗") if (
                r["min"] is not None or r["max"] is not None) else ""
            out.append((f"Coste {shape}", r["name"], f"{r['ratio']:.2f}×", goal, mark))
    return out
