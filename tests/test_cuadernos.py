"""Los cuadernos del alumno (book/_ext/cuadernos.py): se leen como la página.

Primero, el conversor con entradas pequeñas: cada rol y cada directiva, la regla de
las celdas quitadas (``ast``) y las soluciones plegadas. Después (marca ``build``),
los cuadernos que escribió «make book»: ni un rol ni una directiva en bruto en el HTML
de nbconvert, ninguna solución a la vista, los números de la prosa iguales a los de
la página, y (``slow``) cada cuaderno ejecutado de arriba abajo en un núcleo nuevo
imprime los números de la página.
"""

from __future__ import annotations

import base64
import re
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import nbformat
import pytest
import yaml
from bs4 import BeautifulSoup
from docutils import nodes
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.mdit import create_md_parser
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from cuadernos import (
    COMO_CARGAR,
    Conversor,
    destinos_de,
    nombres,
    urls_de_lanzamiento,
)
from tests.helpers import BUILD_HTML, ROOT, built_soup, notebook_paths

NOTEBOOKS = notebook_paths()
CUADERNOS = BUILD_HTML / "cuadernos"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfalso").decode()
# Lo que un lector nunca debe ver en bruto: roles y directivas de MyST.
EN_BRUTO = re.compile(r"\{[a-z]+(?::[a-z]+)?\}`|:::\{|```\{|\{glue|\{numref|\{cite")


class Falso(Conversor):
    """Un conversor sin Sphinx: el MyST del libro; referencias y citas con datos
    pequeños."""

    NUMEROS = {"fig-a": "4.1", "ej-04-2": "4.2"}

    def __init__(self, sustituciones):
        myst = MdParserConfig(enable_extensions={
            "colon_fence", "dollarmath", "amsmath", "substitution", "deflist"})
        self.md = create_md_parser(myst, RendererHTML)
        self.sustituciones = sustituciones
        self.pegados, self.adjuntos, self.ejercicios, self.secciones = {}, {}, {}, {}
        self.mostradas = set()

    def _resolver(self, dominio, tipo, objetivo, titulo=""):
        """Lo que devolvería el dominio: nodos de docutils, como en Sphinx."""
        if dominio == "cite":
            url = f"../book/referencias.html#{objetivo}"
            año = nodes.reference("", "2016", refuri=url)
            return nodes.inline("", "", nodes.Text("Ba "), nodes.emphasis("", "et al."),
                                nodes.Text(" ["), año, nodes.Text("]"))
        texto = titulo.replace("%s", self.NUMEROS.get(objetivo, "")) or objetivo
        return nodes.reference("", texto, refuri=f"../notebooks/04.html#{objetivo}")

    def enlace(self, href):
        return href


def conversor(**pegados) -> Falso:
    c = Falso(sustituciones={"paso8_url": "https://ejemplo.org/paso-8"})
    c.pegados = {k: {"text/plain": v} for k, v in pegados.items()}
    return c


# --- Roles -------------------------------------------------------------------------


def test_a_glued_number_reads_with_the_page_format_spec():
    c = conversor(sigma="0.19771", vector="'[−1.000, 1.000]'")
    md = c.markdown("$\\sigma$ = {glue:text}`sigma:.4f` y {glue:text}`vector`.")
    assert md == "$\\sigma$ = 0.1977 y [−1.000, 1.000]."


def test_a_glued_number_with_a_percent_or_integer_spec():
    c = conversor(p="0.125", n="12.0")
    assert c.markdown("{glue:text}`p:.1%` y {glue:text}`n:.0f`") == "12.5% y 12"


def test_numref_becomes_the_number_linking_to_the_page():
    md = conversor().markdown("La\n{numref}`Figura %s <fig-a>` lo dibuja.")
    assert md == "La\n[Figura 4.1](../notebooks/04.html#fig-a) lo dibuja."


def test_cite_term_doc_and_substitution():
    md = conversor().markdown(
        "{cite:t}`ba2016` y una {term}`conexión residual <residual>`; "
        "{doc}`el 5 <05_gamma>` y {{ paso8_url }}.")
    assert md == (
        "Ba *et al.* [[2016](../book/referencias.html#ba2016)] y una conexión "
        "residual; [el 5](../notebooks/04.html#05_gamma) y https://ejemplo.org/paso-8.")


def test_roles_in_and_after_a_definition_list_term_are_resolved():
    c = conversor(a="1.5", b="2.25")
    fuente = ("Término {glue:text}`a:.1f`\n: definición {glue:text}`b:.2f`\n\n"
              "Fin {glue:text}`a:.0f`\n")
    assert c.markdown(fuente) == "Término 1.5\n: definición 2.25\n\nFin 2\n"


def test_a_role_in_a_code_span_is_left_alone():
    c = conversor(x="1.0")
    assert c.markdown("Escribe `{glue:text}` así: {glue:text}`x:.1f`") == (
        "Escribe `{glue:text}` así: 1.0")


def test_sections_are_numbered_as_on_the_page_but_not_the_title():
    c = conversor()
    c.secciones = {"Qué hace ε": "4.5", "Comparación con torch.nn.LayerNorm": "4.6"}
    md = c.markdown("# LayerNorm\n\n## Qué hace ε\n\nTexto.\n\n"
                    "### Comparación con `torch.nn.LayerNorm`\n\n## Otra\n")
    assert md == ("# LayerNorm\n\n## 4.5. Qué hace ε\n\nTexto.\n\n"
                  "### 4.6. Comparación con `torch.nn.LayerNorm`\n\n## Otra\n")


# --- Directivas --------------------------------------------------------------------


def test_an_admonition_is_a_quote_with_a_bold_title():
    md = conversor(s="0.2").markdown(
        "```{admonition} Aviso: no redondees\n:class: warning\n\n"
        "Vale {glue:text}`s:.1f`.\n\nOtra línea.\n```")
    assert md.strip() == "> **Aviso: no redondees**\n>\n> Vale 0.2.\n>\n> Otra línea."


def test_hints_and_dropdowns_are_folded_details():
    c = conversor()
    hint = c.markdown("```{admonition} Pista 1\n:class: dropdown\n\nMira el eje.\n```")
    drop = c.markdown(":::{dropdown} Más\nTexto\n:::")
    assert hint.strip() == (
        "<details>\n<summary>Pista 1</summary>\n\nMira el eje.\n\n</details>")
    assert drop.strip() == "<details>\n<summary>Más</summary>\n\nTexto\n\n</details>"
    code = c.markdown(":::{dropdown} ¿Por qué `torch.std` divide entre d − 1?\nT\n:::")
    assert "<summary>¿Por qué <code>torch.std</code> divide entre d − 1?</summary>" in (
        code)


