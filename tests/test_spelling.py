"""La prosa del curso pasa el corrector ortográfico y habla siempre de «tú».

Ortografía del libro: sphinxcontrib-spelling (PyEnchant con el diccionario español
de Debian, ``hunspell-es``) sobre los mismos documentos que lee Sphinx para el sitio
(``sphinx-build -b spelling -c tests/ortografia``): revisa lo que el lector lee, sin
código, matemáticas, enlaces, cursiva, negrita ni comillas (ahí el curso escribe
extranjerismos y títulos). Lo que el corrector no decide solo está en
``tests/ortografia/filtros.py``; la lista del curso es ``tests/palabras.txt``.

Ortografía del código (hunspell): los docstrings de ``resnorm`` y las cadenas en
español del código (mensajes de error, etiquetas de los widgets en
``resnorm/widgets/*.js``, textos alternativos de las figuras en las celdas de los
notebooks). El libro no las muestra como texto (``resnorm`` no se documenta con
autodoc), así que el corrector de Sphinx no las ve. Una cadena del código cuenta si
es una frase y la mayoría de sus palabras son españolas (``"text/html"`` no cuenta);
los nombres del código citados sin comillas (``float``, ``layer_norm``) no cuentan.
Además del diccionario valen ``tests/palabras.txt``, las siglas, los autores de
``book/referencias.bib``, prefijo + palabra («subcapa») y, en cursiva o entre
comillas, el inglés (``dictionary-en``, npm, solo para pruebas, y los originales
ingleses del glosario).

Registro: ninguna forma de voseo (``tenés``, ``mirá``, ``fijate``...) en ningún texto
del curso, código y comentarios incluidos.
"""

from __future__ import annotations

import ast
import builtins
import json
import keyword
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from tests.helpers import ROOT
from tests.prose import URL, Fragment, markdown_prose, split_italic

DICTIONARY = Path("/usr/share/hunspell/es_ES.dic")
# Diccionario inglés (paquete npm dictionary-en, solo para pruebas): para los
# extranjerismos y títulos en cursiva o entre comillas.
ENGLISH_DICTIONARY = ROOT / "node_modules" / "dictionary-en" / "index.dic"
WORD_LIST = ROOT / "tests" / "palabras.txt"

LETTERS = "A-Za-zÁÉÍÓÚÜÑáéíóúüñÀ-ÖØ-öø-ÿ"
WORD = re.compile(rf"[{LETTERS}]+(?:[-'’][{LETTERS}]+)*")


# --------------------------------------------------------------------------------------
# Código: docstrings y cadenas (Python), cadenas (JavaScript)
# --------------------------------------------------------------------------------------

DOCTEST = re.compile(r"^\s*(>>>|\.\.\.)")
IDENTIFIER = re.compile(r"(?<![\w-])[A-Za-z_][A-Za-z0-9_]*(?![\w-])")
CAMEL_CASE = re.compile(r"^[a-z]+[A-Z]")  # meanStd, formatNumber: nombres de JavaScript
STRAIGHT_QUOTES = re.compile(r"'[^'\n]*'")  # 'adam': un valor de código en un mensaje
RST_LITERAL = re.compile(r"``.+?``|`[^`]+`", re.S)


def docstring_prose(doc: str, where: str, first_line: int) -> list[Fragment]:
    """Prosa de un docstring, por párrafos: sin ``literales``, sin doctests, sin los
    bloques de código que siguen a «::»."""
    out: list[Fragment] = []
    paragraph: list[str] = []
    start = 0
    block_indent: int | None = None

    def flush() -> None:
        nonlocal paragraph
        if paragraph:
            text = URL.sub(" ", RST_LITERAL.sub(" ", "\n".join(paragraph)))
            out.extend(split_italic(f"{where}:{first_line + start}", text))
        paragraph = []

    lines = doc.splitlines()
    indents = [len(x) - len(x.lstrip()) for x in lines[1:] if x.strip()]
    base = min(indents, default=0)
    previous_blank = True
    for offset, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if line.strip() and indent <= block_indent:
                block_indent = None
            else:
                continue
        if not line.strip() or DOCTEST.match(line):
            flush()
            previous_blank = True
            continue
        if previous_blank and offset > 0 and indent >= base + 4:
            block_indent = indent - 1  # bloque sangrado: código de ejemplo
            continue
        previous_blank = False
        if line.rstrip().endswith("::"):
            block_indent = indent
            line = line.rstrip()[:-2]
        if not paragraph:
            start = offset
        paragraph.append(line)
    flush()
    return out


