"""Lo que el capítulo 10 lee de los entrenamientos del GPT, con otras semillas.

El capítulo lo afirma con la semilla 0 cada vez que se construye el libro (sus celdas
``remove-cell``): eso es corrección, y lo comprueba «make test». Aquí, con las
semillas 1 y 2, que esas lecturas no dependen de la semilla: es robustez, y cuesta
cuatro experimentos por semilla (la comparación, la tasa alta, el ejercicio y los
bordes de Post-LN: minutos de CPU), así que va en el banco (``python -m bench
--sections gpt_seeds``; issues 32 y 49). Cada lectura es una fila con su margen como
presupuesto; una que no lo cumple hace fallar el banco. Al doble de tasa, que Post-LN
aprenda depende de la semilla (el capítulo lo dice y lo muestra con las semillas 0 y
1): de ese borde solo se lee que Pre-LN aprende.

También da los FLOP/s de esos entrenamientos (solo las multiplicaciones de matrices,
``resnorm.gpt.matmul_flops``, entre los segundos de CPU) junto al pico de una
multiplicación de matrices float32 grande en un núcleo, medido en la misma ejecución
(issue 51). La fracción dice cuánto del tiempo se va en la aritmética que cuenta: el
resto son operaciones elemento a elemento sobre filas de 32 números (LayerNorm,
softmax, GELU), productos pequeños de la atención y el bucle en Python. Sin
presupuesto: depende de la CPU, no de lo que afirma el capítulo.
"""

from __future__ import annotations

import math
import time

#: La semilla 0 es la del capítulo; estas, las otras dos.
SEEDS = (1, 2)
WITH_SHORTCUT = ("residual", "post_ln", "pre_ln")
WITHOUT_SHORTCUT = ("plain", "ln_only")


def train(seed: int) -> dict:
    """Los tres experimentos del capítulo con una semilla, y lo que se mide dentro de
    los modelos entrenados (las normas del flujo, sobre el conjunto de validación)."""
    from resnorm import gpt
    from resnorm.exercises import ch10

    comparison = gpt.gpt_comparison(seed=seed, n_samples=0)
    high = gpt.lr_sensitivity(seed=seed, n_samples=0)
    cut = ch10.train_without_ffn_shortcut(ch10._solution, seed=seed, n_samples=0)
    edge = gpt.postln_edge(seed=seed, other_seed=seed + 1)
    vx, _ = gpt._dataset().val_windows(32)
    runs = comparison["runs"]
    inside = {
        "stream": {c: gpt.stream_norms(runs[c]["model"], vx)
                   for c in ("post_ln", "pre_ln")},
        "gamma_dev": {c: [p["gamma_dev"] for p in gpt.norm_params(runs[c]["model"])]
                      for c in ("post_ln", "pre_ln")},
    }
    return {"comparison": comparison, "high": high, "cut": cut, "inside": inside,
            "edge": edge}


