"""El GPT diminuto en JavaScript (``resnorm/widgets/gpt.js``), con Node, contra PyTorch.

El widget «Prueba los cinco modelos» (Capítulo 10) hace en el navegador la pasada
hacia delante de ``resnorm.gpt.TinyGPT``. Aquí se comprueba que da los mismos logits
que PyTorch (≤ 1e-4) en varios textos para cada una de las cinco configuraciones,
con los pesos en float32 y con los de int8 por fila que descarga el navegador; que
la pérdida con int8 queda a menos de ``QUANT_MARGIN`` de la de float32; y que la
continuación voraz y la sorteada con semilla son las mismas que calcula Python.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess

import pytest
import torch
from torch.nn import functional as F

from resnorm import gpt
from resnorm.widgets import gpt_playground as gp


NODE = shutil.which("node")
ATOL = 1e-4
#: La pérdida de validación con los pesos int8 no se aleja más de esto (en nats) de
#: la de float32.
QUANT_MARGIN = 0.01
PROMPTS = ["La conexión residual", "a", "¿Qué normaliza LayerNorm? La",
           "El gradiente llega a la capa 1."]

pytestmark = pytest.mark.skipif(NODE is None, reason="hace falta node en el PATH")

RUNNER = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [gptPath, inputPath] = process.argv.slice(2);
const gpt = await import(pathToFileURL(gptPath).href);
const input = JSON.parse(readFileSync(inputPath, "utf8"));
const out = {};
for (const [key, m] of Object.entries(input.models)) {
  const bytes = new Uint8Array(Buffer.from(m.data, "base64"));
  const model = gpt.makeModel(m.meta, gpt.decodeWeights(bytes, m.meta.tensors));
  out[key] = {
    logits: input.prompts.map((ids) => Array.from(gpt.forward(model, ids).logits)),
    losses: input.prompts.map((ids) => gpt.charLosses(model, ids)),
    generated: input.generate.map(([ids, n, temperature, seed]) =>
      gpt.generate(model, ids, n, { temperature, seed })),
  };
}
process.stdout.write(JSON.stringify(out));
"""


