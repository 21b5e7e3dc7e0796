"""El sitio construido tiene una página por cada entrada de ``_toc.yml``.

Lo que se mira en Chromium (sin red externa, sin errores de consola, fórmulas
dibujadas, búsqueda en español) está en ``test_site_quality.py``: cada página se visita
allí una sola vez.
"""

from __future__ import annotations

from tests.helpers import toc_files


def test_site_has_the_pages_of_the_toc(built_site):
    missing = [f for f in toc_files() if not (built_site / f"{f}.html").exists()]
    assert not missing, f"Faltan páginas: {missing}"
