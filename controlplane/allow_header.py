"""`OPTIONS` answers list every method of the path (docs/security.md, "schema truth").

Litestar's automatic OPTIONS handler keeps the methods of the first handler registered on a path, so a path served
by several handlers (GET and PATCH of /api/client/settings) advertised only one of them in `Allow`."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from litestar.types import Message, Scope


def _plain(path: str) -> str:
    """`/peers/{peer_id:str}` and `/peers/{peer_id}` name one path."""
    return re.sub(r"\{(\w+):[^}]*\}", r"{\1}", path)


def allow_header_hook() -> Callable[[Message, Scope], Awaitable[None]]:
    """A `before_send` hook; the paths' methods are read from the app on the first OPTIONS request."""
    methods: dict[str, str] = {}

    async def fix_allow(message: Message, scope: Scope) -> None:
        if message["type"] != "http.response.start" or scope.get("method") != "OPTIONS":
            return
        template = scope.get("path_template")  # type: ignore[typeddict-item]
        if not template:
            return
        if not methods:
            for route in scope["litestar_app"].routes:  # type: ignore[typeddict-item]
                handled = getattr(route, "methods", None)
                if handled:
                    methods[_plain(route.path)] = ", ".join(sorted({*handled, "OPTIONS"}))
        allow = methods.get(_plain(template))
        if allow is None:
            return
        headers = [(k, v) for k, v in message.get("headers") or [] if bytes(k).lower() != b"allow"]
        message["headers"] = [*headers, (b"allow", allow.encode())]

    return fix_allow