def test_an_exercise_is_numbered_as_on_the_page_and_its_solution_named():
    c = conversor()
    ej = c.markdown(
        "```{exercise} LayerNorm de un lote\n:label: ej-04-2\n\nEscribe.\n```")
    assert ej.strip() == "> **Ejercicio 4.2 (LayerNorm de un lote)**\n>\n> Escribe."
    sol = c.markdown("```{solution-start} ej-04-2\n:class: dropdown\n```")
    assert sol.strip() == "Solución del Ejercicio 4.2 (LayerNorm de un lote)"
    assert c.markdown("```{solution-end}\n```").strip() == ""


def test_a_figure_directive_embeds_the_svg_and_numbers_its_caption(tmp_path):
    (tmp_path / "eje.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    c = conversor()
    c.carpeta = tmp_path
    md = c.markdown("```{figure} eje.svg\n:alt: Dos rejillas\n:name: fig-a\n\n"
                    "Qué eje normaliza.\n```")
    svg = base64.b64encode((tmp_path / "eje.svg").read_bytes()).decode()
    assert md.strip() == (f"![Dos rejillas](data:image/svg+xml;base64,{svg})\n\n"
                          "**Figura 4.1** — Qué eje normaliza.")
    assert c.adjuntos == {}  # Lab no dibuja un SVG adjunto


def test_a_glued_figure_is_embedded_unless_an_output_already_shows_it():
    c = conversor()
    c.pegados["fig-a"] = {
        "text/html": f'<img src="data:image/png;base64,{PNG}" alt="Barras [2, 4]">',
        "text/plain": "Barras [2, 4]"}
    fuente = "```{glue:figure} fig-a\n:name: fig-a\n\nLos vectores.\n```"
    assert c.markdown(fuente).strip() == (
        "![Barras (2, 4)](attachment:fig-a.png)\n\n**Figura 4.1** — Los vectores.")
    assert c.adjuntos["fig-a.png"] == {"image/png": PNG}
    c.mostradas.add("fig-a")
    assert c.markdown(fuente).strip() == "**Figura 4.1** — Los vectores."


# --- Celdas de código --------------------------------------------------------------


def celda(source, tags=(), outputs=()):
    return new_code_cell(source, metadata={"tags": list(tags)} if tags else {},
                         outputs=list(outputs))


def glue_out(name, text):
    return new_output("display_data", data={
        "application/papermill.record/text/plain": text},
        metadata={"scrapbook": {"name": name,
                                "mime_prefix": "application/papermill.record/"}})


def test_names_a_cell_defines_and_reads_even_with_magics():
    define, lee = nombres("%matplotlib inline\nimport numpy as np\nx = np.ones(3)\n"
                          "def f(y):\n    return y + z\n")
    assert define == {"np", "x", "f"}
    assert {"np", "z"} <= lee and "y" not in lee  # y: el argumento de f
    assert nombres("x += 1")[1] == {"x"}  # lee x antes de escribirla


def test_a_removed_cell_stays_folded_only_if_a_later_cell_needs_it():
    cells = [
        celda("a = 1\nassert a", ["remove-cell"]),           # la usa la última
        celda("assert a == 1", ["remove-cell"]),             # solo comprueba
        celda("b = 2", ["remove-cell"]),                      # nadie lee b
        celda("print(a)"),
    ]
    assert destinos_de(cells) == (["apoyo", "fuera", "fuera", "visible"], {0: {"a"}})
    nb = conversor().cuaderno(new_notebook(cells=cells))
    assert [c.source.splitlines()[-1] for c in nb.cells] == ["assert a", "print(a)"]
    apoyo = nb.cells[0]
    assert apoyo.source.startswith(
        "# Oculta en la página; aquí hace falta: define a, que se usa abajo.\n")
    assert apoyo.metadata.jupyter == {"source_hidden": True}
    assert "tags" not in apoyo.metadata


def test_a_later_redefinition_frees_the_removed_cell():
    cells = [celda("x = 1", ["remove-cell"]), celda("x = 2\nprint(x)"),
             celda("n = 3", ["remove-cell"]), celda("[n for n in range(2)]"),
             celda("for k in range(2):\n    print(k)"),
             celda("a, b = 1, 2", ["remove-cell"]),
             celda("def casi(a, b):\n    return abs(a - b) < 1e-9")]
    assert destinos_de(cells)[0] == [
        "fuera", "visible", "fuera", "visible", "visible", "fuera", "visible"]


def test_the_comment_of_a_support_cell_names_what_later_cells_read():
    from cuadernos import comentario_de_apoyo

    assert comentario_de_apoyo({"x1", "f1"}) == (
        "# Oculta en la página; aquí hace falta: define f1 y x1, que se usan abajo.")
    assert len(comentario_de_apoyo({f"nombre_{i}" for i in range(9)})) <= 88


def test_glue_only_hidden_cells_go_and_glue_outputs_leave_visible_cells():
    cells = [
        celda("sigma = 0.2\nprint(f'σ = {sigma:.4f}')", outputs=[
            new_output("stream", name="stdout", text="σ = "),
            new_output("stream", name="stdout", text="0.2000\n")]),
        celda("glue_number('sigma', sigma)", ["remove-cell"],
              [glue_out("sigma", "0.2")]),
        new_markdown_cell("σ = {glue:text}`sigma:.2f`"),
    ]
    nb = conversor().cuaderno(new_notebook(cells=cells))
    assert [c.cell_type for c in nb.cells] == ["code", "markdown"]
    assert [o.text for o in nb.cells[0].outputs] == ["σ = 0.2000\n"]
    assert nb.cells[1].source == "σ = 0.20"


def glued_figure(name="fig-a", alt="Curvas"):
    html = (f'<img class="curso-figura" src="data:image/png;base64,{PNG}" '
            f'width="640" height="400" alt="{alt}">')
    return new_output("display_data", data={
        "application/papermill.record/text/html": html,
        "application/papermill.record/text/plain": alt},
        metadata={"scrapbook": {"name": name,
                                "mime_prefix": "application/papermill.record/"}})


def test_a_glued_figure_shows_in_the_output_of_the_visible_cell_that_draws_it():
    # La celda visible dibuja (sin salida: MPLBACKEND=Agg al construir) y una celda
    # oculta la pega con glue_figure. En el cuaderno la figura es la salida de la
    # celda que la dibuja: al ejecutarla, la figura nueva la sustituye; el pie no la
    # repite (si no, tras ejecutar, se veía dos veces).
    cells = [celda("fig, ax = plt.subplots()\nax.plot([1, 2])"),
             celda("glue_figure('fig-a', fig, alt='Curvas')", ["remove-cell"],
                   [glued_figure()]),
             new_markdown_cell("```{glue:figure} fig-a\n:name: fig-a\n\nDos.\n```")]
    nb = conversor().cuaderno(new_notebook(cells=cells))
    assert [c.cell_type for c in nb.cells] == ["code", "markdown"]
    (shown,) = nb.cells[0].outputs
    assert shown.output_type == "display_data"
    assert shown.data == {"image/png": PNG, "text/plain": "Curvas"}
    assert shown.metadata == {"image/png": {"width": 640, "height": 400}}
    assert nb.cells[1].source == "**Figura 4.1** — Dos."
    assert "attachments" not in nb.cells[1]


def test_a_figure_drawn_by_a_removed_cell_goes_into_the_caption_cell():
    cells = [celda("fig, ax = plt.subplots()\nax.plot([1, 2])",
                   ["hide-input", "remove-output"]),
             celda("glue_figure('fig-a', fig, alt='Curvas')", ["remove-cell"],
                   [glued_figure()]),
             new_markdown_cell("```{glue:figure} fig-a\n:name: fig-a\n\nDos.\n```")]
    nb = conversor().cuaderno(new_notebook(cells=cells))
    assert [c.cell_type for c in nb.cells] == ["markdown"]
    assert nb.cells[0].source == (
        "![Curvas](attachment:fig-a.png)\n\n**Figura 4.1** — Dos.")
    assert nb.cells[0].attachments == {"fig-a.png": {"image/png": PNG}}


def test_a_hidden_cell_with_nothing_left_to_show_is_not_an_empty_folded_cell():
    # remove-output quita su texto; sin figura, no queda nada que desplegar.
    cells = [celda("x = 1\nprint(x)", ["hide-input", "remove-output"],
                   [new_output("stream", name="stdout", text="1\n")]),
             celda("y = 2\nprint(y)", ["hide-input", "remove-output"],
                   [new_output("stream", name="stdout", text="2\n")]),
             celda("print(x)")]
    nb = conversor().cuaderno(new_notebook(cells=cells))
    assert [c.source.splitlines()[-1] for c in nb.cells] == ["print(x)", "print(x)"]
    assert nb.cells[0].source.startswith("# Oculta en la página")


def test_a_figure_an_output_already_shows_is_not_embedded_again_in_its_caption():
    # La celda visible muestra la figura en su salida (se queda): el pie no la repite.
    html = f'<img src="data:image/png;base64,{PNG}" alt="Curvas">'
    glued = new_output("display_data", data={
        "application/papermill.record/text/html": html,
        "application/papermill.record/text/plain": "Curvas"},
        metadata={"scrapbook": {"name": "fig-a",
                                "mime_prefix": "application/papermill.record/"}})
    shown = new_output("display_data",
                       data={"image/png": PNG, "text/plain": "<Figure>"})
    cells = [celda("fig, ax = plt.subplots()\nax.plot([1, 2])", outputs=[shown]),
             celda("glue_figure('fig-a', fig, alt='Curvas')", ["remove-cell"], [glued]),
             new_markdown_cell("```{glue:figure} fig-a\n:name: fig-a\n\nDos.\n```")]
    nb = conversor().cuaderno(new_notebook(cells=cells))
    assert [c.cell_type for c in nb.cells] == ["code", "markdown"]
    assert nb.cells[0].outputs[0].data["image/png"] == PNG
    assert nb.cells[1].source == "**Figura 4.1** — Dos."
    assert "attachments" not in nb.cells[1]


def test_a_support_cell_keeps_its_code_but_not_its_glue():
    from cuadernos import sin_pegado

    code = ("from resnorm.book import glue_number, glue_sci\n"
            "glue_number('s', s)\n"
            "for k in ks:\n    glue_sci(f'g_{k}', g[k])\n"
            "plana = g['plain']  # la usa una celda de abajo\n"
            "assert plana[-1] < plana[0]")
    assert sin_pegado(code) == (
        "plana = g['plain']  # la usa una celda de abajo\nassert plana[-1] < plana[0]")
    cells = [celda("from resnorm.book import glue_number", ["remove-cell"]),
             celda(code, ["remove-cell"]), celda("print(plana)")]
    nb = conversor().cuaderno(new_notebook(cells=cells))
    assert len(nb.cells) == 2 and "glue" not in nb.cells[0].source


def test_the_colab_cell_stays_first_and_visible():
    colab = celda('import sys\nif "google.colab" in sys.modules:\n    %pip install x',
                  ["remove-cell"])
    nb = conversor().cuaderno(new_notebook(cells=[colab, celda("import numpy")]))
    assert nb.cells[0].source == colab.source
    assert "jupyter" not in nb.cells[0].metadata


def test_a_solution_is_folded_markdown_that_run_all_never_executes():
    stub = "def f(x):\n    raise NotImplementedError  # escribe aquí tu solución\n"
    cells = [
        new_markdown_cell("```{exercise} Uno\n:label: ej-04-2\n\nEscribe f.\n```"),
        celda(stub, ["ejercicio"]),
        new_markdown_cell("```{solution-start} ej-04-2\n:class: dropdown\n```"),
        celda("def f(x):\n    return x\n\n\ncheck(f)", ["solucion"],
              [new_output("execute_result", data={"text/plain": "✓ ok"},
                          execution_count=7)]),
        new_markdown_cell("Por qué: {glue:text}`s:.1f`."),
        new_markdown_cell("```{solution-end}\n```"),
        new_markdown_cell("Después."),
    ]
    nb = conversor(s="0.25").cuaderno(new_notebook(cells=cells))
    assert [c.cell_type for c in nb.cells] == [
        "markdown", "code", "markdown", "markdown"]
    assert "raise NotImplementedError" in nb.cells[1].source
    solution = nb.cells[2]
    assert solution.metadata == {"tags": ["solucion"]}
    assert solution.source == (
        "<details>\n<summary>Solución del Ejercicio 4.2 (Uno)</summary>\n\n"
        f"{COMO_CARGAR}\n\n```python\ndef f(x):\n    return x\n\n\ncheck(f)\n```\n\n"
        "Por qué: 0.2.\n\n</details>")
    assert "✓" not in str(nb) and nb.cells[3].source == "Después."


def test_a_code_block_fence_is_longer_than_any_in_the_code():
    from cuadernos import bloque_de_codigo

    assert bloque_de_codigo('s = """\n```\n"""\n') == (
        '````python\ns = """\n```\n"""\n````')


def test_a_support_cell_inside_a_solution_stays_code_after_it():
    cells = [
        new_markdown_cell("```{solution-start} ej-04-2\n:class: dropdown\n```"),
        celda("def f(x):\n    return x", ["solucion"]),
        celda("k = 3", ["remove-cell"]),
        new_markdown_cell("```{solution-end}\n```"),
        celda("print(k)"),
    ]
    nb = conversor().cuaderno(new_notebook(cells=cells))
    assert [c.cell_type for c in nb.cells] == ["markdown", "code", "code"]
    assert nb.cells[1].source.endswith("k = 3")
    assert nb.cells[1].metadata.jupyter == {"source_hidden": True}


def test_remove_output_keeps_the_figure_and_drops_the_text():
    img = new_output("display_data", data={"image/png": PNG, "text/plain": "fig"})
    cells = [celda("plot()", ["hide-input", "remove-output"], [
        new_output("stream", name="stdout", text="paso 1\n"), img])]
    (kept,) = conversor().cuaderno(new_notebook(cells=cells)).cells
    assert kept.outputs == [img] and kept.metadata.jupyter == {"source_hidden": True}


def test_a_widget_says_in_spanish_what_to_do_before_the_kernel_runs():
    view = {"application/vnd.jupyter.widget-view+json": {"model_id": "1"}}
    cells = [celda("LayerNormExplorer()", outputs=[new_output("execute_result", data={
        **view, "text/plain": "<resnorm.widgets.layer_norm.LayerNormExplorer object "
                              "at 0x7f1b>"}, execution_count=3)]),
             celda("Quiz.from_bank('a', 'b')", ["remove-input"], [new_output(
                 "display_data", data={**view, "text/plain": "<resnorm.quiz.Quiz "
                                                              "object at 0x7f>"})])]
    nb = conversor().cuaderno(new_notebook(cells=cells))
    assert [c.outputs[0].data["text/plain"] for c in nb.cells] == [
        "Widget interactivo LayerNormExplorer: ejecuta la celda para usarlo.",
        "Pregunta de autoevaluación: ejecuta la celda para responderla."]


def test_launch_urls_open_the_learner_notebook_from_its_branch():
    urls = urls_de_lanzamiento(
        "04_layernorm.ipynb", "https://github.com/org/curso", "cuadernos",
        {"binderhub_url": "https://mybinder.org", "colab_url":
         "https://colab.research.google.com", "jupyterhub_url": ""})
    assert set(urls) == {"Binder", "Colab"}
    assert urls["Colab"] == ("https://colab.research.google.com/github/org/curso/blob/"
                             "cuadernos/04_layernorm.ipynb")
    binder = urlsplit(urls["Binder"])
    # Binder construye la rama de los cuadernos (su .binder/ y su resnorm, los de la
    # publicación) y abre el cuaderno en su raíz.
    assert binder.path == "/v2/gh/org/curso/cuadernos"
    assert parse_qs(binder.query) == {"urlpath": ["lab/tree/04_layernorm.ipynb"]}


# --- Los cuadernos que escribió «make book» -----------------------------------------


def cuaderno_de(path):
    return nbformat.read(CUADERNOS / path.name, as_version=4)


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_nbconvert_html_of_each_learner_notebook_has_no_raw_role_or_directive(
        path, built_site):
    from nbconvert import HTMLExporter

    nb = cuaderno_de(path)
    nbformat.validate(nb)
    html, _ = HTMLExporter(template_name="classic").from_notebook_node(nb)
    soup = BeautifulSoup(html, "html.parser")
    prose = " ".join(c.get_text(" ") for c in soup.select(".text_cell_render"))
    assert prose.strip(), "nbconvert no dibujó la prosa"
    assert not EN_BRUTO.findall(prose), (path.name, EN_BRUTO.findall(prose)[:5])
    # Una directiva en bruto se dibuja como bloque de código «language-{nombre}».
    fenced = [c["class"] for c in soup.select('.text_cell_render code[class*="{"]')]
    assert not fenced, (path.name, fenced[:5])


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_solution_in_the_open_and_every_exercise_keeps_its_stub(path, built_site):
    nb = cuaderno_de(path)
    source = nbformat.read(path, as_version=4)
    n_sol = sum("solucion" in c.metadata.get("tags", []) for c in source.cells)
    sols = [c for c in nb.cells if "solucion" in c.metadata.get("tags", [])]
    assert len(sols) == n_sol
    for cell in sols:  # Markdown plegado: Run All no lo ejecuta
        assert cell.cell_type == "markdown" and cell.source.startswith("<details>")
    stubs = [c for c in nb.cells if "ejercicio" in c.metadata.get("tags", [])]
    assert all("raise NotImplementedError" in c.source for c in stubs)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert "%pip install" in code[0].source, "la primera celda ya no instala resnorm"


def page_numbers(path) -> list[str]:
    """Los valores pegados que muestra la página (``span.pasted-text``)."""
    soup = built_soup(path.relative_to(ROOT).with_suffix(".html").as_posix())
    return [s.get_text() for s in soup.select("span.pasted-text")]


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_number_the_page_glues_is_in_the_learner_prose(path, built_site):
    nb = cuaderno_de(path)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    missing = [t for t in page_numbers(path) if t not in prose]
    assert not missing, f"{path.name}: {missing[:5]}"


def plumbing(nb) -> list[str]:
    """Llamadas de fontanería (``show(``, ``show_figure(``, ``glue``) en código a la
    vista."""
    calls = re.compile(r"\b(show|show_figure)\(|\bglue\w*")
    return [m.group(0) for c in nb.cells if c.cell_type == "code"
            and not c.metadata.get("jupyter", {}).get("source_hidden")
            for m in calls.finditer(c.source)]


def test_plumbing_finds_show_and_glue_only_in_visible_code():
    hidden = celda("glue_number('s', s)")
    hidden.metadata["jupyter"] = {"source_hidden": True}
    nb = new_notebook(cells=[celda("from resnorm.book import glue_number, show\n"
                                   "show('s', s)\nprint(f'{s:.4f}')"), hidden])
    assert plumbing(nb) == ["glue_number", "show("]


# Paso 3 del issue 29 (otras ramas): la celda visible calcula e imprime; el pegado va
# en una celda oculta. Hasta que esas ramas se junten, esta prueba falla a propósito.
@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_plumbing_call_in_the_code_a_learner_reads(path, built_site):
    calls = plumbing(cuaderno_de(path))
    assert not calls, f"{path.name}: {len(calls)} llamadas a la vista: {calls[:5]}"


@pytest.mark.build
def test_make_lab_copies_the_missing_notebooks_and_never_overwrites_an_edit(
        tmp_path, built_site):
    import subprocess

    lab = tmp_path / "lab"
    lab.mkdir()
    edited = lab / NOTEBOOKS[0].name
    edited.write_text("lo que escribió quien aprende", encoding="utf-8")
    subprocess.run(["make", "-s", "--no-print-directory", "lab-copy", f"LAB_DIR={lab}"],
                   cwd=ROOT, check=True)
    assert edited.read_text(encoding="utf-8") == "lo que escribió quien aprende"
    assert sorted(p.name for p in lab.iterdir()) == sorted(p.name for p in NOTEBOOKS)
    for path in NOTEBOOKS[1:]:
        assert (lab / path.name).read_bytes() == (CUADERNOS / path.name).read_bytes()


# --- Un núcleo nuevo imprime los números de la página --------------------------------


def readings(text: str) -> list[tuple[float, float]]:
    """(valor, tolerancia) de cada número de ``text`` (sin los enteros de una cifra):
    medio último dígito (``0.1977`` → ±0.00005; ``8.3 × 10⁻¹⁷`` → ±0.05 × 10⁻¹⁷)."""
    from resnorm.book import _NO_GROUPS, _NUMBER_RE, _SUPERSCRIPTS, _to_float

    out = []
    for token in _NUMBER_RE.findall(text):
        mantissa, _, power = (re.split(r"([eE]|\s?×\s?10)", token, maxsplit=1)
                              + ["", ""])[:3]
        mantissa = mantissa.translate(_NO_GROUPS)  # «45 711», como la RAE
        decimals = len(mantissa.partition(".")[2])
        if decimals == 0 and not power and abs(float(mantissa.replace("−", "-"))) < 10:
            continue  # un entero de una cifra aparece en cualquier salida
        exponent = int(power.translate(_SUPERSCRIPTS).replace("−", "-") or 0)
        if abs(exponent) > 300:
            continue  # fuera de float64 («1e400» al explicar el desbordamiento)
        out.append((_to_float(token), 0.5 * 10.0 ** (exponent - decimals)))
    return out


def printed(value: tuple[float, float], outputs: list[tuple[float, float]]) -> bool:
    """¿Imprime la salida el número de la página (el mismo, redondeado)?"""
    page, tol = value
    return any(abs(out - page) <= tol * (1 + 1e-9) for out, _ in outputs)


def test_a_page_number_is_found_printed_with_more_or_the_same_decimals():
    outputs = readings("σ = 0.197658\n|media| = 8.3 × 10⁻¹⁷\nx = [−1.024, 0.266]")
    assert printed(readings("0.1977")[0], outputs)
    assert printed(readings("−1.02")[0], outputs)
    assert printed(readings("8.3 × 10⁻¹⁷")[0], outputs)
    assert not printed(readings("0.1978")[0], outputs)
    assert not printed(readings("8.4 × 10⁻¹⁷")[0], outputs)
    assert readings("con 4 capas") == []
    assert readings("32 MiB") == [(32.0, 0.5)]
    assert readings("con 45\u202f711 caracteres") == [(45711.0, 0.5)]


def measured_values(path) -> list[float]:
    """Los valores pegados que son tiempos medidos (``measured = true`` en
    ``tests/expected_values.toml``): cambian de una ejecución a otra."""
    from tests.helpers import built_notebook
    from tests.numbers import glued_values, load_expected

    specs = load_expected().get(path.stem, {})
    glued = glued_values(built_notebook(path))
    return [float(glued[name]) for name, spec in specs.items()
            if spec.get("measured") and name in glued]


def output_text(nb, timings=()) -> str:
    """El texto de las salidas, sin las que imprimen alguno de los tiempos medidos
    ``timings`` (la tabla del cap. 12): todos sus números cambian con la máquina."""
    texts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            text = out.get("text", "") or data.get("text/plain", "")
            if not any(printed(value, timings) for value in readings(text)):
                texts.append(text)
    return "\n".join(texts)


def test_outputs_that_print_a_measured_time_give_no_sample():
    """La tabla de tiempos imprime, con otros números, un cociente medido: fuera
    entera; la salida que solo imprime cuentas exactas se queda."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(outputs=[
        nbformat.v4.new_output("stream", text="clone   6.5 ms   ×copia 5.4\n"),
        nbformat.v4.new_output("stream", text="x: 16 MiB; leer y escribir: 32 MiB\n"),
    ])])
    assert readings(output_text(nb, [(5.42, 0.0)])) == [(16.0, 0.5), (32.0, 0.5)]
    assert len(readings(output_text(nb))) == 4


# Cada capítulo imprime al menos estos números de su prosa (los demás los calcula
# una celda oculta, o son de una figura): si baja, la prueba se queda sin muestra.
MIN_SAMPLE = 3


@pytest.mark.build
@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_learner_notebook_runs_on_a_fresh_kernel_and_prints_the_page_numbers(
        path, built_site, tmp_path, gpt_memo):
    """Los entrenamientos del GPT (capítulo 10) salen de la memoria que llenó la
    ejecución del libro (``gpt_memo``): los mismos argumentos; una celda del cuaderno
    que llamara con otros entrenaría y tendría que imprimir los mismos números."""
    from nbclient import NotebookClient

    # Quien aprende carga cada solución a propósito (su código, en una celda nueva).
    stored = with_solutions_loaded(cuaderno_de(path))
    # Los números de la prosa que la construcción imprimió en el cuaderno (salvo los
    # tiempos medidos y las salidas que los imprimen: cambian en cada ejecución)...
    timings = [(t, 0.0) for t in measured_values(path)]
    shown = readings(output_text(stored, timings))
    sample = [v for t in page_numbers(path) for v in readings(t)
              if printed(v, shown) and not printed(v, timings)]
    assert len(sample) >= MIN_SAMPLE, (
        f"{path.name}: la prosa cita {len(sample)} de los números que imprimen sus "
        f"salidas; hacen falta al menos {MIN_SAMPLE}")
    # ...los imprime también un núcleo nuevo, en una carpeta cualquiera.
    fresh = NotebookClient(stored, timeout=600, kernel_name="python3",
                           resources={"metadata": {"path": str(tmp_path)}}).execute()
    again = readings(output_text(fresh))
    missing = [v for v in sample if not printed(v, again)]
    assert not missing, f"{path.name}: {missing[:5]} de {len(sample)}"


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_sections_carry_the_numbers_of_the_page(path, built_site):
    soup = built_soup(path.relative_to(ROOT).with_suffix(".html").as_posix())
    numbers = [m.group(0) for h in soup.select("main section h2, main section h3")
               if (m := re.match(r"(?:\d+|[A-Z])(?:\.\d+)+\.", h.get_text(strip=True)))]
    headings = [line.split(" ", 1)[1] for c in cuaderno_de(path).cells
                if c.cell_type == "markdown" for line in c.source.splitlines()
                if re.match(r"#{2,} ", line)]
    # (El apéndice no numera sus secciones: ni la página ni el cuaderno.)
    assert [h.split(" ", 1)[0] for h in headings if h[0].isdigit()] == numbers


# --- Los enlaces del cuaderno llevan al sitio publicado -------------------------------

#: La dirección del sitio publicado (_config.yml, html.baseurl; conf.py html_baseurl).
BASEURL = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))[
    "html"]["baseurl"]


def test_a_link_is_absolute_from_the_published_site_address():
    c = conversor()
    c.app = SimpleNamespace(config=SimpleNamespace(
        html_baseurl="https://org.github.io/curso/"))
    enlace = Conversor.enlace  # la de verdad, no la de Falso
    assert enlace(c, "../notebooks/04.html#fig-a") == (
        "https://org.github.io/curso/notebooks/04.html#fig-a")
    assert enlace(c, "https://doi.org/10.1") == "https://doi.org/10.1"
    c.app.config.html_baseurl = ""
    assert enlace(c, "../book/referencias.html#id3") == "../book/referencias.html#id3"


def test_a_substitution_expression_is_rendered_as_myst_renders_it():
    md = conversor().markdown(
        "Fin.\n\n{{ '**[Continúa en el Paso 8 →]({})**'.format(paso8_url) }}")
    assert md == "Fin.\n\n**[Continúa en el Paso 8 →](https://ejemplo.org/paso-8)**"


def enlaces_de(nb) -> list[str]:
    """Los destinos de los enlaces e imágenes de la prosa, como los dibuja Jupyter
    (Markdown de CommonMark, con el HTML de los ``<details>``)."""
    md = MarkdownIt("commonmark")
    destinos = []
    for celda in nb.cells:
        if celda.cell_type == "markdown":
            soup = BeautifulSoup(md.render(celda.source), "html.parser")
            destinos += [a["href"] for a in soup.select("a[href]")]
            destinos += [i["src"] for i in soup.select("img[src]")]
    return [d for d in destinos if not d.startswith(("attachment:", "data:"))]


_IDS: dict[str, set[str]] = {}


def ids_de(pagina: str) -> set[str]:
    """Los ``id`` de una página construida (las anclas a las que se puede enlazar)."""
    if pagina not in _IDS:
        _IDS[pagina] = {t["id"] for t in built_soup(pagina).select("[id]")}
    return _IDS[pagina]


# --- «Run All» no ejecuta ninguna solución (issue 50) --------------------------------

#: Un bloque de código Python de Markdown (``bloque_de_codigo``): el de una solución.
CODE_BLOCK = re.compile(r"^(`{3,})python\n(.*?)\n\1$", re.S | re.M)
#: La clase del HTML de un comprobador que da el ejercicio por bueno (resnorm).
PASSED_CLASS = "resnorm-feedback-bien"


def is_solution(cell) -> bool:
    return "solucion" in cell.metadata.get("tags", [])


def solution_code(cell) -> list[str]:
    """El código de una solución plegada (sus bloques ```python)."""
    return [m[2] for m in CODE_BLOCK.finditer(cell.source)]


def with_solutions_loaded(nb):
    """El cuaderno de quien carga cada solución a propósito, como dice la solución:
    su código, copiado en una celda de código nueva justo debajo."""
    import copy

    nb = copy.deepcopy(nb)
    cells = []
    for cell in nb.cells:
        cells.append(cell)
        if is_solution(cell):
            cells += [nbformat.v4.new_code_cell(code) for code in solution_code(cell)]
    nb.cells = cells
    return nb


def stub_functions(nb) -> dict[str, str]:
    """Las funciones que definen los esqueletos de los ejercicios: nombre → celda."""
    import ast

    return {node.name: cell.source for cell in nb.cells
            if "ejercicio" in cell.metadata.get("tags", [])
            for node in ast.parse(cell.source).body
            if isinstance(node, ast.FunctionDef)}


def output_texts(cell) -> list[str]:
    """El texto y el HTML de cada salida de una celda."""
    return [out.get("text", "") + str(out.get("data", {}).get("text/plain", ""))
            + str(out.get("data", {}).get("text/html", ""))
            for out in cell.get("outputs", [])]


def shows_a_pass(text: str) -> bool:
    """¿Dice un comprobador «✓ …» (el ejercicio bien hecho)?"""
    return PASSED_CLASS in text or any(
        line.lstrip().startswith("\u2713 ") for line in text.splitlines())


def test_shows_a_pass_finds_the_checker_pass_not_its_pending_box():
    from resnorm.exercises._feedback import Feedback, not_written

    good = Feedback("Suma", True, ["\u2713 un caso"])
    assert shows_a_pass(str(good)) and shows_a_pass(good._repr_html_())
    pending = not_written("Suma")
    assert not shows_a_pass(str(pending)) and not shows_a_pass(pending._repr_html_())
    assert not shows_a_pass(str(Feedback("Suma", False, ["\u2717 un caso"])))


def test_a_loaded_solution_is_a_code_cell_under_its_folded_block():
    cells = [celda("def f(x):\n    raise NotImplementedError", ["ejercicio"]),
             new_markdown_cell("```{solution-start} ej-04-2\n:class: dropdown\n```"),
             celda("def f(x):\n    return x", ["solucion"]),
             new_markdown_cell("```{solution-end}\n```")]
    nb = with_solutions_loaded(conversor().cuaderno(new_notebook(cells=cells)))
    assert [c.cell_type for c in nb.cells] == ["code", "markdown", "code"]
    assert nb.cells[2].source == "def f(x):\n    return x"
    assert stub_functions(nb) == {"f": "def f(x):\n    raise NotImplementedError"}


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_link_of_a_learner_notebook_reaches_its_target_on_the_site(
        path, built_site):
    assert BASEURL.startswith("https://") and BASEURL.endswith("/"), BASEURL
    relativos, rotos = [], []
    for destino in enlaces_de(cuaderno_de(path)):
        if not urlsplit(destino).scheme:
            relativos.append(destino)  # en Colab, Binder o una descarga, a ningún sitio
            continue
        if not destino.startswith(BASEURL):
            continue  # fuera del libro (el Paso 8, un DOI): sin red en las pruebas
        pagina, _, ancla = destino.removeprefix(BASEURL).partition("#")
        if not (BUILD_HTML / pagina).is_file():
            rotos.append(destino)
        elif ancla and ancla not in ids_de(pagina):
            rotos.append(destino)
    assert not relativos, f"{path.name}: enlaces relativos: {relativos[:5]}"
    assert not rotos, f"{path.name}: sin destino en el sitio: {rotos[:5]}"


@pytest.mark.build
def test_learner_notebooks_link_the_site_for_references_citations_and_figures(
        built_site):
    destinos = [d for p in NOTEBOOKS for d in enlaces_de(cuaderno_de(p))]
    al_sitio = [d for d in destinos if d.startswith(BASEURL)]
    assert any("/book/referencias.html#" in d for d in al_sitio), "ninguna cita"
    assert any("/notebooks/" in d and "#fig-" in d for d in al_sitio), "ninguna figura"


@pytest.mark.build
def test_chapter_11_continues_to_step_8_with_a_link_not_python(built_site):
    nb = cuaderno_de(next(p for p in NOTEBOOKS if p.stem.startswith("11_")))
    prosa = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    paso8 = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))[
        "enlaces"]["paso8_url"]
    assert f"[Continúa en el Paso 8: apilar bloques →]({paso8})" in prosa
    assert ".format(" not in prosa and "{{" not in prosa


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_solution_is_folded_markdown_with_its_code_and_explanation(
        path, built_site):
    """Ninguna celda de código lleva una solución: cada una es un ``<details>``
    cerrado con el código de la solución de la fuente (para copiarlo tal cual) y, si
    la tiene, su explicación (las de los ejercicios 2.4 y 2.5)."""
    source = nbformat.read(path, as_version=4)
    learner = cuaderno_de(path)
    sols = [c for c in learner.cells if is_solution(c)]
    assert len(sols) == sum("{solution-start}" in c.source for c in source.cells
                            if c.cell_type == "markdown")
    expected = [c.source.strip() for c in source.cells
                if is_solution(c) and c.cell_type == "code"]
    assert [code for c in sols for code in solution_code(c)] == expected
    for cell in sols:
        assert cell.cell_type == "markdown"
        assert cell.source.startswith("<details>\n<summary>Solución del Ejercicio ")
        assert cell.source.endswith("</details>") and "<details open" not in cell.source
    # Ninguna línea propia de una solución está en una celda de código.
    code = "\n".join(c.source for c in learner.cells if c.cell_type == "code")
    others = "\n".join(c.source for c in source.cells if not is_solution(c))
    own = {line.strip() for text in expected for line in text.splitlines()[1:]
           if line.strip() and line.strip() not in others}
    assert not [line for line in own if line in code], path.name
    # La prosa que la página pliega con la solución va dentro del <details>.
    inside, prose = False, []
    for cell in source.cells:
        if cell.cell_type == "markdown" and "{solution-start}" in cell.source:
            inside = True
        elif cell.cell_type == "markdown" and "{solution-end}" in cell.source:
            inside = False
        elif inside and cell.cell_type == "markdown":
            # el trozo más largo sin fórmulas ni roles: se lee igual en el cuaderno
            parts = re.split(r"\$|\{|\}|`|\n", cell.source)
            prose.append(max(parts, key=len).strip()[:40])
    folded = "\n".join(c.source for c in sols)
    open_prose = "\n".join(c.source for c in learner.cells
                           if c.cell_type == "markdown" and not is_solution(c))
    for start in filter(None, prose):
        assert start in folded and start not in open_prose, (path.name, start)


@pytest.mark.build
def test_the_explanations_of_exercises_2_4_and_2_5_are_folded(built_site):
    nb = cuaderno_de(next(p for p in NOTEBOOKS if p.stem.startswith("02_")))
    sols = {re.search(r"Ejercicio (2\.\d)", c.source)[1]: c.source
            for c in nb.cells if is_solution(c)}
    assert "La residual. Con $W = 0$" in sols["2.4"]
    assert "Con la capa plana no hay pesos así" in sols["2.5"]


@pytest.mark.build
@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_run_all_on_a_fresh_kernel_runs_no_solution_and_keeps_the_learner_stubs(
        path, built_site, tmp_path, gpt_memo, monkeypatch):
    """«Run All» de un cuaderno recién abierto, con los ejercicios sin hacer: ningún
    error, ningún «✓» de un comprobador, cada comprobador dice que falta escribir la
    función, al final cada función de quien aprende es aún su esqueleto, y cada
    figura se ve una vez (la que dibuja la celda, no otra vez en su pie)."""
    from nbclient import NotebookClient

    # Las figuras en línea, como en Jupyter (el Makefile exporta MPLBACKEND=Agg).
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = cuaderno_de(path)
    stubs = stub_functions(nb)
    assert stubs, f"{path.name}: ningún ejercicio"
    nb.cells.append(nbformat.v4.new_code_cell(
        "import inspect as _inspect, json as _json\n"
        f"print(_json.dumps({{n: _inspect.getsource(globals()[n])\n"
        f"                  for n in {sorted(stubs)}}}))"))
    fresh = NotebookClient(nb, timeout=600, kernel_name="python3",
                           resources={"metadata": {"path": str(tmp_path)}}).execute()
    passes = [c.source.splitlines()[0] for c in fresh.cells[:-1]
              if any(shows_a_pass(t) for t in output_texts(c))]
    assert not passes, f"{path.name}: un «✓» tras Run All en {passes}"
    from resnorm.exercises._feedback import NOT_WRITTEN

    for cell in fresh.cells:
        if "ejercicio" in cell.metadata.get("tags", []):
            said = "".join(output_texts(cell))
            assert NOT_WRITTEN.split(":")[0] in said, (path.name, cell.source[:60])
    import json

    now = json.loads(fresh.cells[-1].outputs[0].text)
    changed = [name for name, code in now.items() if code.strip() not in stubs[name]]
    assert not changed, f"{path.name}: Run All cambió {changed}"
    twice = [(caption, n) for caption, n in figure_counts(fresh) if n != 1]
    assert not twice, f"{path.name}: tras Run All, {twice}"


# --- Lo que nombra una pista o un esqueleto ya está importado (issue 50) -------------

#: ``np.bincount``, ``math.sqrt``: un nombre seguido de un atributo, en una pista.
DOTTED = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\.[A-Za-z_]\w*")


def checker_texts(name: str) -> list[str]:
    """Los textos (pistas incluidas) del comprobador ``name`` de resnorm.exercises."""
    import ast
    import inspect

    import resnorm.exercises as exercises

    fn = getattr(exercises, name, None)
    if fn is None:
        import importlib
        import pkgutil

        for mod in pkgutil.iter_modules(exercises.__path__):
            module = importlib.import_module(f"resnorm.exercises.{mod.name}")
            fn = fn or getattr(module, name, None)
    if fn is None:
        return []
    tree = ast.parse(inspect.getsource(inspect.getmodule(fn)))
    (node,) = [n for n in ast.walk(tree)
               if isinstance(n, ast.FunctionDef) and n.name == fn.__name__]
    return [c.value for c in ast.walk(node)
            if isinstance(c, ast.Constant) and isinstance(c.value, str)]


def names_a_hint_needs(nb) -> list[tuple[str, str, set[str]]]:
    """(ejercicio, esqueleto, nombres) por ejercicio: los módulos que nombran su
    enunciado, sus pistas y las del comprobador (``np.``…), y lo que lee el código
    del esqueleto. Módulos: los que el capítulo importa en alguna celda (también en
    el código de sus soluciones)."""
    import ast
    import builtins

    from cuadernos import _sentencias, nombres

    code = [c.source for c in nb.cells if c.cell_type == "code"]
    code += [s for c in nb.cells if is_solution(c) for s in solution_code(c)]
    modules = {(a.asname or a.name).split(".")[0] for text in code
               for node in ast.walk(ast.Module(_sentencias(text), type_ignores=[]))
               if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}
    out = []
    for i, cell in enumerate(nb.cells):
        if "ejercicio" not in cell.metadata.get("tags", []):
            continue
        before = [c for c in nb.cells[:i] if c.cell_type == "markdown"]
        statement = next((c.source for c in reversed(before)
                          if c.source.startswith("> **Ejercicio")), "")
        hints = []
        for later in nb.cells[i + 1:]:
            if is_solution(later) or later.cell_type == "code":
                break
            hints.append(later.source)
        define, reads = nombres(cell.source)
        reads -= define | set(dir(builtins))
        texts = [statement, *hints]
        for called in reads:
            texts += checker_texts(called) if called.startswith("check_") else []
        used = {m for t in texts for m in DOTTED.findall(t)} & modules
        title = re.search(r"\*\*(Ejercicio [^*]+)\*\*", statement)
        out.append((title[1] if title else f"celda {i}", cell.source, used | reads))
    return out


def test_names_a_hint_needs_reads_module_uses_in_hints_and_checker_text():
    cells = [celda("import math\nfrom resnorm.exercises import check_std"),
             new_markdown_cell("> **Ejercicio 3.3 (σ)**\n>\n> Usa `np.mean`."),
             celda("def f(x):\n    raise NotImplementedError\n\n\ncheck_std(f)",
                   ["ejercicio"]),
             new_markdown_cell("<details>\n<summary>Pista 1</summary>\n\n`torch.std`"
                               "\n\n</details>"),
             new_markdown_cell("<details>\n<summary>Solución</summary>\n\n```python\n"
                               "import numpy as np\nimport torch\n```\n\n</details>",
                               metadata={"tags": ["solucion"]})]
    ((title, _, names),) = names_a_hint_needs(new_notebook(cells=cells))
    assert title == "Ejercicio 3.3 (σ)"
    # np (enunciado), torch (pista), math (el comprobador: «math.sqrt o np.sqrt»).
    assert names == {"np", "torch", "math", "check_std"}


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_name_a_hint_or_skeleton_needs_is_imported_before_it(path, built_site):
    """Con las soluciones plegadas (no se ejecutan), lo que una pista nombra
    (``np.bincount``) lo ha importado ya una celda que se ejecuta antes, o la del
    propio esqueleto."""
    from cuadernos import nombres

    nb = cuaderno_de(path)
    missing = []
    for title, stub, needed in names_a_hint_needs(nb):
        index = next(i for i, c in enumerate(nb.cells) if c.source == stub)
        defined = set().union(*(nombres(c.source)[0] for c in nb.cells[:index + 1]
                                if c.cell_type == "code"))
        missing += [f"{title}: {name}" for name in sorted(needed - defined)]
    assert not missing, f"{path.name}: sin importar antes: {missing}"


# --- Cada figura, una vez; ninguna celda oculta vacía (issue 50) ----------------------

CAPTION = re.compile(r"^\*\*Figura [\d.]+\*\* — ", re.M)


def figure_counts(nb) -> list[tuple[str, int]]:
    """(pie, veces que se ve su figura) de cada figura numerada del cuaderno: las
    imágenes de la celda del pie y las salidas de imagen de las celdas de código que
    van justo antes (desde la celda de texto anterior)."""
    out, shown = [], 0
    for cell in nb.cells:
        if cell.cell_type == "code":
            shown += sum(any(m.startswith("image/") for m in o.get("data", {}))
                         for o in cell.get("outputs", []))
            continue
        if is_solution(cell):
            continue
        if (m := CAPTION.search(cell.source)):
            out.append((cell.source[m.start():m.start() + 60],
                        shown + cell.source.count("![")))
        shown = 0
    return out


def test_figure_counts_sees_an_output_and_a_caption_image():
    shown = new_output("display_data", data={"image/png": PNG, "text/plain": "fig"})
    nb = new_notebook(cells=[
        celda("plot()", outputs=[shown]),
        new_markdown_cell("![a](attachment:a.png)\n\n**Figura 4.1** — Dos."),
        new_markdown_cell("Texto."), celda("x = 1"),
        new_markdown_cell("**Figura 4.2** — Sin imagen.")])
    assert [n for _, n in figure_counts(nb)] == [2, 0]


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_figure_shows_once_and_no_hidden_cell_is_empty(path, built_site):
    """Antes de ejecutar nada: cada figura se ve una vez (en la salida de la celda que
    la dibuja o en su pie, no en los dos), y ninguna celda de código plegada está
    vacía (las dos del capítulo 6: su salida era texto que la página quita), salvo
    las de apoyo, que se ejecutan para las de abajo y lo dicen."""
    nb = cuaderno_de(path)
    twice = [(caption, n) for caption, n in figure_counts(nb) if n != 1]
    assert not twice, f"{path.name}: {twice}"
    empty = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "code"
             and c.metadata.get("jupyter", {}).get("source_hidden")
             and not c.outputs and not c.source.startswith("# Oculta en la página")]
    assert not empty, f"{path.name}: celdas plegadas sin nada: {empty}"
