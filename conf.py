# La configuración de Sphinx del libro «Residual y LayerNorm».
#
# Aquí está la construcción: extensiones, tema, numeración, KaTeX, idioma. Los ajustes
# de publicación que cambia quien mantiene el curso (título, repositorio y rama, botones
# de lanzamiento, ejecución de los notebooks) viven en _config.yml y este archivo los
# lee de allí (README.md, «Publicar y lanzar»). El índice del libro es _toc.yml
# (sphinx-external-toc). «make book» construye con sphinx-build -W -n --keep-going.
#
# Partió de «jupyter-book config sphinx .» (Jupyter Book 1.0.4); ya no depende de
# jupyter-book (que fija Sphinx 7): lo que añadía su orden lo dice cada ajuste de aquí.
# No vuelvas a ejecutar esa orden: sobrescribiría este archivo. _config.yml y _toc.yml
# siguen siendo de Jupyter Book 1 (tests/test_build.py); README.md, «Jupyter Book y
# este libro», dice por qué y qué pediría pasar a Jupyter Book 2.

import sys
from pathlib import Path

import yaml

RAIZ = Path(__file__).resolve().parent
PUBLICACION = yaml.safe_load((RAIZ / "_config.yml").read_text(encoding="utf-8"))
REPOSITORIO = PUBLICACION["repository"]
EJECUCION = PUBLICACION["execute"]

# -- El proyecto ----------------------------------------------------------------------

project = html_title = PUBLICACION["title"]
author = PUBLICACION["author"]
copyright = str(PUBLICACION["copyright"])
language = "es"

# -- Extensiones ----------------------------------------------------------------------

# Las extensiones propias del libro viven en book/_ext (no en resnorm, que no depende
# de Sphinx). Para añadir una: el archivo en book/_ext y su nombre en la lista de abajo.
sys.path.insert(0, str(RAIZ / "book" / "_ext"))
sys.path.insert(0, str(RAIZ / "tools"))  # pdf_sphinx: la página única de «make pdf»

import capitulo  # noqa: E402  (tools/: los capítulos en borrador)

# Los capítulos en borrador («"borrador": true» en los metadatos del notebook;
# README.md, «Añadir un capítulo»): «make book» los ejecuta, pero el libro no los lee
# ni los publica: fuera de la construcción (exclude_patterns, abajo), de su índice y
# de las tablas de capítulos (setup, al final).
BORRADORES = capitulo.borradores(RAIZ)

extensions = [
    # La primera: sus catálogos de la interfaz pasan delante de los de los temas y las
    # extensiones, que registran los suyos al cargarse (book/_ext/interfaz_es.py).
    "interfaz_es",
    "sphinx_togglebutton",
    "sphinx_copybutton",
    "myst_nb",  # MyST y notebooks; las salidas salen de la caché de ejecución
    "sphinx_thebe",  # «Código en vivo»
    "sphinx_external_toc",  # el índice, de _toc.yml
    "sphinx_design",
    "sphinx_book_theme",
    "sphinx_exercise",
    "sphinxcontrib.bibtex",
    # Las del libro (book/_ext):
    "referencias_es",  # citas y referencias: autor y año, «y» entre autores
    "fuentes_por_contenido",  # relee lo que cambió de contenido, no solo de fecha
    "curso_sitio",  # búsqueda, iconos, lanzamientos, ajustes de página
    "curso_estadisticas",  # la página de estadísticas de ejecución
    "tiempo_lectura",  # el tiempo de cada capítulo
    "quiz_progress",
    "math_katex",  # fórmulas dibujadas al construir
    "tema_ligero",
    "tema_sin_js",  # sin JavaScript, los colores del modo del sistema
    "pdf_sphinx",  # tools/: la página única del PDF y el enlace de la portada
    "figuras_telefono",  # los diagramas en versión de teléfono (<picture>)
    "curso_navegador",  # almacén en memoria, navegación y reíndice del glosario
    "cuadernos",  # los cuadernos del alumno (_build/html/cuadernos) y sus botones
    "construccion_estable",  # dos construcciones sin cambios: la misma configuración
    # Numeración de capítulos seguida entre las partes de _toc.yml («numbered: true»);
    # la última, como la cargaba jupyter-book.
    "sphinx_multitoc_numbering",
]

# -- Fuentes e índice -----------------------------------------------------------------

external_toc_path = "_toc.yml"
# Se construye también lo que no está en _toc.yml: book/estadisticas.md (para quien
# mantiene el curso) queda fuera del índice del lector («orphan»), pero se publica.
external_toc_exclude_missing = False
exclude_patterns = [
    "_build", ".venv*", "node_modules", ".pytest_cache", ".hypothesis", "tests",
    "bench", "binder", "_assets", "tools", "README.md", "book/_ext",
    "book/figuras/FIGURAS.md", "**.ipynb_checkpoints", ".DS_Store", "Thumbs.db",
    *(f"{doc}.ipynb" for doc in BORRADORES),
]

