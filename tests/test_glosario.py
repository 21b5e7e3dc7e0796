"""El glosario fija el vocabulario: cada término técnico que usan los capítulos está
en book/glosario.md, y ningún capítulo usa un sinónimo descartado."""

from __future__ import annotations

import json
import re


from tests.helpers import ROOT

GLOSARIO = ROOT / "book" / "glosario.md"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAGINAS = sorted(p for p in (ROOT / "book").glob("*.md") if p != GLOSARIO)

# Términos técnicos (curados a mano): la expresión que los encuentra en la prosa y la
# entrada del glosario que deben tener. Si un capítulo usa uno, el glosario lo define.
TERMINOS: dict[str, str] = {
    "apilar": r"\bapil(?:ar|a|an|amos|adas?|ados?)\b",
    "atajo": r"\batajos?\b",
    "autoatención multicabeza": r"\bautoatención multicabeza\b",
    "autograd": r"\bautograd\b",
    "bloque Transformer": r"\bbloques? Transformer\b",
    "BatchNorm": r"\bBatchNorm\b",
    "calentamiento": r"\bcalentamiento\b",
    "componente": r"\bcomponentes?\b",
    "coma flotante": r"\bcoma flotante\b",
    "comprobador": r"\bcomprobador(?:es)?\b",
    "con semilla fija": r"\bsemillas?\b",
    "conexión residual": r"\bconexi(?:ón|ones) residual(?:es)?\b",
    "derivada": r"\bderivadas?\b",
    "desviación estándar": r"\bdesviaci(?:ón|ones) estándar\b",
    "dimensión": r"\bdimensi(?:ón|ones)\b",
    "dropout": r"\bdropout\b",
    "embedding": r"\bembeddings?\b",
    "épsilon": r"\bépsilon\b|ε",
    "flujo residual": r"\bflujo residual\b",
    "forma": r"\bforma \(|\bde forma `",
    "fusionada": r"\bfusionad[ao]s?\b",
    "ganancia": r"\bganancias?\b",
    "gradiente que se desvanece": r"\bgradientes? que se desvanecen?\b",
    "gradiente que explota": r"\bgradientes? que explotan?\b",
    "hilo": r"\bhilos?\b",
    "identidad": r"\bidentidad\b",
    "inferencia": r"\binferencia\b",
    "inicialización": r"\binicializaci(?:ón|ones)\b",
    "invariancia a la escala": r"\binvarian(?:cia|tes?) a la escala\b",
    "jacobiana": r"\bjacobiana\b",
    "kernel de cómputo": r"\bkernels?\b(?! de Jupyter)",
    "kernel de Jupyter": r"\bkernels? de Jupyter\b",
    "LayerNorm": r"\bLayerNorm\b",
    "lote": r"\blotes?\b",
    "media": r"\bla media\b",
    "norma": r"\bnormas?\b",
    "núcleo": r"\bnúcleos?\b",
    "optimizador": r"\boptimizador(?:es)?\b|\bAdam\b|\bSGD\b",
    "parámetros aprendibles": r"\b(?:parámetros?|vectores?) aprendibles?\b",
    "pasada": r"\bpasadas?\b",
    "pérdida": r"\bpérdida\b",
    "peso": r"\bpesos?\b",
    "Post-LN": r"\bPost-LN\b",
    "Pre-LN": r"\bPre-LN\b",
    "problema de degradación": r"\bdegradación\b",
    "profundidad": r"\bprofundidad\b",
    "red feed-forward": r"\bfeed-forward\b|\bFFN\b",
    "red plana": r"\bred(?:es)? planas?\b",
    "regla de la cadena": r"\bregla de la cadena\b",
    "retropropagación": r"\bretropropaga\w*",
    "RMSNorm": r"\bRMSNorm\b",
    "similitud coseno": r"\bsimilitud coseno\b|\bcoseno\b",
    "subcapa": r"\bsubcapas?\b",
    "tasa de aprendizaje": r"\btasas? de aprendizaje\b",
    "tensor": r"\btensor(?:es)?\b",
    "token": r"\btokens?\b",
    "varianza": r"\bvarianza\b",
    "varianza muestral": r"\bvarianza muestral\b",
    "varianza poblacional": r"\bvarianza poblacional\b",
    "widget": r"\bwidgets?\b|\bdeslizador(?:es)?\b",
    "sesgo": r"\bsesgos?\b",
    "entropía cruzada": r"\bentropía cruzada\b",
    "pérdida de solo frecuencias": r"\bpérdida de solo frecuencias\b",
    "validación": r"\bvalidaci(?:ón|ones)\b|\bvalidar\b",
    "tráfico": r"\btráfico\b",
    "falta de página": r"\bfaltas? de página\b",
    "limitada por memoria": r"\blimitad[ao]s? por (?:la )?memoria\b",
    "GB/s efectivos": r"\bGB/s efectivos\b",
    "búfer": r"\bbúfer(?:es)?\b",
    "ancho": r"\bancho\b(?! de banda)",
    "error estándar": r"\berror(?:es)? estándar\b",
}

