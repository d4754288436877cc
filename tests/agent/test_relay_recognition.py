"""The rooms' lobby on one real node (wireguard-go here, kernel WireGuard in the VM): the agent process recognizes
its room members' announcements from the NFLOG chain in front of the relay (table `netdev vpn_discovery`) and
reports summaries, while the relay behind it delivers the same packets as before; and what becomes of that table
when the agent stops cleanly, crashes, restarts, or restarts with recognition off.

World: tests/netns/discovery.py's lobby_world: `python -m node_agent` in the node's namespace fed by an in-test
control plane (tests/netns/agent_fake_control.py); clients A and B share room "lan", C is in none.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from discovery import SLOWER, Listener, LobbyWorld, lobby_world, send_bytes
from netns import wait_for

from node_agent.relay import RelayLimits
from protos import agent_pb2
from tests.unit.agent import discovery_samples as sample

MINECRAFT_GROUP, MINECRAFT_PORT = "224.0.2.60", 4445
SOURCE_PORT = 27015
DISCOVERY_TABLE = "netdev vpn_discovery"


@pytest.fixture
async def world(backend_kind: str, tmp_path: Path) -> AsyncIterator[LobbyWorld]:
    async with lobby_world(backend_kind, tmp_path, RelayLimits()) as made:
        yield made


def games(reports: list[agent_pb2.DiscoveryReport]) -> set[tuple[str, str, str, int, int, int]]:
    """(sender, game, name, port, players, max players) of every game reported."""
    return {(g.sender, g.game, g.name, g.port, g.players, g.max_players) for r in reports for g in r.games}


def senders(reports: list[agent_pb2.DiscoveryReport]) -> set[str]:
    return {s.address for r in reports for s in r.senders}


async def reported(world: LobbyWorld, sender: str, announce: bytes, within: float = 30 * SLOWER) -> None:
    """A announces `announce` (a Minecraft world) every half second until this stream's reports carry it."""
    a = world.clients["A"]

    def heard() -> bool:
        send_bytes(a.ns, MINECRAFT_GROUP, MINECRAFT_PORT, announce)
        return any(g[0] == sender and g[1] == "minecraft" for g in games(world.session.discovery))

    await asyncio.to_thread(wait_for, heard, within, 0.5, f"{sender}'s world in this stream's reports")


async def test_members_games_reach_the_lobby_and_the_relay_still_delivers_them(world: LobbyWorld) -> None:
    a, b, c = (world.clients[n] for n in "ABC")
    minecraft = Listener(b.ns, MINECRAFT_PORT)
    try:
        # C (in no room) opens a world too, and A sends a cut and a hostile announcement on Minecraft's port.
        send_bytes(c.ns, MINECRAFT_GROUP, MINECRAFT_PORT, sample.minecraft("Mundo de Caro", 40000), 3)
        send_bytes(a.ns, MINECRAFT_GROUP, MINECRAFT_PORT, b"[MOTD]roto[/MOT", 3)
        send_bytes(a.ns, MINECRAFT_GROUP, MINECRAFT_PORT, b"[MOTD]x[/MOTD][AD]99999[/AD]", 3)
        await reported(world, a.address, sample.minecraft("Mundo de Ana", 51234))
        # B's Counter-Strike server answers A's LAN query unicast, from its game port: recognized too.
        await asyncio.to_thread(
            wait_for,
            lambda: (
                send_bytes(b.ns, a.address, 27005, sample.source("CS de Beto"), source_port=SOURCE_PORT),
                any(g[1] == "source" for g in games(world.session.discovery)),
            )[1],
            20 * SLOWER,
            0.5,
            "B's Source server in the reports",
        )
        await asyncio.sleep(1.0)  # the next report, had anything else been recognized
        assert games(world.session.discovery) == {
            (a.address, "minecraft", "Mundo de Ana", 51234, -1, -1),
            (b.address, "source", "CS de Beto", SOURCE_PORT, 5, 16),
        }
        assert c.address not in senders(world.session.discovery), "C is in no room: the lobby never hears it"
        # The chain in front of the relay takes nothing from it: B got A's announcements, from A's address.
        assert minecraft.from_(a.address, "[MOTD]Mundo de Ana")
        assert minecraft.from_(c.address, "") == []
    finally:
        minecraft.stop()


