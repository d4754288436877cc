"""Browser sockets of this process, by user, and the one call services use to push to a user."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from typing import Protocol

import msgspec

from controlplane.realtime.bus import EventBus
from controlplane.realtime.stats_gate import STATS_EVERY_SECONDS, Send, StatsGate
from controlplane.realtime.topics import (
    SESSIONS_ENDED,
    STAFF_PUSH,
    USER_PUSH,
    USER_PUSHES,
    SessionsEnded,
    StaffPush,
    UserPush,
    UserPushes,
)

log = logging.getLogger(__name__)

# The close code of a socket whose session is not (or no longer) valid; the web client then checks its session,
# which sends it to the login page when the session cannot be renewed (docs/api.md, live push).
UNAUTHORIZED_CLOSE = 4401
SESSION_INVALID = "Sesión inválida o expirada."
SESSION_EXPIRED = "La sesión expiró. Inicie sesión de nuevo."


class Socket(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class PushHub:
    def __init__(self, bus: EventBus, stats_every: float = STATS_EVERY_SECONDS) -> None:
        self._bus = bus
        # peer_stats at most once a minute per socket, none while its page is hidden (realtime/stats_gate.py).
        self._stats = StatsGate(stats_every)
        self._sockets: dict[str, set[Socket]] = defaultdict(set)
        self._session_of: dict[Socket, str] = {}  # the login session each socket was opened with
        # Manager pages: every staff socket hears node status, operation outcomes and audit entries.
        self._staff: set[Socket] = set()
        bus.subscribe(USER_PUSH, self._deliver)
        bus.subscribe(STAFF_PUSH, self._deliver_staff)
        bus.subscribe(USER_PUSHES, self._deliver_many)
        bus.subscribe(SESSIONS_ENDED, self._close_user_sockets)

    @property
    def open_sockets(self) -> int:
        return sum(len(s) for s in self._sockets.values())

    def attach(self, user_id: str, socket: Socket, session_id: str | None = None) -> None:
        self._sockets[user_id].add(socket)
        if session_id is not None:
            self._session_of[socket] = session_id

    def attach_staff(self, socket: Socket) -> None:
        self._staff.add(socket)

    def detach(self, user_id: str, socket: Socket) -> None:
        self._staff.discard(socket)
        self._stats.forget(socket)
        self._session_of.pop(socket, None)
        sockets = self._sockets.get(user_id)
        if sockets is not None:
            sockets.discard(socket)
            if not sockets:
                del self._sockets[user_id]

    def pause_stats(self, user_id: str, socket: Socket) -> None:
        """The socket's page is hidden: its peer_stats are held until resume_stats."""
        self._stats.pause(socket, self._sender(user_id, socket))

    async def resume_stats(self, user_id: str, socket: Socket) -> None:
        """The socket's page is shown again: what was held is sent now."""
        await self._stats.resume(socket, self._sender(user_id, socket))

    def is_online(self, user_id: str) -> bool:
        return user_id in self._sockets

    async def push(self, user_id: str, push: msgspec.Struct) -> None:
        """Reaches the user's browsers on every process (through the bus). `push`: a realtime/messages.py message;
        a peer or room in it carries the `version` its row had when the view was built (docs/api.md, versions)."""
        await self._bus.publish(USER_PUSH, UserPush(user_id, msgspec.to_builtins(push)))

    async def push_many(self, by_user: dict[str, msgspec.Struct]) -> None:
        """A push for each of many users, in one bus event (topics.UserPushes)."""
        encode = msgspec.json.encode
        await self._bus.publish(USER_PUSHES, UserPushes({u: msgspec.Raw(encode(p)) for u, p in by_user.items()}))

    async def push_staff(self, push: msgspec.Struct) -> None:
        """Reaches every open manager page on every process."""
        await self._bus.publish(STAFF_PUSH, StaffPush(msgspec.to_builtins(push)))

    async def end_sessions(
        self, user_id: str, session_id: str | None = None, keep: str | None = None, message: str = SESSION_INVALID
    ) -> None:
        """Sessions of `user_id` ended (one, `session_id`, or all but `keep`): close their open sockets on every
        process now, rather than when they next reconnect (docs/security.md, sessions). Call it after the commit,
        so a reconnect meets the ended sessions."""
        await self._bus.publish(SESSIONS_ENDED, SessionsEnded(user_id, session_id, keep, message))

    async def _close_user_sockets(self, event: SessionsEnded) -> None:
        user_id, session_id, keep = event.user_id, event.session_id, event.keep
        targets = [
            socket
            for socket in self._sockets.get(user_id, ())
            if (session_id is None or self._session_of.get(socket) == session_id)
            and (keep is None or self._session_of.get(socket) != keep)
        ]
        for socket in targets:
            self.detach(user_id, socket)
        await self.close(targets, event.message or SESSION_INVALID)

    async def close(self, sockets: list[Socket], message: str) -> None:
        """Tell each socket why (`{"type": "auth", "message"}`), then close it with 4401."""
        text = msgspec.json.encode({"type": "auth", "message": message}).decode()  # messages.Auth
        results = await asyncio.gather(*(self._close(s, text) for s in sockets), return_exceptions=True)
        for result in results:
            if isinstance(result, Exception):
                log.debug("closing a socket of an ended session failed: %s", result)

    @staticmethod
    async def _close(socket: Socket, text: str) -> None:
        await socket.send_text(text)
        await socket.close(code=UNAUTHORIZED_CLOSE, reason="session ended")

    async def _deliver_staff(self, event: StaffPush) -> None:
        if not self._staff:
            return
        text = msgspec.json.encode(event.push).decode()
        targets = list(self._staff)
        results = await asyncio.gather(*(s.send_text(text) for s in targets), return_exceptions=True)
        for socket, result in zip(targets, results, strict=True):
            if isinstance(result, Exception):
                self._staff.discard(socket)

    async def _deliver(self, event: UserPush) -> None:
        if event.user_id in self._sockets:
            await self._send(event.user_id, msgspec.json.encode(event.push).decode())

    async def _deliver_many(self, event: UserPushes) -> None:
        for user_id in event.by_user.keys() & self._sockets.keys():
            raw = bytes(event.by_user[user_id])
            if b'"type":"peer_stats"' not in raw[:32]:
                await self._send(user_id, raw.decode())
                continue
            for socket in list(self._sockets.get(user_id, ())):
                await self._stats.offer(socket, self._sender(user_id, socket), raw)

    def _sender(self, user_id: str, socket: Socket) -> Send:
        """Sends one text to one socket; a socket that cannot take it is detached, as _send does."""

        async def send(text: str) -> None:
            try:
                await socket.send_text(text)
            except Exception:
                self.detach(user_id, socket)

        return send

    async def _send(self, user_id: str, text: str) -> None:
        sockets = self._sockets.get(user_id)
        if not sockets:
            return
        targets = list(sockets)
        results = await asyncio.gather(*(s.send_text(text) for s in targets), return_exceptions=True)
        for socket, result in zip(targets, results, strict=True):
            if isinstance(result, Exception):
                self.detach(user_id, socket)
