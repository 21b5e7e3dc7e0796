"""Utilidades para los capítulos: pegar números y figuras (con su alt) en la prosa.

Cada número que la prosa cita lo calcula e imprime una celda visible, como lo escribiría
cualquiera (``sigma = x.std()`` y ``print(f"σ = {sigma:.4f}")``). Justo después, una
celda oculta (etiqueta ``remove-cell``) lo «pega» (myst-nb ``glue``) con estas
funciones, desde esa misma variable y sin volver a calcularlo;
``tests/test_numbers.py`` compara cada valor pegado con ``tests/expected_values.toml``.

- ``glue_number("media", mu)`` → en la prosa: ``{glue:text}`media:.4f```.
- ``glue_vector("normalizado", v, decimals=3)`` → en la prosa:
  ``{glue:text}`normalizado```
  muestra ``[−1.024, −0.266, −0.367, 1.657]``.
- ``glue_sci("grad", g, 2)`` → en la prosa se lee ``2.7 × 10⁻¹⁶``.
- ``glue_integer("n_chars", n)`` → en la prosa: ``{glue:text}`n_chars``` muestra
  ``45 711`` (grupos de tres cifras, como la RAE).
- ``glue_figure("fig-09-escala", fig, alt=...)`` → la figura numerada de un
  ``{glue:figure}``; la celda visible solo la dibuja.

El código que lee el alumno no llama a estas funciones ni importa este módulo
(``tests/test_notebooks.py::test_visible_code_has_no_plumbing``).
"""

from __future__ import annotations

import numbers
import re

import numpy as np

MINUS = "\u2212"  # signo menos tipográfico, el que se lee en la prosa

#: El separador de miles de la prosa: espacio fino que no parte la línea (U+202F).
GROUP_SEPARATOR = "\u202f"
# Separadores que se aceptan al leer: espacio, espacio duro, fino y fino duro.
_GROUP_CHARS = " \u00a0\u2009\u202f"
# Un entero en grupos de tres, como los escribe la RAE: solo los de 5 cifras o más
# llevan grupos («45 711», «1 000 000»); «1 234» son dos números (1 y 234), como «1 2».
_GROUPED = (
    rf"(?:\d{{2,3}}(?:[{_GROUP_CHARS}]\d{{3}})+|\d(?:[{_GROUP_CHARS}]\d{{3}}){{2,}})"
    r"(?![\d])"
)
_NO_GROUPS = str.maketrans("", "", _GROUP_CHARS)
_NUMBER_RE = re.compile(
    rf"[-\u2212]?(?:{_GROUPED}(?:\.\d+)?|\d+\.?\d*|\.\d+)"
    r"(?:[eE][-+]?\d+|\s?\u00d7\s?10[\u207b\u207a]?[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)?"
)
_SUPERSCRIPT_DIGITS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
_SUPERSCRIPTS = str.maketrans(_SUPERSCRIPT_DIGITS + "\u207b\u207a", "0123456789-+")
_TO_SUPERSCRIPT = dict(zip("0123456789-", _SUPERSCRIPT_DIGITS + "\u207b"))


def _glue(name: str, value, display: bool = False) -> None:
    try:  # importado aquí: resnorm no depende de myst-nb al importarse
        from myst_nb import glue
    except ImportError:  # Colab, un JupyterHub...: pegar solo sirve al construir
        return
    glue(name, value, display=display)


def format_number(value: float, decimals: int = 4) -> str:
    """Formatea un número con ``decimals`` decimales y el signo menos tipográfico."""
    text = f"{float(value):.{decimals}f}"
    if float(text) == 0.0:
        text = text.lstrip("-")
    return text.replace("-", MINUS)


def format_integer(value) -> str:
    """Un entero como lo escribe la RAE: con 5 cifras o más, en grupos de tres
    separados por un espacio fino (``45 711``, ``16 777 216``); con 4 o menos, sin
    separador (``4096``). Signo menos tipográfico."""
    whole = int(value)
    if whole != value:
        raise ValueError(f"format_integer espera un entero; recibió {value!r}")
    digits = str(abs(whole))
    if len(digits) > 4:
        digits = f"{abs(whole):,}".replace(",", GROUP_SEPARATOR)
    return (MINUS if whole < 0 else "") + digits


