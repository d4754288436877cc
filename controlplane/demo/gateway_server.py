"""A small local HTTP server for the fake payment gateways: JSON routes, a slow mode and a down mode."""

from __future__ import annotations

import contextlib
import html
import json
import threading
import time
import urllib.request
from collections.abc import Iterator, Mapping
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Answer = tuple[int, Any, dict[str, str]]  # status, JSON body (or str for HTML), extra headers


class FakeGatewayServer:
    """Subclasses implement `route`. `delay` makes every answer late (a slow gateway); `down` answers 503."""

    def __init__(self, port: int = 0) -> None:
        self.delay = 0.0
        self.down = False
        self.calls: list[tuple[str, str]] = []  # (method, path) of every request, for assertions
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length) if length else b""
                with fake.lock:
                    fake.calls.append((method, self.path))
                if fake.delay:
                    time.sleep(fake.delay)
                headers: dict[str, str]
                if fake.down:
                    status, payload, headers = 503, {"error": "Service Unavailable"}, {}
                else:
                    headers_in = {k.lower(): v for k, v in self.headers.items()}
                    status, payload, headers = fake.route(method, self.path, headers_in, body)
                if isinstance(payload, str):
                    data, kind = payload.encode(), "text/html; charset=utf-8"
                else:
                    data, kind = json_bytes(payload), "application/json"
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (slow mode)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

            def log_message(self, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass

        self._make_server = lambda bound: Server(("127.0.0.1", bound), Handler)
        self._server = self._make_server(port)
        self.port = int(self._server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def route(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Answer:
        raise NotImplementedError

    def reset(self) -> None:
        self.delay, self.down = 0.0, False
        with self.lock:
            self.calls.clear()

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @contextlib.contextmanager
    def stopped(self) -> Iterator[None]:
        """The gateway really down: its port closed (connections refused) inside the block, then listening again on
        the same port with everything it knew (unlike `down`, which still answers, with 503)."""
        self.__exit__()
        try:
            yield
        finally:
            self._server = self._make_server(self.port)
            self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
            self._thread.start()


def json_bytes(payload: Any) -> bytes:
    """A JSON answer; a Decimal is written as a JSON number with its exact digits (`5.00`), as gateways answer."""

    def encode(item: Any) -> str:
        if isinstance(item, Decimal):
            return format(item, "f")
        if isinstance(item, dict):
            return "{" + ",".join(f"{json.dumps(str(k))}:{encode(v)}" for k, v in item.items()) + "}"
        if isinstance(item, list | tuple):
            return "[" + ",".join(encode(v) for v in item) + "]"
        return json.dumps(item, default=str)

    return encode(payload).encode()


def read_json(body: bytes) -> Any:
    try:
        return json.loads(body or b"{}", parse_float=Decimal)
    except ValueError:
        return None


def valid_amount(value: Any) -> Decimal | None:
    try:
        amount = Decimal(str(value))
    except ArithmeticError:
        return None
    return amount.quantize(Decimal("0.01")) if amount > 0 else None


def deliver(url: str, body: bytes, headers: dict[str, str]) -> None:
    """POST a notification to the merchant for real (the demo pay page); errors are the merchant's problem."""
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json", **headers})
    with contextlib.suppress(OSError):
        urllib.request.urlopen(request, timeout=10).close()


def pay_page(title: str, amount: Any, description: str, action: str) -> str:
    """The demo's payment page: two buttons standing in for the gateway's checkout."""
    return (
        f"<!doctype html><html lang='es'><meta charset='utf-8'><title>{title}</title>"
        f"<body style='font-family:sans-serif;max-width:30em;margin:3em auto'>"
        f"<h1>{title} (simulado)</h1><p>{html.escape(description)}</p><p><b>{amount} USD</b></p>"
        f"<form method='post' action='{action}/paid'><button>Pagar</button></form>"
        f"<form method='post' action='{action}/canceled'><button>Cancelar</button></form></body></html>"
    )
