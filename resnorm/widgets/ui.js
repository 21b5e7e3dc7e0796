// Capa de dibujo compartida por los widgets: elementos HTML, gráficos SVG y
// guardado del estado. Sin cálculo del curso (eso vive en compute.js).
// Los colores no viven aquí: cada widget los recibe de Python (settings.palette).
import { MINUS, formatNumber, linearTicks, logTicks, superscript } from "./compute.js";
import { clear, h, s } from "./dom.js";

/**
 * Guarda un cambio en el modelo. Sin kernel (la web estática) no hay canal
 * al que sincronizar y `save_changes` puede lanzar: el estado local basta.
 * `view.saving` vale true mientras dura el `set`: así la vista ignora el eco
 * de su propio cambio (las otras vistas del mismo modelo sí se actualizan).
 */
export function commit(model, changes, view = null) {
  if (view) view.saving = true;
  try {
    for (const [key, value] of Object.entries(changes)) model.set(key, value);
  } finally {
    if (view) view.saving = false;
  }
  try {
    model.save_changes();
  } catch (err) {
    // Sin kernel: el valor ya está en el modelo local.
  }
}

/** Lee un trait con un valor por defecto si falta. */
export function read(model, key, fallback) {
  const value = model.get(key);
  return value === undefined || value === null ? fallback : value;
}

/** Región de resultados que el lector de pantalla anuncia al cambiar. */
export function live(tag, className) {
  return h(tag, { class: className, "aria-live": "polite", "aria-atomic": "true" });
}

/** Etiqueta y control en una columna. */
export function field(id, text, control) {
  return h("div", { class: "rn-field" }, [h("label", { for: id, text }), control]);
}

/** Contenedor común de un widget: título, cuerpo y región aria-live. */
export function frame(el, title, className) {
  clear(el);
  const root = h("section", { class: `rn-widget ${className}`, "aria-label": title });
  const heading = h("p", { class: "rn-title", text: title });
  root.append(heading);
  el.append(root);
  return root;
}

/**
 * El tamaño con que se dibuja un gráfico: el ancho que ocupa en la página, para que
 * su texto mida en pantalla lo que dice widgets.css (12 px también en un teléfono,
 * donde un viewBox fijo de 520 lo reducía a 5–7 px), y el alto en la proporción de
 * `width` × `height`: el widget mide lo mismo que antes (css/reserva.css). Si el
 * gráfico aún no ocupa sitio (no está en la página), `width` × `height`.
 */
function drawnSize(svg, width, height) {
  const shown = svg.isConnected ? svg.getBoundingClientRect().width : 0;
  if (!(shown > 0)) return [width, height];
  const w = Math.round(shown);
  return [w, Math.round((height * w) / width)];
}

/** Vuelve a dibujar el gráfico si su ancho en la página cambia (girar el teléfono). */
function redrawOnResize(svg, draw, options, drawnWidth) {
  svg.rnChart = { draw, options, width: drawnWidth };
  if (svg.rnResize || typeof ResizeObserver === "undefined") return;
  svg.rnResize = new ResizeObserver((entries) => {
    const w = Math.round(entries[0].contentRect.width);
    const last = svg.rnChart;
    if (w > 0 && Math.abs(w - last.width) >= 2) last.draw(svg, last.options);
  });
  svg.rnResize.observe(svg);
}

/**
 * Barras agrupadas con signo. `series`: [{name, values, color}]; `labels`:
 * nombre de cada dimensión; `range`: [lo, hi] del eje vertical.
 */
