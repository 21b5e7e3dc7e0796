// Lo que escribió el lector, citado en un mensaje: los caracteres que no se ven se
// nombran en vez de copiarse. Pegado de otra página, un U+202E (invierte el sentido
// del texto) daba la vuelta a todo el mensaje, y un tabulador, un BOM o un ZWJ
// dejaban unas comillas que parecían vacías («»). Lo usan las preguntas
// (resnorm/quiz/quiz.js), el GPT del capítulo 10 (gpt_playground.js) y la calculadora
// de media y σ del capítulo 3 (mean_std.js), con lo que cita quoteInput (compute.js).

// De control, de formato (los de dirección, los de anchura cero, el BOM), sin asignar
// o de uso privado, separadores de línea y párrafo, selectores de variante y rellenos
// que se dibujan en blanco.
const INVISIBLE = new RegExp("[\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Cn}\\p{Zl}\\p{Zp}" +
  "\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u3164\\ufe00-\\ufe0f\\uffa0" +
  "\\u{e0100}-\\u{e01ef}]", "gu");
// Los que cambian el sentido del texto (marcas, incrustaciones, aislamientos).
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const SPACING = /[\t\n\v\f\r\u0085\u2028\u2029]/u;
const NAMED = {
  "\t": "un tabulador", "\n": "un salto de línea", "\r": "un salto de línea",
};

function code(ch) {
  return `U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}

// «un carácter invisible (U+200D)»; dentro de un paréntesis, con coma.
function describe(ch, nested) {
  if (NAMED[ch]) return NAMED[ch];
  const what = BIDI.test(ch)
    ? "un carácter invisible que cambia el sentido del texto" : "un carácter invisible";
  return nested ? `${what}, ${code(ch)}` : `${what} (${code(ch)})`;
}

function describeAll(chars, nested) {
  const names = [...new Set(chars)].map((ch) => describe(ch, nested));
  return names.length > 1
    ? `${names.slice(0, -1).join(", ")} y ${names[names.length - 1]}` : names[0];
}

/**
 * El mensaje con cada carácter invisible nombrado: «‍» (solo un ZWJ) pasa a ser
 * «un carácter invisible (U+200D)»; «0,25» con un U+202E detrás, «0,25» (con un
 * carácter invisible que cambia el sentido del texto, U+202E).
 */
export function nameInvisible(message) {
  const text = String(message ?? "");
  const quoted = text.replace(/«([^«»]*)»/g, (whole, inside) => {
    const hidden = inside.match(INVISIBLE);
    if (!hidden) return whole;
    // Un tabulador o un salto separan lo que hay a sus lados: queda un espacio.
    const shown = inside.replace(INVISIBLE, (ch) => (SPACING.test(ch) ? " " : ""));
    if (!shown.trim()) return describeAll(hidden, false);
    return `«${shown}» (con ${describeAll(hidden, true)})`;
  });
  return quoted.replace(INVISIBLE, (ch) => ` (${describe(ch, true)}) `);
}
