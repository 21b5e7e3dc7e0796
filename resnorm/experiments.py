"""Experimentos pequeños, con semilla fija y en CPU, que respaldan lo que dice el texto.

Cada función corre en pocos segundos en una CPU de 2 núcleos, usa un solo hilo (para
que el resultado no dependa de cuántos hay), siembra su propio generador sin tocar el
estado aleatorio global de quien la llama, y devuelve datos planos (``dict`` de listas y
``float``) que se pueden guardar en JSON tal cual, junto con los parámetros usados
(clave ``"params"``). Las figuras de ``resnorm.plots`` dibujan estos datos.

La «capa plana» de los experimentos es ``tanh(W x + b)`` con la inicialización por
defecto de ``torch.nn.Linear`` (``W`` uniforme en ``±1/√fan_in``, varianza
``1/(3·fan_in)``): la que obtienes si apilas capas sin pensar en la escala.

- Capítulo 1 «El problema de apilar capas»: ``first_layer_grad_vs_depth``,
  ``signal_survival``, ``orthogonal_layer_control``.
- Capítulo 7 «El bloque completo»: ``transformer_grad_norms``,
  ``linear_post_ln_input_grad``.
- Capítulo 9 «Profundidad: escalas y gradientes»: ``activation_std_per_layer``,
  ``scaled_residual_std``, ``first_layer_grad_vs_depth`` (con Pre-LN),
  ``first_layer_grad_by_init``, ``transformer_grad_norms``, ``tiny_training``.
  ``first_layer_grad_vs_gain`` es el mismo control con una ganancia continua; el
  libro usa ``first_layer_grad_by_init`` y las pruebas comprueban los dos.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import torch
from torch import nn
from torch.nn import functional as F

from resnorm.blocks import build_stack
from resnorm.numerics import EPS

__all__ = [
    "INITS",
    "activation_std_per_layer",
    "first_layer_grad_by_init",
    "first_layer_grad_vs_depth",
    "first_layer_grad_vs_gain",
    "linear_post_ln_input_grad",
    "orthogonal_layer_control",
    "scaled_residual_std",
    "signal_survival",
    "tiny_training",
    "transformer_grad_norms",
]

MLP_KINDS = ("plain", "residual", "pre_ln")


@contextmanager
def _isolated(seed: int) -> Iterator[torch.Generator]:
    """Un hilo, semilla propia y el estado aleatorio global intacto al salir."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    # Los números subnormales (una pila plana que se desvanece los produce) hacen la
    # CPU varias veces más lenta; redondearlos a cero no cambia ningún resultado.
    flush = torch.set_flush_denormal(True)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            yield torch.Generator().manual_seed(seed)
    finally:
        torch.set_num_threads(threads)
        if flush:
            torch.set_flush_denormal(False)


def _check_kinds(kinds: Sequence[str], allowed: Sequence[str]) -> list[str]:
    kinds = list(kinds)
    for kind in kinds:
        if kind not in allowed:
            raise ValueError(f"tipo de pila desconocido {kind!r}; usa uno de {allowed}")
    return kinds


class _DeepMLP(nn.Module):
    """Pila de ``depth`` capas ``tanh(Linear)`` de ancho ``width``, con o sin atajo.

    - ``"plain"``: ``h ← tanh(W_l h + b_l)``.
    - ``"residual"``: ``h ← h + tanh(W_l h + b_l)``.
    - ``"pre_ln"``: ``h ← h + tanh(W_l LN_l(h) + b_l)`` y una LN final (``ln_f``).

    ``W_l`` y ``b_l`` se inicializan como en ``nn.Linear`` (uniformes en
    ``±1/√width``). Se guardan apilados, ``weight`` de forma ``(depth, width,
    width)``: el optimizador recorre cuatro tensores en vez de ``2·depth``, y con
    Adam el entrenamiento va casi el doble de rápido en CPU.

    Formas: ``(B, width)`` → ``(B, width)``.
    """

    def __init__(self, kind: str, depth: int, width: int) -> None:
        super().__init__()
        self.kind = kind
        self.width = width
        bound = 1.0 / math.sqrt(width)
        weight = torch.empty(depth, width, width).uniform_(-bound, bound)
        self.weight = nn.Parameter(weight)  # (depth, width, width)
        self.bias = nn.Parameter(torch.empty(depth, width).uniform_(-bound, bound))
        if kind == "pre_ln":
            self.ln_weight = nn.Parameter(torch.ones(depth, width))  # γ de cada LN
            self.ln_bias = nn.Parameter(torch.zeros(depth, width))  # β de cada LN
            self.ln_f = nn.LayerNorm(width)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        layers = zip(self.weight.unbind(0), self.bias.unbind(0))
        if self.kind == "pre_ln":
            norms = zip(self.ln_weight.unbind(0), self.ln_bias.unbind(0))
            for (w, b), (gamma, beta) in zip(layers, norms):
                z = F.layer_norm(h, (self.width,), gamma, beta)
                h = h + torch.tanh(F.linear(z, w, b))  # (B, width)
            return self.ln_f(h)
        for w, b in layers:
            out = torch.tanh(F.linear(h, w, b))  # (B, width)
            h = out if self.kind == "plain" else h + out
        return h


