// Un almacén en memoria si el navegador no deja guardar (va en línea, el primero de
// <head>: book/_ext/curso_navegador.py). Bloqueado, leer `localStorage` lanza
// SecurityError; lleno, `setItem` lanza QuotaExceededError: la búsqueda de Sphinx, el
// tema y sphinx-design se rompían. Este copia lo legible y guarda en memoria (se pierde
// al cerrar la página); <html data-almacen="memoria"> hace avisar a las preguntas.
(function () {
  "use strict";
  const attempt = (action) => {
    try {
      return action();
    } catch (error) {
      return undefined;
    }
  };

  function memoryStorage(backing) {
    const data = new Map(attempt(() => Array.from({ length: backing.length }, (_, i) =>
      [backing.key(i), backing.getItem(backing.key(i))])));
    return {
      getItem: (key) => data.get(String(key)) ?? null,
      setItem: (key, value) => data.set(String(key), String(value)),
      removeItem: (key) => data.delete(String(key)),
      clear: () => data.clear(),
      key: (index) => [...data.keys()][index] ?? null,
      get length() {
        return data.size;
      },
      enMemoria: true,
    };
  }

  for (const name of ["localStorage", "sessionStorage"]) {
    const works = attempt(() => {
      window[name].setItem("rn-almacen-prueba", "1");
      window[name].removeItem("rn-almacen-prueba");
      return true;
    });
    if (works) continue;
    if (name === "localStorage") document.documentElement.dataset.almacen = "memoria";
    const value = memoryStorage(attempt(() => window[name]));
    attempt(() => Object.defineProperty(window, name, { value, configurable: true }));
  }
})();
