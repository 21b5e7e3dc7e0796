# El corrector ortográfico: la configuración del libro (conf.py) más
# sphinxcontrib-spelling. tests/test_spelling.py la usa con «sphinx-build -b spelling
# -c tests/ortografia»: el corrector lee los mismos documentos que el libro, y revisa
# lo que el lector lee (sin código, matemáticas, enlaces, cursiva ni negrita).

import runpy
import sys
from pathlib import Path

RAIZ_LIBRO = Path(__file__).resolve().parents[2]
globals().update(
    (k, v) for k, v in runpy.run_path(str(RAIZ_LIBRO / "conf.py")).items()
    if not k.startswith("__")
)
setup_del_libro = setup  # noqa: F821  (los borradores fuera, como en el libro)
sys.path.insert(0, str(Path(__file__).parent))
from filtros import (  # noqa: E402
    WORD_LIST, bibliography_names, quoted_apart, read_word_list)

extensions = [*extensions, "sphinxcontrib.spelling"]  # noqa: F821
bibtex_bibfiles = [str(RAIZ_LIBRO / f) for f in bibtex_bibfiles]  # noqa: F821

spelling_lang = "es_ES"
spelling_show_suggestions = False
spelling_ignore_contributor_names = False  # los autores del git no son palabras
spelling_ignore_importable_modules = False
# tests/palabras.txt lleva comentarios; PyEnchant quiere una palabra por línea.
# Más los nombres de los autores de la bibliografía, que los capítulos citan.
spelling_word_list_filename = str(WORD_LIST)
WORD_LIST.parent.mkdir(exist_ok=True)
WORD_LIST.write_text("\n".join(
    read_word_list((RAIZ_LIBRO / "tests" / "palabras.txt").read_text(encoding="utf-8"))
    + sorted(bibliography_names(bibtex_bibfiles))) + "\n", encoding="utf-8")
# La página de la bibliografía: nombres y títulos en inglés.
spelling_exclude_patterns = ["book/referencias.md"]
spelling_filters = ["filtros.CourseWords"]
# Las salidas de las celdas son código o HTML crudo, que el corrector no revisa: sin
# esto, myst-nb avisa de cada una que no sabe mostrar en este constructor.
nb_mime_priority_overrides = [
    ("spelling", "text/html", 10), ("spelling", "text/plain", 20)]
# Lo que solo usa el HTML, con rutas relativas a conf.py: aquí no hace falta.
html_static_path, html_favicon = [], None


def setup(app):
    setup_del_libro(app)
    app.connect("doctree-resolved", lambda app, doctree, docname: quoted_apart(doctree))
