"""Utilidades para los capítulos: pegar números en la prosa y mostrar figuras con alt.

Cada número que la prosa cita se calcula en el notebook y se «pega» (myst-nb ``glue``)
con estas funciones; ``tests/test_numbers.py`` compara cada valor pegado con
``tests/expected_values.toml``.

- ``glue_number("media", 1.0025)`` → en la prosa: ``{glue:text}`media:.4f```.
- ``glue_vector("normalizado", v, decimals=3)`` → en la prosa: ``{glue:text}`normalizado```
  muestra ``[−1.024, −0.266, −0.367, 1.657]``.
"""

from __future__ import annotations

import numbers
import re

import numpy as np

MINUS = "\u2212"  # signo menos tipográfico, el que se lee en la prosa

_NUMBER_RE = re.compile(r"[-\u2212]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _glue(name: str, value, display: bool = False) -> None:
    try:  # importado aquí: resnorm no depende de myst-nb al importarse
        from myst_nb import glue
    except ImportError:  # Colab, un JupyterHub...: pegar solo sirve al construir el libro
        return
    glue(name, value, display=display)


def format_number(value: float, decimals: int = 4) -> str:
    """Formatea un número con ``decimals`` decimales y el signo menos tipográfico."""
    text = f"{float(value):.{decimals}f}"
    if float(text) == 0.0:
        text = text.lstrip("-")
    return text.replace("-", MINUS)


def format_vector(values, decimals: int = 3) -> str:
    """Formatea un vector como ``[a, b, c]`` con ``decimals`` decimales."""
    flat = np.asarray(values, dtype=float).ravel()
    return "[" + ", ".join(format_number(v, decimals) for v in flat) + "]"


def parse_numbers(text: str) -> list[float]:
    """Extrae los números de un texto pegado (acepta el signo menos tipográfico)."""
    return [float(m.replace(MINUS, "-")) for m in _NUMBER_RE.findall(text)]


def glue_number(name: str, value) -> None:
    """Pega un número (como ``float`` de Python, para que ``{glue:text}`` lo formatee).

    No devuelve nada, para que una celda que termina en ``glue_number`` no muestre nada.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        value = np.asarray(value)
        if value.size != 1:
            raise TypeError(f"glue_number espera un solo número; recibió forma {value.shape}")
    _glue(name, float(value))


def glue_vector(name: str, values, decimals: int = 3) -> None:
    """Pega un vector ya formateado como texto, con ``decimals`` decimales."""
    _glue(name, format_vector(values, decimals))


def glue_text(name: str, text: str) -> None:
    """Pega un texto (p. ej. una tabla corta o una palabra calculada)."""
    _glue(name, str(text))


def _quantize_png(png: bytes, colors: int = 128) -> bytes:
    """Reduce la paleta del PNG: las figuras de líneas pesan unas 3 veces menos.

    Las páginas se leen en conexiones lentas; 128 colores bastan para líneas, texto y
    el suavizado de bordes de matplotlib.
    """
    from io import BytesIO

    from PIL import Image

    with Image.open(BytesIO(png)) as img:
        small = img.convert("RGB").quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
        out = BytesIO()
        small.save(out, format="PNG", optimize=True)
    return out.getvalue() if out.tell() < len(png) else png


def figure_html(fig, alt: str, dpi: int = 110) -> str:
    """Devuelve la figura como ``<img>`` PNG en línea con su texto alternativo.

    myst-nb solo toma el ``alt`` de los metadatos de la celda, que son fijos; aquí el
    texto alternativo se genera con los datos de la figura, así que va en el HTML.
    """
    import base64
    import html
    from io import BytesIO

    import matplotlib.pyplot as plt

    if not isinstance(alt, str) or not alt.strip():
        raise ValueError("Cada figura necesita un texto alternativo en español")
    buf = BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", facecolor="white")
    plt.close(fig)
    data = base64.b64encode(_quantize_png(buf.getvalue())).decode("ascii")
    return (
        f'<img class="curso-figura" src="data:image/png;base64,{data}" '
        f'alt="{html.escape(alt.strip(), quote=True)}">'
    )


def show_figure(fig, alt: str) -> None:
    """Muestra una figura de matplotlib con texto alternativo en español."""
    from IPython.display import display

    bundle = {"text/html": figure_html(fig, alt), "text/plain": alt}
    display(bundle, raw=True)
