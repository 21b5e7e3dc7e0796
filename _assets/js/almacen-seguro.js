// Un almacén en memoria cuando el navegador no deja guardar (va en línea, el primero
// de <head>: book/_ext/curso_navegador.py).
//
// Con el almacenamiento del sitio bloqueado (navegación privada, cookies
// bloqueadas), solo leer `window.localStorage` lanza SecurityError; lleno,
// `setItem` lanza QuotaExceededError. El buscador de Sphinx (searchtools.js guarda
// lo buscado con localStorage.setItem) se quedaba entonces en «Buscando…», y el tema
// y las pestañas de sphinx-design lanzaban errores en cada página. Esos scripts usan
// `localStorage` y `sessionStorage` tal cual, así que aquí, y solo si el acceso
// falla, `window.localStorage` / `window.sessionStorage` pasan a ser un almacén con
// la misma interfaz: lee lo que el navegador aún deje leer y guarda en memoria lo
// que no deje guardar (se pierde al cerrar la página). <html data-almacen="memoria">
// lo dice a la hoja de estilo: las preguntas avisan de que el progreso no se
// guardará.
(function () {
  "use strict";
  var PROBE = "rn-almacen-prueba";

  function works(name) {
    try {
      var store = window[name];
      store.setItem(PROBE, PROBE);
      store.removeItem(PROBE);
      return true;
    } catch (error) {
      return false;
    }
  }

  function backingOf(name) {
    try {
      return window[name] || null;
    } catch (error) {
      return null;
    }
  }

  // La interfaz de Storage: getItem, setItem, removeItem, clear, key, length.
  function MemoryStorage(backing) {
    var memory = Object.create(null);
    var removed = Object.create(null);
    function keys() {
      var out = Object.keys(memory);
      if (backing) {
        try {
          for (var i = 0; i < backing.length; i++) {
            var k = backing.key(i);
            if (!(k in memory) && !(k in removed)) out.push(k);
          }
        } catch (error) {
          // sin acceso de lectura: solo lo de la memoria
        }
      }
      return out;
    }
    return {
      getItem: function (key) {
        key = String(key);
        if (key in memory) return memory[key];
        if (key in removed || !backing) return null;
        try {
          return backing.getItem(key);
        } catch (error) {
          return null;
        }
      },
      setItem: function (key, value) {
        key = String(key);
        delete removed[key];
        try {
          if (backing) {
            backing.setItem(key, String(value));
            delete memory[key];
            return;
          }
        } catch (error) {
          // lleno o bloqueado: en memoria
        }
        memory[key] = String(value);
      },
      removeItem: function (key) {
        key = String(key);
        delete memory[key];
        removed[key] = true;
        try {
          if (backing) backing.removeItem(key);
        } catch (error) {
          // nada que borrar fuera de la memoria
        }
      },
      clear: function () {
        keys().forEach(this.removeItem, this);
      },
      key: function (index) {
        var all = keys();
        return index >= 0 && index < all.length ? all[index] : null;
      },
      get length() {
        return keys().length;
      },
      enMemoria: true,
    };
  }

  var lost = false;
  ["localStorage", "sessionStorage"].forEach(function (name) {
    if (works(name)) return;
    if (name === "localStorage") lost = true;
    try {
      Object.defineProperty(window, name, {
        value: new MemoryStorage(backingOf(name)),
        configurable: true,
        enumerable: true,
        writable: false,
      });
    } catch (error) {
      // Un navegador que no deja redefinirlo: los scripts harán lo que puedan.
    }
  });
  if (lost) document.documentElement.setAttribute("data-almacen", "memoria");
})();
