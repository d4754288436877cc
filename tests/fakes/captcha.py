"""A local siteverify endpoint that answers like hCaptcha/Turnstile/reCAPTCHA: form in, {"success": bool} out."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

SECRET = "captcha-test-secret"
GOOD_TOKEN = "captcha-solved"


class FakeCaptcha:
    def __init__(self) -> None:
        self.requests: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                fake.requests.append(form)
                ok = form.get("secret") == SECRET and form.get("response") == GOOD_TOKEN
                body = {"success": ok} if ok else {"success": False, "error-codes": ["invalid-input-response"]}
                payload = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/siteverify"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FakeCaptcha:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
