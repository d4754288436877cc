"""`/ws?token=ACCESS_TOKEN`: the browser's live channel (customer pages and manager pages)."""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from litestar import WebSocket, websocket
from litestar.exceptions import WebSocketDisconnect

from controlplane.db import transaction
from controlplane.dependencies import services_of
from controlplane.errors import DomainError
from controlplane.realtime.hub import Push

log = logging.getLogger(__name__)

UNAUTHORIZED_CLOSE = 4401
FORBIDDEN_ORIGIN_CLOSE = 4403


@websocket("/ws", opt={"maintenance_exempt": True})
async def live_socket(socket: WebSocket[Any, Any, Any]) -> None:
    services = services_of(socket)
    origin = socket.headers.get("origin")
    # Browsers always send Origin; a page from another site must not ride a user's token into our socket.
    if origin is not None and origin.rstrip("/") not in services.settings.allowed_origins:
        await socket.close(code=FORBIDDEN_ORIGIN_CLOSE, reason="origin not allowed")
        return
    await socket.accept()
    token = socket.query_params.get("token", "")
    try:
        async with transaction(services.sessionmaker) as db:
            principal = await services.sessions.resolve(db, token, None)
    except DomainError:
        await socket.send_text(msgspec.json.encode(Push("auth", "Sesión inválida o expirada.")).decode())
        await socket.close(code=UNAUTHORIZED_CLOSE)
        return
    services.hub.attach(principal.user_id, socket)
    if principal.role.is_staff:
        services.hub.attach_staff(socket)
    try:
        await socket.send_text(msgspec.json.encode(Push("auth", data={"username": principal.username})).decode())
        while True:
            text = await socket.receive_text()
            if len(text) < 256 and '"ping"' in text:
                await socket.send_text('{"type":"pong"}')
    except WebSocketDisconnect:
        pass
    finally:
        services.hub.detach(principal.user_id, socket)
