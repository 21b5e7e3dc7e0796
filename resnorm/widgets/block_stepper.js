// «El vector “perro” por un bloque» (Capítulo 8: el vector «perro» paso a paso).
// Solo muestra: los pasos (vectores y estadísticas) los calcula
// resnorm.trace en Python al construir el widget.
import { barRange, cleanRoundoff, formatNumber } from "./compute.js";
import { clear, h, s, uid } from "./dom.js";
import { barChart, commit, frame, legend, live, read } from "./ui.js";

const SUB = ["₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈"];
const ORDERS = [
  {
    value: "post",
    label: "Post-LN (original, 2017)",
    formula: "x′ = LN(x + Atención(x));  x″ = LN(x′ + FFN(x′))",
  },
  {
    value: "pre",
    label: "Pre-LN (GPT-2)",
    formula: "h = x + Atención(LN₁(x));  salida = h + FFN(LN₂(h))",
  },
];

const fmtVec = (v) => `[${v.map((a) => formatNumber(a)).join(", ")}]`;

// «a + b = [v]» → «a + b»; «x = [v]» → "" (solo nombraba el vector).
function withoutResult(formula, vectorText) {
  const tail = ` = ${vectorText}`;
  if (!formula.endsWith(tail)) return formula;
  const rest = formula.slice(0, -tail.length);
  return /[\d[(]/.test(rest) ? `${rest} =` : "";
}

function render({ model, el }) {
  const root = frame(el, "El vector «perro» por un bloque", "rn-stepper");
  const echo = { saving: false }; // ver commit() en ui.js
  const palette = read(model, "settings", {}).palette; // de Python, como en los demás
  let order = read(model, "order", "post");
  let index = read(model, "index", 0);
  const steps = () => read(model, order === "pre" ? "steps_pre" : "steps_post", []);

  const orderBox = h("fieldset", { class: "rn-group rn-inline" }, [
    h("legend", { text: "Dónde va LayerNorm" }),
  ]);
  const name = uid("order");
  const radios = ORDERS.map((o) => {
    const id = uid("order-opt");
    const radio = h("input", { type: "radio", name, id, value: o.value });
    radio.checked = o.value === order;
    radio.addEventListener("change", () => {
      if (!radio.checked) return;
      order = o.value;
      index = Math.min(index, steps().length - 1);
      commit(model, { order, index }, echo);
      update();
    });
    orderBox.append(
      h("span", { class: "rn-radio" }, [radio, h("label", { for: id, text: o.label })]),
    );
    return radio;
  });
  const formula = h("p", { class: "rn-formula" });

  const prev = h("button", { type: "button", text: "Paso anterior" });
  const next = h("button", {
    type: "button", text: "Siguiente paso", class: "rn-primary",
  });
  const go = (to) => {
    const n = steps().length;
    const target = Math.max(0, Math.min(n - 1, to));
    if (target === index) return;
    index = target;
    commit(model, { index }, echo);
    update();
  };
  prev.addEventListener("click", () => go(index - 1));
  next.addEventListener("click", () => go(index + 1));
  const nav = h("div", { class: "rn-buttons" }, [prev, next]);

  const map = h("ol", {
    class: "rn-stepmap", "aria-label": "Todos los pasos del bloque",
  });
  const panel = live("div", "rn-step");
  const svg = s("svg", { class: "rn-chart" });
  const series = [
    { name: "Entrada del bloque x", color: palette.blue },
    { name: "Este paso", color: palette.vermillion },
  ];
  root.append(orderBox, formula, nav, panel, svg, legend(series), map);

  function update() {
    const all = steps();
    if (all.length === 0) {
      clear(panel);
      panel.append(h("p", { text: "No hay pasos que mostrar." }));
      return;
    }
    index = Math.max(0, Math.min(all.length - 1, index));
    const step = all[index];
    radios.forEach((r) => { r.checked = r.value === order; });
    formula.textContent = ORDERS.find((o) => o.value === order).formula;
    prev.setAttribute("aria-disabled", String(index === 0));
    next.setAttribute("aria-disabled", String(index === all.length - 1));

    clear(panel);
    panel.append(
      h("p", { class: "rn-step-title" }, [
        h("strong", { text: `Paso ${index + 1} de ${all.length}: ` }),
        step.title,
      ]),
      h("p", { text: step.explanation }),
    );
    // La fórmula del paso suele terminar en el vector que calcula («… = [...]»),
    // que se muestra justo debajo: se quita de la fórmula para no leerlo dos veces.
    const vectorText = fmtVec(step.vector);
    const formulaText = withoutResult(step.formula || "", vectorText);
    if (formulaText) panel.append(h("p", { class: "rn-formula", text: formulaText }));
    panel.append(h("p", { class: "rn-vector", text: `Vector: ${vectorText}` }));
    const facts = (step.scalars || []).map(
      ([label, value]) => `${label} = ${formatNumber(value)}`,
    );
    if (step.stats) {
      const mean = cleanRoundoff(step.stats.mean, step.vector);
      facts.push(
        `media del vector = ${formatNumber(mean)}`,
        `std del vector = ${formatNumber(step.stats.std)}`,
      );
    }
    if (facts.length) {
      panel.append(h("p", { class: "rn-facts", text: facts.join(";  ") }));
    }

    const input = all[0].vector;
    const labels = input.map((_, i) => `x${SUB[i] ?? i + 1}`);
    const values = all.flatMap((st) => st.vector);
    barChart(svg, {
      labels,
      series: [
        { ...series[0], values: input },
        { ...series[1], values: step.vector },
      ],
      range: barRange(values, 1),
      title: `Barras de la entrada y del paso ${index + 1}: ${step.title}`,
    });

    if (mapOrder !== order || mapButtons.length !== all.length) rebuildMap(all);
    mapButtons.forEach((btn, i) => {
      if (i === index) btn.setAttribute("aria-current", "step");
      else btn.removeAttribute("aria-current");
    });
  }

  // El mapa se reconstruye solo al cambiar de orden: así el foco no se pierde
  // al pulsar uno de sus botones.
  let mapOrder = null;
  let mapButtons = [];
  function rebuildMap(all) {
    clear(map);
    mapOrder = order;
    mapButtons = all.map((st, i) => {
      const btn = h("button", {
        type: "button", class: "rn-link", text: `${i + 1}. ${st.title}`,
      });
      btn.addEventListener("click", () => go(i));
      map.append(h("li", {}, btn));
      return btn;
    });
  }

  const onOrder = () => {
    if (echo.saving) return;
    order = read(model, "order", "post");
    update();
  };
  const onIndex = () => {
    if (echo.saving) return;
    index = read(model, "index", 0);
    update();
  };
  model.on("change:order", onOrder);
  model.on("change:index", onIndex);
  update();
  return () => {
    model.off("change:order", onOrder);
    model.off("change:index", onIndex);
  };
}

export default { render };
