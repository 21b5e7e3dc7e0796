"""Widgets interactivos del curso (anywidget), que responden también sin núcleo.

Cada widget tiene tres capas (como en el estilo de la casa):

1. cálculo puro en ``compute.js`` (sin DOM; probado con Node contra ``resnorm``);
2. dibujo en ``ui.js`` (HTML, SVG, accesibilidad);
3. cableado en el ``.js`` de cada widget (``mean_std.js``, ``layer_norm.js``...).

En la web estática (Jupyter Book) no hay núcleo: el widget se dibuja desde su estado
guardado y todo lo que reacciona se calcula en el navegador. Lo que necesita Python
(la traza del vector «perro», los experimentos de profundidad) se calcula al construir
el widget y viaja como atributo sincronizado («trait»). El mismo widget funciona en JupyterLab con núcleo.

Un ESM de anywidget se carga como un único módulo, sin resolver imports relativos:
``bundle`` incrusta ``compute.js`` y ``ui.js`` en el módulo de cada widget.
"""

from __future__ import annotations

import math
import numbers
import re
from pathlib import Path

import anywidget
import traitlets

__all__ = [
    "BlockStepper",
    "DepthExplorer",
    "LayerNormExplorer",
    "MeanStdCalculator",
    "ResidualSum",
    "SERIES_LABELS",
    "bundle",
    "minify_css",
    "strip_comments",
    "validate_depth_data",
]

_HERE = Path(__file__).resolve().parent

# Un import relativo con nombres: import { a, b } from "./compute.js";
_IMPORT_RE = re.compile(
    r"^import\s*\{(?P<names>[^}]*)\}\s*from\s*[\"']\./(?P<file>[\w.-]+\.js)[\"'];?"
    r"[ \t]*$",
    re.M,
)
_ANY_IMPORT_RE = re.compile(r"^\s*import\b|\bimport\s*\(", re.M)
_EXPORT_RE = re.compile(
    r"^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+"
    r"(?P<name>[A-Za-z_$][\w$]*)",
    re.M,
)


def _module_var(filename: str) -> str:
    return "__rn_" + re.sub(r"\W", "_", filename[: -len(".js")])


def strip_comments(text: str) -> str:
    """Quita los comentarios de línea completa (``// ...`` y bloques ``/** ... */``).

    Infraestructura de los widgets (sin capítulo). Solo los que ocupan líneas
    enteras: nunca toca un ``//`` dentro de una línea de código (podría estar en un
    texto). También quita las líneas en blanco, así que los ``.js`` no usan
    literales de plantilla de varias líneas. Aligera el estado guardado del widget;
    los comentarios siguen en los ``.js`` del repositorio.
    """
    out = []
    in_block = False
    for line in text.splitlines():
        stripped = line.strip()
        if in_block:
            in_block = "*/" not in stripped
            continue
        if stripped.startswith("/*"):
            if "*/" in stripped and not stripped.endswith("*/"):
                out.append(line)  # código detrás del comentario: se conserva
                continue
            in_block = "*/" not in stripped
            continue
        if stripped.startswith("//") or not stripped:
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def _parse_names(names: str, filename: str) -> list[str]:
    out = [n.strip() for n in names.split(",") if n.strip()]
    for name in out:
        if not re.fullmatch(r"[A-Za-z_$][\w$]*", name):
            raise ValueError(
                f"bundle: «{name}» en el import de {filename} no es un nombre simple "
                "(no se admiten alias «as»)"
            )
    return out