# Sinónimos descartados: la expresión y el término del glosario que va en su lugar.
DESCARTADOS: dict[str, str] = {
    r"\bnormalizaci(?:ón|ones) por capas?\b": "normalización de capa (LayerNorm)",
    r"\bcapas? de normalizaci(?:ón|ones)\b": "LayerNorm o normalización de capa",
    r"\bnormalizaci(?:ón|ones) de lotes?\b": "normalización por lotes (BatchNorm)",
    r"\bconexi(?:ón|ones) de salto\b": "conexión residual o atajo",
    r"\bsembrad[oa]s?\b": "con semilla fija",
    r"\bcorridas?\b": "ejecución",
    r"\bnúcleos? de (?:Python|Jupyter)\b": "kernel de Jupyter",
    r"\bnúcleo del curso\b": "kernel de Jupyter",
    r"\bsin núcleo\b": "sin kernel de Jupyter",
    r"\bnúcleos? \(\*kernels?\*\)": "kernel de cómputo",
    r"\bnúcleos? de cómputo\b": "kernel de cómputo",
    r"\bganancia (?:γ|\$\\gamma)": "γ (escala), no «ganancia»",
    r"\bsimilaridad\b": "similitud coseno",
    r"\b(?:ritmo|velocidad|tasa) de entrenamiento\b": "tasa de aprendizaje",
    r"\bpropagación hacia atrás\b": "retropropagación",
    r"\bcorrientes? residual(?:es)?\b": "flujo residual",
    # Un vector tiene dimensión; una red o un modelo, ancho (la entrada «dimensión»).
    r"\bvectores? de ancho\b": "vector de dimensión d (ancho, de la red o del modelo)",
}

_NO_PROSA = [
    re.compile(r"```.*?```", re.S),  # bloques de código y directivas
    re.compile(r"~~~.*?~~~", re.S),
    re.compile(r"\$\$.*?\$\$", re.S),
    re.compile(r"(?<!\\)\$[^$\n]+?\$"),
    re.compile(r"\{(?:glue|cite|doc|ref|numref)[\w:-]*\}`[^`]*`"),
    re.compile(r"`[^`\n]*`"),
    re.compile(r"<!--.*?-->", re.S),
    re.compile(r"\]\([^)]*\)"),
    re.compile(r"https?://\S+"),
]


def _prosa(texto: str) -> str:
    """El texto sin código, matemáticas, enlaces ni roles (los de {term} se quedan)."""
    for patron in _NO_PROSA:
        texto = patron.sub(" ", texto)
    return texto


def _capitulos() -> list[tuple[str, str]]:
    """(nombre, prosa) de cada capítulo y de cada página de book/ salvo el glosario."""
    fuentes = []
    for nb_path in NOTEBOOKS:
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        md = "\n\n".join(
            "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"
        )
        fuentes.append((f"notebooks/{nb_path.name}", _prosa(md)))
    for pagina in PAGINAS:
        texto = pagina.read_text(encoding="utf-8")
        fuentes.append((f"book/{pagina.name}", _prosa(texto)))
    return fuentes


