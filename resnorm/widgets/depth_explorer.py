"""Capítulo 9: el explorador de profundidad (``depth_explorer.js``)."""

from __future__ import annotations

import math
import numbers

import traitlets

from resnorm.plots import SERIES_STYLE, svg_series_style
from resnorm.widgets._base import CourseWidget, spanish_error
from resnorm.widgets.bundler import bundle


#: Etiquetas en español de las series conocidas (se pueden ampliar con ``labels``).
SERIES_LABELS = {key: style["label"] for key, style in SERIES_STYLE.items()}

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


def series_styles(keys, labels=None) -> dict:
    """Estilo SVG de cada serie (color, trazo, marcador, nombre) para el navegador.

    Capítulo 9. El de ``resnorm.plots.SERIES_STYLE``, el mismo que usan las figuras;
    las series que no están en la tabla toman, por orden, los estilos de respaldo.
    ``labels`` cambia los nombres.
    """
    labels = labels or {}
    out = {}
    extra = 0
    for key in keys:
        if key in SERIES_STYLE:
            style = svg_series_style(key)
        else:
            style = svg_series_style(key, extra)
            extra += 1
        style["label"] = labels.get(key, style["label"])
        out[key] = style
    return out


class DepthExplorer(CourseWidget):
    """Explorador de profundidad: gradientes y escalas según la profundidad (log).

    Capítulo 9: Profundidad: escalas y gradientes.

    Recibe datos precalculados (p. ej. de ``resnorm.experiments``), al menos uno de:

    - ``gradient={"depths": [...], "series": {"plain": [...], "residual": [...],
      "pre_ln": [...], "post_ln": [...]}}``: norma del gradiente en la primera capa
      según la profundidad;
    - ``activations={"layers": [...], "series": {...}}``: std de las activaciones
      capa a capa.

    Cada serie se dibuja con su estilo de ``resnorm.plots.SERIES_STYLE`` (el de las
    figuras), que viaja al navegador en ``styles``. ``labels`` completa o cambia las
    etiquetas en español de ``SERIES_LABELS``. El
    navegador dibuja en escala logarítmica, con un deslizador de posición y casillas
    para las series; muestra los valores en la posición elegida.
    """

    _esm = bundle("depth_explorer.js")
    gradient = traitlets.Dict().tag(sync=True)
    activations = traitlets.Dict().tag(sync=True)
    labels = traitlets.Dict().tag(sync=True)
    styles = traitlets.Dict().tag(sync=True)
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
            styles=series_styles(keys, all_labels),
            view=view,
            **kwargs,
        )

    @traitlets.validate("view")
    def _check_view(self, proposal):
        if proposal["value"] not in _AXIS_KEYS:
            raise spanish_error(
                f"view debe ser «gradient» o «activations», no {proposal['value']!r}"
            )
        return proposal["value"]

    @traitlets.validate("position")
    def _check_position(self, proposal):
        if proposal["value"] < 0:
            raise spanish_error("position debe ser un índice ≥ 0")
        return proposal["value"]