def bundle(entry: str, directory: Path | None = None) -> str:
    """Módulo ES único para el ``_esm`` de un widget: incrusta sus imports relativos.

    Infraestructura de los widgets (sin capítulo).

    Cada dependencia (``compute.js``, ``ui.js``...) se envuelve en una función que
    devuelve sus exportaciones, una sola vez y antes de quien la usa:

        const __rn_compute = (() => { ...código...; return { formatNumber }; })();
        const { formatNumber } = __rn_compute;

    Así no chocan los nombres internos de módulos distintos. Solo se admite
    ``import { a, b } from "./archivo.js";`` (sin alias, sin ``export default`` en
    las dependencias); cualquier otra forma lanza ``ValueError``: mejor fallar aquí
    que en el navegador. El módulo de entrada conserva su ``export default``.
    """
    directory = _HERE if directory is None else Path(directory)
    order: list[str] = []
    exports: dict[str, list[str]] = {}
    bodies: dict[str, str] = {}
    visiting: set[str] = set()

    def rewrite(filename: str, text: str) -> str:
        def repl(match: re.Match) -> str:
            dep = match.group("file")
            names = _parse_names(match.group("names"), filename)
            visit(dep)
            missing = [n for n in names if n not in exports[dep]]
            if missing:
                raise ValueError(
                    f"bundle: {filename} importa {missing} de {dep}, que no los exporta"
                )
            return f"const {{ {', '.join(names)} }} = {_module_var(dep)};"

        text = _IMPORT_RE.sub(repl, text)
        if _ANY_IMPORT_RE.search(text):
            raise ValueError(
                f"bundle: {filename} tiene un import que no es de la forma "
                '`import { a, b } from "./archivo.js";` (p. ej. una URL o un alias)'
            )
        return text

    def visit(filename: str) -> None:
        if filename in bodies:
            return
        if filename in visiting:
            raise ValueError(f"bundle: import circular con {filename}")
        visiting.add(filename)
        text = strip_comments((directory / filename).read_text(encoding="utf-8"))
        if re.search(r"^export\s+(default|\{)", text, re.M):
            raise ValueError(
                f"bundle: la dependencia {filename} no puede tener «export default» "
                "ni «export { ... }»: exporta cada función o constante en su línea"
            )
        exports[filename] = [m.group("name") for m in _EXPORT_RE.finditer(text)]
        text = rewrite(filename, text)
        bodies[filename] = re.sub(r"^export\s+", "", text, flags=re.M)
        order.append(filename)
        visiting.discard(filename)

    entry_text = strip_comments((directory / entry).read_text(encoding="utf-8"))
    if not re.search(r"^export\s+default\b", entry_text, re.M):
        raise ValueError(f"bundle: {entry} debe tener «export default {{ render }}»")
    entry_text = rewrite(entry, entry_text)
    parts = [f"// {entry}, con sus dependencias incrustadas por resnorm.widgets.bundle"]
    for filename in order:
        names = ", ".join(exports[filename])
        parts.append(
            f"// ---- {filename}\n"
            f"const {_module_var(filename)} = (() => {{\n{bodies[filename]}\n"
            f"return {{ {names} }};\n}})();"
        )
    parts.append(f"// ---- {entry}\n{entry_text}")
    return "\n".join(parts)


def minify_css(css: str) -> str:
    """CSS sin comentarios ni espacios sobrantes (el estado guardado pesa menos).

    Infraestructura de los widgets (sin capítulo). Conserva el espacio antes de «:»
    (en ``.a :focus-visible`` es un combinador).
    """
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\s+", " ", css)
    return re.sub(r"\s*([{};,])\s*", r"\1", css).strip()


def _read_css() -> str:
    return minify_css((_HERE / "widgets.css").read_text(encoding="utf-8"))


def _spanish_error(message: str) -> traitlets.TraitError:
    return traitlets.TraitError(message)


