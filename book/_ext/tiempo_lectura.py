"""Extensión de Sphinx: el tiempo de cada capítulo, calculado a partir de su contenido.

El tiempo no se escribe a mano: se cuenta lo que la página tiene. Para cada capítulo
(``notebooks/*``):

- las palabras de la prosa (sin código, fórmulas, salidas ni soluciones plegadas) a
  ``PALABRAS_POR_MINUTO``;
- las líneas de código que se ven (las celdas sin ``remove-input`` ni ``hide-input``,
  fuera de los ejercicios y sus soluciones) a ``LINEAS_DE_CODIGO_POR_MINUTO``, y las
  líneas de salida de texto a ``LINEAS_DE_SALIDA_POR_MINUTO``: leer código es leer;
- ``MIN_POR_WIDGET`` por cada widget de la página (cada vista ``anywidget`` en las
  salidas que no es un bloque de preguntas);
- ``MIN_POR_FIGURA`` por cada figura o imagen (las salidas de matplotlib y los
  diagramas), que hay que mirar y leer;
- ``MIN_POR_PREGUNTA`` por cada pregunta: cada pregunta de un bloque
  ``Quiz.from_bank`` (se cuentan en ``resnorm.quiz.bank``; el bloque no es un
  widget) y cada desplegable cuyo título pregunta («¿…?», «Verdadero o falso…» o
  numerado, como en una autoevaluación);
- y, solo para el tiempo «con ejercicios», ``MIN_POR_EJERCICIO`` por cada directiva
  ``{exercise}`` de sphinx-exercise: escribir, ejecutar, leer la pista y la solución.

Cada suma se redondea a 5 minutos (nunca menos de 5). El ritmo es una elección: la
lectura silenciosa de no ficción en inglés va a unas 238 palabras por minuto
(Brysbaert, 2019, *Journal of Memory and Language* 109, 104047,
https://doi.org/10.1016/j.jml.2019.104047); estudiar un texto técnico con fórmulas,
parándose a comprobarlas, va bastante más despacio, y el curso cuenta 130.

Se muestra en tres sitios:

- al principio de cada capítulo, una línea «Tiempo: leer, unos 25 min; con los
  ejercicios, unos 45 min (…)» tras el título (sin el emoji ⏱: no todas las fuentes
  lo tienen y se vería como un cuadro);
- donde una página escriba el rol ``{tiempo}`ruta/al/capitulo``` (la tabla de la
  portada), que se sustituye por «25 min (45 con ejercicios)»; con
  ``{tiempo}`ruta#seccion``` da el tiempo de lectura de una sección (``##``);
- el rol ``{tiempo-ruta}`ruta#seccion ruta#seccion …``` suma las secciones (el
  camino corto de la portada) y redondea una sola vez. El rol ``{tiempo-regla}`ritmo```
  escribe la regla del cálculo con las constantes de aquí, para que el texto no se
  desfase.

Se registra en ``_config.yml``, en ``sphinx: local_extensions:``, como
``tiempo_lectura: book/_ext``.
"""

from __future__ import annotations

import json
import math
import posixpath
import re
from dataclasses import asdict, dataclass, fields

from docutils import nodes

PALABRAS_POR_MINUTO = 130
LINEAS_DE_CODIGO_POR_MINUTO = 10
LINEAS_DE_SALIDA_POR_MINUTO = 30
MIN_POR_EJERCICIO = 10
MIN_POR_WIDGET = 3
MIN_POR_PREGUNTA = 1
MIN_POR_FIGURA = 1
REDONDEO_MIN = 5
CARPETA_CAPITULOS = "notebooks/"
VISTA_WIDGET = "application/vnd.jupyter.widget-view+json"
PALABRA = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
BLOQUE_DE_PREGUNTAS = re.compile(r"Quiz\.from_bank\(\s*[\"']([\w-]+)[\"']\s*,\s*"
                                 r"[\"']([\w-]+)[\"']\s*\)")
#: Celdas que no se leen como código del capítulo: los ejercicios y sus soluciones.
ETIQUETAS_DE_EJERCICIO = {"ejercicio", "solucion"}


@dataclass(frozen=True)
class Contenido:
    """Lo que se cuenta de un capítulo (o de una sección)."""

    palabras: int = 0
    ejercicios: int = 0
    widgets: int = 0
    preguntas: int = 0
    figuras: int = 0
    lineas_codigo: int = 0
    lineas_salida: int = 0

    def __add__(self, otro: Contenido) -> Contenido:
        return Contenido(*(getattr(self, f.name) + getattr(otro, f.name)
                           for f in fields(self)))


