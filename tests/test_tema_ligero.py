"""Las hojas de estilo agrupadas (book/_ext/tema_ligero.py) dicen lo mismo que las
sueltas: las mismas reglas en el mismo orden, con sus url() corregidas, y las hojas
que otras pruebas nombran (KaTeX, ejercicios) siguen aparte."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import tema_ligero  # noqa: E402

_LINK = '<link rel="stylesheet" type="text/css" href="../_static/{}?v=1" />'
HEAD = "\n".join([
    "<head>",
    '  <link href="../_static/styles/theme.css?digest=1" rel="stylesheet" />',
    *(_LINK.format(rel) for rel in ("iconos/iconos.css", "vendor/katex/katex.min.css",
                                    "css/curso.css", "css/reserva.css")),
    "</head>",
])


def _site(tmp_path: Path) -> Path:
    static = tmp_path / "_static"
    for rel, css in {
        "styles/theme.css": "a{background:url(../file.png)}",
        "iconos/iconos.css": "@font-face{src:url(fa.woff)}",
        "vendor/katex/katex.min.css": ".katex{}",
        "css/curso.css": ".curso{color:red}",
        "css/reserva.css": ".rn-reserva{min-height:1px}",
    }.items():
        (static / rel).parent.mkdir(parents=True, exist_ok=True)
        (static / rel).write_text(css, encoding="utf-8")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "04.html").write_text(HEAD, encoding="utf-8")
    return tmp_path


def _sheets(page: Path) -> list[str]:
    return tema_ligero._STYLESHEET.findall(page.read_text(encoding="utf-8"))


def test_consecutive_sheets_become_one_with_the_same_rules_in_order(tmp_path):
    site = _site(tmp_path)
    assert tema_ligero.bundle_styles(site) == 1
    page = site / "notebooks" / "04.html"
    sheets = _sheets(page)
    assert len(sheets) == 3
    assert sheets[1] == "../_static/vendor/katex/katex.min.css"
    first = (page.parent / sheets[0]).read_text(encoding="utf-8")
    assert first.index("url(file.png)") < first.index("url(iconos/fa.woff)")
    last = (page.parent / sheets[2]).read_text(encoding="utf-8")
    assert last.index(".curso{") < last.index(".rn-reserva{")


def test_bundles_follow_the_sheets_on_the_next_build(tmp_path):
    site = _site(tmp_path)
    tema_ligero.bundle_styles(site)
    (site / "_static" / "css" / "curso.css").write_text(".curso{color:blue}")
    assert tema_ligero.bundle_styles(site) == 0  # la página ya está agrupada
    page = site / "notebooks" / "04.html"
    last = (page.parent / _sheets(page)[2]).read_text(encoding="utf-8")
    assert ".curso{color:blue}" in last
