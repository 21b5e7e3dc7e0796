"""Cuadernos del alumno: el ``.ipynb`` de cada capítulo, generado del libro construido.

Al terminar la construcción HTML, escribe ``cuadernos/NN_nombre.ipynb`` desde el
notebook ejecutado (la caché de jupyter-cache): valores pegados con la regla de myst-nb,
referencias y citas resueltas por los dominios de Sphinx, directivas como citas o
``<details>``, soluciones plegadas; de las celdas que la página quita, solo quedan las
que definen algo que usan las siguientes (``ast``). Los botones de la página los abren.
Ninguna biblioteca lo hace: nbconvert y jupytext no resuelven roles de Sphinx. El
constructor de QuantEcon, sphinx-tojupyter (0.6.0, leída su fuente; no se probó sobre
este libro porque pide dask[distributed] y nbdime), sí escribe notebooks desde Sphinx,
pero tira todas las salidas de las celdas («TODO: Support output nodes for
pre-executed notebooks», translate_code.visit_container), que el cuaderno del alumno
lleva, y borra las soluciones en vez de plegarlas; son ≈ 3 500 líneas frente a estas.
"""

from __future__ import annotations

import ast
import base64
import copy
import hashlib
import html
import mimetypes
import json
import re
import subprocess
import textwrap
from pathlib import Path
from urllib.parse import quote, urlencode, urljoin, urlsplit

import jinja2
import nbformat
from docutils import nodes
from IPython.core.inputtransformer2 import TransformerManager  # las %magias
from jupyter_cache import get_cache
from markdown_it.renderer import RendererHTML
from myst_nb.core.variables import format_plain_text
from myst_nb.ext.glue import extract_glue_data_cell
from myst_parser.parsers.mdit import create_md_parser
from sphinx import addnodes
from sphinx.environment import CONFIG_OK
from sphinx.locale import admonitionlabels
from sphinx.util import logging
from sphinx.util.nodes import split_explicit_title

logger = logging.getLogger(__name__)

CARPETA = "cuadernos"
#: El de ipykernel (Binder, ``make lab``): con otro nombre visible, Lab lo reescribe al
#: abrir el cuaderno y lo da por modificado.
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)",
              "language": "python"}


def en_cita(titulo: str, cuerpo: str) -> str:
    """Un bloque citado con el título en negrita: lo dibuja cualquier Jupyter."""
    lineas = ([f"**{titulo}**", ""] if titulo else []) + cuerpo.splitlines()
    return "\n".join(f"> {linea}".rstrip() for linea in lineas)


def plegado(titulo: str, cuerpo: str) -> str:
    """``<details>`` cerrado; el código (`` `x` ``) de su título va en ``<code>``."""
    partes = titulo.split("`")
    if len(partes) % 2:  # comillas invertidas emparejadas
        titulo = "".join(f"<code>{html.escape(p)}</code>" if i % 2 else p
                         for i, p in enumerate(partes))
    return f"<details>\n<summary>{titulo}</summary>\n\n{cuerpo}\n\n</details>"