def minutos_de_lectura_exactos(c: Contenido) -> float:
    """Leer la página: prosa, código, salidas, widgets, preguntas y figuras."""
    return (
        c.palabras / PALABRAS_POR_MINUTO
        + c.lineas_codigo / LINEAS_DE_CODIGO_POR_MINUTO
        + c.lineas_salida / LINEAS_DE_SALIDA_POR_MINUTO
        + MIN_POR_WIDGET * c.widgets
        + MIN_POR_PREGUNTA * c.preguntas
        + MIN_POR_FIGURA * c.figuras
    )


def minutos_exactos(c: Contenido) -> float:
    """La lectura más ``MIN_POR_EJERCICIO`` por ejercicio, sin redondear."""
    return minutos_de_lectura_exactos(c) + MIN_POR_EJERCICIO * c.ejercicios


def _redondear(exactos: float) -> int:
    return max(REDONDEO_MIN, REDONDEO_MIN * math.floor(exactos / REDONDEO_MIN + 0.5))


def minutos_de_lectura(c: Contenido) -> int:
    """El tiempo de leer la página, redondeado a 5 minutos (la mitad sube), mínimo 5."""
    return _redondear(minutos_de_lectura_exactos(c))


def minutos(c: Contenido) -> int:
    """El tiempo con los ejercicios, redondeado a 5 minutos (la mitad sube)."""
    return _redondear(minutos_exactos(c))


def contar_palabras(texto: str) -> int:
    """Palabras de la prosa: secuencias de letras (los números no cuentan)."""
    return len(PALABRA.findall(texto))


def _miles(n: int) -> str:
    """Un entero como lo escribe la RAE: en grupos de tres a partir de 5 cifras."""
    return f"{n:,}".replace(",", "\u202f") if n >= 10000 else str(n)


def _plural(n: int, uno: str, varios: str) -> str:
    return f"{_miles(n)} {uno if n == 1 else varios}"


def detalle(c: Contenido) -> str:
    """«1500 palabras, 40 líneas de código, 2 ejercicios y 3 figuras» (omite lo que
    es 0)."""
    partes = [_plural(c.palabras, "palabra", "palabras")]
    if c.lineas_codigo:
        partes.append(_plural(c.lineas_codigo, "línea de código", "líneas de código"))
    if c.lineas_salida:
        partes.append(_plural(c.lineas_salida, "línea de salida", "líneas de salida"))
    if c.figuras:
        partes.append(_plural(c.figuras, "figura", "figuras"))
    if c.widgets:
        partes.append(_plural(c.widgets, "widget", "widgets"))
    if c.preguntas:
        partes.append(_plural(c.preguntas, "pregunta", "preguntas"))
    if c.ejercicios:
        partes.append(_plural(c.ejercicios, "ejercicio", "ejercicios"))
    if len(partes) == 1:
        return partes[0]
    return ", ".join(partes[:-1]) + " y " + partes[-1]


def linea(c: Contenido) -> str:
    """La línea bajo el título del capítulo."""
    if not c.ejercicios:
        return f"Tiempo: leer, unos {minutos_de_lectura(c)} min ({detalle(c)})."
    return (f"Tiempo: leer, unos {minutos_de_lectura(c)} min; con los ejercicios, "
            f"unos {minutos(c)} min ({detalle(c)}).")


