// Resúmenes de la búsqueda legibles (solo en search.html).
//
// El buscador de Sphinx toma el texto de cada página tal cual: con el de KaTeX
// («μ=d1​∑i​xi​»), los botones de la cabecera («Binder», «.md») y, si la palabra
// buscada no aparece literalmente (se escribió sin tilde), el principio de la página.
// Aquí el texto sale sin botones ni código, las fórmulas se leen («d − 1», «σ²») y la
// palabra se busca sin distinguir tildes, también por su raíz.

const DROP = ".headerlink, script, style, button, h1, .bd-header-article, " +
  ".header-article-items, .dropdown, .onlyprint, #jb-print-docs-body, nav, footer, " +
  ".prev-next-area, .prev-next-footer, .cell_input, .copybtn, summary, noscript, " +
  ".thebe-launch-button, .widget-subarea, .toctree-wrapper";

const element = (tag, props) => Object.assign(document.createElement(tag), props);
// Cada carácter, seguido de su versión pequeña.
const table = (pairs) => new Map(pairs.match(/../gu).map((pair) => [...pair]));
const SUP = table("0⁰1¹2²3³4⁴5⁵6⁶7⁷8⁸9⁹+⁺−⁻=⁼(⁽)⁾dᵈiⁱnⁿTᵀ⊤ᵀ′′");
const SUB = table("0₀1₁2₂3₃4₄5₅6₆7₇8₈9₉+₊−₋=₌(₍)₎aₐeₑiᵢjⱼkₖlₗmₘnₙoₒpₚrᵣsₛtₜuᵤxₓ");
// «σ²», «xᵢ»; si falta alguna letra pequeña, «x^(ℓ)», «Wqk».
function small(text, map, mark) {
  const chars = [...text.replace(/\s+/g, "")];
  if (!chars.every((c) => map.has(c))) return mark + text;
  return chars.map((c) => map.get(c)).join("");
}

// Una fórmula, en una línea, desde el MathML que KaTeX deja junto a su dibujo
// (book/_ext/math_katex.py): «μ = (1)/(d) ∑ᵢ₌₁ᵈ xᵢ».
function readMath(node) {
  const parts = [...node.children].map(readMath);
  const [base, script, over] = parts;
  const gap = node.firstElementChild?.localName === "mo" ? " " : ""; // ∑ᵢ xᵢ
  const text = node.textContent.trim();
  switch (node.localName) {
    case "annotation": return "";
    case "mfrac": return `(${base})/(${script})`;
    case "msqrt": return `√(${parts.join("")})`;
    case "mover": return base; // el acento (ˆ, ‾) no se lee
    case "mspace": case "mtd": return ` ${parts.join("")} `;
    case "msup": return base + small(script, SUP, "^");
    case "msub": case "munder": return base + small(script, SUB, "") + gap;
    case "msubsup": case "munderover":
      return base + small(script, SUB, "") + small(over, SUP, "^") + gap;
    case "mo":
      if (/^[=+−±×·⋅⊙≈≤≥<>→←∈∼∝⊆]$/.test(text)) return ` ${text} `;
      return text === "," ? ", " : text.replace(/[\u2061-\u2063]/g, "");
  }
  return parts.length ? parts.join("") : node.textContent;
}

function htmlToText(htmlString, anchor) {
  const doc = new DOMParser().parseFromString(htmlString, "text/html");
  let root = anchor ? doc.querySelector(`[role="main"] ${anchor}`) : null;
  // Un término del glosario: el término y su definición.
  if (root?.matches("dt") && root.nextElementSibling) {
    const pair = doc.createElement("div");
    pair.append(root.cloneNode(true), " — ", root.nextElementSibling.cloneNode(true));
    root = pair;
  }
  root ||= doc.querySelector('[role="main"]');
  if (!root) return "";
  for (const math of root.querySelectorAll(".math")) {
    const line = readMath(math.querySelector("math") || math).replace(/\s+/g, " ");
    // El menos de «−x», «(−1», «= −x», «, −4», pegado a lo que sigue.
    math.textContent = ` ${line.replace(/(^|[([]|[,=] ) ?− /g, "$1−")} `;
  }
  root.querySelectorAll(DROP).forEach((el) => el.remove());
  // Los bloques terminan en espacio: «Contenido4.1.» no debe pegarse.
  root.querySelectorAll("p, li, h1, h2, h3, h4, td, th, dt, dd, div")
    .forEach((block) => block.append(" "));
  return root.textContent.replace(/\s+/g, " ").replace(/ ([,;:.)])/g, "$1").trim();
}

