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
import math
import shutil
import subprocess

import pytest
import torch
from torch.nn import functional as F

from resnorm import gpt
from resnorm.widgets import gpt_playground as gp
from tests.floats import close_or_both_noise
from tests.helpers import GPT_MEMO, GPT_MEMO_ENV


NODE = shutil.which("node")
ATOL = 1e-4
#: La pérdida de validación con los pesos int8 no se aleja más de esto (en nats) de
#: la de float32.
QUANT_MARGIN = 0.01
PROMPTS = ["La conexión residual", "a", "¿Qué normaliza LayerNorm? La",
           "El gradiente llega a la capa 1."]

needs_node = pytest.mark.skipif(NODE is None, reason="hace falta node en el PATH")

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
    """Los cinco modelos del capítulo 10, con la llamada de su celda (semilla 0, 150
    pasos): de la memoria de entrenamientos que llenó la ejecución del libro, si está
    (``tests/conftest.py``, ``gpt_memo``); si no, se entrenan."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(GPT_MEMO_ENV, str(GPT_MEMO))
        return gpt.gpt_comparison(seed=0, steps=150, lr=3e-3)["runs"]


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


@needs_node
def test_js_forward_equals_pytorch_float32(short_runs, dataset, tmp_path):
    out = run_node(tmp_path, node_payload(short_runs, dataset.chars,
                                          encode(dataset, PROMPTS), quantize=False))
    check_logits(short_runs, dataset, out)


@needs_node
def test_js_forward_equals_pytorch_on_int8_weights(short_runs, dataset, tmp_path):
    out = run_node(tmp_path, node_payload(short_runs, dataset.chars,
                                          encode(dataset, PROMPTS)))
    check_logits(short_runs, dataset, out, weights=gpt.dequantize_weights)


@needs_node
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
                for stage, (js, py) in enumerate(zip(got["stats"][key], stats[key])):
                    if py is None:
                        continue
                    # La escala de la etapa es ‖x_t‖ (norm). Una dispersión que colapsó
                    # (la pila plana: todas las posiciones iguales) es ruido de float32
                    # de unas decenas de operaciones (≤ 100 ulps de ‖x_t‖) y se afirma
                    # por debajo de él en los dos lados, nunca igual: cada CPU
                    # redondea distinto (2e-8 en una, 1e-6 en otra).
                    problem = close_or_both_noise(
                        js, py, what=f"{config}, «{key}» tras la etapa {stage}",
                        scale=stats["norm"][stage])
                    assert problem is None, problem


@needs_node
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


@needs_node
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


# --- El formato de exportación (Python) -----------------------------------------------


@pytest.fixture(scope="module")
def fresh_state():
    """Los pesos de un TinyGPT Pre-LN recién creado (semilla fija; sin entrenar)."""
    torch.manual_seed(0)
    model = gpt.TinyGPT("pre_ln", 99, n_layers=2)
    with torch.no_grad():  # que las LayerNorm no sean todas 1 y 0
        for name, p in model.named_parameters():
            if p.ndim == 1:
                p.add_(torch.randn_like(p) * 0.1)
    return model.state_dict()


def test_export_float32_round_trip_is_exact(fresh_state):
    back = gpt.import_weights(*gpt.export_weights(fresh_state, quantize=False))
    assert list(back) == list(fresh_state)
    for name, w in fresh_state.items():
        assert torch.equal(back[name], w), name


def test_export_int8_rounds_each_weight_to_half_a_step_of_its_row(fresh_state):
    entries, blob = gpt.export_weights(fresh_state)
    back = gpt.import_weights(entries, blob)
    for e in entries:
        w, got = fresh_state[e["name"]], back[e["name"]]
        if w.ndim == 1:  # sesgos, γ y β: float32 tal cual
            assert e["dtype"] == "f32" and torch.equal(got, w), e["name"]
            continue
        assert e["dtype"] == "q8"
        step = w.abs().amax(dim=1, keepdim=True) / 127  # (filas, 1)
        err = (got - w).abs()
        assert bool((err <= step / 2 * (1 + 1e-5) + 1e-12).all()), e["name"]
        assert float(err.max()) > 0, f"{e['name']}: int8 no cambió nada"


def test_export_size_is_one_byte_per_matrix_weight(fresh_state):
    entries, blob = gpt.export_weights(fresh_state)
    expected = 0
    for e in entries:
        n = math.prod(e["shape"])
        assert e["offset"] == expected and e["offset"] % 4 == 0, e["name"]
        size = n + 4 * e["shape"][0] if e["dtype"] == "q8" else 4 * n
        expected += size + (-size % 4)
    assert len(blob) == expected
    n_params = sum(w.numel() for w in fresh_state.values())
    assert len(blob) < 0.3 * 4 * n_params, "int8 debería pesar menos de un 30 % de f32"


def test_export_rejects_an_unknown_dtype(fresh_state):
    entries, blob = gpt.export_weights(fresh_state)
    entries[0] = {**entries[0], "dtype": "f16"}
    with pytest.raises(ValueError, match="desconocido"):
        gpt.import_weights(entries, blob)


def test_trained_model_leaves_the_global_random_state_alone(short_runs, dataset):
    torch.manual_seed(5)
    before = torch.rand(3)
    torch.manual_seed(5)
    model = gpt.trained_model(short_runs["plain"], dataset.vocab_size)
    assert torch.equal(torch.rand(3), before)
    sd = short_runs["plain"]["state_dict"]
    assert all(torch.equal(model.state_dict()[k], v) for k, v in sd.items())


def test_playground_state_is_json_without_nan_and_weights_are_data_urls(
        short_runs, dataset):
    data = gp.playground_data(short_runs, dataset.chars, n_chars=10)
    json.dumps(data, allow_nan=False)  # lanza si hay NaN o infinito
    assert set(data["examples"]) == set(gpt.CONFIGS)
    for config, url in data["weights"].items():
        assert url.startswith(gp.BINARY_URL)
        blob = base64.b64decode(url[len(gp.BINARY_URL):])
        assert len(blob) == data["models"][config]["bytes"]
        ex = data["examples"][config]
        assert len(ex["greedy"]) == len(ex["sample"]) == 10
        assert len(ex["losses"]) == len(gp.DEFAULTS["prompt"]) - 1
        assert len(ex["norm"]) == 6 + 2  # emb., 6 bloques, ln_f
        assert (ex["norm"][-1] is None) == (config != "pre_ln")


def test_playground_explains_bad_arguments_in_spanish(short_runs, dataset):
    with pytest.raises(ValueError, match="state_dict"):
        gp.playground_data({"plain": {k: v for k, v in short_runs["plain"].items()
                                      if k != "state_dict"}}, dataset.chars)
    with pytest.raises(ValueError, match="ninguna de las configuraciones"):
        gp.playground_data({}, dataset.chars)
    with pytest.raises(ValueError, match="vocabulario"):
        gp.GPTPlayground(short_runs, ["ab"])