def readings(comparison: dict, high: dict, cut: dict, inside: dict,
             edge: dict) -> list[dict]:
    """Cada lectura del capítulo como ``{"what", "value", "goal", "ok"}``."""
    runs = comparison["runs"]
    unigram = comparison["unigram_loss"]
    final = {c: r["final_val_loss"] for c, r in runs.items()}
    out = []

    def check(what: str, value: str, goal: str, ok) -> None:
        value, goal = (t.replace("-", "−") for t in (value, goal))  # el signo menos
        out.append({"what": what, "value": value, "goal": goal, "ok": bool(ok)})

    # Todas parten de cerca de ln V, la pérdida de repartir la probabilidad por igual.
    ln_v = math.log(comparison["vocab_size"])
    start = max(abs(r["val_loss"][0] - ln_v) for r in runs.values())
    check("|primera pérdida − ln V| (máx.)", f"{start:.3f}", "< 0.5", start < 0.5)
    for c in WITHOUT_SHORTCUT:
        gap = final[c] - unigram
        check(f"{c}: final − referencia", f"{gap:+.3f}", "|·| < 0.1", abs(gap) < 0.1)
        first, after = runs[c]["val_loss"][:2]
        check(f"{c}: 1.ª y 2.ª medida − referencia",
              f"{first - unigram:+.2f}, {after - unigram:+.3f}", "> 1, < 0.1",
              first > unigram + 1 and after < unigram + 0.1)
    for c in WITH_SHORTCUT:
        gap = final[c] - unigram
        check(f"{c}: final − referencia", f"{gap:+.3f}", "< −0.3", gap < -0.3)
    near = [final[c] for c in WITH_SHORTCUT]
    spread, room = max(near) - min(near), unigram - max(near)
    check("con atajo: distancia entre las tres", f"{spread:.3f}",
          f"< {0.5 * room:.3f} (mitad de lo que bajan)", spread < 0.5 * room)

    hr = {c: r["final_val_loss"] for c, r in high["runs"].items()}
    gap = hr["post_ln"] - unigram
    check("tasa alta, post_ln: final − referencia", f"{gap:+.3f}", "|·| < 0.1",
          abs(gap) < 0.1)
    gap = hr["post_ln_warmup"] - unigram
    check("tasa alta, post_ln con calentamiento", f"{gap:+.3f}", "< −0.3", gap < -0.3)
    gap = hr["pre_ln"] - unigram
    check("tasa alta, pre_ln: final − referencia", f"{gap:+.3f}", "< −0.2", gap < -0.2)
    worse = hr["post_ln"] - final["post_ln"]
    check("post_ln: tasa alta − tasa base", f"{worse:+.3f}", "> 0.3", worse > 0.3)

    # Los bordes: con el doble de bloques, Post-LN en la referencia y Pre-LN aprende;
    # con el doble de tasa, Pre-LN aprende (Post-LN, según la semilla: sin lectura).
    deep = {c: r["final_val_loss"] for c, r in edge["runs"]["deep"].items()}
    label = f"borde, {edge['deep']} bloques"
    gap = deep["post_ln"] - unigram
    check(f"{label}, post_ln: final − referencia", f"{gap:+.3f}", "|·| < 0.1",
          abs(gap) < 0.1)
    gap = deep["pre_ln"] - unigram
    check(f"{label}, pre_ln: final − referencia", f"{gap:+.3f}", "< −0.3", gap < -0.3)
    worse = deep["post_ln"] - final["post_ln"]
    check(f"{label}, post_ln − régimen del capítulo", f"{worse:+.3f}", "> 0.3",
          worse > 0.3)
    gap = edge["runs"]["lr_high"]["pre_ln"]["final_val_loss"] - unigram
    check(f"borde, tasa {edge['lr_high']:g}, pre_ln: final − referencia",
          f"{gap:+.3f}", "< −0.3", gap < -0.3)

    gap = cut["final_val_loss"] - unigram
    check("pre_ln sin el atajo de la FFN − referencia", f"{gap:+.3f}", "|·| < 0.1",
          abs(gap) < 0.1)

    pre, post = inside["stream"]["pre_ln"], inside["stream"]["post_ln"]
    grows = all(b > a for a, b in zip(pre["blocks"], pre["blocks"][1:]))
    check("pre_ln: el flujo crece bloque a bloque", "sí" if grows else "no", "sí",
          grows)
    ratio = pre["ln_f"] / pre["blocks"][-1]
    check("pre_ln: ln_f / último bloque", f"{ratio:.3f}", "< 0.5", ratio < 0.5)
    sqrt_d = 32 ** 0.5
    dev = max(abs(n / sqrt_d - 1) for n in post["blocks"][1:-1])
    check("post_ln: bloques 1–5, |norma/√32 − 1| (máx.)", f"{dev:.3f}", "≤ 0.1",
          dev <= 0.1)
    for c in ("post_ln", "pre_ln"):
        gamma = inside["gamma_dev"][c]
        check(f"{c}: γ de las LayerNorm menos la última (máx. desvío)",
              f"{max(gamma[:-1]):.3f}", "< 0.1", max(gamma[:-1]) < 0.1)
        check(f"{c}: la última γ es la que más se movió", f"{gamma[-1]:.3f}",
              f"= máx. ({max(gamma):.3f})", gamma[-1] == max(gamma))
    g_pre = runs["pre_ln"]["first_grad_norm_layers"]
    g_post = runs["post_ln"]["first_grad_norm_layers"]
    check("pre_ln: gradiente del 1.er paso, bloque 1 / bloque 6",
          f"{g_pre[0] / g_pre[-1]:.2f}", "> 1.2", g_pre[0] > 1.2 * g_pre[-1])
    check("post_ln: gradiente del 1.er paso, máx. / mín.",
          f"{max(g_post) / min(g_post):.2f}", "< 1.5", max(g_post) < 1.5 * min(g_post))
    for c in ("post_ln", "pre_ln"):
        steps = runs[c]["first_step_size"]
        dev = max(abs(s - 1) for s in steps)
        check(f"{c}: 1.er paso de AdamW / lr, |· − 1| (máx.)", f"{dev:.4f}", "≤ 0.02",
              len(steps) == 6 and dev <= 0.02)
    return out


