"""Cuadernos del alumno: el ``.ipynb`` de cada capítulo, generado del libro construido.

Quien aprende no abre la fuente MyST (roles ``{glue:text}``, directivas ``:::{…}``,
soluciones a la vista), sino un cuaderno que se lee como la página, como hace d2l con
sus cuadernos de Colab. Al terminar la construcción HTML (``build-finished``) se
escribe uno por capítulo en ``_build/html/cuadernos/NN_nombre.ipynb``, a partir de:

- el notebook ejecutado (la caché de jupyter-cache que lee myst-nb): sus salidas van
  incluidas, y los valores pegados (``glue``) se formatean con la regla de myst-nb;
- el entorno de Sphinx, que resuelve figuras, secciones, ejercicios y citas con el
  mismo código que la página (``resolve_xref`` de cada dominio).

Las directivas pasan a lo que dibuja cualquier Jupyter: avisos y enunciados, cita con
título en negrita; pistas y desplegables, ``<details>`` plegado. Las soluciones quedan
plegadas (``jupyter.source_hidden`` y ``outputs_hidden``). Las celdas que la página
quita se quitan, salvo las que definen algo que usan las celdas siguientes (``ast``):
esas quedan plegadas, con un comentario que lo dice.

Los botones de la página (descarga ``.ipynb``, Binder, Colab, JupyterHub) apuntan a
estos cuadernos; ``cuadernos_rama`` (``_config.yml``) es la rama del repositorio que
la publicación llena con ``_build/html/cuadernos`` (ver README, «Publicar y lanzar»).
Ninguna biblioteca lo hace: nbconvert y jupytext no resuelven roles de Sphinx, y
d2l-book trabaja con su propio formato.
"""

from __future__ import annotations

import ast
import base64
import copy
import html
import mimetypes
import posixpath
import re
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

import nbformat
from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging
from sphinx.util.nodes import split_explicit_title

logger = logging.getLogger(__name__)

CARPETA = "cuadernos"
EXTENSIONES_MYST = ("colon_fence", "dollarmath", "amsmath", "substitution", "deflist")
ADMONICIONES = {
    "note": "Nota", "tip": "Consejo", "hint": "Pista", "important": "Importante",
    "warning": "Aviso", "caution": "Precaución", "attention": "Atención",
    "danger": "Peligro", "error": "Error", "seealso": "Ver también",
}
PLEGADAS = {"dropdown", "solution", "toggle"}
TAGS_QUITADOS = {"remove-cell", "remove-input", "remove-output", "hide-input",
                 "hide-output", "hide-cell"}
COLAB = "google.colab"
WIDGET = "application/vnd.jupyter.widget-view+json"


# --- Markdown -------------------------------------------------------------------------


