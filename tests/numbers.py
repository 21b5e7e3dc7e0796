"""El arnés de números: qué valores pega cada notebook y si coinciden con lo esperado.

Funciones puras (sin pytest), para poder probar que el propio arnés detecta errores.
"""

from __future__ import annotations

import ast
import math
import re
import tomllib
from pathlib import Path

from resnorm.book import parse_numbers
from tests.prose import prose_text

EXPECTED_FILE = Path(__file__).with_name("expected_values.toml")
ALLOWED_FILE = Path(__file__).with_name("allowed_numbers.toml")


# Nombre de una figura pegada por resnorm.book.glue_figure(name, fig, alt=...).
FIGURE_NAME = re.compile(r"fig-\d\d-[a-z0-9-]+")


def glued_values(nb) -> dict[str, object]:
    """Los valores pegados con ``glue`` en un notebook ejecutado: nombre → valor.

    El valor es un ``float`` (número pegado) o un ``str`` (vector o texto formateado).
    """
    values: dict[str, object] = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {}).get("scrapbook")
            if not meta:
                continue
            if FIGURE_NAME.fullmatch(meta.get("name", "")):
                continue  # una figura numerada ({glue:figure}), no un número
            prefix = meta.get("mime_prefix", "")
            data = out.get("data", {})
            text = data.get(prefix + "text/plain")
            if text is None:
                continue
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                value = text
            values[meta["name"]] = value
    return values


def load_expected(path: Path = EXPECTED_FILE) -> dict[str, dict[str, dict]]:
    with path.open("rb") as fh:
        return tomllib.load(fh)


def _as_numbers(value) -> list[float] | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, (list, tuple)):
        return [float(v) for v in value]
    if isinstance(value, str):
        return parse_numbers(value)
    return None


def compare(notebook: str, name: str, value, spec: dict) -> str | None:
    """``None`` si ``value`` cumple lo esperado; si no, el mensaje del fallo."""
    where = f"{notebook}: «{name}»"
    # Si el valor nuevo es el bueno (cambió el capítulo a propósito), se corrige allí.
    fix = (
        f". Si el nuevo es el correcto, cámbialo en tests/{EXPECTED_FILE.name} "
        f"(sección [\"{notebook}\"], «{name}») y di de dónde sale en su source"
    )
    if spec.get("measured"):
        # Un tiempo (o un cociente de tiempos): depende de la máquina y de su carga, así
        # que aquí solo se pide que sea una medida (un número finito y positivo); lo
        # que la prosa lee de él lo comprueba un assert con margen en el notebook.
        got = _as_numbers(value)
        if got is None or len(got) != 1 or not (math.isfinite(got[0]) and got[0] > 0):
            return f"{where} vale {value!r}; se esperaba un tiempo medido (> 0){fix}"
        return None
    if "below" in spec:
        # Un valor que es ruido de redondeo (una diferencia que debería ser 0, el error
        # de deshacer una cuenta): cada CPU da otro, así que solo se pide que esté por
        # debajo del umbral (su source dice de qué tipo y escala sale).
        got = _as_numbers(value)
        limit = float(spec["below"])
        if got is None or not all(math.isfinite(g) and abs(g) <= limit for g in got):
            return (f"{where} vale {value!r}; se esperaba ruido de redondeo, por "
                    f"debajo de {limit:g}; fuente: {spec.get('source', '¿?')}{fix}")
        return None
    if "text" in spec:
        if str(value) != spec["text"]:
            return (
                f"{where} vale {value!r}; se esperaba el texto {spec['text']!r}{fix}"
            )
        return None
    expected = _as_numbers(spec["value"])
    got = _as_numbers(value)
    tol = float(spec["tol"])
    if got is None or expected is None or len(got) != len(expected):
        return (
            f"{where} vale {value!r}; se esperaba {spec['value']!r} (±{tol:g}){fix}"
        )
    for g, e in zip(got, expected):
        if not (math.isfinite(g) and abs(g - e) <= tol):
            return (
                f"{where} vale {value!r}; se esperaba {spec['value']!r} (±{tol:g}); "
                f"fuente: {spec.get('source', '¿?')}{fix}"
            )
    return None


