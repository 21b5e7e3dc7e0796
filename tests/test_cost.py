"""¿Cuánto cuesta normalizar? Las recetas, las pasadas contadas y las relaciones entre
tiempos (nunca tiempos absolutos: dependen de la máquina y de su carga)."""

from __future__ import annotations

import numpy as np
import pytest

import resnorm
from resnorm import cost
from resnorm.exercises import check_effective_gbps, check_rms_norm_sweeps

torch = pytest.importorskip("torch")
F = torch.nn.functional

RNG = np.random.default_rng(2024)
X64 = RNG.standard_normal((16, 32)) * 3 + 1.5
X32 = RNG.standard_normal((16, 32)).astype(np.float32)


# --- Las recetas ingenuas calculan lo mismo que resnorm y PyTorch -------------------


def test_naive_layer_norm_equals_resnorm_and_torch():
    np.testing.assert_allclose(cost.naive_layer_norm(X64), resnorm.layer_norm(X64),
                               rtol=1e-12, atol=1e-12)
    ref = F.layer_norm(torch.from_numpy(X32), (32,)).numpy()
    np.testing.assert_allclose(cost.naive_layer_norm(X32), ref, atol=1e-5)


def test_naive_rms_norm_equals_resnorm_and_torch_with_the_same_default_eps():
    np.testing.assert_allclose(cost.naive_rms_norm(X64), resnorm.rms_norm(X64),
                               rtol=1e-12, atol=1e-12)
    ref = F.rms_norm(torch.from_numpy(X32), (32,)).numpy()  # eps=None: finfo.eps
    np.testing.assert_allclose(cost.naive_rms_norm(X32), ref, atol=1e-5)


def test_naive_recipes_keep_float32():
    assert cost.naive_layer_norm(X32).dtype == np.float32
    assert cost.naive_rms_norm(X32).dtype == np.float32


# --- Pasadas contadas ---------------------------------------------------------------


def test_naive_layer_norm_makes_five_sweeps_and_moves_eight_arrays():
    counted = cost.count_sweeps(cost.naive_layer_norm, X32)
    assert counted["ops"] == ["add.reduce", "subtract", "multiply", "add.reduce",
                              "divide"]
    assert (counted["sweeps"], counted["reads"], counted["writes"]) == (5, 5, 3)
    assert counted["arrays"] == 8


def test_naive_rms_norm_makes_three_sweeps_and_moves_five_arrays():
    counted = cost.count_sweeps(cost.naive_rms_norm, X32)
    assert counted["ops"] == ["multiply", "add.reduce", "divide"]
    assert (counted["sweeps"], counted["arrays"]) == (3, 5)


def test_a_copy_is_one_sweep_with_traffic_two_like_a_fused_kernel():
    for fn in (lambda a: a.copy(), np.copy, lambda a: a.astype(np.float64)):
        counted = cost.count_sweeps(fn, X32)
        assert {k: counted[k] for k in cost.FUSED} == cost.FUSED


def test_counter_sees_inside_numpy_functions():
    # np.var: media (lee), x − μ (lee y escribe), cuadrado (lee y escribe), suma (lee).
    counted = cost.count_sweeps(lambda a: np.var(a, axis=-1), X32)
    assert (counted["sweeps"], counted["arrays"]) == (4, 6)
    # Un paso de más (multiplicar por 1) se nota: una pasada y dos arrays más.
    more = cost.count_sweeps(lambda a: cost.naive_rms_norm(a) * 1.0, X32)
    assert (more["sweeps"], more["arrays"]) == (4, 7)


def test_counter_ignores_row_statistics_and_sees_nothing_after_asarray():
    # Las operaciones sobre (N, 1) (μ, σ², la raíz) no recorren el array completo.
    small_only = cost.count_sweeps(lambda a: a[:, :1] * 2.0 + 1.0, X32)
    assert small_only["sweeps"] == 0
    # resnorm convierte con np.asarray: el recuento no lo ve (limitación documentada).
    assert cost.count_sweeps(resnorm.layer_norm, X32)["sweeps"] == 0


def test_torch_layer_norm_is_one_fused_kernel():
    counted = cost.count_torch_sweeps(lambda t: F.layer_norm(t, (32,)), X32)
    assert counted["ops"] == ["native_layer_norm"]
    assert {k: counted[k] for k in cost.FUSED} == cost.FUSED
    assert cost.count_torch_sweeps(lambda t: t.clone(), X32)["arrays"] == 2


def test_torch_rms_norm_on_cpu_is_three_kernels_not_one():
    # En la CPU, torch 2.13 compone rms_norm con pow, mean y mul: tres pasadas.
    counted = cost.count_torch_sweeps(lambda t: F.rms_norm(t, (32,)), X32)
    assert counted["ops"] == ["pow", "mean", "mul"]
    assert (counted["sweeps"], counted["arrays"]) == (3, 5)


# --- Bytes y GB/s -------------------------------------------------------------------


def test_minimum_bytes_is_read_x_plus_write_y():
    assert cost.minimum_bytes((4096, 1024), 4) == 2 * 16 * 2**20  # 2 · 16 MiB
    assert cost.minimum_bytes((3, 5), 8) == 240


def test_effective_gbps_divides_minimum_bytes_by_seconds():
    assert cost.effective_gbps((4096, 1024), 4, 0.004) == pytest.approx(8.388608)
    assert cost.effective_gbps((4096, 1024), 4, 0.008) == pytest.approx(
        cost.effective_gbps((4096, 1024), 4, 0.004) / 2
    )