@lru_cache(maxsize=4)
def _parser(extensiones: tuple[str, ...] = EXTENSIONES_MYST):
    """El analizador de MyST (markdown-it) con las extensiones del libro."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = MdParserConfig(enable_extensions=set(extensiones))
    return create_md_parser(config, RendererHTML)


def partir_directiva(info: str, contenido: str) -> tuple[str, str, dict, str]:
    """``{nombre} argumento`` + cuerpo → (nombre, argumento, opciones, cuerpo)."""
    nombre, _, argumento = info.strip()[1:].partition("}")
    lineas = contenido.splitlines()
    opciones: dict[str, str] = {}
    if lineas and lineas[0].strip() == "---":  # opciones en YAML
        import yaml

        fin = lineas.index("---", 1)
        opciones = yaml.safe_load("\n".join(lineas[1:fin])) or {}
        opciones = {clave: str(valor) for clave, valor in opciones.items()}
        lineas = lineas[fin + 1:]
    while lineas and lineas[0].startswith(":") and lineas[0].count(":") >= 2:
        clave, _, valor = lineas.pop(0)[1:].partition(":")
        opciones[clave.strip()] = valor.strip()
    return nombre.strip(), argumento.strip(), opciones, "\n".join(lineas).strip()


def en_cita(titulo: str, cuerpo: str) -> str:
    """Un bloque citado con el título en negrita: lo dibuja cualquier Jupyter."""
    lineas = ([f"**{titulo}**", ""] if titulo else []) + cuerpo.splitlines()
    return "\n".join(f"> {linea}".rstrip() for linea in lineas)


def plegado(titulo: str, cuerpo: str) -> str:
    """Un bloque ``<details>`` cerrado: se abre al pulsar el título. El título va en
    HTML, donde el Markdown no se lee: su código (`` `x` ``) pasa a ``<code>``."""
    partes = titulo.split("`")
    if len(partes) % 2:  # comillas invertidas emparejadas
        titulo = "".join(f"<code>{html.escape(p)}</code>" if i % 2 else p
                         for i, p in enumerate(partes))
    return f"<details>\n<summary>{titulo}</summary>\n\n{cuerpo}\n\n</details>"


class _Imagen(HTMLParser):
    """El ``src`` y el ``alt`` del primer ``<img>`` de una salida HTML."""

    img: dict | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "img" and self.img is None:
            self.img = dict(attrs)


def imagen_de(bundle: dict) -> tuple[str, str, str] | None:
    """(tipo MIME, base64, alt) de la figura de un valor pegado o de una salida."""
    for mime in ("image/png", "image/jpeg", "image/svg+xml"):
        if mime in bundle:
            datos = bundle[mime]
            if mime == "image/svg+xml":
                datos = base64.b64encode(datos.encode()).decode()
            return mime, datos, str(bundle.get("text/plain", "")).strip("'\"")
    lector = _Imagen()
    lector.feed(str(bundle.get("text/html", "")))
    src = (lector.img or {}).get("src", "")
    if src.startswith("data:") and ";base64," in src:
        cabecera, datos = src[5:].split(";base64,", 1)
        return cabecera, datos, lector.img.get("alt", "")
    return None


class Conversor:
    """Convierte un notebook ejecutado en el cuaderno del alumno.

    Lo que depende de Sphinx (referencias y citas) está en ``referencia`` y ``cita``;
    ``ConversorSphinx`` las resuelve con el entorno del libro y las pruebas, con datos
    pequeños.
    """

    def __init__(self, carpeta: Path | None = None, sustituciones=None,
                 extensiones=EXTENSIONES_MYST):
        self.carpeta = carpeta  # la del notebook fuente: rutas de las imágenes
        self.sustituciones = dict(sustituciones or {})
        self.extensiones = tuple(extensiones)
        self.pegados: dict[str, dict] = {}
        self.mostradas: set[str] = set()  # figuras que ya muestra una salida
        self.ejercicios: dict[str, str] = {}
        self.adjuntos: dict[str, dict] = {}
        self.secciones: dict[str, str] = {}  # título → «4.1»

    # Lo que resuelve Sphinx ---------------------------------------------------------

    def referencia(self, rol: str, texto: str) -> str:
        return split_explicit_title(texto)[1]

    def cita(self, rol: str, claves: str) -> str:
        return claves

    def numero(self, etiqueta: str, formato: str) -> str:
        """«Figura 4.1», «Ejercicio 4.2»: el número de un objeto numerado."""
        return formato % etiqueta

    # Roles ----------------------------------------------------------------------------

    def pegado(self, contenido: str) -> str:
        """``clave:formato`` → el texto que escribe la página (regla de myst-nb)."""
        from myst_nb.core.variables import format_plain_text

        clave, formato = (contenido.rsplit(":", 1) + ["s"])[:2]
        if clave not in self.pegados:
            logger.warning("cuadernos: no hay valor pegado %r", clave)
            return contenido
        return format_plain_text(self.pegados[clave].get("text/plain", ""), formato)

    def rol(self, nombre: str, contenido: str) -> str:
        if nombre in ("glue:text", "glue", "glue:md"):
            return self.pegado(contenido)
        if nombre == "term":
            return split_explicit_title(contenido)[1]
        if nombre.startswith("cite"):
            return self.cita(nombre, contenido)
        if nombre in ("numref", "ref", "doc", "eq"):
            return self.referencia(nombre, contenido)
        if nombre == "math":
            return f"${contenido}$"
        logger.warning("cuadernos: rol sin convertir {%s}", nombre)
        return contenido

    def _roles(self, texto: str, hijos) -> str:
        for hijo in hijos:
            if hijo.type == "myst_role":
                nombre = hijo.meta["name"]
                for ticks in ("`", "``", "```"):
                    literal = f"{{{nombre}}}{ticks}{hijo.content}{ticks}"
                    if literal in texto:
                        texto = texto.replace(literal, self.rol(nombre, hijo.content))
                        break
            elif hijo.type == "substitution_inline":
                texto = self._sustituir(texto, hijo.content)
        return texto

    def _sustituir(self, texto: str, nombre: str) -> str:
        valor = str(self.sustituciones.get(nombre.strip(), nombre))
        patron = r"\{\{\s*" + re.escape(nombre.strip()) + r"\s*\}\}"
        return re.sub(patron, lambda _: valor, texto)

    # Directivas -----------------------------------------------------------------------

    def directiva(self, info: str, contenido: str) -> str:
        nombre, arg, opciones, cuerpo = partir_directiva(info, contenido)
        cuerpo = self.markdown(cuerpo).strip()
        clases = opciones.get("class", "").split()
        if nombre in ("figure", "glue:figure"):
            return self.figura(nombre, arg, opciones, cuerpo)
        if nombre == "exercise":
            titulo = "Ejercicio"
            if opciones.get("label"):
                titulo = self.numero(opciones["label"], "Ejercicio %s")
            titulo += f" ({arg})" if arg else ""
            self.ejercicios[opciones.get("label", "")] = titulo
            return en_cita(titulo, cuerpo)
        if nombre == "solution-start":
            titulo = self.ejercicios.get(arg, "Ejercicio")
            return (f"**Solución del {titulo}.** La celda siguiente está plegada: "
                    "despliégala cuando lo hayas intentado.")
        if nombre == "solution-end":
            return ""
        titulo = arg or ADMONICIONES.get(nombre, "")
        if nombre in PLEGADAS or "dropdown" in clases:
            return plegado(titulo or "Más", cuerpo)
        if nombre not in ADMONICIONES and nombre not in ("admonition", "card"):
            logger.warning("cuadernos: directiva sin convertir {%s}", nombre)
        return en_cita(titulo, cuerpo)

    def figura(self, nombre: str, arg: str, opciones: dict, pie: str) -> str:
        partes = []
        if nombre == "figure":
            ruta = (self.carpeta or Path(".")) / arg
            mime = mimetypes.guess_type(ruta.name)[0] or "image/png"
            datos = base64.b64encode(ruta.read_bytes()).decode()
            alt = opciones.get("alt", "")
            partes.append(self._adjunto(ruta.name, mime, datos, alt))
        elif arg not in self.mostradas:
            imagen = imagen_de(self.pegados.get(arg, {}))
            if imagen is None:
                logger.warning("cuadernos: la figura pegada %r no tiene imagen", arg)
            else:
                mime, datos, alt = imagen
                extension = mimetypes.guess_extension(mime) or ".png"
                partes.append(self._adjunto(arg + extension, mime, datos, alt))
        if opciones.get("name"):
            pie = f"**{self.numero(opciones['name'], 'Figura %s')}** — {pie}"
        return "\n\n".join(partes + [pie] if pie else partes)

    def _adjunto(self, nombre: str, mime: str, datos: str, alt: str) -> str:
        """La imagen como adjunto de la celda; un SVG, en una URL ``data:`` (JupyterLab
        solo dibuja adjuntos PNG, JPEG, GIF, WebP y BMP)."""
        alt = " ".join(alt.replace("[", "(").replace("]", ")").split())
        if mime == "image/svg+xml":
            return f"![{alt}](data:{mime};base64,{datos})"
        self.adjuntos[nombre] = {mime: datos}
        return f"![{alt}](attachment:{nombre})"

    def markdown(self, fuente: str) -> str:
        """Una celda MyST → Markdown que dibuja cualquier Jupyter."""
        lineas = fuente.splitlines(keepends=True)
        tokens = _parser(self.extensiones).parse(fuente)
        for previo, token in zip([None, *tokens], tokens):
            if token.map is None:
                continue
            inicio, fin = token.map
            trozo = "".join(lineas[inicio:fin])
            if token.type in ("fence", "colon_fence") and token.info.startswith("{"):
                nuevo = self.directiva(token.info, token.content) + "\n"
            elif token.type == "inline":
                nuevo = self._roles(trozo, token.children or [])
                if previo and previo.type == "heading_open" and previo.tag != "h1":
                    nuevo = self._numerar(nuevo, token.content)
            elif token.type == "substitution_block":
                nuevo = self._sustituir(trozo, token.content)
            else:
                continue
            lineas[inicio:fin] = [nuevo] + [""] * (fin - inicio - 1)
        return "".join(lineas)

    def _numerar(self, linea: str, titulo: str) -> str:
        """``## Por qué normalizar`` → ``## 4.1. Por qué normalizar`` (la página)."""
        numero = self.secciones.get(clave_de_titulo(titulo))
        if not numero:
            return linea
        almohadillas, _, resto = linea.partition(" ")
        return f"{almohadillas} {numero}. {resto}"

    # Celdas de código -----------------------------------------------------------------

    def cuaderno(self, nb) -> nbformat.NotebookNode:
        """El notebook ejecutado → el cuaderno del alumno (una copia)."""
        from myst_nb.ext.glue import extract_glue_data_cell

        nb = copy.deepcopy(nb)
        origen = {}
        for i, celda in enumerate(nb.cells):
            if celda.cell_type == "code":
                for clave, salida in extract_glue_data_cell(celda):
                    self.pegados[clave] = salida["data"]
                    origen[clave] = i
        for celda in nb.cells:
            if destino_de(celda) == "fuera":  # oculta: puede quedarse como apoyo
                celda.source = sin_pegado(celda.source)
        destinos, faltan = destinos_de(nb.cells)
        for clave, i in origen.items():
            if figura_a_la_vista(nb.cells, destinos, i):
                self.mostradas.add(clave)
        celdas = []
        for i, (celda, destino) in enumerate(zip(nb.cells, destinos)):
            if destino == "fuera":
                continue
            if celda.cell_type == "markdown":
                self.adjuntos = {}
                celda.source = self.markdown(celda.source).strip()
                if self.adjuntos:
                    celda["attachments"] = self.adjuntos
                if celda.source:
                    celdas.append(celda)
            else:
                celdas.append(preparar_codigo(celda, destino, faltan.get(i, set())))
        nb.cells = celdas
        nb.metadata.pop("mystnb", None)
        return nb