def terminos_del_glosario(texto: str | None = None) -> set[str]:
    """Las entradas del bloque {glossary}: las líneas sin sangría (sin la cursiva)."""
    texto = GLOSARIO.read_text(encoding="utf-8") if texto is None else texto
    bloque = re.search(r"```\{glossary\}\n(.*?)```", texto, re.S)
    assert bloque, "book/glosario.md no tiene un bloque {glossary}"
    terminos = set()
    for linea in bloque.group(1).splitlines():
        if linea.strip() and not linea.startswith((" ", ":")):
            terminos.add(linea.strip().replace("*", ""))
    return terminos


def _usos(patron: str, prosa: str) -> list[str]:
    usos = []
    for m in re.finditer(patron, prosa, re.I):
        ini, fin = max(0, m.start() - 30), min(len(prosa), m.end() + 30)
        usos.append("…" + " ".join(prosa[ini:fin].split()) + "…")
    return usos


def test_curated_terms_are_glossary_entries_or_unused():
    """Cada término curado que aparece en algún capítulo tiene su entrada."""
    glosario = terminos_del_glosario()
    faltan = []
    for termino, patron in TERMINOS.items():
        for nombre, prosa in _capitulos():
            usos = _usos(patron, prosa)
            if usos and termino not in glosario:
                faltan.append(f"{nombre}: «{termino}» ({usos[0]})")
    assert not faltan, (
        "términos técnicos que el glosario no define:\n" + "\n".join(faltan)
        + "\nAñade cada uno al bloque {glossary} de book/glosario.md: el término en "
        "una línea, debajo (con dos espacios) su definición, «Inglés: *…*.» y el "
        "capítulo donde aparece, ({doc}`../notebooks/NN_nombre`). Si la expresión de "
        "TERMINOS (tests/test_glosario.py) encontró otra cosa, afínala allí."
    )


def test_the_issue_14_terms_are_in_the_glossary():
    glosario = terminos_del_glosario()
    for termino in (
        "similitud coseno",
        "norma",
        "jacobiana",
        "autograd",
        "tasa de aprendizaje",
        "núcleo",
        "kernel de cómputo",
        "kernel de Jupyter",
        "ganancia",
        "calentamiento",
        "dropout",
    ):
        assert termino in glosario, (
            f"falta «{termino}» en el bloque {{glossary}} de book/glosario.md"
        )


def test_each_glossary_entry_gives_the_english_original():
    texto = GLOSARIO.read_text(encoding="utf-8")
    bloque = re.search(r"```\{glossary\}\n(.*?)```", texto, re.S).group(1)
    entradas = re.split(r"\n\s*\n", bloque.replace(":sorted:", "").strip())
    sin_ingles = [e.splitlines()[0] for e in entradas if "Inglés:" not in e]
    assert not sin_ingles, (
        f"book/glosario.md: entradas sin «Inglés: …»: {sin_ingles}. Termina su "
        "definición con «Inglés: *original*.»"
    )


def test_detectors_find_terms_and_rejected_words_but_not_code():
    prosa = _prosa(
        "Una corrida con `corrida = 1` y $\\cos$; la similitud coseno.\n"
        "```python\nsembrado = 3\n```\n"
    )
    assert _usos(r"\bcorridas?\b", prosa) and len(_usos(r"\bcorridas?\b", prosa)) == 1
    assert not _usos(r"\bsembrad[oa]s?\b", prosa)
    assert _usos(TERMINOS["similitud coseno"], prosa)
    assert "kernel de Jupyter" in terminos_del_glosario(
        "```{glossary}\n*kernel* de Jupyter\n  El proceso. Inglés: *kernel*.\n```"
    )


def _descartados_en_uso() -> list[str]:
    hallados = []
    for nombre, prosa in _capitulos():
        for patron, correcto in DESCARTADOS.items():
            for uso in _usos(patron, prosa):
                hallados.append(f"{nombre}: {uso} → di «{correcto}»")
    return hallados


