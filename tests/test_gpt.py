"""El GPT diminuto del capítulo 10: el corpus se regenera desde su commit, el modelo es
causal y parte de los mismos pesos en cada versión, y lo que se mide dentro de él es lo
que dice su definición.

Lo que el capítulo lee de los entrenamientos lo afirman sus celdas ``remove-cell`` con
la semilla del capítulo cada vez que se construye el libro; con otras dos semillas, lo
comprueba el banco (``python -m bench --sections gpt_seeds``, bench/gpt_seeds.py)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import torch

from resnorm import gpt
from resnorm.data import load_corpus, make_corpus
from tests.helpers import ROOT


# --- Corpus ---------------------------------------------------------------------------


def _commit_available() -> bool:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return False
    probe = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e",
         f"{make_corpus.SOURCE_COMMIT}^{{commit}}"],
        capture_output=True,
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _commit_available(), reason="sin git o sin el commit de origen")
def test_corpus_is_regenerated_byte_for_byte_from_its_recorded_commit():
    # La entrada es la del commit fijo (git show), no la carpeta de trabajo: aunque los
    # capítulos cambien, el corpus y sus números no.
    assert make_corpus.build_corpus() == load_corpus()


def test_corpus_is_prose_without_code_formulas_or_myst_marks():
    text = load_corpus()
    assert len(text) > 30_000
    for mark in ("$", "`", "{term}", "{glue", "{cite", ":::", "<svg", "\x00", "{{"):
        assert mark not in text, mark
    assert "conexión residual" in text and "LayerNorm" in text


def test_make_corpus_strips_roles_math_code_and_broken_sentences():
    md = (
        "# Título\n\nUna {term}`conexión residual <atajo>` suma la entrada. "
        "La media vale {glue:text}`mu:.2f` aquí.\n\n"
        "```python\nprint(1)\n```\n\n$$x + F(x)$$\n\n"
        ":::{admonition} Objetivos\n:class: tip\n"
        "Texto de la caja, largo y completo.\n:::\n"
    )
    # El título y «Objetivos» son restos cortos (< 20 caracteres): fuera también.
    assert make_corpus.prose(md) == [
        "Una conexión residual suma la entrada.",
        "Texto de la caja, largo y completo.",
    ]


def test_char_dataset_round_trips_and_splits_without_mixing():
    text = load_corpus()
    data = gpt.CharDataset(text, val_fraction=0.1)
    assert data.decode(data.encode(text[:500])) == text[:500]
    assert len(data.train) + len(data.val) == len(text)
    assert data.decode(data.val) == text[len(data.train):]
    assert data.vocab_size == len(set(text))


def test_unigram_loss_is_the_cross_entropy_of_smoothed_train_frequencies():
    data = gpt.CharDataset("aab" * 30 + "abc", val_fraction=0.1)
    counts = np.bincount(data.train.numpy(), minlength=data.vocab_size) + 1.0
    p = counts / counts.sum()
    expected = -np.log(p[data.val.numpy()[1:]]).mean()
    assert gpt.unigram_loss(data) == pytest.approx(expected)


# --- Modelo ---------------------------------------------------------------------------


@pytest.mark.parametrize("config", gpt.CONFIGS)
def test_tiny_gpt_is_causal(config):
    torch.manual_seed(0)
    model = gpt.TinyGPT(config, vocab_size=11, n_layers=2, d_model=16, block_size=8)
    x = torch.randint(11, (1, 8))
    y = x.clone()
    y[0, 5:] = (y[0, 5:] + 1) % 11  # cambia el futuro a partir de la posición 5
    with torch.no_grad():
        assert torch.allclose(model(x)[:, :5], model(y)[:, :5], atol=1e-6)
        assert not torch.allclose(model(x)[:, 5:], model(y)[:, 5:])


def test_every_config_starts_from_the_same_weights():
    def weights(config):
        torch.manual_seed(3)
        model = gpt.TinyGPT(config, vocab_size=11, n_layers=3, d_model=16)
        return {k: v for k, v in model.state_dict().items() if "ln" not in k}

    reference = weights("pre_ln")
    for config in gpt.CONFIGS:
        got = weights(config)
        assert got.keys() == reference.keys(), config
        assert all(torch.equal(got[k], reference[k]) for k in got), config


def test_post_ln_and_pre_ln_configs_are_the_course_blocks():
    from resnorm.blocks import PostLNBlock, PreLNBlock

    post = gpt.TinyGPT("post_ln", 11, n_layers=2, d_model=16)
    pre = gpt.TinyGPT("pre_ln", 11, n_layers=2, d_model=16)
    assert all(isinstance(b, PostLNBlock) for b in post.blocks)
    assert all(isinstance(b, PreLNBlock) for b in pre.blocks)
    assert isinstance(pre.ln_f, torch.nn.LayerNorm)
    assert isinstance(post.ln_f, torch.nn.Identity)


def test_training_is_deterministic_and_leaves_global_state_alone():
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    threads = torch.get_num_threads()
    a = gpt.train_gpt("pre_ln", steps=6, eval_every=3, sample_chars=10, n_layers=2)
    b = gpt.train_gpt("pre_ln", steps=6, eval_every=3, sample_chars=10, n_layers=2)
    assert torch.rand(1) == before
    assert torch.get_num_threads() == threads
    assert a["train_loss"] == b["train_loss"] and a["val_loss"] == b["val_loss"]
    assert a["samples"] == b["samples"]
    assert all(s.startswith(gpt.PROMPT) for s in a["samples"])


def test_the_training_memo_returns_the_same_run_and_trains_on_any_other_call(
        tmp_path, monkeypatch):
    from tests.helpers import GPT_MEMO_ENV

    assert GPT_MEMO_ENV == gpt.MEMO_ENV
    small = dict(steps=4, eval_every=2, sample_chars=10, n_layers=2)
    fresh = gpt.train_gpt("pre_ln", **small)  # sin memoria: no escribe nada
    monkeypatch.setenv(gpt.MEMO_ENV, str(tmp_path))
    assert not list(tmp_path.iterdir())
    first = gpt.train_gpt("pre_ln", **small)
    (saved,) = tmp_path.glob("*.pt")
    again = gpt.train_gpt("pre_ln", **small)
    # Leído, no entrenado otra vez: hasta el tiempo medido es el de la primera vez.
    assert again["seconds"] == first["seconds"] != fresh["seconds"]
    for run in (first, again):
        assert run["train_loss"] == fresh["train_loss"]
        assert run["samples"] == fresh["samples"]
        for name, tensor in fresh["state_dict"].items():
            assert torch.equal(run["state_dict"][name], tensor), name
    assert again["model"] is not first["model"]  # cada llamada, su propia copia
    # Cualquier argumento distinto (también por posición) es otro entrenamiento.
    gpt.train_gpt("pre_ln", **{**small, "lr": 1e-2})
    gpt.train_gpt("post_ln", **small)
    assert len(list(tmp_path.glob("*.pt"))) == 3
    # Un texto distinto, también.
    other = gpt.CharDataset((gpt.PROMPT + " suma la entrada. ") * 40)
    gpt.train_gpt("pre_ln", **small, block_size=8, dataset=other)
    assert len(list(tmp_path.glob("*.pt"))) == 4
    # El bloque de quien resuelve un ejercicio siempre entrena.
    gpt.train_gpt("pre_ln", **small, block_forward=lambda block, x: block(x))
    assert len(list(tmp_path.glob("*.pt"))) == 4 and saved.exists()


def test_known_word_fraction_counts_only_the_generated_words():
    text = "la conexión residual suma la entrada"
    generated = [gpt.PROMPT + " suma xq entrada"]
    assert gpt.known_word_fraction(generated, text) == pytest.approx(2 / 3)
    assert gpt.known_word_fraction([gpt.PROMPT], text) == 0.0


# --- Dentro del modelo entrenado (la figura del final del capítulo) -----------------


def _small(config, seed=0):
    torch.manual_seed(seed)
    return gpt.TinyGPT(config, vocab_size=11, n_layers=3, d_model=16, block_size=8)


def test_stream_norms_follow_the_forward_pass_block_by_block():
    model = _small("pre_ln")
    idx = torch.randint(11, (4, 8), generator=torch.Generator().manual_seed(1))
    seen = []
    hooks = [b.register_forward_hook(lambda m, i, o: seen.append(o.norm(dim=-1)))
             for b in model.blocks]
    with torch.no_grad():
        model(idx)
    for h in hooks:
        h.remove()
    norms = gpt.stream_norms(model, idx)
    assert len(norms["blocks"]) == 1 + len(model.blocks)
    assert norms["blocks"][1:] == pytest.approx([float(n.mean()) for n in seen])
    with torch.no_grad():
        h0 = model.wte(idx) + model.wpe(torch.arange(8))
    assert norms["blocks"][0] == pytest.approx(float(h0.norm(dim=-1).mean()))
    assert model.training, "medir no cambia el modo del modelo"


def test_with_gamma_1_a_layer_norm_output_has_norm_sqrt_d():
    # Post-LN termina cada bloque en LayerNorm: recién creada (γ = 1, β = 0), cada
    # vector sale con media 0 y varianza ≈ 1, norma ≈ √16 = 4. Pre-LN solo tras ln_f.
    idx = torch.randint(11, (4, 8), generator=torch.Generator().manual_seed(2))
    post = gpt.stream_norms(_small("post_ln"), idx)
    pre = gpt.stream_norms(_small("pre_ln"), idx)
    assert post["blocks"][1:] == pytest.approx([4.0] * 3, rel=1e-3)
    assert not post["has_ln_f"] and post["ln_f"] == post["blocks"][-1]
    assert pre["has_ln_f"] and pre["ln_f"] == pytest.approx(4.0, rel=1e-3)
    assert pre["blocks"][-1] != pytest.approx(4.0, rel=0.05)


def test_norm_params_measure_how_far_gamma_and_beta_moved_from_1_and_0():
    model = _small("post_ln")
    fresh = gpt.norm_params(model)
    assert [p["name"] for p in fresh] == [f"blocks.{i}.ln_{j}" for i in range(3)
                                          for j in (1, 2)]
    assert all(p[k] == 0 for p in fresh for k in ("gamma_dev", "beta_dev"))
    with torch.no_grad():
        model.blocks[1].ln_2.weight[:8] = 1.5  # la mitad de γ, a 1.5
        model.blocks[1].ln_2.bias[:] = -0.2
    moved = gpt.norm_params(model)[3]
    assert moved["gamma_dev"] == pytest.approx(0.25)
    assert moved["gamma_max_dev"] == pytest.approx(0.5)
    assert moved["beta_dev"] == pytest.approx(0.2)
    assert [p["name"] for p in gpt.norm_params(_small("pre_ln"))][-1] == "ln_f"
    assert gpt.norm_params(_small("residual")) == []


def test_first_step_grad_norms_are_the_ones_train_gpt_records():
    data = gpt.CharDataset(load_corpus())
    run = gpt.train_gpt("post_ln", steps=1, n_layers=2, n_samples=0, dataset=data,
                        seed=5)
    torch.manual_seed(5)  # lo mismo que hace train_gpt: semilla, modelo, primer lote
    model = gpt.TinyGPT("post_ln", data.vocab_size, n_layers=2)
    x, y = data.batch(16, 32, torch.Generator().manual_seed(6))
    norms = gpt.first_step_grad_norms(model, x, y)
    assert norms == pytest.approx(run["first_grad_norm_layers"], rel=1e-5)
    by_hand = [float(b.mlp.c_proj.weight.grad.norm()) for b in model.blocks]
    assert gpt.layer_grad_norms(model) == by_hand == norms


def test_adamw_first_step_moves_each_weight_by_lr_whatever_the_gradient_scale():
    # m̂ = g y v̂ = g² en el primer paso: lr · g / |g|. Un gradiente mil veces mayor o
    # menor da el mismo paso; es lo que el capítulo advierte al leer los gradientes.
    sizes = []
    for scale in (1e-3, 1.0, 1e3):
        gen = torch.Generator().manual_seed(0)
        w = torch.nn.Parameter(torch.randn(32, 128, generator=gen))
        opt = torch.optim.AdamW([w], lr=3e-3)
        w.grad = scale * torch.randn(32, 128, generator=gen)
        before = [w.detach().clone()]
        opt.step()
        sizes.append(gpt.first_step_sizes(before, [w], lr=3e-3)[0])
    assert sizes == pytest.approx([1.0] * 3, abs=0.01)
    run = gpt.train_gpt("pre_ln", steps=1, n_layers=2, n_samples=0, lr=1e-2)
    assert run["first_step_size"] == pytest.approx([1.0] * 2, abs=0.01)
    warm = gpt.train_gpt("pre_ln", steps=1, n_layers=2, n_samples=0, lr=1e-2,
                         warmup=50)
    assert warm["first_step_size"] == pytest.approx([1.0] * 2, abs=0.01), (
        "en unidades de la tasa de ese paso (lr/50 con calentamiento)")


def test_train_gpt_returns_the_model_it_trained():
    data = gpt.CharDataset(load_corpus())
    run = gpt.train_gpt("pre_ln", steps=3, n_layers=2, n_samples=0, dataset=data)
    model = run["model"]
    assert isinstance(model, gpt.TinyGPT) and model.config == "pre_ln"
    vx, vy = data.val_windows(32)
    with torch.no_grad():
        loss = torch.nn.functional.cross_entropy(model(vx).flatten(0, 1), vy.flatten())
    assert float(loss) == pytest.approx(run["final_val_loss"], rel=1e-6)


def _inside_data():
    idx = torch.randint(11, (4, 8), generator=torch.Generator().manual_seed(3))
    models = {c: _small(c) for c in gpt.CONFIGS}
    return {
        "stream": {c: gpt.stream_norms(m, idx) for c, m in models.items()},
        "norm_params": {c: gpt.norm_params(models[c])
                        for c in ("ln_only", "post_ln", "pre_ln")},
        "first_grad": {"post_ln": [0.4, 0.5, 0.45], "pre_ln": [0.8, 0.6, 0.5]},
    }


def test_plot_gpt_inside_draws_each_config_with_its_course_style():
    import matplotlib

    matplotlib.use("Agg")
    from resnorm import plots

    data = _inside_data()
    fig, axes = plots.new_figure(4, 1, figsize=(4.4, 10))
    for ax, quantity in zip(axes, ("stream", "gamma", "beta", "grad")):
        plots.plot_gpt_inside(ax, data, quantity)
    stream = {line.get_label(): line for line in axes[0].get_lines()}
    assert set(stream) == {"Sin residual", "Sin residual, con LayerNorm",
                           "Residual sin LayerNorm", "Post-LN", "Pre-LN"}
    assert stream["Pre-LN"].get_color() == plots.KIND_STYLE["pre_ln"]["color"]
    # Solo Pre-LN tiene ln_f: un punto más que las demás, con su marca en el eje.
    assert len(stream["Pre-LN"].get_xdata()) == 5
    assert len(stream["Post-LN"].get_xdata()) == 4
    assert axes[0].get_xticklabels()[-1].get_text() == "ln_f"
    assert len(axes[1].get_lines()) == 3 and len(axes[3].get_lines()) == 2
    assert list(axes[3].get_lines()[1].get_ydata()) == [0.8, 0.6, 0.5]
    # Los paneles que cuentan LayerNorms o bloques marcan solo enteros.
    fig.canvas.draw()
    for ax in axes[1:]:
        ticks = [float(t) for t in ax.get_xticks()]
        assert ticks and all(t == int(t) for t in ticks), ticks
    with pytest.raises(ValueError):
        plots.plot_gpt_inside(axes[0], data, "alpha")
    alt = plots.alt_text_gpt_inside(data)
    assert "Pre-LN" in alt and "tras ln_f" in alt and "0.800" in alt
    matplotlib.pyplot.close(fig)