def _sentencias(codigo: str) -> list[ast.stmt]:
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return ast.parse(TransformerManager().transform_cell(codigo)).body
    except SyntaxError:
        return []


def _nombres(arbol) -> tuple[set[str], set[str]]:
    define, lee, ligados = set(), set(), set()
    for nodo in ast.walk(arbol):
        # Variables de un bucle, de una comprensión, de «with … as» o argumentos: se
        # leen después de ligarlas, dentro de la misma sentencia.
        if isinstance(nodo, (ast.For, ast.comprehension)):
            ligados |= {n.id for n in ast.walk(nodo.target) if isinstance(n, ast.Name)}
        elif isinstance(nodo, ast.withitem) and nodo.optional_vars is not None:
            ligados |= {n.id for n in ast.walk(nodo.optional_vars)
                        if isinstance(n, ast.Name)}
        elif isinstance(nodo, ast.arg):  # los argumentos de una función o lambda
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
    if isinstance(sentencia, ast.Expr) and isinstance(sentencia.value, ast.Call):
        funcion = sentencia.value.func
        return isinstance(funcion, ast.Name) and funcion.id.startswith("glue")
    if isinstance(sentencia, ast.For):
        return all(map(_solo_pega, sentencia.body)) and not sentencia.orelse
    if isinstance(sentencia, ast.ImportFrom):
        return all(alias.name.startswith("glue") for alias in sentencia.names)
    return False