def format_sci(value: float, digits: int = 2) -> str:
    """Formatea para lectores: ``2.7 × 10⁻¹⁶`` (``digits`` cifras significativas).

    La prosa no usa la notación de programador (``2.7e-16``); el código sí puede.
    """
    value = float(value)
    if value == 0.0 or not np.isfinite(value):
        return format_number(value, digits - 1)
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    power = "".join(_TO_SUPERSCRIPT[c] for c in str(int(exponent)))
    return f"{mantissa.replace('-', MINUS)} \u00d7 10{power}"


def format_vector(values, decimals: int = 3) -> str:
    """Formatea un vector como ``[a, b, c]`` con ``decimals`` decimales."""
    flat = np.asarray(values, dtype=float).ravel()
    return "[" + ", ".join(format_number(v, decimals) for v in flat) + "]"


def _to_float(token: str) -> float:
    token = token.replace(MINUS, "-")
    if "\u00d7" in token:
        mantissa, power = token.split("\u00d7")
        exponent = power.strip()[2:].translate(_SUPERSCRIPTS)
        return float(f"{mantissa.strip()}e{exponent}")
    return float(token.translate(_NO_GROUPS))


def parse_numbers(text: str) -> list[float]:
    """Extrae los números de un texto pegado.

    Acepta el signo menos tipográfico, la notación para lectores ``2.7 × 10⁻¹⁶`` y los
    enteros en grupos de tres (``45 711`` → 45711; «1 2» y «1 234» son dos números).
    """
    return [_to_float(m) for m in _NUMBER_RE.findall(text)]


