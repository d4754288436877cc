"""The discovery relay on a real node (wireguard-go here, kernel WireGuard in the VM): a room member's broadcast
and multicast reach the other members as unicast from its tunnel address, nobody else, and a flood is cut.

Server namespace: NodeAgent (messages fed directly) with the backend under test and nftables. Three client
namespaces, each a WireGuard device of the same kind with the server as its only peer (AllowedIPs 0.0.0.0/0 and a
default route through the tunnel, as the downloaded configuration does).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from discovery import Listener, RelayWorld, relay_world, send, settle, snapshot
from netns import Namespace, wait_for

from node_agent.relay import RelayLimits
from protos import agent_pb2

GAME_PORT = 27015
MINECRAFT_GROUP, MINECRAFT_PORT = "224.0.2.60", 4445


def room(*members: str) -> agent_pb2.RoomSpec:
    return agent_pb2.RoomSpec(id="lan", members=list(members))


@pytest.fixture
async def world(backend_kind: str, tmp_path: Path) -> AsyncIterator[RelayWorld]:
    async with relay_world(backend_kind, tmp_path, RelayLimits(20, 65536)) as made:
        yield made


def relay_counter(server: Namespace, name: str) -> int:
    out = server.run(["nft", "list", "counter", "netdev", "vpn_relay", name]).stdout
    return int(out.split("packets ")[1].split()[0])


async def test_room_members_get_each_others_discovery_and_nobody_else_does(world: RelayWorld) -> None:
    a, b, c = (world.clients[n] for n in "ABC")
    listeners = {n: Listener(world.clients[n].ns, GAME_PORT) for n in "ABC"}
    minecraft = {n: Listener(world.clients[n].ns, MINECRAFT_PORT) for n in "BC"}
    try:
        # Counter-Strike's LAN browser (limited broadcast), a subnet broadcast, Minecraft's LAN world announcement.
        await asyncio.to_thread(send, a.ns, "255.255.255.255", GAME_PORT, "cs", 3)
        await asyncio.to_thread(send, a.ns, "10.67.0.255", GAME_PORT, "subnet", 1)
        await asyncio.to_thread(send, a.ns, MINECRAFT_GROUP, MINECRAFT_PORT, "[MOTD]mundo[/MOTD]", 1)
        await asyncio.to_thread(
            wait_for, lambda: len(listeners["B"].from_(a.address, "cs")) == 3, 10, 0.1, "B hearing A's broadcasts"
        )
        await asyncio.to_thread(
            wait_for, lambda: minecraft["B"].from_(a.address, "[MOTD]"), 10, 0.1, "B hearing A's LAN world"
        )
        assert listeners["B"].from_(a.address, "subnet") == ["subnet0"]
        # B answers the same way; A hears it.
        await asyncio.to_thread(send, b.ns, "255.255.255.255", GAME_PORT, "reply", 1)
        await asyncio.to_thread(
            wait_for, lambda: listeners["A"].from_(b.address, "reply"), 10, 0.1, "A hearing B's broadcast"
        )
        # C shares no room: it hears nothing, and its own broadcast reaches nobody.
        await asyncio.to_thread(send, c.ns, "255.255.255.255", GAME_PORT, "outsider", 2)
        settle()
        # (A sender's own stack hears its broadcast: that is local, the relay sends nothing back.)
        assert [p for p in listeners["C"].packets if p[0] != c.address] == [] and minecraft["C"].packets == []
        assert listeners["A"].with_prefix("outsider") == [] and listeners["B"].with_prefix("outsider") == []
        assert len(listeners["A"].from_(a.address, "cs")) <= 3

        # B leaves the room (a delta, as the control plane sends it): A's broadcasts stop reaching B at once.
        left = await world.agent.handle_delta(
            agent_pb2.Delta(operation_id="leave", serial=2, upsert_rooms=[room("10.67.0.2")])
        )
        assert left.result.ok
        await asyncio.to_thread(send, a.ns, "255.255.255.255", GAME_PORT, "after", 3)
        settle()
        assert listeners["B"].with_prefix("after") == []
    finally:
        for listener in (*listeners.values(), *minecraft.values()):
            listener.stop()


async def test_a_broadcast_flood_is_cut_at_the_members_limit(world: RelayWorld) -> None:
    a, b = world.clients["A"], world.clients["B"]
    listener = Listener(b.ns, GAME_PORT)
    try:
        # 2 000 packets in well under a second; the limit is 20/s with a burst of 40.
        await asyncio.to_thread(send, a.ns, "255.255.255.255", GAME_PORT, "flood", 2000)
        settle(1.5)
        received = len(listener.from_(a.address, "flood"))
        assert 20 <= received <= 120, received
        # What reached the server past the limit was dropped there (wireguard-go's queues shed some on the way).
        limited = relay_counter(world.server, "limited_10_67_0_2")
        assert limited >= 4 * received, (limited, received)
        assert relay_counter(world.server, "relayed_10_67_0_2") == received
        # The flood does not stop discovery for good: a packet a second later passes again.
        await asyncio.to_thread(send, a.ns, "255.255.255.255", GAME_PORT, "later", 1)
        await asyncio.to_thread(
            wait_for, lambda: listener.from_(a.address, "later"), 10, 0.1, "B hearing A after the flood"
        )
    finally:
        with contextlib.suppress(Exception):
            listener.stop()


async def test_a_recreated_interface_gets_the_relay_back_with_the_next_snapshot(world: RelayWorld) -> None:
    # nft bound the relay to the old interface's index: the snapshot after a restart of the device rewrites it,
    # although rooms and addresses are the same as before.
    a, b = world.clients["A"], world.clients["B"]
    await world.agent.backend.delete_interface()
    result = await world.agent.handle_full_state(snapshot(world, [room("10.67.0.2", "10.67.0.3")], 5))
    assert result.result.ok, result.result.error
    for client in (a, b):  # the clients' sessions died with the device: they handshake again
        await asyncio.to_thread(
            wait_for, lambda c=client: c.ns.ping("10.67.0.1", 1, 1), 40, 0.2, f"{client.ns.name}'s tunnel back"
        )
    listener = Listener(b.ns, GAME_PORT)
    try:

        def heard() -> bool:
            send(a.ns, "255.255.255.255", GAME_PORT, "back", 1)
            return bool(listener.from_(a.address, "back"))

        await asyncio.to_thread(wait_for, heard, 20, 0.3, "B hearing A on the recreated interface")
    finally:
        listener.stop()