def sin_pegado(codigo: str) -> str:
    """El código de una celda oculta sin lo que solo pega: en el cuaderno no hay
    prosa a la que pegar nada."""
    quitar = set()
    for sentencia in _sentencias(codigo):
        if _solo_pega(sentencia):
            quitar |= set(range(sentencia.lineno - 1, sentencia.end_lineno))
    lineas = codigo.splitlines()
    return "\n".join(x for i, x in enumerate(lineas) if i not in quitar).strip()


def clave_de_titulo(titulo: str) -> str:
    """Un título, sin marcas (``*``, `` ` ``, ``$``) ni espacios de más: el mismo en
    el Markdown y en el árbol de Sphinx."""
    return " ".join(titulo.translate(str.maketrans("", "", "*`$")).split())


def nombres(codigo: str) -> tuple[set[str], set[str]]:
    """(nombres que define, nombres que lee) una celda de código."""
    return _nombres(ast.Module(body=_sentencias(codigo), type_ignores=[]))


def vivos_antes(codigo: str, despues: set[str]) -> set[str]:
    """Los nombres que hacen falta antes de la celda, si después hacen falta
    ``despues``: sentencia a sentencia, de abajo arriba."""
    for sentencia in reversed(_sentencias(codigo)):
        define, lee = _nombres(sentencia)
        despues = (despues - define) | lee
    return despues