def code_names(tree: ast.AST) -> set[str]:
    """Los nombres que usa un código: variables, argumentos, atributos, funciones..."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.update((node.asname or node.name).split("."))
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)
    return names


PYTHON_NAMES = frozenset(set(dir(builtins)) | set(keyword.kwlist))


def drop_code_names(fragment: Fragment, names: set[str] | frozenset[str]) -> Fragment:
    """Quita del texto los nombres de código citados sin comillas (``float``, ``dicts``,
    ``layer_norm``): son código, no prosa."""

    def drop(match: re.Match) -> str:
        name = match.group(0)
        singular = name[:-1] if name.endswith("s") else name
        code_like = "_" in name or CAMEL_CASE.match(name)
        return " " if code_like or name in names or singular in names else name

    return Fragment(
        fragment.where, IDENTIFIER.sub(drop, fragment.text), fragment.italic
    )


def _python_strings(
    source: str, where: str
) -> tuple[list[Fragment], list[Fragment], set[str]]:
    """(docstrings, demás cadenas, nombres del código) de un módulo de Python."""
    tree = ast.parse(source)
    docstrings: list[Fragment] = []
    doc_nodes: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(
            node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        ):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
            ):
                value = body[0].value
                if isinstance(value.value, str):
                    doc_nodes.add(id(value))
                    docstrings += docstring_prose(value.value, where, value.lineno)
    strings: list[Fragment] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [
                v.value if isinstance(v, ast.Constant) else " " for v in node.values
            ]
            strings.append(Fragment(f"{where}:{node.lineno}", "".join(map(str, parts))))
            for v in node.values:
                doc_nodes.add(id(v))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in doc_nodes
        ):
            strings.append(Fragment(f"{where}:{node.lineno}", node.value))
    return docstrings, [s for s in strings if s.text.strip()], code_names(tree)


JS_STRING = re.compile(
    r"\"((?:\\.|[^\"\\\n])*)\"|'((?:\\.|[^'\\\n])*)'|`((?:\\.|[^`\\])*)`", re.S
)
JS_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def javascript_strings(source: str, where: str) -> list[Fragment]:
    """Las cadenas literales de un archivo JavaScript (sin los ``${...}``)."""
    # Los comentarios se cambian por espacios del mismo largo: los números de línea
    # siguen valiendo. (Un «//» dentro de una cadena no aparece en estos archivos.)
    code = JS_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source)
    out = []
    for match in JS_STRING.finditer(code):
        text = next(g for g in match.groups() if g is not None)
        text = re.sub(r"\$\{[^}]*\}", " ", text)
        line = code.count("\n", 0, match.start()) + 1
        out.append(Fragment(f"{where}:{line}", text))
    return out


# --------------------------------------------------------------------------------------
# Fuentes del curso
# --------------------------------------------------------------------------------------


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def notebook_files() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("*.ipynb"))


def book_files() -> list[Path]:
    return sorted((ROOT / "book").glob("*.md"))


def python_files() -> list[Path]:
    return sorted(p for p in (ROOT / "resnorm").rglob("*.py"))


def javascript_files() -> list[Path]:
    return sorted((ROOT / "resnorm").rglob("*.js"))


def _code_cell_source(source: str) -> str:
    # Magias de IPython (%, !) fuera: no son Python.
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line
        for line in source.splitlines()
    )


def collect_prose() -> tuple[list[Fragment], list[Fragment]]:
    """(docstrings, cadenas candidatas) del código: las candidatas cuentan si son
    españolas. Los nombres del código citados sin comillas no son prosa.
    """
    candidates: list[Fragment] = []
    docstrings: list[Fragment] = []
    package_names: set[str] = set(PYTHON_NAMES)
    for path in python_files():
        docs, strings, used = _python_strings(
            path.read_text(encoding="utf-8"), _rel(path)
        )
        docstrings += docs
        candidates += strings
        package_names |= used
    prose = [drop_code_names(f, package_names) for f in docstrings]
    for path in notebook_files():
        nb = json.loads(path.read_text(encoding="utf-8"))
        for index, cell in enumerate(nb.get("cells", [])):
            if cell.get("cell_type") != "code":
                continue
            name = f"{_rel(path)}[celda {index}]"
            source = _code_cell_source("".join(cell.get("source", [])))
            try:
                candidates += _python_strings(source, name)[1]
            except SyntaxError:
                continue
    for path in javascript_files():
        candidates += javascript_strings(path.read_text(encoding="utf-8"), _rel(path))
    # En los mensajes, el código va entre comillas invertidas o es un nombre del
    # paquete.
    candidates = [
        drop_code_names(
            Fragment(f.where, STRAIGHT_QUOTES.sub(" ", RST_LITERAL.sub(" ", f.text))),
            package_names,
        )
        for f in candidates
    ]
    return prose, candidates


# --------------------------------------------------------------------------------------
# Palabras
# --------------------------------------------------------------------------------------


def words_of(text: str) -> list[str]:
    return [w for w in WORD.findall(text) if len(w) > 1]


def is_acronym(word: str) -> bool:
    return word.isupper() and len(word) <= 6


@cache
def project_words() -> frozenset[str]:
    words = set()
    for line in WORD_LIST.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            words.add(line)
    return frozenset(words)


GLOSSARY = ROOT / "book" / "glosario.md"


@cache
def glossary_english() -> frozenset[str]:
    """Las palabras en cursiva del glosario: el original inglés de cada término
    («Inglés: *backpropagation*»), que el diccionario inglés no siempre trae."""
    if not GLOSSARY.exists():
        return frozenset()
    words = set()
    for fragment in markdown_prose(GLOSSARY.read_text(encoding="utf-8"), "glosario"):
        if fragment.italic:
            for word in words_of(fragment.text):
                words.add(word.lower())
                words.update(p.lower() for p in re.split(r"[-'’]", word) if len(p) > 1)
    return frozenset(words)


BIBLIOGRAPHY = ROOT / "book" / "referencias.bib"


@cache
def bibliography_names() -> frozenset[str]:
    """Los apellidos y nombres de los autores de ``book/referencias.bib``."""
    if not BIBLIOGRAPHY.exists():
        return frozenset()
    text = BIBLIOGRAPHY.read_text(encoding="utf-8")
    names = set()
    for field in re.findall(r"author\s*=\s*[{\"](.+?)[}\"]\s*,?\s*\n", text, re.I):
        names.update(w for w in WORD.findall(field) if w[0].isupper())
    return frozenset(names)


# Prefijos que se escriben unidos (RAE): «subcapa» = sub + capa, «retropropagación»...
PREFIXES = (
    "anti",
    "auto",
    "contra",
    "des",
    "hiper",
    "inter",
    "intra",
    "macro",
    "micro",
    "multi",
    "post",
    "pos",
    "pre",
    "pseudo",
    "re",
    "retro",
    "semi",
    "sobre",
    "sub",
    "super",
    "tri",
)


def prefixed_remainders(word: str) -> list[str]:
    """Lo que queda de ``word`` sin cada prefijo posible (si quedan 4 letras o más)."""
    lower = word.lower()
    return [
        lower[len(p) :]
        for p in PREFIXES
        if lower.startswith(p) and len(lower) - len(p) >= 4
    ]


def in_word_list(word: str) -> bool:
    listed = project_words()
    return word in listed or word.lower() in {w for w in listed if w.islower()}


def hunspell_unknown(words: set[str], dictionary: Path = DICTIONARY) -> set[str]:
    """Las palabras que hunspell no conoce (por defecto, con el diccionario español)."""
    if not words:
        return set()
    result = subprocess.run(
        ["hunspell", "-d", str(dictionary.with_suffix("")), "-i", "UTF-8", "-l"],
        input="\n".join(sorted(words)) + "\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"},
        check=True,
    )
    return set(result.stdout.split())


@dataclass(frozen=True)
class Unknown:
    """Palabras desconocidas para cada diccionario."""

    spanish: set[str]
    english: set[str]


def word_accepted(word: str, unknown: Unknown, foreign_ok: bool = False) -> bool:
    """Una palabra vale si la conoce el diccionario español, es una sigla, está en la
    lista del proyecto, es un autor de la bibliografía o es prefijo + palabra conocida
    («subcapa»); en cursiva o entre comillas valen también el diccionario inglés y los
    originales ingleses del glosario. Un compuesto con guion vale si vale cada parte."""
    if (
        word not in unknown.spanish
        or is_acronym(word)
        or in_word_list(word)
        or word in bibliography_names()
        or any(r not in unknown.spanish for r in prefixed_remainders(word))
        or (
            foreign_ok
            and (word not in unknown.english or word.lower() in glossary_english())
        )
    ):
        return True
    parts = [p for p in re.split(r"[-'’]", word) if len(p) > 1]
    return len(parts) > 1 and all(word_accepted(p, unknown, foreign_ok) for p in parts)


def fragment_problems(fragment: Fragment, unknown: Unknown) -> list[str]:
    """Las palabras no aceptadas de un trozo."""
    return [
        w
        for w in words_of(fragment.text)
        if not word_accepted(w, unknown, fragment.italic)
    ]


def _hunspell_words(fragments: list[Fragment]) -> set[str]:
    words = set()
    for fragment in fragments:
        for word in words_of(fragment.text):
            words.add(word)
            words.update(p for p in re.split(r"[-'’]", word) if len(p) > 1)
            words.update(prefixed_remainders(word))
    return words


def spanish_candidates(candidates: list[Fragment], unknown: Unknown) -> list[Fragment]:
    """Las cadenas de código que son texto español: dos palabras o más y la mayoría
    conocidas (sin contar siglas), sin nombres con guiones tipo CSS (``rn-title``)."""
    out = []
    for fragment in candidates:
        if re.search(r"\b[a-z]+(?:-[a-z0-9]+)+\b|[/\\=<>{}]|\.\w", fragment.text):
            continue  # clases CSS, rutas, HTML, expresiones regulares, archivos
        words = [w for w in words_of(fragment.text) if not is_acronym(w)]
        if len(words) < 2 or not re.search(r"\s", fragment.text.strip()):
            continue  # un nombre («error_redondeo_pct») no es una frase
        known = sum(1 for w in words if w not in unknown.spanish or in_word_list(w))
        if known * 2 > len(words):
            out.append(fragment)
    return out


# --------------------------------------------------------------------------------------
# Pruebas
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def checked():
    if not shutil.which("hunspell") or not DICTIONARY.exists():
        pytest.fail(
            "Falta hunspell o el diccionario español: "
            "python tests/install_system_deps.py "
            "(o apt-get install hunspell hunspell-es)"
        )
    if not ENGLISH_DICTIONARY.exists():
        pytest.fail(
            "Falta node_modules/dictionary-en: ejecuta «npm ci» (lo hace «make book»)."
        )
    prose, candidates = collect_prose()
    words = _hunspell_words(prose + candidates)
    spanish = hunspell_unknown(words)
    unknown = Unknown(spanish, hunspell_unknown(spanish, ENGLISH_DICTIONARY))
    return prose + spanish_candidates(candidates, unknown), unknown


SPELLING_CONF = ROOT / "tests" / "ortografia"
NOTEBOOK_LINE = re.compile(r"^(\S+\.ipynb):(\d+)(\d{4}):")


def spelling_report(outdir: Path) -> list[str]:
    """Las líneas de los ``*.spelling`` de sphinxcontrib-spelling, «archivo:línea:
    (palabra) contexto»; en un notebook, myst-nb numera celda × 10 000 + línea."""
    lines = [
        line
        for report in sorted(outdir.rglob("*.spelling"))
        for line in report.read_text(encoding="utf-8").splitlines()
    ]
    return [NOTEBOOK_LINE.sub(lambda m: f"{m[1]}[celda {int(m[2])}]:{int(m[3])}:",
                              line) for line in lines]


@pytest.mark.build
def test_the_book_as_the_reader_reads_it_has_no_unknown_words(built_site, tmp_path):
    """sphinx-build -b spelling sobre los documentos del libro."""
    import sys

    try:
        import enchant

        enchant.Dict("es_ES")
    except Exception as error:  # noqa: BLE001 (ImportError o falta el diccionario)
        pytest.fail(
            f"Falta PyEnchant, libenchant-2-2 o hunspell-es ({error}): "
            "python tests/install_system_deps.py y make test-deps"
        )
    out = tmp_path / "ortografia"
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "spelling", "-c", str(SPELLING_CONF),
         "-d", str(tmp_path / "doctrees"), "-q", str(ROOT), str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    problems = spelling_report(out)
    assert not problems, (
        "Palabras desconocidas (corrígelas en el archivo que se nombra; si es una "
        "palabra inglesa, ponla en cursiva, *así*; si es un término técnico correcto, "
        "añádela a tests/palabras.txt, en su orden alfabético, con un comentario "
        "«# qué es»):\n" + "\n".join(problems)
    )


def test_spelling_report_names_the_notebook_cell_and_line(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "04_x.spelling").write_text(
        "notebooks/04_x.ipynb:50014: (recentra)  lo recentra\n"
        "book/intro.md:9: (fed)  la red fed\n", encoding="utf-8")
    assert spelling_report(tmp_path) == [
        "notebooks/04_x.ipynb[celda 5]:14: (recentra)  lo recentra",
        "book/intro.md:9: (fed)  la red fed",
    ]


def _filtros():
    import sys

    sys.path.insert(0, str(SPELLING_CONF))
    try:
        import filtros
    finally:
        sys.path.remove(str(SPELLING_CONF))
    return filtros


def test_course_filter_accepts_compounds_prefixes_and_symbols_not_typos():
    filtros = _filtros()
    known = {"capa", "red", "hola", "propagar"}.__contains__
    for word in ("subcapa", "retropropagar", "Pre-LN", "post-LN", "γ", "ε²",
                 "mybinder.org", "LN", "FFNs", "red-capa"):
        assert filtros.accepted(word, known), word
    for word in ("capaa", "subcapaa", "Pre-capaa", "pre", "mybinder", "ola-capa"):
        assert not filtros.accepted(word, known), word


def test_quoted_text_is_set_apart_like_italics():
    from docutils import nodes

    filtros = _filtros()
    paragraph = nodes.paragraph("", "Busca «close» y “Function Classes” en NumPy.")
    filtros.quoted_apart(paragraph)
    assert [type(n).__name__ for n in paragraph.children] == [
        "Text", "inline", "Text", "inline", "Text"]
    assert paragraph.astext() == "Busca «close» y “Function Classes” en NumPy."
    assert [n.astext() for n in paragraph.findall(nodes.inline)] == [
        "«close»", "“Function Classes”"]


def test_bibliography_names_come_from_the_bib_file():
    names = _filtros().bibliography_names([ROOT / "book" / "referencias.bib"])
    assert {"Vaswani", "Xiong", "Zhang"} <= names
    assert "and" not in names


def test_the_markdown_parser_drops_code_math_urls_and_roles():
    text = "\n".join(
        [
            "Texto con $x_i$ y `codigo_raro` y {glue:text}`media_ejemplo:.4f`.",
            "Un {term}`flujo residual` y un {doc}`enlace visible <../notebooks/x>`.",
            "Una URL https://ejemplo.org/pathxyz y [un enlace](https://xyz.abc/qwe).",
            "```python",
            "codigoqueno = sevee",
            "```",
            "```{exercise}",
            ":label: ej-xx-1",
            "",
            "Calcula la *mean*.",
            "```",
            "$$",
            "\\mathrm{LNxyz}(x)",
            "$$",
        ]
    )
    fragments = markdown_prose(text, "prueba")
    words = {w for f in fragments for w in words_of(f.text)}
    assert {"Texto", "flujo", "residual", "enlace", "visible", "Calcula"} <= words
    hidden = {
        "codigo",
        "raro",
        "media",
        "ejemplo",
        "pathxyz",
        "qwe",
        "xyz",
        "abc",
        "codigoqueno",
        "sevee",
        "LNxyz",
        "mathrm",
        "label",
        "ej-xx",
        "notebooks",
    }
    assert not words & hidden, words & hidden
    assert Fragment("prueba:10", "mean", italic=True) in fragments


def test_word_list_is_short_sorted_and_has_no_dictionary_words():
    listed = sorted(project_words(), key=str.lower)
    raw = [
        line.split("#", 1)[0].strip()
        for line in WORD_LIST.read_text(encoding="utf-8").splitlines()
        if line.split("#", 1)[0].strip()
    ]
    assert raw == sorted(raw, key=str.lower), (
        "tests/palabras.txt: ordena las palabras alfabéticamente, sin distinguir "
        "mayúsculas"
    )
    assert len(listed) <= 120, (
        f"tests/palabras.txt creció a {len(listed)} palabras (máximo 120): revísala; "
        "los extranjerismos van en cursiva en el texto y no necesitan estar en ella"
    )
    redundant = sorted(set(listed) - hunspell_unknown(set(listed)))
    assert not redundant, (
        f"ya están en el diccionario: bórralas de tests/palabras.txt: {redundant}"
    )


def test_code_strings_have_no_unknown_words(checked):
    fragments, unknown = checked
    problems = [
        f"{fragment.where}: {word}"
        for fragment in fragments
        for word in fragment_problems(fragment, unknown)
    ]
    assert not problems, (
        "Palabras desconocidas (corrígelas en el archivo que se nombra; si es una "
        "palabra inglesa, ponla en cursiva, *así*; si es un término técnico correcto, "
        "añádela a tests/palabras.txt, en su orden alfabético, con un comentario "
        "«# qué es»):\n" + "\n".join(problems)
    )


# --- Un solo registro: tú, nunca vos -------------------------------------------------

# Verbos que un curso usa al hablar al lector. De cada uno se generan sus formas de
# voseo: presente (tenés), imperativo (mirá) e imperativo con pronombre (fijate,
# pensalo). El imperativo de los verbos en -ir sin pronombre (escribí) no se busca:
# coincide con el pretérito de «yo».
VOSEO_VERBS = """
abrir acordar agregar añadir apilar aplicar buscar calcular cambiar comparar comprobar
conocer considerar contar copiar correr creer dar deber decir definir dejar descargar
dividir ejecutar elegir empezar encontrar entender escribir fijar guardar hacer imaginar
intentar ir leer llamar medir mirar mostrar mover multiplicar necesitar normalizar
notar observar pasar pensar poder poner preguntar probar querer recordar repasar restar
revisar saber seguir sumar suponer tener terminar tomar usar venir ver volver
"""
VOSEO_EXTRA = {"sos", "vení", "andá", "decí", "hacé", "poné", "tené", "salí"}
# Formas generadas que también son palabras corrientes en el español de «tú».
VOSEO_EXCEPTIONS = {
    "dame",  # imperativo de «dar» con «tú» («Dame una pista»)
    "calculate",  # inglés, en nombres de código: nn.init.calculate_gain
    "tomate",
    "dale",
    "date",
    "vete",
    "ves",
    "ve",
    "da",
    "di",
    "sé",
    "dé",
}
CLITICS = (
    "te",
    "lo",
    "la",
    "los",
    "las",
    "le",
    "les",
    "me",
    "nos",
    "telo",
    "tela",
    "melo",
)


def _strip(text: str) -> str:
    return text.replace("á", "a").replace("é", "e").replace("í", "i")


@cache
def voseo_forms() -> frozenset[str]:
    forms = set(VOSEO_EXTRA)
    for verb in VOSEO_VERBS.split():
        stem, ending = verb[:-2], verb[-2:]
        vowel = {"ar": "á", "er": "é", "ir": "í"}[ending]
        forms.add(stem + vowel + "s")  # tenés, mirás, decís
        if ending != "ir":
            forms.add(stem + vowel)  # mirá, poné
        for clitic in CLITICS:
            forms.add(stem + _strip(vowel) + clitic)  # fijate, pensalo, decime
    return frozenset(f for f in forms if f not in VOSEO_EXCEPTIONS and len(f) > 3)


def voseo_sources() -> list[Path]:
    files = notebook_files() + book_files() + python_files() + javascript_files()
    files += sorted((ROOT / "resnorm").rglob("*.css")) + [ROOT / "README.md"]
    return [p for p in files if p.exists()]


def find_voseo(text: str) -> list[str]:
    forms = voseo_forms()
    return [w for w in WORD.findall(text) if w.lower() in forms]


def test_voseo_detector_finds_vos_and_leaves_tu_alone():
    assert find_voseo("Si tenés tiempo, mirá la figura y fijate en la media.") == [
        "tenés",
        "mirá",
        "fijate",
    ]
    assert find_voseo(
        "Pensalo así: ¿entendés por qué se mueve? Imaginá, movés, leés"
    ) == ["Pensalo", "entendés", "Imaginá", "movés", "leés"]
    tu = "Si tienes tiempo, mira la figura, fíjate en la media, piénsalo; sabes"
    assert find_voseo(tu) == []
    assert find_voseo("Un tomate, además, después, inglés, podrás y verás") == []


def test_course_speaks_with_tu_never_vos():
    found = []
    for path in voseo_sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for word in find_voseo(line):
                found.append(f"{_rel(path)}:{number}: {word}")
    assert not found, "Formas de voseo (el curso habla de «tú»):\n" + "\n".join(found)


# --------------------------------------------------------------------------------------
# Concordancia: sustantivos masculinos que acaban como femeninos
# --------------------------------------------------------------------------------------

#: Masculinos que se escriben a veces en femenino: «matiz» (el capítulo 6 llegó a
#: decir «dos matices. La primera…», issue 49) y los de origen griego en -ma. Cada
#: uno con su plural.
MASCULINE = {"matiz": "matices", "problema": "problemas", "sistema": "sistemas",
             "esquema": "esquemas", "teorema": "teoremas", "diagrama": "diagramas",
             "dilema": "dilemas", "tema": "temas", "paradigma": "paradigmas"}
_NOUN = "|".join(f"{s}|{p}" for s, p in MASCULINE.items())
_PLURAL = "|".join(MASCULINE.values())
#: Un determinante femenino delante del sustantivo, con o sin un adjetivo femenino
#: en medio: «la matiz», «una segunda matiz», «estas dos matices».
FEMININE_BEFORE = re.compile(
    rf"\b(?:la|una|esta|esa|aquella|otra|las|unas|estas|esas|otras|muchas|pocas"
    rf"|algunas|varias|ninguna)\s+(?:[a-záéíóúñ]+as?\s+|dos\s+|tres\s+)?"
    rf"(?:{_NOUN})\b", re.IGNORECASE)
#: «dos matices. La primera…, la segunda…»: el ordinal que los retoma, en femenino,
#: en el mismo párrafo (solo como pronombre: «la primera capa» no cuenta).
FEMININE_AFTER = re.compile(
    rf"\b(?:{_PLURAL})\b(?:(?!\n\s*\n).){{0,400}}?\b(?:la|una)\s+"
    rf"(?:primera|segunda|tercera|otra|última)(?=\s*[:,.;)]|\s+es\b)",
    re.IGNORECASE | re.S)


def feminine_masculines(text: str) -> list[str]:
    """Los tramos de ``text`` que tratan como femenino un sustantivo de MASCULINE."""
    return [m.group(0) for pattern in (FEMININE_BEFORE, FEMININE_AFTER)
            for m in pattern.finditer(text)]


def test_gender_detector_finds_la_matiz_and_its_feminine_ordinals():
    assert feminine_masculines("Hay una matiz importante.") == ["una matiz"]
    assert feminine_masculines("Con dos matices. La primera: solo para x.") == [
        "matices. La primera"]
    assert feminine_masculines("dos matices. La primera es que") == [
        "matices. La primera"]
    assert feminine_masculines("Las dos matices y la sistema") == [
        "Las dos matices", "la sistema"]
    assert feminine_masculines("Esta segunda matiz") == ["Esta segunda matiz"]
    # En masculino, y un ordinal que no retoma el sustantivo, no cuentan.
    ok = ("Un matiz importante. Dos matices. El primero: solo para la primera capa. "
          "El segundo, la segunda capa. Los problemas de la otra sección.")
    assert feminine_masculines(ok) == []
    # Otro párrafo ya no retoma los matices.
    assert feminine_masculines("Dos matices.\n\nLa primera, la atención.") == []


def course_texts() -> list[tuple[str, str]]:
    """(dónde, texto) de cada celda de los notebooks y de cada archivo del curso."""
    import nbformat

    out = []
    for path in notebook_files():
        nb = nbformat.read(path, as_version=4)
        out += [(f"{_rel(path)}, celda {i}", c.source) for i, c in enumerate(nb.cells)]
    files = book_files() + python_files() + javascript_files() + [ROOT / "README.md"]
    for path in files:
        out.append((_rel(path), path.read_text(encoding="utf-8")))
    return out


def test_masculine_nouns_are_never_written_as_feminine():
    found = [f"{where}: «{' '.join(hit.split())}»" for where, text in course_texts()
             for hit in feminine_masculines(text)]
    assert not found, ("Sustantivos masculinos en femenino («el matiz», «dos matices. "
                       "El primero…»):\n" + "\n".join(found))
