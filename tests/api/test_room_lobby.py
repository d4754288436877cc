"""The rooms' lobby ("Partidas en la sala") and who can hear whom, from the nodes' discovery reports: each room
shows its own members' games and nobody else's, to its users only (a stranger's read is a 404), pushed live;
an entry leaves 30 s after its last announcement and when its host leaves; a room's lobby is bounded."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import update

from controlplane.db import transaction, utcnow
from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms.lobby import ROOM_MAX, Lobby
from controlplane.domain.rooms.models import RoomMember
from controlplane.domain.servers.models import Server
from controlplane.services import Services
from protos import agent_pb2
from tests.api import test_rooms
from tests.api.test_rooms import ROOMS, create, join, node_answers

world = test_rooms.world  # the fixture: Ana, Beto and Caro with peers on two room servers


def game(peer: Peer, name: str = "Mundo de Ana", port: int = 51234, kind: str = "minecraft", ago: int = 0) -> Any:
    return agent_pb2.DiscoveredGame(
        sender=peer.address, key=f"{kind}:{port}::{name}", game=kind, name=name, port=port,
        players=-1, max_players=-1, seconds_ago=ago,
    )  # fmt: skip


async def report(
    services: Services, server: Server, games: list[Any], senders: dict[Peer, int] | None = None, now: float = 0
) -> None:
    """What the servicer does with a node's DiscoveryReport."""
    message = agent_pb2.DiscoveryReport(
        games=games,
        senders=[agent_pb2.DiscoverySender(address=p.address, packets=n) for p, n in (senders or {}).items()],
    )
    async with transaction(services.sessionmaker) as db:
        await Lobby(services.hub, services.rooms.view).record(db, server.id, message, now or time.time())