def destino_de(celda) -> str:
    """visible, plegada (código oculto), solucion, o fuera (la página la quita)."""
    if celda.cell_type != "code":
        return "visible"
    tags = set(celda.metadata.get("tags", []))
    if COLAB in celda.source:
        return "visible"  # la primera celda: en Colab instala resnorm
    if "remove-cell" in tags:
        return "fuera"
    if "solucion" in tags:
        return "solucion"
    if tags & {"remove-input", "hide-input", "hide-cell"}:
        return "plegada" if celda.get("outputs") else "fuera"
    return "visible"


def destinos_de(celdas) -> tuple[list[str], dict[int, set[str]]]:
    """El destino de cada celda y, de las quitadas que se quedan («apoyo»), los
    nombres que leen las siguientes. Se recorre de abajo arriba: lo que hace falta."""
    destinos = [destino_de(c) for c in celdas]
    faltan: dict[int, set[str]] = {}
    hace_falta: set[str] = set()
    for i in reversed(range(len(celdas))):
        if celdas[i].cell_type != "code":
            continue
        if destinos[i] == "fuera":
            usados = nombres(celdas[i].source)[0] & hace_falta
            if not usados:
                continue
            destinos[i], faltan[i] = "apoyo", usados
        hace_falta = vivos_antes(celdas[i].source, hace_falta)
    return destinos, faltan


def es_imagen(salida) -> bool:
    datos = salida.get("data", {})
    return any(m.startswith("image/") for m in datos) or "<img" in str(
        datos.get("text/html", ""))


def figura_a_la_vista(celdas, destinos, i: int) -> bool:
    """¿Muestra la figura pegada en la celda ``i`` una salida que se queda? (la de
    esa celda o, si se fue, la de las celdas de código justo anteriores)."""
    while i >= 0 and celdas[i].cell_type == "code":
        if destinos[i] != "fuera" and any(map(es_imagen, celdas[i].get("outputs", []))):
            return True
        i -= 1
    return False


def preparar_codigo(celda, destino: str, usados=frozenset()):
    """Salidas sin pegados ni números de ejecución; plegada si hace falta. Una celda
    de apoyo empieza con un comentario que dice qué usan de ella las siguientes."""
    tags = celda.metadata.get("tags", [])
    salidas = celda.get("outputs", [])
    if "remove-output" in tags:  # la página la quita; la figura sí se ve aquí
        salidas = [s for s in salidas if es_imagen(s)]
    celda.outputs = juntar_flujos(salidas)
    for salida in celda.outputs:
        if WIDGET in salida.get("data", {}):
            texto = salida.data.get("text/plain", "")
            salida.data["text/plain"] = aviso_de_widget(texto)
    celda.execution_count = None
    for salida in celda.outputs:
        if "execution_count" in salida:
            salida.execution_count = None
    celda.metadata["tags"] = [t for t in tags if t not in TAGS_QUITADOS]
    if not celda.metadata["tags"]:
        del celda.metadata["tags"]
    if destino in ("plegada", "apoyo", "solucion"):
        celda.metadata["jupyter"] = {"source_hidden": True}
    if destino == "solucion":
        celda.metadata["jupyter"]["outputs_hidden"] = True
    if destino == "apoyo":
        celda.source = f"{comentario_de_apoyo(usados)}\n{celda.source}"
        celda.outputs = []
    return celda


def aviso_de_widget(texto: str) -> str:
    """Lo que muestra Jupyter de un widget antes de ejecutar la celda (su texto plano)
    en lugar de ``<resnorm.quiz.Quiz object at 0x…>``."""
    if ".quiz." in texto:
        return "Pregunta de autoevaluación: ejecuta la celda para responderla."
    clase = texto.split(" object at ")[0].rsplit(".", 1)[-1].strip("<>")
    return f"Widget interactivo {clase}: ejecuta la celda para usarlo."


def comentario_de_apoyo(usados) -> str:
    """Una línea: por qué sigue aquí una celda que la página no muestra."""
    lista = sorted(usados)
    nombres_ = ", ".join(lista[:-1]) + " y " + lista[-1] if len(lista) > 1 else lista[0]
    linea = f"# Oculta en la página; aquí hace falta: define {nombres_}, que se usa"
    linea += "n abajo." if len(lista) > 1 else " abajo."
    if len(linea) > 88:
        linea = "# Oculta en la página; aquí hace falta: define lo que se usa abajo."
    return linea


