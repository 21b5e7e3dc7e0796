"""Los entrenamientos a la vez del capítulo 10 (``train_gpts``, ``StackedGPT``) dan lo
mismo que cada uno por separado (``train_gpt``: un ``TinyGPT`` y ``torch.optim.AdamW``).

«Lo mismo» no es igual bit a bit. Un lote multiplica con ``bmm`` lo que un modelo solo
multiplica con ``mm``, y la LayerNorm y la media de la pérdida pueden sumar en otro
orden: cada operación en float32 difiere en el último bit (redondeo relativo
u = 2⁻²⁴ ≈ 6e-8), y esa diferencia se arrastra paso a paso. Adam la amplifica en los
pesos cuyo gradiente es casi 0 (divide el gradiente entre su propia magnitud), pero la
pérdida es una media de miles de términos y se mueve mucho menos: medido, la mayor
diferencia relativa de una curva es ≈ 4e-7 en 30 pasos, y la de la pérdida final del
capítulo, ≤ 3e-7 en 150 pasos a la tasa 3e-3. Las curvas se comparan, pues, con una
tolerancia relativa que crece con los pasos, ``1e-6 · pasos`` (100 veces lo medido o
más), y las lecturas del capítulo, por lo que afirman.

A la tasa 1e-2, cerca del límite de estabilidad, un entrenamiento largo amplifica el
redondeo mucho más (Post-LN con calentamiento y Pre-LN terminan a 6e-4 y 1.5e-3
relativos de su versión por separado tras 150 pasos): esas se comparan solo en 30 pasos,
y el capítulo las lee con márgenes de décimas (``tests/expected_values.toml``).
"""

from __future__ import annotations

import math

import pytest
import torch

from resnorm import gpt
from resnorm.data import load_corpus

SMALL = dict(n_layers=2, steps=30, eval_every=10, sample_chars=20)


def curve_rtol(steps: int) -> float:
    """La tolerancia relativa de una curva de pérdida tras ``steps`` pasos (arriba)."""
    return 1e-6 * steps


@pytest.fixture(scope="module")
def data():
    return gpt.CharDataset(load_corpus())


def solo(member: dict, data, **kwargs) -> dict:
    return gpt.train_gpt(member["config"], seed=member.get("seed", 0),
                         lr=member.get("lr", gpt.DEFAULTS["lr"]),
                         warmup=member.get("warmup", 0), dataset=data, **kwargs)


def assert_same_training(batched: dict, alone: dict, steps: int) -> None:
    rtol = curve_rtol(steps)
    assert batched["params"] == alone["params"]
    assert len(batched["train_loss"]) == len(alone["train_loss"])
    assert batched["train_loss"] == pytest.approx(alone["train_loss"], rel=rtol)
    assert batched["val_steps"] == alone["val_steps"]
    assert batched["val_loss"] == pytest.approx(alone["val_loss"], rel=rtol)
    assert batched["final_val_loss"] == pytest.approx(alone["final_val_loss"], rel=rtol)
    assert batched["diverged_at_step"] == alone["diverged_at_step"]
    # El paso 0 aún no ha redondeado nada distinto más que una pasada: u·(unas decenas).
    assert batched["first_grad_norm_layers"] == pytest.approx(
        alone["first_grad_norm_layers"], rel=1e-5)
    for k in ("wte", "lm_head"):
        assert batched["first_grad_norm"][k] == pytest.approx(
            alone["first_grad_norm"][k], rel=1e-5)
    assert batched["first_step_size"] == pytest.approx(alone["first_step_size"],
                                                       rel=1e-5)
    assert batched["state_dict"].keys() == alone["state_dict"].keys()
    assert type(batched["model"]) is type(alone["model"])


def test_each_member_of_a_batch_trains_as_it_would_alone(data):
    # Las cinco configuraciones juntas, y otra semilla con su tasa y su calentamiento.
    members = [{"config": c} for c in gpt.CONFIGS]
    members.append({"config": "post_ln", "seed": 1, "lr": 1e-2, "warmup": 10})
    batched = gpt.train_gpts(members, dataset=data, **SMALL)
    for member, run in zip(members, batched):
        assert run["config"] == member["config"]
        assert_same_training(run, solo(member, data, **SMALL), SMALL["steps"])


def test_each_member_starts_from_its_own_seed(data):
    # La pérdida del primer paso es la del primer lote con los pesos iniciales: otra
    # semilla, otros pesos y otro lote, aunque la configuración sea la misma.
    runs = gpt.train_gpts([{"config": "plain"}, {"config": "plain", "seed": 3}],
                          dataset=data, steps=2, n_layers=2, n_samples=0)
    assert runs[0]["train_loss"][0] != runs[1]["train_loss"][0]
    assert runs[0]["first_grad_norm"]["wte"] != runs[1]["first_grad_norm"]["wte"]
    assert runs[1]["params"]["seed"] == 3


