"""Dos construcciones seguidas, sin cambios entre ellas, dan lo mismo y la segunda no
rehace nada.

**La configuración que Sphinx guarda.** Sphinx guarda la configuración con su entorno
y, en la construcción siguiente, la compara con la recién leída (conf.py y los
``config-inited``): si difiere, dice «The configuration has changed (N options…)» y,
si la opción es de las que afectan a la lectura, relee todos los documentos. Pero
varias extensiones cambian opciones *después* de esa comparación, en
``builder-inited`` o ``env-before-read-docs``, y la guardada nunca era la leída: ocho
opciones distintas en cada construcción. Las que se pueden fijar las fija conf.py (con
el valor que les darían: ``html_css_files``, ``html_permalinks_icon``,
``html_theme_options``, ``thebe_config``); aquí, en ``config-inited``, lo demás:

- la configuración de MathJax de myst-parser (``myst_update_mathjax``, su opción, en
  falso): las fórmulas las dibuja KaTeX, y myst-parser cambiaba en ``builder-inited``
  una configuración de MathJax que nadie usa (y marcaba cada sección para MathJax).

- ``html_static_path``: sphinx-thebe, sphinx-togglebutton y sphinx-copybutton añaden
  su carpeta en ``builder-inited`` (se llama antes a su propia función) y sphinx-design
  la suya (su ``STATIC_DIR``); sphinxcontrib-katex, una carpeta temporal nueva
  (``mkdtemp``) en cada construcción, sin opción para fijarla: solo lleva
  ``katex-math.css``, que math_katex.py quita de todas las páginas, así que se saca de
  la lista en ``builder-inited``, después de que la añada.
- ``templates_path``: pydata-sphinx-theme añade sus componentes al cargar el tema (al
  crear el constructor) y sphinx-book-theme los suyos dos veces (como extensión y como
  tema): cada carpeta, una vez.
- ``thebe_config``: los valores por defecto de sphinx-thebe (su función
  ``init_thebe_default_config``, que llamaría en ``env-before-read-docs``); el
  repositorio y la rama los pone conf.py.
- ``html_context``: lo que sphinx-book-theme deduce del repositorio (su función
  ``update_context_with_repository_info``, de ``builder-inited``).

Y lo comprueba la construcción: al terminar de leer (``env-updated``, justo antes de
que Sphinx guarde el entorno) la configuración debe ser la de ``config-inited``; si
una extensión (o una versión nueva de una) cambia otra opción, un aviso la nombra (con
``-W``, un error).

**Las hojas que se copian al final.** myst-nb (``mystnb.<huella>.css``) y
sphinx-exercise (``exercise.css``) copian su hoja en ``build-finished``, después de
escribir las páginas. En una construcción en frío la hoja aún no estaba en ``_static``
al escribirlas y su enlace salía sin ``?v=`` (Sphinx pone la suma de lo que encuentra);
en una en caliente, con ``?v=``. Aquí se llama a sus mismas funciones en
``builder-inited``, antes de escribir nada.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from sphinx.util import logging

logger = logging.getLogger(__name__)

#: Atributo de la aplicación con la configuración de ``config-inited``, serializada.
ATTR = "_curso_configuracion_leida"


def sin_repetir(items: list) -> list:
    """La lista con cada elemento una vez, en el orden de su primera aparición."""
    out = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def serializada(value) -> str:
    """Un texto que solo cambia si cambia el valor (como la comparación de Sphinx)."""
    return json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False)


def opciones_distintas(antes: dict[str, str], config) -> list[str]:
    """Las opciones cuyo valor ya no es el de ``antes`` (o que aparecieron)."""
    ahora = {opt.name: serializada(opt.value) for opt in config}
    return sorted(k for k in antes.keys() | ahora.keys()
                  if antes.get(k) != ahora.get(k))


def _pydata_components() -> str:
    """La carpeta que pydata-sphinx-theme añade a ``templates_path`` en su ``setup``."""
    import pydata_sphinx_theme

    here = Path(pydata_sphinx_theme.__file__).parent.resolve()
    return str(here / "theme" / "pydata_sphinx_theme" / "components")


def _fijar(app, config) -> None:
    """config-inited, la última: lo que las extensiones añadirán, ya puesto."""
    import sphinx_copybutton
    import sphinx_thebe
    import sphinx_togglebutton
    from sphinx_book_theme.header_buttons import update_context_with_repository_info
    from sphinx_design.extension import STATIC_DIR

    config.myst_update_mathjax = False
    for add_static_path in (sphinx_togglebutton.st_static_path,
                            sphinx_copybutton.scb_static_path,
                            sphinx_thebe.st_static_path):
        add_static_path(app)
    config.html_static_path.append(str(STATIC_DIR))
    config.html_static_path = sin_repetir(config.html_static_path)
    config.templates_path = sin_repetir([*config.templates_path, _pydata_components()])
    sphinx_thebe.init_thebe_default_config(app, None, [])
    # Aún no hay constructor: la función lee entonces html_theme_options de config.
    update_context_with_repository_info(SimpleNamespace(builder=None, config=config))
    setattr(app, ATTR, {opt.name: serializada(opt.value) for opt in config})


def _normalizar(app) -> None:
    """builder-inited, la última: sin la carpeta temporal de KaTeX ni repeticiones."""
    katex_tmp = getattr(app, "_katex_static_path", None)
    app.config.html_static_path = sin_repetir(
        [p for p in app.config.html_static_path if p != katex_tmp])
    app.config.templates_path = sin_repetir(app.config.templates_path)


def _hojas_antes_de_escribir(app) -> None:
    """builder-inited: las hojas de myst-nb y sphinx-exercise, ya en ``_static``."""
    if app.builder.format != "html":
        return
    from myst_nb.sphinx_ext import add_global_html_resources
    from sphinx_exercise import copy_asset_files

    (Path(app.outdir) / "_static").mkdir(parents=True, exist_ok=True)  # en frío
    add_global_html_resources(app, None)
    copy_asset_files(app, None)


def _comprobar(app, env) -> None:
    """env-updated, la última: la configuración que se guarda es la leída."""
    if (antes := getattr(app, ATTR, None)) is None:
        return
    if cambiadas := opciones_distintas(antes, app.config):
        logger.warning(
            "construccion_estable: la configuración cambió durante la construcción "
            "(%s): Sphinx la verá cambiada en la próxima. Fija su valor final en "
            "conf.py o en book/_ext/construccion_estable.py.", ", ".join(cambiadas))


def setup(app):
    app.connect("config-inited", _fijar, priority=990)
    app.connect("builder-inited", _normalizar, priority=990)
    app.connect("builder-inited", _hojas_antes_de_escribir, priority=990)
    app.connect("env-updated", _comprobar, priority=990)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
