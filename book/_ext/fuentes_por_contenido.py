"""Qué documentos vuelve a leer Sphinx: los que cambiaron de contenido, no de fecha.

Sphinx decide que un documento está al día si su archivo no es más nuevo que la última
lectura (la fecha de modificación). Una edición cuya fecha va hacia atrás (``cp -p``,
``rsync -a``, descomprimir un archivo, cambiar de rama con otra fecha) pasaba por al
día: el sitio servía la página vieja mientras el cuaderno del alumno ya tenía el
cambio. Aquí cada documento leído guarda la huella de su contenido (SHA-256) en el
entorno, y el evento documentado ``env-get-outdated`` devuelve, además de los que
Sphinx ya vio, los que tienen otra huella. Sphinx no lo ofrece como opción (decide
solo por fechas, ``BuildEnvironment.get_outdated_files``); este evento es su gancho
para añadir documentos.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

ATTR = "curso_huellas"


def content_digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _digests(env) -> dict[str, str]:
    if not hasattr(env, ATTR):
        setattr(env, ATTR, {})
    return getattr(env, ATTR)


def changed_by_content(env, candidates) -> list[str]:
    """Los documentos de ``candidates`` cuyo contenido no es el de su última
    lectura (o que nunca se leyeron con huella)."""
    stored = _digests(env)
    out = []
    for docname in sorted(candidates):
        path = env.doc2path(docname)
        if Path(path).exists() and stored.get(docname) != content_digest(path):
            out.append(docname)
    return out


def _outdated(app, env, added, changed, removed):
    return changed_by_content(env, env.found_docs - added - changed - removed)


def _record(app, env, docnames):
    stored = _digests(env)
    for docname in docnames:
        path = env.doc2path(docname)
        if Path(path).exists():
            stored[docname] = content_digest(path)


def setup(app):
    app.connect("env-get-outdated", _outdated)
    # Antes de leer (en el proceso principal, también con -j): Sphinx emite
    # «env-purge-doc» de cada documento después de este evento, así que las huellas no
    # se guardan con lo demás del documento, sino aparte, y solo las cambia esto.
    app.connect("env-before-read-docs", _record)
    return {"parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": 1}