class Conversor:
    """Convierte el notebook ejecutado de ``docname`` en el cuaderno del alumno."""

    def __init__(self, app, docname: str):
        self.app, self.docname = app, docname
        self.md = create_md_parser(app.env.myst_config, RendererHTML)  # el de la página
        self.sustituciones = app.env.myst_config.substitutions
        self.carpeta = Path(app.env.doc2path(docname)).parent  # rutas de las imágenes
        self.pegados, self.adjuntos, self.ejercicios = {}, {}, {}
        self.mostradas: set[str] = set()  # figuras pegadas que ya muestra una salida
        numeros = app.env.toc_secnumbers.get(docname, {})  # título → «4.1»
        self.secciones = {s[0].astext(): ".".join(map(str, n))
                          for s in app.env.get_doctree(docname).findall(nodes.section)
                          if (n := numeros.get("#" + s["ids"][0]))}

    def _resolver(self, dominio: str, tipo: str, objetivo: str, titulo: str = ""):
        """Un rol resuelto por su dominio de Sphinx, como en la página; sus enlaces,
        relativos al cuaderno (``cuadernos/NN_nombre``: el documento de partida)."""
        nodo = addnodes.pending_xref(
            "", refdomain=dominio, reftype=tipo, reftarget=objetivo,
            refexplicit=bool(titulo), refdoc=self.docname, refwarn=True)
        nodo += (contenido := nodes.inline(titulo or objetivo, titulo or objetivo))
        env, desde = self.app.env, f"{CARPETA}/{Path(self.docname).name}"
        resuelto = env.get_domain(dominio).resolve_xref(
            env, desde, self.app.builder, tipo, objetivo, nodo, contenido)
        if resuelto is None:
            logger.warning("cuadernos: sin resolver %s:%s %r", dominio, tipo, objetivo)
        return resuelto

    def numero(self, etiqueta: str, formato: str) -> str:
        """«Figura 4.1», «Ejercicio 4.2»: el número de un objeto numerado."""
        resuelto = self._resolver("std", "numref", etiqueta.lower(), formato)
        return formato.replace(" %s", "") if resuelto is None else resuelto.astext()

    def a_markdown(self, nodo) -> str:
        """Un nodo resuelto (texto, cursiva, negrita, enlaces) en Markdown."""
        if isinstance(nodo, nodes.Text):
            return str(nodo)
        dentro = "".join(self.a_markdown(hijo) for hijo in nodo.children)
        if isinstance(nodo, nodes.reference):
            return f"[{dentro}]({self.enlace(nodo['refuri'])})"
        if isinstance(nodo, nodes.emphasis):
            return f"*{dentro}*"
        return f"**{dentro}**" if isinstance(nodo, nodes.strong) else dentro

    def enlace(self, href: str) -> str:
        """Con ``html_baseurl``, el enlace (relativo a ``cuadernos/``) es absoluto."""
        base = self.app.config.html_baseurl
        return urljoin(f"{base.rstrip('/')}/{CARPETA}/", href) if base else href

    def markdown(self, fuente: str) -> str:
        """MyST → Markdown: cambia los bloques con roles o directivas, no el resto."""
        lineas = fuente.splitlines(keepends=True)
        tokens = self.md.parse(fuente)
        for previo, token in zip([None, *tokens], tokens):
            if not token.map:  # los que cierran un bloque
                continue
            # El término de una lista de definiciones trae un rango vacío: su línea.
            inicio, fin = token.map[0], max(token.map[1], token.map[0] + 1)
            if token.type in ("fence", "colon_fence") and token.info.startswith("{"):
                nuevo = self.directiva(token.info, token.content) + "\n"
            elif token.type in ("inline", "substitution_block"):
                trozo = "".join(lineas[inicio:fin])
                nuevo = self._roles(trozo, token.children or [token])
                if previo and previo.type == "heading_open" and previo.tag != "h1":
                    # «## Título» → «## 4.1. Título», como en la página
                    titulo = "".join(hijo.content for hijo in token.children)
                    numero = self.secciones.get(titulo)  # el texto, como en Sphinx
                    nuevo = nuevo.replace(" ", f" {numero}. ", 1) if numero else nuevo
            else:
                continue
            lineas[inicio:fin] = [nuevo] + [""] * (fin - inicio - 1)
        return "".join(lineas)

    def _roles(self, texto: str, hijos) -> str:
        """Los roles y ``{{ sustituciones }}`` que ve markdown-it (no los de código)."""
        for hijo in hijos:
            if hijo.type == "myst_role":
                nombre = hijo.meta["name"]
                patron = re.escape(f"{{{nombre}}}") + "(`+)" + re.escape(hijo.content)
                texto = re.sub(patron + r"\1",
                               lambda _: self.rol(nombre, hijo.content), texto)
            elif hijo.type.startswith("substitution"):
                expresion = hijo.content.strip()
                valor = self.sustitucion(expresion)
                texto = re.sub(r"\{\{\s*" + re.escape(expresion) + r"\s*\}\}",
                               lambda _: valor, texto)
        return texto

    def sustitucion(self, expresion: str) -> str:
        """``{{ expresion }}`` como lo escribe myst-parser: un nombre de
        ``myst_substitutions`` o una expresión de Jinja2 con ellos
        (``'[…]({})'.format(paso8_url)``); su Markdown queda tal cual."""
        if expresion in self.sustituciones:
            return str(self.sustituciones[expresion])
        try:
            entorno = jinja2.Environment(undefined=jinja2.StrictUndefined)
            return entorno.from_string(f"{{{{{expresion}}}}}").render(
                self.sustituciones)
        except jinja2.TemplateError as error:
            logger.warning("cuadernos: sustitución %r: %s", expresion, error)
            return expresion

    def rol(self, nombre: str, contenido: str) -> str:
        """Lo que escribe la página en lugar de ``{nombre}`contenido```."""
        explicito, titulo, objetivo = split_explicit_title(contenido)
        if nombre.startswith("glue"):  # clave:formato, con la regla de myst-nb
            clave, formato = (contenido.rsplit(":", 1) + ["s"])[:2]
            if clave in self.pegados:
                texto = self.pegados[clave].get("text/plain", "")
                return format_plain_text(texto, formato)
            logger.warning("cuadernos: no hay valor pegado %r", clave)
            return contenido
        if nombre.startswith("cite"):
            tipo = nombre.partition(":")[2] or "p"
            return self.a_markdown(self._resolver("cite", tipo, contenido))
        if nombre in ("numref", "ref", "doc", "eq"):
            objetivo = objetivo.lower() if nombre in ("ref", "numref") else objetivo
            resuelto = self._resolver("math" if nombre == "eq" else "std", nombre,
                                      objetivo, titulo if explicito else "")
            return titulo if resuelto is None else self.a_markdown(resuelto)
        if nombre not in ("term", "math"):
            logger.warning("cuadernos: rol sin convertir {%s}", nombre)
        return f"${contenido}$" if nombre == "math" else titulo  # {term}: sin enlace

    def directiva(self, info: str, contenido: str) -> str:
        """``{nombre} arg``, ``:opción: valor`` y cuerpo → lo que dibuja Jupyter."""
        nombre, _, arg = (x.strip() for x in info.strip()[1:].partition("}"))
        lineas, opciones = contenido.splitlines(), {}
        while lineas and re.match(r":[\w-]+:", lineas[0]):
            clave, _, valor = lineas.pop(0)[1:].partition(":")
            opciones[clave] = valor.strip()
        cuerpo = self.markdown("\n".join(lineas).strip()).strip()
        if nombre in ("figure", "glue:figure"):
            return self.figura(nombre, arg, opciones, cuerpo)
        if nombre == "exercise":
            etiqueta = opciones.get("label", "")
            titulo = self.numero(etiqueta, "Ejercicio %s") if etiqueta else "Ejercicio"
            titulo += f" ({arg})" if arg else ""
            self.ejercicios[etiqueta] = titulo
            return en_cita(titulo, cuerpo)
        if nombre == "solution-start":  # el título del <details> (plegar_soluciones)
            return f"Solución del {self.ejercicios.get(arg, 'Ejercicio')}"
        if nombre == "solution-end":
            return ""
        titulo = arg or str(admonitionlabels.get(nombre, ""))
        if nombre == "dropdown" or "dropdown" in opciones.get("class", "").split():
            return plegado(titulo or "Más", cuerpo)
        if nombre not in admonitionlabels and nombre not in ("admonition", "card"):
            logger.warning("cuadernos: directiva sin convertir {%s}", nombre)
        return en_cita(titulo, cuerpo)

    def figura(self, nombre: str, arg: str, opciones: dict, pie: str) -> str:
        partes = []
        if nombre == "figure":
            ruta = self.carpeta / arg
            mime = mimetypes.guess_type(ruta.name)[0] or "image/png"
            datos = base64.b64encode(ruta.read_bytes()).decode()
            alt = opciones.get("alt", "")
            partes.append(self._adjunto(ruta.name, mime, datos, alt))
        elif arg not in self.mostradas and (img := self.imagen_pegada(arg)):
            mime, datos, alt, _ = img
            nombre_img = arg + (mimetypes.guess_extension(mime) or ".png")
            partes.append(self._adjunto(nombre_img, mime, datos, alt))
        if opciones.get("name"):
            pie = f"**{self.numero(opciones['name'], 'Figura %s')}** — {pie}"
        return "\n\n".join(partes + [pie] if pie else partes)

    def imagen_pegada(self, clave: str) -> tuple[str, str, str, dict] | None:
        """(mime, base64, texto alternativo, tamaño) del ``<img>`` de glue_figure."""
        bundle = self.pegados.get(clave, {})
        img = re.search(r'<img[^>]*\ssrc="data:([^;"]+);base64,([^"]+)"[^>]*>',
                        str(bundle.get("text/html", "")))
        if img is None:
            logger.warning("cuadernos: la figura pegada %r no tiene imagen", clave)
            return None
        tamaño = {k: int(v) for k, v in re.findall(r'\s(width|height)="(\d+)"', img[0])}
        alt = str(bundle.get("text/plain", "")).strip("'\"")
        return img[1], img[2], alt, tamaño

    def con_sus_figuras(self, celda, claves):
        """La celda que dibuja una figura pegada la muestra en su salida (y el pie ya
        no): al ejecutarla, la figura nueva la sustituye, no sale dos veces."""
        for clave in claves:
            if not any(map(es_imagen, celda.outputs)) and (
                    img := self.imagen_pegada(clave)):
                mime, datos, alt, tamaño = img
                celda.outputs.append(nbformat.v4.new_output(
                    "display_data", data={mime: datos, "text/plain": alt},
                    metadata={mime: tamaño} if tamaño else {}))
            self.mostradas.add(clave)
        return celda

    def _adjunto(self, nombre: str, mime: str, datos: str, alt: str) -> str:
        """Imagen adjunta; un SVG, en ``data:`` (Lab no dibuja SVG adjuntos)."""
        alt = " ".join(alt.replace("[", "(").replace("]", ")").split())
        if mime == "image/svg+xml":
            return f"![{alt}](data:{mime};base64,{datos})"
        self.adjuntos[nombre] = {mime: datos}
        return f"![{alt}](attachment:{nombre})"

    def cuaderno(self, nb) -> nbformat.NotebookNode:
        """El notebook ejecutado → el cuaderno del alumno (una copia)."""
        nb = copy.deepcopy(nb)
        figuras = figuras_pegadas(nb.cells)  # antes de quitar los glue_figure
        claves = []  # las de lo que pega cada celda (se quita de sus salidas)
        for celda in nb.cells:
            pegados = {clave: s.data for clave, s in extract_glue_data_cell(celda)}
            self.pegados |= pegados
            claves.append(set(pegados))
            if destino_de(celda) == "fuera":  # puede quedarse como apoyo
                celda.source = sin_pegado(celda.source)
        marcar_soluciones(nb.cells)
        destinos, faltan = destinos_de(nb.cells)
        dibujan = celdas_que_dibujan(nb.cells, destinos, figuras)
        celdas, imagen = [], False  # imagen: ya la muestra una salida que se queda
        for i, (celda, destino) in enumerate(zip(nb.cells, destinos)):
            if celda.cell_type != "code":
                imagen = False
            elif destino != "fuera":
                imagen |= any(map(es_imagen, celda.outputs))
            if imagen:
                self.mostradas |= claves[i]
            if destino == "fuera":
                continue
            if celda.cell_type != "markdown":
                celda = preparar_codigo(celda, destino, faltan.get(i))
                celdas.append(self.con_sus_figuras(celda, dibujan.get(i, [])))
            else:
                self.adjuntos = {}
                celda.source = self.markdown(celda.source).strip()
                if self.adjuntos:
                    celda["attachments"] = self.adjuntos
                if celda.source:
                    celdas.append(celda)
        nb.cells = plegar_soluciones(celdas)
        nb.metadata.pop("mystnb", None)
        nb.metadata["kernelspec"] = KERNELSPEC
        return nb