def test_chapters_use_no_rejected_synonym():
    hallados = _descartados_en_uso()
    assert not hallados, (
        "sinónimos descartados en la prosa (cámbialos en el capítulo por el término "
        "del glosario; la lista es DESCARTADOS, en tests/test_glosario.py):\n"
        + "\n".join(hallados)
    )


def test_learner_pages_of_this_branch_use_no_rejected_synonym():
    """Las páginas de book/ (no los notebooks) ya están limpias: sin xfail."""
    hallados = [h for h in _descartados_en_uso() if h.startswith("book/")]
    assert not hallados, (
        "sinónimos descartados en book/ (cámbialos por el término del glosario):\n"
        + "\n".join(hallados)
    )


def _entrada(termino: str) -> str:
    """El texto de una entrada del glosario (de su término a la línea en blanco)."""
    texto = GLOSARIO.read_text(encoding="utf-8")
    m = re.search(rf"^\*?{re.escape(termino)}\*?\n((?:  .*\n)+)", texto, re.M)
    assert m, f"no encuentro la entrada «{termino}»"
    return " ".join(m.group(1).split())


def test_cosine_entry_says_what_it_measures_not_what_survives():
    """El capítulo 1 muestra que una capa ortogonal da coseno ≈ 0 sin perder nada:
    el coseno mide dirección, no información."""
    texto = _entrada("similitud coseno")
    assert "sobrevive" not in texto and "mensaje" not in texto
    assert "dirección" in texto and "ortogonal" in texto


def test_dropout_entry_agrees_with_chapter_7_and_the_blocks():
    import inspect

    from resnorm.blocks import PostLNBlock, PreLNBlock

    texto = _entrada("dropout")
    assert "no lo usa" not in texto and "dropout=0.0" in texto
    for bloque in (PreLNBlock, PostLNBlock):
        defecto = inspect.signature(bloque).parameters["dropout"].default
        assert defecto == 0.0, bloque


def test_english_originals_use_pytorch_spelling_and_slider_has_its_entry():
    assert "*initialization*" in _entrada("inicialización")
    assert "initialis" not in GLOSARIO.read_text(encoding="utf-8")
    assert "*slider*" in _entrada("deslizador")
    assert "slider" not in _entrada("widget")


# --- Los términos que los capítulos presentan, extraídos del texto --------------------

# Una negrita dentro de una frase presenta un término («Llamamos **pasada** a…»): el
# glosario lo define. No cuentan las negritas que abren un párrafo, una frase, un punto
# de una lista o una celda de tabla (títulos en línea: «**Con Adam** (…)», «- **plana**,
# sin atajo»), ni las que terminan en punto o dos puntos. Estas otras no presentan un
# término, y cada una dice por qué:
NEGRITAS_QUE_NO_SON_TERMINOS: dict[str, str] = {
    "diferencia": "cap. 2, énfasis: lo que aprende F(x), no un término",
    "layer normalization": "cap. 4, el nombre inglés que da la entrada LayerNorm",
    "una sola línea": "cap. 4, énfasis en el enunciado de un ejercicio",
    "escala": "cap. 5, lo que hace γ («escala cada dimensión»); cap. 7, énfasis",
    "desplaza": "cap. 5, lo que hace β",
    "predice": "cap. 10, lo que pide el ejercicio",
    "copia a un búfer": "cap. 12, nombre de una fila de la tabla (búfer sí es término)",
    "copia nueva": "cap. 12, nombre de una fila de la tabla",
    "hacer posible apilar muchas capas": "portada, la frase que resume el paso",
    "paso 7": "portada, el nombre del paso del curso",
    "pasos 4 a 6": "portada, los pasos anteriores del curso",
    "cohete": "como-usar, el icono de un botón",
    "flecha de descarga": "como-usar, el icono de un botón",
    "logo de github": "como-usar, el icono de un botón",
    "código en vivo": "como-usar, la etiqueta de un botón",
    "jupyterhub": "como-usar, la etiqueta de un botón",
    ".ipynb": "como-usar, una opción del botón de descarga",
    ".pdf": "como-usar, una opción del botón de descarga",
}

