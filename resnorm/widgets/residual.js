// «Suma residual» (Capítulo 2).
// Cableado: deslizador α → residualSum(x, F(x), α) → barras y la suma.
import { barRange, formatNumber, residualSum } from "./compute.js";
// Vectores por defecto, escala y paleta llegan de Python (resnorm/widgets/residual.py).
import { clear, h, s, uid } from "./dom.js";
import { barChart, commit, frame, legend, live, read } from "./ui.js";

const SUB = ["₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈"];

// Un sumando negativo va entre paréntesis: 0.50 + (−0.20).
function paren(text) {
  return text.startsWith("−") ? `(${text})` : text;
}

function render({ model, el }) {
  const root = frame(el, "Suma residual", "rn-residual");
  const echo = { saving: false }; // ver commit() en ui.js
  const settings = read(model, "settings", {});
  const palette = settings.palette;
  const x = model.get("x");
  const fx = model.get("fx");
  const maxScale = model.get("scale_max");
  let alpha = model.get("scale");
  const labels = x.map((_, i) => `x${SUB[i] ?? i + 1}`);

  const id = uid("alpha");
  const out = h("output", { for: id, class: "rn-value" });
  const input = h("input", {
    id, type: "range", min: 0, max: maxScale, step: settings.scale_step, value: alpha,
  });
  const setAlpha = (value, save) => {
    alpha = Math.min(maxScale, Math.max(0, Number(value)));
    input.value = String(alpha);
    out.textContent = formatNumber(alpha, 2);
    input.setAttribute("aria-valuetext", formatNumber(alpha, 2));
    update();
    if (save) commit(model, { scale: alpha }, echo);
  };
  input.addEventListener("input", () => setAlpha(input.value, true));
  const zeroBtn = h("button", { type: "button", text: "α = 0: sin subcapa" });
  zeroBtn.addEventListener("click", () => setAlpha(0, true));
  const oneBtn = h("button", { type: "button", text: "α = 1: la suma del curso" });
  oneBtn.addEventListener("click", () => setAlpha(1, true));

  const controls = h("div", { class: "rn-slider rn-wide" }, [
    h("label", { for: id, text: "Escala α de la salida de la subcapa F(x)" }),
    input,
    out,
  ]);
  const series = [
    { name: "Entrada x", color: palette.blue },
    { name: "α·F(x) (lo que aporta la subcapa)", color: palette.orange },
    { name: "Salida x + α·F(x)", color: palette.bluish_green },
  ];
  const svg = s("svg", { class: "rn-chart" });
  const summary = live("div", "rn-summary");
  root.append(
    h("p", { class: "rn-formula", text: "salida = x + α·F(x)" }),
    controls,
    h("div", { class: "rn-buttons" }, [zeroBtn, oneBtn]),
    svg,
    legend(series),
    summary,
  );
  // Rango fijo para todo el recorrido de α: las barras no «saltan».
  const extremes = x.concat(
    fx.map((v) => v * maxScale),
    x.map((v, i) => v + fx[i] * maxScale),
  );
  const range = barRange(extremes, 1);

  function update() {
    const r = residualSum(x, fx, alpha);
    barChart(svg, {
      labels,
      series: [
        { ...series[0], values: x },
        { ...series[1], values: r.update },
        { ...series[2], values: r.output },
      ],
      range,
      title: "Barras de x, de α·F(x) y de la suma",
    });
    clear(summary);
    const terms = x.map(
      (v, i) => `${formatNumber(v, 2)} + ${paren(formatNumber(r.update[i], 2))}`,
    );
    summary.append(
      h("p", {}, [
        h("strong", { text: "Suma: " }),
        `[${terms.join(", ")}] = ` +
          `[${r.output.map((v) => formatNumber(v, 2)).join(", ")}]`,
      ]),
    );
    if (r.identity) {
      summary.append(
        h("p", {
          text:
            "Con α = 0 la subcapa no aporta nada y la salida es exactamente x: " +
            "la identidad sale gratis. Una capa que no sirve solo tiene que " +
            "aprender F(x) = 0.",
        }),
      );
    } else if (r.cosine !== null) {
      summary.append(
        h("p", {
          text:
            `Parecido entre la salida y x (coseno): ${formatNumber(r.cosine, 3)}. ` +
            (r.cosine > 0.95
              ? "La salida conserva el perfil de x: la subcapa solo lo corrige."
              : "Con un F(x) tan grande, la corrección empieza a tapar a x."),
        }),
      );
    }
  }

  const onChange = () => {
    if (!echo.saving) setAlpha(model.get("scale"), false);
  };
  model.on("change:scale", onChange);
  setAlpha(alpha, false);
  return () => model.off("change:scale", onChange);
}

export default { render };