def test_generated_texts_follow_from_each_members_weights(data):
    # Muestrear con los pesos del lote da los textos del lote: el mismo sorteo (semilla
    # + 2) con casi las mismas probabilidades (un carácter solo cambiaría si el número
    # sorteado cayera a ~1e-6 de una frontera entre dos caracteres).
    (run,) = gpt.train_gpts([{"config": "pre_ln", "seed": 4}], dataset=data, **SMALL)
    model = gpt.trained_model(run, data.vocab_size)
    prompt = torch.tensor([data.encode(gpt.PROMPT)] * 2)
    gen = torch.Generator().manual_seed(4 + 2)  # la semilla del muestreo
    out = model.generate(prompt, SMALL["sample_chars"], gen)
    assert run["samples"] == [data.decode(row) for row in out]


def test_the_returned_model_is_the_trained_member(data):
    runs = gpt.train_gpts([{"config": c} for c in ("residual", "post_ln")],
                          dataset=data, steps=5, n_layers=2, n_samples=0)
    vx, vy = data.val_windows(32)
    for run in runs:
        with torch.no_grad():
            logits = run["model"](vx)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), vy.flatten())
        assert float(loss) == pytest.approx(run["final_val_loss"], rel=1e-5)
        assert run["model"].config == run["config"]


def test_a_block_forward_written_for_one_block_works_on_the_stacked_block(data):
    def pre_ln_by_hand(block, x):
        x = x + block.attn(block.ln_1(x))
        return x + block.mlp(block.ln_2(x))

    small = dict(steps=6, n_layers=2, n_samples=0, dataset=data)
    members = [{"config": "pre_ln"}, {"config": "pre_ln", "seed": 2}]
    by_hand = gpt.train_gpts(members, block_forward=pre_ln_by_hand, **small)
    usual = gpt.train_gpts(members, **small)
    for a, b in zip(by_hand, usual):
        # Las mismas operaciones en el mismo orden: los mismos bits.
        assert a["train_loss"] == b["train_loss"]
        assert a["model"].block_forward is pre_ln_by_hand


def test_the_chapter_exercise_trains_as_train_gpt_with_the_learners_block(data):
    # El ejercicio 10.2 entrena en un lote de uno (train_gpts): lo mismo que el
    # entrenamiento solo, con el bloque de quien aprende, salvo redondeo de float32.
    from resnorm.exercises import ch10

    small = {k: v for k, v in SMALL.items() if k != "sample_chars"}
    batched = ch10.train_without_ffn_shortcut(ch10._solution, seed=3, n_samples=0,
                                              dataset=data, **small)
    alone = gpt.train_gpt("pre_ln", seed=3, block_forward=ch10._solution,
                          n_samples=0, dataset=data, **small)
    assert_same_training(batched, alone, SMALL["steps"])
    assert batched["model"].block_forward is ch10._solution


def test_measuring_validation_less_often_trains_the_same_bits(data):
    # gpt_seeds y postln_edge solo miden al empezar y al terminar: medir no toca los
    # pesos ni los lotes, así que el entrenamiento y la pérdida final son idénticos.
    members = [{"config": "post_ln"}, {"config": "pre_ln", "seed": 1}]
    small = dict(steps=12, n_layers=2, n_samples=0, dataset=data)
    often = gpt.train_gpts(members, eval_every=3, **small)
    once = gpt.train_gpts(members, eval_every=12, **small)
    for a, b in zip(often, once):
        assert a["train_loss"] == b["train_loss"]
        assert a["final_val_loss"] == b["final_val_loss"]
        assert b["val_steps"] == [0, 12] and a["val_steps"] == [0, 3, 6, 9, 12]
        assert all(torch.equal(a["state_dict"][k], b["state_dict"][k])
                   for k in a["state_dict"])


def test_the_exercise_measures_only_the_final_loss_it_reads(data):
    # El ejercicio 10.2 solo lee la pérdida final: por omisión no mide la validación
    # cada 25 pasos ni genera textos (issue 51), y esa pérdida es la misma, bit a bit,
    # que con todas las medidas y los textos.
    from resnorm.exercises import ch10

    small = dict(steps=12, n_layers=2, dataset=data)
    default = ch10.train_without_ffn_shortcut(ch10._solution, seed=3, **small)
    measured = ch10.train_without_ffn_shortcut(ch10._solution, seed=3, eval_every=3,
                                               n_samples=2, sample_chars=5, **small)
    assert default["val_steps"] == [0, 12] and default["samples"] == []
    assert measured["val_steps"] == [0, 3, 6, 9, 12] and len(measured["samples"]) == 2
    assert default["train_loss"] == measured["train_loss"]
    assert default["final_val_loss"] == measured["final_val_loss"]


