"""Cada figura se lee en pantalla: su texto más pequeño mide al menos 11 px CSS en la
columna de un portátil (757 px) y sigue legible en un teléfono.

El tamaño en pantalla de un texto de una figura PNG sale de cuatro datos: su tamaño
en puntos (1 pt = 1/72 pulgadas de figura), los DPI con que se guardó (px de imagen
por pulgada), el ancho de la imagen en px y el ancho con que se muestra en px CSS:

    px CSS = pt / 72 · DPI · (ancho mostrado / ancho de la imagen)

El ancho mostrado es el del atributo ``width`` del ``<img>``, salvo que la columna sea
más estrecha (``max-width: 100%``). Las pruebas dibujan cada figura como la dibujan los
capítulos (también las de dos paneles y las hechas a mano con ``plt.subplots``), y en
el sitio construido miden las figuras de verdad (el ancho con que Chromium las
muestra en un portátil lo lee ``test_site_view.py`` en la misma carga de cada página
que sus demás comprobaciones).
"""

from __future__ import annotations

import base64
import html as html_lib
import io
import re
import warnings
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from PIL import Image  # noqa: E402

from resnorm import plots  # noqa: E402
from resnorm.book import _visible_texts, figure_html  # noqa: E402
from resnorm.examples import VECTOR  # noqa: E402

#: Ancho de la columna de texto del libro en un portátil (1366 × 900), en px CSS.
LAPTOP_COLUMN = 757
#: Ancho de la columna en un teléfono de 390 px (menos los márgenes del tema).
PHONE_COLUMN = 358
MIN_LAPTOP_PX = 11.0
#: En un teléfono se ve la versión para teléfono (el ``<source>`` del ``<picture>``):
#: su texto, reducido a la columna, también mide al menos 11 px.
MIN_PHONE_PX = 11.0

# Una figura del curso, también dentro del <figure> numerado de un {glue:figure} (allí
# myst-nb reescribe la etiqueta: los atributos cambian de orden y cierra con «/>»).
_IMG = re.compile(
    r"<img\b[^>]*\bclass=\"(?:[^\"]*\s)?curso-figura(?:\s[^\"]*)?\"[^>]*>"
)


#: La versión para teléfono de la figura, en el mismo ``<picture>``.
_SOURCE = re.compile(r"<source\b[^>]*\bmedia=\"[^\"]*max-width[^\"]*\"[^>]*>")


def _phone_source(html: str, tag: str) -> str:
    """El ``<source>`` para teléfono que precede a la figura ``tag`` en ``html``."""
    at = html.index(tag)
    start = html.rfind("<picture", 0, at)
    assert start >= 0 and "</picture>" not in html[start:at], (
        f"la figura no va en un <picture>: {tag[:100]}…")
    sources = _SOURCE.findall(html[start:at])
    assert len(sources) == 1, f"{len(sources)} <source> para teléfono: {tag[:100]}…"
    return sources[0]


def _attr(tag: str, name: str) -> str:
    match = re.search(rf'\b{name}="([^"]*)"', tag)
    assert match, f"la figura no tiene el atributo {name}: {tag[:120]}…"
    return html_lib.unescape(match.group(1))


def _png_size(tag: str, page: Path | None = None) -> tuple[int, int]:
    """Tamaño en píxeles del PNG de ``tag`` (un ``<img>`` o un ``<source>``): en línea
    (la salida del notebook) o, en el sitio, el archivo de ``_images`` al que apunta
    desde la página ``page``."""
    src = _attr(tag, "srcset" if tag.startswith("<source") else "src")
    if src.startswith("data:image/png;base64,"):
        data = io.BytesIO(base64.b64decode(src.split(",", 1)[1]))
    else:
        assert page is not None, f"figura sin PNG en línea: {src}"
        data = page.parent / src
    with Image.open(data) as img:
        assert img.format == "PNG", src
        return img.size


def smallest_text_px(tag: str, min_pt: float, column: float,
                     page: Path | None = None) -> float:
    """El texto más pequeño de la figura ``tag`` (un ``<img>`` o su ``<source>`` para
    teléfono; de la página ``page`` del sitio, si no es la salida del notebook), en px
    CSS, en una columna dada."""
    width = float(_attr(tag, "width"))
    dpi = float(_attr(tag, "data-dpi"))
    png_w, _ = _png_size(tag, page)
    shown = min(width, column)
    return min_pt / 72 * dpi * shown / png_w


