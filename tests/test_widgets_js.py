"""El JavaScript de los widgets, ejecutado con Node: mismo resultado que resnorm.

Los widgets calculan en el navegador (la web estática no tiene núcleo), así que
``resnorm/widgets/compute.js`` debe dar lo mismo que ``resnorm`` en float64 (1e-9)
con los vectores del curso, con cientos de vectores aleatorios sembrados y con cada
entrada mala que puede escribir una persona; donde ``resnorm`` lanza un error, el
JS da un mensaje en español, nunca NaN, «undefined» ni «Infinity».
"""

from __future__ import annotations

import inspect
import json
import math
import re
import shutil
import subprocess
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import resnorm
from resnorm import widgets
from resnorm.examples import VECTOR

WIDGETS_DIR = Path(widgets.__file__).resolve().parent
COMPUTE = WIDGETS_DIR / "compute.js"
ENTRIES = ["mean_std.js", "layer_norm.js", "residual.js", "block_stepper.js",
           "depth_explorer.js"]
NODE = shutil.which("node")
RTOL = 1e-9
ATOL = 1e-9

pytestmark = pytest.mark.skipif(NODE is None, reason="hace falta node en el PATH")

# Un proceso de Node para toda la sesión: una petición JSON por línea, una
# respuesta por línea (arrancar Node para cada prueba sería lo más lento).
RUNNER = r"""
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
const revive = (key, v) => {
  const special = v && typeof v === "object" && "__nonfinite__" in v;
  return special ? Number(v.__nonfinite__) : v;
};
const encode = (key, v) => {
  if (typeof v === "number" && !Number.isFinite(v)) return { __nonfinite__: String(v) };
  if (v === undefined) return { __undefined__: true };
  return v;
};
const modules = new Map();
for await (const line of createInterface({ input: process.stdin })) {
  const input = JSON.parse(line, revive);
  if (!modules.has(input.module)) {
    modules.set(input.module, await import(pathToFileURL(input.module).href));
  }
  const mod = modules.get(input.module);
  const out = [];
  for (const [name, args] of input.calls) {
    try {
      if (typeof mod[name] !== "function") throw new Error(`no existe ${name}`);
      out.push({ value: mod[name](...args) });
    } catch (err) {
      out.push({ error: String(err && err.message ? err.message : err) });
    }
  }
  process.stdout.write(JSON.stringify(out, encode) + "\n");
}
"""


