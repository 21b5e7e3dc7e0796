"""Extensión de Sphinx: el tiempo de cada capítulo, calculado a partir de su contenido.

El tiempo no se escribe a mano: se cuenta. Para cada capítulo (``notebooks/*``):

- las palabras de la prosa (sin código, fórmulas, salidas ni soluciones plegadas) a
  ``PALABRAS_POR_MINUTO``;
- ``MIN_POR_EJERCICIO`` por cada directiva ``{exercise}`` de sphinx-exercise;
- ``MIN_POR_WIDGET`` por cada widget de la página (cada vista ``anywidget`` en las
  salidas);
- ``MIN_POR_FIGURA`` por cada figura o imagen (las salidas de matplotlib y los
  diagramas), que hay que mirar y leer;
- ``MIN_POR_PREGUNTA`` por cada pregunta: un desplegable cuyo título pregunta
  («¿…?», «Verdadero o falso…» o numerado, como en una autoevaluación) o una
  llamada ``Quiz.from_bank`` (esa vista cuenta como pregunta, no como widget).

La suma se redondea a 5 minutos (nunca menos de 5). El ritmo es una elección: la
lectura silenciosa de no ficción en inglés va a unas 238 palabras por minuto
(Brysbaert, 2019, *Journal of Memory and Language* 109, 104047,
https://doi.org/10.1016/j.jml.2019.104047); estudiar un texto técnico con fórmulas,
parándose a comprobarlas, va bastante más despacio, y el curso cuenta 130.

Se muestra en dos sitios:

- al principio de cada capítulo, una línea «Tiempo: unos 25 min (…)» tras el título
  (sin el emoji ⏱: no todas las fuentes lo tienen y se vería como un cuadro);
- donde una página escriba el rol ``{tiempo}`ruta/al/capitulo``` (la tabla de la
  portada), que se sustituye por «25 min». El rol ``{tiempo-regla}`ritmo``` escribe la
  regla del cálculo con las constantes de aquí, para que el texto no se desfase.

Se registra en ``_config.yml``, en ``sphinx: local_extensions:``, como
``tiempo_lectura: book/_ext``.
"""

from __future__ import annotations

import math
import posixpath
import re
from dataclasses import asdict, dataclass

from docutils import nodes

PALABRAS_POR_MINUTO = 130
MIN_POR_EJERCICIO = 5
MIN_POR_WIDGET = 3
MIN_POR_PREGUNTA = 1
MIN_POR_FIGURA = 1
REDONDEO_MIN = 5
CARPETA_CAPITULOS = "notebooks/"
VISTA_WIDGET = "application/vnd.jupyter.widget-view+json"
PALABRA = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")


@dataclass(frozen=True)
class Contenido:
    """Lo que se cuenta de un capítulo."""

    palabras: int = 0
    ejercicios: int = 0
    widgets: int = 0
    preguntas: int = 0
    figuras: int = 0


def minutos_exactos(c: Contenido) -> float:
    """palabras / ritmo + minutos por ejercicio, widget, pregunta y figura, sin
    redondear."""
    return (
        c.palabras / PALABRAS_POR_MINUTO
        + MIN_POR_EJERCICIO * c.ejercicios
        + MIN_POR_WIDGET * c.widgets
        + MIN_POR_PREGUNTA * c.preguntas
        + MIN_POR_FIGURA * c.figuras
    )


def minutos(c: Contenido) -> int:
    """El tiempo del capítulo redondeado a 5 minutos (la mitad sube), mínimo 5."""
    return max(REDONDEO_MIN, REDONDEO_MIN * math.floor(minutos_exactos(c) / REDONDEO_MIN
                                                       + 0.5))


def contar_palabras(texto: str) -> int:
    """Palabras de la prosa: secuencias de letras (los números no cuentan)."""
    return len(PALABRA.findall(texto))


def _plural(n: int, uno: str, varios: str) -> str:
    return f"{n} {uno if n == 1 else varios}"


def detalle(c: Contenido) -> str:
    """«1500 palabras, 2 ejercicios, 1 widget y 3 figuras» (omite lo que es 0)."""
    partes = [_plural(c.palabras, "palabra", "palabras")]
    if c.ejercicios:
        partes.append(_plural(c.ejercicios, "ejercicio", "ejercicios"))
    if c.widgets:
        partes.append(_plural(c.widgets, "widget", "widgets"))
    if c.preguntas:
        partes.append(_plural(c.preguntas, "pregunta", "preguntas"))
    if c.figuras:
        partes.append(_plural(c.figuras, "figura", "figuras"))
    if len(partes) == 1:
        return partes[0]
    return ", ".join(partes[:-1]) + " y " + partes[-1]


def regla() -> str:
    """La regla del cálculo, en una frase, con las constantes de este módulo."""
    return (
        f"el texto a {PALABRAS_POR_MINUTO} palabras por minuto, más "
        f"{MIN_POR_EJERCICIO} min por ejercicio, {MIN_POR_WIDGET} por widget, "
        f"{MIN_POR_PREGUNTA} por pregunta y {MIN_POR_FIGURA} por figura, redondeado a "
        f"{REDONDEO_MIN} min"
    )


# --- Contar en el doctree ------------------------------------------------------------

_SIN_PROSA = (nodes.literal_block, nodes.math, nodes.math_block, nodes.raw,
              nodes.comment, nodes.literal, nodes.target, nodes.substitution_definition)


def _nombre(nodo: nodes.Node) -> str:
    return type(nodo).__name__


def _es_celda_de_codigo(nodo: nodes.Node) -> bool:
    return isinstance(nodo, nodes.container) and "cell" in nodo.get("classes", [])