def run_node(tmp_path, payload: dict) -> dict:
    runner = tmp_path / "runner.mjs"
    runner.write_text(RUNNER, encoding="utf-8")
    data = tmp_path / "input.json"
    data.write_text(json.dumps(payload), encoding="utf-8")
    gpt_js = gp.__file__.replace("gpt_playground.py", "gpt.js")
    done = subprocess.run([NODE, str(runner), gpt_js, str(data)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"Node falló: {done.stderr[-2000:]}"
    return json.loads(done.stdout)


def node_payload(runs: dict, chars, prompts, generate=(), quantize=True) -> dict:
    models = {}
    for config, run in runs.items():
        entries, blob = gpt.export_weights(run["state_dict"], quantize=quantize)
        model = gpt.trained_model(run, len(chars))
        models[config] = {"meta": gp.model_meta(model, entries),
                          "data": base64.b64encode(blob).decode("ascii")}
    return {"models": models, "prompts": prompts, "generate": list(generate)}


@pytest.fixture(scope="module")
def dataset():
    return gpt._dataset()


@pytest.fixture(scope="module")
def short_runs(dataset):
    """Las cinco configuraciones, entrenadas pocos pasos (unos segundos)."""
    return {c: gpt.train_gpt(c, steps=20, eval_every=20, n_samples=0, dataset=dataset)
            for c in gpt.CONFIGS}


@pytest.fixture(scope="module")
def chapter_runs():
    """Los cinco modelos del capítulo 10, con sus argumentos (semilla 0, 150 pasos)."""
    return gpt.gpt_comparison(seed=0, steps=150, lr=3e-3, n_samples=0)["runs"]


def torch_logits(model, ids) -> torch.Tensor:
    with torch.no_grad():
        return model(torch.tensor([ids]))[0]


def encode(dataset, texts):
    return [dataset.encode(t) for t in texts]


def check_logits(runs, dataset, node_out, weights=lambda sd: sd):
    for config, run in runs.items():
        model = gpt.trained_model({**run, "state_dict": weights(run["state_dict"])},
                                  dataset.vocab_size)
        for ids, got in zip(encode(dataset, PROMPTS), node_out[config]["logits"]):
            want = torch_logits(model, ids).double().flatten()
            got = torch.tensor(got, dtype=torch.float64)
            err = float((got - want).abs().max())
            assert err <= ATOL, (
                f"{config}: los logits de gpt.js se apartan {err:.2e} de PyTorch con "
                f"{dataset.decode(ids)!r}"
            )
            # Que la prueba no pase por logits triviales: varían de verdad.
            assert float(want.std()) > 0.05, f"{config}: logits casi constantes"


def test_js_forward_equals_pytorch_float32(short_runs, dataset, tmp_path):
    out = run_node(tmp_path, node_payload(short_runs, dataset.chars,
                                          encode(dataset, PROMPTS), quantize=False))
    check_logits(short_runs, dataset, out)


def test_js_forward_equals_pytorch_on_int8_weights(short_runs, dataset, tmp_path):
    out = run_node(tmp_path, node_payload(short_runs, dataset.chars,
                                          encode(dataset, PROMPTS)))
    check_logits(short_runs, dataset, out, weights=gpt.dequantize_weights)


def test_js_char_losses_and_stream_stats_equal_python(short_runs, dataset, tmp_path):
    out = run_node(tmp_path, node_payload(short_runs, dataset.chars,
                                          encode(dataset, PROMPTS)))
    for config, run in short_runs.items():
        model = gpt.trained_model(run, dataset.vocab_size)
        model.load_state_dict(gpt.dequantize_weights(run["state_dict"]))
        for ids, got in zip(encode(dataset, PROMPTS), out[config]["losses"]):
            idx = torch.tensor([ids])
            want = gp.char_losses(model, idx)
            assert got["losses"] == pytest.approx(want, abs=1e-4), config
            stats = gp.stream_stats(model, idx)
            for key in ("norm", "spread"):
                assert (got["stats"][key][-1] is None) == (stats[key][-1] is None)
                assert [v for v in got["stats"][key] if v is not None] == pytest.approx(
                    [v for v in stats[key] if v is not None], rel=1e-4, abs=1e-6), (
                    f"{config}: {key}")


def test_mulberry32_python_twin_matches_js(tmp_path):
    script = tmp_path / "rng.mjs"
    gpt_js = gp.__file__.replace("gpt_playground.py", "gpt.js")
    script.write_text(
        f"import {{ mulberry32 }} from {json.dumps('file://' + gpt_js)};\n"
        "const out = {};\n"
        "for (const seed of [0, 1, 42, 4294967295]) {\n"
        "  const r = mulberry32(seed); out[seed] = Array.from({length: 50}, r);\n"
        "}\nprocess.stdout.write(JSON.stringify(out));\n", encoding="utf-8")
    done = subprocess.run([NODE, str(script)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    for seed, values in got.items():
        r = gp.mulberry32(int(seed))
        assert values == [r() for _ in values], f"semilla {seed}"
        assert all(0 <= v < 1 for v in values) and len(set(values)) == len(values)


@pytest.mark.slow
def test_chapter_models_in_js_equal_pytorch_and_generate_the_same_text(
        chapter_runs, dataset, tmp_path):
    d = gp.DEFAULTS
    start = dataset.encode(d["prompt"])
    jobs = [[start, 60, 0, 0], [start, 60, d["temperature"], d["seed"]]]
    out = run_node(tmp_path, node_payload(chapter_runs, dataset.chars,
                                          encode(dataset, PROMPTS), jobs))
    check_logits(chapter_runs, dataset, out, weights=gpt.dequantize_weights)
    for config, run in chapter_runs.items():
        model = gpt.trained_model(
            {**run, "state_dict": gpt.dequantize_weights(run["state_dict"])},
            dataset.vocab_size)
        greedy = gp.continue_text(model, start, 60)
        sample = gp.continue_text(model, start, 60, d["temperature"], d["seed"])
        assert out[config]["generated"] == [greedy, sample], config


@pytest.mark.slow
def test_int8_weights_lose_at_most_the_stated_margin(chapter_runs, dataset):
    vx, vy = dataset.val_windows(32)
    for config, run in chapter_runs.items():
        losses = []
        for sd in (run["state_dict"], gpt.dequantize_weights(run["state_dict"])):
            model = gpt.trained_model({**run, "state_dict": sd}, dataset.vocab_size)
            with torch.no_grad():
                losses.append(float(F.cross_entropy(model(vx).flatten(0, 1),
                                                    vy.flatten())))
        assert abs(losses[1] - losses[0]) <= QUANT_MARGIN, (
            f"{config}: con int8 la pérdida pasa de {losses[0]:.4f} a {losses[1]:.4f}")