def test_a_diverging_member_stops_alone_and_the_others_go_on(data):
    kwargs = dict(steps=40, n_layers=2, n_samples=0, eval_every=10, dataset=data)
    wild = {"config": "plain", "lr": 1e4}
    runs = gpt.train_gpts([wild, {"config": "pre_ln"}], **kwargs)
    alone = solo(wild, data, **{k: v for k, v in kwargs.items() if k != "dataset"})
    step = alone["diverged_at_step"]
    assert step is not None, "con lr = 1e4 el modelo plano debería divergir"
    assert runs[0]["diverged_at_step"] == step
    assert runs[0]["final_val_loss"] is None and len(runs[0]["train_loss"]) == step
    assert runs[0]["train_loss"] == pytest.approx(alone["train_loss"],
                                                  rel=curve_rtol(step))
    assert runs[1]["diverged_at_step"] is None and len(runs[1]["train_loss"]) == 40
    assert all(math.isfinite(v) for v in runs[1]["state_dict"]["wte.weight"].flatten())


def test_batched_training_is_deterministic_and_leaves_global_state_alone(data):
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    threads = torch.get_num_threads()
    members = [{"config": "ln_only"}, {"config": "pre_ln", "seed": 1}]
    a = gpt.train_gpts(members, steps=4, n_layers=2, sample_chars=10, dataset=data)
    b = gpt.train_gpts(members, steps=4, n_layers=2, sample_chars=10, dataset=data)
    assert torch.rand(1) == before
    assert torch.get_num_threads() == threads
    for x, y in zip(a, b):
        assert x["train_loss"] == y["train_loss"] and x["samples"] == y["samples"]


def test_the_memo_keeps_each_batch_whole(tmp_path, monkeypatch, data):
    small = dict(steps=3, n_layers=2, n_samples=0, dataset=data)
    members = [{"config": "post_ln", "seed": 0}, {"config": "pre_ln", "seed": 0}]
    fresh = gpt.train_gpts(members, **small)
    monkeypatch.setenv(gpt.MEMO_ENV, str(tmp_path))
    first = gpt.train_gpts(members, **small)
    (saved,) = tmp_path.glob("train_gpts-*.pt")
    # Las mismas claves en otro orden dentro de cada miembro: el mismo lote.
    again = gpt.train_gpts([{"seed": 0, "config": m["config"]} for m in members],
                           **small)
    for f, x, y in zip(fresh, first, again):
        assert x["seconds"] == y["seconds"]  # leído, no entrenado otra vez
        assert x["train_loss"] == y["train_loss"] == f["train_loss"]
    # Otro lote (los mismos miembros en otro orden, o uno menos) es otro cálculo.
    gpt.train_gpts(members[::-1], **small)
    gpt.train_gpts(members[:1], **small)
    assert len(list(tmp_path.glob("train_gpts-*.pt"))) == 3 and saved.exists()
    gpt.train_gpts(members, block_forward=lambda block, x: block(x), **small)
    assert len(list(tmp_path.glob("*.pt"))) == 3


@pytest.mark.slow
def test_the_chapter_comparison_reads_the_same_batched_as_alone(data):
    # El experimento del capítulo tal cual (150 pasos, 6 bloques): las curvas, con la
    # tolerancia de 150 pasos, y cada lectura del capítulo, en las dos versiones.
    res = gpt.gpt_comparison(seed=0, steps=150, lr=3e-3)
    unigram = res["unigram_loss"]
    alone = {c: solo({"config": c}, data, steps=150) for c in gpt.CONFIGS}
    for runs in (res["runs"], alone):
        final = {c: r["final_val_loss"] for c, r in runs.items()}
        for c in ("plain", "ln_only"):
            assert abs(final[c] - unigram) < 0.1, c
        for c in ("residual", "post_ln", "pre_ln"):
            assert final[c] < unigram - 0.3, c
        assert final["post_ln"] < final["pre_ln"]
        words = {c: gpt.known_word_fraction(r["samples"], load_corpus())
                 for c, r in runs.items()}
        assert min(words[c] for c in ("residual", "post_ln", "pre_ln")) > max(
            words["plain"], words["ln_only"])
    for c in gpt.CONFIGS:
        assert_same_training(res["runs"][c], alone[c], 150)


def test_matmul_flops_counts_what_torch_counts_in_a_training_step():
    from torch.utils.flop_counter import FlopCounterMode

    torch.manual_seed(0)
    model = gpt.TinyGPT("pre_ln", vocab_size=11, n_layers=2, d_model=16, block_size=8)
    x = torch.randint(11, (3, 8))
    with FlopCounterMode(display=False) as forward:
        logits = model(x)
    with FlopCounterMode(display=False) as both:
        loss = torch.nn.functional.cross_entropy(model(x).flatten(0, 1), x.flatten())
        loss.backward()
    sizes = dict(n_layers=2, d_model=16, block_size=8, vocab_size=11)
    assert forward.get_total_flops() == gpt.matmul_flops(24, backward=False, **sizes)
    assert both.get_total_flops() == gpt.matmul_flops(24, **sizes)
    assert logits.shape == (3, 8, 11)
