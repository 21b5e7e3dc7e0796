"""Extensión de Sphinx: el tiempo de cada capítulo, contado de lo que tiene su página.

Lo escribe bajo el título de cada ``notebooks/*``, en ``{tiempo}`ruta[#seccion]```
(la portada), en ``camino-corto`` (unas secciones y su suma) y en ``{tiempo-regla}``
(la regla, con las constantes de aquí). Ninguna extensión de Sphinx cuenta el código,
las salidas, los widgets ni las preguntas de myst-nb. Ritmo: la no ficción se lee a unas
238 palabras/min (Brysbaert, 2019, *J. Mem. Lang.* 109, 104047,
https://doi.org/10.1016/j.jml.2019.104047); un texto técnico con fórmulas, más despacio.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

import nbformat
from docutils import nodes
from sphinx.util import docname_join, logging
from sphinx.util.docutils import SphinxDirective

PALABRAS_POR_MINUTO = 130
LINEAS_DE_CODIGO_POR_MINUTO = 10
LINEAS_DE_SALIDA_POR_MINUTO = 30
MIN_POR_EJERCICIO = 10
MIN_POR_WIDGET = 3
MIN_POR_PREGUNTA = 1
MIN_POR_FIGURA = 1
REDONDEO_MIN = 5
VISTA_WIDGET = "application/vnd.jupyter.widget-view+json"
PALABRA = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
BLOQUE_DE_PREGUNTAS = re.compile(r"Quiz\.from_bank\(\s*[\"']([\w-]+)[\"']\s*,\s*"
                                 r"[\"']([\w-]+)[\"']\s*\)")
#: El título de un desplegable que pregunta: «¿…?», «Verdadero o falso…» o «8. …».
PREGUNTA = re.compile(r"(?is).*\?|verdadero o falso|\d+\.\s")
#: Celdas que no se leen como código del capítulo: los ejercicios y sus soluciones.
ETIQUETAS_DE_EJERCICIO = {"ejercicio", "solucion"}
EJERCICIOS = {"exercise_node", "exercise_enumerable_node", "exercise_unenumerable_node"}
SOLUCIONES = {"solution_node", "solution_start_node"}
SIN_PROSA = (nodes.literal_block, nodes.math, nodes.math_block, nodes.raw,
             nodes.comment, nodes.literal, nodes.target, nodes.substitution_definition)
#: Lo que nombra el detalle, en este orden («{}» lleva la «s» del plural).
NOMBRES = {"palabras": "palabra{}", "lineas_codigo": "línea{} de código",
           "lineas_salida": "línea{} de salida", "figuras": "figura{}",
           "widgets": "widget{}", "preguntas": "pregunta{}",
           "ejercicios": "ejercicio{}"}
logger = logging.getLogger(__name__)


class Contenido(NamedTuple):
    """Lo que se cuenta de un capítulo (o de una sección)."""

    palabras: int = 0
    ejercicios: int = 0
    widgets: int = 0
    preguntas: int = 0
    figuras: int = 0
    lineas_codigo: int = 0
    lineas_salida: int = 0


def minutos_exactos(c: Contenido, ejercicios: bool = True) -> float:
    """Leer prosa, código, salidas, widgets, preguntas, figuras (y hacer ejercicios)."""
    return (c.palabras / PALABRAS_POR_MINUTO
            + c.lineas_codigo / LINEAS_DE_CODIGO_POR_MINUTO
            + c.lineas_salida / LINEAS_DE_SALIDA_POR_MINUTO
            + MIN_POR_WIDGET * c.widgets + MIN_POR_PREGUNTA * c.preguntas
            + MIN_POR_FIGURA * c.figuras
            + ejercicios * MIN_POR_EJERCICIO * c.ejercicios)


def minutos(c: Contenido, ejercicios: bool = True) -> int:
    """Redondeados a 5 min (la mitad sube), nunca menos: no promete más precisión."""
    exactos = minutos_exactos(c, ejercicios)
    return max(REDONDEO_MIN, REDONDEO_MIN * math.floor(exactos / REDONDEO_MIN + 0.5))


def contar_palabras(texto: str) -> int:
    """Palabras de la prosa: secuencias de letras (los números no cuentan)."""
    return len(PALABRA.findall(texto))


def detalle(c: Contenido) -> str:
    """«1500 palabras, 40 líneas de código y 2 ejercicios»: lo que hay."""
    partes = []
    for campo, nombre in NOMBRES.items():
        if (n := getattr(c, campo)) or campo == "palabras":
            cifra = f"{n:,}".replace(",", "\u202f") if n >= 10000 else str(n)  # RAE
            partes.append(f"{cifra} {nombre.format('' if n == 1 else 's')}")
    return " y ".join([", ".join(partes[:-1]), partes[-1]]) if partes[1:] else partes[0]


def preguntas_de_la_celda(fuente: str) -> tuple[int, int]:
    """(bloques, preguntas) de los ``Quiz.from_bank`` de una celda, según el banco."""
    from resnorm.quiz import bank

    bloques = BLOQUE_DE_PREGUNTAS.findall(fuente)
    return len(bloques), sum(len(bank.chapter(c)[b]) for c, b in bloques)


def _es_celda(nodo: nodes.Node) -> bool:
    return isinstance(nodo, nodes.container) and "cell" in nodo["classes"]


def _es_pregunta(nodo: nodes.Node) -> bool:
    return (isinstance(nodo, nodes.container) and bool(nodo.children)
            and nodo.get("design_component") == "dropdown"
            and PREGUNTA.match(nodo[0].astext()) is not None)


def _dentro(nodo: nodes.Node, prosa: bool) -> bool:
    """¿Está en una solución o en una celda de ejercicio (su código no es lectura)?
    Con ``prosa``, también en cualquier celda, código o fórmula (no son prosa)."""
    while nodo is not None:
        celda = _es_celda(nodo)
        etiquetas = nodo.get("cell_metadata", {}).get("tags", []) if celda else []
        if (type(nodo).__name__ in SOLUCIONES or set(etiquetas) & ETIQUETAS_DE_EJERCICIO
                or prosa and (celda or isinstance(nodo, SIN_PROSA))):
            return True
        nodo = nodo.parent
    return False


def _lineas(nodo: nodes.Node) -> int:
    return sum(1 for renglon in nodo.astext().splitlines() if renglon.strip())


def contar(doctree: nodes.Node, fuentes: dict[int, str]) -> Contenido:
    """Cuenta un capítulo o una sección. ``fuentes``, el código de cada celda (el de las
    ``remove-input`` no está en el doctree), da los bloques de preguntas."""
    bloques = [b for b in doctree.findall(nodes.literal_block) if not _dentro(b, False)]
    html = "\n".join(raw.astext() for raw in doctree.findall(nodes.raw))
    quiz = [preguntas_de_la_celda(fuentes.get(celda.get("cell_index"), ""))
            for celda in doctree.findall(_es_celda)]
    return Contenido(
        palabras=sum(contar_palabras(texto) for texto in doctree.findall(nodes.Text)
                     if not _dentro(texto.parent, True)),
        ejercicios=len([*doctree.findall(lambda n: type(n).__name__ in EJERCICIOS)]),
        # Un bloque de preguntas es una vista de widget, pero cuenta como sus preguntas.
        widgets=max(0, html.count(VISTA_WIDGET) - sum(b for b, _ in quiz)),
        preguntas=len([*doctree.findall(_es_pregunta)]) + sum(p for _, p in quiz),
        # Las figuras llegan como imagen o como HTML (<img> o <svg> en línea).
        figuras=(len([*doctree.findall(nodes.image)])
                 + html.count("<img") + html.count("<svg")),
        # El código que se ve: el de las celdas sin hide-input (ni remove-input).
        lineas_codigo=sum(_lineas(b) for b in bloques
                          if "cell_input" in b.parent["classes"]
                          and b.parent.parent.get("hide_mode") not in ("all", "input")),
        lineas_salida=sum(_lineas(b) for b in bloques if "output" in b["classes"]),
    )


class tiempo_pendiente(nodes.General, nodes.Element):
    """Un {tiempo} o un camino-corto: se resuelve cuando ya se leyó todo el libro."""


def _pendiente(env, rutas, camino: bool = False) -> tiempo_pendiente:
    """(docname, sección) de cada ``ruta[#seccion]``; si el capítulo cambia, se relee
    la página que lo cita."""
    pasos = []
    for ruta in filter(str.strip, rutas):
        ruta, _, seccion = ruta.strip().partition("#")
        pasos.append((docname_join(env.docname, ruta), seccion))
        env.note_dependency(env.doc2path(pasos[-1][0]))
    return tiempo_pendiente(pasos=pasos, camino=camino)


def rol_tiempo(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [_pendiente(inliner.document.settings.env, [text])], []


def rol_regla(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [nodes.Text(
        f"el texto a {PALABRAS_POR_MINUTO} palabras por minuto, el código a "
        f"{LINEAS_DE_CODIGO_POR_MINUTO} líneas por minuto y sus salidas a "
        f"{LINEAS_DE_SALIDA_POR_MINUTO}, más {MIN_POR_WIDGET} min por widget, "
        f"{MIN_POR_PREGUNTA} por pregunta y {MIN_POR_FIGURA} por figura; con los "
        f"ejercicios, {MIN_POR_EJERCICIO} min más por ejercicio; redondeado a "
        f"{REDONDEO_MIN} min")], []


class CaminoCorto(SphinxDirective):
    """Una sección por línea (``ruta#id``): se listan con su tiempo y se suman."""

    has_content = True

    def run(self):
        return [_pendiente(self.env, self.content, camino=True)]


def _datos(env) -> dict[str, dict[str, tuple[str, tuple]]]:
    """Por capítulo, ``{id de sección: (título, Contenido)}``; "" es el capítulo."""
    return env.__dict__.setdefault("tiempo_lectura", {})


def al_leer(app, doctree) -> None:
    docname = app.env.docname
    titulo = next(doctree.findall(nodes.section), None)
    if not docname.startswith("notebooks/") or titulo is None:
        return
    nb = nbformat.read(app.env.doc2path(docname), as_version=4)
    fuentes = {i: c.source for i, c in enumerate(nb.cells) if c.cell_type == "code"}
    c = contar(doctree, fuentes)
    datos = _datos(app.env)[docname] = {"": (titulo[0].astext(), tuple(c))}
    for seccion in titulo.children:
        if isinstance(seccion, nodes.section) and seccion["ids"]:
            datos[seccion["ids"][0]] = (seccion[0].astext(),
                                        tuple(contar(seccion, fuentes)))
    con = f"; con los ejercicios, unos {minutos(c)} min" if c.ejercicios else ""
    linea = f"Tiempo: leer, unos {minutos(c, False)} min{con} ({detalle(c)})."
    titulo.insert(1, nodes.paragraph("", "", nodes.emphasis(text=linea),
                                     classes=["tiempo-lectura"]))


def al_resolver(app, doctree, docname) -> None:
    for nodo in list(doctree.findall(tiempo_pendiente)):
        pasos = []
        for destino, seccion in nodo["pasos"]:
            titulo, c = _datos(app.env).get(destino, {}).get(seccion, ("", None))
            if c is None:
                logger.warning("no conozco el tiempo de %r: ¿existe ese capítulo y esa "
                               "sección (##)?", f"{destino}#{seccion}", location=nodo)
            else:
                uri = app.builder.get_relative_uri(docname, destino) + "#" + seccion
                capitulo = app.env.titles[destino].astext()
                pasos.append((seccion, uri, titulo, capitulo, Contenido(*c)))
        if not nodo["camino"]:
            texto = "—"
            for seccion, *_, c in pasos:
                con = f" ({minutos(c)} con ejercicios)" if c.ejercicios else ""
                texto = f"{minutos(c, False)} min{'' if seccion else con}"
            nodo.replace_self(nodes.Text(texto))
            continue
        lista = nodes.bullet_list()
        for _, uri, titulo, capitulo, c in pasos:
            item = nodes.paragraph()
            item += nodes.reference("", titulo, refuri=uri, internal=True)
            # Una sección se redondea al minuto; el total, a 5 min, como un capítulo.
            exactos = max(1, round(minutos_exactos(c, ejercicios=False)))
            item += nodes.Text(f" ({capitulo}), {exactos} min")
            lista += nodes.list_item("", item)
        total = minutos(Contenido(*map(sum, zip(*(c for *_, c in pasos)))), False)
        nodo.replace_self([lista, nodes.paragraph(
            "", f"En total, unos {total} min de lectura, calculados como los de cada "
            "capítulo.", classes=["tiempo-camino"])])


def al_purgar(app, env, docname) -> None:
    _datos(env).pop(docname, None)


def al_fusionar(app, env, docnames, other) -> None:
    _datos(env).update(_datos(other))


def setup(app):
    app.add_node(tiempo_pendiente)
    app.add_role("tiempo", rol_tiempo)
    app.add_role("tiempo-regla", rol_regla)
    app.add_directive("camino-corto", CaminoCorto)
    app.connect("doctree-read", al_leer)
    app.connect("doctree-resolved", al_resolver)
    app.connect("env-purge-doc", al_purgar)
    app.connect("env-merge-info", al_fusionar)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 9}
