"""Extensión de Sphinx: el tiempo de cada capítulo, contado de lo que tiene su página.

Lo escribe bajo el título de cada ``notebooks/*``, en ``{tiempo}`ruta[#seccion]``` (la
portada), en ``camino-corto`` (unas secciones y su suma; cada sección termina con un
enlace a la siguiente) y en ``{tiempo-regla}`` (la regla). Lo contado (palabras,
líneas…) lo da ``capitulos_contados`` a la página de estadísticas
(``curso_estadisticas``). Ninguna extensión de Sphinx cuenta código, salidas, widgets
ni preguntas.
"""

import re
from typing import NamedTuple

import nbformat
from docutils import nodes
from sphinx.util import docname_join, logging
from sphinx.util.docutils import SphinxDirective
from sphinx_exercise.nodes import is_exercise_node, solution_node, solution_start_node

#: La no ficción se lee a unas 238 palabras/min (Brysbaert, 2019, *J. Mem. Lang.* 109,
#: https://doi.org/10.1016/j.jml.2019.104047); un texto técnico, más despacio.
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
PREGUNTA = re.compile(r"(?is).*\?|verdadero o falso|\d+\.\s")  # título de desplegable
ETIQUETAS_DE_EJERCICIO = {"ejercicio", "solucion"}  # celdas cuyo código no es lectura
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
            + c.lineas_salida / LINEAS_DE_SALIDA_POR_MINUTO + MIN_POR_WIDGET * c.widgets
            + MIN_POR_PREGUNTA * c.preguntas + MIN_POR_FIGURA * c.figuras
            + ejercicios * MIN_POR_EJERCICIO * c.ejercicios)


def minutos(c: Contenido, ejercicios: bool = True) -> int:
    """Redondeados a 5 min (la mitad sube), nunca menos: no promete más precisión."""
    cincos = int(minutos_exactos(c, ejercicios) / REDONDEO_MIN + 0.5)
    return max(REDONDEO_MIN, REDONDEO_MIN * cincos)


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


def _recorrer(nodo: nodes.Node, prosa: bool = True, se_lee: bool = True):
    """Cada nodo, con si es prosa y si es lectura (no de soluciones ni ejercicios)."""
    celda = isinstance(nodo, nodes.container) and "cell_index" in nodo
    etiquetas = set(nodo.get("cell_metadata", {}).get("tags", [])) if celda else set()
    solucion = isinstance(nodo, (solution_node, solution_start_node))
    se_lee = se_lee and not (solucion or etiquetas & ETIQUETAS_DE_EJERCICIO)
    prosa = prosa and se_lee and not (celda or isinstance(nodo, SIN_PROSA))
    yield nodo, prosa, se_lee
    for hijo in nodo.children:
        yield from _recorrer(hijo, prosa, se_lee)


def contar(doctree: nodes.Node, fuentes: dict[int, str]) -> Contenido:
    """``fuentes``: el código de cada celda (el de ``remove-input`` no está aquí)."""
    nodos = list(_recorrer(doctree))
    bloques = [(b, sum(1 for renglon in b.astext().splitlines() if renglon.strip()))
               for b, _, lee in nodos if lee and isinstance(b, nodes.literal_block)]
    html = "\n".join(raw.astext() for raw in doctree.findall(nodes.raw))
    quiz = [preguntas_de_la_celda(fuentes.get(celda["cell_index"], ""))
            for celda in doctree.findall(nodes.container) if "cell_index" in celda]
    desplegables = [d[0].astext() for d in doctree.findall(nodes.container)
                    if d.get("design_component") == "dropdown" and d.children]
    return Contenido(
        palabras=sum(contar_palabras(n) for n, prosa, _ in nodos
                     if prosa and isinstance(n, nodes.Text)),
        ejercicios=len([*doctree.findall(is_exercise_node)]),
        # Un bloque de preguntas es una vista de widget, pero cuenta como sus preguntas.
        widgets=max(0, html.count(VISTA_WIDGET) - sum(b for b, _ in quiz)),
        preguntas=(sum(p for _, p in quiz)
                   + sum(1 for titulo in desplegables if PREGUNTA.match(titulo))),
        # Las figuras llegan como imagen o como HTML (<img> o <svg> en línea).
        figuras=(len([*doctree.findall(nodes.image)])
                 + html.count("<img") + html.count("<svg")),
        # El código que se ve: el de las celdas sin hide-input (ni remove-input).
        lineas_codigo=sum(n for b, n in bloques if "cell_input" in b.parent["classes"]
                          and b.parent.parent.get("hide_mode") not in ("all", "input")),
        lineas_salida=sum(n for b, n in bloques if "output" in b["classes"]),
    )


