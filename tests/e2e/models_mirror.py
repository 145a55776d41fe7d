"""A local mirror of the Hugging Face hub for one model, on 127.0.0.1 only.

Serves GET /<owner>/<name>/resolve/<revision>/<file> from DIR (the files of a model folder) with
Access-Control-Allow-Origin: *, as the hub's CDN answers a plain GET. Under /tampered/... the
same paths answer with one byte of model.safetensors changed; under /slow/... they arrive in
1 MB pieces 50 ms apart (a download slow enough to cancel). Anything but a plain GET (HEAD,
OPTIONS: a preflight the hub's CDN would refuse) answers 405. GET /__stats returns how many times
each path was served, so a test can tell a download from a Cache Storage hit.

Usage: models_mirror.py --port 0 --dir DIR [--max-seconds 600]; prints "LISTENING <port>".
"""

import argparse
import json
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

args = argparse.ArgumentParser()
args.add_argument("--port", type=int, default=0)
args.add_argument("--dir", required=True)
args.add_argument("--max-seconds", type=float, default=600)
opts = args.parse_args()
ROOT = Path(opts.dir).resolve()
served = Counter()
refused = Counter()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        path = unquote(urlsplit(self.path).path)
        if path == "/__stats":
            body = json.dumps({"served": served, "refused": refused}).encode()
            return self.reply(200, body, "application/json")
        if any(h in self.headers for h in ("Range", "Authorization")):
            refused[path] += 1
            return self.reply(400, b"the hub's CDN refuses Range and Authorization\n", "text/plain")
        tampered = path.startswith("/tampered/")
        slow = path.startswith("/slow/")
        parts = path.removeprefix("/tampered").removeprefix("/slow").lstrip("/").split("/")
        # owner / name / resolve / revision / file
        if len(parts) != 5 or parts[2] != "resolve":
            return self.reply(404, b"not found\n", "text/plain")
        file = (ROOT / parts[4]).resolve()
        if file.parent != ROOT or not file.is_file():
            return self.reply(404, b"not found\n", "text/plain")
        body = file.read_bytes()
        if tampered and file.name == "model.safetensors":
            body = bytearray(body)
            body[-1] ^= 0x01  # one bit of the last weight
            body = bytes(body)
        served[path] += 1
        self.reply(200, body, "application/octet-stream", slow)

    def do_HEAD(self):
        refused[urlsplit(self.path).path] += 1
        self.reply(405, b"", "text/plain")

    def do_OPTIONS(self):
        refused[urlsplit(self.path).path] += 1
        self.reply(405, b"", "text/plain")

    def reply(self, status, body, content_type, slow=False):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        try:
            if self.command == "HEAD":
                return
            step = 1 << 20 if slow else len(body) or 1
            for at in range(0, len(body), step):
                self.wfile.write(body[at : at + step])
                if slow:
                    self.wfile.flush()
                    time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", opts.port), Handler)
print(f"LISTENING {server.server_address[1]}", flush=True)
# Stops by itself, whatever happens to the test that started it.
threading.Timer(opts.max_seconds, server.shutdown).start()
server.serve_forever()
sys.exit(0)
