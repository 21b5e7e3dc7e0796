"""Un servidor estático en 127.0.0.1 que comprime con gzip, como un hosting normal.

``http.server`` no comprime; sin gzip, los bytes transferidos que ve el navegador no
serían los de un sitio publicado. Se comprimen los tipos de texto (HTML, CSS, JS, JSON,
SVG, fuentes TTF/EOT) con nivel 6; WOFF2, PNG y demás ya van comprimidos.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import io
import os
import sys
import threading
from pathlib import Path

COMPRESSIBLE = (
    "text/", "application/javascript", "application/json", "application/xml",
    "image/svg+xml", "font/ttf", "font/otf", "application/vnd.ms-fontobject",
    "application/x-font-ttf",
)
MIN_SIZE = 256
LEVEL = 6


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Sirve archivos con ``Content-Encoding: gzip`` si el navegador lo acepta."""

    _cache: dict = {}

    def log_message(self, format, *args):  # noqa: A002 - firma de la clase base
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            index = os.path.join(path, "index.html")
            if not self.path.split("?")[0].endswith("/") or not os.path.exists(index):
                return super().send_head()
            path = index
        ctype = self.guess_type(path)
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        try:
            stat = os.stat(path)
        except OSError:
            self.send_error(404, "No encontrado")
            return None
        small = stat.st_size < MIN_SIZE
        if not accepts or small or not ctype.startswith(COMPRESSIBLE):
            return super().send_head()
        key = (path, stat.st_mtime_ns, stat.st_size)
        body = self._cache.get(key)
        if body is None:
            body = gzip.compress(Path(path).read_bytes(), compresslevel=LEVEL, mtime=0)
            self._cache[key] = body
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return io.BytesIO(body)


class QuietServer(http.server.ThreadingHTTPServer):
    """Sin trazas por las conexiones que corta el navegador: Lighthouse deja a medias
    las descargas que ya no necesita, y una pestaña que pasa a otra página, las de la
    anterior. La biblioteca estándar escribiría un «Broken pipe» por cada una."""

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(directory: Path):
    """Sirve ``directory`` en un puerto libre de 127.0.0.1; devuelve la URL base."""
    handler = functools.partial(GzipHandler, directory=str(directory))
    server = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
