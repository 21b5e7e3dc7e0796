// «LayerNorm en vivo» (Capítulo 4).
// Cableado: deslizadores de x, γ, β y ε → layerNormSteps → barras y tabla.
// Rangos, opciones de ε, valores por defecto, casos y paleta llegan de Python en
// el trait «settings» (resnorm/widgets/layer_norm.py): aquí no se repiten.
import {
  barRange, cleanRoundoff, formatNumber, layerNormSteps,
} from "./compute.js";
import { clear, h, s, uid } from "./dom.js";
import { barChart, commit, field, frame, legend, live, read } from "./ui.js";

const SUB = ["₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈"];
const fmtVec = (v) => `[${v.map((a) => formatNumber(a)).join(", ")}]`;

function slider(name, i, value, range, onInput) {
  const id = uid(name);
  const symbol = { x: "x", gamma: "γ", beta: "β" }[name];
  const label = `${symbol}${SUB[i]}`;
  const out = h("output", { for: id, class: "rn-value", text: formatNumber(value, 2) });
  const input = h("input", {
    id,
    type: "range",
    min: range.min,
    max: range.max,
    step: range.step,
    value,
    "aria-valuetext": formatNumber(value, 2),
  });
  input.addEventListener("input", () => {
    const v = Number(input.value);
    out.textContent = formatNumber(v, 2);
    input.setAttribute("aria-valuetext", formatNumber(v, 2));
    onInput(i, v);
  });
  const set = (v) => {
    input.value = String(v);
    out.textContent = formatNumber(v, 2);
    input.setAttribute("aria-valuetext", formatNumber(v, 2));
  };
  const row = h("div", { class: "rn-slider" }, [
    h("label", { for: id, text: label }), input, out,
  ]);
  return { row, set };
}

function stepsTable(r, labels, titleId) {
  const head = h("tr", {}, [h("th", { scope: "col", text: "Paso" })].concat(
    labels.map((l) => h("th", { scope: "col", text: l })),
    [h("th", { scope: "col", text: "media" }), h("th", { scope: "col", text: "std" })],
  ));
  const row = (name, vec, mean, std) =>
    h("tr", {}, [h("th", { scope: "row", text: name })].concat(
      vec.map((v) => h("td", { text: formatNumber(v) })),
      [h("td", { text: formatNumber(mean) }), h("td", { text: formatNumber(std) })],
    ));
  const rows = [row("x", r.x, r.mean, r.std)];
  rows.push(row("1. centrado: x − μ", r.centered, 0, r.std));
  if (!r.degenerate) {
    rows.push(row("2. dividido: (x − μ)/√(σ² + ε)", r.normalized,
      statMean(r.normalized), statStd(r.normalized)));
    rows.push(row("3. γ ⊙ … + β", r.output, statMean(r.output), r.outputStd));
  }
  // El título va fuera de la caja que se desplaza (tableTitle): en un teléfono, un
  // <caption> mide lo que la tabla y quedaba cortado a la derecha.
  return h("table", { class: "rn-table", "aria-labelledby": titleId }, [
    h("thead", {}, head),
    h("tbody", {}, rows),
  ]);
}

// Lo que ε le hace a la std del vector normalizado, dicho solo si se ve: con
// σ² ≫ ε la std sale 1.0000 a cuatro decimales y no tiene sentido decir «menos».
function epsRemark(eps, r, std) {
  if (!(eps > 0) || r.constant) return ".";
  if (formatNumber(std) !== formatNumber(1)) {
    return " (un poco menos que 1 porque ε suma al denominador).";
  }
  return (
    ` (ε también suma al denominador, pero con σ² = ${formatNumber(r.variance)} ` +
    `frente a ε = ${formatNumber(eps)} no se nota en cuatro decimales).`
  );
}

// Media para mostrar: el ruido de redondeo (10⁻¹⁶) se enseña como 0.
function statMean(v) {
  return cleanRoundoff(v.reduce((a, b) => a + b, 0) / v.length, v);
}

function statStd(v) {
  const m = statMean(v);
  return Math.sqrt(v.reduce((a, b) => a + (b - m) * (b - m), 0) / v.length);
}