def first_layer_grad_vs_depth(
    depths: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    kinds: Sequence[str] = MLP_KINDS,
    width: int = 64,
    batch_size: int = 64,
    seed: int = 0,
) -> dict:
    """Norma del gradiente que llega a la primera capa, según la profundidad.

    Para cada profundidad ``L`` y cada tipo de pila (``"plain"``, ``"residual"``,
    ``"pre_ln"``; ver ``_DeepMLP``) se construye una pila nueva, se pasa un lote
    ``x ~ N(0, 1)`` de forma ``(batch_size, width)`` y se retropropaga la pérdida
    lineal ``ℓ = (1/B) Σ_b ⟨u_b, h_L,b⟩`` con direcciones ``u_b`` aleatorias fijas de
    norma 1. Así ``∂ℓ/∂h_L`` es la misma para todas las pilas y lo que cambia es solo
    cuánto de ese gradiente sobrevive hasta ``W_1``: se mide ``‖∂ℓ/∂W_1‖_F``.

    Sin atajo, cada capa multiplica el gradiente por ``diag(tanh′)·Wᵀ``, de norma
    típica menor que 1, y el producto de ``L`` factores se desvanece geométricamente.
    Con atajo el factor es ``I + diag(tanh′)·Wᵀ``: la identidad lo impide.

    Devuelve ``{"params", "depths", "kinds", "grad_norm": {kind: [float por
    profundidad]}}``. Capítulo 1: El problema de apilar capas (y Capítulo 9).
    """
    kinds = _check_kinds(kinds, MLP_KINDS)
    depths = [int(d) for d in depths]
    grad_norm: dict[str, list[float]] = {kind: [] for kind in kinds}
    with _isolated(seed) as gen:
        x = torch.randn(batch_size, width, generator=gen)
        probe = F.normalize(torch.randn(batch_size, width, generator=gen), dim=-1)
        for kind in kinds:
            for depth in depths:
                torch.manual_seed(seed + depth)  # mismos pesos W para cada tipo
                net = _DeepMLP(kind, depth, width)
                loss = (net(x) * probe).sum() / batch_size
                loss.backward()
                grad_norm[kind].append(net.weight.grad[0].norm().item())
    params = dict(width=width, batch_size=batch_size, seed=seed)
    return {"params": params, "depths": depths, "kinds": kinds, "grad_norm": grad_norm}


def first_layer_grad_vs_gain(
    gains: Sequence[float] = (0.5, 1.0, 2.0),
    depth: int = 64,
    kinds: Sequence[str] = ("plain", "residual"),
    width: int = 64,
    batch_size: int = 64,
    seed: int = 0,
) -> dict:
    """Cuánto gradiente llega a la primera capa según la ganancia de la inicialización.

    La misma medida que ``first_layer_grad_vs_depth`` (pérdida lineal fija, norma
    ``‖∂ℓ/∂W_1‖_F``), pero con los pesos de cada capa ortogonales y multiplicados por
    la ganancia ``g`` (``nn.init.orthogonal_(W, gain=g)``) y los sesgos a cero. Para
    cada ``g`` y cada tipo de pila se mide con 1 capa y con ``depth`` capas, y se
    devuelve el cociente ``ratio = ‖∂ℓ/∂W_1‖(depth) / ‖∂ℓ/∂W_1‖(1)``: cuánto cambia
    el gradiente de la primera capa al apilar ``depth`` capas.

    - Sin atajo (``"plain"``), cada capa multiplica el gradiente por
      ``diag(tanh′)·g·Qᵀ``: con ``g < 1`` el cociente se desvanece
      geométricamente, con ``g > 1`` crece; solo cerca de ``g = 1`` queda en rango.
    - Con atajo (``"residual"``), el factor es ``I + diag(tanh′)·g·Qᵀ``: la
      identidad impide que se desvanezca con cualquier ``g``; lo que cambia con
      ``g`` es cuánto crece.

    Las normas se calculan en float64: con ``g = 0.5`` y 64 capas, el cuadrado de
    cada entrada del gradiente cae por debajo del menor float32 normal.

    Devuelve ``{"params", "gains", "kinds", "grad_norm": {kind: [[norma con 1 capa,
    norma con depth capas] por g]}, "ratio": {kind: [cociente por g]}}``.
    Capítulo 9: Profundidad: escalas y gradientes.
    """
    kinds = _check_kinds(kinds, ("plain", "residual"))
    gains = [float(g) for g in gains]
    depths = (1, int(depth))
    grad_norm: dict[str, list[list[float]]] = {kind: [] for kind in kinds}
    with _isolated(seed) as gen:
        x = torch.randn(batch_size, width, generator=gen)
        probe = F.normalize(torch.randn(batch_size, width, generator=gen), dim=-1)
        for kind in kinds:
            for gain in gains:
                norms = []
                for d in depths:
                    torch.manual_seed(seed + d)  # mismos pesos para cada tipo
                    net = _DeepMLP(kind, d, width)
                    with torch.no_grad():
                        for w in net.weight:  # (width, width) por capa
                            nn.init.orthogonal_(w, gain=gain)
                        net.bias.zero_()
                    loss = (net(x) * probe).sum() / batch_size
                    loss.backward()
                    norms.append(net.weight.grad[0].double().norm().item())
                grad_norm[kind].append(norms)
    ratio = {k: [deep / one for one, deep in grad_norm[k]] for k in kinds}
    params = dict(depth=int(depth), width=width, batch_size=batch_size, seed=seed,
                  init="orthogonal")
    return {"params": params, "gains": gains, "kinds": kinds, "grad_norm": grad_norm,
            "ratio": ratio}


