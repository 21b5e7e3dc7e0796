// Un almacén en memoria cuando el navegador no deja guardar (va en línea, el primero
// de <head>: book/_ext/curso_navegador.py).
//
// Bloqueado (navegación privada, cookies bloqueadas), solo leer `localStorage` lanza
// SecurityError; lleno, `setItem` lanza QuotaExceededError, y la búsqueda de Sphinx, el
// tema y sphinx-design, que lo usan tal cual, se rompían. Entonces `localStorage` /
// `sessionStorage` pasan a ser un almacén con la misma interfaz: copia lo que aún se
// deja leer, guarda en memoria (se pierde al cerrar la página) e intenta guardar fuera
// también. <html data-almacen="memoria"> hace que las preguntas avisen (curso.css).
(function () {
  "use strict";
  const attempt = (action) => {
    try {
      return action();
    } catch (error) {
      return undefined;
    }
  };
  const works = (name) => attempt(() => {
    window[name].setItem("rn-almacen-prueba", "1");
    window[name].removeItem("rn-almacen-prueba");
    return true;
  });

  function memoryStorage(name) {
    const backing = attempt(() => window[name]);
    const data = new Map();
    attempt(() => {
      for (let i = 0; i < backing.length; i++) {
        data.set(backing.key(i), backing.getItem(backing.key(i)));
      }
    });
    return {
      getItem: (key) => data.get(String(key)) ?? null,
      setItem(key, value) {
        data.set(String(key), String(value));
        attempt(() => backing.setItem(key, value));
      },
      removeItem(key) {
        data.delete(String(key));
        attempt(() => backing.removeItem(key));
      },
      clear() {
        data.clear();
        attempt(() => backing.clear());
      },
      key: (index) => [...data.keys()][index] ?? null,
      get length() {
        return data.size;
      },
      enMemoria: true,
    };
  }

  ["localStorage", "sessionStorage"].forEach((name) => {
    if (works(name)) return;
    if (name === "localStorage") document.documentElement.dataset.almacen = "memoria";
    attempt(() => Object.defineProperty(window, name, {
      value: memoryStorage(name),
      configurable: true,
      enumerable: true,
    }));
  });
})();