def al_leer(app, doctree) -> None:
    """Anota lo contado en el capítulo y en cada sección ``##`` (lo lee {tiempo})."""
    titulo = next(doctree.findall(nodes.section), None)
    if not app.env.docname.startswith("notebooks/") or titulo is None:
        return
    nb = nbformat.read(app.env.doc2path(app.env.docname), as_version=4)
    fuentes = {i: c.source for i, c in enumerate(nb.cells) if c.cell_type == "code"}
    for seccion in [titulo, *(s for s in titulo if isinstance(s, nodes.section))]:
        seccion["tiempo"] = tuple(contar(seccion, fuentes))
    c = Contenido(*titulo["tiempo"])
    con = f"; con los ejercicios, unos {minutos(c)} min" if c.ejercicios else ""
    # Lo contado (detalle) va en la página de estadísticas, no en el texto del lector
    # (la búsqueda lo citaba: «pre» dentro de «preguntas»).
    linea = f"Tiempo: leer, unos {minutos(c, False)} min{con}."
    titulo.insert(1, nodes.paragraph("", "", nodes.emphasis(text=linea),
                                     classes=["tiempo-lectura"]))


def capitulos_contados(env) -> list[tuple[str, Contenido]]:
    """(docname, lo contado) de cada capítulo, en el orden de sus nombres."""
    out = []
    for docname in sorted(d for d in env.found_docs if d.startswith("notebooks/")):
        titulo = next(env.get_doctree(docname).findall(nodes.section), None)
        if titulo is not None and "tiempo" in titulo:
            out.append((docname, Contenido(*titulo["tiempo"])))
    return out


class tiempo_pendiente(nodes.General, nodes.Element):
    """Un {tiempo} o un camino-corto: se resuelve cuando ya se leyó todo el libro."""


def _pendiente(env, rutas, camino: bool = False) -> tiempo_pendiente:
    """(docname, sección) de cada ``ruta[#seccion]``; la página depende del capítulo."""
    partes = [ruta.strip().partition("#") for ruta in rutas if ruta.strip()]
    pasos = [(docname_join(env.docname, ruta), seccion) for ruta, _, seccion in partes]
    for docname, _ in pasos:
        env.note_dependency(env.doc2path(docname))
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
    """Una sección por línea (``ruta#id``): se listan con su tiempo y se suman; cada
    sección termina con un enlace a la siguiente (``al_resolver``)."""

    has_content = True

    def run(self):
        nodo = _pendiente(self.env, self.content, camino=True)
        _caminos(self.env)[self.env.docname] = list(nodo["pasos"])
        _caminos_leidos(self.env).add(self.env.docname)
        return [nodo]


def _caminos(env) -> dict[str, list[tuple[str, str]]]:
    """Los caminos cortos del libro: página que lo tiene → [(capítulo, sección)]."""
    if not hasattr(env, "tiempo_caminos"):
        env.tiempo_caminos = {}
    return env.tiempo_caminos


def _caminos_leidos(env) -> set[str]:
    """Las páginas con camino leídas en esta construcción."""
    if not hasattr(env, "tiempo_caminos_leidos"):
        env.tiempo_caminos_leidos = set()
    return env.tiempo_caminos_leidos


def al_purgar(app, env, docname) -> None:
    _caminos(env).pop(docname, None)


def al_juntar(app, env, docnames, otro) -> None:
    """Lectura en paralelo: los caminos que leyó cada proceso."""
    _caminos(env).update({d: c for d, c in _caminos(otro).items() if d in docnames})
    _caminos_leidos(env).update(_caminos_leidos(otro) & set(docnames))


def al_actualizar(app, env) -> list[str]:
    """Si se leyó de nuevo un camino, sus capítulos se escriben de nuevo (sus
    enlaces «sigue con»), aunque no hayan cambiado."""
    leidos, env.tiempo_caminos_leidos = _caminos_leidos(env), set()
    return sorted({d for pagina in leidos for d, _ in _caminos(env).get(pagina, [])}
                  & env.found_docs)