INITS = ("default", "xavier", "orthogonal", "orthogonal_tanh_gain")


def _init_stack_weights(net: _DeepMLP, init: str) -> None:
    """Reinicializa los pesos de cada capa de ``net`` según ``init``; sesgos a cero."""
    with torch.no_grad():
        net.bias.zero_()
        if init == "default":
            return  # los pesos de nn.Linear: uniformes en ±1/√fan_in
        for w in net.weight.unbind(0):  # (width, width), vistas de net.weight
            if init == "xavier":
                nn.init.xavier_normal_(w)
            elif init == "orthogonal":
                nn.init.orthogonal_(w)
            else:  # "orthogonal_tanh_gain"
                nn.init.orthogonal_(w, gain=nn.init.calculate_gain("tanh"))


def first_layer_grad_by_init(
    depths: Sequence[int] = (1, 2, 4, 8, 16, 32, 64),
    inits: Sequence[str] = INITS,
    kinds: Sequence[str] = ("plain", "residual"),
    width: int = 64,
    batch_size: int = 64,
    seed: int = 0,
) -> dict:
    """El gradiente de la primera capa según la inicialización de los pesos.

    Control de ``first_layer_grad_vs_depth``: la misma pila ``tanh`` (``_DeepMLP``),
    el mismo lote y la misma pérdida lineal, pero con los sesgos a cero y cuatro
    inicializaciones de cada ``W_l`` (``width × width``):

    - ``"default"``: la de ``nn.Linear``, uniforme en ``±1/√width``; varianza
      ``1/(3·width)``, así que cada capa encoge la señal (ganancia ``1/√3 ≈ 0.58``).
    - ``"xavier"``: Xavier normal, ``W ~ N(0, 1/width)`` (ganancia 1).
    - ``"orthogonal"``: ``W`` ortogonal (conserva la norma: ganancia 1).
    - ``"orthogonal_tanh_gain"``: ``W`` ortogonal por ``5/3``, la ganancia que
      ``nn.init.calculate_gain("tanh")`` recomienda para compensar ``tanh′ < 1``.

    Sin atajo, el gradiente ``‖∂ℓ/∂W_1‖_F`` depende de la ganancia de forma
    exponencial: con la de ``nn.Linear`` se desvanece, con ganancia 1 baja despacio
    y con ``5/3`` crece. Con atajo no se desvanece con ninguna.

    Devuelve ``{"params", "depths", "inits", "kinds", "grad_norm": {kind: {init:
    [float por profundidad]}}}``. Capítulo 9: Profundidad: escalas y gradientes
    (el Capítulo 1 adelanta la ganancia de ``nn.Linear``).
    """
    kinds = _check_kinds(kinds, ("plain", "residual"))
    inits = list(inits)
    for init in inits:
        if init not in INITS:
            raise ValueError(f"inicialización desconocida {init!r}; usa una de {INITS}")
    depths = [int(d) for d in depths]
    grad_norm: dict[str, dict[str, list[float]]] = {
        kind: {init: [] for init in inits} for kind in kinds
    }
    with _isolated(seed) as gen:
        x = torch.randn(batch_size, width, generator=gen)  # (B, width)
        probe = F.normalize(torch.randn(batch_size, width, generator=gen), dim=-1)
        for kind in kinds:
            for init in inits:
                for depth in depths:
                    torch.manual_seed(seed + depth)  # mismos pesos para cada tipo
                    net = _DeepMLP(kind, depth, width)
                    _init_stack_weights(net, init)
                    loss = (net(x) * probe).sum() / batch_size
                    loss.backward()
                    grad_norm[kind][init].append(net.weight.grad[0].norm().item())
    params = dict(width=width, batch_size=batch_size, seed=seed, bias="cero")
    return {
        "params": params,
        "depths": depths,
        "inits": inits,
        "kinds": kinds,
        "grad_norm": grad_norm,
    }