def matmul_peak(n: int = 1024, repeats: int = 5) -> float:
    """FLOP/s de una multiplicación de matrices float32 ``(n, n)`` en un núcleo (la
    mejor de ``repeats``): el techo de esta máquina para lo que cuenta
    ``resnorm.gpt.matmul_flops``."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        gen = torch.Generator().manual_seed(0)
        a, b = torch.randn(n, n, generator=gen), torch.randn(n, n, generator=gen)
        a @ b
        best = math.inf
        for _ in range(repeats):
            c0 = time.process_time()
            a @ b
            best = min(best, time.process_time() - c0)
    finally:
        torch.set_num_threads(threads)
    return 2 * n ** 3 / best


def training_flops(runs: list[dict], vocab_size: int, n_val_tokens: int) -> int:
    """Los FLOP de multiplicaciones de matrices de unos entrenamientos de
    ``train_gpt``: cada paso, un lote hacia delante y hacia atrás; cada medida de
    validación, todo el texto de validación hacia delante."""
    from resnorm.gpt import matmul_flops

    total = 0
    for run in runs:
        p = run["params"]
        sizes = dict(n_layers=p["n_layers"], d_model=p["d_model"],
                     block_size=p["block_size"], vocab_size=vocab_size)
        step = matmul_flops(p["batch_size"] * p["block_size"], **sizes)
        val = matmul_flops(n_val_tokens, backward=False, **sizes)
        total += len(run["train_loss"]) * step + len(run["val_loss"]) * val
    return total


def bench_gpt_seeds(seeds=SEEDS, log=print) -> dict:
    """Entrena cada semilla y devuelve sus lecturas, su tiempo (pared y CPU) y los
    FLOP/s de sus entrenamientos, junto al pico de multiplicación de matrices de la
    máquina medido en un núcleo en la misma ejecución."""
    from resnorm import gpt

    peak = matmul_peak()
    data = gpt._dataset()
    n_val_tokens = data.val_windows(32)[0].numel()
    out = {}
    for seed in seeds:
        log(f"  semilla {seed}: los experimentos del capítulo 10…")
        t0, c0 = time.perf_counter(), time.process_time()
        runs = train(seed)
        cpu_seconds = time.process_time() - c0
        trained = (list(runs["comparison"]["runs"].values())
                   + list(runs["high"]["runs"].values()) + [runs["cut"]]
                   + [r for pair in runs["edge"]["runs"].values()
                      for r in pair.values()])
        out[str(seed)] = {
            "seconds": time.perf_counter() - t0,
            "cpu_seconds": cpu_seconds,
            "flops": training_flops(trained, data.vocab_size, n_val_tokens),
            "readings": readings(**runs),
        }
    return {"seeds": out, "matmul_peak": peak}


def rows_for(results: dict) -> list[tuple[str, str, str, str, str]]:
    """Filas de la tabla del banco (como ``bench.report.rows_for``)."""
    r = results.get("gpt_seeds")
    if not r:
        return []
    if "error" in r:
        return [("GPT, otras semillas", "error", str(r["error"])[:60], "", "✗")]
    out = []
    peak = r.get("matmul_peak")
    if peak:
        out.append(("GPT, semillas", "pico de matmul float32 (1024², un núcleo)",
                    f"{peak / 1e9:.1f} GFLOP/s", "", ""))
    for seed, s in r["seeds"].items():
        sec = f"GPT, semilla {seed}"
        out.append((sec, "entrenamientos (pared, CPU)",
                    f"{s['seconds']:.0f} s, {s['cpu_seconds']:.0f} s CPU", "", ""))
        if peak and "flops" in s:
            rate = s["flops"] / s["cpu_seconds"]
            value = f"{rate / 1e9:.1f} GFLOP/s ({100 * rate / peak:.0f} % del pico)"
            out.append((sec, "FLOP/s de matmul de los entrenamientos (por s de CPU)",
                        value, "", ""))
        out += [(sec, x["what"], x["value"], x["goal"], "✓" if x["ok"] else "✗")
                for x in s["readings"]]
    return out