def _encode(obj):
    """JSON no tiene NaN ni infinito: viajan como {"__nonfinite__": "Infinity"}."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return {"__nonfinite__": {math.inf: "Infinity", -math.inf: "-Infinity"}.get(
            obj, "NaN")}
    if isinstance(obj, (list, tuple)):
        return [_encode(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _encode(v) for k, v in obj.items()}
    return obj


def _decode(obj):
    if "__nonfinite__" in obj:
        names = {"Infinity": math.inf, "-Infinity": -math.inf}
        return names.get(obj["__nonfinite__"], math.nan)
    if "__undefined__" in obj:
        return "__undefined__"
    return obj


@pytest.fixture(scope="session")
def js(tmp_path_factory):
    """Llama funciones de compute.js: js([("formatNumber", [1.5]), ...]) → valores."""
    runner = tmp_path_factory.mktemp("node") / "runner.mjs"
    runner.write_text(RUNNER, encoding="utf-8")
    proc = subprocess.Popen(
        [NODE, str(runner)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, encoding="utf-8",
    )

    def call_raw(calls, module=COMPUTE):
        payload = json.dumps(
            {"module": str(module), "calls": _encode([list(c) for c in calls])},
            allow_nan=False,
        )
        proc.stdin.write(payload + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        assert line, f"Node terminó: {proc.stderr.read()}"
        return json.loads(line, object_hook=_decode)

    def call(calls, module=COMPUTE):
        results = call_raw(calls, module)
        for r in results:
            assert "error" not in r, r["error"]
        return [r["value"] for r in results]

    call.raw = call_raw
    try:
        yield call
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def strings_in(obj):
    """Todos los textos de un resultado (lo que el widget podría mostrar)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from strings_in(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings_in(v)


FORBIDDEN = re.compile(r"NaN|undefined|Infinity|null|\[object", re.I)


def assert_readable(result):
    for text in strings_in(result):
        assert not FORBIDDEN.search(text), text


def values(qs):
    return [q["value"] for q in qs]


def exact_stats(xs):
    """Media, varianza y σ exactas (fracciones), y log10 de la varianza."""
    fr = [Fraction(x) for x in xs]
    mu = sum(fr) / len(fr)
    var = sum((f - mu) ** 2 for f in fr) / len(fr)
    with localcontext() as ctx:
        ctx.prec = 60
        var_dec = Decimal(var.numerator) / Decimal(var.denominator)
        sigma = float(var_dec.sqrt()) if var else 0.0
        log10_var = float(var_dec.log10()) if var else -math.inf
    return float(mu), var, sigma, log10_var


# --- formatNumber y compañía ----------------------------------------------------------


@pytest.mark.parametrize(
    "x, text",
    [
        (1.0025, "1.0025"),
        (-0.2025, "\u22120.2025"),
        (0.0, "0.0000"),
        (0.039068750000000006, "0.0391"),
        (0.19765816451641963, "0.1977"),
        (123456.7, "123456.7000"),
        (1e6, "1.0000 × 10⁶"),
        (1e200, "1.0000 × 10²⁰⁰"),
        (-2.5e-7, "\u22122.5000 × 10⁻⁷"),
        (5e-5, "5.0000 × 10⁻⁵"),
        (1e-4, "0.0001"),
    ],
)
def test_format_number_is_for_humans(js, x, text):
    assert js([("formatNumber", [x])]) == [text]


def test_format_number_never_prints_nan_or_infinity(js):
    out = js([("formatNumber", [math.inf]), ("formatNumber", [-math.inf]),
              ("formatNumber", [math.nan]), ("formatNumber", ["hola"]),
              ("formatNumber", [None])])
    for text in out:
        assert text and not FORBIDDEN.search(text)


def test_format_number_digits(js):
    assert js([("formatNumber", [0.8, 2]), ("formatNumber", [1.333333, 3])]) == [
        "0.80", "1.333"]


def _formatter_cases():
    """Valores para comparar los formateadores: magnitudes de 1e-300 a 1e300, con
    signo, los empates exactos (0.125, 2.5, 1.25e21) y los de redondeo difícil."""
    rng = np.random.default_rng(20)
    xs = [0.0, -0.0, 0.125, 0.375, 2.5, -2.5, 0.5, 1.5, 125.0, 1.25e21, 0.1, 0.2, 0.3,
          1.0025, -0.2025, 0.19765816451641963, 999999.99999, 9.9999, 0.99995, 1e-4,
          5e-5, 1e6, 1e200, -1e200, 1e-200, 2.2250738585072014e-308, 5e-324,
          1.7976931348623157e308, 12345.678901, -0.00005]
    xs += list(rng.standard_normal(120) * 10.0 ** rng.integers(-12, 12, 120))
    xs += list(rng.integers(-2000, 2000, 60) / 8)  # muchos empates exactos
    xs += list(10.0 ** rng.uniform(-300, 300, 60))
    return [float(x) for x in xs]


def test_js_formatters_are_twins_of_resnorm_book(js):
    """formatFixed = resnorm.book.format_number y formatSci = format_sci, texto a
    texto, en cientos de valores: la prosa, las figuras y los widgets escriben igual
    cada número (redondeo al par en los empates, «−», sin «−0.0000»)."""
    from resnorm.book import format_number, format_sci

    calls, expected = [], []
    for x in _formatter_cases():
        for d in (0, 1, 2, 4, 6):
            calls.append(("formatFixed", [x, d]))
            expected.append(format_number(x, d))
        for d in (1, 2, 3, 5):
            calls.append(("formatSci", [x, d]))
            expected.append(format_sci(x, d))
    out = js(calls)
    wrong = [(c, o, e) for c, o, e in zip(calls, out, expected) if o != e]
    assert not wrong, wrong[:5]


def test_format_number_is_format_number_in_range_and_format_sci_outside(js):
    from resnorm.book import format_number, format_sci

    cases = [x for x in _formatter_cases() if x != 0 or math.copysign(1, x) > 0]
    out = js([("formatNumber", [x, 4]) for x in cases])
    for x, text in zip(cases, out):
        inside = x == 0 or 1e-4 <= abs(x) < 1e6
        assert text == (format_number(x, 4) if inside else format_sci(x, 5)), x


def test_squared_deviations_never_round_to_zero_beside_huge_values(js):
    """Con 1e200, −1e200, 1 y 2 la escala 2⁶⁶⁴ hacía diminuta la diferencia
    1 − 0.75: el widget escribía «(0.2500)² = 0.0000», que es falso."""
    [r] = js([("meanStdRecipe", [[1e200, -1e200, 1, 2]])])
    texts = [q["text"] for q in r["squaredDeviations"]]
    assert texts[2:] == ["0.0625", "1.5625"]
    assert texts[0].startswith("≈ 1.0000 × 10⁴⁰⁰")
    assert r["variance"]["text"] == "≈ 5.0000 × 10³⁹⁹"
    assert js([("equals", ["≈ 5.0 × 10³⁹⁹"]), ("equals", ["0.75"])]) == [
        "≈ 5.0 × 10³⁹⁹", "= 0.75"]


# --- Las constantes se escriben una vez, en Python -----------------------------------

WIDGET_SOURCES = sorted(WIDGETS_DIR.glob("*.js"))
# Un array de tres números o más («[0.8, 0.95, 0.93]»): un vector o una lista de
# opciones escritos a mano. Solo se admiten los de un algoritmo, no los del curso.
NUMBER_ARRAY = re.compile(r"\[\s*-?\d[\d.e+-]*(?:\s*,\s*-?\d[\d.e+-]*){2,}\s*\]")
ALGORITHMIC = {"[1, 2, 5, 10]"}  # los pasos «redondos» de un eje (linearTicks)


def _code(path):
    return widgets.strip_comments(path.read_text(encoding="utf-8"))


def _setting_literals():
    """Lo que cada widget recibe en ``settings``: números, vectores y colores."""
    out = set()

    def walk(v):
        if isinstance(v, dict):
            for w in v.values():
                walk(w)
        elif isinstance(v, list):
            nums = [x for x in v if isinstance(x, (int, float))]
            if len(nums) >= 3:
                out.add(", ".join(repr(float(x)).removesuffix(".0") for x in nums))
            for w in v:
                walk(w)
        elif isinstance(v, float) and v not in (0.0, 1.0):
            out.add(repr(v))
        elif isinstance(v, str) and re.fullmatch(r"#[0-9A-Fa-f]{6}", v):
            out.add(v.lower())

    for cls in (widgets.MeanStdCalculator, widgets.LayerNormExplorer,
                widgets.ResidualSum, widgets.BlockStepper):
        walk(cls().settings)
    return out


def test_no_widget_constant_is_written_again_in_javascript():
    """Rangos, valores por defecto, ε, casos y colores viven en Python (``settings``
    de cada widget); ningún ``.js`` los repite."""
    literals = _setting_literals()
    assert "1e-05" in literals and "#0072b2" in literals  # la prueba ve algo
    for path in WIDGET_SOURCES:
        code = _code(path)
        low = code.lower()
        for hexcolor in re.findall(r"#[0-9a-fA-F]{6}\b", code):
            pytest.fail(f"{path.name} escribe el color {hexcolor}: va en PALETTE")
        for arr in NUMBER_ARRAY.findall(code):
            assert arr in ALGORITHMIC, f"{path.name} escribe el vector {arr}"
        for lit in literals:
            if lit.startswith("#"):
                assert lit not in low, f"{path.name} repite {lit}"
            elif "," in lit:
                assert lit not in code, f"{path.name} repite [{lit}]"
        if path.name in ("compute.js", "ui.js"):
            continue  # umbrales de cálculo y de dibujo (1e-3 en las marcas), no ε
        for eps in ("1e-5", "1e-3", "1e-05", "0.00001", "0.001"):
            assert not re.search(rf"(?<![\w.]){re.escape(eps)}(?![\w.])", code), (
                f"{path.name} escribe ε = {eps}: va en settings"
            )


def test_every_widget_hands_its_palette_to_the_javascript():
    from resnorm.plots import PALETTE

    for cls in (widgets.MeanStdCalculator, widgets.LayerNormExplorer,
                widgets.ResidualSum, widgets.BlockStepper):
        palette = cls().settings["palette"]
        assert all(PALETTE[name] == color for name, color in palette.items())
        assert "settings" in cls().get_state()


def test_layer_norm_settings_match_its_python_checks():
    w = widgets.LayerNormExplorer()
    s = w.settings
    assert [e["value"] for e in s["eps_choices"]] == list(w.EPS_CHOICES)
    assert (s["ranges"]["x"]["min"], s["ranges"]["x"]["max"]) == w.X_RANGE
    assert (s["ranges"]["gamma"]["min"], s["ranges"]["gamma"]["max"]) == w.GAMMA_RANGE
    assert (s["ranges"]["beta"]["min"], s["ranges"]["beta"]["max"]) == w.BETA_RANGE
    assert s["defaults"] == {"x": w.x, "gamma": w.gamma, "beta": w.beta, "eps": w.eps}
    eps = inspect.signature(resnorm.layer_norm).parameters["eps"].default
    assert s["defaults"]["eps"] == eps
    for preset in s["presets"]:
        w.x = preset["x"]  # cada caso pasa las comprobaciones del deslizador


def test_format_from_log10_writes_numbers_that_do_not_fit_in_a_double(js):
    out = js([
        ("formatFromLog10", [math.log10(1.25) + 400]),
        ("formatFromLog10", [math.log10(9.999999)]),  # redondea a 10 → 1 × 10¹
        ("formatFromLog10", [-400 + math.log10(3)]),
        ("formatFromLog10", [2.0, True]),
    ])
    assert out == ["≈ 1.2500 × 10⁴⁰⁰", "≈ 1.0000 × 10¹", "≈ 3.0000 × 10⁻⁴⁰⁰",
                   "≈ \u22121.0000 × 10²"]


def test_scale_pow2_is_exact_and_does_not_overflow_midway(js):
    out = js([("scalePow2", [3.0, -1074]), ("scalePow2", [math.ldexp(1, -1000), 2000]),
              ("scalePow2", [0.75, 10])])
    assert out[0] == 3 * 5e-324  # subnormal, pero exacto
    assert out[1] == math.ldexp(1, 1000)  # 2**2000 no cabe, el producto sí
    assert out[2] == 768.0


# --- parseNumber: lo que escribe una persona ------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("0.80", 0.8),
        ("0,5", 0.5),  # coma decimal: la escriben los lectores en español
        ("  0.95  ", 0.95),
        ("\u00a01.33\t", 1.33),
        ("1e3", 1000.0),
        ("2,5E-3", 0.0025),
        ("\u22120.2", -0.2),  # el signo menos tipográfico del curso
        ("+3", 3.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("1e200", 1e200),
        ("-0", 0.0),
    ],
)
def test_parse_number_accepts_what_people_type(js, text, value):
    [out] = js([("parseNumber", [text])])
    assert out == {"ok": True, "value": value}


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "vacío"),
        ("   ", "vacío"),
        ("abc", "no es un número"),
        ("1 000", "no es un número"),
        ("0x10", "no es un número"),
        ("1e", "no es un número"),
        ("NaN", "no es un número"),
        ("nan", "no es un número"),
        ("Infinity", "infinito"),
        ("-Infinity", "infinito"),
        ("inf", "infinito"),
        ("∞", "infinito"),
        ("1e400", "demasiado grande"),
        ("1e-400", "redondea a 0"),
        ("1.000,5", "un solo separador"),
        ("1,2,3", "varias comas"),
    ],
)
def test_parse_number_rejects_with_a_spanish_message(js, text, words):
    [out] = js([("parseNumber", [text])])
    assert out["ok"] is False
    assert words in out["error"]
    assert "escribe" in out["error"] or "usa" in out["error"].lower()
    assert not FORBIDDEN.search(out["error"])