def signal_survival(
    depths: Sequence[int] = (1, 5, 20, 50),
    kinds: Sequence[str] = MLP_KINDS,
    width: int = 128,
    batch_size: int = 64,
    seed: int = 0,
    bias: bool = True,
) -> dict:
    """El «juego del teléfono»: cuánto de la entrada queda tras ``L`` capas.

    Se pasa un lote ``x`` de forma ``(batch_size, width)`` por ``L`` capas aleatorias
    (``_DeepMLP``, sin entrenar) y se mide, para cada ejemplo, la similitud coseno
    ``cos(x, h_L) = ⟨x, h_L⟩ / (‖x‖ ‖h_L‖)``, promediada en el lote.

    Sin atajo, una sola capa aleatoria ya reescribe el vector entero: el coseno cae a
    ≈ 0 desde ``L = 1``. Con atajo, ``h_L = x + Σ_l F_l`` conserva ``x`` como
    componente, y el coseno baja despacio (≈ ``‖x‖ / ‖h_L‖``) a medida que se acumulan
    las contribuciones de las capas.

    También mide ``pairwise_abs_cosine``: la media de ``|cos(h_L,i, h_L,j)|`` entre
    salidas de entradas distintas (``i ≠ j``). Entradas aleatorias independientes dan
    valores cercanos a 0; si crece, mensajes distintos acaban pareciéndose.

    ``bias=False`` pone a cero los sesgos ``b_l`` (los mismos pesos ``W_l``): en la pila
    plana, el sesgo que cada capa suma igual a todas las entradas es buena parte de
    por qué las salidas acaban en una misma recta (``|cos| ≈ 1`` tras 20 capas con
    sesgo; bastante menos sin él).

    Devuelve ``{"params", "depths", "kinds", "cosine": {kind: [...]},
    "pairwise_abs_cosine": {kind: [...]}, "output_std": {kind: [...]}}`` con un valor
    por profundidad. Capítulo 1: El problema de apilar capas.
    """
    kinds = _check_kinds(kinds, MLP_KINDS)
    depths = [int(d) for d in depths]
    cosine: dict[str, list[float]] = {k: [] for k in kinds}
    pairwise: dict[str, list[float]] = {k: [] for k in kinds}
    output_std: dict[str, list[float]] = {k: [] for k in kinds}
    off_diagonal = ~torch.eye(batch_size, dtype=torch.bool)
    with _isolated(seed) as gen, torch.no_grad():
        x = torch.randn(batch_size, width, generator=gen)  # (B, width)
        for kind in kinds:
            for depth in depths:
                torch.manual_seed(seed + depth)  # mismos pesos W para cada tipo
                net = _DeepMLP(kind, depth, width)
                if not bias:
                    net.bias.zero_()
                h = net(x)  # (B, width)
                cosine[kind].append(F.cosine_similarity(x, h, dim=-1).mean().item())
                unit = F.normalize(h, dim=-1)
                gram = (unit @ unit.T).abs()  # (B, B)
                pairwise[kind].append(gram[off_diagonal].mean().item())
                output_std[kind].append(h.std(correction=0).item())
    params = dict(width=width, batch_size=batch_size, seed=seed, bias=bias)
    return {
        "params": params,
        "depths": depths,
        "kinds": kinds,
        "cosine": cosine,
        "pairwise_abs_cosine": pairwise,
        "output_std": output_std,
    }


def orthogonal_layer_control(
    depths: Sequence[int] = (1, 5, 20, 50),
    width: int = 128,
    batch_size: int = 64,
    seed: int = 0,
) -> dict:
    """Control de ``signal_survival``: una pila de capas ortogonales, sin pérdida.

    Cada capa es ``h ← Q_l h`` con ``Q_l`` ortogonal aleatoria (``QᵀQ = I``): conserva
    normas y productos escalares, así que no pierde nada y se deshace exactamente con
    ``Q_lᵀ``. Aun así, ``cos(x, Q x) ≈ 0``: en ``width`` dimensiones, una rotación
    aleatoria deja el vector casi perpendicular al original. El coseno con la entrada
    mide alineación, no información. Lo que sí detecta una pérdida es
    ``pairwise_abs_cosine`` (la media de ``|cos|`` entre salidas de entradas
    distintas): aquí es, en cada profundidad, la misma que la de la entrada.

    Usa el mismo lote ``x`` que ``signal_survival`` con los mismos argumentos.
    Devuelve ``{"params", "depths", "cosine": [...], "pairwise_abs_cosine": [...],
    "input_pairwise_abs_cosine": float, "reconstruction_error": [...]}``, con un
    valor por profundidad; ``reconstruction_error`` es ``max |Q_1ᵀ ⋯ Q_Lᵀ h_L − x|``.
    Capítulo 1: El problema de apilar capas.
    """
    depths = [int(d) for d in depths]
    off_diagonal = ~torch.eye(batch_size, dtype=torch.bool)

    def mean_pairwise(h: torch.Tensor) -> float:
        unit = F.normalize(h, dim=-1)
        return (unit @ unit.T).abs()[off_diagonal].mean().item()

    cosine: list[float] = []
    pairwise: list[float] = []
    error: list[float] = []
    with _isolated(seed) as gen, torch.no_grad():
        x = torch.randn(batch_size, width, generator=gen)  # (B, width)
        for depth in depths:
            torch.manual_seed(seed + depth)
            qs = [nn.init.orthogonal_(torch.empty(width, width)) for _ in range(depth)]
            h = x
            for q in qs:
                h = h @ q.T  # (B, width)
            back = h
            for q in reversed(qs):
                back = back @ q  # Qᵀ deshace Q
            cosine.append(F.cosine_similarity(x, h, dim=-1).mean().item())
            pairwise.append(mean_pairwise(h))
            error.append((back - x).abs().max().item())
        input_pairwise = mean_pairwise(x)
    params = dict(width=width, batch_size=batch_size, seed=seed)
    return {
        "params": params,
        "depths": depths,
        "cosine": cosine,
        "pairwise_abs_cosine": pairwise,
        "input_pairwise_abs_cosine": input_pairwise,
        "reconstruction_error": error,
    }