def _render(fig):
    """El ``<img>`` de la figura, su texto más pequeño y su ``<source>`` para
    teléfono."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        html = figure_html(fig, alt="Figura de prueba")
    min_pt = min(t.get_fontsize() for t in _visible_texts(fig))
    tag = _IMG.search(html).group(0)
    return tag, min_pt, _phone_source(html, tag)


# --- Las figuras, como las dibujan los capítulos ------------------------------------

pytest.importorskip("torch")
from resnorm import experiments as ex  # noqa: E402


@pytest.fixture(scope="module")
def data():
    return {
        "grad": ex.first_layer_grad_vs_depth(depths=(1, 4, 32), width=16, batch_size=8),
        "survival": ex.signal_survival(depths=(1, 5, 20), width=16, batch_size=8),
        "std": ex.activation_std_per_layer(n_layers=12, width=16, batch_size=8),
        "transformer": ex.transformer_grad_norms(
            n_layers=(2, 4), n_seeds=1, d_model=16, n_heads=2, d_ff=32, seq_len=4
        ),
        "adam": ex.tiny_training(steps=30, depth=6, width=16, optimizer="adam"),
        "sgd": ex.tiny_training(steps=40, depth=20, width=32, optimizer="sgd", lr=0.05),
    }


BANDWIDTH_ROWS = [
    {"method": m, "label": label, "library": lib, "gbps": g, "shape": [4096, 1024]}
    for m, label, lib, g in [
        ("copy_into", "copia a un búfer", "NumPy", 9.0),
        ("copy_new", "copia nueva (clone)", "torch", 8.0),
        ("naive_layer_norm", "LayerNorm ingenua", "NumPy", 1.1),
        ("torch_layer_norm", "F.layer_norm (fusionada)", "torch", 6.5),
        ("naive_rms_norm", "RMSNorm ingenua", "NumPy", 1.6),
        ("resnorm_layer_norm", "resnorm.layer_norm", "NumPy", 0.9),
    ]
]


def _chapter_6_figure():
    # El capítulo 6 la dibuja a mano: 7.5 pulgadas y la leyenda a 8 pt.
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for i, style in enumerate(["-", "--", ":", "-."]):
        ax.plot([1e-6, 1e-3, 1e2], [0, 0.5 + i / 10, 1], ls=style,
                label=f"variante {i}")
    ax.set_xscale("log")
    ax.set_xlabel("escala s del vector s · [2, 4]  (σ = s)")
    ax.set_ylabel("segunda componente normalizada")
    ax.set_title("ε decide qué pasa cuando la dispersión es diminuta")
    ax.legend(fontsize=8, loc="center right")
    return fig


def _chapter_10_figure():
    # Dos paneles con leyenda «small», como el resumen (capítulo 10).
    fig, axes = plots.new_figure(1, 2, figsize=(11, 4.2))
    for ax in axes:
        ax.plot([0, 1, 2], [1, 2, 3], label="Pre-LN, semilla 0", **{
            k: v for k, v in plots.KIND_STYLE["pre_ln"].items() if k != "label"})
        ax.set_title("La norma del vector «perro», bloque a bloque")
        ax.set_xlabel("Bloques apilados")
        ax.legend(fontsize="small", facecolor="white")
    return fig


def _figures(d):
    """Nombre → función que crea la figura, como en cada capítulo."""

    def single(plot, *args, **kwargs):
        def make():
            fig, ax = plots.new_figure()
            plot(ax, *args, **kwargs)
            return fig
        return make

    def two(left, right):
        def make():
            fig, axes = plots.new_figure(1, 2, figsize=(11, 4))
            left(axes[0])
            right(axes[1])
            return fig
        return make

    def bandwidth():
        fig, ax = plt.subplots(figsize=(8, 3.8))  # capítulo 11, a mano
        plots.plot_bandwidth(ax, BANDWIDTH_ROWS)
        return fig

    return {
        "cap1_senal": single(plots.plot_signal_survival, d["survival"]),
        "cap1_gradiente": single(plots.plot_first_layer_grad, d["grad"]),
        "cap1_escalas": single(plots.plot_activation_std, d["std"]),
        "cap6_a_mano": _chapter_6_figure,
        "cap7_dos_paneles": two(
            lambda ax: plots.plot_last_layer_grad(ax, d["transformer"]),
            lambda ax: plots.plot_transformer_grad_norms(ax, d["transformer"]),
        ),
        "cap9_escalas": two(
            lambda ax: plots.plot_activation_std(
                ax, d["std"], curves=["plain_gain_0.9", "plain_gain_1.1", "plain_ln"]),
            lambda ax: plots.plot_activation_std(
                ax, d["std"], curves=["residual", "post_ln", "pre_ln"]),
        ),
        "cap9_entrenamiento": two(
            lambda ax: plots.plot_training_curves(ax, d["adam"]),
            lambda ax: plots.plot_training_curves(ax, d["sgd"]),
        ),
        "cap10_resumen": _chapter_10_figure,
        "cap11_ancho_de_banda": bandwidth,
        "barras": single(plots.plot_vectors, {"x": list(VECTOR),
                                              "LN(x)": [-1.02, -0.27, -0.37, 1.65]}),
        # Figura 4.1: en el teléfono, la leyenda de abajo tapaba el «1.00» de una barra.
        "cap4_dos_escalas": two(
            lambda ax: plots.plot_vectors(ax, {"[2, 4]": [2, 4], "[20, 40]": [20, 40]},
                                          title="Antes: dos escalas muy distintas"),
            lambda ax: plots.plot_vectors(
                ax, {"LayerNorm([2, 4])": [-1, 1], "LayerNorm([20, 40])": [-1, 1]},
                title="Después de LayerNorm: la misma escala"),
        ),
    }


NAMES = [
    "cap1_senal", "cap1_gradiente", "cap1_escalas", "cap6_a_mano", "cap7_dos_paneles",
    "cap9_escalas", "cap9_entrenamiento", "cap10_resumen", "cap11_ancho_de_banda",
    "barras", "cap4_dos_escalas",
]


@pytest.fixture(scope="module")
def drawn(data):
    """Cada figura dibujada una sola vez como en el libro (``figure_html``, la parte
    cara): su ``<img>``, su texto más pequeño y los ejes donde la leyenda tapa las
    curvas. Lo leen las pruebas de tamaño y la de las leyendas."""
    from resnorm.book import legend_covers_data

    out = {}
    for name, make in _figures(data).items():
        fig = make()
        tag, min_pt, phone = _render(fig)
        fig.canvas.draw()
        covered = [ax.get_title() for ax in fig.axes if legend_covers_data(ax)]
        out[name] = (tag, min_pt, covered, phone)
        plt.close(fig)
    plt.close("all")
    return out


@pytest.fixture(scope="module")
def rendered(drawn):
    return {name: (tag, min_pt) for name, (tag, min_pt, _, _) in drawn.items()}


@pytest.mark.parametrize("name", NAMES)
def test_smallest_figure_text_is_at_least_11_css_px_on_a_laptop(rendered, name):
    tag, min_pt = rendered[name]
    px = smallest_text_px(tag, min_pt, LAPTOP_COLUMN)
    assert px >= MIN_LAPTOP_PX, f"{name}: el texto más pequeño mide {px:.1f} px CSS"


@pytest.mark.parametrize("name", NAMES)
def test_the_phone_version_keeps_the_text_at_least_11_px_on_a_phone(drawn, name):
    """En un teléfono se ve el ``<source>``: la misma figura dibujada a
    ``PHONE_FIGURE_WIDTH`` pulgadas con el mismo tamaño de letra."""
    tag, _, _, phone = drawn[name]
    assert _attr(phone, "media") == plots.PHONE_MEDIA
    px = smallest_text_px(phone, float(_attr(phone, "data-texto-min-pt")), PHONE_COLUMN)
    assert px >= MIN_PHONE_PX, f"{name}: en un teléfono, {px:.1f} px CSS"
    # Sin ella, la figura del portátil reducida a la columna no llega a 11 px.
    laptop = smallest_text_px(tag, float(_attr(tag, "data-texto-min-pt")), PHONE_COLUMN)
    assert laptop < MIN_PHONE_PX, f"{name}: {laptop:.1f} px sin versión para teléfono"


@pytest.mark.parametrize("name", NAMES)
def test_figure_is_no_wider_than_the_laptop_column(rendered, name):
    tag, _ = rendered[name]
    assert float(_attr(tag, "width")) <= LAPTOP_COLUMN


@pytest.mark.parametrize("name", NAMES)
def test_figure_img_reserves_its_box_and_loads_lazily(rendered, name):
    tag, min_pt = rendered[name]
    width, height = float(_attr(tag, "width")), float(_attr(tag, "height"))
    png_w, png_h = _png_size(tag)
    assert abs(width / height - png_w / png_h) < 0.01  # sin deformar
    assert _attr(tag, "loading") == "lazy"
    assert float(_attr(tag, "data-texto-min-pt")) == pytest.approx(min_pt)


def test_a_row_of_panels_is_stacked_into_one_column():
    fig, axes = plots.new_figure(1, 2, figsize=(11, 4))
    assert len(axes) == 2
    boxes = [ax.get_position() for ax in axes]
    assert boxes[0].y0 > boxes[1].y1  # uno debajo del otro
    assert fig.get_size_inches()[0] <= plots.FIGURE_WIDTH
    plt.close(fig)


# --- En el sitio construido ---------------------------------------------------------


def _site_figures():
    from tests.helpers import BUILD_HTML, html_pages

    if not BUILD_HTML.exists():
        return []
    out = []
    for rel in html_pages(BUILD_HTML):
        text = (BUILD_HTML / rel).read_text(encoding="utf-8")
        out += [(rel, i, tag) for i, tag in enumerate(_IMG.findall(text))]
    return out


@pytest.mark.build
def test_site_scan_finds_every_figure_also_inside_numbered_glue_figures(built_site):
    """La búsqueda de figuras de estas pruebas (una expresión regular) ve las mismas
    ``img.curso-figura`` que un analizador de HTML, también las de los pies
    numerados."""
    from tests.helpers import built_soup, html_pages

    in_figures = 0
    for rel in html_pages(built_site):
        text = (built_site / rel).read_text(encoding="utf-8")
        images = built_soup(rel).select("img.curso-figura")
        assert len(_IMG.findall(text)) == len(images), rel
        in_figures += sum(img.find_parent("figure") is not None for img in images)
    assert in_figures >= 1, "ninguna figura dentro de un {glue:figure}"


@pytest.mark.build
def test_site_figures_are_files_in_images_not_inline_base64(built_site):
    """En el sitio, cada figura es un PNG de ``_images`` (el HTML no lleva su base64,
    que retrasaba el primer dibujo) y se pide al acercarse (``loading="lazy"``)."""
    figures = _site_figures()
    assert figures
    for rel, i, tag in figures:
        src = _attr(tag, "src")
        assert not src.startswith("data:"), f"{rel}, figura {i + 1}: en línea"
        assert src.startswith("../_images/figura-") and src.endswith(".png"), src
        assert (built_site / rel).parent.joinpath(src).resolve().is_file(), src
        assert _attr(tag, "loading") == "lazy", f"{rel}, figura {i + 1}"
        page = (built_site / rel).read_text(encoding="utf-8")
        phone = _attr(_phone_source(page, tag), "srcset")
        assert phone.startswith("../_images/figura-") and phone.endswith(".png"), phone
        assert (built_site / rel).parent.joinpath(phone).resolve().is_file(), phone
    for rel in {rel for rel, _, _ in figures}:
        assert "data:image/png;base64," not in (built_site / rel).read_text("utf-8")


@pytest.mark.build
def test_every_figure_of_the_built_site_is_readable_on_a_laptop(built_site):
    figures = _site_figures()
    assert len(figures) >= 10, "el sitio tiene menos figuras de las que se esperan"
    small = []
    texts = {}
    for rel, i, tag in figures:
        min_pt = float(_attr(tag, "data-texto-min-pt"))
        px = smallest_text_px(tag, min_pt, LAPTOP_COLUMN, built_site / rel)
        if rel not in texts:
            texts[rel] = (built_site / rel).read_text(encoding="utf-8")
        source = _phone_source(texts[rel], tag)
        phone = smallest_text_px(source, float(_attr(source, "data-texto-min-pt")),
                                 PHONE_COLUMN, built_site / rel)
        if px < MIN_LAPTOP_PX or phone < MIN_PHONE_PX:
            small.append(f"{rel}, figura {i + 1}: {px:.1f} px (teléfono {phone:.1f})")
    assert not small, "\n".join(small)


@pytest.mark.parametrize("name", NAMES)
def test_no_legend_covers_the_curves(drawn, name):
    # La figura tal como la deja figure_html (que busca sitio a la leyenda).
    covered = drawn[name][2]
    assert not covered, f"{name}: la leyenda tapa las curvas o los valores en {covered}"