# --- Las soluciones: Markdown plegado, que «Run All» nunca ejecuta --------------------

#: Lo que lleva cada celda entre ``solution-start`` y ``solution-end`` (su número).
TRAMO = "cuadernos_solucion"
COMO_CARGAR = ("Para ejecutarla, copia el código en una celda de código nueva (o en la "
               "del ejercicio, en lugar del tuyo) y ejecuta esa celda.")


def marcar_soluciones(celdas) -> None:
    """Anota en cada celda de una solución, de ``solution-start`` a ``solution-end``
    (las dos incluidas), el número de esa solución."""
    tramo, dentro = -1, False
    for celda in celdas:
        markdown = celda.cell_type == "markdown"
        if markdown and "{solution-start}" in celda.source:
            tramo, dentro = tramo + 1, True
        if dentro:
            celda.metadata[TRAMO] = tramo
        if markdown and "{solution-end}" in celda.source:
            dentro = False


def bloque_de_codigo(codigo: str) -> str:
    """Un bloque de código Python de Markdown, con más comillas que las del código."""
    largo = max([3, *(len(m) + 1 for m in re.findall(r"`{3,}", codigo))])
    return f"{'`' * largo}python\n{codigo.strip()}\n{'`' * largo}"


def plegar_soluciones(celdas) -> list:
    """Cada solución, en una sola celda de Markdown: un ``<details>`` cerrado con su
    código como bloque (no como celda: «Run All» no lo ejecuta ni redefine las
    funciones de quien aprende) y su explicación. Una celda oculta de apoyo (la usa una
    de abajo) sigue siendo código, después."""
    salida, partes = [], {}
    for celda in celdas:
        tramo = celda.metadata.pop(TRAMO, None)
        if tramo is None:
            salida.append(celda)
        elif celda.cell_type == "code" and "solucion" not in celda.metadata.get(
                "tags", []) and celda.metadata.get("jupyter", {}).get("source_hidden"):
            salida.append(celda)  # apoyo
        else:
            if tramo not in partes:
                partes[tramo] = []
                # Su id, de la primera celda del tramo (nbformat daría uno al azar:
                # cada conversión cambiaba los bytes del cuaderno y lo reescribía).
                nueva = nbformat.v4.new_markdown_cell(
                    metadata={"tags": ["solucion"], TRAMO: tramo})
                if celda.get("id"):
                    nueva.id = f"solucion-{celda.id}"
                salida.append(nueva)
            partes[tramo].append(celda)
    for celda in salida:
        if (tramo := celda.metadata.pop(TRAMO, None)) is None:
            continue
        titulo, *cuerpo = partes[tramo]
        textos = [bloque_de_codigo(c.source) if c.cell_type == "code" else c.source
                  for c in cuerpo]
        if any(c.cell_type == "code" for c in cuerpo):
            textos.insert(0, COMO_CARGAR)
        celda.source = plegado(titulo.source, "\n\n".join(textos))
        adjuntos = [c.attachments for c in cuerpo if c.get("attachments")]
        if adjuntos:
            celda.attachments = {k: v for a in adjuntos for k, v in a.items()}
    return salida


