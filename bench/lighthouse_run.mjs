// Lighthouse (perfil móvil, el de la CLI por defecto) en varias páginas, una tras otra,
// con un solo Chromium: arrancar Node, cargar Lighthouse y lanzar el navegador cuesta
// ≈ 4 s por página con la CLI. Lo llama bench/lighthouse.py:
//
//     node bench/lighthouse_run.mjs trabajos.json
//
// trabajos.json: {chromePath, chromeFlags, categories, maxWaitForLoad, runs,
//                 jobs: [{url, output}]}. Cada página se mide «runs» veces (1 si no
// se dice) y en su «output» se escribe el informe de la corrida mediana, la que elige
// el propio Lighthouse (computeMedianRun: la más cercana a la mediana de FCP y de
// TTI), para sus auditorías; en «output».corridas.json, las puntuaciones y las
// métricas de cada corrida (bench/lighthouse.py toma la mediana de cada una). Si una
// página falla,
// su error va a «output».error, y se sigue con las demás.
import fs from "node:fs";

import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import {
  computeMedianRun,
  filterToValidRuns,
} from "lighthouse/core/lib/median-run.js";

const METRICS = {
  fcp_ms: "first-contentful-paint",
  lcp_ms: "largest-contentful-paint",
  tbt_ms: "total-blocking-time",
  cls: "cumulative-layout-shift",
  tti_ms: "interactive",
};

function figures(lhr) {
  const out = {};
  for (const [name, category] of Object.entries(lhr.categories)) {
    out[name] = Math.round(100 * (category.score ?? 0));
  }
  for (const [key, audit] of Object.entries(METRICS)) {
    out[key] = lhr.audits[audit]?.numericValue ?? null;
  }
  return out;
}

const spec = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const chrome = await chromeLauncher.launch({
  chromePath: spec.chromePath,
  chromeFlags: spec.chromeFlags,
});
try {
  for (const { url, output } of spec.jobs) {
    try {
      const results = [];
      for (let run = 0; run < (spec.runs || 1); run++) {
        results.push(await lighthouse(url, {
          port: chrome.port,
          output: "json",
          logLevel: "silent",
          onlyCategories: spec.categories,
          maxWaitForLoad: spec.maxWaitForLoad,
          // La foto de la página entera solo la usa el visor HTML del informe.
          disableFullPageScreenshot: true,
        }));
      }
      const lhrs = results.map((result) => result.lhr);
      const valid = filterToValidRuns(lhrs);
      const median = valid.length ? computeMedianRun(valid) : lhrs[lhrs.length - 1];
      fs.writeFileSync(output, results[lhrs.indexOf(median)].report);
      fs.writeFileSync(`${output}.corridas.json`, JSON.stringify(lhrs.map(figures)));
    } catch (error) {
      fs.writeFileSync(`${output}.error`, String((error && error.stack) || error));
    }
  }
} finally {
  await chrome.kill();
}
