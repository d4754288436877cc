"""`HEAD` answered as `GET` without a body, on the pages uptime monitors and link checkers ask for (`/`, the web
client's routes and files, `/healthz`, `/readyz`): Litestar answers `HEAD` only where a handler lists it, and its
route handlers send their body even then (an HTTP server drops it, but the app should not rely on that)."""

from __future__ import annotations

from litestar import HttpMethod
from litestar.types import ASGIApp, Message, Receive, Scope, Send

GET_AND_HEAD = [HttpMethod.GET, HttpMethod.HEAD]


def head_without_body(app: ASGIApp) -> ASGIApp:
    """Middleware: for a HEAD request, the GET answer's status and headers (Content-Length included, as GET's), and
    an empty body."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "HEAD":
            await app(scope, receive, send)
            return

        async def send_headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await app(scope, receive, send_headers_only)

    return middleware