export function barChart(svg, options) {
  const { labels, series, range, title } = options;
  const [width, height] = drawnSize(svg, options.width ?? 360, options.height ?? 200);
  redrawOnResize(svg, barChart, options, width);
  clear(svg);
  const m = { left: 46, right: 8, top: 10, bottom: 26 };
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", title);
  svg.append(s("title", { text: title }));
  const [lo, hi] = range;
  const plotH = height - m.top - m.bottom;
  const y = (v) => m.top + ((hi - v) / (hi - lo)) * plotH;
  for (const t of linearTicks(lo, hi, 4)) {
    if (t < lo - 1e-12 || t > hi + 1e-12) continue;
    svg.append(
      s("line", {
        class: t === 0 ? "rn-axis" : "rn-grid",
        x1: m.left, x2: width - m.right, y1: y(t), y2: y(t),
      }),
      s("text", {
        class: "rn-tick", x: m.left - 5, y: y(t) + 4, "text-anchor": "end",
        text: formatTick(t),
      }),
    );
  }
  const groupW = (width - m.left - m.right) / labels.length;
  const barW = Math.min(28, (groupW * 0.8) / series.length);
  labels.forEach((label, i) => {
    const cx = m.left + groupW * (i + 0.5);
    series.forEach((ser, j) => {
      const v = ser.values ? ser.values[i] : null;
      if (typeof v !== "number" || !Number.isFinite(v)) return;
      const x = cx - (barW * series.length) / 2 + j * barW;
      const clamped = Math.max(lo, Math.min(hi, v));
      const top = Math.min(y(0), y(clamped));
      const rect = s("rect", {
        class: "rn-bar",
        x: x + 1, y: top, width: Math.max(1, barW - 2),
        height: Math.max(1, Math.abs(y(clamped) - y(0))),
        fill: ser.color,
      });
      rect.append(s("title", { text: `${ser.name}, ${label}: ${formatNumber(v)}` }));
      svg.append(rect);
    });
    svg.append(
      s("text", {
        class: "rn-tick", x: cx, y: height - 8, "text-anchor": "middle", text: label,
      }),
    );
  });
  return svg;
}

function formatTick(t) {
  if (t === 0) return "0";
  const a = Math.abs(t);
  const text =
    a >= 1e-3 && a < 1e4 ? String(Number(a.toPrecision(6))) : formatNumber(a, 1);
  return t < 0 ? MINUS + text : text;
}

/** Leyenda HTML (texto con el color del tema y una muestra de color). */
export function legend(series) {
  return h(
    "ul",
    { class: "rn-legend", "aria-hidden": "true" },
    series.map((ser) =>
      h("li", {}, [
        h("span", { class: "rn-swatch", style: `background:${ser.color}` }),
        ser.name,
      ]),
    ),
  );
}

function triangle(x, y, r, dir) {
  const p = {
    up: [[0, -r - 1], [r + 1, r], [-r - 1, r]],
    down: [[0, r + 1], [r + 1, -r], [-r - 1, -r]],
    left: [[-r - 1, 0], [r, -r - 1], [r, r + 1]],
    right: [[r + 1, 0], [-r, -r - 1], [-r, r + 1]],
  }[dir];
  return p.map(([dx, dy]) => `${x + dx},${y + dy}`).join(" ");
}

// Marcadores por nombre: los de resnorm.plots.svg_series_style.
function marker(kind, x, y, color, hollow) {
  const r = 4;
  const attrs = {
    class: "rn-marker",
    fill: hollow ? "none" : color,
    stroke: color,
    "stroke-width": 1.5,
  };
  if (kind === "square") {
    return s("rect", { ...attrs, x: x - r, y: y - r, width: 2 * r, height: 2 * r });
  }
  if (kind === "diamond") {
    const p = `${x},${y - r - 1} ${x + r + 1},${y} ${x},${y + r + 1} ${x - r - 1},${y}`;
    return s("polygon", { ...attrs, points: p });
  }
  if (kind.startsWith("triangle")) {
    const dir = kind === "triangle" ? "up" : kind.slice("triangle-".length);
    return s("polygon", { ...attrs, points: triangle(x, y, r, dir) });
  }
  if (kind === "cross") {
    const p =
      `M${x - r},${y - r}L${x + r},${y + r}` + `M${x - r},${y + r}L${x + r},${y - r}`;
    return s("path", { ...attrs, d: p, "stroke-width": 2 });
  }
  return s("circle", { ...attrs, cx: x, cy: y, r });
}

/**
 * Líneas en escala logarítmica (eje vertical), una por serie, con eje
 * horizontal por posición (las etiquetas son `xs`). `null` deja un hueco;
 * 0 (subdesbordamiento) se marca hueco en el borde inferior.
 */