# MyST: las extensiones de sintaxis que usan los capítulos.
myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath", "substitution",
                          "deflist"]
myst_url_schemes = ["mailto", "http", "https"]
# Con el repositorio (_config.yml): «Cómo usar» lo enlaza ({{ repositorio_url }}).
myst_substitutions = {**PUBLICACION["enlaces"], "repositorio_url": REPOSITORIO["url"]}

# -- Ejecución de los notebooks (myst-nb + jupyter-cache) -----------------------------

# «make book» ejecuta antes los notebooks pendientes, en paralelo, en esta misma caché
# (jcache, el ejecutor de jupyter-cache); Sphinx solo lee de ella.
nb_execution_mode = EJECUCION["execute_notebooks"]
nb_execution_cache_path = EJECUCION["cache"]
nb_execution_timeout = EJECUCION["timeout"]
nb_execution_allow_errors = EJECUCION["allow_errors"]
nb_execution_in_temp = EJECUCION["run_in_temp"]
nb_execution_excludepatterns = []
nb_output_stderr = EJECUCION["stderr_output"]
nb_merge_streams = True
# Los widgets del curso (anywidget) se dibujan sin núcleo con un cargador propio de
# pocos KB (_assets/js/widgets-estaticos.js), no con el gestor completo de
# @jupyter-widgets (embed-amd.js, unos 900 KB comprimido). Solo en páginas con widgets.
# En esas mismas páginas, impresion.js prepara el papel (_assets/css/impresion.css):
# las soluciones y las respuestas de las preguntas, al final del capítulo.
nb_ipywidgets_js = {"js/widgets-estaticos.js": {}, "js/impresion.js": {}}

# -- Numeración y referencias ---------------------------------------------------------

numfig = True
numfig_format = {"figure": "Figura %s —", "table": "Tabla %s —"}
# El apéndice numera sus figuras aparte: «Figura A.1» (book/_ext/curso_sitio.py).
curso_prefijo_figuras = {"notebooks/12_cuanto_cuesta_normalizar": "A"}
nitpicky = True
nitpick_ignore_regex = [("py:.*", r"(numpy|np|torch)\..*")]
suppress_warnings = []
bibtex_bibfiles = ["book/referencias.bib"]
# Autor y año, con letra si se repiten, y en español (book/_ext/referencias_es.py).
bibtex_default_style = "autor_anio"
bibtex_reference_style = "autor_anio"

# -- HTML -----------------------------------------------------------------------------

html_theme = "sphinx_book_theme"
# Sin enlace de cada figura a su archivo: figuras_telefono.py les pone ancho y alto
# (sin saltos al cargar) y Sphinx enlazaría entonces toda imagen «escalada» a su
# original; al tocar una figura se abre la vista ampliada (figura-ampliada.js).
html_scaled_image_link = False
# La interfaz en español: los catálogos de gettext (Sphinx compila los .po al construir;
# book/_ext/interfaz_es.py) y, para los textos que el tema escribe sin gettext, sus
# componentes propios en book/_templates/ (cada uno dice qué cambia);
# book/_templates/layout.html cambia lo que la cabecera pide antes del primer dibujo.
locale_dirs = ["book/_ext/locale"]
# components/ va también en la ruta, como en los temas: sus plantillas incluyen
# "../components/x.html" y "../macros/x.html".
templates_path = ["book/_templates", "book/_templates/components"]
html_favicon = "_assets/favicon.svg"
html_static_path = ["_assets"]
# index.html redirige a la portada (book/intro), con descripción e icono.
html_additional_pages = {"index": "redireccion.html"}
# Las dos hojas que la plantilla del tema enlazaba a mano van en css_files, antes que
# las demás (book/_templates/layout.html ya no las enlaza), y basic.css en vez de
# styles/theme.css, que solo la importa (un viaje más antes del primer dibujo); las
# recorta tema_ligero.py. pydata-sphinx-theme borra de css_files la primera entrada
# de su hoja, que da por repetida (la nombra su theme.conf): es la de html_style, que
# deja la de sphinx-book-theme como estaba. formulas.css, justo después de la hoja de
# KaTeX (500); reserva.css, el alto de cada widget antes de dibujarse.
html_style = ["styles/pydata-sphinx-theme.css", "styles/sphinx-book-theme.css"]
# Las de prioridad 800 la llevan escrita: es la que les pondría Sphinx al crear el
# constructor, cambiando esta lista después de comparar la configuración guardada
# (book/_ext/construccion_estable.py).
HOJA_PROPIA = {"priority": 800}
html_css_files = [("css/curso.css", HOJA_PROPIA), ("css/ejercicios.css", HOJA_PROPIA),
                  ("css/widgets-pagina.css", HOJA_PROPIA),
                  ("css/impresion.css", HOJA_PROPIA),
                  ("basic.css", {"priority": 100}),
                  ("styles/pydata-sphinx-theme.css", {"priority": 100}),
                  ("css/formulas.css", {"priority": 501}),
                  ("css/reserva.css", {"priority": 900}),
                  ("iconos/iconos.css", {"priority": 500})]  # book/_ext/curso_sitio.py
