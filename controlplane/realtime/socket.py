"""`/ws?token=ACCESS_TOKEN`: the browser's live channel (customer pages and manager pages)."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

import msgspec
from litestar import WebSocket, websocket
from litestar.exceptions import WebSocketDisconnect

from controlplane.db import transaction
from controlplane.dependencies import client_ip, services_of
from controlplane.errors import DomainError, TooManyRequests
from controlplane.realtime.hub import SESSION_INVALID, UNAUTHORIZED_CLOSE, Push

if TYPE_CHECKING:
    from controlplane.services import Services

log = logging.getLogger(__name__)

FORBIDDEN_ORIGIN_CLOSE = 4403
TOO_MANY_CLOSE = 4429
TOO_MANY_CONNECTIONS = "Demasiadas conexiones desde su dirección. Intente más tarde."
TOO_MANY_MESSAGES = "Demasiados mensajes. La conexión se cerró; se reconectará sola."
MAX_MESSAGE_CHARS = 1024  # the client only sends pings; anything longer is not ours


async def _refuse(socket: WebSocket[Any, Any, Any], message: str) -> None:
    await socket.send_text(msgspec.json.encode(Push("error", message)).decode())
    await socket.close(code=TOO_MANY_CLOSE)


@websocket("/ws", opt={"maintenance_exempt": True})
async def live_socket(socket: WebSocket[Any, Any, Any]) -> None:
    services = services_of(socket)
    origin = socket.headers.get("origin")
    # Browsers always send Origin; a page from another site must not ride a user's token into our socket.
    if origin is not None and origin.rstrip("/") not in services.settings.allowed_origins:
        await socket.close(code=FORBIDDEN_ORIGIN_CLOSE, reason="origin not allowed")
        return
    await socket.accept()
    ip = client_ip(socket)
    # One address must not take every file descriptor (of every process, when Redis counts for all of them).
    slot = await services.socket_slots.take(ip, services.settings.socket_connections_per_address)
    if slot is None:
        await _refuse(socket, TOO_MANY_CONNECTIONS)
        return
    try:
        await _serve(socket, services, ip)
    finally:
        await services.socket_slots.give_back(slot)


async def _serve(socket: WebSocket[Any, Any, Any], services: Services, ip: str) -> None:
    settings = services.settings
    try:
        await services.limiter.hit(f"ws:ip:{ip}", settings.rate_limits.socket_handshakes_per_address)
    except TooManyRequests:
        await _refuse(socket, TOO_MANY_CONNECTIONS)
        return
    token = socket.query_params.get("token", "")
    try:
        async with transaction(services.read_sessionmaker) as db:
            principal = await services.sessions.resolve(db, token, None)
    except DomainError:
        await socket.send_text(msgspec.json.encode(Push("auth", SESSION_INVALID)).decode())
        await socket.close(code=UNAUTHORIZED_CLOSE)
        return
    services.hub.attach(principal.user_id, socket)
    if principal.role.is_staff:
        services.hub.attach_staff(socket)
    try:
        await socket.send_text(msgspec.json.encode(Push("auth", data={"username": principal.username})).decode())
        window_start, received = time.monotonic(), 0
        while True:
            text = await socket.receive_text()
            now = time.monotonic()
            if now - window_start >= 60:
                window_start, received = now, 0
            received += 1
            if received > settings.socket_messages_per_minute or len(text) > MAX_MESSAGE_CHARS:
                await _refuse(socket, TOO_MANY_MESSAGES)
                return
            if '"ping"' in text:
                await socket.send_text('{"type":"pong"}')
    except WebSocketDisconnect:
        pass
    finally:
        services.hub.detach(principal.user_id, socket)