export function logLineChart(svg, options) {
  const { xs, series, selected, decades, title, xLabel, yLabel } = options;
  const [width, height] = drawnSize(svg, options.width ?? 520, options.height ?? 260);
  redrawOnResize(svg, logLineChart, options, width);
  clear(svg);
  const m = { left: 58, right: 12, top: 12, bottom: 40 };
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", title);
  svg.append(s("title", { text: title }));
  const [a, c] = decades;
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const n = xs.length;
  const x = (i) => m.left + (n === 1 ? plotW / 2 : (i / (n - 1)) * plotW);
  const y = (v) => m.top + ((c - Math.log10(v)) / (c - a)) * plotH;
  const bottom = m.top + plotH;
  for (const e of logTicks(Math.pow(10, a), Math.pow(10, c))) {
    if (e < a || e > c) continue;
    const yy = m.top + ((c - e) / (c - a)) * plotH;
    svg.append(
      s("line", { class: "rn-grid", x1: m.left, x2: width - m.right, y1: yy, y2: yy }),
      s("text", {
        class: "rn-tick", x: m.left - 6, y: yy + 4, "text-anchor": "end",
        text: `10${superscript(e)}`,
      }),
    );
  }
  svg.append(
    s("line", { class: "rn-axis", x1: m.left, x2: m.left, y1: m.top, y2: bottom }),
    s("line", {
      class: "rn-axis", x1: m.left, x2: width - m.right, y1: bottom, y2: bottom,
    }),
  );
  // Una etiqueta cada 36 px como mínimo: en un teléfono no se pisan.
  const room = Math.max(2, Math.min(12, Math.floor(plotW / 36)));
  const every = Math.max(1, Math.ceil(n / room));
  xs.forEach((xv, i) => {
    if (i % every !== 0 && i !== n - 1) return;
    svg.append(
      s("text", {
        class: "rn-tick", x: x(i), y: bottom + 15, "text-anchor": "middle",
        text: String(xv),
      }),
    );
  });
  if (xLabel) {
    svg.append(
      s("text", {
        class: "rn-axis-label", x: m.left + plotW / 2, y: height - 4,
        "text-anchor": "middle", text: xLabel,
      }),
    );
  }
  if (yLabel) {
    svg.append(
      s("text", {
        class: "rn-axis-label", x: 12, y: m.top + plotH / 2, "text-anchor": "middle",
        transform: `rotate(-90 12 ${m.top + plotH / 2})`, text: yLabel,
      }),
    );
  }
  if (selected !== null && selected !== undefined && selected < n) {
    svg.append(
      s("line", {
        class: "rn-cursor", x1: x(selected), x2: x(selected), y1: m.top, y2: bottom,
      }),
    );
  }
  series.forEach((ser, j) => {
    const kind = ser.marker || "circle";
    let d = "";
    let pen = false;
    ser.values.forEach((v, i) => {
      if (typeof v === "number" && v > 0 && Number.isFinite(v)) {
        d += `${pen ? "L" : "M"}${x(i).toFixed(2)},${y(v).toFixed(2)}`;
        pen = true;
      } else {
        pen = false;
      }
    });
    svg.append(
      s("path", {
        class: "rn-line", d, stroke: ser.color, fill: "none",
        "stroke-dasharray": ser.dash || null,
      }),
    );
    // Con muchos puntos, un marcador cada pocos (y en la posición elegida).
    const every = n > 30 ? Math.ceil(n / 12) : 1;
    ser.values.forEach((v, i) => {
      if (typeof v !== "number") return;
      const zero = v === 0;
      if (i % every !== 0 && i !== selected && i !== n - 1 && !zero) return;
      const mk = marker(kind, x(i), zero ? bottom : y(v), ser.color, zero);
      const label = zero ? "0 (por debajo de la escala)" : formatNumber(v);
      mk.append(s("title", { text: `${ser.name}, ${xs[i]}: ${label}` }));
      svg.append(mk);
    });
  });
  return svg;
}