def test_parse_vector_marks_each_bad_field(js):
    [out] = js([("parseVector", [["0.8", "", "abc", "1,33"]])])
    assert out["ok"] is False and out["values"] is None
    assert out["errors"][0] is None and out["errors"][3] is None
    assert "vacío" in out["errors"][1] and "no es un número" in out["errors"][2]


# --- Paridad con resnorm: la receta de media y σ --------------------------------------


def check_recipe(recipe, xs):
    x = np.array(xs, dtype=np.float64)
    np.testing.assert_allclose(recipe["sum"]["value"], x.sum(), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(recipe["mean"]["value"], resnorm.mean(x), rtol=RTOL,
                               atol=ATOL)
    np.testing.assert_allclose(values(recipe["deviations"]), x - resnorm.mean(x),
                               rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(values(recipe["squaredDeviations"]),
                               (x - resnorm.mean(x)) ** 2, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(recipe["variance"]["value"], resnorm.variance(x),
                               rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(recipe["std"]["value"], resnorm.std(x), rtol=RTOL,
                               atol=ATOL)
    assert_readable(recipe)


def test_recipe_on_the_course_vector(js):
    [r] = js([("meanStdRecipe", [list(VECTOR)])])
    check_recipe(r, list(VECTOR))
    assert r["sum"]["text"] == "4.0100"
    assert r["mean"]["text"] == "1.0025"
    assert [q["text"] for q in r["squaredDeviations"]] == [
        "0.0410", "0.0028", "0.0053", "0.1073"]
    assert r["variance"]["text"] == "0.0391"
    assert r["std"]["text"] == "0.1977"  # no 0.198: eso sale de redondear σ² antes


def test_recipe_on_2_4_6_8_gives_mean_5(js):
    [r] = js([("meanStdRecipe", [[2, 4, 6, 8]])])
    check_recipe(r, [2, 4, 6, 8])
    assert r["mean"]["text"] == "5.0000"


def random_vectors(n=300, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        d = int(rng.integers(2, 13))
        scale = 10 ** rng.uniform(-3, 3)
        shift = rng.normal(0, 3) * scale
        out.append(rng.normal(shift, scale, d))
    return out


def test_recipe_matches_resnorm_on_300_random_vectors(js):
    vecs = random_vectors()
    results = js([("meanStdRecipe", [v.tolist()]) for v in vecs])
    for v, r in zip(vecs, results):
        check_recipe(r, v)


def test_mean_std_matches_resnorm_on_300_random_vectors(js):
    vecs = random_vectors(seed=1)
    results = js([("meanStd", [v.tolist()]) for v in vecs])
    for v, r in zip(vecs, results):
        np.testing.assert_allclose(
            [r["mean"], r["variance"], r["std"]],
            [resnorm.mean(v), resnorm.variance(v), resnorm.std(v)],
            rtol=RTOL, atol=ATOL,
        )


# --- Paridad con resnorm: LayerNorm paso a paso ---------------------------------------


def check_layer_norm(r, x, gamma, beta, eps):
    ref = resnorm.layer_norm_steps(x, gamma, beta, eps=eps)
    for js_name, py_name in [
        ("mean", "mean"), ("centered", "centered"),
        ("squaredDeviations", "squared_deviations"), ("variance", "variance"),
        ("std", "std"), ("denominator", "denominator"), ("normalized", "normalized"),
        ("output", "output"), ("outputMean", "output_mean"),
        ("outputStd", "output_std"),
    ]:
        np.testing.assert_allclose(r[js_name], getattr(ref, py_name), rtol=RTOL,
                                   atol=ATOL, err_msg=js_name)
    np.testing.assert_allclose(r["output"], resnorm.layer_norm(x, gamma, beta, eps),
                               rtol=RTOL, atol=ATOL)
    assert r["degenerate"] is False
    assert_readable({k: v for k, v in r.items() if k != "message"})


@pytest.mark.parametrize("eps", [0.0, 1e-5, 1e-3])
def test_layer_norm_on_the_course_example(js, eps):
    x = list(VECTOR)
    gamma, beta = [1.2, 0.8, 1.0, 1.1], [0.1, 0.0, -0.2, 0.3]
    [r] = js([("layerNormSteps", [x, gamma, beta, eps])])
    check_layer_norm(r, x, gamma, beta, eps)
    if eps == 1e-5:
        np.testing.assert_allclose(r["output"], [-1.1292, -0.2125, -0.5667, 2.1224],
                                   atol=5e-5)


def test_layer_norm_default_gamma_beta_are_one_and_zero(js):
    # ε no tiene valor por defecto en el JS: lo decide Python (settings del widget).
    [r] = js([("layerNormSteps", [[2, 4], None, None, 1e-5])])
    check_layer_norm(r, [2, 4], None, None, 1e-5)
    np.testing.assert_allclose(r["output"], [-1, 1], atol=1e-4)


def test_layer_norm_matches_resnorm_on_300_random_vectors(js):
    rng = np.random.default_rng(2)
    cases = []
    for v in random_vectors(seed=3):
        gamma = rng.uniform(-2, 2, v.size)
        beta = rng.uniform(-2, 2, v.size)
        eps = [0.0, 1e-5, 1e-3][int(rng.integers(3))]
        cases.append((v, gamma, beta, eps))
    results = js([("layerNormSteps", [v.tolist(), g.tolist(), b.tolist(), e])
                  for v, g, b, e in cases])
    for (v, g, b, e), r in zip(cases, results):
        check_layer_norm(r, v, g, b, e)


def test_layer_norm_is_shift_and_scale_invariant_in_js(js):
    x = list(VECTOR)
    a, b, c = js([("layerNormSteps", [x, None, None, 0]),
                  ("layerNormSteps", [[v + 2 for v in x], None, None, 0]),
                  ("layerNormSteps", [[3 * v for v in x], None, None, 0])])
    np.testing.assert_allclose(a["normalized"], b["normalized"], atol=1e-12)
    np.testing.assert_allclose(a["normalized"], c["normalized"], atol=1e-12)


def test_layer_norm_rejects_bad_arguments_in_spanish(js):
    out = js.raw([("layerNormSteps", [[1, 2], [1], [0, 0], 1e-5]),
                  ("layerNormSteps", [[1, 2], None, None, -1]),
                  ("layerNormSteps", [[], None, None, 1e-5])])
    assert "misma longitud" in out[0]["error"]
    assert "ε" in out[1]["error"]
    assert "al menos un valor" in out[2]["error"]


# --- Residual -------------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0, 2.35, 3.0])
def test_residual_sum_matches_resnorm(js, alpha):
    x, fx = [0.50, 1.15, 0.78, 0.88], [0.30, -0.20, 0.15, 0.45]
    [r] = js([("residualSum", [x, fx, alpha])])
    expected = resnorm.residual(x, alpha * np.array(fx))
    np.testing.assert_allclose(r["output"], expected, rtol=RTOL, atol=ATOL)
    cos = np.dot(x, expected) / (np.linalg.norm(x) * np.linalg.norm(expected))
    assert r["cosine"] == pytest.approx(cos, rel=1e-12)
    assert r["identity"] is (alpha == 0)


def test_residual_with_alpha_zero_is_exactly_the_identity(js):
    x = [0.50, 1.15, 0.78, 0.88]
    [r] = js([("residualSum", [x, [0.30, -0.20, 0.15, 0.45], 0])])
    assert r["output"] == x
    assert r["cosine"] == pytest.approx(1.0, abs=1e-15)


def test_residual_course_example_gives_0_80_0_95_0_93_1_33(js):
    x, fx = [0.50, 1.15, 0.78, 0.88], [0.30, -0.20, 0.15, 0.45]
    [r] = js([("residualSum", [x, fx, 1])])
    np.testing.assert_allclose(r["output"], VECTOR, atol=1e-12)


# --- Entradas malas, de punta a punta: texto → número → receta y LayerNorm ------------


def parse_then_compute(js, texts, eps=1e-5):
    [parsed] = js([("parseVector", [texts])])
    if not parsed["ok"]:
        return parsed, None, None
    vals = parsed["values"]
    recipe, ln = js([
        ("meanStdRecipe", [vals]), ("layerNormSteps", [vals, None, None, eps]),
    ])
    return parsed, recipe, ln


@pytest.mark.parametrize(
    "texts, expected",
    [
        (["0,80", "0,95", "0,93", "1,33"], [0.80, 0.95, 0.93, 1.33]),
        ([" 0.80", "0.95 ", " 0.93 ", "\t1.33"], [0.80, 0.95, 0.93, 1.33]),
        (["1e3", "2e3", "1.5E3", "4e+2"], [1000, 2000, 1500, 400]),
        (["−1", "0", "+1", "0,5"], [-1, 0, 1, 0.5]),
    ],
)
def test_good_but_unusual_input_gives_the_resnorm_result(js, texts, expected):
    parsed, recipe, ln = parse_then_compute(js, texts)
    assert parsed["values"] == expected
    check_recipe(recipe, expected)
    check_layer_norm(ln, expected, None, None, 1e-5)


@pytest.mark.parametrize(
    "bad",
    ["", "abc", "NaN", "Infinity", "-Infinity", "1e400", "1.000,5", "uno"],
)
def test_bad_input_gives_a_spanish_message_where_resnorm_raises(js, bad):
    parsed, recipe, _ = parse_then_compute(js, ["0.8", bad, "0.93", "1.33"])
    assert parsed["ok"] is False and recipe is None
    assert parsed["errors"][1] and not FORBIDDEN.search(parsed["errors"][1])
    # resnorm no acepta ese valor: o no se puede convertir, o no es finito.
    try:
        value = float(bad.replace(",", ".")) if bad else None
    except ValueError:
        value = None
    if value is not None:
        with pytest.raises(ValueError, match="NaN o ±inf"):
            resnorm.mean([0.8, value, 0.93, 1.33])


def test_four_equal_values_give_sigma_zero_and_eps_explains(js):
    texts = ["0,5"] * 4
    parsed, recipe, ln = parse_then_compute(js, texts, eps=0)
    assert recipe["constant"] is True
    assert recipe["std"]["value"] == resnorm.std([0.5] * 4) == 0
    assert ln["degenerate"] is True and ln["normalized"] is None
    assert "ε" in ln["message"] and "0 entre 0" in ln["message"]
    with pytest.raises(ValueError, match="eps > 0"):
        resnorm.layer_norm([0.5] * 4, eps=0)
    # Con ε > 0 no hay división entre cero: la salida es β.
    [r] = js([("layerNormSteps", [[0.5] * 4, [1.2, 0.8, 1.0, 1.1],
                                  [0.1, 0.0, -0.2, 0.3], 1e-5])])
    check_layer_norm(r, [0.5] * 4, [1.2, 0.8, 1.0, 1.1], [0.1, 0.0, -0.2, 0.3], 1e-5)
    np.testing.assert_allclose(r["output"], [0.1, 0.0, -0.2, 0.3], atol=1e-12)
    assert r["denominator"] == pytest.approx(math.sqrt(1e-5), rel=1e-15)
    assert "√ε" in r["message"]


def test_huge_values_do_not_overflow_the_variance(js):
    texts = ["1e200", "2e200", "3e200", "4e200"]
    xs = [1e200, 2e200, 3e200, 4e200]
    parsed, recipe, ln = parse_then_compute(js, texts)
    assert parsed["values"] == xs
    _, _, sigma, log10_var = exact_stats(xs)
    assert recipe["std"]["value"] == pytest.approx(sigma, rel=1e-12)
    assert recipe["std"]["value"] == pytest.approx(resnorm.std(xs), rel=RTOL)
    assert recipe["mean"]["value"] == pytest.approx(resnorm.mean(xs), rel=RTOL)
    # σ² = 1.25e400 no cabe en un double: resnorm devuelve inf y avisa; el JS lo
    # escribe con logaritmos.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert math.isinf(resnorm.variance(xs))
    assert recipe["variance"]["text"] == "≈ 1.2500 × 10⁴⁰⁰"
    assert abs(log10_var - (400 + math.log10(1.25))) < 1e-12
    assert recipe["overflow"] is True
    assert all("≈" in q["text"] for q in recipe["squaredDeviations"])
    assert_readable(recipe)
    # LayerNorm de valores enormes: la misma salida que resnorm.
    np.testing.assert_allclose(ln["normalized"], resnorm.layer_norm(xs), rtol=RTOL)
    assert_readable({k: v for k, v in ln.items() if k != "message"})


@pytest.mark.parametrize(
    "xs",
    [
        [1e-200, 2e-200, 3e-200, 4e-200],
        [1e308, -1e308, 1.7e308, -1.7e308],
        [5e-324, 1e-323, 0.0, 2e-323],
        [1e150, 1e150, 1e150, 1.0000000001e150],
    ],
)
def test_extreme_values_give_the_exact_sigma(js, xs):
    [r] = js([("meanStdRecipe", [xs])])
    mu, _, sigma, log10_var = exact_stats(xs)
    assert r["std"]["value"] == pytest.approx(sigma, rel=1e-9)
    assert r["mean"]["value"] == pytest.approx(mu, rel=1e-9, abs=1e-320)
    text = r["variance"]["text"]
    if text.startswith("≈"):
        m, e = re.match(r"≈ ([\d.]+) × 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", text).groups()
        e = int(e.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
        assert math.log10(float(m)) + e == pytest.approx(log10_var, abs=1e-4)
    assert_readable(r)


# --- Ejes de los gráficos -------------------------------------------------------------


def test_log_ticks_cover_the_range_with_few_marks(js):
    a, b, c = js([("logTicks", [1e-12, 3.0]), ("logTicks", [0.5, 2.0]),
                  ("logTicks", [0, 1])])
    assert a[0] <= -12 and a[-1] >= 1 and len(a) <= 9
    assert b == [-1, 0, 1]
    assert c == []


def test_log_ticks_always_label_the_top_decade(js):
    [t] = js([("logTicks", [1e-16, 10.0])])
    assert t[-1] == 1 and t[0] <= -16
    assert len(set(np.diff(t))) == 1  # paso constante


def test_clean_roundoff_shows_rounding_noise_as_zero(js):
    normalized = [-1.0244, -0.2656, -0.3667, 1.6567]
    out = js([("cleanRoundoff", [3.9e-16, normalized]),
              ("cleanRoundoff", [1e-9, normalized]),
              ("cleanRoundoff", [1e-200, [1e-200, 3e-200]])])
    assert out == [0, 1e-9, 1e-200]  # solo el ruido relativo, no lo pequeño


def test_log_range_ignores_zeros_and_missing_values(js):
    [r] = js([("logRange", [[0, None, 3e-9, 40.0]])])
    assert r == [-9, 2]


def test_bar_range_includes_zero_and_every_value(js):
    vals = [-1.13, 2.12, 0.8]
    [lo, hi] = js([("barRange", [vals])])[0]
    assert lo <= min(vals) and hi >= max(vals) and lo <= 0 <= hi


def test_linear_ticks_are_round(js):
    [t] = js([("linearTicks", [-1.13, 2.12, 4])])
    assert t == [-2, -1, 0, 1, 2]


# --- Los módulos de los widgets -------------------------------------------------------


def test_compute_js_is_pure_no_dom_no_network():
    text = COMPUTE.read_text(encoding="utf-8")
    for word in ("document", "window", "fetch(", "XMLHttpRequest", "import "):
        assert word not in text, word


def test_no_javascript_file_contains_a_url():
    for path in WIDGETS_DIR.glob("*.js"):
        assert not re.search(r"https?://", path.read_text(encoding="utf-8")), path.name
    for entry in ENTRIES:
        assert not re.search(r"https?://|//cdn|\bimport\s*\(", widgets.bundle(entry))


def test_javascript_and_css_lines_fit_in_88_columns():
    for path in list(WIDGETS_DIR.glob("*.js")) + list(WIDGETS_DIR.glob("*.css")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert len(line) <= 88, f"{path.name}:{n} tiene {len(line)} caracteres"


@pytest.mark.parametrize("entry", ENTRIES)
def test_each_bundled_esm_is_a_valid_module_with_render(tmp_path, entry):
    module = tmp_path / entry.replace(".js", ".mjs")
    module.write_text(widgets.bundle(entry), encoding="utf-8")
    check = (
        f"const m = await import({json.dumps(module.as_uri())});"
        "if (typeof m.default?.render !== 'function') throw new Error('sin render');"
        "console.log('ok');"
    )
    proc = subprocess.run([NODE, "--input-type=module", "-e", check],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_widget_classes_carry_the_bundled_esm():
    for cls, entry in [
        (widgets.MeanStdCalculator, "mean_std.js"),
        (widgets.LayerNormExplorer, "layer_norm.js"),
        (widgets.ResidualSum, "residual.js"),
        (widgets.BlockStepper, "block_stepper.js"),
        (widgets.DepthExplorer, "depth_explorer.js"),
    ]:
        assert str(cls._esm) == widgets.bundle(entry)
        assert "./compute.js" not in str(cls._esm)


# --- El «bundler» mínimo --------------------------------------------------------------


def write(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def run_module(tmp_path, source, expr):
    module = tmp_path / "bundled.mjs"
    module.write_text(source, encoding="utf-8")
    url = json.dumps(module.as_uri())
    check = f"const m = await import({url}); console.log({expr});"
    proc = subprocess.run([NODE, "--input-type=module", "-e", check],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_bundle_inlines_each_dependency_once_without_name_clashes(tmp_path):
    d = write(tmp_path, {
        "a.js": "const K = 1;\n// comentario\nexport function one() { return K; }\n",
        "b.js": 'import { one } from "./a.js";\nconst K = 10;\n'
                "export const ten = () => K * one();\n",
        "main.js": 'import { one } from "./a.js";\nimport { ten } from "./b.js";\n'
                   "const K = 100;\n"
                   "export default { render: () => K + ten() + one() };\n",
    })
    source = widgets.bundle("main.js", d)
    assert source.count("const __rn_a =") == 1
    assert "comentario" not in source
    assert run_module(tmp_path, source, "m.default.render()") == "111"


def test_bundle_keeps_code_after_an_inline_block_comment(tmp_path):
    d = write(tmp_path, {
        "main.js": "/* a */ const X = 7;\nexport default { render: () => X };\n",
    })
    source = widgets.bundle("main.js", d)
    assert run_module(tmp_path, source, "m.default.render()") == "7"


@pytest.mark.parametrize(
    "files, match",
    [
        ({"main.js": 'import { a as b } from "./a.js";\nexport default {};\n',
          "a.js": "export const a = 1;\n"}, "alias"),
        ({"main.js": 'import { z } from "./a.js";\nexport default {};\n',
          "a.js": "export const a = 1;\n"}, "no los exporta"),
        ({"main.js": 'import { a } from "./a.js";\nexport default {};\n',
          "a.js": 'import { b } from "./b.js";\nexport const a = 1;\n',
          "b.js": 'import { a } from "./a.js";\nexport const b = 2;\n'}, "circular"),
        ({"main.js": 'import { a } from "./a.js";\nexport default {};\n',
          "a.js": "export const a = 1;\nexport default a;\n"}, "export default"),
        ({"main.js": 'import x from "https://cdn.example/x.js";\nexport default {};\n'},
         "URL"),
        ({"main.js": "export const render = () => 1;\n"}, "export default"),
    ],
)
def test_bundle_refuses_what_it_cannot_inline(tmp_path, files, match):
    d = write(tmp_path, files)
    with pytest.raises(ValueError, match=match):
        widgets.bundle("main.js", d)
