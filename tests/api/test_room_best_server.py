"""The room's best server (docs/rooms.md): where the members are, the server recommended for the group and why, and
the owner's one-action move of their own peers there, with its one result."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select, update

from controlplane.db import transaction, utcnow
from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms.best_server import RTT_FRESH_SECONDS
from controlplane.domain.rooms.models import RoomMember
from controlplane.domain.servers.models import Server
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.services import Services
from protos import agent_pb2
from tests.api.factories import make_peer, make_server
from tests.api.test_rooms import ROOMS, Person, agent_stream, create, join, node_answers, person


async def placed_at(services: Services, server: Server, ubication: str, capacity: int | None = None) -> None:
    async with transaction(services.sessionmaker) as db:
        stored = await db.get_one(Server, server.id)
        stored.ubication = ubication
        if capacity is not None:
            stored.capacity = capacity


@pytest.fixture
async def group(services: Services, client: AsyncTestClient[Any]) -> dict[str, Any]:
    """Ana (owner) with two peers on Miami 1, Beto (guest) with one on Madrid 1; Miami 2 empty; all online."""
    miami = await make_server(services, "Miami 1", "10.8.0.0/24")
    madrid = await make_server(services, "Madrid 1", "10.9.0.0/24")
    miami2 = await make_server(services, "Miami 2", "10.10.0.0/24")
    await placed_at(services, madrid, "Madrid")
    ana = await person(services, client, "ana")
    beto = await person(services, client, "beto")
    peers = {
        "ana1": await make_peer(services, ana.user, "ana1", miami),
        "ana2": await make_peer(services, ana.user, "ana2", miami),
        "beto1": await make_peer(services, beto.user, "beto1", madrid),
    }
    await node_answers(services)
    room = await create(client, ana, "LAN", peers["ana1"])
    for who, name in ((ana, "ana2"), (beto, "beto1")):
        assert (await join(client, who, "LAN", room["password"], peers[name])).status_code == 200
    await node_answers(services)
    return {"miami": miami, "madrid": madrid, "miami2": miami2, "ana": ana, "beto": beto, "peers": peers, "room": room}


async def placement(client: AsyncTestClient[Any], who: Person, room: dict[str, Any]) -> dict[str, Any]:
    answer = await client.get(f"{ROOMS}/{room['id']}/servers", headers=who.headers)
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def room_results(who: Person) -> list[dict[str, Any]]:
    """The notices about the room (the move's one result); each peer's own outcome stays on its card."""
    return [m for m in who.inbox.messages if m["type"] in ("success", "info", "error") and "party_id" in m["data"]]


def toasts(who: Person) -> list[tuple[str, str | None]]:
    """Every push the web client shows as a toast (webui RealtimeProvider's generic notices, and a peer push's own
    words on the peers page): what the customer reads, wherever they are."""
    return [
        (m["type"], m.get("message"))
        for m in who.inbox.messages
        if m["type"] in ("success", "info", "error")
        or (m["type"] in ("created_peer", "updated_peer") and m.get("message"))
    ]


def peer_pushes(who: Person) -> dict[str, dict[str, Any]]:
    """The last `updated_peer` of each peer: what the peer list shows."""
    return {m["data"]["id"]: m["data"] for m in who.inbox.messages if m["type"] == "updated_peer"}


def servers_shown(shown: dict[str, Any]) -> list[tuple[str, int, bool, bool]]:
    return [(s["name"], s["members"], s["accepts_peers"], s["recommended"]) for s in shown["servers"]]


async def test_the_page_shows_where_members_are_and_recommends_the_server_holding_most(
    client: AsyncTestClient[Any], group: dict[str, Any]
) -> None:
    ana, beto, peers = group["ana"], group["beto"], group["peers"]
    shown = await placement(client, ana, group["room"])
    assert [(m["name"], m["server_name"], m["ubication"], m["mine"]) for m in shown["members"]] == [
        ("ana1", "Miami 1", "Miami", True),
        ("ana2", "Miami 1", "Miami", True),
        ("beto1", "Madrid 1", "Madrid", False),
    ]
    assert servers_shown(shown) == [
        ("Miami 1", 2, True, True),
        ("Madrid 1", 1, True, False),
        ("Miami 2", 0, True, False),
    ]
    assert shown["recommended"] == group["miami"].id
    assert shown["reason"].startswith("Miami 1 (Miami) ya tiene 2 de los 3 peers de la sala")
    assert shown["to_move"] == []  # Ana's peers are there already
    # Beto is told which of his peers to move (the suggestion on his page).
    assert (await placement(client, beto, group["room"]))["to_move"] == [peers["beto1"].id]


async def test_an_offline_server_is_shown_but_never_recommended(
    services: Services, client: AsyncTestClient[Any], group: dict[str, Any]
) -> None:
    await agent_stream(services, group["miami"], connected=False)
    shown = await placement(client, group["ana"], group["room"])
    assert servers_shown(shown) == [
        ("Miami 1", 2, False, False),
        ("Madrid 1", 1, True, True),
        ("Miami 2", 0, True, False),
    ]
    assert shown["to_move"] == [group["peers"]["ana1"].id, group["peers"]["ana2"].id]


async def test_a_full_server_is_passed_over_and_the_reason_says_so(
    services: Services, client: AsyncTestClient[Any], group: dict[str, Any]
) -> None:
    await placed_at(services, group["miami"], "Miami", capacity=2)  # its two peers fill it
    await placed_at(services, group["madrid"], "Madrid", capacity=1)
    shown = await placement(client, group["ana"], group["room"])
    assert shown["recommended"] == group["miami2"].id
    assert shown["reason"].startswith("Ningún servidor con peers de la sala puede recibir más ahora")
    assert "Otros 2 están en servidores de la misma ubicación." in shown["reason"]
    await agent_stream(services, group["miami2"], connected=False)
    shown = await placement(client, group["ana"], group["room"])
    assert shown["recommended"] is None
    assert shown["reason"].startswith("Ningún servidor con salas está en línea con plazas libres")


async def pending_moves(services: Services) -> list[NodeOperation]:
    async with services.sessionmaker() as db:
        rows = await db.execute(
            select(NodeOperation).where(
                NodeOperation.kind == OperationKind.CHANGE_SERVER, NodeOperation.status == OperationStatus.PENDING
            )
        )
        return list(rows.scalars())


async def servers_of(services: Services, *peers: Peer) -> list[str]:
    async with services.sessionmaker() as db:
        return [(await db.get_one(Server, (await db.get_one(Peer, p.id)).server_id)).name for p in peers]


async def test_the_owner_moves_all_their_peers_with_one_request_and_hears_one_result(
    services: Services, client: AsyncTestClient[Any], group: dict[str, Any]
) -> None:
    ana, beto, peers = group["ana"], group["beto"], group["peers"]
    ana.inbox.clear()
    answer = await client.post(
        f"{ROOMS}/{group['room']['id']}/move", json={"server": group["madrid"].id}, headers=ana.headers
    )
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert body["moving"] == [peers["ana1"].id, peers["ana2"].id] and body["refused"] == []
    assert body["message"].startswith("Moviendo 2 peers a Madrid 1 (Madrid)…")
    # Make before break: both still work where they are until the new node confirms.
    assert await servers_of(services, peers["ana1"], peers["ana2"]) == ["Miami 1", "Miami 1"]
    assert len(await pending_moves(services)) == 2
    await node_answers(services)
    await asyncio.sleep(0.05)
    assert await servers_of(services, peers["ana1"], peers["ana2"], peers["beto1"]) == ["Madrid 1"] * 3
    results = room_results(ana)
    assert [(m["type"], m["message"], m["data"]) for m in results] == [
        (
            "success",
            "2 de 2 peers pasaron a Madrid 1 (Madrid). Descargue de nuevo la configuración de «ana1» y «ana2».",
            {"party_id": group["room"]["id"]},
        )
    ]
    assert room_results(beto) == []
    # One toast in all: the moved peers' own pushes carry no words, only their new state for the list.
    assert toasts(ana) == [("success", results[0]["message"])]
    shown_peers = peer_pushes(ana)
    for name in ("ana1", "ana2"):
        assert shown_peers[peers[name].id]["server"]["name"] == "Madrid 1"
        assert shown_peers[peers[name].id]["processing"] is False
    shown = await placement(client, ana, group["room"])
    assert shown["recommended"] == group["madrid"].id and shown["reason"].startswith("Todos los peers de la sala")


async def test_one_move_failing_gives_one_partial_result(
    services: Services, client: AsyncTestClient[Any], group: dict[str, Any]
) -> None:
    ana, peers = group["ana"], group["peers"]
    ana.inbox.clear()
    answer = await client.post(
        f"{ROOMS}/{group['room']['id']}/move", json={"server": group["miami2"].id}, headers=ana.headers
    )
    assert answer.status_code == 202, answer.text
    by_peer = {op.peer_id: op.id for op in await pending_moves(services)}
    async with transaction(services.sessionmaker) as db:
        await services.operations.finish(db, by_peer[peers["ana1"].id], None)
    assert room_results(ana) == []  # one result, at the end
    async with transaction(services.sessionmaker) as db:
        await services.operations.finish(db, by_peer[peers["ana2"].id], "wireguard: device busy")
    await asyncio.sleep(0.05)
    results = room_results(ana)
    assert [(m["type"], m["message"]) for m in results] == [
        (
            "info",
            "1 de 2 peers pasaron a Miami 2 (Miami). Descargue de nuevo la configuración de «ana1». «ana2» no se movió"
            " (el servidor no pudo aplicar el cambio): sigue en su servidor y su configuración sigue funcionando.",
        )
    ]
    assert await servers_of(services, peers["ana1"], peers["ana2"]) == ["Miami 2", "Miami 1"]
    # The failed peer sends no error of its own beside the room's result (it used to: two messages, one failure).
    assert toasts(ana) == [("info", results[0]["message"])]
    shown_peers = peer_pushes(ana)
    assert shown_peers[peers["ana1"].id]["server"]["name"] == "Miami 2"
    assert shown_peers[peers["ana2"].id]["server"]["name"] == "Miami 1"
    assert not shown_peers[peers["ana2"].id]["processing"]
    # Its card still keeps its own outcome (a reload shows why it did not move).
    listed = (await client.get("/api/client/accounts/peers", headers=ana.headers)).json()
    (card,) = [p for p in listed if p["id"] == peers["ana2"].id]
    assert card["last_outcome"]["ok"] is False and "Miami 2" in card["last_outcome"]["message"]


async def test_a_guest_cannot_move_the_group_and_nothing_is_written(
    services: Services, client: AsyncTestClient[Any], group: dict[str, Any]
) -> None:
    answer = await client.post(
        f"{ROOMS}/{group['room']['id']}/move", json={"server": group["miami2"].id}, headers=group["beto"].headers
    )
    assert answer.status_code == 403 and answer.json()["code"] == "party_owner_only"
    assert "mueva los suyos uno a uno" in answer.json()["message"]
    assert await pending_moves(services) == []
    assert await servers_of(services, *group["peers"].values()) == ["Miami 1", "Miami 1", "Madrid 1"]


async def test_the_owner_moves_only_their_own_peers(
    services: Services, client: AsyncTestClient[Any], group: dict[str, Any]
) -> None:
    answer = await client.post(
        f"{ROOMS}/{group['room']['id']}/move", json={"server": group["miami2"].id}, headers=group["ana"].headers
    )
    assert answer.status_code == 202
    assert {op.peer_id for op in await pending_moves(services)} == {
        group["peers"]["ana1"].id,
        group["peers"]["ana2"].id,
    }
    await node_answers(services)
    assert await servers_of(services, *group["peers"].values()) == ["Miami 2", "Miami 2", "Madrid 1"]


async def test_an_offline_target_is_refused_with_a_clear_message_and_nothing_moves(
    services: Services, client: AsyncTestClient[Any], group: dict[str, Any]
) -> None:
    await agent_stream(services, group["madrid"], connected=False)
    answer = await client.post(
        f"{ROOMS}/{group['room']['id']}/move", json={"server": group["madrid"].id}, headers=group["ana"].headers
    )
    assert answer.status_code == 409
    assert answer.json()["code"] == "server_offline"
    assert answer.json()["message"] == (
        "El servidor Madrid 1 (Madrid) no está en línea ahora mismo. Sus peers siguen en sus servidores y su"
        " configuración actual sigue funcionando; elija otro o intente más tarde."
    )
    assert await pending_moves(services) == []


async def test_a_full_target_or_no_target_is_refused(
    services: Services, client: AsyncTestClient[Any], group: dict[str, Any]
) -> None:
    url = f"{ROOMS}/{group['room']['id']}/move"
    await placed_at(services, group["miami2"], "Miami", capacity=1)
    answer = await client.post(url, json={"server": group["miami2"].id}, headers=group["ana"].headers)
    assert (answer.status_code, answer.json()["code"]) == (409, "server_full")
    assert answer.json()["message"] == (
        "El servidor Miami 2 (Miami) no tiene plazas para sus 2 peers (quedan 1). Elija otro."
    )
    answer = await client.post(url, json={}, headers=group["ana"].headers)
    assert (answer.status_code, answer.json()["code"]) == (422, "server_required")
    answer = await client.post(url, json={"server": group["miami"].id}, headers=group["ana"].headers)
    assert (answer.status_code, answer.json()["message"]) == (409, "Sus peers de la sala ya están en Miami 1 (Miami).")
    assert await pending_moves(services) == []


async def test_a_target_that_never_answers_ends_the_move_with_one_error_naming_the_timeout(
    services: Services, client: AsyncTestClient[Any], group: dict[str, Any]
) -> None:
    ana, peers = group["ana"], group["peers"]
    ana.inbox.clear()
    answer = await client.post(
        f"{ROOMS}/{group['room']['id']}/move", json={"server": group["miami2"].id}, headers=ana.headers
    )
    assert answer.status_code == 202, answer.text
    async with transaction(services.sessionmaker) as db:  # the operation timeout passed with no answer
        await db.execute(
            update(NodeOperation)
            .where(NodeOperation.status == OperationStatus.PENDING)
            .values(created=utcnow() - timedelta(hours=1))
        )
    async with transaction(services.sessionmaker) as db:
        assert await services.operations.expire_overdue(db) >= 2
    await asyncio.sleep(0.05)
    assert [(m["type"], m["message"]) for m in room_results(ana)] == [
        (
            "error",
            "0 de 2 peers pasaron a Miami 2 (Miami). «ana1» no se movió (el servidor no respondió a tiempo): sigue"
            " en su servidor y su configuración sigue funcionando. «ana2» no se movió (el servidor no respondió a"
            " tiempo): sigue en su servidor y su configuración sigue funcionando.",
        )
    ]
    assert await servers_of(services, peers["ana1"], peers["ana2"]) == ["Miami 1", "Miami 1"]
    assert toasts(ana) == [("error", room_results(ana)[0]["message"])]


async def test_a_peers_own_move_still_tells_its_own_outcome(
    services: Services, client: AsyncTestClient[Any], group: dict[str, Any]
) -> None:
    """Outside a room move, a peer's change of server keeps its own words (the peers page's toast)."""
    ana, peers = group["ana"], group["peers"]
    ana.inbox.clear()
    answer = await client.patch(
        f"/api/client/accounts/peers/{peers['ana1'].id}",
        json={"operation": "change_server", "server": group["miami2"].id},
        headers=ana.headers,
    )
    assert answer.status_code == 202, answer.text
    (operation,) = await pending_moves(services)
    async with transaction(services.sessionmaker) as db:
        await services.operations.finish(db, operation.id, "wireguard: device busy")
    await asyncio.sleep(0.05)
    ((kind, message),) = toasts(ana)
    assert kind == "error" and message is not None and "ana1 sigue en el servidor Miami 1" in message


async def node_reports(services: Services, server: Server, *lines: tuple[Peer, int | None]) -> None:
    """One stats report of `server`'s agent: each peer connected now, with its round trip in µs (None = the line
    carries none, as from a device that drops echo or an agent older than round trips)."""
    now = int(time.time())
    peers = [
        agent_pb2.PeerStats(public_key=peer.public_key, latest_handshake=now, rtt_us=rtt)
        if rtt is not None
        else agent_pb2.PeerStats(public_key=peer.public_key, latest_handshake=now)
        for peer, rtt in lines
    ]
    await services.agent_sessions.stats(server.id, agent_pb2.StatsReport(serial=1, peers=peers))


@pytest.fixture
async def pair(services: Services, client: AsyncTestClient[Any]) -> dict[str, Any]:
    """Ana's ana1 on Miami 1 (which also holds a peer outside the room: more loaded), Beto's beto1 on Madrid 1."""
    miami = await make_server(services, "Miami 1", "10.8.0.0/24")
    madrid = await make_server(services, "Madrid 1", "10.9.0.0/24")
    await placed_at(services, madrid, "Madrid")
    ana = await person(services, client, "ana")
    beto = await person(services, client, "beto")
    ana1 = await make_peer(services, ana.user, "ana1", miami)
    await make_peer(services, ana.user, "fuera", miami)
    beto1 = await make_peer(services, beto.user, "beto1", madrid)
    await node_answers(services)
    room = await create(client, ana, "LAN", ana1)
    assert (await join(client, beto, "LAN", room["password"], beto1)).status_code == 200
    await node_answers(services)
    return {"miami": miami, "madrid": madrid, "ana": ana, "ana1": ana1, "beto1": beto1, "room": room}


def rtts_shown(shown: dict[str, Any]) -> dict[str, int | None]:
    return {m["name"]: m["rtt_ms"] for m in shown["members"]}


async def test_reported_round_trips_are_shown_per_member_and_choose_between_servers_holding_as_many(
    services: Services, client: AsyncTestClient[Any], pair: dict[str, Any]
) -> None:
    ana, room = pair["ana"], pair["room"]
    # Nothing measured: one member on each server, the lighter one wins, and the page says nothing is measured.
    shown = await placement(client, ana, room)
    assert rtts_shown(shown) == {"ana1": None, "beto1": None}
    assert shown["recommended"] == pair["madrid"].id
    assert "Sin medir la latencia de cada dispositivo" in shown["reason"]

    # Both nodes time their member: Miami's is much nearer, so Miami is recommended, and the reason says by how much.
    await node_reports(services, pair["miami"], (pair["ana1"], 35_400))
    await node_reports(services, pair["madrid"], (pair["beto1"], 181_000))
    shown = await placement(client, ana, room)
    assert rtts_shown(shown) == {"ana1": 35, "beto1": 181}
    assert shown["recommended"] == pair["miami"].id
    assert "Responde a sus peers de la sala con 35 ms de ida y vuelta para el más lejano." in shown["reason"]
    assert "no todos responden al ping" in shown["reason"]

    # Ana's device stops answering echo: its next line has no figure, and Miami has nothing measured any more.
    await node_reports(services, pair["miami"], (pair["ana1"], None))
    shown = await placement(client, ana, room)
    assert rtts_shown(shown) == {"ana1": None, "beto1": 181}
    assert shown["recommended"] == pair["madrid"].id
    assert "181 ms de ida y vuelta para el más lejano" in shown["reason"]


async def test_a_round_trip_measured_by_another_server_or_long_ago_is_not_shown(
    services: Services, client: AsyncTestClient[Any], pair: dict[str, Any]
) -> None:
    await node_reports(services, pair["madrid"], (pair["beto1"], 60_000))
    # A report naming beto1 from Miami (where it is not placed: a move's old server, say) changes nothing.
    await node_reports(services, pair["miami"], (pair["beto1"], 5_000))
    assert rtts_shown(await placement(client, pair["ana"], pair["room"]))["beto1"] == 60
    # Placed elsewhere since (a move): Madrid's figure is about Madrid, so it is not shown as beto1's any more.
    async with transaction(services.sessionmaker) as db:
        await db.execute(update(Peer).where(Peer.id == pair["beto1"].id).values(server_id=pair["miami"].id))
    assert rtts_shown(await placement(client, pair["ana"], pair["room"]))["beto1"] is None
    async with transaction(services.sessionmaker) as db:
        await db.execute(update(Peer).where(Peer.id == pair["beto1"].id).values(server_id=pair["madrid"].id))
        await db.execute(update(RoomMember).values(rtt_at=time.time() - RTT_FRESH_SECONDS))
    assert rtts_shown(await placement(client, pair["ana"], pair["room"]))["beto1"] is None
