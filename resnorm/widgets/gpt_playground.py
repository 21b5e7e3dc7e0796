"""Capítulo 10: «Prueba los cinco modelos» (``gpt_playground.js``, ``gpt.js``).

Los cinco GPT diminutos que entrena el capítulo, en el navegador del lector. Python
exporta sus pesos (``resnorm.gpt.export_weights``, int8 por fila) y calcula, al
construir el libro, un ejemplo por modelo para el primer dibujo; el navegador hace
después la misma cuenta con los mismos pesos (``gpt.js``).

Tres capas, como los demás widgets: el cálculo puro (aquí ``stream_stats``,
``char_losses``, ``continue_text`` y ``mulberry32``, gemelos de ``gpt.js``), el
dibujo y el cableado (``gpt_playground.js``).
"""

from __future__ import annotations

import base64
import math
from pathlib import Path

import torch
import traitlets
from torch.nn import functional as F

from resnorm.gpt import (
    CONFIGS,
    EXPORT_FORMAT,
    PROMPT,
    _STYLE_KEY,
    dequantize_weights,
    export_weights,
    trained_model,
)
from resnorm.plots import svg_series_style
from resnorm.widgets._base import CourseWidget, spanish_error
from resnorm.widgets.bundler import bundle, minify_css

#: Lo que el lector ve antes de tocar nada: la frase del capítulo y 80 caracteres (como
#: las muestras del capítulo), sorteados con semilla.
DEFAULTS = {"prompt": PROMPT, "seed": 1, "temperature": 0.8, "n_chars": 80,
            "mode": "sample"}
#: Límites de los controles (el navegador los lee de ``settings``).
LIMITS = {"seed": [0, 9999], "temperature": [0.1, 2.0], "n_chars": [10, 300]}
#: Los pesos viajan así en el estado; el sitio los escribe como archivo
#: (``book/_ext/tema_ligero.py``) y el navegador solo los pide al usarlos.
BINARY_URL = "data:application/octet-stream;base64,"


# --- Cálculo (gemelo de gpt.js) -------------------------------------------------------