function render({ model, el }) {
  const root = frame(el, "LayerNorm en vivo", "rn-layernorm");
  const echo = { saving: false }; // ver commit() en ui.js
  const settings = read(model, "settings", {});
  const DEFAULTS = settings.defaults;
  const RANGES = settings.ranges;
  const PRESETS = settings.presets;
  const palette = settings.palette;
  const state = {
    x: read(model, "x", DEFAULTS.x).slice(),
    gamma: read(model, "gamma", DEFAULTS.gamma).slice(),
    beta: read(model, "beta", DEFAULTS.beta).slice(),
    eps: read(model, "eps", DEFAULTS.eps),
  };
  const n = state.x.length;
  const labels = state.x.map((_, i) => `x${SUB[i]}`);
  const controls = {};

  const makeGroup = (name, legendText) => {
    const fs = h("fieldset", { class: "rn-group" }, [
      h("legend", { text: legendText }),
    ]);
    controls[name] = state[name].map((v, i) => {
      const sl = slider(name, i, v, RANGES[name], (j, value) => {
        state[name][j] = value;
        update();
        commit(model, { [name]: state[name].slice() }, echo);
      });
      fs.append(sl.row);
      return sl;
    });
    return fs;
  };

  const presetId = uid("preset");
  const preset = h("select", { id: presetId },
    [h("option", { value: "", text: "Elige un caso…" })].concat(
      PRESETS.map((p, i) => h("option", { value: String(i), text: p.label })),
    ));
  preset.addEventListener("change", () => {
    if (preset.value === "") return;
    setVector("x", PRESETS[Number(preset.value)].x);
  });

  const epsId = uid("eps");
  const epsSelect = h("select", { id: epsId },
    settings.eps_choices.map((e) =>
      h("option", { value: String(e.value), text: `ε = ${e.label}` }),
    ));
  epsSelect.value = String(state.eps);
  epsSelect.addEventListener("change", () => {
    state.eps = Number(epsSelect.value);
    update();
    commit(model, { eps: state.eps }, echo);
  });

  const resetBtn = h("button", { type: "button", text: "Restablecer γ = 1, β = 0" });
  resetBtn.addEventListener("click", () => {
    setVector("gamma", state.gamma.map(() => 1));
    setVector("beta", state.beta.map(() => 0));
  });
  const exampleBtn = h("button", {
    type: "button", text: "γ y β del ejemplo del curso",
  });
  exampleBtn.addEventListener("click", () => {
    setVector("gamma", DEFAULTS.gamma.slice(0, n));
    setVector("beta", DEFAULTS.beta.slice(0, n));
  });

  const xGroup = makeGroup("x", "Entrada x (un vector de 4 componentes)");
  const top = h("div", { class: "rn-row" }, [
    field(presetId, "Probar un caso", preset),
    field(epsId, "Épsilon", epsSelect),
  ]);
  const gammaGroup = makeGroup("gamma", "γ (escala, una por dimensión)");
  const betaGroup = makeGroup("beta", "β (desplazamiento, uno por dimensión)");
  const affine = h("div", { class: "rn-row" }, [gammaGroup, betaGroup]);
  const buttons = h("div", { class: "rn-buttons" }, [resetBtn, exampleBtn]);

  const svg = s("svg", { class: "rn-chart" });
  const series = [
    { name: "Entrada x", color: palette.blue },
    { name: "Normalizado (x − μ)/√(σ² + ε)", color: palette.sky_blue },
    { name: "Salida γ ⊙ normalizado + β", color: palette.vermillion },
  ];
  const summary = live("div", "rn-summary");
  const tableId = uid("pasos");
  const tableTitle = h("p", {
    class: "rn-table-title", id: tableId,
    text: "Los pasos de LayerNorm, componente a componente",
  });
  const tableBox = h("div", { class: "rn-table-box" });
  root.append(
    top, xGroup, affine, buttons, svg, legend(series), summary, tableTitle, tableBox,
  );

  function setVector(name, values) {
    state[name] = values.slice();
    values.forEach((v, i) => controls[name][i].set(v));
    update();
    commit(model, { [name]: state[name].slice() }, echo);
  }

  function update() {
    const r = layerNormSteps(state.x, state.gamma, state.beta, state.eps);
    const all = state.x.concat(r.normalized ?? [], r.output ?? []);
    barChart(svg, {
      labels,
      series: [
        { ...series[0], values: state.x },
        { ...series[1], values: r.normalized },
        { ...series[2], values: r.output },
      ],
      range: barRange(all, 1),
      title: "Barras de la entrada, el vector normalizado y la salida",
    });
    clear(summary);
    const lines = [
      `μ = ${formatNumber(r.mean)}, σ = ${formatNumber(r.std)}, ` +
        `√(σ² + ε) = ${formatNumber(r.denominator)}.`,
    ];
    if (r.degenerate) {
      lines.push(r.message);
    } else {
      const nm = statMean(r.normalized);
      const ns = statStd(r.normalized);
      lines.push(
        `Normalizado ${fmtVec(r.normalized)}: media ${formatNumber(nm)}, ` +
          `std ${formatNumber(ns)}` + epsRemark(state.eps, r, ns),
      );
      const plain =
        state.gamma.every((g) => g === 1) && state.beta.every((b) => b === 0);
      lines.push(
        `Salida ${fmtVec(r.output)}: ` +
          `media ${formatNumber(cleanRoundoff(r.outputMean, r.output))}, ` +
          `std ${formatNumber(r.outputStd)}. ` +
          (plain
            ? "Con γ = 1 y β = 0 la salida es el vector normalizado."
            : "No es media 0 y std 1: γ escala y β desplaza cada dimensión."),
      );
      if (r.message) lines.push(r.message);
    }
    for (const text of lines) summary.append(h("p", { text }));
    clear(tableBox);
    tableBox.append(stepsTable(r, labels, tableId));
  }

  const listeners = ["x", "gamma", "beta", "eps"].map((name) => {
    const cb = () => {
      if (echo.saving) return;
      const value = model.get(name);
      if (name === "eps") {
        state.eps = value;
        epsSelect.value = String(value);
      } else {
        state[name] = value.slice();
        value.forEach((v, i) => controls[name][i] && controls[name][i].set(v));
      }
      update();
    };
    model.on(`change:${name}`, cb);
    return [name, cb];
  });
  update();
  return () => listeners.forEach(([name, cb]) => model.off(`change:${name}`, cb));
}

export default { render };
