"""Las piezas del banco («make bench») con datos pequeños: cómo resume las corridas y
que una cifra fuera de presupuesto lo hace fallar en voz alta.

Son pruebas de unidades del propio banco (no miden nada): «make check» y «make test»
las ejecutan (``testpaths`` en pyproject.toml); las medidas, solo «make bench».
"""

from __future__ import annotations

import copy
import math

import pytest


def test_bench_lighthouse_takes_each_metrics_median_and_the_worst_fixed_score():
    from bench import lighthouse

    runs = [
        {"performance": 97, "lcp_ms": 1960, "tbt_ms": 156, "cls": 0.0, "fcp_ms": 1650,
         "accessibility": 100, "best-practices": 100, "seo": 100},
        {"performance": 99, "lcp_ms": 1950, "tbt_ms": 52, "cls": 0.01, "fcp_ms": 1500,
         "accessibility": 100, "best-practices": 96, "seo": 100},
        {"performance": 98, "lcp_ms": 1955, "tbt_ms": 116, "cls": 0.0, "fcp_ms": 1660,
         "accessibility": 100, "best-practices": 100, "seo": 100},
    ]
    row = lighthouse.with_medians(runs)
    assert (row["performance"], row["lcp_ms"], row["tbt_ms"]) == (98, 1955, 116)
    assert row["cls"] == 0.0 and row["fcp_ms"] == 1650
    assert row["best-practices"] == 96  # la peor corrida
    assert row["runs"] == runs
    # Con una sola corrida, la fila es esa corrida.
    assert lighthouse.with_medians(runs[1:2])["tbt_ms"] == 52
    # Las auditorías que no pasan, las de la corrida de TBT mediano (116 ms), y las
    # corridas de la fila, sin ellas.
    marked = [{**r, "failing": [r["tbt_ms"]]} for r in runs]
    row = lighthouse.with_medians(marked)
    assert row["failing"] == [116] and row["runs"] == runs


def test_bench_fails_loudly_when_a_figure_misses_its_budget(capsys):
    from bench.__main__ import verdict

    ok = [("Página", "book/intro.html", "300 KB", "≤ 700 KB", "✓"),
          ("Notebook", "01", "9.0 s", "", "")]
    assert verdict(ok, []) == 0
    late = ("Primer widget", "notebooks/04_layernorm.html a 390 px", "1800 ms",
            "≤ 1 s", "✗")
    assert verdict([*ok, late], []) == 1
    err = capsys.readouterr().err
    assert "FUERA DE PRESUPUESTO" in err and "04_layernorm.html a 390 px" in err
    assert verdict(ok, ["lighthouse_error"]) == 1


def test_bench_cost_ratios_use_each_methods_best_run():
    from bench import cost as bench_cost
    from resnorm.cost import METHODS

    def run(scale):
        seconds = {"copy_into": 1.0, "copy_new": 1.1, "torch_layer_norm": 2.0,
                   "torch_rms_norm": 3.0, "naive_layer_norm": 8.0,
                   "naive_rms_norm": 5.0, "resnorm_layer_norm": 4.0,
                   "resnorm_rms_norm": 4.0}
        return [{"method": k, "shape": [4, 4], "cpu_s": seconds[k] * scale.get(k, 1)}
                for k in METHODS]

    best = bench_cost.best_of([run({"naive_layer_norm": 3}), run({})])
    assert best["naive_layer_norm"]["cpu_s"] == 8.0
    ratios = {r["name"]: r for r in bench_cost.ratios(best)}
    assert all(r["ok"] for r in ratios.values()), ratios
    # Una normalización casi tan rápida como copiar no cabe en el presupuesto.
    copies = {k: dict(best[k], cpu_s=1.9) for k in ("copy_into", "copy_new")}
    slow_copy = bench_cost.ratios({**best, **copies})
    assert not next(r for r in slow_copy if "más rápida" in r["name"])["ok"]
    # Cada presupuesto de coste es una dirección que afirma el apéndice (un mínimo),
    # no una magnitud que dependa de la CPU (un techo).
    assert all(r["max"] is None for r in bench_cost.ratios(best))


