"""Fairness between rooms under the discovery relay's node budget, on a real node (tests/agent/test_relay.py's
world: wireguard-go here, kernel WireGuard in the VM): a room flooding past its share of the budget does not
silence another room, nor its own members in their other rooms; a room alone on the node has the whole budget.

Rooms: "lan" = A + B, "lan2" = B + C. A floods "lan"; C and B announce at a LAN game's pace in "lan2".
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from discovery import Listener, RelayWorld, relay_world, send, send_bytes, settle, snapshot
from netns import Namespace

from node_agent.relay import RelayLimits, room_share
from protos import agent_pb2

GAME_PORT = 27015
# Per sender: far above the flood, so only the shares and the budget can cut it. The node: 100 copies/s, burst 200;
# a minimum share of 10, so two rooms get 50 copies/s each (burst 100) and a room alone all 100.
LIMITS = RelayLimits(
    packets_per_second=5000,
    bytes_per_second=5_000_000,
    budget_packets_per_second=100,
    room_share_min_packets_per_second=10,
)
TWO_ROOMS = [
    agent_pb2.RoomSpec(id="lan", members=["10.67.0.2", "10.67.0.3"]),
    agent_pb2.RoomSpec(id="lan2", members=["10.67.0.3", "10.67.0.4"]),
]


@pytest.fixture
async def world(backend_kind: str, tmp_path: Path) -> AsyncIterator[RelayWorld]:
    async with relay_world(backend_kind, tmp_path, LIMITS) as made:
        result = await made.agent.handle_full_state(snapshot(made, TWO_ROOMS, 2))
        assert result.result.ok, result.result.error
        yield made


def counter(server: Namespace, name: str) -> int:
    out = server.run(["nft", "list", "counter", "netdev", "vpn_relay", name]).stdout
    return int(out.split("packets ")[1].split()[0])


def limit(server: Namespace, name: str) -> str:
    return server.run(["nft", "list", "limit", "netdev", "vpn_relay", name]).stdout


async def heard(sender: Namespace, address: str, listener: Listener, prefix: str) -> None:
    async def once() -> bool:
        await asyncio.to_thread(send, sender, "255.255.255.255", GAME_PORT, prefix, 1)
        return bool(listener.from_(address, prefix))

    for _ in range(30):
        if await once():
            return
        await asyncio.sleep(0.3)
    raise AssertionError(f"{address}'s {prefix!r} never arrived")


def flood(ns: Namespace, prefix: str, count: int) -> None:
    """`count` broadcasts from one process, a millisecond apart: about a thousand a second, twenty times the room's
    share and ten times the node's budget, yet little enough that wireguard-go itself loses none of the other
    rooms' packets behind them (a flood as fast as Python can send does, before nft sees them)."""
    send_bytes(ns, "255.255.255.255", GAME_PORT, prefix.encode(), count, 0, 0.001)


async def test_a_room_flooding_past_its_share_leaves_the_other_room_its_announcements(world: RelayWorld) -> None:
    a, b, c = (world.clients[n] for n in "ABC")
    assert room_share(LIMITS, 2)[0] == 50
    assert "rate over 50/second burst 100 packets" in limit(world.server, "room_lan_packets")
    at_b, at_c = Listener(b.ns, GAME_PORT), Listener(c.ns, GAME_PORT)
    try:
        await heard(a.ns, a.address, at_b, "hi")
        await heard(c.ns, c.address, at_b, "hi")
        await heard(b.ns, b.address, at_c, "hi")
        settle(2.5)  # shares and budget refill to their bursts
        relayed_a_before = counter(world.server, "relayed_10_67_0_2")
        sent = 3000
        started = time.monotonic()
        flooding = asyncio.create_task(asyncio.to_thread(flood, a.ns, "floodA", sent))
        await asyncio.sleep(0.5)  # A's share is spent: from here on "lan" only gets its rate
        # A LAN game's pace in "lan2": an announcement every 0.1 s for 2 s, from C (to B) and from B (to C).
        # B is also in the flooded room: its "lan" part is refused with A's, its "lan2" part is not.
        await asyncio.gather(
            asyncio.to_thread(send_bytes, c.ns, "255.255.255.255", GAME_PORT, b"gameC", 20, 0, 0.1),
            asyncio.to_thread(send_bytes, b.ns, "255.255.255.255", GAME_PORT, b"gameB", 20, 0, 0.1),
        )
        assert not flooding.done(), "the flood ended before the other room's announcements did"
        await flooding
        elapsed = time.monotonic() - started
        settle(1.5)
        from_a = len(at_b.from_(a.address, "floodA"))
        # The flood was real (well past the budget), and "lan" got no more than its share: burst 100 + 50/s.
        assert sent >= 400 * elapsed, (sent, elapsed)
        assert from_a <= 100 + 50 * elapsed + 10, (from_a, elapsed)
        assert from_a >= 50, from_a
        assert counter(world.server, "share_lan") >= sent // 2, (counter(world.server, "share_lan"), sent)
        # "lan2" kept every announcement: its own share untouched, and the node's budget never ran out (A's share
        # refused the flood before it drew a copy from the budget).
        assert len(at_b.from_(c.address, "gameC")) == 20
        assert len(at_c.from_(b.address, "gameB")) == 20
        assert counter(world.server, "share_lan2") == 0
        assert counter(world.server, "budget_dropped") == 0
        relayed_a = counter(world.server, "relayed_10_67_0_2") - relayed_a_before
        assert relayed_a == from_a
    finally:
        at_b.stop()
        at_c.stop()


async def test_a_room_alone_on_the_node_has_the_whole_budget(world: RelayWorld) -> None:
    a, b = world.clients["A"], world.clients["B"]
    # "lan2" goes: "lan" is the only room relaying here, and its share is the node's budget.
    result = await world.agent.handle_full_state(snapshot(world, TWO_ROOMS[:1], 3))
    assert result.result.ok, result.result.error
    assert "rate over 100/second burst 200 packets" in limit(world.server, "room_lan_packets")
    at_b = Listener(b.ns, GAME_PORT)
    try:
        await heard(a.ns, a.address, at_b, "hi")
        settle(2.5)
        started = time.monotonic()
        await asyncio.to_thread(send, a.ns, "255.255.255.255", GAME_PORT, "floodA", 3000)
        flooding = time.monotonic() - started
        settle(1.5)
        from_a = len(at_b.from_(a.address, "floodA"))
        # More than the half it had beside "lan2" (burst 100 + 50/s), no more than the budget (burst 200 + 100/s).
        assert 100 + 50 * flooding + 20 < from_a <= 200 + 100 * flooding + 10, (from_a, flooding)
        # The share and the budget are the same size: either may be the one that refused the rest.
        dropped = counter(world.server, "share_lan") + counter(world.server, "budget_dropped")
        assert dropped >= 200, dropped
    finally:
        at_b.stop()