_NEGRITA = re.compile(r"\*\*([^*\n]+?)\*\*")
# Lo que hay antes de la negrita en su línea si abre un párrafo, un punto de lista o
# una celda de tabla: solo blancos, marcas de lista o barras.
_ABRE_LINEA = re.compile(r"^[\s>|]*(?:[-*+]|\d+\.)?\s*$|\|\s*$")
_ABRE_FRASE = re.compile(r"[.!?]\s+$")
_ROL_TERM = re.compile(r"\{term\}`([^`]+)`")


def negritas_que_presentan(texto: str) -> list[str]:
    """Las negritas de ``texto`` que presentan un término (véase arriba)."""
    hallados = []
    for m in _NEGRITA.finditer(texto):
        frase = " ".join(m.group(1).split())
        inicio_linea = texto.rfind("\n", 0, m.start()) + 1
        antes = texto[inicio_linea:m.start()]
        if not antes.strip():  # al principio de una línea: ¿sigue una frase?
            anterior = texto[:inicio_linea].rstrip(" ").removesuffix("\n")
            anterior = anterior[anterior.rfind("\n") + 1:]
            if not anterior.strip():
                continue  # abre un párrafo
            antes = anterior + " "
        abre_frase = _ABRE_FRASE.search(antes) and frase[0].isupper()
        if _ABRE_LINEA.search(antes) or abre_frase:
            continue
        if frase.endswith((".", ":")) or "$" in frase or "[" in frase:
            continue
        hallados.append(frase)
    return hallados


def destinos_de_term(texto: str) -> list[str]:
    """A qué entrada apunta cada ``{term}`` de ``texto`` (``x <destino>`` o ``x``)."""
    destinos = []
    for m in _ROL_TERM.finditer(texto):
        dentro = m.group(1)
        ref = re.search(r"<([^>]+)>\s*$", dentro)
        destinos.append((ref.group(1) if ref else dentro).strip())
    return destinos


def _forma_base(frase: str) -> str:
    """Minúsculas, sin cursiva y sin la -s o -es final de cada palabra (plural)."""
    palabras = frase.replace("*", "").lower().split()
    return " ".join(re.sub(r"(?:es|s)$", "", p) if len(p) > 3 else p for p in palabras)


def _en_glosario(frase: str, glosario: set[str]) -> bool:
    base = _forma_base(frase)
    return any(_forma_base(t) == base for t in glosario)


def _fuentes_con_marcas() -> list[tuple[str, str]]:
    """(nombre, texto) de cada capítulo y página de book/, con las negritas y los roles
    (sin bloques de código, que no son prosa)."""
    fuentes = []
    for nb_path in NOTEBOOKS:
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        md = "\n\n".join(
            "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"
        )
        fuentes.append((f"notebooks/{nb_path.name}", md))
    for pagina in PAGINAS:
        fuentes.append((f"book/{pagina.name}", pagina.read_text(encoding="utf-8")))
    return [(n, re.sub(r"```(?!\{glossary).*?```", " ", t, flags=re.S))
            for n, t in fuentes]


def _definiciones_del_glosario() -> str:
    """El texto de las definiciones del glosario (las líneas con sangría)."""
    texto = GLOSARIO.read_text(encoding="utf-8")
    bloque = re.search(r"```\{glossary\}\n(.*?)```", texto, re.S).group(1)
    return "\n".join(linea for linea in bloque.splitlines() if linea.startswith(" "))


