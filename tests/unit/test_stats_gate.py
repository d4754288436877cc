"""The stats gate's minute (realtime/stats_gate.py), shortened: what is held is sent when the window ends, not
before, and not while the page is hidden."""

from __future__ import annotations

import asyncio
import json

import msgspec

from controlplane.realtime.stats_gate import StatsGate


def _push(rx: int) -> bytes:
    line = {"id": "p1", "latest_handshake": 1_700_000_000, "rx_bytes": rx, "tx_bytes": 0}
    return msgspec.json.encode({"type": "peer_stats", "data": {"peers": [line]}})


async def test_what_is_held_goes_when_the_window_ends() -> None:
    sent: list[int] = []

    async def send(text: str) -> None:
        sent.append(json.loads(text)["data"]["peers"][0]["rx_bytes"])

    gate, socket = StatsGate(every=0.3), object()
    await gate.offer(socket, send, _push(1))
    await gate.offer(socket, send, _push(2))
    await gate.offer(socket, send, _push(3))
    assert sent == [1]
    await asyncio.sleep(0.45)
    assert sent == [1, 3]  # the newest of what came in the window, once


async def test_a_hidden_page_gets_nothing_when_the_window_ends() -> None:
    sent: list[str] = []

    async def send(text: str) -> None:
        sent.append(text)

    gate, socket = StatsGate(every=0.2), object()
    await gate.offer(socket, send, _push(1))
    await gate.offer(socket, send, _push(2))
    gate.pause(socket, send)
    await asyncio.sleep(0.35)
    assert len(sent) == 1
    await gate.resume(socket, send)
    assert [json.loads(t)["data"]["peers"][0]["rx_bytes"] for t in sent] == [1, 2]
    gate.forget(socket)