def test_time_once_returns_wall_and_cpu_seconds_and_page_faults():
    t = cost.time_once(lambda: sum(range(200_000)))
    assert t["wall_s"] > 0 and t["cpu_s"] > 0
    assert t["cpu_s"] <= t["wall_s"] * 1.5 + 1e-3  # un hilo: la CPU no supera al reloj
    # Escribir por primera vez 64 MiB recién pedidos obliga al sistema a preparar
    # páginas; reescribir un búfer ya usado, no.
    fresh = cost.time_once(lambda: np.ones(16 * 2**20, dtype=np.float32))
    buffer = np.ones(16 * 2**20, dtype=np.float32)
    reused = cost.time_once(lambda: buffer.fill(2.0))
    assert fresh["faults"] > reused["faults"]


# --- Las medidas -----------------------------------------------------------------
#
# Aquí, la forma de lo que mide ``measure_norms``; las relaciones entre tiempos (la
# copia es lo más rápido, menos pasadas tardan menos, el kernel fusionado gana a la
# receta ingenua) dependen de la máquina y de su carga: las comprueba «make bench»
# contra sus presupuestos (``bench/cost.py``).


@pytest.fixture(scope="module")
def measured():
    return cost.measure_norms((2048, 1024), repeats=7, warmup=1, seed=0)


def test_measure_norms_returns_one_flat_row_per_method(measured):
    assert [r["method"] for r in measured] == list(cost.METHODS)
    for r in measured:
        assert r["shape"] == [2048, 1024] and r["repeats"] == 7
        assert r["cpu_s"] > 0 and r["wall_s"] > 0 and r["faults"] >= 0
        gbps = cost.effective_gbps((2048, 1024), 4, r["cpu_s"])
        assert r["gbps"] == pytest.approx(gbps)
    assert min(r["vs_copy"] for r in measured) == 1.0


def test_measure_norms_restores_torch_threads():
    before = torch.get_num_threads()
    cost.measure_norms((64, 32), repeats=1, methods=["copy_new", "torch_layer_norm"])
    assert torch.get_num_threads() == before


def test_fewer_sweeps_move_fewer_arrays_and_the_kernel_is_one_sweep(measured):
    rows = cost.rows_by_method(measured)
    # LayerNorm ingenua (tráfico 8) > RMSNorm ingenua (5) > copia a un búfer (2).
    assert rows["naive_layer_norm"]["arrays"] > rows["naive_rms_norm"]["arrays"]
    assert rows["naive_rms_norm"]["arrays"] > rows["copy_into"]["arrays"]
    assert rows["torch_layer_norm"]["sweeps"] == 1


def test_resnorm_rows_are_timed_but_not_counted(measured):
    rows = cost.rows_by_method(measured)
    assert rows["resnorm_layer_norm"]["sweeps"] is None
    assert rows["resnorm_layer_norm"]["cpu_s"] > 0


def test_rows_by_method_refuses_mixed_shapes(measured):
    other = dict(measured[0], shape=[1, 1])
    with pytest.raises(ValueError, match="una sola forma"):
        cost.rows_by_method(measured + [other])


def test_table_and_alt_text_name_every_method(measured):
    table = cost.table_text(measured)
    alt = cost.describe_bandwidth(measured)
    for r in measured:
        assert r["label"] in table and r["label"] in alt
    assert "2048×1024" in alt and "límite de la copia" in alt


def test_plot_bandwidth_draws_one_bar_per_method_and_the_limit(measured):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    cost.plot_bandwidth(ax, measured)
    assert len(ax.patches) == len(measured)
    assert ax.lines and ax.lines[0].get_xdata()[0] == pytest.approx(
        cost._copy_limit(measured)
    )
    plt.close(fig)


# --- Los comprobadores del apéndice -------------------------------------------------


def test_gbps_checker_accepts_the_formula_and_names_the_usual_slips():
    def good(shape, seconds, itemsize=4):
        return 2 * np.prod(shape) * itemsize / seconds / 1e9

    def only_reads(shape, seconds, itemsize=4):
        return np.prod(shape) * itemsize / seconds / 1e9

    def gib(shape, seconds, itemsize=4):
        return 2 * np.prod(shape) * itemsize / seconds / 2**30

    def stub(shape, seconds, itemsize=4):
        raise NotImplementedError

    assert check_effective_gbps(good)
    assert "se escribe" in check_effective_gbps(only_reads).hint
    assert "GiB" in check_effective_gbps(gib).hint
    assert "Aún no has escrito" in str(check_effective_gbps(stub))


def test_rms_sweeps_checker_counts_passes_not_just_values():
    def three(x, eps):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)

    def four(x, eps):
        return three(x, eps) * 1.0

    def layer_norm_instead(x, eps):
        c = x - x.mean(axis=-1, keepdims=True)
        return c / np.sqrt(np.mean(c * c, axis=-1, keepdims=True) + eps)

    fb = check_rms_norm_sweeps(three)
    assert fb and "3 pasadas" in str(fb)
    fb = check_rms_norm_sweeps(four)
    assert not fb and "haces 4 pasadas" in str(fb)
    assert "eso es LayerNorm" in check_rms_norm_sweeps(layer_norm_instead).hint
    fb = check_rms_norm_sweeps(lambda x, eps: three(np.asarray(x), eps))
    assert not fb and "np.asarray" in str(fb)