def juntar_flujos(salidas) -> list:
    """Une los trozos seguidos de stdout (o de stderr), como ``nb_merge_streams``."""
    juntas = []
    for salida in salidas:
        previa = juntas[-1] if juntas else None
        if (salida.output_type == "stream" and previa is not None
                and previa.output_type == "stream" and previa.name == salida.name):
            previa.text += salida.text
        else:
            juntas.append(salida)
    return juntas


# --- Con Sphinx -----------------------------------------------------------------------


class ConversorSphinx(Conversor):
    """Resuelve referencias y citas con el entorno de Sphinx, como la página."""

    def __init__(self, app, docname: str):
        config = app.config
        super().__init__(
            carpeta=Path(app.env.doc2path(docname)).parent,
            sustituciones=getattr(config, "myst_substitutions", {}),
            extensiones=getattr(config, "myst_enable_extensions", EXTENSIONES_MYST),
        )
        self.app, self.env, self.docname = app, app.env, docname
        numeros = self.env.toc_secnumbers.get(docname, {})
        for seccion in self.env.get_doctree(docname).findall(nodes.section):
            numero = numeros.get("#" + seccion["ids"][0]) if seccion["ids"] else None
            if numero:
                clave = clave_de_titulo(seccion[0].astext())
                self.secciones[clave] = ".".join(map(str, numero))

    def _resolver(self, dominio: str, tipo: str, objetivo: str, titulo: str):
        nodo = addnodes.pending_xref(
            "", refdomain=dominio, reftype=tipo, reftarget=objetivo,
            refexplicit=bool(titulo), refdoc=self.docname, refwarn=True)
        contenido = nodes.inline(titulo or objetivo, titulo or objetivo)
        nodo += contenido
        return self.env.get_domain(dominio).resolve_xref(
            self.env, self.docname, self.app.builder, tipo, objetivo, nodo, contenido)

    def referencia(self, rol: str, texto: str) -> str:
        explicito, titulo, objetivo = split_explicit_title(texto)
        if rol in ("ref", "numref"):
            objetivo = objetivo.lower()
        resuelto = self._resolver("std" if rol != "eq" else "math", rol, objetivo,
                                  titulo if explicito else "")
        if resuelto is None:
            logger.warning("cuadernos: referencia sin resolver {%s}`%s`", rol, texto)
            return titulo
        return self.a_markdown(resuelto)

    def numero(self, etiqueta: str, formato: str) -> str:
        resuelto = self._resolver("std", "numref", etiqueta.lower(), formato)
        if resuelto is None:
            logger.warning("cuadernos: %r no tiene número", etiqueta)
            return formato.replace(" %s", "")
        return resuelto.astext()

    def cita(self, rol: str, claves: str) -> str:
        tipo = rol.partition(":")[2] or "p"
        return self.a_markdown(self._resolver("cite", tipo, claves, ""))

    def a_markdown(self, nodo) -> str:
        """Un nodo resuelto (texto, cursiva, enlaces) en Markdown."""
        if isinstance(nodo, nodes.Text):
            return str(nodo)
        dentro = "".join(self.a_markdown(hijo) for hijo in nodo.children)
        if isinstance(nodo, nodes.reference):
            destino = nodo.get("refuri") or "#" + nodo.get("refid", "")
            return f"[{dentro}]({self.enlace(destino)})"
        if isinstance(nodo, nodes.emphasis):
            return f"*{dentro}*"
        if isinstance(nodo, nodes.strong):
            return f"**{dentro}**"
        return dentro

    def enlace(self, href: str) -> str:
        """Un enlace de la página → el mismo destino, visto desde ``cuadernos/``
        (absoluto si ``html_baseurl`` dice dónde se publica el sitio)."""
        if urlsplit(href).scheme:
            return href
        pagina = self.app.builder.get_target_uri(self.docname)
        ruta, _, ancla = href.partition("#")
        ruta = ruta or posixpath.basename(pagina)  # «#ancla»: la misma página
        destino = posixpath.normpath(posixpath.join(posixpath.dirname(pagina), ruta))
        base = (self.app.config.html_baseurl or "").rstrip("/")
        url = f"{base}/{destino}" if base else posixpath.relpath(destino, CARPETA)
        return url + (f"#{ancla}" if ancla else "")