def mulberry32(seed: int):
    """El generador de ``gpt.js``: la misma sucesión de números en [0, 1)."""
    state = seed & 0xFFFFFFFF

    def imul(a: int, b: int) -> int:
        return (a * b) & 0xFFFFFFFF

    def next_value() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & 0xFFFFFFFF
        t = state
        t = imul(t ^ (t >> 15), t | 1)
        t ^= (t + imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    return next_value


@torch.no_grad()
def stream_stats(model, idx: torch.Tensor) -> dict:
    """Tamaño del flujo residual a la entrada (embedding de token más el de posición),
    tras cada bloque y tras ``ln_f``.

    Para una entrada ``(1, T)``: ``norm`` es la media sobre las posiciones de
    ``‖x_t‖`` y ``spread``, la de ``‖x_t − x̄‖`` (``x̄``, la media de las posiciones):
    lo que distingue a cada posición de las demás. Una lista de ``n_layers + 2``
    valores; el último es ``None`` si el modelo no tiene ``ln_f``. Capítulo 10.
    """
    T = idx.shape[1]
    x = model.wte(idx) + model.wpe(torch.arange(T))  # (1, T, C)
    stages = [x]
    for block in model.blocks:
        x = block(x)
        stages.append(x)
    if isinstance(model.ln_f, torch.nn.LayerNorm):
        stages.append(model.ln_f(x))
    norm = [float(s.norm(dim=-1).mean()) for s in stages]
    spread = [float((s - s.mean(dim=1, keepdim=True)).norm(dim=-1).mean())
              for s in stages]
    if len(stages) == len(model.blocks) + 1:
        norm.append(None)
        spread.append(None)
    return {"norm": norm, "spread": spread}


@torch.no_grad()
def char_losses(model, idx: torch.Tensor) -> list[float]:
    """−ln p(carácter siguiente) en cada posición de ``idx`` ``(1, T)``: T − 1
    valores (el primer carácter no tiene contexto)."""
    logits = model(idx)[0, :-1]  # (T − 1, V)
    return F.cross_entropy(logits, idx[0, 1:], reduction="none").tolist()


@torch.no_grad()
def continue_text(model, ids: list[int], n_chars: int, temperature: float = 0.0,
                  seed: int = 0) -> list[int]:
    """``n_chars`` índices más tras ``ids``: voraz (argmax) con ``temperature = 0``;
    si no, sorteados con ``softmax(logits / temperature)`` y ``mulberry32(seed)``
    (CDF inversa), como ``generate`` de ``gpt.js``."""
    rng = mulberry32(seed)
    out = list(ids)
    for _ in range(n_chars):
        logits = model(torch.tensor([out[-model.block_size:]]))[0, -1].double()
        if temperature <= 0:
            out.append(int(logits.argmax()))
            continue
        p = torch.softmax(logits / temperature, dim=-1).tolist()
        u, acc, choice = rng(), 0.0, None
        for i, pi in enumerate(p):
            acc += pi
            if u < acc:
                choice = i
                break
        if choice is None:
            choice = max(i for i, pi in enumerate(p) if pi > 0)
        out.append(choice)
    return out[len(ids):]


def _eps(model) -> float:
    values = {m.eps for m in model.modules() if isinstance(m, torch.nn.LayerNorm)}
    if len(values) > 1:
        raise ValueError(f"las LayerNorm del modelo usan ε distintos: {values}")
    return values.pop() if values else 1e-5


def model_meta(model, entries: list[dict]) -> dict:
    """Lo que ``gpt.js`` necesita saber de un modelo, además de sus pesos."""
    return {
        "format": EXPORT_FORMAT,
        "config": model.config,
        "n_layers": len(model.blocks),
        "d_model": model.wte.weight.shape[1],
        "n_heads": model.blocks[0].attn.n_heads,
        "block_size": model.block_size,
        "vocab_size": model.wte.weight.shape[0],
        "eps": _eps(model),
        "tensors": entries,
    }


def example(model, chars: list[str], prompt: str, n_chars: int, seed: int,
            temperature: float) -> dict:
    """El ejemplo del primer dibujo para un modelo: continuaciones voraz y sorteada,
    pérdida por carácter y medidas del flujo de ``prompt``."""
    stoi = {c: i for i, c in enumerate(chars)}
    ids = [stoi[c] for c in prompt]
    idx = torch.tensor([ids])
    losses = char_losses(model, idx)
    decode = "".join

    return {
        "prompt": prompt,
        "greedy": decode(chars[i] for i in continue_text(model, ids, n_chars)),
        "sample": decode(chars[i] for i in continue_text(
            model, ids, n_chars, temperature, seed)),
        "losses": losses,
        "mean_loss": sum(losses) / len(losses) if losses else None,
        **stream_stats(model, idx),
    }


def playground_data(runs: dict, chars: list[str], prompt: str = DEFAULTS["prompt"],
                    n_chars: int = DEFAULTS["n_chars"], seed: int = DEFAULTS["seed"],
                    temperature: float = DEFAULTS["temperature"]) -> dict:
    """Pesos exportados, metadatos y ejemplos de los modelos de ``runs``.

    ``runs``: ``{config: train_gpt(...)}`` (con ``state_dict``), como el ``"runs"`` de
    ``resnorm.gpt.gpt_comparison``. Los ejemplos se calculan con los pesos ya
    recuperados del int8 (``dequantize_weights``): los mismos que usa el navegador.
    """
    models, weights, examples = {}, {}, {}
    # Un hilo, como train_gpt: con operaciones tan pequeñas, varios hilos en una
    # máquina ocupada esperan más de lo que calculan.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for config in CONFIGS:
            if config in runs:
                _add_model(config, runs[config], chars, (prompt, n_chars, seed,
                           temperature), models, weights, examples)
    finally:
        torch.set_num_threads(threads)
    if not models:
        raise ValueError(f"runs no tiene ninguna de las configuraciones {CONFIGS}")
    return {"models": models, "weights": weights, "examples": examples}


def _add_model(config, run, chars, args, models, weights, examples) -> None:
    """Exporta un modelo de ``playground_data`` y calcula su ejemplo."""
    if "state_dict" not in run:
        raise ValueError(f"{config}: el resultado de train_gpt no trae state_dict")
    entries, blob = export_weights(run["state_dict"])
    model = trained_model({**run, "state_dict": dequantize_weights(run["state_dict"])},
                          len(chars))
    style = svg_series_style(_STYLE_KEY[config])
    models[config] = {"meta": model_meta(model, entries), "label": style["label"],
                      "style": style, "bytes": len(blob)}
    weights[config] = BINARY_URL + base64.b64encode(blob).decode("ascii")
    examples[config] = example(model, chars, *args)
    numbers = examples[config]["losses"] + examples[config]["norm"]
    if not all(v is None or math.isfinite(v) for v in numbers):
        raise ValueError(f"{config}: el modelo da valores no finitos (¿divergió?)")


# --- El widget ------------------------------------------------------------------------


class GPTPlayground(CourseWidget):
    """«Prueba los cinco modelos»: los GPT del capítulo 10, en el navegador.

    Capítulo 10: Un GPT diminuto. ``GPTPlayground(runs, chars)`` con ``runs`` =
    ``gpt_comparison(...)["runs"]`` y ``chars`` el vocabulario (``CharDataset.chars``).
    El lector escribe el comienzo de una frase, elige un modelo o los cinco, y ve la
    continuación (voraz o sorteada con semilla y temperatura), la pérdida por
    carácter y el tamaño del flujo residual tras cada capa. El primer dibujo muestra
    un ejemplo por modelo calculado aquí; los pesos se descargan al pedir otro texto.
    """

    _esm = bundle("gpt_playground.js")
    _css = CourseWidget._css + minify_css(
        (Path(__file__).with_name("gpt_playground.css")).read_text(encoding="utf-8"))
    SETTINGS = {"defaults": DEFAULTS, "limits": LIMITS}
    models = traitlets.Dict().tag(sync=True)
    weights = traitlets.Dict().tag(sync=True)
    examples = traitlets.Dict().tag(sync=True)
    chars = traitlets.List(traitlets.Unicode()).tag(sync=True)
    choice = traitlets.Unicode("all").tag(sync=True)

    def __init__(self, runs: dict, chars, **kwargs):
        chars = list(chars)
        if not chars or not all(isinstance(c, str) and len(c) == 1 for c in chars):
            raise ValueError("chars debe ser el vocabulario: una lista de caracteres")
        data = playground_data(runs, chars)
        super().__init__(chars=chars, **data, **kwargs)

    @traitlets.validate("choice")
    def _check_choice(self, proposal):
        value = proposal["value"]
        if value != "all" and value not in CONFIGS:
            raise spanish_error(
                f"choice debe ser «all» o una de {list(CONFIGS)}, no {value!r}")
        return value