def test_bold_terms_of_the_chapters_are_glossary_entries():
    """Lo que un capítulo presenta en negrita dentro de una frase está en el
    glosario."""
    glosario = terminos_del_glosario()
    faltan = []
    for nombre, texto in _fuentes_con_marcas():
        for frase in negritas_que_presentan(texto):
            if frase.lower() in NEGRITAS_QUE_NO_SON_TERMINOS:
                continue
            if not _en_glosario(frase, glosario):
                faltan.append(f"{nombre}: **{frase}**")
    assert not faltan, (
        "términos en negrita que el glosario no define:\n" + "\n".join(faltan)
        + "\nAñade cada uno a book/glosario.md o, si la negrita no presenta un término "
        "(énfasis, el nombre de una fila), a NEGRITAS_QUE_NO_SON_TERMINOS con su "
        "motivo."
    )


def test_every_term_role_points_to_a_glossary_entry():
    """Cada {term} de los capítulos y del propio glosario tiene su entrada (Sphinx
    compara sin mayúsculas)."""
    glosario = {t.lower() for t in terminos_del_glosario()}
    textos = _fuentes_con_marcas()
    textos.append(("book/glosario.md", _definiciones_del_glosario()))
    rotos = [f"{nombre}: {{term}}`{destino}`"
             for nombre, texto in textos
             for destino in destinos_de_term(texto)
             if destino.lower() not in glosario]
    assert not rotos, "roles {term} sin entrada en el glosario:\n" + "\n".join(rotos)


def test_terms_the_glossary_definitions_use_are_entries_too():
    """Las definiciones del glosario usan términos técnicos (los sesgos de «peso», la
    entropía cruzada de «pérdida de solo frecuencias»): también tienen su entrada."""
    glosario = terminos_del_glosario()
    definiciones = _prosa(_definiciones_del_glosario())
    faltan = [f"«{termino}» ({_usos(patron, definiciones)[0]})"
              for termino, patron in TERMINOS.items()
              if _usos(patron, definiciones) and termino not in glosario]
    assert not faltan, (
        "términos que usan las definiciones del glosario y que no tienen entrada:\n"
        + "\n".join(faltan)
    )


def test_the_issue_49_terms_are_in_the_glossary():
    glosario = terminos_del_glosario()
    for termino in ("sesgo", "entropía cruzada", "pérdida de solo frecuencias",
                    "tráfico", "falta de página", "dimensión", "ancho"):
        assert termino in glosario, f"falta «{termino}» en book/glosario.md"


def test_term_extractors_find_bold_terms_and_roles_but_not_run_in_headings():
    texto = (
        "**Con Adam** (arriba), las tres bajan.\n"
        "- **plana**, sin atajo;\n"
        "| **sin residual** | x |\n"
        "**Lo que prueba.** Algo. **Sin atajo**, nada.\n"
        "| | **sin LN** | **con LN** |\n"
        "Llamamos **pasada** a un recorrido y **tráfico** a lo que mueve;\n"
        "y en GPU las dos están\n**limitadas por memoria**.\n"
        "la {term}`red feed-forward <FFN>` y la {term}`pérdida`.\n"
    )
    assert negritas_que_presentan(texto) == [
        "pasada", "tráfico", "limitadas por memoria"]
    assert destinos_de_term(texto) == ["FFN", "pérdida"]
    assert _en_glosario("limitadas por memoria", {"limitada por memoria"})
    assert not _en_glosario("copia nueva", {"copia"})


def test_gain_entry_covers_the_residual_stacks_of_chapter_9():
    """El capítulo 9 da ganancias a pilas residuales: la entrada no las excluye."""
    texto = _entrada("ganancia")
    assert "sin atajos ni LayerNorm, el factor" not in texto
    assert "residual" in texto and "torch.nn.init" in texto


def test_dimension_and_width_are_one_entry_that_says_how_they_relate():
    """«dimensión» y «ancho» nombran la misma d: una sola entrada con los dos."""
    texto = GLOSARIO.read_text(encoding="utf-8")
    assert re.search(r"^dimensión\nancho\n  ", texto, re.M), (
        "«dimensión» y «ancho» deberían ser dos nombres de una misma entrada"
    )
    assert "ancho" in _entrada("ancho") and "dimensión" in _entrada("ancho")
