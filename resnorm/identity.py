"""La identidad, puesta a prueba: una capa plana frente a una residual.

Capítulo 2 «La conexión residual». He et al. (2016) explican la degradación de las
redes planas profundas con una hipótesis: a una pila de capas no lineales le cuesta
aproximar la identidad, mientras que con un atajo basta con llevar la rama a cero.
Aquí se ve en pequeño: la misma capa ``tanh(W x + b)``, con y sin atajo, entrenada
para devolver su entrada.

Como en ``resnorm.experiments``: semilla fija, CPU, un hilo, el estado aleatorio global
intacto y datos planos (``dict`` de listas y ``float``) con sus parámetros en
``"params"``. Importar este módulo no importa torch (lo usan los comprobadores).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "IDENTITY_KINDS",
    "alt_text_identity_learning",
    "identity_learning",
    "plot_identity_learning",
    "residual_tanh",
]

#: Las dos capas que compara ``identity_learning``, en el orden de las figuras.
IDENTITY_KINDS = ("plain", "residual")


def residual_tanh(x, W, b):
    """Capa residual ``x + tanh(W x + b)``: la rama es ``F(x) = tanh(W x + b)``.

    Capítulo 2. ``x``: (..., d); ``W``: (d, d); ``b``: (d,). Acepta arrays de NumPy
    o tensores de torch (y devuelve del mismo tipo que ``x``). Con ``W = 0`` y
    ``b = 0`` la rama vale ``tanh(0) = 0`` y la capa es exactamente la identidad.
    """
    if hasattr(x, "detach"):  # un tensor de torch
        import torch

        return x + torch.tanh(x @ W.T + b)
    return x + np.tanh(x @ np.asarray(W).T + np.asarray(b))


def identity_learning(
    width: int = 8,
    steps: int = 200,
    lr: float = 0.01,
    n_samples: int = 256,
    seed: int = 0,
) -> dict:
    """Entrena ``tanh(W x + b)`` y ``x + tanh(W x + b)`` para copiar su entrada.

    Capítulo 2. Las dos capas parten de los mismos pesos (la inicialización por
    defecto de ``torch.nn.Linear``) y ven los mismos ``n_samples`` vectores ``x`` de
    ``width`` componentes, con componentes uniformes en [−2, 2]. Objetivo: la
    identidad, con pérdida media de (capa(x) − x)², optimizada con Adam durante
    ``steps`` pasos. Devuelve la pérdida de cada paso para cada capa (``"plain"``,
    ``"residual"``), la final (``"final"``) y los parámetros. Tarda menos de un
    segundo en una CPU.
    """
    import torch
    from torch import nn

    from resnorm.experiments import _isolated

    with _isolated(seed) as gen:
        x = 4 * torch.rand(n_samples, width, generator=gen) - 2  # (N, d)
        start = nn.Linear(width, width)
        losses: dict[str, list[float]] = {}
        for kind in IDENTITY_KINDS:
            layer = nn.Linear(width, width)
            layer.load_state_dict(start.state_dict())
            opt = torch.optim.Adam(layer.parameters(), lr=lr)
            history = []
            for _ in range(steps):
                branch = torch.tanh(layer(x))  # (N, d)
                out = x + branch if kind == "residual" else branch
                loss = torch.mean((out - x) ** 2)
                opt.zero_grad()
                loss.backward()
                opt.step()
                history.append(loss.item())
            losses[kind] = history
    return {
        "params": dict(
            width=width, steps=steps, lr=lr, n_samples=n_samples, seed=seed,
            optimizer="adam", x_range=[-2.0, 2.0],
        ),
        "steps": list(range(1, steps + 1)),
        **losses,
        "final": {kind: losses[kind][-1] for kind in IDENTITY_KINDS},
    }


# --- La figura: datos → plot_identity_learning(ax, data) → texto alternativo ---------

_FORMULA = {"plain": "tanh(W x + b)", "residual": "x + tanh(W x + b)"}


def plot_identity_learning(ax, data: dict):
    """La pérdida de cada paso de las dos capas, en escala logarítmica (Capítulo 2).

    Usa los estilos de serie del curso (``resnorm.plots.SERIES_STYLE``): «Sin
    residual» y «Residual sin LayerNorm», con su fórmula.
    """
    from resnorm.plots import MIN_FONT_PT, series_style

    ax.figure.set_facecolor("white")
    ax.set_facecolor("white")
    every = max(1, len(data["steps"]) // 10)
    for kind in IDENTITY_KINDS:
        style = series_style(kind)
        ax.plot(
            data["steps"], data[kind], color=style["color"], ls=style["ls"],
            marker=style["marker"], markevery=every, linewidth=2,
            label=f"{style['label']}: {_FORMULA[kind]}",
        )
    ax.set_yscale("log")
    ax.set_title("Aprender la identidad: capa plana frente a residual")
    ax.set_xlabel("paso de entrenamiento (Adam)")
    ax.set_ylabel("pérdida, media de (salida − x)²")
    ax.grid(True, which="major", color="#dddddd", linewidth=0.8)
    ax.legend(frameon=True, facecolor="white", fontsize=MIN_FONT_PT)
    return ax


def alt_text_identity_learning(data: dict) -> str:
    """Texto alternativo de ``plot_identity_learning``, con las pérdidas."""
    from resnorm.plots import format_magnitude as fmt

    steps = data["params"]["steps"]
    plain, res = data["plain"], data["residual"]
    return (
        f"Pérdida de dos capas entrenadas {steps} pasos para devolver su entrada, en "
        "escala logarítmica. La capa plana, tanh(W x + b), baja de "
        f"{fmt(plain[0])} a {fmt(plain[-1])}, cada vez más despacio. La residual, "
        f"x + tanh(W x + b), empieza en {fmt(res[0])} y cae sin pararse hasta "
        f"{fmt(res[-1])}."
    )