def regla() -> str:
    """La regla del cálculo, en una frase, con las constantes de este módulo."""
    return (
        f"el texto a {PALABRAS_POR_MINUTO} palabras por minuto, el código a "
        f"{LINEAS_DE_CODIGO_POR_MINUTO} líneas por minuto y sus salidas a "
        f"{LINEAS_DE_SALIDA_POR_MINUTO}, más {MIN_POR_WIDGET} min por widget, "
        f"{MIN_POR_PREGUNTA} por pregunta y {MIN_POR_FIGURA} por figura; con los "
        f"ejercicios, {MIN_POR_EJERCICIO} min más por ejercicio; redondeado a "
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


def _lineas(texto: str) -> int:
    return sum(1 for renglon in texto.splitlines() if renglon.strip())


def _preguntas_por_bloque(capitulo: str, bloque: str) -> int:
    """Cuántas preguntas tiene un bloque ``Quiz.from_bank(capitulo, bloque)``."""
    from resnorm.quiz import bank

    return len(bank.chapter(capitulo)[bloque])


def preguntas_de_la_celda(fuente: str) -> tuple[int, int]:
    """(bloques, preguntas) de los ``Quiz.from_bank`` de una celda."""
    bloques = BLOQUE_DE_PREGUNTAS.findall(fuente)
    return len(bloques), sum(_preguntas_por_bloque(c, b) for c, b in bloques)


def contar(doctree: nodes.Node, fuentes: dict[int, str] | None = None) -> Contenido:
    """Cuenta lo que tiene un doctree (un capítulo o una sección).

    ``fuentes`` da el código de cada celda por su índice en el notebook: el de una
    celda ``remove-input`` no está en el doctree, y de él salen los bloques de
    preguntas (``Quiz.from_bank``), que se cuentan como preguntas y no como widgets.
    """
    fuentes = fuentes or {}
    cuenta = dict.fromkeys(("palabras", "ejercicios", "vistas", "bloques", "preguntas",
                            "figuras", "codigo", "salida"), 0)

    def visitar(nodo: nodes.Node, en_prosa: bool, se_lee: bool) -> None:
        nombre = _nombre(nodo)
        if nombre in ("exercise_node", "exercise_enumerable_node",
                      "exercise_unenumerable_node"):
            cuenta["ejercicios"] += 1
        elif _es_pregunta(nodo):
            cuenta["preguntas"] += 1
        if _es_solucion(nodo):
            se_lee = False
        if _es_celda_de_codigo(nodo):
            etiquetas = set(nodo.get("cell_metadata", {}).get("tags", []))
            if etiquetas & ETIQUETAS_DE_EJERCICIO:
                se_lee = False
            bloques, preguntas = preguntas_de_la_celda(
                fuentes.get(nodo.get("cell_index"), ""))
            cuenta["bloques"] += bloques
            cuenta["preguntas"] += preguntas
        if isinstance(nodo, nodes.image):
            cuenta["figuras"] += 1
        if isinstance(nodo, nodes.raw):
            html = nodo.astext()
            cuenta["vistas"] += html.count(VISTA_WIDGET)
            # Las figuras del curso llegan como HTML (<img> o <svg> en línea).
            cuenta["figuras"] += html.count("<img") + html.count("<svg")
        if isinstance(nodo, nodes.literal_block) and se_lee:
            clases = nodo.get("classes", [])
            padre = nodo.parent
            if "output" in clases:
                cuenta["salida"] += _lineas(nodo.astext())
            elif padre is not None and "cell_input" in padre.get("classes", []):
                celda = padre.parent
                if not (celda is not None and celda.get("hide_mode") in ("all",
                                                                         "input")):
                    cuenta["codigo"] += _lineas(nodo.astext())
        if isinstance(nodo, nodes.Text):
            if en_prosa:
                cuenta["palabras"] += contar_palabras(nodo.astext())
            return
        en_prosa = en_prosa and not _fuera_de_la_prosa(nodo)
        for hijo in nodo.children:
            visitar(hijo, en_prosa, se_lee)

    visitar(doctree, True, True)
    return Contenido(
        palabras=cuenta["palabras"],
        ejercicios=cuenta["ejercicios"],
        widgets=max(0, cuenta["vistas"] - cuenta["bloques"]),
        preguntas=cuenta["preguntas"],
        figuras=cuenta["figuras"],
        lineas_codigo=cuenta["codigo"],
        lineas_salida=cuenta["salida"],
    )


def fuentes_del_notebook(ruta) -> dict[int, str]:
    """El código de cada celda de un ``.ipynb``, por su índice (vacío si no lo es)."""
    ruta = str(ruta)
    if not ruta.endswith(".ipynb"):
        return {}
    with open(ruta, encoding="utf-8") as fh:
        celdas = json.load(fh)["cells"]
    return {i: "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for i, c in enumerate(celdas) if c["cell_type"] == "code"}


# --- Sphinx ---------------------------------------------------------------------------


class tiempo_pendiente(nodes.Inline, nodes.TextElement):
    """El rol {tiempo}: se sustituye por «N min» cuando ya se leyó todo el libro."""


class camino_pendiente(nodes.General, nodes.Element):
    """La directiva ``camino-corto``: la lista de secciones con su tiempo y el total."""


def _destino(docname_actual: str, ruta: str) -> tuple[str, str]:
    """``(docname, id de sección o "")`` de ``ruta`` o ``ruta#seccion``."""
    ruta, _, seccion = ruta.strip().partition("#")
    if ruta.startswith("/"):
        return ruta.lstrip("/"), seccion
    carpeta = posixpath.dirname(docname_actual)
    return posixpath.normpath(posixpath.join(carpeta, ruta)), seccion


def _usuario(env) -> None:
    env.__dict__.setdefault("tiempo_lectura_usuarios", set()).add(env.docname)


def rol_tiempo(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    nodo = tiempo_pendiente(rawtext, "")
    nodo["destino"], nodo["seccion"] = _destino(env.docname, text)
    _usuario(env)
    return [nodo], []


def rol_regla(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [nodes.Text(regla())], []


def _directiva_camino():
    from docutils.parsers.rst import Directive

    class CaminoCorto(Directive):
        """Una sección por línea (``ruta#id``): se listan con su tiempo de lectura y
        se suman (redondeando una sola vez, como un capítulo)."""

        has_content = True

        def run(self):
            env = self.state.document.settings.env
            nodo = camino_pendiente()
            nodo["pasos"] = [_destino(env.docname, linea_)
                             for linea_ in self.content if linea_.strip()]
            _usuario(env)
            return [nodo]

    return CaminoCorto


def _datos(env) -> dict[str, dict]:
    return env.__dict__.setdefault("tiempo_lectura", {})


def al_leer(app, doctree) -> None:
    env = app.env
    docname = env.docname
    if not docname.startswith(CARPETA_CAPITULOS):
        return
    fuentes = fuentes_del_notebook(env.doc2path(docname))
    contenido = contar(doctree, fuentes)
    titulo = next(iter(doctree.findall(nodes.section)), None)
    secciones = {}
    if titulo is not None:
        for seccion in titulo.children:
            if isinstance(seccion, nodes.section) and seccion["ids"]:
                secciones[seccion["ids"][0]] = {
                    "titulo": seccion[0].astext(),
                    **asdict(contar(seccion, fuentes)),
                }
    _datos(env)[docname] = {"total": asdict(contenido), "secciones": secciones}
    if titulo is None or not titulo.children:
        return
    parrafo = nodes.paragraph("", "", nodes.emphasis(text=linea(contenido)),
                              classes=["tiempo-lectura"])
    titulo.insert(1, parrafo)


def _contenido(datos, destino: str, seccion: str) -> Contenido | None:
    capitulo = datos.get(destino)
    if capitulo is None:
        return None
    if not seccion:
        return Contenido(**capitulo["total"])
    encontrada = capitulo["secciones"].get(seccion)
    if encontrada is None:
        return None
    return Contenido(**{k: v for k, v in encontrada.items() if k != "titulo"})


def _aviso(nodo, texto: str, *args) -> None:
    from sphinx.util import logging

    logging.getLogger(__name__).warning(texto, *args, location=nodo)


def _camino(app, docname, nodo) -> list[nodes.Node]:
    datos = _datos(app.env)
    lista = nodes.bullet_list()
    total = Contenido()
    for destino, seccion in nodo["pasos"]:
        contenido = _contenido(datos, destino, seccion)
        if contenido is None or not seccion:
            _aviso(nodo, "camino-corto: no conozco la sección %r de %r", seccion,
                   destino)
            continue
        total = total + contenido
        titulo = datos[destino]["secciones"][seccion]["titulo"]
        uri = app.builder.get_relative_uri(docname, destino) + "#" + seccion
        item = nodes.paragraph()
        item += nodes.reference("", titulo, refuri=uri, internal=True)
        # Una sección se redondea al minuto; el total, a 5 min, como un capítulo.
        exactos = max(1, round(minutos_de_lectura_exactos(contenido)))
        item += nodes.Text(f" ({env_titulo(app.env, destino)}), {exactos} min")
        lista += nodes.list_item("", item)
    resumen = nodes.paragraph(
        "", f"En total, unos {minutos_de_lectura(total)} min de lectura, calculados "
        "como los de cada capítulo.", classes=["tiempo-camino"])
    return [lista, resumen]


def env_titulo(env, docname: str) -> str:
    titulo = env.titles.get(docname)
    return titulo.astext() if titulo is not None else docname


def al_resolver(app, doctree, docname) -> None:
    datos = _datos(app.env)
    for nodo in list(doctree.findall(tiempo_pendiente)):
        destino, seccion = nodo["destino"], nodo["seccion"]
        contenido = _contenido(datos, destino, seccion)
        if contenido is None:
            _aviso(nodo, "{tiempo}: no conozco %r", destino + ("#" + seccion
                                                              if seccion else ""))
            nodo.replace_self(nodes.Text("—"))
            continue
        texto = f"{minutos_de_lectura(contenido)} min"
        if contenido.ejercicios and not seccion:
            texto += f" ({minutos(contenido)} con ejercicios)"
        nodo.replace_self(nodes.Text(texto))
    for nodo in list(doctree.findall(camino_pendiente)):
        nodo.replace_self(_camino(app, docname, nodo))


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
    app.add_node(camino_pendiente)
    app.add_role("tiempo", rol_tiempo)
    app.add_role("tiempo-regla", rol_regla)
    app.add_directive("camino-corto", _directiva_camino())
    app.connect("doctree-read", al_leer)
    app.connect("doctree-resolved", al_resolver)
    app.connect("env-purge-doc", al_purgar)
    app.connect("env-merge-info", al_fusionar)
    app.connect("env-get-outdated", desactualizados)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 8}
