"""Los diagramas SVG con versión para teléfono se sirven en un ``<picture>``.

Un diagrama de ``book/figuras`` de 720–752 px de ancho, reducido a la columna de un
teléfono (358 px), deja su texto en 5.5–6.5 px. Si junto a ``nombre.svg`` hay un
``nombre-telefono.svg`` (los paneles uno debajo del otro, menos rótulos), la figura
de MyST (``{figure}``) que muestra ``nombre.svg`` se escribe como::

    <picture><source media="screen and (max-width: 767.98px)" srcset="…/nombre-telefono.svg"
      width="…" height="…"><img src="…/nombre.svg" …></picture>

El número, el pie, el texto alternativo y las referencias siguen siendo los de la
figura: solo cambia el dibujo que el navegador elige según el ancho de la ventana.

Con dos ganchos documentados de Sphinx: ``doctree-read`` (después del recolector de
imágenes) apunta la versión para teléfono en ``env.images``, para que Sphinx la
copie a ``_images`` con las demás y la vuelva a leer si cambia, y
``app.add_node(..., override=True)`` envuelve el ``<img>`` que escribe el traductor
HTML del tema.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from urllib.parse import quote

from docutils import nodes

#: El sufijo de la versión para teléfono de un diagrama.
PHONE_SUFFIX = "-telefono"
#: El mismo corte que las figuras de matplotlib (``resnorm.plots.PHONE_MEDIA``).
# Solo en pantalla: al imprimir, la página de A4 (unos 680 px) también cumpliría
# «max-width» y el navegador cambiaría de imagen en mitad de la impresión; el papel
# lleva la figura completa.
PHONE_MEDIA = "screen and (max-width: 767.98px)"
_VIEWBOX = re.compile(
    r'viewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*"'
)


def phone_variant(srcdir: Path, uri: str) -> str | None:
    """La ruta (relativa a ``srcdir``) de la versión para teléfono de la imagen
    ``uri`` (relativa a ``srcdir``), o ``None`` si no tiene."""
    if not uri.endswith(".svg") or uri.endswith(PHONE_SUFFIX + ".svg"):
        return None
    candidate = uri[: -len(".svg")] + PHONE_SUFFIX + ".svg"
    return candidate if (srcdir / candidate).is_file() else None


def svg_size(path: Path) -> tuple[int, int] | None:
    match = _VIEWBOX.search(path.read_text(encoding="utf-8")[:4000])
    if not match:
        return None
    return round(float(match.group(1))), round(float(match.group(2)))


def _note_phone_images(app, doctree) -> None:
    env = app.env
    srcdir = Path(app.srcdir)
    for node in doctree.findall(nodes.image):
        phone = phone_variant(srcdir, node.get("uri", ""))
        if phone is None:
            continue
        env.images.add_file(env.docname, phone)
        env.note_dependency(str(srcdir / phone))
        node["telefono"] = phone


def _visit_image(self, node) -> None:
    phone = node.get("telefono")
    if phone and phone in self.builder.env.images:
        name = self.builder.env.images[phone][1]
        self.builder.images[phone] = name
        src = posixpath.join(self.builder.imgpath, quote(name))
        size = svg_size(Path(self.builder.srcdir) / phone)
        dims = f' width="{size[0]}" height="{size[1]}"' if size else ""
        self.body.append(
            f'<picture><source media="{PHONE_MEDIA}" srcset="{src}"{dims}>'
        )
        node["rn_picture"] = True
    type(self).visit_image(self, node)


def _depart_image(self, node) -> None:
    type(self).depart_image(self, node)
    if node.get("rn_picture"):
        self.body.append("</picture>")


def setup(app):
    # Después del recolector de imágenes de Sphinx (prioridad 500), que deja cada
    # ``uri`` relativa a la carpeta del libro.
    app.connect("doctree-read", _note_phone_images, priority=600)
    app.add_node(nodes.image, override=True,
                 html=(_visit_image, _depart_image))
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