def glue_number(name: str, value) -> None:
    """Pega un número (como ``float`` de Python, para que ``{glue:text}`` lo formatee).

    No devuelve nada, para que una celda que termina en ``glue_number`` no muestre nada.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        value = np.asarray(value)
        if value.size != 1:
            raise TypeError(
                f"glue_number espera un solo número; recibió forma {value.shape}"
            )
    _glue(name, float(value))


def glue_integer(name: str, value) -> None:
    """Pega un entero ya escrito como la RAE (``45 711``, ``format_integer``).

    La prosa lo cita con ``{glue:text}`name``` (sin formato: ``:.0f`` lo escribiría
    sin grupos, ``45711``).
    """
    _glue(name, format_integer(value))


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
        small = img.convert("RGB").quantize(
            colors=colors, method=Image.Quantize.MEDIANCUT
        )
        out = BytesIO()
        small.save(out, format="PNG", optimize=True)
    return out.getvalue() if out.tell() < len(png) else png


_PAD_INCHES = 0.1  # el margen blanco alrededor de la figura recortada


def _visible_texts(fig):
    from matplotlib.text import Text

    return [
        t for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.figure is fig
    ]


def legend_covers_data(ax) -> bool:
    """¿Tapa la leyenda de ``ax`` algún punto de sus líneas o alguno de sus textos (los
    valores escritos sobre las barras)? (figura ya dibujada)."""
    legend = ax.get_legend()
    if legend is None or not legend.get_visible():
        return False
    box = legend.get_window_extent()
    for line in ax.get_lines():
        points = line.get_transform().transform(line.get_xydata())
        if box.count_contains(points):
            return True
    return any(text.get_visible() and text.get_text().strip()
               and box.overlaps(text.get_window_extent()) for text in ax.texts)


def _layout(fig) -> None:
    """Coloca los artistas de ``fig`` sin pintar sus píxeles.

    Las comprobaciones de ``fit_to_column`` solo leen posiciones y tamaños (leyendas,
    textos, el recorte «tight»). Un dibujo que no pinta (el mismo que usa ``savefig``
    antes de recortar) deja las mismas posiciones que ``fig.canvas.draw()``: la misma
    ``RendererAgg`` mide los textos y el diseño «constrained» corre igual. Solo se
    ahorra convertir en píxeles líneas y letras, que nadie mira: las imágenes las pinta
    ``savefig``. Cada colocación se hace aunque nada haya cambiado desde la anterior:
    el diseño «constrained» no acaba en una sola pasada (las marcas de los ejes
    dependen de su tamaño), y saltarse una cambiaba algunas figuras.
    """
    fig.draw_without_rendering()


def _legend_clear_of_data(ax) -> None:
    """Con el texto más grande, una leyenda puede tapar las curvas: primero se prueba
    el mejor sitio dentro de los ejes y, si aún tapa, va debajo del gráfico."""
    legend = ax.get_legend()
    if legend is None:
        return
    _layout(ax.figure)
    if not legend_covers_data(ax):
        return
    legend.set_loc("best")
    _layout(ax.figure)
    if not legend_covers_data(ax):
        return
    handles, labels = legend.legend_handles, [t.get_text() for t in legend.get_texts()]
    size = legend.get_texts()[0].get_fontsize() if labels else None
    legend.remove()
    legend = ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.2),
                       fontsize=size, frameon=False)
    fig = ax.figure  # la figura crece lo que mide la leyenda: el gráfico no encoge
    _layout(fig)
    width, height = fig.get_size_inches()
    fig.set_size_inches(width, height + legend.get_window_extent().height / fig.dpi)
    for _ in range(3):  # justo debajo de la etiqueta del eje x, que se mueve con él
        _layout(ax.figure)
        legend = ax.get_legend()
        legend.set_visible(False)
        below = ax.get_tightbbox().y0
        legend.set_visible(True)
        y = ax.transAxes.inverted().transform((0, below))[1]
        legend.set_bbox_to_anchor((0.5, y - 0.02), transform=ax.transAxes)


def fit_to_column(fig, max_width: float | None = None) -> float:
    """Prepara una figura para la página: al ancho de la columna y con texto legible.

    Reglas de ``resnorm.plots``: ancho como mucho ``max_width`` pulgadas
    (``FIGURE_WIDTH`` si no se da; se reduce la figura, no su texto) y ningún texto por
    debajo de ``MIN_FONT_PT`` puntos. Las figuras hechas a mano en un capítulo
    (``plt.subplots``) también pasan por aquí. Devuelve el tamaño del texto más
    pequeño, en puntos.
    """
    from resnorm.plots import FIGURE_WIDTH, MIN_FONT_PT

    max_width = FIGURE_WIDTH if max_width is None else max_width
    width, height = fig.get_size_inches()
    if width > max_width:
        fig.set_size_inches(max_width, height * max(0.8, max_width / width))
        if fig.get_layout_engine() is None:
            fig.set_layout_engine("constrained")
    for text in _visible_texts(fig):
        if text.get_fontsize() < MIN_FONT_PT:
            text.set_fontsize(MIN_FONT_PT)
    for ax in fig.axes:  # un título largo se parte en líneas, no ensancha la figura
        for title in (ax.title, ax._left_title, ax._right_title):
            title.set_wrap(True)
        ax.xaxis.label.set_wrap(True)
    for ax in fig.axes:  # las leyendas guardan su tamaño aparte de sus textos
        legend = ax.get_legend()
        if legend is not None:
            for text in legend.get_texts():
                text.set_fontsize(max(text.get_fontsize(), MIN_FONT_PT))
    for ax in fig.axes:
        _legend_clear_of_data(ax)
    # Lo que sobresale de la figura (etiquetas largas, textos fuera de los ejes) haría
    # la imagen recortada («bbox_inches="tight"») más ancha que la columna.
    for _ in range(3):
        _layout(fig)
        excess = fig.get_tightbbox().width + 2 * _PAD_INCHES - max_width
        if excess <= 0.01:
            break
        width, height = fig.get_size_inches()
        fig.set_size_inches(width - excess, height)
    return min((t.get_fontsize() for t in _visible_texts(fig)), default=MIN_FONT_PT)


#: Caracteres por línea de una entrada de leyenda en la versión para teléfono.
PHONE_LEGEND_CHARS = 26


def _wrap_legends(fig, chars: int) -> None:
    import textwrap

    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        for text in legend.get_texts():
            if len(text.get_text()) > chars:
                text.set_text(textwrap.fill(text.get_text(), chars))


def _png(fig, dpi: int) -> tuple[bytes, int, int]:
    """La figura como PNG recortado y cuantizado, con su ancho y alto en px CSS."""
    from io import BytesIO

    from PIL import Image

    from resnorm.plots import CSS_PX_PER_INCH

    buf = BytesIO()
    fig.savefig(
        buf, format="png", dpi=dpi, bbox_inches="tight", pad_inches=_PAD_INCHES,
        facecolor="white",
    )
    png = _quantize_png(buf.getvalue())
    with Image.open(BytesIO(png)) as img:
        px_w, px_h = img.size
    return png, round(px_w * CSS_PX_PER_INCH / dpi), round(px_h * CSS_PX_PER_INCH / dpi)


def _data_uri(png: bytes) -> str:
    import base64

    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def figure_html(fig, alt: str, dpi: int = 150, phone_dpi: int = 200) -> str:
    """Devuelve la figura como ``<picture>`` PNG en línea con su texto alternativo.

    myst-nb solo toma el ``alt`` de los metadatos de la celda, que son fijos; aquí el
    texto alternativo se genera con los datos de la figura, así que va en el HTML.
    La figura se ajusta antes a la columna (``fit_to_column``) y la imagen lleva su
    ancho y alto en px CSS (``CSS_PX_PER_INCH`` por pulgada, sin que la página se
    mueva al cargarla), ``loading="lazy"`` y, en ``data-texto-min-pt`` y
    ``data-dpi``, lo necesario para comprobar el tamaño de su texto en pantalla.

    Se dibuja dos veces: a ``FIGURE_WIDTH`` pulgadas (el ``<img>``) y, para pantallas
    de hasta ``PHONE_MEDIA``, a ``PHONE_FIGURE_WIDTH`` pulgadas con el mismo tamaño de
    letra (el ``<source>``): reducida a la columna de un teléfono, la primera dejaba
    su texto en unos 8 px; la segunda lo deja por encima de 11 px.
    """
    import html

    import matplotlib.pyplot as plt

    from resnorm.plots import PHONE_FIGURE_WIDTH, PHONE_MEDIA

    if not isinstance(alt, str) or not alt.strip():
        raise ValueError("Cada figura necesita un texto alternativo en español")
    min_pt = fit_to_column(fig)
    png, width, height = _png(fig, dpi)
    # Más estrecha, no más baja: cada panel conserva su alto para las curvas; las
    # entradas largas de una leyenda, en dos líneas (no caben en el ancho).
    fig.set_size_inches(PHONE_FIGURE_WIDTH, fig.get_size_inches()[1])
    _wrap_legends(fig, PHONE_LEGEND_CHARS)
    phone_pt = fit_to_column(fig, PHONE_FIGURE_WIDTH)
    phone, phone_w, phone_h = _png(fig, phone_dpi)
    plt.close(fig)
    return (
        '<picture class="curso-figura-marco">'
        f'<source media="{PHONE_MEDIA}" srcset="{_data_uri(phone)}" '
        f'width="{phone_w}" height="{phone_h}" data-dpi="{phone_dpi}" '
        f'data-texto-min-pt="{phone_pt:g}">'
        f'<img class="curso-figura" src="{_data_uri(png)}" '
        f'width="{width}" height="{height}" loading="lazy" decoding="async" '
        f'data-dpi="{dpi}" data-texto-min-pt="{min(min_pt, phone_pt):g}" '
        f'alt="{html.escape(alt.strip(), quote=True)}"></picture>'
    )


class _Figure:
    """Una figura ya dibujada, para pegarla (``glue``) con su HTML y su texto alt."""

    def __init__(self, html_img: str, alt: str):
        self.html_img = html_img
        self.alt = alt

    def _repr_html_(self) -> str:
        return self.html_img

    def __repr__(self) -> str:
        return self.alt


def glue_sci(name: str, value, digits: int = 2) -> None:
    """Pega un número ya escrito para lectores (``2.7 × 10⁻¹⁶``, ``digits`` cifras).

    La prosa lo cita con ``{glue:text}`name```; la celda visible lo imprime como lo
    escribiría cualquiera (``print(f"{g:.2e}")``).
    """
    _glue(name, format_sci(value, digits))


_FIGURE_NAME_RE = re.compile(r"fig-\d\d-[a-z0-9-]+")


def glue_figure(name: str, fig, alt: str) -> None:
    """Pega una figura de matplotlib, con su texto alternativo, para ``{glue:figure}``.

    Va en una celda oculta (``remove-cell``) después de la celda visible que dibuja
    ``fig``: el alumno lee el dibujo, no la fontanería. El libro la muestra numerada y
    con su pie en la celda de texto siguiente::

        ```{glue:figure} fig-04-geometria
        :name: fig-04-geometria

        Qué muestra la figura, en una frase.
        ```
    """
    if not _FIGURE_NAME_RE.fullmatch(name):
        raise ValueError(
            f"Nombre de figura no válido: {name!r} (usa «fig-NN-descripcion»)"
        )
    _glue(name, _Figure(figure_html(fig, alt), alt), display=False)
