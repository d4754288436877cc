"""How often one browser hears its peers' live figures (`peer_stats`), and nothing while its tab is hidden.

A node reports a peer that moves traffic every 5 s; pushed as it comes, an open Peers page cost a customer about
135 KiB an hour of mobile data, and as much with the tab hidden (docs/benchmarks.md, "Session 15"). Each socket
now gets at most one `peer_stats` a minute: what comes in between is held, the newest line per peer winning (the
figures are totals and timestamps, so the newest says everything the others said), and sent when the minute is up.
A newer handshake than the socket has seen goes at once: "connected again" is news, a counter that grew is not.

A page whose tab is hidden says `{"type": "pause"}`; the lines are held until it says `{"type": "resume"}`, and
then sent at once, so the page is current when it is looked at again. Other pushes (operations, rooms) are not
held: they are rare and each is something the customer did or must know.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

STATS_EVERY_SECONDS = 60.0

Send = Callable[[str], Awaitable[None]]


@dataclass(slots=True)
class _Gate:
    send: Send
    last_sent: float = -math.inf
    newest_handshake: int = 0
    paused: bool = False
    held: dict[str, dict[str, Any]] = field(default_factory=dict)  # peer id -> its newest line
    timer: asyncio.TimerHandle | None = None


class StatsGate:
    """The `peer_stats` of each socket: sent, held for later, or held while its page is hidden."""

    def __init__(self, every: float = STATS_EVERY_SECONDS) -> None:
        self._every = every
        self._gates: dict[object, _Gate] = {}
        self._flushing: set[asyncio.Task[None]] = set()

    def forget(self, socket: object) -> None:
        gate = self._gates.pop(socket, None)
        if gate is not None and gate.timer is not None:
            gate.timer.cancel()

    def is_paused(self, socket: object) -> bool:
        gate = self._gates.get(socket)
        return gate is not None and gate.paused

    def pause(self, socket: object, send: Send) -> None:
        gate = self._gate(socket, send)
        gate.paused = True
        if gate.timer is not None:
            gate.timer.cancel()
            gate.timer = None

    async def resume(self, socket: object, send: Send) -> None:
        gate = self._gate(socket, send)
        gate.paused = False
        if gate.held:
            await self._send(gate)

    async def offer(self, socket: object, send: Send, raw: bytes) -> None:
        """One `peer_stats` push (its JSON) for `socket`: sent now, or held."""
        gate = self._gate(socket, send)
        lines = msgspec.json.decode(raw).get("data", {}).get("peers", [])
        newer = any(int(line.get("latest_handshake") or 0) > gate.newest_handshake for line in lines)
        for line in lines:
            gate.held[str(line.get("id"))] = line
        if gate.paused:
            return
        loop = asyncio.get_running_loop()
        if newer or loop.time() - gate.last_sent >= self._every:
            await self._send(gate)
        elif gate.timer is None:
            gate.timer = loop.call_later(gate.last_sent + self._every - loop.time(), self._flush_later, socket)

    def _gate(self, socket: object, send: Send) -> _Gate:
        gate = self._gates.get(socket)
        if gate is None:
            gate = self._gates[socket] = _Gate(send)
        return gate

    def _flush_later(self, socket: object) -> None:
        gate = self._gates.get(socket)
        if gate is None:
            return
        gate.timer = None
        if gate.paused or not gate.held:
            return
        task = asyncio.get_running_loop().create_task(self._send(gate))
        self._flushing.add(task)
        task.add_done_callback(self._flushing.discard)

    async def _send(self, gate: _Gate) -> None:
        if gate.timer is not None:
            gate.timer.cancel()
            gate.timer = None
        lines = list(gate.held.values())
        gate.held = {}
        gate.last_sent = asyncio.get_running_loop().time()
        handshakes = (int(line.get("latest_handshake") or 0) for line in lines)
        gate.newest_handshake = max(gate.newest_handshake, *handshakes, 0)
        await gate.send(msgspec.json.encode({"type": "peer_stats", "data": {"peers": lines}}).decode())
