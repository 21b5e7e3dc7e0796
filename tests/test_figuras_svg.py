"""Los diagramas SVG de book/figuras se leen sin esfuerzo: XML válido, título en
español, texto de al menos 11 px tal como se muestran (en la columna de un portátil y
en la de un teléfono de 390 px, con su versión ``-telefono.svg`` si la tienen) y
colores del tema (claro u oscuro), nunca fijados en un atributo.

Lo que mide esta prueba en el XML lo mide además Chromium en el sitio construido
(``tests/test_site_view.py``, ``test_every_figure_and_chart_text_is_at_least_11_px_as_
displayed``)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.helpers import ROOT

FIGURAS = ROOT / "book" / "figuras"
SVG_NS = "{http://www.w3.org/2000/svg}"
# Ancho de la columna de contenido del sitio a 1366 px: cada figura se muestra a
# min(su ancho, 757) px.
COLUMNA_PX = 757
#: La columna de un teléfono de 390 px (menos los márgenes del tema).
COLUMNA_TELEFONO_PX = 358
TEXTO_MINIMO_PX = 11
#: La versión para teléfono de un diagrama (book/_ext/figuras_telefono.py).
SUFIJO_TELEFONO = "-telefono"
PALABRAS_ES = {"de", "la", "el", "y", "un", "una", "con", "los", "las", "del", "que"}
SVGS = sorted(FIGURAS.glob("*.svg"))


def _px(valor: str) -> float:
    m = re.fullmatch(r"\s*([0-9.]+)\s*(px)?\s*", valor)
    assert m, f"tamaño no expresado en px: {valor!r}"
    return float(m.group(1))


def _ancho_mostrado(raiz: ET.Element, columna: float = COLUMNA_PX
                    ) -> tuple[float, float]:
    """(ancho mostrado en px en una columna de ``columna`` px, ancho del viewBox)."""
    caja = raiz.get("viewBox")
    assert caja, "falta viewBox"
    ancho_vb = float(caja.split()[2])
    ancho = raiz.get("width")
    assert ancho, "falta width explícito: sin él, no se garantiza el tamaño del texto"
    return min(_px(ancho), columna), ancho_vb


def _en_telefono(svg: Path) -> Path:
    """El SVG que ve un teléfono: su versión para teléfono, si la tiene."""
    telefono = svg.with_name(svg.stem + SUFIJO_TELEFONO + ".svg")
    return telefono if telefono.exists() else svg


def _textos_con_tamano(raiz: ET.Element):
    """Cada <text> o <tspan> con su font-size heredado (atributo propio o del padre)."""

    def visitar(nodo: ET.Element, heredado: float | None):
        propio = nodo.get("font-size")
        tamano = _px(propio) if propio else heredado
        if nodo.tag in (SVG_NS + "text", SVG_NS + "tspan"):
            yield nodo, tamano
        for hijo in nodo:
            yield from visitar(hijo, tamano)

    yield from visitar(raiz, None)


def test_hay_figuras():
    nombres = {p.name for p in SVGS}
    for esperado in (
        "atajo.svg",
        "bloques-post-pre.svg",
        "ejes-batchnorm-layernorm.svg",
        "geometria-layernorm.svg",
        "portada.svg",
    ):
        assert esperado in nombres, f"falta book/figuras/{esperado}"


@pytest.mark.parametrize("svg", SVGS, ids=lambda p: p.name)
def test_svg_is_valid_xml_with_spanish_title(svg: Path):
    raiz = ET.parse(svg).getroot()
    assert raiz.tag == SVG_NS + "svg", f"{svg.name}: la raíz no es <svg>"
    titulo = raiz.find(SVG_NS + "title")
    assert titulo is not None and (titulo.text or "").strip(), (
        f"{svg.name}: sin <title>"
    )
    palabras = set(re.findall(r"\w+", titulo.text.lower()))
    assert palabras & PALABRAS_ES, f"{svg.name}: el <title> no parece español"
    assert raiz.get("role") == "img", f"{svg.name}: falta role=\"img\""


def test_each_phone_version_belongs_to_a_diagram():
    for svg in SVGS:
        if svg.stem.endswith(SUFIJO_TELEFONO):
            grande = svg.with_name(svg.stem.removesuffix(SUFIJO_TELEFONO) + ".svg")
            assert grande.exists(), f"{svg.name}: no hay {grande.name}"


#: Cada diagrama en la columna de un portátil y, en la de un teléfono, el SVG que ve
#: (su versión para teléfono, si la tiene).
VISTAS = [
    pytest.param(svg, COLUMNA_PX, id=f"portatil-{svg.name}") for svg in SVGS
    if not svg.stem.endswith(SUFIJO_TELEFONO)
] + [
    pytest.param(_en_telefono(svg), COLUMNA_TELEFONO_PX, id=f"telefono-{svg.name}")
    for svg in SVGS if not svg.stem.endswith(SUFIJO_TELEFONO)
]


@pytest.mark.parametrize("svg, columna", VISTAS)
def test_svg_text_is_at_least_11_px_as_displayed(svg: Path, columna: float):
    raiz = ET.parse(svg).getroot()
    mostrado, ancho_vb = _ancho_mostrado(raiz, columna)
    escala = mostrado / ancho_vb
    estilo = "".join(e.text or "" for e in raiz.iter(SVG_NS + "style"))
    assert "font-size" not in estilo, (
        f"{svg.name}: el tamaño del texto va en atributos font-size, no en <style> "
        "(así esta prueba puede comprobarlo)"
    )
    pequenos = []
    for nodo, tamano in _textos_con_tamano(raiz):
        assert tamano is not None, f"{svg.name}: texto sin font-size: {nodo.text!r}"
        if tamano * escala < TEXTO_MINIMO_PX:
            pequenos.append(f"{(nodo.text or '').strip()!r}: {tamano * escala:.1f} px")
    assert not pequenos, f"{svg.name}: texto de menos de 11 px: {pequenos}"


@pytest.mark.parametrize("svg", SVGS, ids=lambda p: p.name)
def test_svg_colours_come_from_the_theme(svg: Path):
    """Ningún color fijo en fill/stroke: todos salen de las variables de <style>, que
    cambian con prefers-color-scheme: dark."""
    raiz = ET.parse(svg).getroot()
    estilo = "".join(e.text or "" for e in raiz.iter(SVG_NS + "style"))
    assert "prefers-color-scheme: dark" in estilo, f"{svg.name}: sin modo oscuro"
    fijos = [
        f"<{n.tag.removeprefix(SVG_NS)} {a}={n.get(a)}>"
        for n in raiz.iter()
        for a in ("fill", "stroke", "color")
        if n.get(a) and n.get(a) not in ("none", "currentColor")
    ]
    assert not fijos, f"{svg.name}: colores fijos fuera del tema: {fijos[:5]}"
