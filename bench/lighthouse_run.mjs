// Lighthouse (perfil móvil, el de la CLI por defecto) en varias páginas, una tras otra,
// con un solo Chromium: arrancar Node, cargar Lighthouse y lanzar el navegador cuesta
// ≈ 4 s por página con la CLI. Lo llama bench/lighthouse.py:
//
//     node bench/lighthouse_run.mjs trabajos.json
//
// trabajos.json: {chromePath, chromeFlags, categories, maxWaitForLoad, runs,
//                 jobs: [{url, output}]}. Cada página se mide «runs» veces (1 si no
// se dice); en su «output» se escribe la lista de sus informes JSON, uno por corrida
// (bench/lighthouse.py los resume). Si una página falla, su error va a
// «output».error, y se sigue con las demás.
import fs from "node:fs";

import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

const spec = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const chrome = await chromeLauncher.launch({
  chromePath: spec.chromePath,
  chromeFlags: spec.chromeFlags,
});
try {
  for (const { url, output } of spec.jobs) {
    try {
      const reports = [];
      for (let run = 0; run < (spec.runs || 1); run++) {
        const result = await lighthouse(url, {
          port: chrome.port,
          output: "json",
          logLevel: "silent",
          onlyCategories: spec.categories,
          maxWaitForLoad: spec.maxWaitForLoad,
          // La foto de la página entera solo la usa el visor HTML del informe.
          disableFullPageScreenshot: true,
        });
        reports.push(result.report);
      }
      fs.writeFileSync(output, `[${reports.join(",")}]`);
    } catch (error) {
      fs.writeFileSync(`${output}.error`, String((error && error.stack) || error));
    }
  }
} finally {
  await chrome.kill();
}