def _seed_runs() -> dict:
    """Unos entrenamientos inventados que leen como los del capítulo 10: referencia
    2.5, ln V ≈ 4.09; sin atajo se quedan en la referencia, con atajo bajan 0.5."""
    vocab, unigram = 60, 2.5
    final = {"plain": 2.52, "ln_only": 2.48, "residual": 1.9, "post_ln": 1.95,
             "pre_ln": 2.0}
    runs = {c: {"val_loss": [math.log(vocab), 2.55 if f > 2.4 else 2.2, f],
                "final_val_loss": f, "first_step_size": [1.0] * 6,
                "first_grad_norm_layers": [0.5] * 6} for c, f in final.items()}
    runs["pre_ln"]["first_grad_norm_layers"] = [1.3, 1.2, 1.1, 1.05, 1.0, 1.0]
    high = {"runs": {"post_ln": {"final_val_loss": 2.55},
                     "post_ln_warmup": {"final_val_loss": 2.0},
                     "pre_ln": {"final_val_loss": 2.1}}}
    inside = {
        "stream": {"pre_ln": {"blocks": [1, 2, 3, 4, 5, 6, 7], "ln_f": 3.0},
                   "post_ln": {"blocks": [1] + [32 ** 0.5] * 5 + [7], "ln_f": 7}},
        "gamma_dev": {"post_ln": [0.01] * 11 + [0.3], "pre_ln": [0.02] * 12 + [0.2]},
    }
    losses = {"post_ln": 2.51, "pre_ln": 2.0, "post_ln_other": 2.0}
    edge = {"lr_high": 6e-3, "deep": 12, "runs": {
        "deep": {c: {"final_val_loss": losses[c]} for c in ("post_ln", "pre_ln")},
        "lr_high": {c: {"final_val_loss": v} for c, v in losses.items()}}}
    return {"comparison": {"vocab_size": vocab, "unigram_loss": unigram,
                           "runs": runs},
            "high": high, "cut": {"final_val_loss": 2.51}, "inside": inside,
            "edge": edge}


def test_bench_gpt_seeds_reads_each_chapter_claim_against_its_margin(capsys):
    from bench import gpt_seeds
    from bench.__main__ import verdict

    def rows(runs):
        readings = gpt_seeds.readings(**runs)
        seed = {"seconds": 300.0, "cpu_seconds": 590.0, "readings": readings}
        return gpt_seeds.rows_for({"gpt_seeds": {"seeds": {"1": seed}}})

    good = _seed_runs()
    assert verdict(rows(good), []) == 0
    assert len(rows(good)) == 1 + 29  # el tiempo y cada lectura, una fila
    # Un flujo de Pre-LN que no crece y un Post-LN que aprende sin calentamiento a la
    # tasa alta: dos filas ✗, y el banco falla nombrándolas.
    bad = copy.deepcopy(good)
    bad["inside"]["stream"]["pre_ln"]["blocks"][3] = 2.5
    bad["high"]["runs"]["post_ln"]["final_val_loss"] = 2.2
    # Y un Post-LN de 12 bloques que aprende: el borde no está donde dice el capítulo.
    bad["edge"]["runs"]["deep"]["post_ln"]["final_val_loss"] = 2.0
    missed = [r for r in rows(bad) if r[4] == "✗"]
    assert [r[1] for r in missed] == ["tasa alta, post_ln: final − referencia",
                                      "post_ln: tasa alta − tasa base",
                                      "borde, 12 bloques, post_ln: final − referencia",
                                      "borde, 12 bloques, post_ln − régimen del "
                                      "capítulo",
                                      "pre_ln: el flujo crece bloque a bloque"]
    assert verdict(rows(bad), []) == 1
    assert "GPT, semilla 1: pre_ln: el flujo crece" in capsys.readouterr().err
    # Una sección que no pudo entrenar también falla.
    assert verdict(gpt_seeds.rows_for({"gpt_seeds": {"error": "RuntimeError"}}),
                   []) == 1