# Los scripts propios de todas las páginas, módulos con defer; los de una sola, en su
# extensión.
html_js_files = [(f"js/{name}.js", {"type": "module", "defer": "defer",
                                    "priority": 900})
                 for name in ("interfaz-es", "codigo-en-vivo")]
html_show_sourcelink = True
# El botón de descarga enlaza la fuente tal cual (notebooks/x.ipynb, no x.ipynb.txt).
html_sourcelink_suffix = ""
html_context = {"default_mode": "auto"}
# El de pydata-sphinx-theme, que lo pondría en builder-inited si no se da aquí
# (book/_ext/construccion_estable.py).
html_permalinks_icon = "#"
pygments_style = "sphinx"

# La rama de los cuadernos del alumno (book/_ext/cuadernos.py; _config.yml).
cuadernos_rama = PUBLICACION["cuadernos_rama"]
# La dirección del sitio publicado (_config.yml, html.baseurl): los enlaces de los
# cuadernos del alumno son absolutos (book/_ext/cuadernos.py), y cada página lleva su
# <link rel="canonical">.
html_baseurl = PUBLICACION.get("html", {}).get("baseurl", "")

html_theme_options = {
    # Interfaz en español (el resto de textos del tema: book/_ext/locale/es/*.po).
    "search_bar_text": "Buscar en el curso…",
    "home_page_in_toc": True,
    "extra_footer": "",
    "use_download_button": True,
    # Publicación (_config.yml): el repositorio, su rama y los destinos de lanzamiento.
    # Un destino vacío no se muestra (curso_sitio.configure_launch_targets).
    "repository_url": REPOSITORIO["url"],
    "repository_branch": REPOSITORIO["branch"],
    "path_to_docs": REPOSITORIO.get("path_to_book", ""),
    "use_repository_button": bool(REPOSITORIO["url"]),
    "launch_buttons": PUBLICACION["launch_buttons"],
    # Los valores que pondría pydata-sphinx-theme en builder-inited, ya puestos
    # (book/_ext/construccion_estable.py): sin enlaces de iconos ni logotipo.
    "icon_links": [],
    "logo": {},
}
# «Código en vivo» (sphinx-thebe): el repositorio y la rama, que sphinx-book-theme
# pondría en builder-inited (book/_ext/construccion_estable.py).
thebe_config = {"repository_url": REPOSITORIO["url"],
                "repository_branch": REPOSITORIO["branch"] or "master"}

# Fórmulas dibujadas al construir con KaTeX (book/_ext/math_katex.py): HTML y MathML en
# la página, sin JavaScript de matemáticas; la hoja y las fuentes, vendorizadas.
html_math_renderer = "katex"
katex_prerender = True
# El katex de node_modules (package-lock.json), no la copia de otra versión que trae
# sphinxcontrib-katex; «make vendor» lo instala.
katex_js_path = str(RAIZ / "node_modules" / "katex" / "dist" / "katex.min.js")
katex_css_path = "vendor/katex/katex.min.css"


# -- Los capítulos en borrador --------------------------------------------------------


def _indice_sin_borradores(app, config):
    """Quita los borradores del índice que sphinx-external-toc acaba de leer de
    _toc.yml (en el mismo evento, prioridad 900): ni entrada ni número de capítulo."""
    indice = config.external_site_map
    for doc in BORRADORES:
        indice.pop(doc, None)
    for documento in indice.values():
        for arbol in documento.subtrees:
            arbol.items = [i for i in arbol.items if str(i) not in BORRADORES]


def _tablas_sin_borradores(app, docname, source):
    """Las tablas de capítulos (capitulo.TABLAS) sin las filas de los borradores."""
    source[0] = capitulo.sin_filas_de(source[0], BORRADORES)


def setup(app):
    if BORRADORES:
        app.connect("config-inited", _indice_sin_borradores, priority=901)
        app.connect("source-read", _tablas_sin_borradores)
