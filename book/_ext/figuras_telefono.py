"""Las figuras del sitio: archivos en ``_images``, con su tamaño y su versión para
teléfono, escritos desde el doctree (``doctree-read``, antes y después del recolector
de imágenes de Sphinx, que copia cada archivo) y un ``<picture>`` (``app.add_node``).

- Diagramas SVG (``{figure}``): el ancho y el alto del archivo (sin saltos al
  cargarlo) y ``loading="lazy"``, menos la portada, que se ve al llegar. Si hay un
  ``nombre-telefono.svg`` junto a ``nombre.svg``, va en el ``<source>`` del
  ``<picture>`` para pantallas estrechas.
- Figuras de matplotlib (``resnorm.book.figure_html`` con ``{glue:figure}``): la
  salida es un ``<picture>`` con dos PNG en base64, para Jupyter y Colab. En el sitio
  cada PNG es un archivo ``figura-<huella>.png`` que la página pide al acercarse el
  lector (el capítulo 9 pesaba 166 KB comprimido). A mano y no con myst-nb: su
  ``render_image`` toma el texto alternativo solo de los metadatos de la celda (aquí
  sale de los datos) y escribe una imagen por salida (aquí dos, con ``data-dpi`` y
  ``data-texto-min-pt``, que las pruebas leen para medir el texto en pantalla).
"""

from __future__ import annotations

import base64
import hashlib
import posixpath
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

from docutils import nodes
from sphinx.util.images import get_image_size

#: El sufijo de la versión para teléfono de un diagrama.
PHONE_SUFFIX = "-telefono"
#: El mismo corte que las figuras de matplotlib (``resnorm.plots.PHONE_MEDIA``).
# Solo en pantalla: al imprimir, la página de A4 (unos 680 px) también cumpliría
# «max-width» y el navegador cambiaría de imagen en mitad de la impresión; el papel
# lleva la figura completa.
PHONE_MEDIA = "screen and (max-width: 767.98px)"
#: Los diagramas que se ven al llegar a la página: sin ``loading="lazy"``.
EAGER_SVG = ("portada.svg",)
#: El prefijo de los PNG de matplotlib en ``_images``.
FIGURE_PREFIX = "figura-"
PNG_URL = "data:image/png;base64,"


def phone_variant(srcdir: Path, uri: str) -> str | None:
    """La ruta (relativa a ``srcdir``) de la versión para teléfono de la imagen
    ``uri`` (relativa a ``srcdir``), o ``None`` si no tiene."""
    if not uri.endswith(".svg") or uri.endswith(PHONE_SUFFIX + ".svg"):
        return None
    candidate = uri[: -len(".svg")] + PHONE_SUFFIX + ".svg"
    return candidate if (srcdir / candidate).is_file() else None


class _Tags(HTMLParser):
    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def read_picture(html: str) -> list[tuple[str, dict[str, str]]] | None:
    """Las etiquetas ``picture``, ``source`` e ``img`` (con sus atributos) de una
    figura de ``resnorm.book.figure_html``, o ``None`` si ``html`` es otra cosa."""
    tags = _Tags(html).tags
    if [tag for tag, _ in tags] != ["picture", "source", "img"]:
        return None
    if tags[1][1].get("srcset", "").startswith(PNG_URL) and tags[2][1].get(
            "src", "").startswith(PNG_URL):
        return tags
    return None


def write_png(data_url: str, folder: Path, srcdir: Path) -> str:
    """Escribe el PNG de ``data_url`` en ``folder/figura-<huella>.png`` (si no
    estaba) y devuelve su ruta desde ``srcdir`` como la entiende Sphinx (``/…``)."""
    data = base64.b64decode(data_url[len(PNG_URL):])
    target = folder / f"{FIGURE_PREFIX}{hashlib.sha256(data).hexdigest()[:16]}.png"
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return "/" + posixpath.relpath(target.resolve(), srcdir.resolve())


def figure_node(tags, folder: Path, srcdir: Path) -> nodes.image:
    """La imagen (con su versión para teléfono) que sustituye al ``<picture>`` en
    línea, con los PNG escritos en ``folder``."""
    (_, picture), (_, source), (_, img) = tags
    img, source = dict(img), dict(source)
    node = nodes.image(uri=write_png(img.pop("src"), folder, srcdir),
                       alt=img.pop("alt", ""), classes=img.pop("class", "").split(),
                       telefono=write_png(source.pop("srcset"), folder, srcdir)[1:])
    node["rn_picture"], node["rn_source"], node["rn_img"] = picture, source, img
    return node


def _inline_figures(app, doctree) -> None:
    # Junto a las imágenes de myst-nb: make las borra con el entorno de Sphinx.
    folder = Path(app.outdir).parent / "jupyter_execute" / "figuras"
    for raw in list(doctree.findall(nodes.raw)):
        tags = read_picture(raw.astext()) if PNG_URL in raw.astext() else None
        if tags is not None and raw.get("format") == "html":
            raw.parent.replace(raw, figure_node(tags, folder, Path(app.srcdir)))


def _size_and_phone_images(app, doctree) -> None:
    env = app.env
    srcdir = Path(app.srcdir)
    for node in doctree.findall(nodes.image):
        uri = node.get("uri", "")
        if uri.endswith(".svg") and "width" not in node and "height" not in node:
            size = get_image_size(srcdir / uri)
            if size:
                node["width"], node["height"] = str(size[0]), str(size[1])
            if not uri.endswith(EAGER_SVG):
                node["loading"] = "lazy"
        phone = node.get("telefono") or phone_variant(srcdir, uri)
        if phone is None:
            continue
        env.images.add_file(env.docname, phone)
        env.note_dependency(str(srcdir / phone))
        node["telefono"] = phone
        if "rn_source" not in node:  # un diagrama: el tamaño de su versión
            size = get_image_size(srcdir / phone)
            node["rn_source"] = {"width": str(size[0]), "height": str(size[1])} if (
                size) else {}


def _visit_image(self, node) -> None:
    phone = node.get("telefono")
    if not phone or phone not in self.builder.env.images:
        return type(self).visit_image(self, node)

    def src(path: str) -> str:
        name = self.builder.env.images[path][1]
        self.builder.images[path] = name
        return posixpath.join(self.builder.imgpath, quote(name))

    source = {"media": PHONE_MEDIA, "srcset": src(phone), **node["rn_source"]}
    self.body += [
        self.starttag(nodes.Element(), "picture", "", **node.get("rn_picture", {})),
        self.emptytag(nodes.Element(), "source", "", **source),
    ]
    if "rn_img" not in node:  # un diagrama: el <img> de docutils
        return type(self).visit_image(self, node)
    self.body += [self.emptytag(node, "img", "", src=src(node["uri"]),
                                alt=node["alt"], **node["rn_img"]), "</picture>\n"]
    raise nodes.SkipNode  # ya está escrita entera (sin depart_image)


def _depart_image(self, node) -> None:
    type(self).depart_image(self, node)
    if node.get("telefono") and node["telefono"] in self.builder.env.images:
        self.body.append("</picture>")


def setup(app):
    # Antes del recolector de imágenes de Sphinx (prioridad 500) las figuras en línea;
    # después, que deja cada ``uri`` relativa a la carpeta del libro, los tamaños.
    app.connect("doctree-read", _inline_figures, priority=400)
    app.connect("doctree-read", _size_and_phone_images, priority=600)
    app.add_node(nodes.image, override=True,
                 html=(_visit_image, _depart_image))
    return {"version": "2", "parallel_read_safe": True, "parallel_write_safe": True}