def _es_solucion(nodo: nodes.Node) -> bool:
    return _nombre(nodo) in ("solution_node", "solution_start_node")


def _fuera_de_la_prosa(nodo: nodes.Node) -> bool:
    return (isinstance(nodo, _SIN_PROSA) or _es_celda_de_codigo(nodo)
            or _es_solucion(nodo))


def _es_pregunta(nodo: nodes.Node) -> bool:
    """Un desplegable de sphinx-design cuyo título pregunta: lleva «?», empieza por
    «Verdadero o falso» o va numerado («8. …», como en una autoevaluación)."""
    if not (isinstance(nodo, nodes.container)
            and nodo.get("design_component") == "dropdown"):
        return False
    titulo = nodo.children[0].astext() if nodo.children else ""
    return ("?" in titulo or titulo.lower().startswith("verdadero o falso")
            or re.match(r"\d+\.\s", titulo) is not None)


def contar(doctree: nodes.Node) -> Contenido:
    """Cuenta palabras, ejercicios, widgets, preguntas y figuras de un doctree."""
    palabras = ejercicios = vistas = quizzes = preguntas = figuras = 0

    def visitar(nodo: nodes.Node, en_prosa: bool) -> None:
        nonlocal palabras, ejercicios, vistas, quizzes, preguntas, figuras
        nombre = _nombre(nodo)
        if nombre in ("exercise_node", "exercise_enumerable_node",
                      "exercise_unenumerable_node"):
            ejercicios += 1
        elif _es_pregunta(nodo):
            preguntas += 1
        if isinstance(nodo, nodes.image):
            figuras += 1
        if isinstance(nodo, nodes.raw):
            html = nodo.astext()
            vistas += html.count(VISTA_WIDGET)
            # Las figuras del curso llegan como HTML (<img> o <svg> en línea).
            figuras += html.count("<img") + html.count("<svg")
        if isinstance(nodo, nodes.literal_block) and not en_prosa:
            quizzes += nodo.astext().count("Quiz.from_bank(")
        if isinstance(nodo, nodes.Text):
            if en_prosa:
                palabras += contar_palabras(nodo.astext())
            return
        en_prosa = en_prosa and not _fuera_de_la_prosa(nodo)
        for hijo in nodo.children:
            visitar(hijo, en_prosa)

    visitar(doctree, True)
    return Contenido(
        palabras=palabras,
        ejercicios=ejercicios,
        widgets=max(0, vistas - quizzes),
        preguntas=preguntas + quizzes,
        figuras=figuras,
    )


# --- Sphinx ---------------------------------------------------------------------------


class tiempo_pendiente(nodes.Inline, nodes.TextElement):
    """El rol {tiempo}: se sustituye por «N min» cuando ya se leyó todo el libro."""


def _destino(docname_actual: str, ruta: str) -> str:
    ruta = ruta.strip()
    if ruta.startswith("/"):
        return ruta.lstrip("/")
    return posixpath.normpath(posixpath.join(posixpath.dirname(docname_actual), ruta))


def rol_tiempo(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    nodo = tiempo_pendiente(rawtext, "")
    nodo["destino"] = _destino(env.docname, text)
    usuarios = env.__dict__.setdefault("tiempo_lectura_usuarios", set())
    usuarios.add(env.docname)
    return [nodo], []


def rol_regla(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [nodes.Text(regla())], []


def _datos(env) -> dict[str, dict]:
    return env.__dict__.setdefault("tiempo_lectura", {})


def al_leer(app, doctree) -> None:
    env = app.env
    docname = env.docname
    if not docname.startswith(CARPETA_CAPITULOS):
        return
    contenido = contar(doctree)
    _datos(env)[docname] = asdict(contenido)
    seccion = next(iter(doctree.findall(nodes.section)), None)
    if seccion is None or not seccion.children:
        return
    texto = f"Tiempo: unos {minutos(contenido)} min ({detalle(contenido)})."
    linea = nodes.paragraph("", "", nodes.emphasis(text=texto),
                            classes=["tiempo-lectura"])
    seccion.insert(1, linea)


def al_resolver(app, doctree, docname) -> None:
    datos = _datos(app.env)
    for nodo in list(doctree.findall(tiempo_pendiente)):
        destino = nodo["destino"]
        if destino not in datos:
            from sphinx.util import logging

            logging.getLogger(__name__).warning(
                "{tiempo}: no conozco el capítulo %r", destino, location=nodo
            )
            nodo.replace_self(nodes.Text("—"))
            continue
        nodo.replace_self(nodes.Text(f"{minutos(Contenido(**datos[destino]))} min"))


def al_purgar(app, env, docname) -> None:
    _datos(env).pop(docname, None)
    env.__dict__.setdefault("tiempo_lectura_usuarios", set()).discard(docname)


def al_fusionar(app, env, docnames, other) -> None:
    _datos(env).update(getattr(other, "tiempo_lectura", {}))
    env.__dict__.setdefault("tiempo_lectura_usuarios", set()).update(
        getattr(other, "tiempo_lectura_usuarios", set())
    )


def desactualizados(app, env, added, changed, removed):
    """Si cambia un capítulo, las páginas con {tiempo} se vuelven a escribir."""
    if added or changed or removed:
        return sorted(getattr(env, "tiempo_lectura_usuarios", set()))
    return []


def setup(app):
    app.add_node(tiempo_pendiente)
    app.add_role("tiempo", rol_tiempo)
    app.add_role("tiempo-regla", rol_regla)
    app.connect("doctree-read", al_leer)
    app.connect("doctree-resolved", al_resolver)
    app.connect("env-purge-doc", al_purgar)
    app.connect("env-merge-info", al_fusionar)
    app.connect("env-get-outdated", desactualizados)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 5}