@pytest.mark.parametrize("backend_kind", ["userspace"], indirect=True)
async def test_the_discovery_table_goes_with_a_clean_stop_and_a_crashed_ones_is_replaced(world: LobbyWorld) -> None:
    # The table's only reader is the agent: nothing of it depends on the backend, so wireguard-go alone here.
    a, b = world.clients["A"], world.clients["B"]
    world_name = sample.minecraft("Mundo de Ana", 51234)
    await reported(world, a.address, world_name)
    assert DISCOVERY_TABLE in world.tables()
    rules = world.server.run(["nft", "list", "table", *DISCOVERY_TABLE.split()]).stdout

    # A crash cannot clean up: the table stays. The next start replaces it (one table, the same rules) and its
    # capture hears A again on the new stream.
    await asyncio.to_thread(world.agent.kill)
    assert DISCOVERY_TABLE in world.tables()
    await world.restarted()
    await reported(world, a.address, world_name)
    assert world.tables().count(DISCOVERY_TABLE) == 1
    assert world.server.run(["nft", "list", "table", *DISCOVERY_TABLE.split()]).stdout == rules

    # A clean stop removes it and leaves the data plane: room rules and relay stay, and B still hears A's
    # broadcasts while no agent runs.
    assert await asyncio.to_thread(world.agent.stop) == 0
    assert DISCOVERY_TABLE not in world.tables()
    assert {"inet vpn_node", "netdev vpn_relay"} <= set(world.tables())
    listener = Listener(b.ns, SOURCE_PORT)
    try:
        await asyncio.to_thread(
            wait_for,
            lambda: (send_bytes(a.ns, "255.255.255.255", SOURCE_PORT, b"query"), listener.from_(a.address, "q"))[1],
            10,
            0.3,
            "B hearing A's broadcast with the agent stopped",
        )
    finally:
        listener.stop()

    # A table a crash left behind, then a start with recognition off (VPN_NODE_DISCOVERY_INTERVAL=0): the table
    # goes with the first snapshot and nothing is reported.
    await world.restarted()
    await reported(world, a.address, world_name)
    await asyncio.to_thread(world.agent.kill)
    world.agent.env["VPN_NODE_DISCOVERY_INTERVAL"] = "0"
    await world.restarted()
    assert DISCOVERY_TABLE not in world.tables()
    await asyncio.to_thread(send_bytes, a.ns, MINECRAFT_GROUP, MINECRAFT_PORT, world_name, 4, gap=0.5)
    await asyncio.sleep(1.0)  # four report intervals, had the agent still been recognizing
    assert world.session.discovery == []
    assert await asyncio.to_thread(world.agent.stop) == 0
    assert DISCOVERY_TABLE not in world.tables()

    # nft refusing at the stop: the agent says so and stops cleanly all the same; the next start replaces the table.
    refused = world.agent.workdir / "nft-refuses"
    wrapper = world.agent.workdir / "bin" / "nft"
    wrapper.parent.mkdir()
    wrapper.write_text(
        f'#!/bin/sh\n[ -e {refused} ] && {{ echo "nft: refused" >&2; exit 1; }}\nexec {shutil.which("nft")} "$@"\n'
    )
    wrapper.chmod(0o755)
    world.agent.env["PATH"] = f"{wrapper.parent}:{world.agent.env['PATH']}"
    world.agent.env["VPN_NODE_DISCOVERY_INTERVAL"] = "0.5"
    await world.restarted()
    await reported(world, a.address, world_name)
    refused.touch()
    assert await asyncio.to_thread(world.agent.stop) == 0
    assert "the discovery table stays behind" in world.agent.log()
    assert DISCOVERY_TABLE in world.tables()
    refused.unlink()
    await world.restarted()
    assert world.tables().count(DISCOVERY_TABLE) == 1
    assert await asyncio.to_thread(world.agent.stop) == 0
    assert DISCOVERY_TABLE not in world.tables()
