"""`/ws?token=ACCESS_TOKEN`: the browser's live channel (customer pages and manager pages)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import msgspec
from litestar import WebSocket, websocket
from litestar.exceptions import WebSocketDisconnect

from controlplane.dependencies import client_ip, services_of
from controlplane.errors import DomainError
from controlplane.realtime.hub import SESSION_EXPIRED, SESSION_INVALID, UNAUTHORIZED_CLOSE, PushHub
from controlplane.realtime.messages import AuthPush, ErrorPush, SignedIn
from controlplane.realtime.origins import origin_allowed, report_refused

if TYPE_CHECKING:
    from controlplane.services import Services

log = logging.getLogger(__name__)

FORBIDDEN_ORIGIN_CLOSE = 4403
TOO_MANY_CLOSE = 4429
TOO_MANY_CONNECTIONS = "Demasiadas conexiones desde su dirección. Intente más tarde."
TOO_MANY_MESSAGES = "Demasiados mensajes. La conexión se cerró; se reconectará sola."
MAX_MESSAGE_CHARS = 1024  # the client only sends pings; anything longer is not ours


def _expected_origin(client_url: str) -> str:
    """The client URL's origin, when it fits a close reason (123 bytes)."""
    parts = urlsplit(client_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    return origin if len(origin.encode()) <= 123 else ""


def _origin(socket: WebSocket[Any, Any, Any]) -> str | None:
    """The Origin header, read from the raw headers: `socket.headers` would build (and keep, for the socket's life)
    a header table of its own."""
    for name, value in socket.scope["headers"]:
        if name.lower() == b"origin":
            return value.decode("latin-1")
    return None


async def _refuse(socket: WebSocket[Any, Any, Any], message: str) -> None:
    await socket.send_text(msgspec.json.encode(ErrorPush(message=message)).decode())
    await socket.close(code=TOO_MANY_CLOSE)


@websocket("/ws", opt={"maintenance_exempt": True})
async def live_socket(socket: WebSocket[Any, Any, Any]) -> None:
    services = services_of(socket)
    origin = _origin(socket)
    allowed = services.settings.allowed_origins
    await socket.accept()
    if not origin_allowed(origin, allowed):
        # Accepted only to say why (a refused handshake is a bare 403 the page cannot read): the close reason is
        # the address to open instead, and the token is never looked at.
        report_refused(str(origin), allowed)
        await socket.close(code=FORBIDDEN_ORIGIN_CLOSE, reason=_expected_origin(services.settings.client_url))
        return
    ip = client_ip(socket)
    # One address must not take every file descriptor (of every process, when Redis counts for all of them), nor
    # open sockets without pause: the open sockets and the handshakes of the window are counted in one step.
    settings = services.settings
    slot = await services.socket_slots.take(
        ip, settings.socket_connections_per_address, settings.rate_limits.socket_handshakes_per_address
    )
    if slot is None:
        await _refuse(socket, TOO_MANY_CONNECTIONS)
        return
    try:
        await _serve(socket, services)
    finally:
        await services.socket_slots.give_back(slot)


async def _serve(socket: WebSocket[Any, Any, Any], services: Services) -> None:
    settings = services.settings
    token = socket.query_params.get("token", "")
    try:
        principal = await services.handshakes.principal(token)
    except DomainError:
        await socket.send_text(msgspec.json.encode(AuthPush(message=SESSION_INVALID)).decode())
        await socket.close(code=UNAUTHORIZED_CLOSE)
        return
    services.hub.attach(principal.user_id, socket, principal.session_id)
    if principal.role.is_staff:
        services.hub.attach_staff(socket)
    # The socket lives no longer than the token it was opened with (docs/security.md, sessions): the web client
    # answers 4401 by renewing its token and reconnecting, or by going to the login page.
    loop = asyncio.get_running_loop()
    expires = loop.time() + max(0.0, principal.valid_until - time.time())
    try:
        await socket.send_text(msgspec.json.encode(AuthPush(data=SignedIn(principal.username))).decode())
        async with asyncio.timeout_at(expires):
            await _receive(socket, settings.socket_messages_per_minute, services.hub, principal.user_id)
    except TimeoutError:
        services.hub.detach(principal.user_id, socket)
        await services.hub.close([socket], SESSION_EXPIRED)
    except WebSocketDisconnect:
        pass
    finally:
        services.hub.detach(principal.user_id, socket)


async def _receive(socket: WebSocket[Any, Any, Any], per_minute: int, hub: PushHub, user_id: str) -> None:
    """Answers pings, and holds or resumes the live figures as the page is hidden or shown (realtime/stats_gate.py),
    until the socket closes, or refuses it when it sends too much."""
    window_start, received = time.monotonic(), 0
    while True:
        text = await socket.receive_text()
        now = time.monotonic()
        if now - window_start >= 60:
            window_start, received = now, 0
        received += 1
        if received > per_minute or len(text) > MAX_MESSAGE_CHARS:
            await _refuse(socket, TOO_MANY_MESSAGES)
            return
        if '"ping"' in text:
            await socket.send_text('{"type":"pong"}')
        elif '"pause"' in text:
            hub.pause_stats(user_id, socket)
        elif '"resume"' in text:
            await hub.resume_stats(user_id, socket)