def test_bench_widget_load_counts_the_shifts_the_reader_sees_after_the_jump():
    from bench.widget_load import shifts_seen

    shifts = [[351, 0.042, "antes"], [399, 0.013, "widget"], [420, 0.004, "gráfico"]]
    cls, text = shifts_seen(shifts, arrived=377.5)
    assert cls == pytest.approx(0.017) and "antes" not in text and "widget" in text
    # Sin la marca de llegada (el fotograma no llegó a pintarse), cuenta todo.
    assert shifts_seen(shifts, arrived=None)[0] == pytest.approx(0.059)


def test_bench_learner_notebooks_are_held_to_30_s_for_chapter_10_and_15_s_the_rest():
    from bench import cuadernos

    results = {"cuadernos": {"notebooks": {
        "10_gpt_diminuto": {"cpu_s": 29.0}, "04_layernorm": {"cpu_s": 16.0},
        "01_problema_apilar": {"error": "CellExecutionError: …"}}}}
    rows = {r[1].split(",")[0]: r for r in cuadernos.rows_for(results)}
    assert rows["10_gpt_diminuto"][3:] == ("≤ 30 s", "✓")
    assert rows["04_layernorm"][3:] == ("≤ 15 s", "✗")
    assert rows["01_problema_apilar"][4] == "✗"
    assert cuadernos.rows_for({}) == []


def test_bench_learner_notebook_cpu_is_read_from_proc_for_a_running_process():
    import os
    import time

    from bench import cuadernos

    before = cuadernos.process_cpu_seconds(os.getpid())
    end = time.process_time() + 0.05
    while time.process_time() < end:  # 50 ms de CPU de este proceso
        pass
    assert cuadernos.process_cpu_seconds(os.getpid()) >= before + 0.03

def _build_results(cold_s, cold_cpu, load):
    runs = [{"kind": "cold", "load_before": load, "ok": True},
            {"kind": "warm_noop", "load_before": load, "ok": True},
            {"kind": "warm_touch", "load_before": load, "ok": True}]
    return {"machine": {"cpus": 2}, "build": {
        "cold_s": [cold_s], "cold_median_s": cold_s, "cold_cpu_median_s": cold_cpu,
        "warm_noop_s": [3.0], "warm_noop_median_s": 3.0, "warm_noop_cpu_median_s": 3.0,
        "warm_touch_median_s": 4.0, "touched_page": "book/glosario.md",
        "notebooks": {}, "ok": True, "runs": runs}}


def test_bench_judges_build_wall_and_cpu_time_only_on_a_quiet_machine():
    from bench import report

    def marks(results):
        return {what: mark for _, what, _, _, mark in report.rows_for(results)}

    quiet = marks(_build_results(50.0, 55.0, load=0.8))
    assert quiet["en frío (mediana de 1)"] == "✗"  # 50 s de reloj > 45 s
    assert quiet["en frío, CPU de todos sus procesos (mediana)"] == "✓"
    assert quiet["en caliente, sin cambios (mediana de 1)"] == "✓"
    busy = marks(_build_results(500.0, 70.0, load=27.0))
    assert busy["en frío (mediana de 1)"] == "—"  # el reloj, con carga 27: sin juzgar
    # La CPU también crece con la carga (cachés, el otro hilo del núcleo): sin juzgar.
    assert busy["en frío, CPU de todos sus procesos (mediana)"] == "—"
    assert not report.missed(report.rows_for(_build_results(500.0, 70.0, 27.0)))
    assert report.missed(report.rows_for(_build_results(40.0, 70.0, load=0.8)))