def _finite_list(value, name, length=None, lo=None, hi=None):
    """Lista de floats finitos (y en [lo, hi]); error en español si no."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise _spanish_error(f"{name} debe ser una lista de números, no {value!r}")
    out = []
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise _spanish_error(f"{name}[{i}] debe ser un número, pero es {v!r}")
        v = float(v)
        if not math.isfinite(v):
            raise _spanish_error(f"{name}[{i}] debe ser un número finito, pero es {v}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise _spanish_error(
                f"{name}[{i}] = {v} está fuera del rango del deslizador [{lo}, {hi}]"
            )
        out.append(v)
    if length is not None and len(out) != length:
        raise _spanish_error(
            f"{name} debe tener {length} componentes, pero tiene {len(out)}"
        )
    if not out:
        raise _spanish_error(f"{name} no puede estar vacío")
    return out


# --- Capítulo 3: media y desviación estándar ----------------------------------------


class MeanStdCalculator(anywidget.AnyWidget):
    """Calculadora de media y desviación estándar (poblacional), en vivo.

    Capítulo 3: Media y desviación estándar.

    Cuatro campos de texto (por defecto 0.80, 0.95, 0.93, 1.33) y la receta:
    suma = Σxᵢ, μ = suma/n, cada (xᵢ − μ)², σ² = Σ(xᵢ − μ)²/n, σ = √σ².
    El cálculo vive en ``compute.js`` (``meanStdRecipe``), igual a
    ``resnorm.mean``/``resnorm.std``. Acepta coma decimal, exponentes y espacios;
    explica σ = 0 (qué hace ε) y muestra sin desbordar valores como 1e200.

    ``values`` (atributo sincronizado) guarda los cuatro textos tal como se escribieron.
    """

    _esm = bundle("mean_std.js")
    _css = _read_css()
    values = traitlets.List(
        traitlets.Unicode(), default_value=["0.80", "0.95", "0.93", "1.33"]
    ).tag(sync=True)

    def __init__(self, values=None, **kwargs):
        if values is not None:
            kwargs["values"] = [
                v if isinstance(v, str) else repr(float(v)) for v in values
            ]
        super().__init__(**kwargs)

    @traitlets.validate("values")
    def _check_values(self, proposal):
        value = list(proposal["value"])
        if len(value) != 4:
            raise _spanish_error(
                f"MeanStdCalculator necesita 4 valores, pero recibió {len(value)}"
            )
        return value


# --- Capítulos 4 y 5: LayerNorm, γ y β ----------------------------------------------


class LayerNormExplorer(anywidget.AnyWidget):
    """LayerNorm en vivo: y = γ ⊙ (x − μ)/√(σ² + ε) + β, con deslizadores.

    Capítulo 4: LayerNorm, y Capítulo 5: γ y β.

    Deslizadores para las 4 componentes de x (por defecto la suma residual del curso,
    [0.80, 0.95, 0.93, 1.33]), ε ∈ {0, 1e-5, 1e-3} y γ, β por dimensión (por defecto
    los del ejemplo, γ = [1.2, 0.8, 1.0, 1.1], β = [0.1, 0.0, −0.2, 0.3], para que el
    primer fotograma ya muestre que la salida no tiene media 0 ni std 1). Barras antes
    y después y la tabla centrado → dividido → γ/β, calculadas en el navegador con
    ``layerNormSteps`` de ``compute.js`` (igual a ``resnorm.layer_norm_steps``).
    """

    X_RANGE = (-4.0, 4.0)
    GAMMA_RANGE = (-2.0, 2.0)
    BETA_RANGE = (-2.0, 2.0)
    EPS_CHOICES = (0.0, 1e-5, 1e-3)

    _esm = bundle("layer_norm.js")
    _css = _read_css()
    x = traitlets.List(traitlets.Float(), default_value=[0.80, 0.95, 0.93, 1.33]).tag(
        sync=True
    )
    gamma = traitlets.List(traitlets.Float(), default_value=[1.2, 0.8, 1.0, 1.1]).tag(
        sync=True
    )
    beta = traitlets.List(traitlets.Float(), default_value=[0.1, 0.0, -0.2, 0.3]).tag(
        sync=True
    )
    eps = traitlets.Float(1e-5).tag(sync=True)

    @traitlets.validate("x")
    def _check_x(self, proposal):
        return _finite_list(proposal["value"], "x", 4, *self.X_RANGE)

    @traitlets.validate("gamma")
    def _check_gamma(self, proposal):
        return _finite_list(proposal["value"], "gamma", 4, *self.GAMMA_RANGE)

    @traitlets.validate("beta")
    def _check_beta(self, proposal):
        return _finite_list(proposal["value"], "beta", 4, *self.BETA_RANGE)

    @traitlets.validate("eps")
    def _check_eps(self, proposal):
        eps = proposal["value"]
        if eps not in self.EPS_CHOICES:
            raise _spanish_error(
                f"eps debe ser uno de {list(self.EPS_CHOICES)} (las opciones del "
                f"selector), pero es {eps}"
            )
        return float(eps)

    def steps(self):
        """Los mismos pasos que muestra el widget, calculados por ``resnorm``."""
        from resnorm import layer_norm_steps

        return layer_norm_steps(self.x, self.gamma, self.beta, eps=self.eps)


# --- Capítulo 2: la conexión residual -----------------------------------------------


class ResidualSum(anywidget.AnyWidget):
    """Suma residual: salida = x + α·F(x), con un deslizador para α.

    Capítulo 2: La conexión residual.

    Por defecto x = [0.50, 1.15, 0.78, 0.88] y F(x) = [0.30, −0.20, 0.15, 0.45] (el
    ejemplo del curso) con α = 1, así que el primer fotograma muestra la suma
    [0.80, 0.95, 0.93, 1.33]. Con α = 0 la salida es x: la identidad sale gratis.
    Formas: ``x`` y ``fx`` listas de la misma longitud (≤ 8).
    """

    _esm = bundle("residual.js")
    _css = _read_css()
    x = traitlets.List(traitlets.Float(), default_value=[0.50, 1.15, 0.78, 0.88]).tag(
        sync=True
    )
    fx = traitlets.List(traitlets.Float(), default_value=[0.30, -0.20, 0.15, 0.45]).tag(
        sync=True
    )
    scale = traitlets.Float(1.0).tag(sync=True)
    scale_max = traitlets.Float(3.0).tag(sync=True)

    def __init__(self, x=None, fx=None, **kwargs):
        if x is not None:
            kwargs["x"] = _finite_list(x, "x")
        if fx is not None:
            kwargs["fx"] = _finite_list(fx, "fx")
        super().__init__(**kwargs)
        if len(self.x) != len(self.fx):
            raise _spanish_error(
                f"x y F(x) deben tener la misma longitud, pero tienen {len(self.x)} "
                f"y {len(self.fx)}"
            )
        if len(self.x) > 8:
            raise _spanish_error("ResidualSum dibuja como mucho 8 componentes")

    @traitlets.validate("x", "fx")
    def _check_vectors(self, proposal):
        return _finite_list(proposal["value"], proposal["trait"].name)

    @traitlets.validate("scale")
    def _check_scale(self, proposal):
        value = float(proposal["value"])
        if not 0 <= value <= self.scale_max:
            raise _spanish_error(
                f"scale (α) debe estar entre 0 y {self.scale_max}, pero es {value}"
            )
        return value

    @traitlets.validate("scale_max")
    def _check_scale_max(self, proposal):
        value = float(proposal["value"])
        if not (math.isfinite(value) and value > 0):
            raise _spanish_error(f"scale_max debe ser un número > 0, pero es {value}")
        return value


# --- Capítulo 8: el vector «perro» paso a paso --------------------------------------


class BlockStepper(anywidget.AnyWidget):
    """«Siguiente paso» / «Paso anterior»: el vector «perro» por un bloque.

    Capítulo 8: El vector «perro» paso a paso.

    Los pasos (vectores y estadísticas) los calcula ``resnorm.trace.block_trace`` en
    Python al construir el widget, para Post-LN y Pre-LN; el navegador solo los
    muestra (sin matemáticas en el JS). Un interruptor cambia de orden.
    """

    _esm = bundle("block_stepper.js")
    _css = _read_css()
    steps_post = traitlets.List(traitlets.Dict()).tag(sync=True)
    steps_pre = traitlets.List(traitlets.Dict()).tag(sync=True)
    order = traitlets.Unicode("post").tag(sync=True)
    index = traitlets.Int(0).tag(sync=True)

    def __init__(self, example=None, eps=1e-5, **kwargs):
        from resnorm.trace import block_trace, perro_example

        example = perro_example() if example is None else example
        kwargs.setdefault("steps_post", block_trace(example, order="post", eps=eps))
        kwargs.setdefault("steps_pre", block_trace(example, order="pre", eps=eps))
        super().__init__(**kwargs)

    @traitlets.validate("order")
    def _check_order(self, proposal):
        if proposal["value"] not in ("post", "pre"):
            raise _spanish_error(
                f"order debe ser «post» o «pre», pero es {proposal['value']!r}"
            )
        return proposal["value"]

    @traitlets.validate("index")
    def _check_index(self, proposal):
        steps = self.steps_pre if self.order == "pre" else self.steps_post
        n = max(len(steps), 1)
        if not 0 <= proposal["value"] < n:
            raise _spanish_error(
                f"index debe estar entre 0 y {n - 1}, pero es {proposal['value']}"
            )
        return proposal["value"]


# --- Capítulo 9: profundidad ---------------------------------------------------------

#: Etiquetas en español de las series conocidas (se pueden ampliar con ``labels``).
SERIES_LABELS = {
    "plain": "Sin residual",
    "plain_ln": "Sin residual, con LayerNorm",
    "residual": "Residual sin LayerNorm",
    "pre_ln": "Pre-LN",
    "post_ln": "Post-LN",
}

_AXIS_KEYS = {"gradient": "depths", "activations": "layers"}
_MAX_POINTS = 400
_MAX_SERIES = 7
_MAX_STYLES = 8


def validate_depth_data(data, kind):
    """Comprueba la forma de los datos del explorador de profundidad; los normaliza.

    Capítulo 9: Profundidad: escalas y gradientes.

    ``kind="gradient"``: ``{"depths": [d₀, d₁, ...], "series": {clave: [v₀, v₁,
    ...]}}``, la norma del gradiente en la primera capa para cada profundidad.
    ``kind="activations"``: ``{"layers": [...], "series": {...}}``, la std de las
    activaciones en cada capa. Cada serie tiene un valor por posición del eje: un
    número ≥ 0 finito (0 = por debajo de lo representable) o ``None`` (sin dato).
    Las posiciones del eje son números finitos estrictamente crecientes. Devuelve
    una copia con floats de Python (lista para JSON); lanza ``ValueError`` en
    español si algo no encaja.
    """
    if kind not in _AXIS_KEYS:
        raise ValueError(f"kind debe ser «gradient» o «activations», no {kind!r}")
    axis_key = _AXIS_KEYS[kind]
    where = f"Los datos de «{kind}»"
    if not isinstance(data, dict):
        raise ValueError(f"{where} deben ser un dict, pero son {type(data).__name__}")
    unknown = set(data) - {axis_key, "series"}
    if unknown:
        raise ValueError(
            f"{where} tienen claves que no se esperaban: {sorted(unknown)}; "
            f"solo «{axis_key}» y «series»"
        )
    if axis_key not in data or "series" not in data:
        raise ValueError(f"{where} necesitan las claves «{axis_key}» y «series»")
    axis = list(data[axis_key])
    if not axis:
        raise ValueError(f"{where}: «{axis_key}» está vacío")
    if len(axis) > _MAX_POINTS:
        raise ValueError(
            f"{where}: «{axis_key}» tiene {len(axis)} posiciones; como mucho "
            f"{_MAX_POINTS}, para que el estado guardado del widget sea ligero"
        )
    clean_axis = []
    for i, v in enumerate(axis):
        real = isinstance(v, numbers.Real) and not isinstance(v, bool)
        if not real or not math.isfinite(v):
            raise ValueError(
                f"{where}: «{axis_key}»[{i}] = {v!r} no es un número finito"
            )
        clean_axis.append(int(v) if float(v).is_integer() else float(v))
    if any(b <= a for a, b in zip(clean_axis, clean_axis[1:])):
        raise ValueError(f"{where}: «{axis_key}» debe ser estrictamente creciente")
    series = data["series"]
    if not isinstance(series, dict) or not series:
        raise ValueError(
            f"{where}: «series» debe ser un dict no vacío {{clave: valores}}"
        )
    if len(series) > _MAX_SERIES:
        raise ValueError(
            f"{where}: hay {len(series)} series; como mucho {_MAX_SERIES} (una por "
            "color de la paleta Okabe-Ito)"
        )
    clean_series = {}
    for key, values in series.items():
        if not isinstance(key, str) or not key:
            raise ValueError(f"{where}: la clave de serie {key!r} debe ser un texto")
        values = list(values)
        if len(values) != len(clean_axis):
            raise ValueError(
                f"{where}: la serie «{key}» tiene {len(values)} valores, pero "
                f"«{axis_key}» tiene {len(clean_axis)}: debe haber uno por posición"
            )
        clean = []
        for i, v in enumerate(values):
            if v is None:
                clean.append(None)
                continue
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise ValueError(
                    f"{where}: «{key}»[{i}] = {v!r} no es un número (usa None si falta)"
                )
            v = float(v)
            if not math.isfinite(v):
                raise ValueError(
                    f"{where}: «{key}»[{i}] es {v}; NaN e infinito no caben en el "
                    "estado JSON del widget: usa None (sin dato)"
                )
            if v < 0:
                raise ValueError(
                    f"{where}: «{key}»[{i}] = {v} es negativo; la escala es "
                    "logarítmica y se esperan normas o desviaciones estándar (≥ 0)"
                )
            clean.append(v)
        clean_series[key] = clean
    return {axis_key: clean_axis, "series": clean_series}


class DepthExplorer(anywidget.AnyWidget):
    """Explorador de profundidad: gradientes y escalas según la profundidad (log).

    Capítulo 9: Profundidad: escalas y gradientes.

    Recibe datos precalculados (p. ej. de ``resnorm.experiments``), al menos uno de:

    - ``gradient={"depths": [...], "series": {"plain": [...], "residual": [...],
      "pre_ln": [...], "post_ln": [...]}}``: norma del gradiente en la primera capa
      según la profundidad;
    - ``activations={"layers": [...], "series": {...}}``: std de las activaciones
      capa a capa.

    ``labels`` completa o cambia las etiquetas en español de ``SERIES_LABELS``. El
    navegador dibuja en escala logarítmica, con un deslizador de posición y casillas
    para las series; muestra los valores en la posición elegida.
    """

    _esm = bundle("depth_explorer.js")
    _css = _read_css()
    gradient = traitlets.Dict().tag(sync=True)
    activations = traitlets.Dict().tag(sync=True)
    labels = traitlets.Dict().tag(sync=True)
    view = traitlets.Unicode("gradient").tag(sync=True)
    position = traitlets.Int(0).tag(sync=True)
    visible = traitlets.List(traitlets.Unicode()).tag(sync=True)

    def __init__(self, gradient=None, activations=None, labels=None, **kwargs):
        if gradient is None and activations is None:
            raise ValueError(
                "DepthExplorer necesita datos: pasa gradient={'depths': [...], "
                "'series': {...}} y/o activations={'layers': [...], 'series': {...}} "
                "(por ejemplo, los que devuelve resnorm.experiments)"
            )
        data = {}
        if gradient is not None:
            data["gradient"] = validate_depth_data(gradient, "gradient")
        if activations is not None:
            data["activations"] = validate_depth_data(activations, "activations")
        all_labels = dict(SERIES_LABELS)
        all_labels.update(labels or {})
        keys = []
        for d in data.values():
            keys += [k for k in d["series"] if k not in keys]
        if len(keys) > _MAX_STYLES:
            raise ValueError(
                f"Hay {len(keys)} series distintas entre las dos vistas; como mucho "
                f"{_MAX_STYLES}, una por estilo (color, trazo y marcador)"
            )
        missing = [k for k in keys if not all_labels.get(k)]
        if missing:
            raise ValueError(
                f"Faltan etiquetas en español para las series {missing}: pásalas con "
                f"labels={{{missing[0]!r}: '...'}}"
            )
        view = kwargs.pop("view", "gradient" if "gradient" in data else "activations")
        if view not in data:
            raise ValueError(
                f"view={view!r} no tiene datos: elige entre {sorted(data)}"
            )
        axis = data[view][_AXIS_KEYS[view]]
        kwargs.setdefault("position", len(axis) - 1)
        kwargs.setdefault("visible", keys)
        super().__init__(
            gradient=data.get("gradient", {}),
            activations=data.get("activations", {}),
            labels={k: all_labels[k] for k in keys},
            view=view,
            **kwargs,
        )

    @traitlets.validate("view")
    def _check_view(self, proposal):
        if proposal["value"] not in _AXIS_KEYS:
            raise _spanish_error(
                f"view debe ser «gradient» o «activations», no {proposal['value']!r}"
            )
        return proposal["value"]

    @traitlets.validate("position")
    def _check_position(self, proposal):
        if proposal["value"] < 0:
            raise _spanish_error("position debe ser un índice ≥ 0")
        return proposal["value"]
