"""Serves test fixtures on 127.0.0.1: /cors/<path> with Access-Control-Allow-Origin: *,
/nocors/<path> without it, 404 for anything else. Usage: fixture_server.py PORT ROOT"""

import mimetypes
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

PORT = int(sys.argv[1])
ROOT = Path(sys.argv[2]).resolve()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        path = unquote(urlsplit(self.path).path)
        prefix, _, rest = path.lstrip("/").partition("/")
        cors = prefix == "cors"
        file = (ROOT / rest).resolve()
        # Only files inside ROOT, only under the two known prefixes.
        if prefix not in ("cors", "nocors") or ROOT not in file.parents or not file.is_file():
            return self.reply(404, b"not found\n", "text/plain", cors)
        self.reply(200, file.read_bytes(), mimetypes.guess_type(file.name)[0] or "application/octet-stream", cors)

    def reply(self, status, body, content_type, cors):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        if cors:  # a 404 under /cors/ is readable too, so the page can show the status
            self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser may drop a response it may not read (no CORS header)

    def log_message(self, *args):
        pass  # quiet: Playwright shows server output


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
