// Ayudantes de DOM sin nada del curso: crear elementos HTML y SVG, vaciar un nodo e
// identificadores únicos. Los comparten los widgets (ui.js y cada widget) y las
// preguntas (resnorm/quiz/quiz.js), que los incrustan con resnorm.widgets.bundle.

let counter = 0;

/** Identificador único para enlazar <label for> con su control. */
export function uid(prefix) {
  counter += 1;
  return `rn-${prefix}-${counter}-${Math.floor(Math.random() * 1e6)}`;
}

/**
 * Crea un elemento HTML. `attrs`: atributos (class, id, aria-*, etc.); las
 * claves que empiezan por «on» son eventos. `children`: nodos o textos.
 */
export function h(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "text") {
      node.textContent = value;
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

function append(node, children) {
  for (const child of [].concat(children)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

let svgNamespace = null;

// El espacio de nombres de SVG se toma del propio navegador: así ningún
// archivo lleva URLs escritas.
function svgNs() {
  if (svgNamespace === null) {
    const holder = document.createElement("div");
    holder.innerHTML = "<svg></svg>";
    svgNamespace = holder.firstChild.namespaceURI;
  }
  return svgNamespace;
}

/** Crea un elemento SVG con atributos e hijos. */
export function s(tag, attrs = {}, children = []) {
  const node = document.createElementNS(svgNs(), tag);
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

/** Vacía un nodo. */
export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}
