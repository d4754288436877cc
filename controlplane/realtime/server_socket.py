"""uvicorn's WebSocket protocol (websockets-sansio), keeping less for each open socket.

Every open browser socket is one of these for as long as the page stays open (10 000 per process is the target,
docs/benchmarks.md "Reconnect storms"). uvicorn's class keeps the upgrade's parsed request and the 101 answer (two
header tables) after the handshake, and an `asyncio.Queue` (three deques and an `Event`, about 3 kB) plus an
`Event` for the write buffer: together about a quarter of what a socket costs, and objects every full garbage
collection walks. This subclass drops the handshake's request and answer once the answer is sent, and uses a
one-reader inbox and a flag without deques. Behaviour is uvicorn's own (the class is pinned by uv.lock;
tests/unit/test_server_socket.py checks what it relies on, and every test that opens a socket on a real
`python -m controlplane serve` runs through it).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class Inbox:
    """The events uvicorn hands the app, for one reader (the app's `receive`, which ASGI calls one at a time)."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    async def get(self) -> Any:
        while not self._items:
            if self._waiter is not None:
                raise RuntimeError("a socket's events have one reader")
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)


class Flag:
    """`asyncio.Event` for the write buffer (set: writable), whose waiters list exists only while one waits."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = True
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> None:
        if self._set:
            return
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = Inbox()  # type: ignore[assignment]
        self.writable = Flag()  # type: ignore[assignment]

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept":
            # Kept by uvicorn only to build the scope and to send the 101 answer, both done now.
            self.request = None  # type: ignore[assignment]
            self.response = None  # type: ignore[assignment]
