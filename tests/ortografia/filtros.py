"""El filtro de PyEnchant del corrector (sphinxcontrib-spelling): lo que el diccionario
español no sabe decidir solo, palabra a palabra.

sphinxcontrib-spelling ya deja fuera el código, las matemáticas, los enlaces y la
cursiva y la negrita (donde el curso escribe extranjerismos y títulos en inglés: solo
revisa el texto cuyo padre es un párrafo, un título, un elemento de lista...) y, con
``spelling_ignore_acronyms``, las siglas. Sus filtros miran la palabra tal como la
separa el tokenizador básico de PyEnchant, con los guiones dentro («Pre-LN»): el de
siglas no ve la «LN» de «Pre-LN». Este filtro acepta además, como hacía el corrector
anterior:

- los compuestos con guion si vale cada parte («Pre-LN», «feed-forward» no: en
  cursiva);
- prefijo + palabra conocida («subcapa», «retropropagar», «reescala»), que la RAE
  escribe junto y el diccionario no trae;
- lo que no se escribe con letras latinas (γ, ε, σ: símbolos, no palabras) y los
  nombres de dominio («mybinder.org»).

El texto entre comillas («…», “…») no se revisa, como la cursiva: ahí el curso escribe
extranjerismos y títulos en inglés («Function Classes»). ``quoted_apart`` lo aparta en
nodos ``inline``, que sphinxcontrib-spelling no revisa (ninguna opción lo hace).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from enchant.tokenize import Filter

# Prefijos que se escriben unidos (RAE): «subcapa» = sub + capa, «retropropagación»...
PREFIXES = (
    "anti", "auto", "contra", "des", "hiper", "inter", "intra", "macro", "micro",
    "multi", "post", "pos", "pre", "pseudo", "re", "retro", "semi", "sobre", "sub",
    "super", "tri",
)
DOMAIN = re.compile(r"^[\w-]+(?:\.[\w-]+)*\.(?:org|com|edu|io|net|es|dev)\W*$")
LATIN = re.compile(r"[A-Za-zÁÉÍÓÚÜÑáéíóúüñÀ-ÖØ-öø-ÿ]")


def read_word_list(text: str) -> list[str]:
    """Las palabras de ``tests/palabras.txt``: una por línea, sin sus comentarios."""
    words = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [w for w in words if w]


def bibliography_names(bibfiles) -> set[str]:
    """Los nombres y apellidos de los autores de los archivos BibTeX (con pybtex)."""
    from pybtex.database import parse_file

    names = set()
    for bib in bibfiles:
        for entry in parse_file(bib).entries.values():
            for person in entry.persons.get("author", []):
                for name in person.rich_first_names + person.rich_last_names:
                    names.update(re.findall(r"[^\W\d_]{2,}", str(name)))
    return names


def is_acronym(word: str) -> bool:
    return word.isupper() or (word.endswith("s") and word[:-1].isupper())


def accepted(word: str, check) -> bool:
    """¿Vale ``word``? ``check`` es el diccionario (español y lista del curso)."""
    word = word.strip("-'’")
    if DOMAIN.match(word):
        return True
    if len(word) <= 1 or not LATIN.search(word) or is_acronym(word) or check(word):
        return True
    lower = word.lower()
    if any(lower.startswith(p) and len(lower) - len(p) >= 4 and check(lower[len(p):])
           for p in PREFIXES):
        return True
    # Prefijo, guion y sigla o nombre: «pre-LN», «post-LN» (RAE).
    parts = [p for p in re.split(r"[-'’]", word) if p]
    return len(parts) > 1 and all(
        p.lower() in PREFIXES or accepted(p, check) for p in parts)


# La lista del curso sin comentarios (la escribe tests/ortografia/conf.py).
WORD_LIST = Path(__file__).resolve().parents[2] / "_build" / "ortografia-palabras.txt"


class CourseWords(Filter):
    """El filtro para ``spelling_filters`` (``accepted``, con el diccionario español y
    la lista del curso)."""

    @staticmethod
    @cache
    def check(word: str) -> bool:
        import enchant

        return enchant.DictWithPWL("es_ES", str(WORD_LIST)).check(word)

    def _skip(self, word: str) -> bool:
        return accepted(word, self.check)


QUOTED = re.compile(r"«[^«»]*»|“[^“”]*”")


def quoted_apart(doctree) -> None:
    """Pone cada «…» y “…” del texto en su propio nodo ``inline``."""
    from docutils import nodes

    for text in list(doctree.findall(nodes.Text)):
        value = str(text)
        if not QUOTED.search(value) or text.parent is None:
            continue
        pieces: list[nodes.Node] = []
        end = 0
        for match in QUOTED.finditer(value):
            pieces.append(nodes.Text(value[end:match.start()]))
            pieces.append(nodes.inline("", match.group(0)))
            end = match.end()
        pieces.append(nodes.Text(value[end:]))
        text.parent.replace(text, pieces)