ACTIVATION_CURVES = (
    "plain_gain_0.9",
    "plain_gain_1.0",
    "plain_gain_1.1",
    "plain_ln",
    "residual",
    "post_ln",
    "pre_ln",
)


def activation_std_per_layer(
    n_layers: int = 96,
    width: int = 256,
    batch_size: int = 64,
    seed: int = 0,
) -> dict:
    """Desviación estándar de las activaciones capa a capa, con y sin residual y LN.

    Todas las pilas usan capas lineales ``W x`` con ``W ~ N(0, g²/width)``, de modo
    que ``Var(W x) ≈ g²·Var(x)``; ``g = 1`` salvo donde se indica. Curvas (claves):

    - ``"plain_gain_0.9"``, ``"plain_gain_1.0"``, ``"plain_gain_1.1"``: ``h ← W h``.
      La std se multiplica por ≈ ``g`` en cada capa: ``0.9^96 ≈ 4·10⁻⁵`` (se
      desvanece) y ``1.1^96 ≈ 9·10³`` (explota).
    - ``"plain_ln"``: ``h ← LN(W h)``. Std 1 en cada capa, pase lo que pase antes.
    - ``"residual"``: ``h ← h + W h``, sin LN. Se suman dos términos de la misma
      varianza: la varianza se duplica en cada capa y la std crece como ``√2^l``.
    - ``"post_ln"``: ``h ← LN(h + W h)``. Std 1 en cada capa.
    - ``"pre_ln"``: ``h ← h + W LN(h)``. Cada capa suma un término de varianza 1,
      así que la varianza crece de 1 en 1 y la std como ``√(1 + l)``: el flujo
      residual de Pre-LN no se queda en 1 (por eso hace falta ``ln_f``).

    La std es la poblacional sobre todo el lote ``(batch_size, width)``; la LN no
    tiene parámetros afines (``γ = 1``, ``β = 0``) y usa ``eps = 1e-5``.

    Devuelve ``{"params", "layers": [0, …, n_layers], "curves": {clave: [std por
    capa]}}``; el índice 0 es la entrada. Capítulo 9: Profundidad: escalas y
    gradientes.
    """
    gains = {"plain_gain_0.9": 0.9, "plain_gain_1.0": 1.0, "plain_gain_1.1": 1.1}

    def ln(z: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(z, (width,), eps=EPS)

    curves: dict[str, list[float]] = {}
    with _isolated(seed) as gen, torch.no_grad():
        x = torch.randn(batch_size, width, generator=gen)  # (B, width)
        for name in ACTIVATION_CURVES:
            gain = gains.get(name, 1.0)
            h = x
            stds = [h.std(correction=0).item()]
            for _ in range(n_layers):
                w = torch.randn(width, width, generator=gen) * (gain / math.sqrt(width))
                if name.startswith("plain_gain"):
                    h = h @ w.T
                elif name == "plain_ln":
                    h = ln(h @ w.T)
                elif name == "residual":
                    h = h + h @ w.T
                elif name == "post_ln":
                    h = ln(h + h @ w.T)
                else:  # pre_ln
                    h = h + ln(h) @ w.T
                stds.append(h.std(correction=0).item())
            curves[name] = stds
    params = dict(n_layers=n_layers, width=width, batch_size=batch_size, seed=seed)
    return {"params": params, "layers": list(range(n_layers + 1)), "curves": curves}


def scaled_residual_std(
    n_layers: int = 96,
    width: int = 256,
    batch_size: int = 64,
    branch_scale: float | None = None,
    seed: int = 0,
) -> dict:
    """Pila residual sin LN con la rama escalada: ``h ← h + α·W h``.

    Las mismas capas que la curva ``"residual"`` de ``activation_std_per_layer``
    (``W ~ N(0, 1/width)``, así que ``Var(W h) ≈ Var(h)``), pero la rama se
    multiplica por ``α`` (``branch_scale``; ``None`` usa ``1/√n_layers``, la escala
    con la que GPT-2 inicializa sus proyecciones residuales). La varianza se
    multiplica por ``1 + α²`` en cada capa, así que tras ``L`` capas la std es
    ``(1 + α²)^(L/2)``: con ``α = 1`` crece como ``√2^L`` (explota); con
    ``α = 1/√L`` tiende a ``√e ≈ 1.65``, se quede la pila en 12 capas o en 1000.

    Devuelve ``{"params", "branch_scale", "layers": [0, …, n_layers], "std": [std
    por capa], "theory": [(1 + α²)^(l/2) por capa]}``; la std es la poblacional sobre
    todo el lote. Capítulo 9: Profundidad: escalas y gradientes.
    """
    alpha = 1.0 / math.sqrt(n_layers) if branch_scale is None else float(branch_scale)
    with _isolated(seed) as gen, torch.no_grad():
        h = torch.randn(batch_size, width, generator=gen)  # (B, width)
        stds = [h.std(correction=0).item()]
        for _ in range(n_layers):
            w = torch.randn(width, width, generator=gen) / math.sqrt(width)
            h = h + alpha * (h @ w.T)
            stds.append(h.std(correction=0).item())
    theory = [(1 + alpha**2) ** (layer / 2) for layer in range(n_layers + 1)]
    params = dict(n_layers=n_layers, width=width, batch_size=batch_size, seed=seed)
    layers = list(range(n_layers + 1))
    return {"params": params, "branch_scale": alpha, "layers": layers, "std": stds,
            "theory": theory}


def _xavier_init(module: nn.Module) -> None:
    """Pesos Xavier normales y sesgos a cero, como en Xiong et al. 2020."""
    for m in module.modules():
        if isinstance(m, nn.Linear):
            nn.init.xavier_normal_(m.weight)
            if m.bias is not None:
                nn.init.zeros_(m.bias)


def transformer_grad_norms(
    n_layers: int | Sequence[int] = (3, 6, 12, 24, 48),
    kinds: Sequence[str] = ("post_ln", "pre_ln"),
    d_model: int = 64,
    n_heads: int = 4,
    d_ff: int = 256,
    seq_len: int = 16,
    batch_size: int = 16,
    vocab_size: int = 64,
    n_seeds: int = 3,
    seed: int = 0,
) -> dict:
    """Norma del gradiente de cada capa de una pila Transformer en la inicialización.

    Modelo de lenguaje diminuto: ``Embedding(vocab_size, d_model)`` → pila
    ``build_stack(kind, L, …, causal=True)`` → ``Linear(d_model, vocab_size)``, con
    pesos Xavier y sesgos a cero (la inicialización de Xiong et al. 2020). Con tokens
    y objetivos aleatorios de forma ``(batch_size, seq_len)`` se retropropaga la
    entropía cruzada y se mide, en cada bloque ``l``, ``‖∂ℓ/∂W₂^(l)‖_F``, la norma del
    gradiente de la segunda matriz de la FFN (``mlp.c_proj.weight``), la que estudia
    el Teorema 1 del artículo. Cada valor es la media sobre ``n_seeds`` semillas
    (pesos y datos distintos), porque una sola ejecución es ruidosa.

    Qué reproduce esta ejecución pequeña y qué no:

    - Sí: en Pre-LN el gradiente de la última capa se encoge al crecer ``L``
      (el teorema lo acota por ``O(d·√(ln d / L))``; aquí, de 3 a 48 capas, cae
      a menos de la mitad), mientras que en Post-LN no se encoge (la cota es
      ``O(d·√(ln d))``, sin ``L``; aquí incluso crece un poco).
    - No se reproduce la forma de cada perfil: en el artículo (§3.3, Figura 3) los
      gradientes de Post-LN crecen con el índice de capa y los de Pre-LN son casi
      iguales en todas las capas. Aquí, con ``d_model = 64``, el perfil de Post-LN
      sale casi plano y el de Pre-LN decrece de la primera capa a la última (la
      primera capa no se encoge con ``L``; las de arriba, sí). Lo que se sostiene es
      la comparación de escalas en la última capa, no la forma de cada perfil.
    - No: nada de esto entrena; el artículo conecta esas escalas con la necesidad de
      *warm-up* en Post-LN, algo que una ejecución de segundos no puede mostrar.

    ``n_layers`` acepta un entero o varias profundidades. Devuelve ``{"params",
    "n_layers": [L, …], "kinds", "grad_norms": {kind: {str(L): [norma por capa]}},
    "last_layer": {kind: [norma de la última capa por L]}, "first_layer": {kind:
    [norma de la primera capa por L]}}``. Capítulo 7: El bloque completo y Capítulo 9:
    Profundidad: escalas y gradientes.
    """
    kinds = _check_kinds(kinds, ("post_ln", "pre_ln"))
    if isinstance(n_layers, int):
        n_layers = (n_layers,)
    depths = [int(L) for L in n_layers]
    grad_norms: dict[str, dict[str, list[float]]] = {k: {} for k in kinds}
    with _isolated(seed):
        for kind in kinds:
            for depth in depths:
                total = torch.zeros(depth)
                for s in range(n_seeds):
                    # Misma semilla para ambos tipos: mismos pesos y mismos datos.
                    torch.manual_seed(seed * 1000 + s)
                    gen = torch.Generator().manual_seed(seed * 1000 + s)
                    stack = build_stack(
                        kind, depth, d_model, n_heads, d_ff, causal=True
                    )
                    embed = nn.Embedding(vocab_size, d_model)
                    head = nn.Linear(d_model, vocab_size, bias=False)
                    _xavier_init(stack)
                    _xavier_init(head)
                    nn.init.normal_(embed.weight)
                    shape = (batch_size, seq_len)
                    tokens = torch.randint(vocab_size, shape, generator=gen)
                    targets = torch.randint(vocab_size, shape, generator=gen)
                    logits = head(stack(embed(tokens)))  # (B, T, V)
                    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
                    loss.backward()
                    total += torch.tensor(
                        [b.mlp.c_proj.weight.grad.norm().item() for b in stack.blocks]
                    )
                grad_norms[kind][str(depth)] = (total / n_seeds).tolist()
    params = dict(
        d_model=d_model,
        n_heads=n_heads,
        d_ff=d_ff,
        seq_len=seq_len,
        batch_size=batch_size,
        vocab_size=vocab_size,
        n_seeds=n_seeds,
        seed=seed,
        init="xavier_normal",
    )
    return {
        "params": params,
        "n_layers": depths,
        "kinds": kinds,
        "grad_norms": grad_norms,
        "last_layer": {k: [grad_norms[k][str(L)][-1] for L in depths] for k in kinds},
        "first_layer": {k: [grad_norms[k][str(L)][0] for L in depths] for k in kinds},
    }



def linear_post_ln_input_grad(
    depths: Sequence[int] = (1, 2, 4, 8, 16, 32, 64, 96),
    d: int = 256,
    n_seeds: int = 3,
    eps: float = 1e-5,
    seed: int = 0,
) -> dict:
    """Norma del gradiente respecto a la entrada en una pila Post-LN lineal.

    Capítulo 7: El bloque completo (la ejecución de control de «por qué Post-LN
    cuesta más»). Cada capa es ``h ← LN(h + W_l h)``, sin γ ni β, con
    ``W_l ~ N(0, 1/d)`` de forma (d, d) y pesos propios por capa. Para una entrada
    ``x ~ N(0, I_d)`` y una dirección fija ``g ~ N(0, I_d)`` se retropropaga
    ``ℓ = ⟨g, h_L⟩`` y se mide ``‖∂ℓ/∂x‖₂``.

    Aunque el gradiente atraviesa ``L`` derivadas de LayerNorm, su norma no se
    desvanece con la profundidad: cada LN divide entre la escala de su entrada y el
    atajo la vuelve a sumar, así que el producto se queda en la misma escala. Lo que
    Xiong et al. (2020) señalan en Post-LN es otra cosa: la *escala* del gradiente de
    las últimas capas en la inicialización (ver ``transformer_grad_norms``).

    Cada valor es la media sobre ``n_seeds`` semillas (pesos, ``x`` y ``g``
    distintos). Devuelve ``{"params", "depths": [L, …], "grad_norm": [‖∂ℓ/∂x‖ por
    L]}``.
    """
    depths = [int(L) for L in depths]
    if not depths or min(depths) < 1:
        raise ValueError(f"depths debe tener profundidades ≥ 1, pero es {depths}")
    totals = [0.0] * len(depths)
    with _isolated(seed) as gen:
        for _ in range(n_seeds):
            weights = [
                torch.randn(d, d, generator=gen) / math.sqrt(d)  # W ~ N(0, 1/d)
                for _ in range(max(depths))
            ]
            x = torch.randn(d, generator=gen)
            g = torch.randn(d, generator=gen)
            for i, depth in enumerate(depths):
                x_in = x.clone().requires_grad_(True)
                h = x_in
                for w in weights[:depth]:
                    h = F.layer_norm(h + w @ h, (d,), eps=eps)  # LN(h + W h)
                (g @ h).backward()
                totals[i] += x_in.grad.norm().item()
    params = dict(d=d, n_seeds=n_seeds, eps=eps, seed=seed, init="normal(0, 1/d)")
    return {
        "params": params,
        "depths": depths,
        "grad_norm": [t / n_seeds for t in totals],
    }


DEFAULT_LR = {"adam": 1e-3, "sgd": 0.05}


def tiny_training(
    kinds: Sequence[str] = MLP_KINDS,
    steps: int = 300,
    optimizer: str = "adam",
    lr: float | None = None,
    depth: int = 20,
    width: int = 32,
    batch_size: int = 64,
    n_samples: int = 512,
    seed: int = 0,
) -> dict:
    """Entrenamiento diminuto de una red profunda: curvas de pérdida por tipo de pila.

    Tarea sintética con semilla fija: ``n_samples`` entradas ``x ∈ ℝ⁸ ~ N(0, 1)`` y
    objetivos ``y = tanh(x A) B ∈ ℝ⁴`` de un «maestro» aleatorio, estandarizados por
    columna (media 0, std 1: predecir siempre la media da pérdida ≈ 1). El «alumno» es
    ``Linear(8, width)`` → ``_DeepMLP(kind, depth, width)`` → ``Linear(width, 4)``,
    con la inicialización por defecto de PyTorch, entrenado con error cuadrático
    medio en lotes de ``batch_size`` durante ``steps`` pasos.

    ``optimizer`` es ``"adam"`` o ``"sgd"`` (sin momento); ``lr=None`` usa
    ``DEFAULT_LR`` (1e-3 para Adam, 0.05 para SGD). Si la pérdida deja de ser finita,
    el entrenamiento de esa pila se detiene y se anota el paso en
    ``diverged_at_step``.

    Con los valores por defecto (profundidad 20): la pila plana apenas aprende con
    ningún optimizador; la residual sin LN aprende con Adam (que reescala cada
    actualización) pero diverge con SGD a ``lr = 0.05``; la Pre-LN aprende con los
    dos. A ``lr = 0.01`` la residual sin LN sí entrena con SGD: lo que le falta no es
    capacidad sino margen en la tasa de aprendizaje.

    Devuelve ``{"params", "kinds", "optimizer", "lr", "losses": {kind: [pérdida por
    paso]}, "final_loss": {kind: float | None}, "diverged_at_step": {kind: int |
    None}}``; ``final_loss`` es la pérdida en todo el conjunto al terminar (``None``
    si divergió). Capítulo 9: Profundidad: escalas y gradientes.
    """
    kinds = _check_kinds(kinds, MLP_KINDS)
    if optimizer not in DEFAULT_LR:
        raise ValueError(f"optimizer debe ser 'adam' o 'sgd', no {optimizer!r}")
    lr = DEFAULT_LR[optimizer] if lr is None else float(lr)
    d_in, d_out, d_teacher = 8, 4, 64
    losses: dict[str, list[float]] = {}
    final_loss: dict[str, float | None] = {}
    diverged_at: dict[str, int | None] = {}
    with _isolated(seed) as gen:
        x = torch.randn(n_samples, d_in, generator=gen)  # (N, 8)
        a = torch.randn(d_in, d_teacher, generator=gen) / math.sqrt(d_in)
        b = torch.randn(d_teacher, d_out, generator=gen) / math.sqrt(d_teacher)
        y = torch.tanh(x @ a) @ b  # (N, 4)
        y = (y - y.mean(0)) / y.std(0, correction=0)
        for kind in kinds:
            torch.manual_seed(seed)  # todas las pilas parten de los mismos pesos
            body = _DeepMLP(kind, depth, width)
            net = nn.Sequential(nn.Linear(d_in, width), body, nn.Linear(width, d_out))
            if optimizer == "adam":
                opt = torch.optim.Adam(net.parameters(), lr=lr)
            else:
                opt = torch.optim.SGD(net.parameters(), lr=lr)
            # Los mismos lotes, en el mismo orden, para todas las pilas.
            batch_gen = torch.Generator().manual_seed(seed + 1)
            curve: list[float] = []
            diverged_at[kind] = None
            for step in range(steps):
                idx = torch.randint(n_samples, (batch_size,), generator=batch_gen)
                loss = F.mse_loss(net(x[idx]), y[idx])
                if not torch.isfinite(loss):
                    diverged_at[kind] = step
                    break
                curve.append(loss.item())
                opt.zero_grad()
                loss.backward()
                opt.step()
            losses[kind] = curve
            if diverged_at[kind] is None:
                with torch.no_grad():
                    final = F.mse_loss(net(x), y).item()
                final_loss[kind] = final if math.isfinite(final) else None
                if final_loss[kind] is None:
                    diverged_at[kind] = steps
            else:
                final_loss[kind] = None
    params = dict(
        steps=steps,
        optimizer=optimizer,
        lr=lr,
        depth=depth,
        width=width,
        batch_size=batch_size,
        n_samples=n_samples,
        seed=seed,
    )
    return {
        "params": params,
        "kinds": kinds,
        "optimizer": optimizer,
        "lr": lr,
        "losses": losses,
        "final_loss": final_loss,
        "diverged_at_step": diverged_at,
    }
