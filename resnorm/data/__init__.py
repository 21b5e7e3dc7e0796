"""Datos del curso que viajan con el paquete (Capítulo 10: Un GPT diminuto).

- ``corpus_es.txt``: la prosa en español del propio curso, sin código, fórmulas ni
  marcas de formato; la genera ``make_corpus.py`` a partir de un commit fijo.
"""

from __future__ import annotations

from importlib import resources

__all__ = ["load_corpus"]


def load_corpus() -> str:
    """Devuelve el texto de ``corpus_es.txt`` (UTF-8), tal como está en el paquete."""
    corpus = resources.files(__name__).joinpath("corpus_es.txt")
    return corpus.read_text(encoding="utf-8")
