"""Cada figura del sitio lleva su número y su pie: «Figura N.M — …».

En el sitio construido (``_build/html``), para cada capítulo:

* cada imagen de contenido (las figuras de matplotlib, ``img.curso-figura``, y los
  diagramas SVG de ``book/figuras``) está dentro de un ``<figure>`` cuyo
  ``<figcaption>`` empieza por «Figura N.M —», con N el número del capítulo;
* las figuras de un capítulo van numeradas 1, 2, 3… en el orden en que se leen;
* cada referencia de la prosa (``{numref}`Figura %s <fig-…>```) lleva a una figura que
  existe y dice su mismo número; ninguna queda como texto «Figura %s» ni rota.

N es el número que el libro da al capítulo: el de su lugar en las partes numeradas de
``_toc.yml`` (``chapter_numbers`` en tests/helpers.py), no el de su nombre de archivo;
en las páginas sin número (portada, apéndice) una figura lleva solo «Figura M —».
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import BUILD_HTML, built_soup, chapter_numbers, html_pages

pytestmark = pytest.mark.build

PAGES = html_pages(BUILD_HTML) if BUILD_HTML.exists() else []
# Página construida → número de su capítulo (los de las partes numeradas de _toc.yml).
NUMBERED = {f"{doc}.html": n for doc, n in chapter_numbers().items()}
# Cómo se da a una figura su número y su pie (lo repiten los mensajes de fallo).
HOW_TO_CAPTION = (
    "Una figura de matplotlib se pega con glue_figure(\"fig-NN-nombre\", fig, alt=…) "
    "(resnorm/book.py) en una celda oculta, y la celda de texto siguiente la muestra "
    "con ```{glue:figure} fig-NN-nombre``` y, dentro, «:name: fig-NN-nombre» y una "
    "línea de pie; un diagrama de book/figuras, con ```{figure} ../book/figuras/x.svg"
    "```, su :name: y su pie. Sphinx pone «Figura N.M —»: N sale del lugar del "
    "capítulo en _toc.yml; NN, en el nombre, es ese mismo número."
)
CAPTION = re.compile(r"^Figura (?:(\d+|[A-Z])\.)?(\d+) — \S")
SVG_FIGURE = re.compile(r"(?:^|/)(?:figuras|_images)/[\w.-]+\.svg$")


def _chapter(rel: str) -> int | None:
    """El número del capítulo de la página, o None si la página no va numerada."""
    return NUMBERED.get(rel)


def _article(soup):
    return soup.select_one("article.bd-article") or soup.body


def _content_images(soup):
    """Las imágenes de contenido: figuras de matplotlib y diagramas SVG del curso."""
    article = _article(soup)
    images = list(article.select("img.curso-figura"))
    images += [img for img in article.select("img[src], object[data]")
               if SVG_FIGURE.search(img.get("src") or img.get("data") or "")]
    order = {id(el): i for i, el in enumerate(article.find_all(True))}
    return sorted({id(i): i for i in images}.values(), key=lambda el: order[id(el)])


def _caption(img) -> str | None:
    figure = img.find_parent("figure")
    if figure is None:
        return None
    caption = figure.find("figcaption")
    if caption is None:
        return None
    text = caption.get_text(" ", strip=True)
    return re.sub(r"\s+", " ", text).removesuffix("#").strip()


def _where(img) -> str:
    return (img.get("alt") or img.get("src") or "")[:60]


# Al reunir las pruebas (en cada proceso de pytest) basta mirar el texto: una etiqueta
# <img> de figura o un <img>/<object> de un diagrama SVG del curso. Analizar cada
# página con BeautifulSoup solo para esto costaba ≈ 3 s por proceso.
_FIGURE_TAG = re.compile(
    r'<img\b[^>]*class="(?:[^"]*\s)?curso-figura\b'
    r'|<(?:img|object)\b[^>]*\b(?:src|data)="[^"]*(?:figuras|_images)/[\w.-]+\.svg"'
)


def _pages_with_figures():
    return [
        rel for rel in PAGES
        if _FIGURE_TAG.search((BUILD_HTML / rel).read_text(encoding="utf-8"))
    ]


FIGURE_PAGES = _pages_with_figures() if PAGES else []


def test_the_site_has_numbered_figures():
    assert len(FIGURE_PAGES) >= 5, FIGURE_PAGES
    # La lista de páginas con figuras es la misma que da el análisis completo.
    assert FIGURE_PAGES == [rel for rel in PAGES if _content_images(built_soup(rel))]


@pytest.mark.parametrize("rel", FIGURE_PAGES)
def test_every_figure_has_a_numbered_spanish_caption(rel):
    chapter = _chapter(rel)
    problems, numbers = [], []
    for img in _content_images(built_soup(rel)):
        text = _caption(img)
        if text is None:
            problems.append(f"sin <figure> con pie: {_where(img)}")
            continue
        match = CAPTION.match(text)
        if not match:
            problems.append(f"el pie no empieza por «Figura N.M —»: «{text[:60]}»")
            continue
        n, m = match.group(1), int(match.group(2))
        if chapter is not None and n != str(chapter):
            problems.append(
                f"«{text[:20]}» en el capítulo {chapter} según _toc.yml (si "
                "cambiaste _toc.yml después de construir, «make book»)"
            )
        if chapter is None and n is not None and not n.isalpha():
            problems.append(f"«{text[:20]}» en una página sin número")
        numbers.append(m)
    assert not problems, f"{rel}:\n" + "\n".join(problems) + "\n" + HOW_TO_CAPTION
    assert numbers == list(range(1, len(numbers) + 1)), (
        f"{rel}: figuras numeradas {numbers}, no 1, 2, 3…"
    )


def _figure_numbers(rel: str) -> dict[str, str]:
    """id del <figure> → «Figura N.M» de su pie, en la página ``rel``."""
    out = {}
    for figure in built_soup(rel).select("figure[id]"):
        number = figure.select_one("figcaption .caption-number")
        if number is not None:
            out[figure["id"]] = number.get_text(strip=True).removesuffix("—").strip()
    return out


@pytest.mark.parametrize("rel", PAGES)
def test_every_figure_reference_resolves_to_its_number(rel):
    soup = built_soup(rel)
    article = _article(soup)
    text = article.get_text(" ")
    assert "Figura %s" not in text, f"{rel}: referencia sin resolver («Figura %s»)"
    assert not re.search(r"\{numref\}|fig-\d\d-[a-z0-9-]+>", text), (
        f"{rel}: un {{numref}} quedó como texto"
    )
    problems = []
    for ref in article.select("span.std-numref, a.reference .std-numref"):
        link = ref.find_parent("a")
        label = re.sub(r"\s+", " ", ref.get_text(" ", strip=True))
        if link is None or not link.get("href"):
            problems.append(f"referencia rota: «{label}»")
            continue
        href = link["href"]
        page, _, anchor = href.partition("#")
        target = (Path(rel).parent / page).as_posix() if page else rel
        target = str(Path(target)).replace("\\", "/")
        target = re.sub(r"[^/]+/\.\./", "", target)
        if not (BUILD_HTML / target).is_file():
            problems.append(f"«{label}» lleva a {href}, que no existe")
            continue
        numbers = _figure_numbers(target)
        if anchor not in numbers:
            if label.startswith("Figura"):
                problems.append(f"«{label}» lleva a #{anchor}, que no es una figura")
            continue
        if label != numbers[anchor]:
            problems.append(
                f"«{label}» lleva a una figura que dice «{numbers[anchor]}»"
            )
    assert not problems, f"{rel}:\n" + "\n".join(problems)
