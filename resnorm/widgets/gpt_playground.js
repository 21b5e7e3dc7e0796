// «Prueba los cinco modelos» (Capítulo 10: un GPT diminuto, con y sin cada pieza).
// El cálculo vive en gpt.js (probado con Node contra PyTorch); aquí, el dibujo y el
// cableado. El primer dibujo muestra los ejemplos que Python calculó al construir el
// libro; los pesos (int8 por fila) se descargan solo cuando el lector pide otro texto.
import { formatNumber, logRange, parseNumber, quoteInput } from "./compute.js";
import { clear, h, s, uid } from "./dom.js";
import {
  GPT_CONFIGS, base64Bytes, charLosses, decodeWeights, encodeText, makeModel,
  mulberry32, nextId,
} from "./gpt.js";
import { nameInvisible } from "./texto.js";
import { field, frame, legend, live, logLineChart, read } from "./ui.js";

const FILE = "rn-archivo:";
const DATA = "data:application/octet-stream;base64,";
// La entrada (0: embedding de token más el de posición), cada bloque y ln_f.
const STAGES = (n) =>
  [...Array.from({ length: n + 1 }, (_, i) => String(i)), "ln_f"];
// Cada cuánto (ms) se cede el turno al navegador: la página sigue respondiendo.
const SLICE_MS = 40;

function fmt(v, digits = 3) {
  if (typeof v !== "number" || !Number.isFinite(v)) return "sin dato";
  if (v !== 0 && (Math.abs(v) < 0.01 || Math.abs(v) >= 1000)) return formatNumber(v, 1);
  return formatNumber(v, Math.abs(v) >= 100 ? 1 : Math.abs(v) >= 10 ? 2 : digits);
}

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

