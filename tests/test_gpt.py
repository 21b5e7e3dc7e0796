"""El GPT diminuto del capítulo 10: el corpus se regenera desde su commit, el modelo es
causal y parte de los mismos pesos en cada versión, y lo que el capítulo lee de las
curvas se cumple también con otras dos semillas (la del capítulo se afirma al
construirlo)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import torch

from resnorm import gpt
from resnorm.data import load_corpus, make_corpus
from resnorm.exercises import ch10
from tests.helpers import ROOT

#: La semilla 0 es la del capítulo: sus celdas ``remove-cell`` afirman lo mismo que
#: las pruebas de abajo sobre esos entrenamientos cada vez que se construye el libro.
#: Aquí, las otras dos: lo que el capítulo lee no depende de la semilla.
SEEDS = (1, 2)
WITH_SHORTCUT = ("residual", "post_ln", "pre_ln")
WITHOUT_SHORTCUT = ("plain", "ln_only")


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


def test_known_word_fraction_counts_only_the_generated_words():
    text = "la conexión residual suma la entrada"
    generated = [gpt.PROMPT + " suma xq entrada"]
    assert gpt.known_word_fraction(generated, text) == pytest.approx(2 / 3)
    assert gpt.known_word_fraction([gpt.PROMPT], text) == 0.0


# --- Lo que el capítulo lee, con tres semillas (la 0 en el capítulo, 1 y 2 aquí) ---


@pytest.fixture(scope="module")
def runs_by_seed():
    """Los entrenamientos de una semilla, hechos la primera vez que se piden: con
    pytest-xdist cada semilla va a un proceso (tests/conftest.py) y cada proceso
    entrena solo la suya."""
    out = {}

    def get(seed: int):
        if seed not in out:
            comparison = gpt.gpt_comparison(seed=seed, n_samples=0)
            high = gpt.lr_sensitivity(seed=seed, n_samples=0)
            cut = ch10.train_without_ffn_shortcut(ch10._solution, seed=seed,
                                                  n_samples=0)
            out[seed] = (comparison, high, cut)
        return out[seed]

    return get


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_without_shortcut_the_gpt_stays_at_the_frequency_loss(runs_by_seed, seed):
    comparison, _, _ = runs_by_seed(seed)
    unigram = comparison["unigram_loss"]
    for config in WITHOUT_SHORTCUT:
        run = comparison["runs"][config]
        assert abs(run["final_val_loss"] - unigram) < 0.1, (config, seed)
        # Baja deprisa de ln V a la referencia en los primeros 25 pasos.
        assert run["val_loss"][0] > unigram + 1 and run["val_loss"][1] < unigram + 0.1


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_with_shortcut_the_gpt_ends_well_below_the_frequency_loss(runs_by_seed, seed):
    comparison, _, _ = runs_by_seed(seed)
    unigram = comparison["unigram_loss"]
    # Todas parten de cerca de ln V, la pérdida de repartir la probabilidad por igual.
    start = [r["val_loss"][0] for r in comparison["runs"].values()]
    assert max(abs(s - np.log(comparison["vocab_size"])) for s in start) < 0.5
    for config in WITH_SHORTCUT:
        final = comparison["runs"][config]["final_val_loss"]
        assert final < unigram - 0.3, (config, seed)
    # Y terminan cerca: a menos de la mitad de lo que bajan de la referencia.
    near = [comparison["runs"][c]["final_val_loss"] for c in WITH_SHORTCUT]
    assert max(near) - min(near) < 0.5 * (unigram - max(near)), seed


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_post_ln_needs_warm_up_at_the_larger_rate_and_pre_ln_does_not(runs_by_seed,
                                                                       seed):
    comparison, high, _ = runs_by_seed(seed)
    unigram = comparison["unigram_loss"]
    final = {k: r["final_val_loss"] for k, r in high["runs"].items()}
    assert abs(final["post_ln"] - unigram) < 0.1, seed
    assert final["post_ln_warmup"] < unigram - 0.3, seed
    assert final["pre_ln"] < unigram - 0.2, seed
    assert final["post_ln"] > comparison["runs"]["post_ln"]["final_val_loss"] + 0.3


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_removing_the_ffn_shortcut_alone_is_enough_to_stop_learning(runs_by_seed, seed):
    comparison, _, cut = runs_by_seed(seed)
    assert abs(cut["final_val_loss"] - comparison["unigram_loss"]) < 0.1, seed


# --- Ejercicios -----------------------------------------------------------------------
