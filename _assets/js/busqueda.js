// Resúmenes de la búsqueda legibles (solo en search.html).
//
// El buscador de Sphinx 7.4 toma el texto de cada página tal cual: con la fórmula
// dibujada por KaTeX («μ=d1​∑i​xi​») o en TeX («\(d - 1\)»), los botones de la
// cabecera («Binder», «.md») y, si la palabra buscada no aparece literalmente (se
// escribió sin tilde), el principio de la página. Aquí el texto sale sin botones ni
// código, las fórmulas se leen («d − 1», «σ²») y la palabra se busca sin distinguir
// tildes, también por su raíz.
(function () {
  "use strict";

  var DROP = [
    ".headerlink", "script", "style", "button", "h1", ".bd-header-article",
    ".header-article-items", ".dropdown", ".onlyprint", "#jb-print-docs-body",
    ".prev-next-area", ".prev-next-footer", "nav", "footer", ".cell_input",
    ".copybtn", "summary", ".thebe-launch-button", ".widget-subarea",
    ".katex-mathml", ".toctree-wrapper",
  ].join(", ");

  var SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε",
    mu: "μ", sigma: "σ", lambda: "λ", theta: "θ", pi: "π", rho: "ρ", tau: "τ",
    phi: "φ", omega: "ω", Sigma: "Σ", sum: "Σ", prod: "Π", cdot: "·", odot: "⊙",
    times: "×", approx: "≈", le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠",
    neq: "≠", to: "→", rightarrow: "→", infty: "∞", pm: "±", in: "∈", ldots: "…",
    dots: "…", cdots: "⋯", partial: "∂", nabla: "∇", sqrt: "√", mathbb: "",
    ell: "ℓ", top: "ᵀ", prime: "′", hat: "", bar: "", tilde: "", vec: "",
  };
  var SUPERSCRIPTS = { 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶",
    7: "⁷", 8: "⁸", 9: "⁹", "-": "⁻", "+": "⁺", "T": "ᵀ" };

  // Una fórmula en TeX, escrita para leerla en una línea.
  function readTex(tex) {
    var s = tex.replace(/^\s*(\\\(|\\\[|\$\$?)|(\\\)|\\\]|\$\$?)\s*$/g, "");
    for (var i = 0; i < 4; i++) {
      s = s.replace(/\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, "($1)/($2)");
      s = s.replace(/\\sqrt\s*\{([^{}]*)\}/g, "√($1)");
      s = s.replace(/\\(?:text|mathrm|mathbf|mathit|operatorname|boldsymbol|mathcal)\s*\{([^{}]*)\}/g, "$1");
    }
    s = s.replace(/\^\{([^{}]*)\}|\^(.)/g, function (m, group, single) {
      var body = group !== undefined ? group : single;
      var out = "";
      for (var k = 0; k < body.length; k++) {
        if (!(body[k] in SUPERSCRIPTS)) return "^" + body;
        out += SUPERSCRIPTS[body[k]];
      }
      return out;
    });
    s = s.replace(/\\(left|right|big|Big|bigg|Bigg)\b/g, "");
    s = s.replace(/\\[,;:!]|\\quad|\\qquad|~|&|\\\\/g, " ");
    s = s.replace(/\\([A-Za-z]+)/g, function (m, name) {
      return name in SYMBOLS ? SYMBOLS[name] : name;
    });
    s = s.replace(/_\{([^{}]*)\}/g, "$1").replace(/_/g, "");
    s = s.replace(/[{}]/g, "").replace(/\s-\s/g, " − ");
    return s.replace(/\s+/g, " ").trim();
  }

  function htmlToText(htmlString, anchor) {
    var doc = new DOMParser().parseFromString(htmlString, "text/html");
    var root = null;
    if (anchor) root = doc.querySelector('[role="main"] ' + anchor);
    // Un término del glosario: el término y su definición.
    if (root && root.matches("dt") && root.nextElementSibling) {
      var pair = doc.createElement("div");
      pair.append(root.cloneNode(true), " — ", root.nextElementSibling.cloneNode(true));
      root = pair;
    }
    root = root || doc.querySelector('[role="main"]');
    if (!root) return "";
    // Las fórmulas, antes de quitar nada: KaTeX (dibujado al construir,
    // book/_ext/math_katex.py) deja su TeX en <annotation>, dentro de .katex-mathml;
    // el texto de su HTML («μ=d1​∑i​xi​», con espacios de ancho cero) no se lee.
    root.querySelectorAll(".math").forEach(function (el) {
      var tex = el.querySelector('annotation[encoding="application/x-tex"]');
      el.textContent = " " + readTex(tex ? tex.textContent : el.textContent) + " ";
    });
    root.querySelectorAll(DROP).forEach(function (el) {
      el.remove();
    });
    // Los bloques terminan en espacio: «Contenido4.1.» no debe pegarse.
    root.querySelectorAll("p, li, h1, h2, h3, h4, td, th, dt, dd, div").forEach(
      function (el) {
        el.append(" ");
      }
    );
    return root.textContent.replace(/\s+/g, " ").replace(/ ([,;:.)])/g, "$1").trim();
  }

  // Minúsculas sin tildes, letra a letra: las posiciones coinciden con el texto.
  function fold(text) {
    var out = "";
    for (var ch of text) {
      var plain = ch.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
      out += (plain.length === ch.length ? plain : ch).toLowerCase();
    }
    return out;
  }

  function firstMatch(folded, keywords) {
    var best = null;
    keywords.forEach(function (keyword) {
      var k = fold(String(keyword));
      // La raíz de la consulta (o la palabra recortada: «residuales» → «residual»).
      for (var len = k.length; len >= Math.max(4, Math.ceil(k.length * 0.6)); len--) {
        var re = new RegExp("(^|[^\\p{L}])" + k.slice(0, len).replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "u");
        var m = re.exec(folded);
        if (m) {
          var at = m.index + m[1].length;
          var end = at;
          while (end < folded.length && /\p{L}|\p{N}/u.test(folded[end])) end++;
          if (!best || at < best.at) best = { at: at, end: end };
          break;
        }
      }
    });
    return best;
  }

  function makeSearchSummary(htmlText, keywords, anchor) {
    var text = htmlToText(htmlText, anchor);
    if (text === "") return null;
    var match = firstMatch(fold(text), [...keywords]);
    var start = match ? Math.max(match.at - 100, 0) : 0;
    if (start > 0) {
      var space = text.indexOf(" ", start);
      if (space > -1 && space < (match ? match.at : start + 20)) start = space + 1;
    }
    var stop = Math.min(text.length, start + 240);
    var summary = document.createElement("p");
    summary.classList.add("context");
    var before = (start > 0 ? "…" : "");
    var after = stop < text.length ? "…" : "";
    if (match && match.end <= stop) {
      summary.append(before + text.slice(start, match.at));
      var mark = document.createElement("span");
      mark.className = "highlighted";
      mark.textContent = text.slice(match.at, match.end);
      summary.append(mark, text.slice(match.end, stop) + after);
    } else {
      summary.textContent = before + text.slice(start, stop) + after;
    }
    return summary;
  }

  function install() {
    if (typeof Search === "undefined" || Search.__curso) return;
    Search.__curso = true;
    Search.htmlToText = htmlToText;
    Search.makeSearchSummary = makeSearchSummary;
  }

  install();
  document.addEventListener("DOMContentLoaded", install);
  window.cursoBusqueda = { readTex: readTex, htmlToText: htmlToText, fold: fold };
})();