// Los bytes de los pesos de un modelo: un data: URL (con núcleo) o un archivo del
// sitio («rn-archivo:ruta», que el navegador pide ahora, no al abrir la página).
async function fetchBytes(value) {
  if (typeof value !== "string" || !value) throw new Error("no hay pesos");
  if (value.startsWith(DATA)) return base64Bytes(value.slice(DATA.length));
  const url = value.startsWith(FILE) ? value.slice(FILE.length) : value;
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

function render({ model, el }) {
  const root = frame(el, "Prueba los cinco modelos", "rn-gpt");
  const settings = read(model, "settings", {});
  const defaults = settings.defaults || {};
  const limits = settings.limits || {};
  const models = read(model, "models", {});
  // En el orden del capítulo (el estado guardado llega con las claves ordenadas).
  const configs = GPT_CONFIGS.filter((c) => models[c]);
  const chars = read(model, "chars", []);
  const anyMeta = configs.length
    ? models[configs[0]].meta : { block_size: 32, n_layers: 6 };
  const maxLength = anyMeta.block_size;
  const loaded = {};

  const promptId = uid("prompt");
  const prompt = h("input", {
    id: promptId, type: "text", value: defaults.prompt || "", autocomplete: "off",
    spellcheck: "false", class: "rn-gpt-prompt", "aria-describedby": `${promptId}-e`,
  });
  const promptError = h("p", { id: `${promptId}-e`, class: "rn-error", role: "alert" });
  const choiceId = uid("choice");
  const choice = h("select", { id: choiceId });
  choice.append(h("option", { value: "all", text: "Los cinco, uno al lado del otro" }));
  for (const c of configs) {
    choice.append(h("option", { value: c, text: models[c].label }));
  }
  const initial = read(model, "choice", "all");
  choice.value = configs.includes(initial) ? initial : "all";

  const modeName = uid("mode");
  const modes = [
    ["sample", "Sorteado (semilla y temperatura)"],
    ["greedy", "El más probable (voraz)"],
  ];
  const radios = modes.map(([value, text]) => {
    const id = uid("mode");
    const input = h("input", { type: "radio", name: modeName, id, value });
    input.checked = value === (defaults.mode || "sample");
    const label = h("label", { for: id, text });
    return [input, h("span", { class: "rn-radio" }, [input, label])];
  });
  const modeBox = h("fieldset", { class: "rn-group rn-inline" }, [
    h("legend", { text: "Cómo se elige cada carácter" }), ...radios.map((r) => r[1]),
  ]);
  const numbers = {};
  const numberField = (key, label, value) => {
    const id = uid(key);
    const input = h("input", {
      id, type: "text", inputmode: key === "temperature" ? "decimal" : "numeric",
      value: String(value), class: "rn-gpt-number", autocomplete: "off",
    });
    numbers[key] = input;
    return field(id, label, input);
  };
  const numberRow = h("div", { class: "rn-fields" }, [
    numberField("seed", "Semilla", defaults.seed ?? 1),
    numberField("temperature", "Temperatura", defaults.temperature ?? 0.8),
    numberField("n_chars", "Caracteres nuevos", defaults.n_chars ?? 120),
  ]);
  const numberError = h("p", { class: "rn-error", role: "alert" });
  const button = h("button", { type: "submit", class: "rn-primary", text: "Generar" });
  const form = h("form", { class: "rn-gpt-form", novalidate: true }, [
    field(promptId, `Comienzo de la frase (hasta ${maxLength} caracteres)`, prompt),
    promptError,
    field(choiceId, "Modelo", choice),
    modeBox,
    numberRow,
    numberError,
    h("div", { class: "rn-buttons" }, [button]),
  ]);
  const status = live("p", "rn-gpt-status");
  const cards = h("div", { class: "rn-gpt-cards" });
  const normSvg = s("svg", { class: "rn-chart rn-chart-wide" });
  const spreadSvg = s("svg", { class: "rn-chart rn-chart-wide" });
  const legendBox = h("div");
  const summary = h("ul", { class: "rn-plain rn-gpt-summary" });
  root.append(
    h("p", {
      class: "rn-gpt-intro",
      text: "Los modelos que entrenó este capítulo, en tu navegador. Escribe el " +
        "comienzo de una frase, elige un modelo (o los cinco) y pulsa Generar.",
    }),
    form, status, cards,
    h("p", {
      class: "rn-gpt-heading", text: "El flujo residual capa a capa, con tu texto",
    }),
    legendBox,
    h("p", {
      class: "rn-table-title", text: "Norma del flujo residual tras cada capa",
    }),
    normSvg,
    h("p", {
      class: "rn-table-title",
      text: "Lo que distingue a cada posición de las demás (si cae, todas las " +
        "posiciones llevan el mismo vector)",
    }),
    spreadSvg, summary,
  );

  const narrow = typeof window !== "undefined" && window.matchMedia
    ? window.matchMedia("(max-width: 575.98px)") : null;
  // En un teléfono, menos unidades de viewBox: mostrado a ~320 px, el texto de los
  // ejes sigue midiendo 11 px o más.
  const chartWidth = () => (narrow && narrow.matches ? 310 : 520);

  // results[config] = {prompt, text, mode, losses, norm, spread, done}
  let results = {};
  let shown = [];
  let run = 0; // cada petición nueva invalida la anterior
  let generating = false; // hay una generación a medias (la de «run»)

  function selected() {
    return choice.value === "all" ? configs : [choice.value];
  }
  function mode() {
    const r = radios.find(([input]) => input.checked);
    return r ? r[0].value : "sample";
  }
  function styleOf(c) {
    return models[c].style || {};
  }

  function lossStrip(text, losses) {
    const letters = Array.from(text);
    const finite = losses.filter(Number.isFinite);
    const top = Math.max(1e-9, ...finite, Math.log(chars.length));
    return h("div", { class: "rn-gpt-strip", role: "list",
      "aria-label": "Pérdida de cada carácter" },
    letters.slice(1).map((c, i) => {
      const v = losses[i];
      const shownChar = c === " " ? "␣" : c;
      return h("span", {
        class: "rn-gpt-char", role: "listitem",
        style: `--rn-loss:${Math.min(1, v / top).toFixed(3)}`,
        title: `«${c}»: ${fmt(v, 2)}`,
      }, [h("span", { class: "rn-gpt-glyph", text: shownChar }),
        h("span", { class: "rn-gpt-loss", text: fmt(v, 1) })]);
    }));
  }

  function card(c) {
    const r = results[c];
    const st = styleOf(c);
    const how = r.mode === "greedy" ? "voraz"
      : `sorteo, semilla ${r.seed}, temperatura ${fmt(r.temperature, 2)}`;
    const mean = r.losses.length
      ? r.losses.reduce((a, b) => a + b, 0) / r.losses.length : null;
    return h("article", { class: "rn-gpt-card", style: `--rn-series:${st.color}` }, [
      h("p", { class: "rn-gpt-name" }, [
        h("span", { class: "rn-swatch", style: `background:${st.color}` }),
        h("strong", { text: models[c].label }), h("span", {
          class: "rn-gpt-how", text: ` (${how})` }),
      ]),
      h("p", { class: "rn-gpt-text" }, [
        h("span", { class: "rn-gpt-given", text: r.prompt }),
        (r.node = h("span", { class: "rn-gpt-new", text: r.text })),
        r.done ? null : h("span", { class: "rn-gpt-cursor", "aria-hidden": "true",
          text: "▍" }),
      ]),
      h("p", { class: "rn-gpt-mean", text: mean === null
        ? "Pérdida: hace falta un texto de 2 caracteres o más."
        : `Pérdida media en tu texto: ${fmt(mean, 2)} por carácter ` +
          `(ln V = ${fmt(Math.log(chars.length), 2)} sería adivinar al azar).` }),
      r.losses.length ? lossStrip(r.prompt, r.losses) : null,
    ]);
  }

  function describe(c) {
    const r = results[c];
    const n = r.norm.length - 2;
    const lnF = r.norm[n + 1] === null ? "" : `, ${fmt(r.norm[n + 1])} tras ln_f`;
    const norm = `norma ${fmt(r.norm[0])} a la entrada, ${fmt(r.norm[n])} ` +
      `tras el bloque ${n}${lnF}`;
    const spread = "diferencia entre posiciones de " +
      `${fmt(r.spread[0])} a ${fmt(r.spread[n])}`;
    return `${models[c].label}: ${norm}; ${spread}.`;
  }

  function drawCharts() {
    const n = anyMeta.n_layers;
    const series = (key) => shown.filter((c) => results[c]).map((c) => ({
      name: models[c].label, values: results[c][key], color: styleOf(c).color,
      dash: styleOf(c).dash, marker: styleOf(c).marker,
    }));
    for (const [svg, key, title, yLabel] of [
      [normSvg, "norm", "Norma del flujo residual tras cada capa, escala logarítmica",
        "norma media ‖x‖ (log)"],
      [spreadSvg, "spread", "Lo que distingue a cada posición de las demás, escala " +
        "logarítmica", "‖x − media‖ (log)"],
    ]) {
      const ser = series(key);
      logLineChart(svg, {
        xs: STAGES(n), series: ser, selected: null,
        decades: logRange(ser.flatMap((x) => x.values)), width: chartWidth(),
        height: 230, title, xLabel: "tras el bloque (0: la entrada)", yLabel,
      });
    }
    clear(legendBox);
    legendBox.append(legend(series("norm")));
    clear(summary);
    for (const c of shown) {
      if (results[c]) summary.append(h("li", { text: describe(c) }));
    }
  }

  function draw() {
    clear(cards);
    cards.classList.toggle("rn-gpt-one", shown.length === 1);
    for (const c of shown) if (results[c]) cards.append(card(c));
    drawCharts();
  }

  function showExamples() {
    const ex = read(model, "examples", {});
    results = {};
    for (const c of configs) {
      const e = ex[c];
      if (!e) continue;
      results[c] = {
        prompt: e.prompt, text: defaults.mode === "greedy" ? e.greedy : e.sample,
        mode: defaults.mode || "sample", seed: defaults.seed,
        temperature: defaults.temperature,
        losses: e.losses, norm: e.norm, spread: e.spread, done: true,
      };
    }
    shown = selected();
    draw();
    const first = ex[configs[0]];
    status.textContent = first
      ? `Ejemplo calculado al construir el libro con «${first.prompt}». Pulsa ` +
        "Generar para probar tu texto: los pesos se descargan entonces " +
        `(${weightSize(configs)}).`
      : "";
  }

  function weightSize(list) {
    const bytes = list.reduce((a, c) => a + (models[c].bytes || 0), 0);
    return `${Math.round(bytes / 1024)} KB`;
  }

  // Un campo de números enteros (semilla, caracteres) no sugiere «0.8»: su ejemplo
  // es su valor por defecto.
  function integerError(text, lo, hi, example) {
    const range = `de ${lo} a ${hi}, por ejemplo ${example}.`;
    if (!text.trim()) return `campo vacío: escribe un número entero ${range}`;
    return `${quoteInput(text.trim())} no es un número entero: escribe uno ${range}`;
  }

  function readNumber(key, label, integer) {
    const [lo, hi] = limits[key] || [-Infinity, Infinity];
    const text = String(numbers[key].value ?? "");
    const parsed = parseNumber(text);
    let error = null;
    if (!parsed.ok && integer) {
      error = `${label}: ${integerError(text, lo, hi, defaults[key] ?? lo)}`;
    } else if (!parsed.ok) error = `${label}: ${parsed.error}`;
    else if (integer && !Number.isInteger(parsed.value)) {
      error = `${label}: escribe un número entero, de ${lo} a ${hi}.`;
    } else if (parsed.value < lo || parsed.value > hi) {
      error = `${label}: debe estar entre ${lo} y ${hi}.`;
    }
    numbers[key].setAttribute("aria-invalid", error ? "true" : "false");
    return { value: error ? null : parsed.value, error };
  }

  async function loadModel(c) {
    if (!loaded[c]) {
      loaded[c] = fetchBytes(read(model, "weights", {})[c]).then((bytes) => {
        const meta = models[c].meta;
        return makeModel(meta, decodeWeights(bytes, meta.tensors));
      });
      loaded[c].catch(() => { delete loaded[c]; });
    }
    return loaded[c];
  }

  const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

  // Para la generación a medias: lo ya escrito se queda, sin cursor.
  function stop() {
    run += 1;
    if (!generating) return false;
    generating = false;
    for (const c of shown) if (results[c]) results[c].done = true;
    draw();
    return true;
  }

  async function generate() {
    const text = String(prompt.value || "").normalize("NFC");
    const encoded = encodeText(text, chars, maxLength);
    promptError.textContent = nameInvisible(encoded.error || "");
    prompt.setAttribute("aria-invalid", encoded.error ? "true" : "false");
    const m = mode();
    const checks = [readNumber("n_chars", "Caracteres nuevos", true)];
    if (m === "sample") {
      checks.push(readNumber("seed", "Semilla", true));
      checks.push(readNumber("temperature", "Temperatura", false));
    }
    const bad = checks.filter((x) => x.error);
    numberError.textContent = nameInvisible(bad.map((x) => x.error).join(" "));
    if (encoded.error || bad.length) {
      // Lo que se estaba generando era de la petición anterior: se para.
      status.textContent = (stop() ? "Generación detenida. " : "") +
        "Corrige lo que está marcado y vuelve a pulsar Generar.";
      (encoded.error ? prompt : numbers[["n_chars", "seed", "temperature"]
        .find((k) => numbers[k].getAttribute("aria-invalid") === "true")]).focus();
      return;
    }
    const nChars = checks[0].value;
    const seed = m === "sample" ? checks[1].value : null;
    const temperature = m === "sample" ? checks[2].value : 0;
    stop();
    const mine = run;
    const list = selected();
    status.textContent = `Descargando los pesos (${weightSize(list)})…`;
    let nets;
    try {
      nets = await Promise.all(list.map(loadModel));
    } catch (err) {
      if (mine === run) {
        status.textContent = "No se pudieron descargar los pesos de los modelos " +
          `(${String(err && err.message ? err.message : err).slice(0, 80)}). ` +
          "Comprueba la conexión y vuelve a pulsar Generar.";
      }
      return;
    }
    if (mine !== run) return;
    results = {};
    shown = list;
    list.forEach((c, i) => {
      const { losses, stats } = charLosses(nets[i], encoded.ids);
      results[c] = {
        prompt: text, text: "", mode: m, seed, temperature, losses,
        norm: stats.norm, spread: stats.spread, done: false,
      };
    });
    draw();
    generating = true;
    const started = performance.now();
    let slice = started;
    const ids = list.map(() => encoded.ids.slice());
    const rngs = list.map(() => mulberry32(seed ?? 0));
    for (let k = 0; k < nChars; k += 1) {
      list.forEach((c, i) => {
        const next = nextId(nets[i], ids[i], temperature, rngs[i]);
        ids[i].push(next);
        results[c].text += chars[next];
      });
      if (performance.now() - slice > SLICE_MS && k + 1 < nChars) {
        list.forEach((c) => { results[c].node.textContent = results[c].text; });
        status.textContent =
          `Generando en tu navegador… ${k + 1} de ${nChars} caracteres.`;
        await pause();
        if (mine !== run) return;
        slice = performance.now();
      }
    }
    generating = false;
    list.forEach((c) => { results[c].done = true; });
    draw();
    const secs = (performance.now() - started) / 1000;
    const count = plural(nChars, "carácter nuevo", "caracteres nuevos");
    status.textContent = `Listo: ${count} ` +
      `por modelo, calculados en tu navegador en ${fmt(secs, 1)} s.`;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    generate().catch((err) => {
      generating = false;
      status.textContent = "Algo falló al generar: " +
        String(err && err.message ? err.message : err).slice(0, 120);
    });
  });
  const syncMode = () => {
    const sample = mode() === "sample";
    numbers.seed.disabled = !sample;
    numbers.temperature.disabled = !sample;
  };
  radios.forEach(([input]) => input.addEventListener("change", syncMode));
  choice.addEventListener("change", () => {
    shown = selected().filter((c) => results[c]);
    if (shown.length === 0) shown = selected();
    draw();
  });
  if (narrow && narrow.addEventListener) narrow.addEventListener("change", drawCharts);
  syncMode();
  showExamples();
  return () => {
    run += 1;
    if (narrow && narrow.removeEventListener) {
      narrow.removeEventListener("change", drawCharts);
    }
  };
}

export default { render };