def check_notebook(notebook: str, glued: dict, expected: dict) -> list[str]:
    """Todos los problemas de un notebook: sin entrada esperada, sin pegar o fuera de
    rango."""
    problems = []
    for name in sorted(set(glued) - set(expected)):
        problems.append(
            f"{notebook}: «{name}» se pega pero no tiene valor esperado (hoy vale "
            f"{glued[name]!r}). Añade a tests/{EXPECTED_FILE.name}, en la sección "
            f"[\"{notebook}\"], la línea «{name} = {{ value = …, tol = …, source = "
            "\"de dónde sale\" }»: el valor calculado aparte, no copiado de la salida"
        )
    for name in sorted(set(expected) - set(glued)):
        problems.append(
            f"{notebook}: «{name}» está en tests/{EXPECTED_FILE.name} pero no se "
            f"pega. Pégalo en una celda oculta del notebook (glue_number, glue_vector… "
            "de resnorm.book) o, si la prosa ya no lo cita, borra su línea"
        )
    for name in sorted(set(glued) & set(expected)):
        message = compare(notebook, name, glued[name], expected[name])
        if message:
            problems.append(message)
    return problems


# --- Números escritos a mano en la prosa -------------------------------------------

DECIMAL_RE = re.compile(r"(?<![\w.])[-\u2212]?\d+[.,]\d+(?:[eE][-+]?\d+)?(?![\w])")


def hand_typed_decimals(text: str) -> list[str]:
    """Los números decimales escritos a mano en la prosa de un texto MyST.

    La prosa la extrae ``tests/prose.py`` (el mismo extractor que el corrector
    ortográfico): fuera quedan código, matemáticas, roles (``{glue:text}``...),
    opciones de directivas, destinos de enlaces y URLs.
    """
    return DECIMAL_RE.findall(prose_text(text))


def load_allowed(path: Path = ALLOWED_FILE) -> list[dict]:
    with path.open("rb") as fh:
        return tomllib.load(fh).get("allowed", [])


# --- Cifras sin agrupar --------------------------------------------------------------

# Un entero de 5 cifras o más escrito de corrido. No cuentan: la parte decimal de un
# número (tras «.»), las cifras pegadas a letras o a «_» (identificadores, hashes
# como 9d2c173), las de un código de documento (DU-09797-001) ni las de una ruta o
# un ancla («/», «#»). Los años tienen 4 cifras y
# la RAE no los agrupa; ninguno llega aquí.
UNGROUPED_RE = re.compile(r"(?<![\w.#/])(?<!\w-)\d{5,}(?!\w)")


def ungrouped_numbers(text: str) -> list[str]:
    """Los enteros de 5 cifras o más sin sus grupos de tres («45711» en vez de
    «45 711»), en un texto que ya es prosa (sin código). Las URLs no cuentan."""
    from tests.prose import URL

    return UNGROUPED_RE.findall(URL.sub(" ", text))


# Un entero en grupos separados por un espacio normal («175 000»): la línea puede
# partirse entre sus grupos. La RAE pide un espacio que no la parta (fino, U+202F, o
# duro, U+00A0). Solo enteros de 5 cifras o más, sin otra cifra al lado («GPT-3 175B»,
# «1, 5, 20 y 50» no cuentan).
BREAKABLE_RE = re.compile(
    r"(?<![\w.,\u00a0\u2009\u202f ])(?:\d{2,3}(?: \d{3})+|\d(?: \d{3}){2,})"
    r"(?![\w\u00a0\u2009\u202f]|[.,]\d| \d)"
)


def breakable_groups(text: str) -> list[str]:
    """Los enteros agrupados con un espacio que parte la línea («175 000»)."""
    from tests.prose import URL

    return BREAKABLE_RE.findall(URL.sub(" ", text))