def notebook_ejecutado(app, fuente: Path):
    """El notebook tal como lo ejecutó la construcción (la caché de jupyter-cache),
    o ``None`` si la caché no lo tiene."""
    from jupyter_cache import get_cache

    nb = nbformat.read(fuente, as_version=4)
    cache = Path(app.srcdir) / app.config.nb_execution_cache_path
    try:
        return get_cache(str(cache)).merge_match_into_notebook(nb)[1]
    except KeyError:
        logger.warning("cuadernos: %s no está ejecutado en %s", fuente.name, cache)
        return None


def capitulos(env) -> list[str]:
    return sorted(d for d in env.found_docs if str(env.doc2path(d)).endswith(".ipynb"))


def escribir_cuadernos(app, exception) -> None:
    """build-finished: escribe ``cuadernos/NN_nombre.ipynb`` junto al sitio.

    Solo para el sitio (constructor ``html``): la página única del PDF (``singlehtml``)
    ya ha juntado los números de figura bajo el documento raíz y las referencias de
    cada capítulo no se resolverían."""
    if exception is not None or app.builder.name != "html":
        return
    carpeta = Path(app.outdir) / CARPETA
    carpeta.mkdir(exist_ok=True)
    for docname in capitulos(app.env):
        fuente = Path(app.env.doc2path(docname))
        ejecutado = notebook_ejecutado(app, fuente)
        if ejecutado is None:
            continue
        cuaderno = ConversorSphinx(app, docname).cuaderno(ejecutado)
        nbformat.validate(cuaderno)
        nbformat.write(cuaderno, carpeta / fuente.name)


# --- Botones de la página -------------------------------------------------------------


def urls_de_lanzamiento(nombre: str, repositorio: str, rama: str, rama_entorno: str,
                        lanzar: dict) -> dict[str, str]:
    """Binder, Colab y JupyterHub abren ``nombre`` de la rama ``rama`` (la de los
    cuadernos). Binder construye el entorno con ``binder/`` de ``rama_entorno`` y trae
    los cuadernos con nbgitpuller (el enlace de «contenido y entorno separados»)."""
    org, repo = urlsplit(repositorio).path.strip("/").split("/")[:2]
    tirar = urlencode({"repo": repositorio, "branch": rama,
                       "urlpath": f"lab/tree/{repo}/{nombre}"}, safe="/")
    urls = {}
    if lanzar.get("binderhub_url"):
        hub = lanzar["binderhub_url"].rstrip("/")
        urls["Binder"] = (f"{hub}/v2/gh/{org}/{repo}/{rama_entorno}?urlpath="
                          + quote(f"git-pull?{tirar}", safe=""))
    if lanzar.get("colab_url"):
        colab = lanzar["colab_url"].rstrip("/")
        urls["Colab"] = f"{colab}/github/{org}/{repo}/blob/{rama}/{nombre}"
    if lanzar.get("jupyterhub_url"):
        urls["JupyterHub"] = (f"{lanzar['jupyterhub_url'].rstrip('/')}"
                              f"/hub/user-redirect/git-pull?{tirar}")
    return urls


def _botones(app, pagename, templatename, context, doctree) -> None:
    """html-page-context, después del tema: los botones abren el cuaderno."""
    if pagename not in capitulos(app.env):
        return
    nombre = Path(app.env.doc2path(pagename)).name
    opciones = app.config.html_theme_options
    urls = urls_de_lanzamiento(
        nombre, opciones.get("repository_url", ""), app.config.cuadernos_rama,
        opciones.get("repository_branch", "main"), opciones.get("launch_buttons", {}),
    ) if opciones.get("repository_url") else {}
    pendientes = list(context.get("header_buttons", []))
    while pendientes:
        boton = pendientes.pop()
        pendientes += boton.get("buttons", [])
        if boton.get("label") == "download-source-button":
            boton["url"] = context["pathto"](f"{CARPETA}/{nombre}", 1)
            boton["tooltip"] = "Descargar el cuaderno del capítulo"
        elif boton.get("text") in urls:
            boton["url"] = urls[boton["text"]]


def setup(app):
    app.add_config_value("cuadernos_rama", "cuadernos", "html")
    app.connect("build-finished", escribir_cuadernos)
    app.connect("html-page-context", _botones, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
