"""Las figuras: archivos en ``_images`` con su tamaño y su versión para teléfono.

- Diagramas SVG: su ancho y alto (sin saltos al cargar), ``loading="lazy"`` (menos la
  portada) y ``nombre-telefono.svg``, si existe, en un ``<picture>``.
- Figuras de matplotlib (``resnorm.book.figure_html``): los dos PNG en base64 de su
  ``<picture>`` (para Jupyter y Colab), a ``_images/figura-<huella>.png``. No con
  myst-nb: escribe una imagen por salida, con el texto alternativo de los metadatos."""

from __future__ import annotations

import base64
import hashlib
import posixpath
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

from docutils import nodes
from sphinx.util.images import get_image_size

# El corte de resnorm.plots.PHONE_MEDIA. Solo en pantalla: el papel lleva la figura
# completa (una A4 cumpliría «max-width» y cambiaría de imagen al imprimir).
PHONE_MEDIA = "screen and (max-width: 767.98px)"
EAGER_SVG = ("portada.svg",)  # se ve al llegar: sin loading="lazy"
PNG_URL = "data:image/png;base64,"


def read_picture(html: str) -> list[tuple[str, dict[str, str]]] | None:
    """Las etiquetas de una figura de ``figure_html``, o ``None`` si es otra cosa."""
    tags = []
    parser = HTMLParser()
    parser.handle_starttag = lambda tag, attrs: tags.append(
        (tag, {k: v or "" for k, v in attrs}))
    parser.feed(html)
    urls = [attrs.get("srcset", attrs.get("src", "")) for _, attrs in tags[1:]]
    picture = [tag for tag, _ in tags] == ["picture", "source", "img"]
    return tags if picture and all(u.startswith(PNG_URL) for u in urls) else None


def write_png(data_url: str, folder: Path, srcdir: Path) -> str:
    """El PNG de ``data_url`` en ``folder``, con su ruta como la entiende Sphinx."""
    data = base64.b64decode(data_url.removeprefix(PNG_URL))
    target = folder / f"figura-{hashlib.sha256(data).hexdigest()[:16]}.png"
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return "/" + posixpath.relpath(target.resolve(), srcdir.resolve())


def _figures(app, doctree) -> None:
    """Antes del recolector de imágenes de Sphinx (500), que las lleva a ``_images``:
    las figuras en línea, como imágenes; los diagramas, con su tamaño; y cada imagen
    con versión para teléfono, con ella."""
    env, srcdir = app.env, Path(app.srcdir)
    # Junto a las imágenes de myst-nb: make las borra con el entorno de Sphinx.
    folder = Path(app.outdir).parent / "jupyter_execute" / "figuras"
    for raw in list(doctree.findall(nodes.raw)):
        if raw.get("format") == "html" and (tags := read_picture(raw.astext())):
            picture, source, img = (dict(attributes) for _, attributes in tags)
            raw.parent.replace(raw, nodes.image(
                uri=write_png(img.pop("src"), folder, srcdir), alt=img.pop("alt", ""),
                classes=img.pop("class", "").split(), rn_picture=picture,
                telefono=write_png(source.pop("srcset"), folder, srcdir)[1:],
                rn_source=source, rn_img=img))
    for node in doctree.findall(nodes.image):
        uri = env.relfn2path(node["uri"], env.docname)[0]
        if uri.endswith(".svg") and "width" not in node and "height" not in node:
            if size := get_image_size(srcdir / uri):
                node["width"], node["height"] = map(str, size)
            if not uri.endswith(EAGER_SVG):
                node["loading"] = "lazy"
        phone = node.get("telefono") or uri.removesuffix(".svg") + "-telefono.svg"
        if (srcdir / phone).is_file():
            env.images.add_file(env.docname, phone)
            env.note_dependency(str(srcdir / phone))
            node["telefono"] = phone
            # Un diagrama: su <source> lleva el tamaño de su versión para teléfono.
            size = get_image_size(srcdir / phone) or ()
            node.setdefault("rn_source", dict(zip(("width", "height"), map(str, size))))


def _visit_image(self, node) -> None:
    """Con versión para teléfono, en un ``<picture>``; si no, la de Sphinx."""
    if not (phone := node.get("telefono")):
        return type(self).visit_image(self, node)
    # La versión para teléfono no es un nodo del doctree: Sphinx la copia si está aquí.
    self.builder.images[phone] = self.builder.env.images[phone][1]
    src = {path: posixpath.join(self.builder.imgpath, quote(self.builder.images[path]))
           for path in (phone, node["uri"])}
    source = {"media": PHONE_MEDIA, "srcset": src[phone], **node["rn_source"]}
    self.body += [
        self.starttag(nodes.Element(), "picture", "", **node.get("rn_picture", {})),
        self.emptytag(nodes.Element(), "source", "", **source),
    ]
    if "rn_img" in node:  # una figura de matplotlib: el <img> de figure_html
        self.body += [self.emptytag(node, "img", "", src=src[node["uri"]],
                                    alt=node["alt"], **node["rn_img"]), "</picture>\n"]
    else:  # un diagrama: el <img> de docutils
        type(self).visit_image(self, node)
        self.body.append("</picture>")


def setup(app):
    from sphinx.writers.html5 import HTML5Translator

    app.connect("doctree-read", _figures, priority=400)
    # _visit_image ya cierra el <picture>: depart_image, la de Sphinx (no escribe nada).
    app.add_node(nodes.image, override=True,
                 html=(_visit_image, HTML5Translator.depart_image))
    return {"version": "2", "parallel_read_safe": True, "parallel_write_safe": True}