def siguiente_en_el_camino(app, doctree, docname) -> None:
    """Al final de cada sección del camino corto, un enlace a la siguiente (o, en la
    última, a la página del camino)."""
    for pagina, pasos in _caminos(app.env).items():
        for k, (destino, seccion) in enumerate(pasos):
            if destino != docname:
                continue
            sec = next((s for s in doctree.findall(nodes.section)
                        if seccion in s["ids"]), None)
            if sec is None:
                continue  # ya lo avisa al_resolver en la página del camino
            if k + 1 < len(pasos):
                otro, ancla = pasos[k + 1]
                titulo = next((s[0].astext() for s in app.env.get_doctree(otro)
                               .findall(nodes.section) if ancla in s["ids"]), ancla)
                texto = f"«{titulo}» ({app.env.titles[otro].astext()})"
                antes = f"Camino corto ({k + 1} de {len(pasos)}): sigue con "
            else:
                otro, ancla = pagina, ""
                texto = "vuelve a la portada"
                antes = f"Camino corto ({k + 1} de {len(pasos)}): terminado; "
            uri = app.builder.get_relative_uri(docname, otro) + (
                f"#{ancla}" if ancla else "")
            enlace = nodes.reference("", texto, refuri=uri, internal=True)
            sec += nodes.paragraph("", "", nodes.Text(antes), enlace, nodes.Text("."),
                                   classes=["tiempo-camino-siguiente", "no-search"])


def _contenido(app, nodo, destino: str, seccion: str) -> tuple[str, Contenido] | None:
    """(título, Contenido) de la sección o, en un {tiempo} sin ella, del capítulo."""
    if destino in app.env.all_docs and (seccion or not nodo["camino"]):
        for sec in app.env.get_doctree(destino).findall(nodes.section):
            if "tiempo" in sec and (seccion in sec["ids"] or not seccion):
                return sec[0].astext(), Contenido(*sec["tiempo"])
    logger.warning("no conozco el tiempo de %r: ¿existe ese capítulo o su sección ##?",
                   f"{destino}#{seccion}", location=nodo)
    return None


def al_resolver(app, doctree, docname) -> None:
    """Un {tiempo} da los minutos de su capítulo; un camino, sus secciones y la suma."""
    for nodo in list(doctree.findall(tiempo_pendiente)):
        pasos = [(d, s, *hallado) for d, s in nodo["pasos"]
                 if (hallado := _contenido(app, nodo, d, s))]
        total = Contenido(*map(sum, zip(*[c for *_, c in pasos])))
        texto = f"{minutos(total, ejercicios=False)} min" if pasos else "—"
        if not nodo["camino"]:
            if total.ejercicios and not nodo["pasos"][0][1]:  # capítulo entero
                texto += f" ({minutos(total)} con ejercicios)"
            nodo.replace_self(nodes.Text(texto))
            continue
        lista = nodes.bullet_list()
        for destino, seccion, titulo, c in pasos:
            uri = app.builder.get_relative_uri(docname, destino) + "#" + seccion
            enlace = nodes.reference("", titulo, refuri=uri, internal=True)
            # Cada sección se redondea al minuto; la suma, a 5, como un capítulo.
            exactos = max(1, round(minutos_exactos(c, ejercicios=False)))
            capitulo = app.env.titles[destino].astext()
            resto = nodes.Text(f" ({capitulo}), {exactos} min")
            lista += nodes.list_item("", nodes.paragraph("", "", enlace, resto))
        texto = (f"En total, unos {texto} de lectura, calculados como los de cada "
                 "capítulo.")
        suma = nodes.paragraph("", texto, classes=["tiempo-camino"])
        nodo.replace_self([lista, suma])


def setup(app):
    app.add_node(tiempo_pendiente)
    app.add_role("tiempo", rol_tiempo)
    app.add_role("tiempo-regla", rol_regla)
    app.add_directive("camino-corto", CaminoCorto)
    app.connect("doctree-read", al_leer)
    app.connect("doctree-resolved", al_resolver)
    app.connect("doctree-resolved", siguiente_en_el_camino)
    app.connect("env-purge-doc", al_purgar)
    app.connect("env-merge-info", al_juntar)
    app.connect("env-get-updated", al_actualizar)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 11}