// Minúsculas sin tildes, letra a letra: las posiciones son las del texto.
const fold = (text) =>
  text.replace(/[\u00c0-\u024f]/g, (ch) => ch.normalize("NFD")[0]).toLowerCase();

// La primera palabra que empieza por una consulta o por su raíz («residuales» →
// «residual»): dónde empieza y dónde acaba.
function firstMatch(folded, keywords) {
  const found = [...keywords].map((keyword) => {
    const k = fold(String(keyword));
    for (let len = k.length; len >= Math.max(4, Math.ceil(k.length * 0.6)); len--) {
      const stem = k.slice(0, len).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const m = new RegExp(`(?<!\\p{L})${stem}[\\p{L}\\p{N}]*`, "u").exec(folded);
      if (m) return { at: m.index, end: m.index + m[0].length };
    }
    return null;
  });
  // sort es estable: con dos en el mismo sitio, gana la primera consulta.
  return found.filter(Boolean).sort((a, b) => a.at - b.at)[0];
}

// Unos 240 caracteres desde un poco antes de la palabra encontrada, que se resalta.
function makeSearchSummary(htmlText, keywords, anchor) {
  const text = htmlToText(htmlText, anchor);
  if (!text) return null;
  const { at, end } = firstMatch(fold(text), keywords) || { at: 0, end: 0 };
  const start = end ? text.lastIndexOf(" ", at - 100) + 1 : 0;
  const stop = Math.max(end, Math.min(text.length, start + 240));
  const mark = element("span", { className: "highlighted" });
  mark.textContent = text.slice(at, end);
  const summary = element("p", { className: "context" });
  summary.append(start ? "…" : "", text.slice(start, at), end ? mark : "",
    text.slice(end, stop), stop < text.length ? "…" : "");
  return summary;
}

// Una consulta de miles de caracteres (una dirección pegada, un texto entero) hace
// lanzar al buscador de Sphinx («Regular expression too large») y deja la página en
// «Buscando»: se buscan solo sus primeros caracteres, hasta el último espacio, y se
// dice. Se recorta en Search.query, que busca cuando llega el índice: Search.init
// (performSearch) ya ha corrido al cargarse searchtools.js.
const MAX_QUERY = 200;

function boundQuery(query) {
  const chars = [...String(query ?? "")];
  if (chars.length <= MAX_QUERY) return String(query ?? "");
  const cut = chars.slice(0, MAX_QUERY).join("");
  const space = cut.lastIndexOf(" ");
  return space > MAX_QUERY / 2 ? cut.slice(0, space) : cut;
}

function boundedQuery(query, text) {
  const bounded = boundQuery(text);
  if (bounded !== String(text ?? "")) {
    const note = element("p", { className: "curso-busqueda-recortada",
      textContent: "Tu búsqueda era muy larga: se buscan solo sus primeros " +
        `${MAX_QUERY} caracteres.` });
    document.getElementById("search-results")?.prepend(note);
  }
  return query(bounded);
}

// searchtools.js, diferido como este módulo, va después: Search se cambia en cuanto
// existe, antes de que searchindex.js lance la búsqueda (DOMContentLoaded, a veces
// tarde: el primer resumen salía con el htmlToText de Sphinx).
document.querySelector('script[src*="searchtools.js"]').addEventListener("load", () => {
  const query = Search.query;
  Object.assign(Search, {
    htmlToText,
    makeSearchSummary,
    query: (text) => boundedQuery(query, text),
  });
});
