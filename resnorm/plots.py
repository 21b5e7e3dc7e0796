"""Figuras de los experimentos: datos → ``plot_xxx(ax, data)`` → texto alternativo.

Tres capas, como en el resto del curso: ``resnorm.experiments`` calcula (datos planos),
las funciones ``plot_xxx(ax, data)`` dibujan en un eje que les das y lo devuelven, y
las funciones ``alt_text_xxx(data)`` escriben, a partir de los mismos datos, el texto
alternativo en español de cada figura (para ``resnorm.book.glue_figure``).

Convenciones: paleta Okabe-Ito (apta para daltónicos, ``PALETTE``), y cada serie se
distingue también por estilo de línea y marcador, no solo por color; etiquetas en
español; escala logarítmica donde los datos abarcan órdenes de magnitud; fondo blanco
explícito en figura y ejes, para que en modo oscuro no quede texto negro sobre fondo
transparente. Este módulo no importa torch.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from resnorm.book import format_number, format_sci

__all__ = [
    "CSS_PX_PER_INCH",
    "FIGURE_WIDTH",
    "GPT_INSIDE_FONT_PT",
    "KIND_STYLE",
    "MIN_FONT_PT",
    "PHONE_FIGURE_WIDTH",
    "PHONE_MEDIA",
    "PALETTE",
    "SERIES_STYLE",
    "alt_text_activation_std",
    "alt_text_first_layer_grad",
    "alt_text_gpt_inside",
    "alt_text_last_layer_grad",
    "alt_text_signal_survival",
    "alt_text_training",
    "alt_text_transformer_grad_norms",
    "alt_text_vectors",
    "format_magnitude",
    "new_figure",
    "plot_activation_std",
    "plot_first_layer_grad",
    "plot_gpt_inside",
    "plot_last_layer_grad",
    "plot_signal_survival",
    "plot_training_curves",
    "plot_transformer_grad_norms",
    "plot_bandwidth",
    "plot_vectors",
    "series_style",
    "svg_series_style",
]

# Okabe & Ito (2008), «Color Universal Design». El amarillo casi no contrasta con el
# blanco: no se usa para líneas. La única copia de la paleta del curso: los widgets la
# reciben por su modelo (``resnorm.widgets``), sin repetirla en el JavaScript.
PALETTE = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}

#: La tabla de estilos de las series: color, estilo de línea, marcador y nombre en
#: español. La usan las figuras de este módulo y el explorador de profundidad
#: (``resnorm.widgets.DepthExplorer``), así que una serie se ve igual en los dos.
SERIES_STYLE = {
    "plain": dict(
        color=PALETTE["vermillion"], ls=":", marker="o", label="Sin residual"
    ),
    "residual": dict(
        color=PALETTE["blue"], ls="--", marker="s", label="Residual sin LayerNorm"
    ),
    "pre_ln": dict(color=PALETTE["bluish_green"], ls="-", marker="^", label="Pre-LN"),
    "post_ln": dict(color=PALETTE["orange"], ls="-.", marker="D", label="Post-LN"),
    "plain_ln": dict(
        color=PALETTE["reddish_purple"],
        ls=(0, (5, 1, 1, 1)),
        marker="v",
        label="Sin residual, con LayerNorm",
    ),
    "plain_gain_0.9": dict(
        color=PALETTE["sky_blue"], ls=":", marker="<",
        label="Sin residual, ganancia 0.9",
    ),
    "plain_gain_1.0": dict(
        color=PALETTE["black"], ls=":", marker="x",
        label="Sin residual, ganancia 1.0",
    ),
    "plain_gain_1.1": dict(
        color=PALETTE["vermillion"], ls=":", marker=">",
        label="Sin residual, ganancia 1.1",
    ),
}

#: Nombre histórico de ``SERIES_STYLE`` (los capítulos lo importan).
KIND_STYLE = SERIES_STYLE

# Estilos para series que no están en la tabla, por orden de aparición.
_EXTRA_STYLES = [
    dict(color=PALETTE[c], ls=ls, marker=m)
    for c, ls, m in [
        ("vermillion", "-", "o"), ("blue", "--", "s"), ("bluish_green", ":", "^"),
        ("orange", "-.", "D"), ("reddish_purple", "-", "v"), ("sky_blue", "--", "<"),
        ("black", ":", ">"), ("blue", "-.", "x"),
    ]
]

# Trazo de matplotlib → ``stroke-dasharray`` de SVG, en unidades de grosor de línea
# (las mismas proporciones que matplotlib para una línea de 1.5 px).
_DASHES = {"-": None, "--": "5.5 2.4", ":": "1.5 2.5", "-.": "9.6 2.4 1.5 2.4"}
_MARKERS = {
    "o": "circle", "s": "square", "^": "triangle", "D": "diamond", "v": "triangle-down",
    "<": "triangle-left", ">": "triangle-right", "x": "cross",
}


def series_style(key: str, index: int = 0) -> dict:
    """Estilo de una serie para matplotlib (``color``, ``ls``, ``marker``, ``label``).

    Las series de ``SERIES_STYLE`` tienen su estilo fijo; otra cualquiera toma el
    estilo ``index`` de una lista de respaldo y su clave como nombre.
    """
    if key in SERIES_STYLE:
        return dict(SERIES_STYLE[key])
    return dict(_EXTRA_STYLES[index % len(_EXTRA_STYLES)], label=key)


def svg_series_style(key: str, index: int = 0) -> dict:
    """El mismo estilo traducido a SVG para los widgets: color, trazo, marcador, nombre.

    El negro se vuelve ``currentColor`` (el color del texto), para que la serie se
    siga viendo en modo oscuro.
    """
    style = series_style(key, index)
    ls = style["ls"]
    if isinstance(ls, tuple):
        dash = " ".join(f"{v:g}" for v in ls[1])
    else:
        dash = _DASHES[ls]
    color = style["color"]
    return {
        "color": "currentColor" if color == PALETTE["black"] else color,
        "dash": dash,
        "marker": _MARKERS[style["marker"]],
        "label": style["label"],
    }


_OPTIMIZER_NAME = {"adam": "Adam", "sgd": "SGD"}


def format_magnitude(value: float | None) -> str:
    """Un número legible en el texto alternativo: ``0.803``, ``11.8``, ``2.2 × 10⁻⁸``.

    Tres cifras significativas entre 0.01 y 1000; fuera de ese rango, la notación
    para lectores de ``resnorm.book.format_sci`` (mantisa con dos cifras); signo
    menos tipográfico (``−``); ``"ninguno"`` para ``None``. Usa los formateadores de
    ``resnorm.book``: la prosa, las figuras y los widgets escriben igual los números.
    """
    if value is None:
        return "ninguno"
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return format_number(value, 0)
    if 0.01 <= abs(value) < 1000:
        decimals = max(0, 2 - math.floor(math.log10(abs(value))))
        return format_number(value, decimals)
    return format_sci(value, 2)


# --- Tamaño de las figuras en la página ----------------------------------------------

#: Ancho de una figura del curso, en pulgadas de matplotlib. ``figure_html`` la
#: muestra a ``CSS_PX_PER_INCH`` px CSS por pulgada: 600 px, menos que la columna de
#: texto de un portátil (757 px), así que no se reduce allí. En un teléfono (unos
#: 358 px de columna) se reduciría a 0.6 y su texto quedaría en unos 8 px: por eso
#: ``figure_html`` la dibuja otra vez, más estrecha (``PHONE_FIGURE_WIDTH``).
FIGURE_WIDTH = 6.0
#: Ancho de la versión para teléfono de cada figura, en pulgadas: 400 px CSS, que en
#: la columna de 358 px se reducen a 0.9; el texto de 10 pt mide allí 12.4 px.
PHONE_FIGURE_WIDTH = 4.0
#: Hasta qué ancho de ventana se sirve la versión para teléfono (``<picture>``).
#: Solo en pantalla: al imprimir (A4, unos 680 px) también se cumpliría el ancho y el
#: navegador cambiaría de imagen en mitad de la impresión; el papel lleva la completa.
PHONE_MEDIA = "screen and (max-width: 767.98px)"
#: px CSS por pulgada de figura con que ``resnorm.book.figure_html`` muestra la imagen.
CSS_PX_PER_INCH = 100
#: El texto más pequeño de una figura, en puntos: 10 pt = 13.9 px CSS a 100 px/pulgada.
MIN_FONT_PT = 10.0
#: La altura máxima de un panel al apilar los paneles de una figura, en pulgadas.
PANEL_HEIGHT = 4.2


def new_figure(nrows: int = 1, ncols: int = 1, figsize=(6.4, 4.0)):
    """``plt.subplots`` con fondo blanco, al ancho de la columna: ``(fig, ax)``.

    La figura nunca es más ancha que ``FIGURE_WIDTH``: una fila de paneles más ancha
    (p. ej. ``new_figure(1, 2, figsize=(11, 4))``) se apila en una columna, un panel
    debajo de otro, para que su texto se lea en un portátil y en un teléfono. ``ax``
    sigue siendo un array de ``ncols`` ejes (``axes[0]``, ``axes[1]``).
    """
    import matplotlib.pyplot as plt

    width, height = (float(v) for v in figsize)
    if nrows == 1 and ncols > 1 and width > FIGURE_WIDTH:
        panel_w, panel_h = width / ncols, height
        panel_h = min(PANEL_HEIGHT, panel_h * FIGURE_WIDTH / panel_w)
        nrows, ncols = ncols, 1
        width, height = FIGURE_WIDTH, panel_h * nrows
    elif width > FIGURE_WIDTH:
        width, height = FIGURE_WIDTH, height * FIGURE_WIDTH / width
    fig, ax = plt.subplots(
        nrows,
        ncols,
        figsize=(width, height),
        facecolor="white",
        layout="constrained",
        squeeze=True,
    )
    return fig, ax


def _prepare(ax, title: str, xlabel: str, ylabel: str) -> None:
    ax.figure.set_facecolor("white")
    ax.set_facecolor("white")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", color="#dddddd", linewidth=0.8)


def _style(key: str, **overrides) -> dict:
    style = series_style(key)
    style.update(overrides)
    return style


def _label(key: str) -> str:
    return series_style(key)["label"]


# --- a. Gradiente de la primera capa (Capítulo 1) ---------------------------------


def plot_first_layer_grad(ax, data: Mapping):
    """Norma del gradiente en la primera capa frente a la profundidad (log-log).

    ``data``: salida de ``experiments.first_layer_grad_vs_depth``. Capítulos 1 y 9.
    """
    _prepare(
        ax,
        "Gradiente que llega a la primera capa",
        "Número de capas L",
        "Norma del gradiente en la capa 1 (escala log)",
    )
    depths = data["depths"]
    for kind in data["kinds"]:
        ax.plot(depths, data["grad_norm"][kind], **_style(kind))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(depths, [str(d) for d in depths])
    ax.legend(frameon=True, facecolor="white")
    return ax


def alt_text_first_layer_grad(data: Mapping) -> str:
    """Texto alternativo de ``plot_first_layer_grad``, con los números de ``data``."""
    depths = data["depths"]
    g = data["grad_norm"]
    parts = [
        "Gráfico log-log de la norma del gradiente que llega a la primera capa frente "
        f"al número de capas, de {depths[0]} a {depths[-1]}."
    ]
    for kind in data["kinds"]:
        values = g[kind]
        if kind == "pre_ln":
            parts.append(
                f"{_label(kind)}: se mantiene entre {format_magnitude(min(values))} y "
                f"{format_magnitude(max(values))}."
            )
        else:
            parts.append(
                f"{_label(kind)}: pasa de {format_magnitude(values[0])} con "
                f"{depths[0]} capa{'s' if depths[0] != 1 else ''} a "
                f"{format_magnitude(values[-1])} con {depths[-1]} capas."
            )
    if "plain" in g and "residual" in g and 32 in depths:
        i = depths.index(32)
        ratio = g["residual"][i] / g["plain"][i]
        parts.append(
            f"Con 32 capas, el gradiente de la pila plana es {format_magnitude(ratio)} "
            "veces más pequeño que el de la residual."
        )
    return " ".join(parts)


# --- b. Supervivencia de la señal (Capítulo 1) ------------------------------------

_SURVIVAL_YLABEL = {
    "cosine": "Similitud coseno entre entrada y salida",
    "pairwise_abs_cosine": "|cos| medio entre salidas de entradas distintas",
}


def plot_signal_survival(ax, data: Mapping, metric: str = "cosine"):
    """«Teléfono escacharrado»: cuánto de la entrada queda tras L capas aleatorias.

    ``data``: salida de ``experiments.signal_survival``; ``metric`` es ``"cosine"``
    (entrada frente a salida) o ``"pairwise_abs_cosine"`` (salidas entre sí).
    Capítulo 1.
    """
    if metric not in _SURVIVAL_YLABEL:
        options = tuple(_SURVIVAL_YLABEL)
        raise ValueError(f"metric debe ser uno de {options}, no {metric!r}")
    title = (
        "¿Cuánto de la entrada sobrevive?"
        if metric == "cosine"
        else "¿Se siguen distinguiendo entradas distintas?"
    )
    _prepare(ax, title, "Número de capas L", _SURVIVAL_YLABEL[metric])
    depths = data["depths"]
    for kind in data["kinds"]:
        ax.plot(depths, data[metric][kind], **_style(kind))
    ax.axhline(0.0, color=PALETTE["black"], linewidth=0.8)
    ax.set_ylim(-0.1, 1.05)
    ax.set_xticks(depths, [str(d) for d in depths])
    ax.legend(frameon=True, facecolor="white")
    return ax


def alt_text_signal_survival(data: Mapping, metric: str = "cosine") -> str:
    """Texto alternativo de ``plot_signal_survival``, con los números de ``data``."""
    depths = ", ".join(str(d) for d in data["depths"])
    what = (
        "Similitud coseno entre la entrada y la salida"
        if metric == "cosine"
        else "Media de |cos| entre las salidas de entradas distintas"
    )
    parts = [f"{what} tras {depths} capas aleatorias."]
    for kind in data["kinds"]:
        values = ", ".join(format_magnitude(v) for v in data[metric][kind])
        parts.append(f"{_label(kind)}: {values}.")
    return " ".join(parts)


# --- c. Desviación estándar capa a capa (Capítulo 9) --------------------------------


def plot_activation_std(ax, data: Mapping, curves: Sequence[str] | None = None):
    """Desviación estándar de las activaciones capa a capa (eje y logarítmico).

    ``data``: salida de ``experiments.activation_std_per_layer``; ``curves`` elige
    qué curvas dibujar (por defecto, todas). Si está ``"pre_ln"``, añade la
    referencia ``√(1 + l)`` en gris. Capítulo 9.
    """
    _prepare(
        ax,
        "Escala de las activaciones capa a capa",
        "Número de capa l",
        "Desviación estándar (escala log)",
    )
    layers = np.asarray(data["layers"])
    names = list(data["curves"]) if curves is None else list(curves)
    every = max(1, len(layers) // 8)
    for i, name in enumerate(names):
        # Marcadores desfasados: las curvas que coinciden (std 1) siguen viéndose.
        marks = ((i * every) // len(names), every)
        ax.plot(layers, data["curves"][name], markevery=marks, **_style(name))
    if "pre_ln" in names:
        ax.plot(
            layers,
            np.sqrt(1 + layers),
            color="#777777",
            ls="-",
            linewidth=4,
            alpha=0.35,
            label="√(1 + l)",
        )
    ax.set_yscale("log")
    ax.legend(frameon=True, facecolor="white")
    return ax


def alt_text_activation_std(data: Mapping, curves: Sequence[str] | None = None) -> str:
    """Texto alternativo de ``plot_activation_std``, con los números de ``data``."""
    last = data["layers"][-1]
    names = list(data["curves"]) if curves is None else list(curves)
    parts = [
        "Gráfico con eje vertical logarítmico de la desviación estándar de las "
        f"activaciones en cada capa, de la entrada (std "
        f"{format_magnitude(data['curves'][names[0]][0])}) a la capa {last}. "
        f"Valor tras {last} capas:"
    ]
    values = [
        f"{_label(name)}, {format_magnitude(data['curves'][name][-1])}"
        for name in names
    ]
    parts.append("; ".join(values) + ".")
    if "pre_ln" in names:
        parts.append(
            f"La curva Pre-LN sigue la referencia √(1 + l), que en la capa {last} vale "
            f"{format_magnitude(math.sqrt(1 + last))}."
        )
    return " ".join(parts)


# --- d. Gradientes por capa en pilas Transformer (Capítulos 7 y 9) ----------------


def plot_transformer_grad_norms(ax, data: Mapping, n_layers: int | None = None):
    """Perfil por capa de ``‖∂ℓ/∂W₂‖`` en una pila Transformer de ``n_layers`` capas.

    ``data``: salida de ``experiments.transformer_grad_norms``; ``n_layers`` elige
    la profundidad (por defecto, la mayor). Capítulos 7 y 9.
    """
    depth = max(data["n_layers"]) if n_layers is None else int(n_layers)
    _prepare(
        ax,
        f"Gradiente por capa al inicializar ({depth} capas)",
        "Número de capa l",
        "Norma del gradiente de W₂ de la FFN",
    )
    layers = np.arange(1, depth + 1)
    every = max(1, depth // 8)
    for kind in data["kinds"]:
        norms = data["grad_norms"][kind][str(depth)]
        ax.plot(layers, norms, markevery=every, **_style(kind))
    ax.set_ylim(bottom=0)
    ax.legend(frameon=True, facecolor="white")
    return ax


def alt_text_transformer_grad_norms(data: Mapping, n_layers: int | None = None) -> str:
    """Texto alternativo de ``plot_transformer_grad_norms``."""
    depth = max(data["n_layers"]) if n_layers is None else int(n_layers)
    parts = [
        "Norma del gradiente de la segunda matriz de la FFN en cada capa de una pila "
        f"Transformer de {depth} capas, en la inicialización."
    ]
    for kind in data["kinds"]:
        norms = data["grad_norms"][kind][str(depth)]
        parts.append(
            f"{_label(kind)}: {format_magnitude(norms[0])} en la capa 1 y "
            f"{format_magnitude(norms[-1])} en la capa {depth}."
        )
    return " ".join(parts)


def plot_last_layer_grad(ax, data: Mapping):
    """Gradiente de la última capa frente a la profundidad, con la guía ``∝ 1/√L``.

    Es la comparación del Teorema 1 de Xiong et al. 2020: en Pre-LN decrece como
    ``1/√L``; en Post-LN no decrece. ``data``: salida de
    ``experiments.transformer_grad_norms``. Capítulos 7 y 9.
    """
    _prepare(
        ax,
        "Gradiente de la última capa según la profundidad",
        "Número de capas L",
        "Norma del gradiente de W₂, última capa",
    )
    depths = np.asarray(data["n_layers"], dtype=float)
    for kind in data["kinds"]:
        ax.plot(depths, data["last_layer"][kind], **_style(kind))
    if "pre_ln" in data["kinds"]:
        start = data["last_layer"]["pre_ln"][0]
        ax.plot(
            depths,
            start * np.sqrt(depths[0] / depths),
            color="#777777",
            ls="-",
            linewidth=4,
            alpha=0.35,
            label="∝ 1/√L",
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(depths, [str(int(d)) for d in depths])
    ax.legend(frameon=True, facecolor="white")
    return ax


def _trend(values: Sequence[float]) -> str:
    ratio = values[-1] / values[0]
    if ratio < 0.8:
        return "disminuye"
    if ratio > 1.25:
        return "crece"
    return "se mantiene"


def alt_text_last_layer_grad(data: Mapping) -> str:
    """Texto alternativo de ``plot_last_layer_grad``."""
    depths = ", ".join(str(d) for d in data["n_layers"])
    parts = [f"Norma del gradiente de la última capa en pilas de {depths} capas."]
    for kind in data["kinds"]:
        values = data["last_layer"][kind]
        listed = ", ".join(format_magnitude(v) for v in values)
        parts.append(f"{_label(kind)}: {listed}; {_trend(values)} con la profundidad.")
    return " ".join(parts)


# --- e. Entrenamiento diminuto (Capítulo 9) ---------------------------------------


def plot_training_curves(ax, data: Mapping):
    """Curvas de pérdida por paso (eje y logarítmico); una × marca la divergencia.

    ``data``: salida de ``experiments.tiny_training``. Capítulo 9.
    """
    name = _OPTIMIZER_NAME.get(data["optimizer"], data["optimizer"])
    _prepare(
        ax,
        f"Entrenamiento con {name} (lr = {data['lr']:g})",
        "Paso de entrenamiento",
        "Pérdida (error cuadrático medio, escala log)",
    )
    # Una curva que diverge subiría a 1e14 y aplastaría las demás: el eje se corta
    # a 10 veces la mayor pérdida inicial y la × marca dónde se salió.
    top = 10 * max((c[0] for c in data["losses"].values() if c), default=1.0)
    for kind in data["kinds"]:
        curve = data["losses"][kind]
        style = _style(kind, marker=None)
        step = data["diverged_at_step"][kind]
        if step is not None:
            style["label"] += f" (diverge en el paso {step})"
        ax.plot(np.arange(len(curve)), curve, **style)
        if step is not None and curve:
            y = min(curve[-1], top / 1.5)
            ax.plot(len(curve) - 1, y, marker="X", markersize=11, color=style["color"])
    ax.axhline(1.0, color="#777777", linewidth=1, ls="--")
    ax.set_yscale("log")
    ax.set_ylim(top=top)
    ax.legend(frameon=True, facecolor="white")
    return ax


def alt_text_training(data: Mapping) -> str:
    """Texto alternativo de ``plot_training_curves``, con los números de ``data``."""
    name = _OPTIMIZER_NAME.get(data["optimizer"], data["optimizer"])
    steps = data["params"]["steps"]
    parts = [
        f"Pérdida durante {steps} pasos de entrenamiento con {name} "
        f"(lr = {data['lr']:g}); predecir siempre la media da una pérdida de 1."
    ]
    for kind in data["kinds"]:
        curve = data["losses"][kind]
        step = data["diverged_at_step"][kind]
        if step is not None:
            start = format_magnitude(curve[0]) if curve else "un valor no finito"
            parts.append(
                f"{_label(kind)}: empieza en {start} y diverge en el paso {step}."
            )
        else:
            parts.append(
                f"{_label(kind)}: de {format_magnitude(curve[0])} a "
                f"{format_magnitude(data['final_loss'][kind])}."
            )
    return " ".join(parts)


# --- f. Dentro del GPT entrenado (Capítulo 10) ----------------------------------------

# La versión «LayerNorm sin atajo» del capítulo 10 es la serie «plain_ln» de los demás
# (la misma correspondencia que ``resnorm.gpt``, que este módulo no importa: usa torch).
_GPT_SERIES = {"ln_only": "plain_ln"}

#: El texto de los cuatro paneles de ``plot_gpt_inside``, en puntos. Apilados miden
#: unas 12 pulgadas de alto (con sus leyendas debajo): en una hoja A4 (impresion.css le
#: da 222 mm, con su pie en la misma hoja) la figura se imprime a 0.71 de su tamaño, y
#: con ``MIN_FONT_PT`` su texto quedaba por debajo de 8 pt; con este, en 8.2 pt
#: (tests/test_pdf.py lo mide en el PDF del curso). Más grande ya no cabe en las 3.9
#: pulgadas de ancho de cada panel: la leyenda tapa las curvas.
GPT_INSIDE_FONT_PT = 11.5

_GPT_PANELS = {
    "stream": ("a) Norma del flujo residual", "Salida del bloque (0: la entrada)",
               "‖h‖ medio por posición (log)"),
    "gamma": ("b) γ de cada LayerNorm, tras entrenar",
              "LayerNorm n.º (de la entrada a la salida)", "media de |γ − 1|"),
    "beta": ("c) β de cada LayerNorm, tras entrenar",
             "LayerNorm n.º (de la entrada a la salida)", "media de |β|"),
    "grad": ("d) Gradiente del primer paso", "Bloque", "‖∂ℓ/∂W₂‖ de la FFN"),
}


def plot_gpt_inside(ax, data: Mapping, quantity: str):
    """Un panel de lo que hay dentro de los GPT entrenados del capítulo 10.

    ``data``: ``{"stream": {config: gpt.stream_norms(...)}, "norm_params": {config:
    gpt.norm_params(...)}, "first_grad": {config: [‖∂ℓ/∂W₂‖ por bloque]}}``, con las
    configuraciones de ``resnorm.gpt``. ``quantity`` elige el panel:

    - ``"stream"``: la norma del flujo residual tras cada bloque (eje y logarítmico);
      las versiones con ``ln_f`` añaden un punto más, lo que ve ``lm_head``;
    - ``"gamma"`` y ``"beta"``: media de |γ − 1| y de |β| de cada LayerNorm;
    - ``"grad"``: la norma del gradiente de W₂ de cada bloque en el primer paso.

    Cada versión con el color, el trazo y el nombre que tiene en todo el curso.
    """
    if quantity not in _GPT_PANELS:
        raise ValueError(f"quantity debe ser una de {tuple(_GPT_PANELS)}, no "
                         f"{quantity!r}")
    _prepare(ax, *_GPT_PANELS[quantity])
    if quantity == "stream":
        n_blocks = 0
        for config, norms in data["stream"].items():
            blocks = norms["blocks"]
            n_blocks = len(blocks) - 1
            x = list(range(len(blocks)))
            y = list(blocks)
            if norms["has_ln_f"]:
                x.append(len(blocks))
                y.append(norms["ln_f"])
            ax.plot(x, y, **_style(_GPT_SERIES.get(config, config)))
        ticks = list(range(n_blocks + 2))
        ax.set_xticks(ticks, [str(t) for t in ticks[:-1]] + ["ln_f"])
        ax.set_yscale("log")
    elif quantity in ("gamma", "beta"):
        key = f"{quantity}_dev"
        for config, params in data["norm_params"].items():
            values = [p[key] for p in params]
            ax.plot(range(1, len(values) + 1), values,
                    **_style(_GPT_SERIES.get(config, config)))
        ax.set_ylim(bottom=0)
    else:
        for config, norms in data["first_grad"].items():
            ax.plot(range(1, len(norms) + 1), norms,
                    **_style(_GPT_SERIES.get(config, config)))
        ax.set_ylim(bottom=0)
    if quantity != "stream":
        # Se cuentan LayerNorms o bloques: marcas enteras (sin ellas, 2.5, 5.0, 7.5…).
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(frameon=True, facecolor="white", fontsize=GPT_INSIDE_FONT_PT)
    for text in (ax.title, ax.xaxis.label, ax.yaxis.label):
        text.set_fontsize(GPT_INSIDE_FONT_PT)
    ax.tick_params(labelsize=GPT_INSIDE_FONT_PT)
    return ax


def alt_text_gpt_inside(data: Mapping) -> str:
    """Texto alternativo de los cuatro paneles de ``plot_gpt_inside``."""
    parts = ["Cuatro paneles sobre los GPT entrenados del capítulo 10."]
    stream = []
    for config, norms in data["stream"].items():
        label = _label(_GPT_SERIES.get(config, config))
        text = (f"{label}, de {format_magnitude(norms['blocks'][0])} a "
                f"{format_magnitude(norms['blocks'][-1])}")
        if norms["has_ln_f"]:
            text += f" y {format_magnitude(norms['ln_f'])} tras ln_f"
        stream.append(text)
    parts.append("Norma media del flujo residual, de la entrada al último bloque: "
                 + "; ".join(stream) + ".")
    for quantity, name in (("gamma", "|γ − 1|"), ("beta", "|β|")):
        rows = []
        for config, params in data["norm_params"].items():
            values = [p[f"{quantity}_dev"] for p in params]
            text = (f"{_label(_GPT_SERIES.get(config, config))}, entre "
                    f"{format_magnitude(min(values))} y "
                    f"{format_magnitude(max(values))}")
            if values.index(max(values)) == len(values) - 1:
                text += ", la mayor en la última"
            rows.append(text)
        parts.append(f"Media de {name} en cada LayerNorm: " + "; ".join(rows) + ".")
    rows = []
    for config, norms in data["first_grad"].items():
        rows.append(f"{_label(_GPT_SERIES.get(config, config))}, "
                    f"{format_magnitude(norms[0])} en el bloque 1 y "
                    f"{format_magnitude(norms[-1])} en el bloque {len(norms)}")
    parts.append("Norma del gradiente de W₂ de la FFN en el primer paso: "
                 + "; ".join(rows) + ".")
    return " ".join(parts)


# --- Barras para comparar vectores (capítulos de LayerNorm) -----------------------

_VECTOR_COLORS = (
    "blue",
    "orange",
    "bluish_green",
    "reddish_purple",
    "sky_blue",
    "vermillion",
    "black",
)
_VECTOR_HATCHES = ("", "//", "..", "xx", "\\\\", "--", "++")


def plot_vectors(
    ax,
    vectors: Mapping[str, Sequence[float]],
    title: str | None = None,
    annotate: bool | None = None,
):
    """Barras agrupadas para comparar vectores componente a componente.

    ``vectors``: nombre → vector de longitud ``d`` (todos la misma). Cada vector
    tiene su color y su trama. ``annotate`` escribe el valor sobre cada barra (por
    defecto, si hay a lo sumo 3 vectores de a lo sumo 8 componentes). Capítulos de
    LayerNorm (3 a 6).
    """
    arrays = {name: np.asarray(v, dtype=float).ravel() for name, v in vectors.items()}
    if not arrays:
        raise ValueError("plot_vectors necesita al menos un vector")
    sizes = {a.size for a in arrays.values()}
    if len(sizes) != 1:
        raise ValueError(
            f"todos los vectores deben tener la misma longitud; hay {sorted(sizes)}"
        )
    if len(arrays) > len(_VECTOR_COLORS):
        raise ValueError(f"a lo sumo {len(_VECTOR_COLORS)} vectores por figura")
    d = sizes.pop()
    _prepare(ax, title or "Comparación de vectores", "Componente", "Valor")
    if annotate is None:
        annotate = len(arrays) <= 3 and d <= 8
    width = 0.8 / len(arrays)
    x = np.arange(d)
    for i, (name, values) in enumerate(arrays.items()):
        offset = (i - (len(arrays) - 1) / 2) * width
        bars = ax.bar(
            x + offset,
            values,
            width,
            label=name,
            color=PALETTE[_VECTOR_COLORS[i]],
            hatch=_VECTOR_HATCHES[i],
            edgecolor="white" if i == 0 else PALETTE["black"],
            linewidth=0.6,
        )
        if annotate:
            labels = [format_number(v, 2) for v in values]
            ax.bar_label(bars, labels=labels, padding=2, fontsize=MIN_FONT_PT)
    ax.axhline(0.0, color=PALETTE["black"], linewidth=0.8)
    names = [f"x{chr(0x2080 + k)}" if k < 10 else f"x{k}" for k in range(1, d + 1)]
    ax.set_xticks(x, names)
    ax.margins(y=0.15)
    ax.legend(frameon=True, facecolor="white")
    return ax


def alt_text_vectors(
    vectors: Mapping[str, Sequence[float]], title: str | None = None
) -> str:
    """Texto alternativo de ``plot_vectors``: cada vector con sus componentes."""
    arrays = {name: np.asarray(v, dtype=float).ravel() for name, v in vectors.items()}
    d = next(iter(arrays.values())).size
    head = f"{title}. " if title else ""
    parts = [f"{head}Barras de {len(arrays)} vectores de {d} componentes."]
    for name, values in arrays.items():
        listed = ", ".join(format_magnitude(v) for v in values)
        parts.append(f"{name}: [{listed}].")
    return " ".join(parts)


# --- Ancho de banda de la memoria (Apéndice) ------------------------------------------


def plot_bandwidth(ax, rows: list[dict]):
    """Barras de GB/s efectivos por método, con la copia más rápida como límite.

    Apéndice: ¿Cuánto cuesta normalizar? ``rows``: salida de
    ``resnorm.cost.measure_norms``. Dibuja en ``ax`` (matplotlib) y lo devuelve.
    Verde: copias; azul: LayerNorm; naranja: RMSNorm (paleta Okabe-Ito).
    """
    from resnorm.cost import copy_limit

    def colour(key):
        if key.startswith("copy"):
            return PALETTE["bluish_green"]
        return PALETTE["orange"] if "rms" in key else PALETTE["blue"]

    ordered = sorted(rows, key=lambda r: r["gbps"])
    labels = [f"{r['label']} ({r['library']})" for r in ordered]
    values = [r["gbps"] for r in ordered]
    ax.barh(labels, values, color=[colour(r["method"]) for r in ordered])
    limit = copy_limit(rows)
    ax.axvline(limit, color="#333333", linestyle="--", linewidth=1)
    ax.text(limit, 0, " límite: la copia", va="center", fontsize=MIN_FONT_PT)
    shape = " × ".join(str(n) for n in rows[0]["shape"])
    ax.set_xlabel("GB/s efectivos\n(leer x + escribir y, entre el tiempo de CPU)")
    ax.set_title(f"Memoria aprovechada (float32, {shape})")
    ax.set_xlim(0, max(values + [limit]) * 1.3)
    return ax