async def room_view(client: AsyncTestClient[Any], who: Any, room_id: str) -> Any:
    answer = await client.get(f"{ROOMS}/{room_id}", headers=who.headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_a_rooms_lobby_shows_its_members_games_to_its_users_only(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, caro, peers = world["ana"], world["beto"], world["caro"], world["peers"]
    lan = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", lan["password"], peers["beto1"])).status_code == 200
    other = await create(client, caro, "Otra", peers["caro1"])  # Caro's room, on Ana's server
    await node_answers(services)
    for who in (ana, beto, caro):
        who.inbox.clear()

    # Nobody has sent a thing: every member shows "none since it joined".
    view = await room_view(client, ana, lan["id"])
    assert view["lobby"] == []
    assert [(p["name"], p["heard_packets"], p["heard_seconds_ago"]) for p in view["peers"]] == [
        ("ana1", 0, None),
        ("beto1", 0, None),
    ]

    # Miami 1 hears Ana's Minecraft world and Caro's: each lands in its own room.
    await report(
        services,
        world["s1"],
        [game(peers["ana1"]), game(peers["caro1"], "Mundo de Caro", 40000)],
        {peers["ana1"]: 3, peers["caro1"]: 2},
    )
    await asyncio.sleep(0.05)
    view = await room_view(client, beto, lan["id"])
    assert [(g["game"], g["name"], g["user"], g["peer_name"], g["address"], g["port"]) for g in view["lobby"]] == [
        ("minecraft", "Mundo de Ana", "Ana", "ana1", "10.8.0.2", 51234)
    ]
    assert view["lobby"][0]["players"] is None and view["lobby"][0]["seen_seconds_ago"] == 0
    assert [(p["name"], p["heard_packets"]) for p in view["peers"]] == [("ana1", 3), ("beto1", 0)]
    assert view["peers"][1]["heard_seconds_ago"] is None  # Beto sent nothing: "ninguno desde que entró"
    theirs = await room_view(client, caro, other["id"])
    assert [g["name"] for g in theirs["lobby"]] == ["Mundo de Caro"]
    # Pushed live: Ana and Beto see Ana's world, Caro sees hers; nobody sees the other room's.
    assert [g["name"] for g in ana.inbox.of("updated_owner_party")[-1]["data"]["lobby"]] == ["Mundo de Ana"]
    assert [g["name"] for g in beto.inbox.of("updated_guest_party")[-1]["data"]["lobby"]] == ["Mundo de Ana"]
    assert {m["data"]["id"] for m in caro.inbox.messages if "data" in m} == {other["id"]}
    assert all(m["data"]["id"] == lan["id"] for m in ana.inbox.messages + beto.inbox.messages if "data" in m)

    # A stranger reads neither the room nor its lobby: 404 as for a missing room; the list does not show it.
    stranger = await client.get(f"{ROOMS}/{lan['id']}", headers=caro.headers)
    assert stranger.status_code == 404 and stranger.json()["code"] == "party_not_found"
    assert (await client.get(f"{ROOMS}/no-existe", headers=caro.headers)).status_code == 404
    caros = (await client.get(ROOMS, headers=caro.headers)).json()
    assert [r["id"] for r in caros["owned_partys"] + caros["guest_partys"]] == [other["id"]]

    # A report from a server Ana's peer is not placed on (the old side of a move) changes nothing.
    await report(services, world["s2"], [game(peers["ana1"], "Fantasma", 1)])
    assert [g["name"] for g in (await room_view(client, ana, lan["id"]))["lobby"]] == ["Mundo de Ana"]

    # The same world announced again refreshes the entry and pushes nothing.
    ana.inbox.clear()
    await report(services, world["s1"], [game(peers["ana1"])], {peers["ana1"]: 1})
    await asyncio.sleep(0.05)
    assert ana.inbox.messages == []


async def test_an_entry_leaves_30_s_after_its_last_announcement_and_with_its_host(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    lan = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", lan["password"], peers["beto1"])).status_code == 200
    await node_answers(services)
    async with services.sessionmaker.begin() as db:  # both joined a minute ago
        await db.execute(update(RoomMember).values(joined=utcnow() - timedelta(minutes=1)))
    now = time.time()
    await report(services, world["s1"], [game(peers["ana1"])], now=now - 20)
    await report(services, world["s2"], [game(peers["beto1"], "Quake de Beto", 27960, "quake3")], now=now)
    assert len((await room_view(client, ana, lan["id"]))["lobby"]) == 2

    # 31 s after Ana's last announcement (11 s after Beto's) her world is gone from the next push...
    beto.inbox.clear()
    await report(services, world["s2"], [], {peers["beto1"]: 1}, now=now + 11)
    await asyncio.sleep(0.05)
    pushed = beto.inbox.of("updated_guest_party")
    assert pushed and [g["name"] for g in pushed[-1]["data"]["lobby"]] == ["Quake de Beto"]
    # ...and from any read, even one no report came before.
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 11)
    assert [g["name"] for g in (await room_view(client, ana, lan["id"]))["lobby"]] == ["Quake de Beto"]
    monkeypatch.setattr(time, "time", real)

    # Beto's peer leaves the room: its game leaves the lobby at once (no waiting for the 30 s).
    left = await client.patch(
        f"{ROOMS}/{lan['id']}", json={"operation": "leave", "peer": peers["beto1"].id}, headers=beto.headers
    )
    assert left.status_code == 200, left.text
    await node_answers(services)
    assert (await room_view(client, ana, lan["id"]))["lobby"] == []
    # Beto joins again: what he announced before does not come back, and he starts from "none since it joined".
    assert (await join(client, beto, "LAN", lan["password"], peers["beto1"])).status_code == 200
    view = await room_view(client, ana, lan["id"])
    assert view["lobby"] == [] and view["peers"][1]["heard_seconds_ago"] is None


async def test_a_rooms_lobby_is_bounded(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, peers = world["ana"], world["peers"]
    lan = await create(client, ana, "LAN", peers["ana1"])
    await node_answers(services)
    flood = [game(peers["ana1"], f"juego {i}", 1000 + i, "other") for i in range(ROOM_MAX * 3)]
    await report(services, world["s1"], flood)
    assert len((await room_view(client, ana, lan["id"]))["lobby"]) == ROOM_MAX
    # Unknown kinds and hostile fields are dropped or cut, never stored as sent.
    odd = agent_pb2.DiscoveredGame(sender=peers["ana1"].address, key="x", game="<script>", name="n")
    await report(services, world["s1"], [odd])
    assert all(g["game"] == "other" for g in (await room_view(client, ana, lan["id"]))["lobby"])
