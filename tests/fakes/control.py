"""A test double's control address: a small HTTP server on loopback, in a thread, that turns each `POST <path>` (with
its JSON body, `{}` when empty) into a call of the double and answers 204 when the double handled it, else 404."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ControlServer:
    def __init__(self, on_post: Callable[[str, dict[str, Any]], bool]) -> None:
        class Control(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                self.send_response(204 if on_post(self.path, body) else 404)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Control)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def shutdown(self) -> None:
        self._server.shutdown()