def _sentencias(codigo: str) -> list[ast.stmt]:
    try:
        return ast.parse(TransformerManager().transform_cell(codigo)).body
    except SyntaxError:
        return []


def nombres(codigo: str | ast.stmt) -> tuple[set[str], set[str]]:
    """(nombres que define, nombres que lee) una celda de código o una sentencia."""
    if isinstance(codigo, str):
        codigo = ast.Module(body=_sentencias(codigo), type_ignores=[])
    define, lee, ligados = set(), set(), set()
    for nodo in ast.walk(codigo):
        # Variables de un bucle, una comprensión o «with … as», y argumentos: se leen
        # después de ligarlas, dentro de la misma sentencia.
        if isinstance(nodo, (ast.For, ast.comprehension, ast.withitem)):
            objetivo = getattr(nodo, "target", None) or nodo.optional_vars
            if objetivo is not None:
                ligados |= {n.id for n in ast.walk(objetivo) if isinstance(n, ast.Name)}
        elif isinstance(nodo, ast.arg):
            ligados.add(nodo.arg)
        if isinstance(nodo, ast.Name):
            (lee if isinstance(nodo.ctx, ast.Load) else define).add(nodo.id)
        elif isinstance(nodo, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            define.add(nodo.name)
        elif isinstance(nodo, (ast.Import, ast.ImportFrom)):
            define |= {(a.asname or a.name).split(".")[0] for a in nodo.names}
        elif isinstance(nodo, ast.AugAssign) and isinstance(nodo.target, ast.Name):
            lee.add(nodo.target.id)  # x += 1 lee x antes de escribirla
    return define, lee - ligados


def _solo_pega(sentencia) -> bool:
    """¿Solo pega (``glue_*(…)``, un bucle de ellas o su ``import``)?"""
    if isinstance(sentencia, ast.For):
        return all(map(_solo_pega, sentencia.body)) and not sentencia.orelse
    if isinstance(sentencia, ast.ImportFrom):
        return all(alias.name.startswith("glue") for alias in sentencia.names)
    return isinstance(sentencia, ast.Expr) and ast.unparse(sentencia).startswith("glue")


def sin_pegado(codigo: str) -> str:
    """El código sin lo que solo pega: en el cuaderno no hay prosa a la que pegar."""
    quitar = {i for s in _sentencias(codigo) if _solo_pega(s)
              for i in range(s.lineno - 1, s.end_lineno)}
    lineas = codigo.splitlines()
    return "\n".join(x for i, x in enumerate(lineas) if i not in quitar).strip()


def destino_de(celda) -> str:
    """visible, plegada (código oculto), solucion, o fuera (la página la quita)."""
    tags = set(celda.metadata.get("tags", []))
    if celda.cell_type != "code" or "google.colab" in celda.source:  # instala resnorm
        return "visible"
    if "remove-cell" in tags:
        return "fuera"
    if "solucion" in tags:
        return "solucion"
    if tags & {"remove-input", "hide-input", "hide-cell"}:
        # Plegada sin nada que mostrar sería una celda vacía: fuera (o apoyo).
        return "plegada" if salidas_que_quedan(celda) else "fuera"
    return "visible"


def figuras_pegadas(celdas) -> list[tuple[int, str, str]]:
    """(celda, clave, variable) de cada ``glue_figure("clave", variable, …)``."""
    out = []
    for i, celda in enumerate(celdas):
        if celda.cell_type != "code":
            continue
        for nodo in ast.walk(ast.Module(body=_sentencias(celda.source),
                                        type_ignores=[])):
            if (isinstance(nodo, ast.Call) and isinstance(nodo.func, ast.Name)
                    and nodo.func.id == "glue_figure" and len(nodo.args) >= 2
                    and isinstance(nodo.args[0], ast.Constant)
                    and isinstance(nodo.args[1], ast.Name)):
                out.append((i, str(nodo.args[0].value), nodo.args[1].id))
    return out


def celdas_que_dibujan(celdas, destinos, figuras) -> dict[int, list[str]]:
    """La celda de código que se queda y dibujó cada figura pegada: la última antes
    del ``glue_figure`` que define su variable (índice → claves)."""
    out: dict[int, list[str]] = {}
    for i, clave, variable in figuras:
        antes = [j for j in range(i) if celdas[j].cell_type == "code"
                 and variable in nombres(celdas[j].source)[0]]
        if antes and destinos[antes[-1]] in ("visible", "plegada", "apoyo"):
            out.setdefault(antes[-1], []).append(clave)
    return out


def destinos_de(celdas) -> tuple[list[str], dict[int, set[str]]]:
    """Cada destino y, de las quitadas que hacen falta («apoyo»), lo que se lee."""
    destinos = [destino_de(c) for c in celdas]
    faltan: dict[int, set[str]] = {}
    hace_falta: set[str] = set()
    for i in reversed(range(len(celdas))):
        if celdas[i].cell_type != "code":
            continue
        if destinos[i] == "fuera":
            if not (usados := nombres(celdas[i].source)[0] & hace_falta):
                continue
            destinos[i], faltan[i] = "apoyo", usados
        for sentencia in reversed(_sentencias(celdas[i].source)):
            define, lee = nombres(sentencia)
            hace_falta = (hace_falta - define) | lee
    return destinos, faltan


def es_imagen(salida) -> bool:
    datos = salida.get("data", {})
    return any(m.startswith("image/") for m in datos) or "<img" in datos.get(
        "text/html", "")


def salidas_que_quedan(celda) -> list:
    """Las salidas del cuaderno: con ``remove-output`` (la página las quita), solo
    las figuras."""
    salidas = celda.get("outputs", [])
    if "remove-output" in celda.metadata.get("tags", []):
        return [s for s in salidas if es_imagen(s)]
    return salidas


def preparar_codigo(celda, destino: str, usados=None):
    """Salidas sin números de ejecución ni texto de widget; plegada si hace falta."""
    salidas = salidas_que_quedan(celda)
    tags = celda.metadata.pop("tags", [])
    celda.outputs, celda.execution_count = [], None
    for salida in salidas:
        previa = celda.outputs[-1] if celda.outputs else {}
        if "name" in salida and previa.get("name") == salida.name:
            previa.text += salida.text  # stdout (o stderr) en una: nb_merge_streams
            continue
        celda.outputs.append(salida)
        if "execution_count" in salida:
            salida.execution_count = None
        if "application/vnd.jupyter.widget-view+json" in salida.get("data", {}):
            texto = salida.data.get("text/plain", "")
            salida.data["text/plain"] = aviso_de_widget(texto)
    if tags := [t for t in tags if not t.startswith(("remove-", "hide-"))]:
        celda.metadata["tags"] = tags
    if destino in ("plegada", "apoyo", "solucion"):
        celda.metadata["jupyter"] = {"source_hidden": True}
    if destino == "solucion":
        celda.metadata["jupyter"]["outputs_hidden"] = True
    if destino == "apoyo":
        celda.source = f"{comentario_de_apoyo(usados)}\n{celda.source}"
        celda.outputs = []
    return celda


def aviso_de_widget(texto: str) -> str:
    """Lo que muestra Jupyter de un widget sin núcleo, no ``<resnorm.quiz.Quiz …>``."""
    if ".quiz." in texto:
        return "Pregunta de autoevaluación: ejecuta la celda para responderla."
    clase = texto.split(" object at ")[0].rsplit(".", 1)[-1].strip("<>")
    return f"Widget interactivo {clase}: ejecuta la celda para usarlo."


def comentario_de_apoyo(usados) -> str:
    """Una línea: por qué sigue aquí una celda que la página no muestra."""
    *otros, ultimo = sorted(usados)
    lista = f"{', '.join(otros)} y {ultimo}" if otros else ultimo
    linea = (f"# Oculta en la página; aquí hace falta: define {lista}, que se "
             f"usa{'n' if otros else ''} abajo.")
    if len(linea) > 88:
        return "# Oculta en la página; aquí hace falta: define lo que se usa abajo."
    return linea


# --- De qué commit sale la construcción (tools/publish.py lo comprueba) ---------------

#: Al lado de la salida HTML (_build/construccion.json): no se publica.
SELLO = "construccion.json"


def fuente_de(raiz: Path) -> tuple[str | None, bool]:
    """(commit de HEAD, si el árbol de trabajo está limpio); sin git (una copia del
    libro fuera del repositorio), (None, False)."""
    def git(*args):
        return subprocess.run(["git", "-C", str(raiz), *args], capture_output=True,
                              text=True, check=True).stdout.strip()
    try:
        return git("rev-parse", "HEAD"), not git("status", "--porcelain")
    except (OSError, subprocess.CalledProcessError):
        return None, False


#: Lo que importa torch al cargarse: torch mismo y los módulos de resnorm que lo
#: necesitan (tests/test_wheel.py, NEEDS_TORCH; el GPT de la página, GPTPlayground).
CON_TORCH = re.compile(
    r"^\s*(?:import torch\b|from torch\b|(?:from|import) resnorm\.(?:blocks|experiments"
    r"|gpt)\b|from resnorm\.widgets import .*\bGPTPlayground\b)", re.M)

#: Lo que dice la primera celda si falta torch, antes de que empiece la lección (un
#: hub o un Jupyter propio sin él). torch no es una dependencia de resnorm: Colab y
#: Binder ya lo traen, y pedirlo a pip traería la versión para GPU, de varios GB.
SIN_TORCH = (
    "Este capítulo necesita PyTorch y este Jupyter no lo tiene. Instala la versión "
    "para CPU (basta; la de GPU ocupa varios GB) en una celda nueva con «%pip install "
    "torch --index-url https://download.pytorch.org/whl/cpu», reinicia el núcleo y "
    "vuelve a ejecutar el cuaderno desde el principio."
)


def necesita_torch(cuaderno) -> bool:
    """¿Alguna celda de código del capítulo importa torch, o algo de resnorm que lo
    importa?"""
    return any(celda.cell_type == "code" and CON_TORCH.search(celda.source)
               for celda in cuaderno.cells)


def celda_de_instalacion(repositorio: str, ref: str, torch: bool = False) -> str:
    """La primera celda del cuaderno del alumno: instala resnorm donde falta (Colab,
    un hub, un Jupyter cualquiera) desde el mismo commit que el cuaderno; con
    ``torch``, comprueba que está PyTorch y, si no, para con un mensaje en español
    que dice cómo instalarlo."""
    celda = (
        "# Si falta resnorm, el paquete del curso (en Colab, en un hub…), lo instala\n"
        "# en la versión de este notebook. En Binder y con «make lab» ya está.\n"
        "import importlib.util\n"
        "\n"
        'if importlib.util.find_spec("resnorm") is None:\n'
        f'    repositorio = "{repositorio}"\n'
        f'    version = "{ref}"\n'
        '    %pip install --quiet "resnorm @ git+{repositorio}@{version}"'
    )
    if torch:
        partes = textwrap.wrap(SIN_TORCH, 72, break_on_hyphens=False)
        mensaje = "".join(f'        "{p} "\n' for p in partes[:-1]) + (
            f'        "{partes[-1]}"')
        celda += (
            "\n\n# Este capítulo calcula con PyTorch (gradientes, entrenamientos).\n"
            'if importlib.util.find_spec("torch") is None:\n'
            "    raise ModuleNotFoundError(\n"
            f"{mensaje}\n"
            "    )"
        )
    return celda


def instalar_desde(cuaderno, repositorio: str, ref: str) -> None:
    """Cambia la celda de Colab de la fuente («google.colab») por la de instalación."""
    torch = necesita_torch(cuaderno)
    for celda in cuaderno.cells:
        if celda.cell_type == "code" and "google.colab" in celda.source:
            celda.source = celda_de_instalacion(repositorio, ref, torch)
            return


def borrar_sello(app) -> None:
    """builder-inited: una construcción a medias no deja el sello de la anterior."""
    if app.builder.name == "html":
        (Path(app.outdir).parent / SELLO).unlink(missing_ok=True)


def escribir_si_cambia(destino: Path, texto: str) -> bool:
    """Escribe ``texto`` en ``destino`` solo si no lo tiene ya (devuelve si escribió):
    una construcción sin cambios deja el archivo, y su fecha, como estaban (quien lo
    sirve o lo copia ve que no cambió)."""
    datos = texto.encode("utf-8")
    try:
        if destino.read_bytes() == datos:
            return False
    except FileNotFoundError:
        pass
    destino.write_bytes(datos)
    return True


#: En la carpeta del entorno de Sphinx (se va con él): de qué salieron los cuadernos
#: de la última construcción y la huella de cada uno.
HUELLAS = "cuadernos-huellas.json"


def _huella(datos: bytes) -> str:
    return hashlib.sha256(datos).hexdigest()


def _contar_leidos(app, env, docnames) -> None:
    """env-before-read-docs: cuántos documentos relee esta construcción."""
    app._cuadernos_leidos = getattr(app, "_cuadernos_leidos", 0) + len(docnames)


def al_dia(anterior: dict, entrada: str, carpeta: Path, nombres) -> bool:
    """¿Los cuadernos de ``carpeta`` son los que salieron de ``entrada``, sin tocar?"""
    salidas = anterior.get("salidas", {})
    return anterior.get("entrada") == entrada and set(salidas) == set(nombres) and all(
        (carpeta / n).is_file() and _huella((carpeta / n).read_bytes()) == salidas[n]
        for n in nombres)


def escribir_cuadernos(app, exception) -> None:
    """build-finished, solo con ``html``: en ``singlehtml`` fallan los números.

    Convertir es lo más caro de una construcción sin cambios (resolver cada referencia
    de doce capítulos): si Sphinx no releyó ningún documento ni cambió su
    configuración, y ni los notebooks ejecutados, ni este código, ni el commit son
    otros, los cuadernos de la construcción anterior siguen valiendo (si nadie los
    tocó) y no se convierten. Si se convierten, cada uno se escribe solo si cambian
    sus bytes."""
    if exception is not None or app.builder.name != "html":
        return
    cache = get_cache(str(Path(app.srcdir) / app.config.nb_execution_cache_path))
    carpeta = Path(app.outdir) / CARPETA
    carpeta.mkdir(exist_ok=True)
    commit, limpio = fuente_de(Path(app.srcdir))
    opciones = app.config.html_theme_options
    repositorio = opciones.get("repository_url", "")
    ref = commit or opciones.get("repository_branch", "main")
    # nombre → (docname, notebook fuente, de dónde salió). El notebook ejecutado (la
    # fuente con las salidas de la caché: leerlo y fusionarlo es lo caro) solo se pide
    # si hay que convertir.
    ejecutados = {}
    for docname in sorted(app.env.found_docs):
        if (fuente := Path(app.env.doc2path(docname))).suffix != ".ipynb":
            continue
        notebook = nbformat.read(fuente, 4)
        try:  # el registro de la ejecución de este notebook
            registro = cache.match_cache_notebook(notebook)
        except KeyError:
            logger.warning("cuadernos: %s no está en %s", fuente.name, cache.path)
            continue
        origen = [registro.pk, registro.hashkey, registro.created.isoformat(),
                  _huella(fuente.read_bytes())]
        ejecutados[fuente.name] = (docname, notebook, origen)
    entrada = _huella(json.dumps({
        "codigo": _huella(Path(__file__).read_bytes()), "ref": ref,
        "repositorio": repositorio, "base": app.config.html_baseurl,
        "notebooks": {n: origen for n, (_, _, origen) in ejecutados.items()},
    }, sort_keys=True).encode())
    huellas = Path(app.doctreedir) / HUELLAS
    try:
        anterior = json.loads(huellas.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        anterior = {}
    releidos = getattr(app, "_cuadernos_leidos", 0)
    if (releidos or app.env.config_status != CONFIG_OK
            or not al_dia(anterior, entrada, carpeta, ejecutados)):
        huellas.unlink(missing_ok=True)  # si algo falla a medias, la próxima convierte
        salidas = {}
        for nombre, (docname, notebook, _) in ejecutados.items():
            # el notebook tal como lo ejecutó la construcción
            _, ejecutado = cache.merge_match_into_notebook(notebook)
            cuaderno = Conversor(app, docname).cuaderno(ejecutado)
            if repositorio:
                instalar_desde(cuaderno, repositorio, ref)
            nbformat.validate(cuaderno)
            texto = nbformat.writes(cuaderno)  # como nbformat.write: con «\n» al final
            texto = texto if texto.endswith("\n") else texto + "\n"
            escribir_si_cambia(carpeta / nombre, texto)
            salidas[nombre] = _huella(texto.encode("utf-8"))
        huellas.write_text(json.dumps({"entrada": entrada, "salidas": salidas}),
                           encoding="utf-8")
    sello = {"fuente": commit, "limpio": limpio, "repositorio": repositorio,
             "rama_cuadernos": app.config.cuadernos_rama, "cuadernos": list(ejecutados)}
    (Path(app.outdir).parent / SELLO).write_text(json.dumps(sello, indent=1) + "\n")


def urls_de_lanzamiento(nombre: str, repositorio: str, rama: str,
                        lanzar: dict) -> dict[str, str]:
    """Binder, Colab y JupyterHub abren ``nombre`` de la rama ``rama``. Binder
    construye esa misma rama: «make publish» pone en ella el entorno (.binder/) y el
    commit del que sale resnorm (tools/publish.py); el hub la trae con nbgitpuller."""
    org, repo = urlsplit(repositorio).path.strip("/").split("/")[:2]
    tirar = urlencode({"repo": repositorio, "branch": rama,
                       "urlpath": f"lab/tree/{repo}/{nombre}"}, safe="/")
    binder, colab, hub = ((lanzar.get(f"{s}_url") or "").rstrip("/")
                          for s in ("binderhub", "colab", "jupyterhub"))
    urls = {"Binder": binder and (f"{binder}/v2/gh/{org}/{repo}/{rama}"
                                  f"?urlpath={quote(f'lab/tree/{nombre}', safe='')}"),
            "Colab": colab and f"{colab}/github/{org}/{repo}/blob/{rama}/{nombre}",
            "JupyterHub": hub and f"{hub}/hub/user-redirect/git-pull?{tirar}"}
    return {servicio: url for servicio, url in urls.items() if url}


def _botones(app, pagename, templatename, context, doctree) -> None:
    """html-page-context, después del tema: los botones abren el cuaderno."""
    if (fuente := Path(app.env.doc2path(pagename))).suffix != ".ipynb":
        return
    nombre = fuente.name
    opciones = app.config.html_theme_options
    urls = urls_de_lanzamiento(
        nombre, opciones["repository_url"], app.config.cuadernos_rama,
        opciones.get("launch_buttons", {}),
    ) if opciones.get("repository_url") else {}
    for grupo in context.get("header_buttons", []):
        for boton in [grupo, *grupo.get("buttons", [])]:  # un menú y sus botones
            if boton.get("label") == "download-source-button":
                boton["url"] = context["pathto"](f"{CARPETA}/{nombre}", 1)
                boton["tooltip"] = "Descargar el cuaderno del capítulo"
            elif boton.get("text") in urls:
                boton["url"] = urls[boton["text"]]


def setup(app):
    app.add_config_value("cuadernos_rama", "cuadernos", "html")
    app.connect("builder-inited", borrar_sello)
    app.connect("env-before-read-docs", _contar_leidos)
    app.connect("build-finished", escribir_cuadernos)
    app.connect("html-page-context", _botones, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
