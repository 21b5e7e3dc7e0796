// «Calculadora de media y desviación estándar» (Capítulo 3).
// Cableado: cuatro campos de texto → meanStdRecipe → la receta en vivo.
import {
  equals, formatNumber, meanStdRecipe, parseVector, superscript,
} from "./compute.js";
import { clear, h, uid } from "./dom.js";
import { nameInvisible } from "./texto.js";
import { commit, frame, read } from "./ui.js";

const SUB = ["₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈"];

// Un número negativo dentro de una resta va entre paréntesis: 0.8 − (−1).
function paren(text) {
  return text.startsWith("−") || text.startsWith("≈") ? `(${text})` : text;
}

function recipeItems(r) {
  const xs = r.inputs.map((q) => q.text);
  const items = [];
  items.push(
    h("li", {}, [
      h("strong", { text: "Suma: " }),
      `${xs.map((t, i) => (i === 0 ? t : paren(t))).join(" + ")} ${equals(r.sum.text)}`,
    ]),
    h("li", {}, [
      h("strong", { text: "Media: " }),
      `μ = ${r.sum.text} / ${r.n} ${equals(r.mean.text)}`,
    ]),
  );
  const rows = r.inputs.map((q, i) =>
    h("li", {
      text:
        `(${q.text} − ${paren(r.mean.text)})² = (${r.deviations[i].text})² ` +
        equals(r.squaredDeviations[i].text),
    }),
  );
  items.push(
    h("li", {}, [
      h("strong", { text: "Diferencias con la media, al cuadrado: " }),
      h("ul", { class: "rn-plain" }, rows),
    ]),
    h("li", {}, [
      h("strong", { text: "Varianza (poblacional, se divide entre n): " }),
      `σ² = (${r.squaredDeviations.map((q) => paren(q.text)).join(" + ")}) / ${r.n} ` +
        equals(r.variance.text),
    ]),
    h("li", {}, [
      h("strong", { text: "Desviación estándar: " }),
      `σ = √σ² ${equals(r.std.text)}`,
    ]),
  );
  return items;
}

function notes(r, eps) {
  const out = [];
  if (r.constant) {
    out.push(
      "Los valores son todos iguales: no hay dispersión y σ = 0. LayerNorm " +
        "divide entre la dispersión, así que usa √(σ² + ε) en vez de σ: con " +
        `ε = ${formatNumber(eps)} el denominador es √ε = ` +
        `${formatNumber(Math.sqrt(eps))} y no hay división entre cero.`,
    );
  }
  if (r.k !== 0) {
    const big = r.k > 0;
    out.push(
      (big
        ? "Los valores son enormes: sus cuadrados no caben en coma flotante " +
          "de 64 bits (máximo ≈ 1.8 × 10³⁰⁸). "
        : "Los valores son diminutos: sus cuadrados se redondearían a 0 en " +
          "coma flotante de 64 bits. ") +
        `Se dividieron primero entre 2${superscript(r.k)} (exacto en coma ` +
        "flotante), se calculó y se deshizo la escala; lo que no cabe se " +
        "muestra con logaritmos (≈). σ es correcta.",
    );
  }
  return out;
}

function render({ model, el }) {
  const root = frame(el, "Calculadora de media y desviación estándar", "rn-meanstd");
  const echo = { saving: false }; // ver commit() en ui.js
  const settings = read(model, "settings", {});
  const initial = read(model, "values", settings.defaults);
  const inputs = [];
  const errors = [];
  const fields = h("fieldset", { class: "rn-fields" }, [
    h("legend", { text: "Escribe cuatro números (punto o coma decimal)" }),
  ]);
  initial.forEach((value, i) => {
    const id = uid("x");
    const errId = uid("err");
    const input = h("input", {
      id,
      type: "text",
      inputmode: "decimal",
      autocomplete: "off",
      spellcheck: "false",
      class: "rn-input",
      value,
      "aria-describedby": errId,
    });
    const err = h("span", { id: errId, class: "rn-error" });
    inputs.push(input);
    errors.push(err);
    fields.append(
      h("div", { class: "rn-field" }, [
        h("label", { for: id, text: `x${SUB[i] ?? i + 1}` }),
        input,
        err,
      ]),
    );
  });
  const summary = h("p", {
    class: "rn-summary", "aria-live": "polite", "aria-atomic": "true",
  });
  const recipe = h("ol", { class: "rn-recipe", "aria-label": "Receta paso a paso" });
  const noteBox = h("div", { class: "rn-notes" });
  root.append(fields, summary, recipe, noteBox);

  function update() {
    const texts = inputs.map((inp) => inp.value);
    const parsed = parseVector(texts);
    parsed.errors.forEach((msg, i) => {
      // Lo escrito que cita el mensaje (quoteInput), con sus invisibles nombrados: un
      // U+202E pegado no da la vuelta al mensaje, un tabulador no deja «» (issue 52).
      errors[i].textContent = nameInvisible(msg ?? "");
      if (msg) inputs[i].setAttribute("aria-invalid", "true");
      else inputs[i].removeAttribute("aria-invalid");
    });
    clear(recipe);
    clear(noteBox);
    if (!parsed.ok) {
      const bad = parsed.errors
        .map((msg, i) => (msg ? `x${SUB[i] ?? i + 1}` : null))
        .filter(Boolean);
      summary.textContent =
        `Revisa ${bad.length === 1 ? "el campo" : "los campos"} ${bad.join(", ")}: ` +
        "la receta aparece cuando los cuatro son números.";
      summary.classList.add("rn-warn");
      return texts;
    }
    summary.classList.remove("rn-warn");
    const r = meanStdRecipe(parsed.values);
    summary.textContent =
      `Media μ ${equals(r.mean.text)}; desviación estándar σ ${equals(r.std.text)}.`;
    recipe.append(...recipeItems(r));
    for (const text of notes(r, settings.eps)) {
      noteBox.append(h("p", { class: "rn-note", text }));
    }
    return texts;
  }

  for (const input of inputs) {
    input.addEventListener("input", () => {
      const texts = update();
      commit(model, { values: texts }, echo);
    });
  }
  const onChange = () => {
    if (echo.saving) return;
    const values = read(model, "values", settings.defaults);
    values.forEach((v, i) => {
      if (inputs[i] && inputs[i].value !== v) inputs[i].value = v;
    });
    update();
  };
  model.on("change:values", onChange);
  update();
  return () => model.off("change:values", onChange);
}

export default { render };
