"""Un GPT diminuto a nivel de carácter, con y sin cada pieza (Capítulo 10).

El modelo es el de GPT-2 y nanoGPT en pequeño: un embedding de token y otro de
posición, una pila de bloques con autoatención causal y FFN (las piezas de
``resnorm.blocks``) y una capa lineal que da la probabilidad del carácter siguiente.
Aprende del propio texto del curso (``resnorm.data``). Lo único que cambia entre
configuraciones es el bloque:

- ``"plain"``: sin atajo ni LayerNorm, ``x ← Attn(x)``, ``x ← FFN(x)``;
- ``"ln_only"``: LayerNorm sin atajo, ``x ← LN(Attn(x))``, ``x ← LN(FFN(x))``;
- ``"residual"``: atajo sin LayerNorm, ``x ← x + Attn(x)``, ``x ← x + FFN(x)``;
- ``"post_ln"``: ``PostLNBlock``, ``x ← LN(x + Attn(x))``, ``x ← LN(x + FFN(x))``;
- ``"pre_ln"``: ``PreLNBlock``, ``x ← x + Attn(LN(x))``, ``x ← x + FFN(LN(x))``, y
  la LayerNorm final ``ln_f`` tras el último bloque.

Todas las configuraciones parten de los mismos pesos (misma semilla, los módulos se
crean en el mismo orden y LayerNorm no sortea nada), ven los mismos lotes en el mismo
orden y usan el mismo optimizador (AdamW).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import math
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from resnorm.blocks import MLP, MultiHeadSelfAttention, PostLNBlock, PreLNBlock

__all__ = [
    "CONFIGS",
    "CONFIG_LABELS",
    "CharDataset",
    "TinyGPT",
    "dequantize_weights",
    "export_weights",
    "import_weights",
    "trained_model",
    "first_step_grad_norms",
    "first_step_sizes",
    "gpt_comparison",
    "gpt_seeds",
    "known_word_fraction",
    "alt_text_val_losses",
    "layer_grad_norms",
    "lr_sensitivity",
    "matmul_flops",
    "norm_params",
    "plot_val_losses",
    "postln_edge",
    "stream_norms",
    "StackedGPT",
    "train_gpt",
    "train_gpts",
    "unigram_loss",
]

CONFIGS = ("plain", "ln_only", "residual", "post_ln", "pre_ln")
# Los nombres de las series en las figuras del curso (``resnorm.plots.KIND_STYLE``).
CONFIG_LABELS = {
    "plain": "Plana (sin atajo)",
    "ln_only": "Plana con LN",
    "residual": "Residual sin LN",
    "post_ln": "Post-LN",
    "pre_ln": "Pre-LN",
}
# El tamaño de la sonda del capítulo: cabe en unos segundos de CPU por modelo.
DEFAULTS = dict(n_layers=6, d_model=32, n_heads=4, block_size=32, batch_size=16,
                steps=150, lr=3e-3)
PROMPT = "La conexión residual"


# --- Datos ----------------------------------------------------------------------------


class CharDataset:
    """El corpus como índices de carácter, con su vocabulario y la partición.

    El vocabulario son los caracteres distintos del texto, ordenados; ``encode`` y
    ``decode`` pasan de texto a índices y vuelta. El primer ``1 − val_fraction`` del
    texto es el de entrenamiento y el resto el de validación (sin mezclar: la
    validación son párrafos que el modelo nunca ve).
    """

    def __init__(self, text: str, val_fraction: float = 0.1) -> None:
        self.chars = sorted(set(text))
        self.stoi = {c: i for i, c in enumerate(self.chars)}
        data = torch.tensor(self.encode(text), dtype=torch.long)
        n_train = int(len(data) * (1 - val_fraction))
        self.train, self.val = data[:n_train], data[n_train:]

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        return [self.stoi[c] for c in text]

    def decode(self, ids) -> str:
        return "".join(self.chars[int(i)] for i in ids)

    def batch(self, batch_size: int, block_size: int, gen: torch.Generator):
        """Ventanas al azar de train, entradas y objetivos: ``(B, T)`` y ``(B, T)``."""
        n = len(self.train) - block_size
        starts = torch.randint(n, (batch_size,), generator=gen)
        x = torch.stack([self.train[s:s + block_size] for s in starts.tolist()])
        y = torch.stack([self.train[s + 1:s + 1 + block_size] for s in starts.tolist()])
        return x, y

    def val_windows(self, block_size: int):
        """Las ventanas sin solapar del texto de validación: ``(N, T)``, ``(N, T)``."""
        n = (len(self.val) - 1) // block_size
        x = self.val[:n * block_size].view(n, block_size)
        y = self.val[1:n * block_size + 1].view(n, block_size)
        return x, y


def unigram_loss(dataset: CharDataset) -> float:
    """Pérdida de validación de predecir solo la frecuencia de cada carácter.

    ``−(1/N) Σ log p(c_i)``, con ``p`` las frecuencias del texto de entrenamiento
    (más 1 por carácter, para que ninguno tenga probabilidad 0). Es lo que consigue un
    modelo que no mira el contexto: la referencia de «no ha aprendido nada más».
    Capítulo 10.
    """
    counts = torch.bincount(dataset.train, minlength=dataset.vocab_size).double() + 1
    log_p = torch.log(counts / counts.sum())
    return float(-log_p[dataset.val[1:]].mean())


def _dataset(val_fraction: float = 0.1) -> CharDataset:
    from resnorm.data import load_corpus

    return CharDataset(load_corpus(), val_fraction)


# --- Modelo ---------------------------------------------------------------------------


class VariantBlock(nn.Module):
    """Un bloque al que le faltan piezas: ``"plain"``, ``"ln_only"`` o ``"residual"``.

    Usa la misma atención causal y la misma FFN que ``PostLNBlock`` y ``PreLNBlock``,
    creadas en el mismo orden, así que con la misma semilla tiene los mismos pesos.

    Formas: ``(B, T, C)`` → ``(B, T, C)``.
    """

    def __init__(self, config: str, d_model: int, n_heads: int, d_ff: int,
                 eps: float = 1e-5) -> None:
        super().__init__()
        self.config = config
        self.attn = MultiHeadSelfAttention(d_model, n_heads, causal=True)
        self.mlp = MLP(d_model, d_ff)
        norm = config == "ln_only"
        self.ln_1 = nn.LayerNorm(d_model, eps=eps) if norm else nn.Identity()
        self.ln_2 = nn.LayerNorm(d_model, eps=eps) if norm else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.config == "residual":
            x = x + self.attn(x)
            return x + self.mlp(x)
        x = self.ln_1(self.attn(x))  # sin atajo: la subcapa sustituye a x
        return self.ln_2(self.mlp(x))


def _make_block(config: str, d_model: int, n_heads: int, d_ff: int) -> nn.Module:
    if config == "post_ln":
        return PostLNBlock(d_model, n_heads, d_ff, causal=True)
    if config == "pre_ln":
        return PreLNBlock(d_model, n_heads, d_ff, causal=True)
    return VariantBlock(config, d_model, n_heads, d_ff)


class TinyGPT(nn.Module):
    """GPT de caracteres: ``logits = lm_head(ln_f(bloques(wte[x] + wpe[t])))``.

    Las tablas de embedding empiezan con desviación estándar 0.02, como en GPT-2 y
    nanoGPT; los bloques y ``lm_head``, con la inicialización por defecto de PyTorch.
    ``ln_f`` es una LayerNorm solo en ``"pre_ln"`` (las demás no la tienen o ya
    terminan en una). ``block_forward(block, x)``, si se da, sustituye al ``forward``
    de cada bloque: así el ejercicio del capítulo quita una pieza de un modelo que
    funciona. Capítulo 10.

    Formas: ``(B, T)`` índices → ``(B, T, vocab_size)`` logits.
    """

    def __init__(self, config: str, vocab_size: int, n_layers: int = 6,
                 d_model: int = 32, n_heads: int = 4, block_size: int = 32,
                 block_forward: Callable | None = None) -> None:
        super().__init__()
        if config not in CONFIGS:
            raise ValueError(f"config debe ser una de {CONFIGS}, no {config!r}")
        self.config = config
        self.block_size = block_size
        self.block_forward = block_forward
        self.wte = nn.Embedding(vocab_size, d_model)
        self.wpe = nn.Embedding(block_size, d_model)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.02)
        self.blocks = nn.ModuleList(
            _make_block(config, d_model, n_heads, 4 * d_model) for _ in range(n_layers)
        )
        self.ln_f = nn.LayerNorm(d_model) if config == "pre_ln" else nn.Identity()
        self.lm_head = nn.Linear(d_model, vocab_size)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        B, T = idx.shape
        pos = torch.arange(T, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)  # (B, T, C)
        for block in self.blocks:
            x = block(x) if self.block_forward is None else self.block_forward(block, x)
        return self.lm_head(self.ln_f(x))  # (B, T, vocab_size)

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, n_chars: int, gen: torch.Generator,
                 temperature: float = 1.0) -> torch.Tensor:
        """Añade ``n_chars`` caracteres sorteados con ``softmax(logits / temperature)``.

        Formas: ``(B, T₀)`` → ``(B, T₀ + n_chars)``.
        """
        for _ in range(n_chars):
            logits = self(idx[:, -self.block_size:])[:, -1] / temperature  # (B, V)
            probs = F.softmax(logits, dim=-1)
            idx = torch.cat([idx, torch.multinomial(probs, 1, generator=gen)], dim=1)
        return idx


# --- Entrenamiento --------------------------------------------------------------------


@contextmanager
def _isolated(seed: int, threads: int) -> Iterator[None]:
    """Hilos fijos, semilla propia y el estado aleatorio global intacto al salir."""
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            yield
    finally:
        torch.set_num_threads(before)


#: La variable de entorno con la carpeta de la memoria de entrenamientos. Sin ella
#: (lo normal: Colab, Binder, ``make lab``), cada llamada a ``train_gpt`` entrena.
MEMO_ENV = "RESNORM_MEMO_DIR"


@functools.cache
def _engine_hash() -> str:
    """La huella del código que entrena: todo ``resnorm`` y la versión de torch."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256(torch.__version__.encode())
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def _canonical(value):
    # Un dict con las mismas claves en otro orden es el mismo entrenamiento.
    if isinstance(value, dict):
        return sorted((k, _canonical(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value


def _memoized(train: Callable):
    """``train_gpt`` (o ``train_gpts``) con memoria en disco, si ``MEMO_ENV`` nombra
    una carpeta.

    El mismo entrenamiento (mismos argumentos, mismo texto, mismo código de
    ``resnorm``, misma versión de torch) da el mismo resultado (la semilla lo fija
    todo: ``tests/test_gpt.py``), así que se guarda una vez y se lee después. Lo usa
    «make»: el capítulo 10 entrena al ejecutarse para el libro, y su cuaderno del
    alumno, en un núcleo nuevo, y las pruebas del GPT en JavaScript piden los mismos
    modelos. Cualquier argumento distinto entrena de verdad; con ``block_forward`` (el
    código de quien resuelve un ejercicio) siempre se entrena. Un lote de
    ``train_gpts`` se guarda entero, con la lista de sus miembros en la clave: los
    mismos miembros en otro lote son otro cálculo (otro reparto de las sumas), así
    que la memoria solo devuelve lo que esa misma llamada calcularía.
    """
    signature = inspect.signature(train)

    @functools.wraps(train)
    def wrapper(*args, **kwargs):
        folder = os.environ.get(MEMO_ENV)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        call = bound.arguments
        if not folder or call["block_forward"] is not None:
            return train(*args, **kwargs)
        data = call["dataset"] = call["dataset"] or _dataset()
        key = hashlib.sha256(_engine_hash().encode())
        arguments = sorted((k, _canonical(v)) for k, v in call.items()
                           if k != "dataset")
        key.update(repr(arguments).encode())
        for part in (data.train, data.val):
            key.update(part.numpy().tobytes())
        key.update("".join(data.chars).encode())
        path = Path(folder) / f"{train.__name__}-{key.hexdigest()[:32]}.pt"
        if path.exists():
            return torch.load(path, weights_only=False)
        result = train(**call)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")  # dos procesos a la vez
        torch.save(result, partial)
        partial.replace(path)
        return result

    return wrapper


@torch.no_grad()
def _val_loss(model: TinyGPT, x: torch.Tensor, y: torch.Tensor) -> float:
    # Sin grafo de gradientes: la validación no entrena (el mismo número, más rápido).
    model.eval()
    with torch.no_grad():
        logits = model(x)
    model.train()
    return float(F.cross_entropy(logits.flatten(0, 1), y.flatten()))


@_memoized
def train_gpt(
    config: str,
    steps: int = DEFAULTS["steps"],
    lr: float = DEFAULTS["lr"],
    warmup: int = 0,
    n_layers: int = DEFAULTS["n_layers"],
    d_model: int = DEFAULTS["d_model"],
    n_heads: int = DEFAULTS["n_heads"],
    block_size: int = DEFAULTS["block_size"],
    batch_size: int = DEFAULTS["batch_size"],
    eval_every: int = 25,
    n_samples: int = 2,
    sample_chars: int = 80,
    seed: int = 0,
    threads: int = 1,
    block_forward: Callable | None = None,
    dataset: CharDataset | None = None,
) -> dict:
    """Entrena un ``TinyGPT`` de la configuración ``config`` y devuelve datos simples.

    AdamW (tasa ``lr``, el resto por defecto) durante ``steps`` pasos de lotes
    ``(batch_size, block_size)``; con ``warmup > 0`` la tasa sube en línea recta de
    ``lr / warmup`` a ``lr`` en los primeros ``warmup`` pasos. Pérdida: entropía
    cruzada del carácter siguiente, con logaritmo natural. La validación usa todas las
    ventanas del texto de validación, cada ``eval_every`` pasos y al final.

    La semilla fija los pesos iniciales, el orden de los lotes (un generador propio,
    igual para todas las configuraciones) y el muestreo de los textos generados, que
    empiezan por ``PROMPT``. Si la pérdida deja de ser finita, se anota el paso en
    ``diverged_at_step`` y el entrenamiento se detiene.

    Devuelve ``{"config", "params", "train_loss": [por paso], "val_steps",
    "val_loss", "final_val_loss", "diverged_at_step", "first_grad_norm": {"wte",
    "lm_head"} (norma del gradiente del primer paso), "first_grad_norm_layers":
    [por bloque] (``layer_grad_norms`` en el primer paso), "first_step_size": [por
    bloque] (``first_step_sizes``: el primer paso de AdamW, en unidades de la tasa),
    "model" (el ``TinyGPT`` entrenado), "samples": [textos], "seconds",
    "cpu_seconds", "state_dict": {nombre: tensor}}``; ``state_dict`` son los pesos
    entrenados, copiados (``trained_model`` rehace el modelo con ellos). Medir el
    primer paso solo lee y copia pesos: no cambia ningún número del entrenamiento.
    Capítulo 10.
    """
    data = _dataset() if dataset is None else dataset
    wall, cpu = time.perf_counter(), time.process_time()
    with _isolated(seed, threads):
        model = TinyGPT(config, data.vocab_size, n_layers, d_model, n_heads, block_size,
                        block_forward=block_forward)
        # foreach: los mismos cálculos que el bucle por parámetro, en menos llamadas.
        opt = torch.optim.AdamW(model.parameters(), lr=lr, foreach=True)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min(1.0, (s + 1) / warmup) if warmup else 1.0
        )
        batch_gen = torch.Generator().manual_seed(seed + 1)
        vx, vy = data.val_windows(block_size)
        train_curve: list[float] = []
        val_steps: list[int] = []
        val_curve: list[float] = []
        diverged_at = None
        first_grad: dict[str, float] = {}
        first_layers: list[float] = []
        first_sizes: list[float] = []
        for step in range(steps):
            if step % eval_every == 0:
                val_steps.append(step)
                val_curve.append(_val_loss(model, vx, vy))
            x, y = data.batch(batch_size, block_size, batch_gen)
            loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
            if not torch.isfinite(loss):
                diverged_at = step
                break
            train_curve.append(loss.item())
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if step == 0:  # el gradiente en la inicialización, antes de aprender nada
                first_grad = {"wte": float(model.wte.weight.grad.norm()),
                              "lm_head": float(model.lm_head.weight.grad.norm())}
                first_layers = layer_grad_norms(model)
                before = [w.detach().clone() for w in _ffn_w2(model)]
                lr_0 = opt.param_groups[0]["lr"]
            opt.step()
            if step == 0:
                first_sizes = first_step_sizes(before, _ffn_w2(model), lr_0)
            sched.step()
        final = _val_loss(model, vx, vy) if diverged_at is None else math.nan
        if diverged_at is None:
            val_steps.append(steps)
            val_curve.append(final)
        sample_gen = torch.Generator().manual_seed(seed + 2)
        prompt = torch.tensor([data.encode(PROMPT)] * n_samples)
        samples = []
        if diverged_at is None and n_samples:
            out = model.eval().generate(prompt, sample_chars, sample_gen)
            samples = [data.decode(row) for row in out]
    params = dict(steps=steps, lr=lr, warmup=warmup, n_layers=n_layers, d_model=d_model,
                  n_heads=n_heads, block_size=block_size, batch_size=batch_size,
                  seed=seed, threads=threads, optimizer="AdamW")
    return {
        "config": config,
        "params": params,
        "train_loss": train_curve,
        "val_steps": val_steps,
        "val_loss": val_curve,
        "final_val_loss": final if math.isfinite(final) else None,
        "diverged_at_step": diverged_at,
        "first_grad_norm": first_grad,
        "first_grad_norm_layers": first_layers,
        "first_step_size": first_sizes,
        "model": model,
        "samples": samples,
        "seconds": time.perf_counter() - wall,
        "cpu_seconds": time.process_time() - cpu,
        "state_dict": {k: v.detach().clone() for k, v in model.state_dict().items()},
    }


# --- Varios entrenamientos a la vez ---------------------------------------------------

# Dónde está la LayerNorm de cada subcapa F en cada configuración (la tabla del
# principio del módulo): antes de F (Pre-LN), después de la suma (Post-LN y LN sin
# atajo) o en ninguna parte. Y si la subcapa suma su entrada (el atajo).
_LN_PLACE = {"pre_ln": "pre", "plain": "none", "residual": "none", "ln_only": "post",
             "post_ln": "post"}
_SHORTCUT = {"plain": False, "ln_only": False, "residual": True, "post_ln": True,
             "pre_ln": True}
# El orden de los miembros en un StackedGPT: así cada LayerNorm actúa sobre un tramo
# seguido de miembros (los primeros o los últimos) y no sobre todos.
_PLACE_ORDER = ("pre", "none", "post")


def _on_members(fn: Callable, x: torch.Tensor, members: slice) -> torch.Tensor:
    """``fn(x[members], members)`` en ese tramo de miembros; los demás, tal cual."""
    start, stop, _ = members.indices(x.shape[0])
    if start >= stop:
        return x
    if stop - start == x.shape[0]:
        return fn(x, members)
    return torch.cat([x[:start], fn(x[start:stop], members), x[stop:]])


def _linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``x Wᵀ + b`` de cada miembro: ``(M, …, I)`` con ``(M, O, I)`` y ``(M, O)``."""
    M = x.shape[0]
    y = torch.baddbmm(bias.unsqueeze(1), x.reshape(M, -1, x.shape[-1]),
                      weight.transpose(1, 2))  # (M, N, O): un bmm de M matrices
    return y.view(*x.shape[:-1], weight.shape[1])


class _StackedBlock:
    """El bloque ``layer`` de los ``M`` modelos, sobre ``(M, B, T, C)``.

    Sus piezas tienen los nombres de las de ``PreLNBlock`` (``attn``, ``mlp``,
    ``ln_1``, ``ln_2``), así que un ``block_forward`` escrito para un bloque sirve
    igual. ``ln_1`` y ``ln_2`` son la identidad en los miembros sin LayerNorm.
    """

    def __init__(self, stack: StackedGPT, layer: int) -> None:
        self.stack = stack
        self.prefix = f"blocks.{layer}."

    def _p(self, name: str) -> torch.Tensor:
        return self.stack.params[self.prefix + name]

    def attn(self, x: torch.Tensor) -> torch.Tensor:
        # La de MultiHeadSelfAttention, con los miembros delante.
        M, B, T, C = x.shape
        nh = self.stack.n_heads
        hs = C // nh
        qkv = _linear(x, self._p("attn.c_attn.weight"), self._p("attn.c_attn.bias"))
        q, k, v = (t.view(M, B, T, nh, hs).transpose(2, 3).reshape(-1, T, hs)
                   for t in qkv.split(C, dim=-1))  # 3 × (M·B·nh, T, hs)
        # Q Kᵀ / √d_k, con −∞ sobre el futuro (un solo baddbmm: suma la máscara).
        att = torch.baddbmm(self.stack.future[:T, :T], q, k.transpose(1, 2),
                            alpha=hs ** -0.5)
        att = F.softmax(att, dim=-1)  # (M·B·nh, T, T)
        # (att V)ᵀ = Vᵀ attᵀ: los mismos productos, en la forma que bmm hace deprisa.
        y = torch.bmm(v.transpose(1, 2), att.transpose(1, 2))  # (M·B·nh, hs, T)
        y = y.view(M, B, nh, hs, T).permute(0, 1, 4, 2, 3).reshape(M, B, T, C)
        return _linear(y, self._p("attn.c_proj.weight"), self._p("attn.c_proj.bias"))

    def mlp(self, x: torch.Tensor) -> torch.Tensor:
        h = F.gelu(_linear(x, self._p("mlp.c_fc.weight"), self._p("mlp.c_fc.bias")))
        return _linear(h, self._p("mlp.c_proj.weight"), self._p("mlp.c_proj.bias"))

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        # Para block_forward: LayerNorm en los miembros que la tienen, en su sitio.
        stack, name = self.stack, self.prefix + name
        for members in (stack.pre, stack.post):
            x = _on_members(functools.partial(stack.ln, name=name), x, members)
        return x

    def ln_1(self, x: torch.Tensor) -> torch.Tensor:
        return self._norm(x, "ln_1")

    def ln_2(self, x: torch.Tensor) -> torch.Tensor:
        return self._norm(x, "ln_2")

    def _sublayer(self, x: torch.Tensor, f: Callable, ln: str) -> torch.Tensor:
        stack = self.stack
        norm = functools.partial(stack.ln, name=self.prefix + ln)
        y = f(_on_members(norm, x, stack.pre))  # Pre-LN: LN(x) antes de F
        if stack.shortcut is True:
            y = x + y
        elif stack.shortcut is not False:  # x · 1 + F(x) o x · 0 + F(x), sin redondeo
            y = torch.addcmul(y, x, stack.shortcut)
        return _on_members(norm, y, stack.post)  # Post-LN: LN después de la suma

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        x = self._sublayer(x, self.attn, "ln_1")
        return self._sublayer(x, self.mlp, "ln_2")


class StackedGPT:
    """``M`` modelos ``TinyGPT`` del mismo tamaño, como un solo cálculo (Capítulo 10).

    Cada peso de los ``M`` modelos va apilado con una dimensión más delante,
    ``(M, …)``: el miembro ``m`` es el índice ``m``. Cada multiplicación de matrices de
    un ``TinyGPT`` es aquí un ``bmm`` de ``M`` matrices, y lo demás (LayerNorm,
    softmax, GELU, la entropía cruzada) va fila a fila: ningún miembro lee los números
    de otro. Los miembros pueden tener configuraciones distintas, ordenadas por el
    sitio de su LayerNorm (primero las Pre-LN, después las que no tienen y al final
    las que la ponen tras la suma; ``train_gpts`` las ordena): así cada LayerNorm se
    calcula solo en su tramo de miembros, y el atajo de cada uno se suma
    multiplicado por 1 o por 0, que no redondea. Cada miembro empieza con los pesos
    del ``TinyGPT`` de su configuración y su semilla: se crea ese modelo y se copian.

    Los pesos de todos son vistas de un solo tensor ``flat``, ``(M, P)`` con ``P`` los
    pesos de un modelo (las LayerNorm que un miembro no tiene se quedan en γ = 1 y
    β = 0, sin usar), y ``backward`` junta sus gradientes en otro igual, ``grad``:
    AdamW son unas pocas operaciones sobre esos dos tensores.

    Formas: ``(M, B, T)`` índices → ``(M, B, T, vocab_size)`` logits.
    """

    def __init__(self, configs: Sequence[str], seeds: Sequence[int], vocab_size: int,
                 n_layers: int = 6, d_model: int = 32, n_heads: int = 4,
                 block_size: int = 32, block_forward: Callable | None = None) -> None:
        if len(configs) != len(seeds) or not configs:
            raise ValueError("hace falta una semilla por configuración, y al menos una")
        places = [_LN_PLACE[c] for c in configs]
        if places != sorted(places, key=_PLACE_ORDER.index):
            raise ValueError("los miembros van ordenados: Pre-LN, sin LN, Post-LN")
        self.configs, self.seeds = list(configs), list(seeds)
        self.sizes = dict(vocab_size=vocab_size, n_layers=n_layers, d_model=d_model,
                          n_heads=n_heads, block_size=block_size)
        self.n_heads, self.block_size = n_heads, block_size
        self.block_forward = block_forward
        starts = []
        with torch.random.fork_rng(devices=[]):
            for config, seed in zip(configs, seeds):
                torch.manual_seed(seed)
                starts.append(TinyGPT(config, **self.sizes).state_dict())
            # Los nombres y las formas de todos los pesos: Pre-LN los tiene todos.
            shapes = {k: v.shape for k, v in TinyGPT("pre_ln", **self.sizes)
                      .state_dict().items()}
        self.keys = [list(s) for s in starts]  # los de cada miembro, en su orden
        M, P = len(starts), sum(s.numel() for s in shapes.values())
        self.flat, self.grad = torch.empty(M, P), torch.zeros(M, P)
        self.params: dict[str, torch.Tensor] = {}
        offset = 0
        for name, shape in shapes.items():
            n = shape.numel()
            view = self.flat[:, offset:offset + n].view(M, *shape)
            for m, start in enumerate(starts):  # sin esa LayerNorm: γ = 1, β = 0
                view[m] = start.get(name, float(name.endswith("weight")))
            self.params[name] = view.requires_grad_()
            offset += n
        n_pre, n_post = places.count("pre"), places.count("post")
        self.pre, self.post = slice(0, n_pre), slice(M - n_post, M)
        shortcut = [_SHORTCUT[c] for c in configs]
        self.shortcut: bool | torch.Tensor = (
            shortcut[0] if len(set(shortcut)) == 1
            else torch.tensor(shortcut, dtype=torch.float32).view(M, 1, 1, 1))
        # La máscara causal como sumando: 0 hasta la diagonal y −∞ sobre el futuro.
        self.future = torch.full((block_size, block_size), float("-inf")).triu(1)
        self.blocks = [_StackedBlock(self, layer) for layer in range(n_layers)]

    def __len__(self) -> int:
        return len(self.configs)

    def backward(self, loss: torch.Tensor) -> None:
        """Los gradientes de ``loss``, juntos en ``grad`` (``(M, P)``, como ``flat``).
        """
        params = list(self.params.values())
        # Un peso que ningún miembro usa (ln_f sin Pre-LN en el lote) tiene gradiente 0.
        grads = torch.autograd.grad(loss, params, allow_unused=True,
                                    materialize_grads=True)
        torch.cat([g.flatten(1) for g in grads], dim=1, out=self.grad)
        for p, g in zip(params, grads):  # para leerlos por su nombre, como .grad
            p.grad = g

    def ln(self, x: torch.Tensor, members: slice, name: str,
           eps: float = 1e-5) -> torch.Tensor:
        """LayerNorm de ``x``, los miembros ``members``, con sus γ y β (``name``)."""
        shape = (x.shape[0],) + (1,) * (x.dim() - 2) + (x.shape[-1],)
        gamma = self.params[name + ".weight"][members].view(shape)
        beta = self.params[name + ".bias"][members].view(shape)
        return torch.addcmul(beta, F.layer_norm(x, x.shape[-1:], eps=eps), gamma)

    def __call__(self, idx: torch.Tensor) -> torch.Tensor:
        M, B, T = idx.shape
        p = self.params
        wte = p["wte.weight"]  # (M, V, C)
        V, C = wte.shape[1:]
        rows = idx + V * torch.arange(M).view(M, 1, 1)  # la fila de cada miembro
        x = F.embedding(rows, wte.reshape(M * V, C))  # (M, B, T, C)
        x = x + p["wpe.weight"][:, :T].unsqueeze(1)
        for block in self.blocks:
            x = block(x) if self.block_forward is None else self.block_forward(block, x)
        x = _on_members(functools.partial(self.ln, name="ln_f"), x, self.pre)
        return _linear(x, p["lm_head.weight"], p["lm_head.bias"])  # (M, B, T, V)

    def losses(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """La entropía cruzada media de cada miembro: ``(M, B, T)`` → ``(M,)``."""
        logits = self(idx)
        ce = F.cross_entropy(logits.flatten(0, -2), targets.flatten(), reduction="none")
        return ce.view(len(self), -1).mean(dim=1)

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, n_chars: int,
                 gens: Sequence[torch.Generator | None],
                 temperature: float = 1.0) -> torch.Tensor:
        """``TinyGPT.generate`` de cada miembro con su generador (``None``: no sortea
        y añade ceros). Formas: ``(M, B, T₀)`` → ``(M, B, T₀ + n_chars)``."""
        for _ in range(n_chars):
            logits = self(idx[..., -self.block_size:])[:, :, -1] / temperature
            probs = F.softmax(logits, dim=-1)  # (M, B, V)
            zeros = torch.zeros(idx.shape[1], 1, dtype=torch.long)
            new = [torch.multinomial(p, 1, generator=g) if g is not None else zeros
                   for p, g in zip(probs, gens)]
            idx = torch.cat([idx, torch.stack(new)], dim=-1)
        return idx

    def state_dict(self, m: int) -> dict[str, torch.Tensor]:
        """Los pesos del miembro ``m``, copiados, con los nombres de su ``TinyGPT``."""
        return {k: self.params[k][m].detach().clone() for k in self.keys[m]}

    def model(self, m: int) -> TinyGPT:
        """El ``TinyGPT`` del miembro ``m``, con sus pesos de ahora."""
        with torch.random.fork_rng(devices=[]):
            model = TinyGPT(self.configs[m], **self.sizes,
                            block_forward=self.block_forward)
        model.load_state_dict(self.state_dict(m))
        return model


class _StackedAdamW:
    """``torch.optim.AdamW`` (sus valores por defecto) con una tasa por miembro.

    Las mismas operaciones, en el mismo orden, que su versión ``foreach``, sobre los
    tensores ``(M, P)`` de ``StackedGPT``; los momentos ``m`` y ``v`` son de cada peso
    de cada miembro. Con tasa 0, un miembro no se mueve (el que divergió se queda).
    """

    def __init__(self, stack: StackedGPT, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2) -> None:
        self.flat, self.grad = stack.flat, stack.grad
        self.exp_avg = torch.zeros_like(self.flat)
        self.exp_avg_sq = torch.zeros_like(self.flat)
        self.betas, self.eps, self.weight_decay = betas, eps, weight_decay
        self.t = 0

    @torch.no_grad()
    def step(self, lrs: Sequence[float]) -> None:
        beta1, beta2 = self.betas
        self.t += 1
        bias_correction1 = 1 - beta1 ** self.t
        bias_correction2_sqrt = (1 - beta2 ** self.t) ** 0.5
        # Los escalares de cada miembro, en float64 y luego float32, como los de torch.
        decay = torch.tensor([1 - lr * self.weight_decay for lr in lrs]).unsqueeze(1)
        step_size = torch.tensor([(lr / bias_correction1) * -1 for lr in lrs])
        self.flat.mul_(decay)
        self.exp_avg.lerp_(self.grad, 1 - beta1)
        self.exp_avg_sq.mul_(beta2).addcmul_(self.grad, self.grad, value=1 - beta2)
        denom = (self.exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(self.eps)
        self.flat.addcdiv_(self.exp_avg * step_size.unsqueeze(1), denom)


def _scheduled_lr(lr: float, warmup: int, step: int) -> float:
    # La de LambdaLR en train_gpt: sube en línea recta durante ``warmup`` pasos.
    return lr * (min(1.0, (step + 1) / warmup) if warmup else 1.0)


@_memoized
def train_gpts(
    members: Sequence[dict],
    steps: int = DEFAULTS["steps"],
    lr: float = DEFAULTS["lr"],
    warmup: int = 0,
    n_layers: int = DEFAULTS["n_layers"],
    d_model: int = DEFAULTS["d_model"],
    n_heads: int = DEFAULTS["n_heads"],
    block_size: int = DEFAULTS["block_size"],
    batch_size: int = DEFAULTS["batch_size"],
    eval_every: int = 25,
    n_samples: int = 2,
    sample_chars: int = 80,
    threads: int = 1,
    block_forward: Callable | None = None,
    dataset: CharDataset | None = None,
) -> list[dict]:
    """Varios entrenamientos de ``train_gpt`` a la vez, como un solo cálculo (Cap. 10).

    Cada miembro es un dict con su ``"config"`` y, si no son los comunes, su
    ``"seed"`` (0), su ``"lr"`` y su ``"warmup"``; lo demás es de todos. Los ``M``
    miembros entrenan juntos en un ``StackedGPT``, y cada uno con lo suyo: los pesos
    iniciales de su semilla, sus lotes en su orden (su generador, ``seed + 1``), su
    AdamW y su calentamiento; si uno diverge, se queda como estaba y los demás siguen.

    Devuelve, en el orden de ``members``, lo que devolvería ``train_gpt`` con esos
    argumentos: los mismos números salvo redondeo de float32, que crece con los pasos
    (``tests/test_gpt_batch.py``). ``seconds`` y ``cpu_seconds`` de cada miembro son
    los del lote repartidos a partes iguales.
    """
    data = _dataset() if dataset is None else dataset
    wall, cpu = time.perf_counter(), time.process_time()
    specs = [dict(config=m["config"], seed=m.get("seed", 0), lr=m.get("lr", lr),
                  warmup=m.get("warmup", warmup)) for m in members]
    M = len(specs)
    # El orden de StackedGPT (por el sitio de la LayerNorm); al final, el de members.
    order = sorted(range(M), key=lambda m: _PLACE_ORDER.index(
        _LN_PLACE[specs[m]["config"]]))
    before_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with torch.random.fork_rng(devices=[]):
            stack = StackedGPT([specs[m]["config"] for m in order],
                               [specs[m]["seed"] for m in order],
                               data.vocab_size, n_layers, d_model, n_heads, block_size,
                               block_forward=block_forward)
            stacked = _train_stack(stack, [specs[m] for m in order], data, steps,
                                   batch_size, eval_every, n_samples, sample_chars)
    finally:
        torch.set_num_threads(before_threads)
    out = [stacked[order.index(m)] for m in range(M)]
    seconds, cpu_seconds = time.perf_counter() - wall, time.process_time() - cpu
    for spec, run in zip(specs, out):
        run["params"] = dict(steps=steps, lr=spec["lr"], warmup=spec["warmup"],
                             n_layers=n_layers, d_model=d_model, n_heads=n_heads,
                             block_size=block_size, batch_size=batch_size,
                             seed=spec["seed"], threads=threads, optimizer="AdamW")
        run["seconds"], run["cpu_seconds"] = seconds / M, cpu_seconds / M
    return out


def _train_stack(stack: StackedGPT, specs: list[dict], data: CharDataset, steps: int,
                 batch_size: int, eval_every: int, n_samples: int,
                 sample_chars: int) -> list[dict]:
    """El bucle de ``train_gpt``, con los ``M`` miembros de ``stack`` a la vez."""
    M, block_size = len(specs), stack.block_size
    opt = _StackedAdamW(stack)
    # Un generador de lotes por semilla: los miembros con la misma, los mismos lotes.
    batch_gens = {s["seed"]: torch.Generator().manual_seed(s["seed"] + 1)
                  for s in specs}
    n_windows = len(data.train) - block_size
    window = torch.arange(block_size + 1)
    vx, vy = data.val_windows(block_size)
    vx, vy = vx.expand(M, *vx.shape), vy.expand(M, *vy.shape)
    runs = [dict(config=s["config"], train_loss=[], val_steps=[], val_loss=[],
                 diverged_at_step=None, first_grad_norm={}, first_grad_norm_layers=[],
                 first_step_size=[]) for s in specs]
    alive = list(range(M))
    w2 = [f"blocks.{i}.mlp.c_proj.weight" for i in range(len(stack.blocks))]
    for step in range(steps):
        if step % eval_every == 0:
            with torch.no_grad():
                val = stack.losses(vx, vy).tolist()
            for m in alive:
                runs[m]["val_steps"].append(step)
                runs[m]["val_loss"].append(val[m])
        # Los lotes de CharDataset.batch: los mismos sorteos, las mismas ventanas.
        chunks = {seed: data.train[torch.randint(n_windows, (batch_size,),
                                                 generator=gen)[:, None] + window]
                  for seed, gen in batch_gens.items()}
        chunk = torch.stack([chunks[s["seed"]] for s in specs])  # (M, B, T + 1)
        losses = stack.losses(chunk[..., :-1], chunk[..., 1:])
        values = losses.tolist()
        for m in [m for m in alive if not math.isfinite(values[m])]:
            runs[m]["diverged_at_step"] = step
            alive.remove(m)
        if not alive:
            break
        for m in alive:
            runs[m]["train_loss"].append(values[m])
        stack.backward(losses.sum() if len(alive) == M else losses[alive].sum())
        lrs = [_scheduled_lr(s["lr"], s["warmup"], step) if m in alive else 0.0
               for m, s in enumerate(specs)]
        if step == 0:  # el gradiente en la inicialización, antes de aprender nada
            grad = {k: v.grad for k, v in stack.params.items()}
            before = [stack.params[k].detach().clone() for k in w2]
            for m in alive:
                runs[m]["first_grad_norm"] = {
                    "wte": float(grad["wte.weight"][m].norm()),
                    "lm_head": float(grad["lm_head.weight"][m].norm())}
                runs[m]["first_grad_norm_layers"] = [float(grad[k][m].norm())
                                                     for k in w2]
        opt.step(lrs)
        if step == 0:
            for m in alive:
                runs[m]["first_step_size"] = first_step_sizes(
                    [b[m] for b in before], [stack.params[k][m] for k in w2], lrs[m])
    with torch.no_grad():
        final = stack.losses(vx, vy).tolist()
    for m, run in enumerate(runs):
        run["final_val_loss"] = final[m] if m in alive else None
        if m in alive:
            run["val_steps"].append(steps)
            run["val_loss"].append(final[m])
    samples: list[list[str]] = [[] for _ in specs]
    if alive and n_samples:
        prompt = torch.tensor([data.encode(PROMPT)] * n_samples).expand(M, -1, -1)
        gens = [torch.Generator().manual_seed(s["seed"] + 2) if m in alive else None
                for m, s in enumerate(specs)]
        out = stack.generate(prompt, sample_chars, gens)
        for m in alive:
            samples[m] = [data.decode(row) for row in out[m]]
    for m, run in enumerate(runs):
        run["samples"] = samples[m]
        run["model"] = stack.model(m).eval() if samples[m] else stack.model(m)
        run["state_dict"] = stack.state_dict(m)
    return runs


def matmul_flops(n_tokens: int, n_layers: int = DEFAULTS["n_layers"],
                 d_model: int = DEFAULTS["d_model"],
                 block_size: int = DEFAULTS["block_size"], vocab_size: int = 99,
                 backward: bool = True) -> int:
    """Las operaciones de coma flotante de las multiplicaciones de matrices de un
    ``TinyGPT`` sobre ``n_tokens`` tokens en ventanas de ``block_size`` (Cap. 10).

    Una matriz ``(m, k)`` por otra ``(k, n)`` son ``2·m·k·n`` FLOP. Por token y bloque:
    las cuatro capas lineales, ``2·(3C² + C² + 4C² + 4C²) = 24·C²``, y la atención,
    ``Q Kᵀ`` y ``att V`` con las ``T`` posiciones de la ventana (la máscara causal no
    ahorra cuentas), ``2·2·T·C``; y ``lm_head``, ``2·C·V``. Con ``backward``, el doble
    más: cada producto tiene dos gradientes, cada uno otro producto del mismo tamaño.
    Lo demás (LayerNorm, softmax, GELU, AdamW) no cuenta: es lo que el pico de la
    máquina en multiplicaciones de matrices no mide.
    """
    C, T = d_model, block_size
    forward = n_tokens * (n_layers * (24 * C * C + 4 * T * C) + 2 * C * vocab_size)
    return 3 * forward if backward else forward


def gpt_comparison(configs: Sequence[str] = CONFIGS, seed: int = 0, **kwargs) -> dict:
    """Las cinco configuraciones, con todo lo demás igual (Capítulo 10).

    Entrenan a la vez (``train_gpts``). Devuelve ``{"configs", "labels", "runs":
    {config: resultado de train_gpt}, "unigram_loss", "vocab_size", "n_train",
    "n_val", "seconds", "cpu_seconds"}``. ``kwargs`` pasa a ``train_gpts`` (``steps``,
    ``lr``, ``n_layers``...).
    """
    data = _dataset()
    trained = train_gpts([{"config": c, "seed": seed} for c in configs], dataset=data,
                         **kwargs)
    runs = dict(zip(configs, trained))
    return {
        "configs": list(configs),
        "labels": {c: CONFIG_LABELS[c] for c in configs},
        "runs": runs,
        "unigram_loss": unigram_loss(data),
        "vocab_size": data.vocab_size,
        "n_train": len(data.train),
        "n_val": len(data.val),
        "seconds": sum(r["seconds"] for r in runs.values()),
        "cpu_seconds": sum(r["cpu_seconds"] for r in runs.values()),
    }


def gpt_seeds(configs: Sequence[str] = ("post_ln", "pre_ln"),
              seeds: Sequence[int] = (1, 2, 3, 4), **kwargs) -> dict:
    """Las configuraciones ``configs`` con cada semilla de ``seeds`` (Capítulo 10).

    Todos los entrenamientos van a la vez (``train_gpts``). Devuelve ``{"configs",
    "seeds", "runs": {seed: {config: resultado de train_gpt}}}``; ``kwargs`` pasa a
    ``train_gpts``. El capítulo solo lee la pérdida final de cada uno, no su curva:
    si no se da ``eval_every``, la validación se mide al empezar y al terminar. Medir
    no toca los pesos ni los lotes: el entrenamiento es el mismo, número a número.
    """
    kwargs.setdefault("eval_every", kwargs.get("steps", DEFAULTS["steps"]))
    members = [{"config": c, "seed": s} for s in seeds for c in configs]
    trained = iter(train_gpts(members, dataset=_dataset(), **kwargs))
    runs = {s: {c: next(trained) for c in configs} for s in seeds}
    return {"configs": list(configs), "seeds": list(seeds), "runs": runs}


def lr_sensitivity(lr: float = 1e-2, warmup: int = 50, seed: int = 0,
                   **kwargs) -> dict:
    """Post-LN a una tasa mayor, sin calentamiento y con él; Pre-LN sin él (Cap. 10).

    Xiong et al. (2020) explican por qué Post-LN necesita calentamiento y Pre-LN no.
    Devuelve ``{"lr", "warmup", "runs": {"post_ln", "post_ln_warmup", "pre_ln"}}``,
    cada uno un resultado de ``train_gpt`` a la tasa ``lr``; solo ``"post_ln_warmup"``
    calienta, durante ``warmup`` pasos. Los tres entrenan a la vez (``train_gpts``).
    El capítulo no lee sus textos: si no se da ``n_samples``, no se generan.
    """
    kwargs.setdefault("n_samples", 0)
    names = ("post_ln", "post_ln_warmup", "pre_ln")
    members = [{"config": "post_ln"}, {"config": "post_ln", "warmup": warmup},
               {"config": "pre_ln"}]
    trained = train_gpts([{**m, "seed": seed} for m in members], lr=lr,
                         dataset=_dataset(), **kwargs)
    return {"lr": lr, "warmup": warmup, "runs": dict(zip(names, trained))}


def postln_edge(seed: int = 0, other_seed: int = 1, lr: float = DEFAULTS["lr"],
                lr_factor: float = 2.0, deep: int = 12, **kwargs) -> dict:
    """Dónde deja de aprender Post-LN sin calentamiento, con Pre-LN al lado (Cap. 10).

    Dos pasos fuera del régimen del capítulo (6 bloques, tasa ``lr``), uno cada vez y
    sin calentamiento: la tasa ``lr_factor · lr`` con 6 bloques, y ``deep`` bloques a
    la tasa ``lr``. Takase et al. (2023) observan que Post-LN gana en Transformers de
    seis capas o menos y se vuelve inestable en los de diez o más. Cada borde es un
    lote de ``train_gpts``: Post-LN y Pre-LN con la semilla ``seed`` (mismos pesos
    de partida en lo común, mismos lotes) y, a la tasa mayor, Post-LN también con
    ``other_seed``, porque ahí que aprenda depende de la semilla. El capítulo solo lee
    la pérdida final: la validación se mide al empezar y al terminar, y no se generan
    textos. Devuelve ``{"lr", "lr_high", "deep", "seed", "other_seed", "runs":
    {"lr_high": {"post_ln", "pre_ln", "post_ln_other"}, "deep": {"post_ln",
    "pre_ln"}}}``, cada uno un resultado de ``train_gpt``; ``kwargs`` pasa a
    ``train_gpts`` (``steps``...).
    """
    steps = kwargs.pop("steps", DEFAULTS["steps"])
    common = dict(steps=steps, eval_every=steps, n_samples=0, dataset=_dataset(),
                  **kwargs)
    pair = [{"config": "post_ln", "seed": seed}, {"config": "pre_ln", "seed": seed}]
    lr_high = lr_factor * lr
    high = train_gpts(pair + [{"config": "post_ln", "seed": other_seed}], lr=lr_high,
                      **common)
    deeper = train_gpts(pair, lr=lr, n_layers=deep, **common)
    return {"lr": lr, "lr_high": lr_high, "deep": deep, "seed": seed,
            "other_seed": other_seed,
            "runs": {"lr_high": dict(zip(("post_ln", "pre_ln", "post_ln_other"), high)),
                     "deep": dict(zip(("post_ln", "pre_ln"), deeper))}}


# --- Dentro del modelo entrenado ------------------------------------------------------


def _ffn_w2(model: TinyGPT) -> list[torch.Tensor]:
    # W₂ de la FFN de cada bloque: la matriz del Teorema 1 de Xiong et al. (2020).
    return [block.mlp.c_proj.weight for block in model.blocks]


@torch.no_grad()
def stream_norms(model: TinyGPT, idx: torch.Tensor) -> dict:
    """La norma del flujo residual bloque a bloque, sin y con ``ln_f`` (Capítulo 10).

    ``h₀ = wte[x] + wpe[t]`` y ``h_l = bloque_l(h_{l−1})``. Para cada ``l = 0, …, L``
    da la media, sobre todas las posiciones de ``idx``, de ``‖h_l‖`` (la longitud
    del vector de ``d_model`` componentes de cada posición); y la media de
    ``‖ln_f(h_L)‖``, lo que recibe ``lm_head``. Sin ``ln_f`` (todas las versiones
    menos ``"pre_ln"``) las dos últimas coinciden. No cambia el modelo.

    Formas: ``idx`` ``(B, T)``. Devuelve ``{"blocks": [L + 1 normas], "ln_f": norma,
    "has_ln_f": si ``ln_f`` es una LayerNorm}``.
    """
    was_training = model.training
    model.eval()
    T = idx.shape[1]
    h = model.wte(idx) + model.wpe(torch.arange(T))  # (B, T, C)
    norms = [float(h.norm(dim=-1).mean())]
    for block in model.blocks:
        h = block(h) if model.block_forward is None else model.block_forward(block, h)
        norms.append(float(h.norm(dim=-1).mean()))
    final = float(model.ln_f(h).norm(dim=-1).mean())
    model.train(was_training)
    return {"blocks": norms, "ln_f": final,
            "has_ln_f": isinstance(model.ln_f, nn.LayerNorm)}


@torch.no_grad()
def norm_params(model: nn.Module) -> list[dict]:
    """Cuánto se han alejado γ y β de cada LayerNorm de su valor inicial (Capítulo 10).

    LayerNorm empieza con ``γ = 1`` y ``β = 0``. Para cada ``nn.LayerNorm`` del modelo,
    en su orden (``blocks.0.ln_1``, ``blocks.0.ln_2``, …, ``ln_f``), devuelve
    ``{"name", "gamma_dev": media de |γ − 1|, "beta_dev": media de |β|,
    "gamma_max_dev": máx. |γ − 1|, "beta_max_dev": máx. |β|}``. Sin ninguna
    LayerNorm, la lista está vacía.
    """
    out = []
    for name, module in model.named_modules():
        if isinstance(module, nn.LayerNorm):
            gamma_dev = (module.weight - 1).abs()
            beta_dev = module.bias.abs()
            out.append({"name": name,
                        "gamma_dev": float(gamma_dev.mean()),
                        "beta_dev": float(beta_dev.mean()),
                        "gamma_max_dev": float(gamma_dev.max()),
                        "beta_max_dev": float(beta_dev.max())})
    return out


def layer_grad_norms(model: TinyGPT) -> list[float]:
    """``‖∂ℓ/∂W₂‖`` de la FFN de cada bloque, del gradiente ya calculado (Capítulo 10).

    W₂ es ``mlp.c_proj.weight``, la segunda matriz de la FFN: la que estudian el
    Teorema 1 y la Figura 3 de Xiong et al. (2020), y el capítulo 7. Lee ``.grad``
    tras ``loss.backward()``; un bloque sin gradiente da ``nan``.
    """
    return [float(w.grad.norm()) if w.grad is not None else math.nan
            for w in _ffn_w2(model)]


def first_step_grad_norms(model: TinyGPT, x: torch.Tensor, y: torch.Tensor
                          ) -> list[float]:
    """``layer_grad_norms`` de la pérdida de un lote ``(x, y)`` (Capítulo 10).

    Entropía cruzada del carácter siguiente, como en ``train_gpt``; los gradientes
    anteriores se borran y los nuevos quedan en el modelo. Con un modelo recién creado
    y el primer lote es el gradiente del primer paso de ``train_gpt``.

    Formas: ``x`` y ``y`` ``(B, T)``. Devuelve una norma por bloque.
    """
    model.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
    loss.backward()
    return layer_grad_norms(model)


def first_step_sizes(before: Sequence[torch.Tensor], after: Sequence[torch.Tensor],
                     lr: float) -> list[float]:
    """Tamaño de un paso, por matriz, en unidades de la tasa ``lr`` (Capítulo 10).

    ``√(media((después − antes)²)) / lr``: cuánto se movió, en promedio cuadrático,
    cada peso. En el primer paso de Adam (y AdamW) ``m̂ = g`` y ``v̂ = g²``, así que
    cada peso se mueve ``lr · g / (|g| + ε) ≈ lr``, sea cual sea el tamaño de ``g``:
    el resultado es ≈ 1 (el decaimiento de pesos de AdamW y su ε lo apartan un poco).
    """
    return [float((a.detach() - b).pow(2).mean().sqrt()) / lr
            for b, a in zip(before, after)]


def known_word_fraction(samples: Sequence[str], text: str, prompt: str = PROMPT
                        ) -> float:
    """Fracción de las palabras generadas (2 letras o más) que existen en ``text``.

    Se quita el comienzo ``prompt``, que no lo escribió el modelo. Las palabras son
    tramos de letras; mayúsculas y minúsculas cuentan igual. Capítulo 10.
    """
    vocabulary = set(_WORD.findall(text.lower()))
    words = [w for s in samples for w in _WORD.findall(s.removeprefix(prompt).lower())
             if len(w) >= 2]
    return sum(w in vocabulary for w in words) / len(words) if words else 0.0


_WORD = re.compile(r"[a-záéíóúüñ]+")


# --- Exportación: los pesos entrenados, para el navegador -----------------------------

#: Versión del formato de ``export_weights`` (la lee ``resnorm/widgets/gpt.js``).
EXPORT_FORMAT = "resnorm-gpt-1"


def trained_model(run: dict, vocab_size: int) -> TinyGPT:
    """El ``TinyGPT`` entrenado de ``run`` (un resultado de ``train_gpt``), en modo
    evaluación. No toca el estado aleatorio global. Capítulo 10."""
    p = run["params"]
    with torch.random.fork_rng(devices=[]):
        model = TinyGPT(run["config"], vocab_size, p["n_layers"], p["d_model"],
                        p["n_heads"], p["block_size"])
    model.load_state_dict(run["state_dict"])
    return model.eval()


def export_weights(state_dict: dict, quantize: bool = True) -> tuple[list[dict], bytes]:
    """Los pesos de un ``TinyGPT`` en un archivo binario compacto (Capítulo 10).

    Cada tensor, en el orden de ``state_dict``, ocupa un tramo de ``datos``
    (little-endian; cada tramo empieza en un múltiplo de 4 bytes):

    - ``"q8"`` (matrices, con ``quantize``): int8 por fila con escala float32. Para la
      fila *r*, ``s_r = max_j |w_rj| / 127`` (1 si la fila es toda 0) y
      ``q_rj = round(w_rj / s_r)`` en [−127, 127]; el tramo son las ``filas`` escalas
      ``s_r`` en float32 y después los ``q_rj`` en int8, fila a fila. Se recupera
      ``w_rj ≈ s_r · q_rj``, con error ≤ ``s_r / 2``.
    - ``"f32"``: float32 tal cual (los vectores: sesgos, γ y β; todo sin
      ``quantize``).

    Devuelve ``(tensores, datos)``: ``tensores`` es ``[{"name", "shape", "dtype",
    "offset"}]`` (lo que va en el JSON del widget) y ``datos``, los bytes.
    """
    import numpy as np

    entries, chunks, offset = [], [], 0
    for name, tensor in state_dict.items():
        w = tensor.detach().to(torch.float32).cpu().numpy()
        if quantize and w.ndim == 2:
            peak = np.abs(w).max(axis=1)
            scale = np.where(peak > 0, peak / np.float32(127), 1).astype("<f4")
            q = np.clip(np.rint(w / scale[:, None]), -127, 127).astype(np.int8)
            chunk, dtype = scale.tobytes() + q.tobytes(), "q8"
        else:
            chunk, dtype = w.astype("<f4").tobytes(), "f32"
        entries.append({"name": name, "shape": list(w.shape), "dtype": dtype,
                        "offset": offset})
        chunk += bytes(-len(chunk) % 4)
        chunks.append(chunk)
        offset += len(chunk)
    return entries, b"".join(chunks)


def import_weights(entries: list[dict], data: bytes) -> dict:
    """Lo contrario de ``export_weights``: ``{nombre: tensor float32}``, con las
    matrices ``"q8"`` ya multiplicadas por su escala (lo que usa el navegador)."""
    import numpy as np

    out = {}
    for e in entries:
        shape, at = tuple(e["shape"]), e["offset"]
        n = math.prod(shape)
        if e["dtype"] == "q8":
            rows, cols = shape
            scale = np.frombuffer(data, "<f4", rows, at)
            q = np.frombuffer(data, np.int8, n, at + 4 * rows).reshape(rows, cols)
            w = scale[:, None] * q.astype(np.float32)
        elif e["dtype"] == "f32":
            w = np.frombuffer(data, "<f4", n, at).reshape(shape)
        else:
            raise ValueError(f"{e['name']}: tipo {e['dtype']!r} desconocido")
        out[e["name"]] = torch.from_numpy(w.astype(np.float32))
    return out


def dequantize_weights(state_dict: dict) -> dict:
    """Los pesos tal como los usa el navegador: exportados en ``"q8"`` y recuperados."""
    return import_weights(*export_weights(state_dict))


# --- Figuras --------------------------------------------------------------------------

# El mismo color, trazo y nombre que cada serie tiene en los demás capítulos.
_STYLE_KEY = {"plain": "plain", "ln_only": "plain_ln", "residual": "residual",
              "post_ln": "post_ln", "pre_ln": "pre_ln"}


def _series_style(config: str, **overrides) -> dict:
    from resnorm.plots import KIND_STYLE

    style = dict(KIND_STYLE[_STYLE_KEY[config]])
    style.update(overrides)
    return style


def plot_val_losses(ax, runs: dict, unigram: float, labels: dict | None = None,
                    title: str = "Pérdida de validación"):
    """Curvas de pérdida de validación de ``runs`` (nombre → ``train_gpt``) (Cap. 10).

    La línea gris discontinua es la pérdida de frecuencias ``unigram``. ``labels``
    cambia el nombre de una serie (por omisión, el de su configuración).
    """
    ax.figure.set_facecolor("white")
    ax.set_facecolor("white")
    ax.set_title(title)
    ax.set_xlabel("Paso de entrenamiento")
    ax.set_ylabel("Entropía cruzada (logaritmo natural)")
    ax.grid(True, color="#dddddd", linewidth=0.8)
    for name, run in runs.items():
        style = _series_style(run["config"])
        if labels and name in labels:
            style.update(labels[name] if isinstance(labels[name], dict)
                         else {"label": labels[name]})
        ax.plot(run["val_steps"], run["val_loss"], **style)
    ax.axhline(unigram, color="#777777", linewidth=1.2, ls="--",
               label="Solo frecuencias de carácter")
    ax.legend(frameon=True, facecolor="white", fontsize="small")
    return ax


def alt_text_val_losses(runs: dict, unigram: float, labels: dict | None = None) -> str:
    """Texto alternativo de ``plot_val_losses``, con los números de ``runs``."""
    from resnorm.plots import format_magnitude

    steps = next(iter(runs.values()))["params"]["steps"]
    parts = [f"Pérdida de validación durante {steps} pasos; la referencia de solo "
             f"frecuencias de carácter es {format_magnitude(unigram)}."]
    for name, run in runs.items():
        label = _series_style(run["config"])["label"]
        if labels and name in labels:
            given = labels[name]
            label = given if isinstance(given, str) else given["label"]
        curve = run["val_loss"]
        parts.append(f"{label}: de {format_magnitude(curve[0])} a "
                     f"{format_magnitude(curve[-1])}.")
    return " ".join(parts)
