// «Explorador de profundidad» (Capítulo 9: profundidad, escalas y gradientes).
// Los datos vienen precalculados de Python (resnorm.experiments); aquí solo
// se eligen series y posición, y se dibuja en escala logarítmica.
import { formatNumber, logRange } from "./compute.js";
import { clear, h, s, uid } from "./dom.js";
import { commit, field, frame, live, logLineChart, read } from "./ui.js";

// El estilo de cada serie (color, trazo, marcador y nombre) llega de Python en
// el trait «styles»: es el de resnorm.plots.SERIES_STYLE, el de las figuras.
const VIEWS = {
  gradient: {
    option: "Gradiente en la primera capa según la profundidad",
    xKey: "depths",
    xLabel: "profundidad (número de capas)",
    yLabel: "norma del gradiente (log)",
    slider: "Profundidad",
    at: (x) => (x === 1 ? "Con 1 capa" : `Con ${x} capas`),
  },
  activations: {
    option: "Desviación estándar de las activaciones, capa a capa",
    xKey: "layers",
    xLabel: "capa",
    yLabel: "std de las activaciones (log)",
    slider: "Capa",
    at: (x) => `En la capa ${x}`,
  },
};

function valueText(v) {
  if (v === null || v === undefined) return "sin dato";
  if (v === 0) return "0 (por debajo de lo que un float representa)";
  return formatNumber(v);
}

function render({ model, el }) {
  const root = frame(el, "Explorador de profundidad", "rn-depth");
  const echo = { saving: false }; // ver commit() en ui.js
  const data = (view) => read(model, view, {});
  const available = () =>
    Object.keys(VIEWS).filter((v) => (data(v)[VIEWS[v].xKey] || []).length > 0);
  let view = read(model, "view", "gradient");
  if (!available().includes(view)) view = available()[0];

  const viewId = uid("view");
  const viewSelect = h("select", { id: viewId });
  for (const v of available()) {
    viewSelect.append(h("option", { value: v, text: VIEWS[v].option }));
  }
  viewSelect.value = view;
  const seriesBox = h("fieldset", { class: "rn-group rn-inline" }, [
    h("legend", { text: "Series que se dibujan" }),
  ]);
  const posId = uid("pos");
  const posLabel = h("label", { for: posId });
  const pos = h("input", { id: posId, type: "range", min: 0, step: 1 });
  const posOut = h("output", { for: posId, class: "rn-value" });
  const svg = s("svg", { class: "rn-chart rn-chart-wide" });
  const summary = live("div", "rn-summary");
  root.append(
    field(viewId, "Qué mirar", viewSelect),
    seriesBox,
    h("div", { class: "rn-slider rn-wide" }, [posLabel, pos, posOut]),
    svg,
    summary,
  );

  // En un teléfono el gráfico se dibuja más estrecho (menos unidades de viewBox):
  // mostrado a ~330 px, el texto de los ejes sigue midiendo unos 11 px.
  const narrow = typeof window !== "undefined" && window.matchMedia
    ? window.matchMedia("(max-width: 575.98px)") : null;
  const chartWidth = () => (narrow && narrow.matches ? 340 : 520);

  let checkboxes = [];
  function seriesKeys() {
    return Object.keys(data(view).series || {});
  }
  function styleOf(key) {
    return read(model, "styles", {})[key] ?? { color: "currentColor", dash: null };
  }
  function labelOf(key) {
    return read(model, "labels", {})[key] ?? styleOf(key).label ?? key;
  }
  function rebuildSeries() {
    clear(seriesBox);
    seriesBox.append(h("legend", { text: "Series que se dibujan" }));
    const visible = read(model, "visible", []);
    checkboxes = seriesKeys().map((key) => {
      const id = uid("series");
      const box = h("input", { type: "checkbox", id, value: key });
      box.checked = visible.includes(key);
      box.addEventListener("change", () => {
        const visible = checkboxes.filter((c) => c.checked).map((c) => c.value);
        commit(model, { visible }, echo);
        update();
      });
      const swatch = h("span", {
        class: "rn-swatch",
        style: `background:${styleOf(key).color}`,
      });
      seriesBox.append(
        h("span", { class: "rn-check" }, [
          box, h("label", { for: id }, [swatch, labelOf(key)]),
        ]),
      );
      return box;
    });
  }

  function xs() {
    return data(view)[VIEWS[view].xKey] || [];
  }

  function resetPosition() {
    const n = xs().length;
    pos.max = String(Math.max(0, n - 1));
    let p = read(model, "position", n - 1);
    if (!(p >= 0 && p < n)) p = n - 1;
    pos.value = String(p);
    posLabel.textContent = VIEWS[view].slider;
  }

  function update() {
    const keys = seriesKeys();
    const x = xs();
    const p = Number(pos.value);
    posOut.textContent = String(x[p]);
    pos.setAttribute("aria-valuetext", `${VIEWS[view].slider} ${x[p]}`);
    const series = keys
      .map((key) => ({
        key,
        name: labelOf(key),
        values: data(view).series[key],
        color: styleOf(key).color,
        dash: styleOf(key).dash,
        marker: styleOf(key).marker,
      }))
      .filter((_, j) => checkboxes[j] && checkboxes[j].checked);
    const all = series.flatMap((ser) => ser.values);
    logLineChart(svg, {
      xs: x,
      series,
      selected: p,
      decades: logRange(all),
      width: chartWidth(),
      title: `${VIEWS[view].option}, escala logarítmica`,
      xLabel: VIEWS[view].xLabel,
      yLabel: VIEWS[view].yLabel,
    });
    clear(summary);
    if (series.length === 0) {
      summary.append(h("p", { text: "Marca al menos una serie para verla." }));
      return;
    }
    summary.append(
      h("p", {}, [h("strong", { text: `${VIEWS[view].at(x[p])}:` })]),
      h("ul", { class: "rn-plain" },
        series.map((ser) =>
          h("li", { text: `${ser.name}: ${valueText(ser.values[p])}` }))),
    );
  }

  viewSelect.addEventListener("change", () => {
    view = viewSelect.value;
    commit(model, { view, position: xs().length - 1 }, echo);
    rebuildSeries();
    resetPosition();
    update();
  });
  pos.addEventListener("input", () => {
    commit(model, { position: Number(pos.value) }, echo);
    update();
  });
  // Cambios que llegan del modelo (de Python, o el eco de los nuestros): se
  // sincronizan los controles sin recrearlos, para no perder el foco.
  const handlers = {
    "change:view": () => {
      const v = read(model, "view", view);
      if (v === view || !available().includes(v)) return;
      view = v;
      viewSelect.value = v;
      rebuildSeries();
      resetPosition();
      update();
    },
    "change:position": () => {
      resetPosition();
      update();
    },
    "change:visible": () => {
      const visible = read(model, "visible", []);
      checkboxes.forEach((c) => { c.checked = visible.includes(c.value); });
      update();
    },
    "change:styles": () => {
      rebuildSeries();
      update();
    },
    "change:labels": () => {
      rebuildSeries();
      update();
    },
  };
  const listeners = Object.entries(handlers).map(([e, cb]) => [
    e, () => { if (!echo.saving) cb(); },
  ]);
  listeners.forEach(([e, cb]) => model.on(e, cb));
  if (narrow && narrow.addEventListener) narrow.addEventListener("change", update);
  rebuildSeries();
  resetPosition();
  update();
  return () => {
    listeners.forEach(([e, cb]) => model.off(e, cb));
    if (narrow && narrow.removeEventListener) {
      narrow.removeEventListener("change", update);
    }
  };
}

export default { render };
