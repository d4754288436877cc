"""Rooms (salas, "partys" on the wire): every rule and Spanish message of docs/contract.md#rooms, the pushes each
user hears, the busy flag, the node operations each change queues, and the races that must end with one winner."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select, text

from controlplane.db import transaction, utcnow
from controlplane.domain.accounts.models import Role, User
from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms.models import Room
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.status import is_online as server_is_online
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.desired_state import delta_message, full_state
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.services import Services
from tests.api.factories import bearer, login, make_peer, make_server, make_user
from tests.api.test_agent_resume import agents_endpoint, wait_until
from tests.multiprocess.scripted_agent import ScriptedAgent

ROOMS = "/api/client/network/partys"
PEERS = "/api/client/accounts/peers"


# Pushes about one peer or room: each must carry its version (docs/api.md, versions).
VERSIONED_TYPES = frozenset(
    {
        "created_peer",
        "updated_peer",
        "deleted_peer",
        "new_party_operation",
        "stop_party_operation",
        "updated_owner_party",
        "updated_guest_party",
        "deleted_owner_party",
        "deleted_guest_party",
    }
)


class Inbox:
    """A browser tab of one user: every push the hub delivers to it."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.versions: list[tuple[str, int]] = []

    async def send_text(self, data: str) -> None:
        message = json.loads(data)
        # Every push about one room or peer carries its version, kept aside (test_versions_... checks their order).
        if message["type"] in VERSIONED_TYPES:
            version = message["data"].pop("version")
            assert isinstance(version, int)
            self.versions.append((message["type"], version))
        self.messages.append(message)

    def types(self) -> list[str]:
        return [m["type"] for m in self.messages]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == kind]

    def clear(self) -> None:
        self.messages.clear()


class Person:
    def __init__(self, user: User, headers: dict[str, str], inbox: Inbox) -> None:
        self.user, self.headers, self.inbox = user, headers, inbox


async def person(services: Services, client: AsyncTestClient[Any], name: str, alias: str | None = None) -> Person:
    user = await make_user(services, name, alias=alias if alias is not None else name.capitalize())
    inbox = Inbox()
    services.hub.attach(user.id, inbox)
    return Person(user, bearer(await login(client, name)), inbox)


async def node_answers(services: Services, error: str | None = None) -> None:
    """Every node answers every pending operation (ok, or with `error`)."""
    async with transaction(services.sessionmaker) as db:  # like the servicer: pushes go out after the commit
        pending = (
            (await db.execute(select(NodeOperation.id).where(NodeOperation.status == OperationStatus.PENDING)))
            .scalars()
            .all()
        )
        for operation_id in pending:
            await services.operations.finish(db, operation_id, error)


async def room_ops(services: Services, room_id: str) -> list[NodeOperation]:
    async with services.sessionmaker() as db:
        rows = await db.execute(
            select(NodeOperation)
            .where(NodeOperation.kind == OperationKind.ROOM, NodeOperation.delta.is_not(None))
            .order_by(NodeOperation.created, NodeOperation.serial)
        )
        return [op for op in rows.scalars() if room_id in op.delta.upsert_rooms + op.delta.remove_rooms]


@pytest.fixture
async def world(services: Services, client: AsyncTestClient[Any]) -> dict[str, Any]:
    """Ana (owner) and Beto (guest) with peers on two room servers; Caro outside; a server without rooms."""
    s1 = await make_server(services, "Miami 1", "10.8.0.0/24")
    s2 = await make_server(services, "Madrid 1", "10.9.0.0/24")
    closed = await make_server(services, "Sin salas", "10.10.0.0/24", allow_partys=False)
    ana = await person(services, client, "ana")
    beto = await person(services, client, "beto")
    caro = await person(services, client, "caro")
    peers = {
        "ana1": await make_peer(services, ana.user, "ana1", s1),
        "ana2": await make_peer(services, ana.user, "ana2", s1),
        "beto1": await make_peer(services, beto.user, "beto1", s2),
        "beto2": await make_peer(services, beto.user, "beto2", s2),
        "caro1": await make_peer(services, caro.user, "caro1", s1),
        "ana_closed": await make_peer(services, ana.user, "anax", closed),
    }
    await node_answers(services)  # the nodes confirmed the peers
    return {"s1": s1, "s2": s2, "closed": closed, "ana": ana, "beto": beto, "caro": caro, "peers": peers}


async def create(client: AsyncTestClient[Any], who: Person, name: str, peer: Peer) -> dict[str, Any]:
    answer = await client.post(ROOMS, json={"name": name, "peer": peer.id}, headers=who.headers)
    assert answer.status_code == 201, answer.text
    return answer.json()["data"]  # type: ignore[no-any-return]


async def join(client: AsyncTestClient[Any], who: Person, name: str, password: str, peer: Peer) -> Any:
    return await client.patch(
        ROOMS, json={"operation": "join", "name": name, "password": password, "peer": peer.id}, headers=who.headers
    )


async def test_create_answers_the_room_with_its_password_and_lists_it_for_the_owner(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, peers = world["ana"], world["peers"]
    answer = await client.post(ROOMS, json={"name": "  LAN  Viernes ", "peer": peers["ana1"].id}, headers=ana.headers)
    assert answer.status_code == 201
    body = answer.json()
    assert body["success"] is True and body["message"] == "Sala creada correctamente"
    room = body["data"]
    assert room["name"] == "LAN Viernes" and room["user"] == "Ana"
    assert len(room["password"]) == 12
    assert room["peers"] == [
        {
            "id": peers["ana1"].id,
            "name": "ana1",
            "user": "Ana",
            "private_ip": "10.8.0.2",
            "online": False,
            "server": "Miami 1",
            "server_online": True,
            "server_in_sync": False,  # server 1 has not applied the room yet
            "heard_packets": 0,  # no discovery packet from it since it joined
            "heard_seconds_ago": None,
        }
    ]
    assert room["processing"] is True  # server 1 has not applied it yet

    lists = (await client.get(ROOMS, headers=ana.headers)).json()
    assert [r["id"] for r in lists["owned_partys"]] == [room["id"]] and lists["guest_partys"] == []
    assert lists["owned_partys"][0]["password"] == room["password"]
    mine = {p["name"]: p["party"] for p in (await client.get(PEERS, headers=ana.headers)).json()}
    assert mine["ana1"] == {"id": room["id"], "name": "LAN Viernes"} and mine["ana2"] is None

    # The password is encrypted at rest.
    async with services.sessionmaker() as db:
        stored = (await db.execute(select(Room.password_enc))).scalar_one()
    assert room["password"] not in stored


async def test_create_rules_and_messages(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    noalias = await person(services, client, "dani", alias="")
    dani_peer = await make_peer(services, noalias.user, "dani1", world["s1"])
    await create(client, ana, "Sala Uno", peers["ana1"])
    async with services.sessionmaker.begin() as db:
        await services.peers.set_active(db, await services.peers.by_id(db, peers["beto2"].id), False)
    cases: list[tuple[Person, dict[str, Any], int, str, str]] = [
        (noalias, {"name": "x", "peer": dani_peer.id}, 409, "alias_required",
         "Antes de crear o unirse a una sala configure su alias."),
        (ana, {"name": "  ", "peer": peers["ana2"].id}, 422, "party_name_required",
         "Por favor, ingrese un nombre para la sala"),
        (ana, {"peer": peers["ana2"].id}, 422, "party_name_required", "Por favor, ingrese un nombre para la sala"),
        (ana, {"name": "x" * 33, "peer": peers["ana2"].id}, 422, "party_name_too_long",
         "El nombre de la sala debe tener como máximo 32 caracteres."),
        (ana, {"name": "Otra"}, 422, "peer_required", "Por favor, selecciona un peer para añadir"),
        (ana, {"name": "Otra", "peer": peers["beto1"].id}, 404, "peer_not_found", "Peer no encontrado."),
        (ana, {"name": "Otra", "peer": peers["ana1"].id}, 409, "peer_in_party", "El peer ya está en una sala."),
        (ana, {"name": "Otra", "peer": peers["ana_closed"].id}, 409, "server_without_partys",
         "El servidor del peer no permite salas. Cambie el peer a un servidor con salas."),
        (beto, {"name": "Otra", "peer": peers["beto2"].id}, 409, "peer_inactive", "Peer no activo"),
        (beto, {"name": "sala uno", "peer": peers["beto1"].id}, 409, "party_name_taken",
         "Ya existe una sala con ese nombre."),
    ]  # fmt: skip
    for who, body, status, code, message in cases:
        answer = await client.post(ROOMS, json=body, headers=who.headers)
        assert (answer.status_code, answer.json()["code"], answer.json()["message"]) == (status, code, message), body
    async with services.sessionmaker() as db:
        assert [p.name for p in (await db.execute(select(Room))).scalars()] == ["Sala Uno"]  # nothing half-written


async def test_a_sixth_owned_room_is_refused(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana = world["ana"]
    extra = [await make_peer(services, ana.user, f"extra{i}", world["s1"]) for i in range(4)]
    for i, peer in enumerate([world["peers"]["ana1"], *extra]):
        await create(client, ana, f"Sala {i}", peer)
    sixth = await make_peer(services, ana.user, "sexto", world["s1"])
    answer = await client.post(ROOMS, json={"name": "Sala 6", "peer": sixth.id}, headers=ana.headers)
    assert answer.status_code == 409
    assert answer.json() == {"message": "No se pueden crear más de 5 salas", "code": "party_limit"}
    # Being a guest elsewhere does not count against the five.
    beto_room = await create(client, world["beto"], "De Beto", world["peers"]["beto1"])
    assert (await join(client, ana, "De Beto", beto_room["password"], sixth)).status_code == 200


async def test_join_rules_and_what_owner_and_guest_see(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, caro, peers = world["ana"], world["beto"], world["caro"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    for body in ({"name": "LAN", "password": room["password"]}, {"name": "LAN", "peer": peers["beto1"].id},
                 {"password": room["password"], "peer": peers["beto1"].id},
                 {"name": " ", "password": room["password"], "peer": peers["beto1"].id}):  # fmt: skip
        answer = await client.patch(ROOMS, json={"operation": "join", **body}, headers=beto.headers)
        assert answer.status_code == 422
        assert answer.json()["message"] == "Por favor, complete todos los campos"
    wrong = await join(client, beto, "LAN", "no-es-esta", peers["beto1"])
    unknown = await join(client, beto, "No existe", room["password"], peers["beto1"])
    for answer in (wrong, unknown):  # an unknown name and a wrong password answer alike
        assert answer.status_code == 404
        assert answer.json() == {
            "message": "Nombre o contraseña de la sala incorrectos.",
            "code": "party_credentials_invalid",
        }
    answer = await join(client, beto, "LAN", room["password"], peers["ana2"])  # not Beto's peer
    assert (answer.status_code, answer.json()["code"]) == (404, "peer_not_found")
    answer = await client.patch(ROOMS, json={"operation": "entrar", "name": "LAN"}, headers=beto.headers)
    assert (answer.status_code, answer.json()["code"]) == (422, "unknown_operation")

    ana.inbox.clear()
    answer = await join(client, beto, "lan", room["password"], peers["beto1"])  # names match without case
    assert answer.status_code == 200
    seen_by_beto = answer.json()["data"]
    assert seen_by_beto["password"] is None  # only the owner reads the password
    assert [(p["name"], p["user"], p["private_ip"]) for p in seen_by_beto["peers"]] == [
        ("ana1", "Ana", "10.8.0.2"),
        ("beto1", "Beto", "10.9.0.2"),
    ]
    lists = (await client.get(ROOMS, headers=beto.headers)).json()
    assert lists["owned_partys"] == [] and [r["id"] for r in lists["guest_partys"]] == [room["id"]]
    assert lists["guest_partys"][0]["password"] is None
    assert (await client.get(ROOMS, headers=caro.headers)).json() == {"owned_partys": [], "guest_partys": []}

    # Owner and guest both hear of the change, each with their own view.
    await asyncio.sleep(0.05)
    assert ana.inbox.types() == ["new_party_operation", "updated_owner_party"]
    assert ana.inbox.of("updated_owner_party")[0]["data"]["password"] == room["password"]
    assert "new_party_operation" in beto.inbox.types()
    assert beto.inbox.of("updated_guest_party")[-1]["data"]["password"] is None

    # A peer already in a room cannot join another; the owner adds a peer by joining their own room.
    again = await join(client, beto, "LAN", room["password"], peers["beto1"])
    assert (again.status_code, again.json()["message"]) == (409, "El peer ya está en una sala.")
    added = await join(client, ana, "LAN", room["password"], peers["ana2"])
    assert added.status_code == 200 and added.json()["data"]["password"] == room["password"]
    assert len(added.json()["data"]["peers"]) == 3


async def test_room_names_match_however_they_are_typed(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    """Found by the room state machine: a 20-character name whose lower case is 40 characters long answered 500 on
    PostgreSQL; joining did not collapse blanks as creating does; 'STRASSE' and 'Straße' were two names."""
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    long_fold = await create(client, ana, "İ" * 20, peers["ana1"])
    assert long_fold["name"] == "İ" * 20
    room = await create(client, beto, " Fiesta   del  Straße ", peers["beto1"])
    assert room["name"] == "Fiesta del Straße"
    taken = await client.post(ROOMS, json={"name": "FIESTA DEL STRASSE", "peer": peers["ana2"].id}, headers=ana.headers)
    assert (taken.status_code, taken.json()["code"]) == (409, "party_name_taken")
    joined = await join(client, ana, "  fiesta del   strasse ", room["password"], peers["ana2"])
    assert joined.status_code == 200, joined.text
    assert joined.json()["data"]["id"] == room["id"]


async def test_guest_rights_and_outsiders_see_nothing(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, caro, peers = world["ana"], world["beto"], world["caro"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    assert (await join(client, beto, "LAN", room["password"], peers["beto2"])).status_code == 200
    path = f"{ROOMS}/{room['id']}"

    for body in ({"operation": "regenerate_password"}, {"operation": "remove_peer", "peer": peers["ana1"].id}):
        answer = await client.patch(path, json=body, headers=beto.headers)
        assert (answer.status_code, answer.json()["code"]) == (403, "party_owner_only"), body
    assert (await client.delete(path, headers=beto.headers)).status_code == 403
    leave_other = await client.patch(path, json={"operation": "leave", "peer": peers["ana1"].id}, headers=beto.headers)
    assert (leave_other.status_code, leave_other.json()["code"]) == (404, "peer_not_found")
    no_peer = await client.patch(path, json={"operation": "leave"}, headers=beto.headers)
    assert (no_peer.status_code, no_peer.json()["code"]) == (422, "peer_required")

    # Another user's room answers like a missing one, whatever the call.
    for call in (
        client.patch(path, json={"operation": "regenerate_password"}, headers=caro.headers),
        client.patch(path, json={"operation": "leave", "peer": peers["ana1"].id}, headers=caro.headers),
        client.patch(path, json={"operation": "remove_peer", "peer": peers["ana1"].id}, headers=caro.headers),
        client.delete(path, headers=caro.headers),
        client.delete(f"{ROOMS}/no-existe", headers=ana.headers),
    ):
        answer = await call
        assert answer.json() == {"message": "Sala no encontrada.", "code": "party_not_found"}
        assert answer.status_code == 404

    # A guest removes its own peer (that is leaving): it keeps seeing the room while it has another peer there.
    answer = await client.patch(
        path, json={"operation": "remove_peer", "peer": peers["beto2"].id}, headers=beto.headers
    )
    assert answer.status_code == 200
    assert [p["name"] for p in answer.json()["data"]["peers"]] == ["ana1", "beto1"]
    beto.inbox.clear()
    answer = await client.patch(path, json={"operation": "leave", "peer": peers["beto1"].id}, headers=beto.headers)
    assert answer.status_code == 200 and "data" not in answer.json()
    await asyncio.sleep(0.05)
    assert beto.inbox.of("deleted_guest_party") == [{"type": "deleted_guest_party", "data": {"id": room["id"]}}]
    assert (await client.get(ROOMS, headers=beto.headers)).json()["guest_partys"] == []
    assert (await client.get(path.replace(room["id"], ""), headers=beto.headers)).status_code == 200
    assert (await client.delete(path, headers=beto.headers)).status_code == 404  # no longer a member


async def test_owner_regenerates_the_password_removes_peers_and_deletes_the_room(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, caro, peers = world["ana"], world["beto"], world["caro"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    path = f"{ROOMS}/{room['id']}"
    answer = await client.patch(path, json={"operation": "regenerate_password"}, headers=ana.headers)
    assert answer.status_code == 200
    body = answer.json()
    assert body["message"] == "Contraseña regenerada con éxito"
    assert body["password"] == body["data"]["password"] != room["password"]
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 404
    assert (await join(client, beto, "LAN", body["password"], peers["beto1"])).status_code == 200
    assert (await join(client, caro, "LAN", body["password"], peers["caro1"])).status_code == 200

    beto.inbox.clear()
    answer = await client.patch(path, json={"operation": "remove_peer", "peer": peers["beto1"].id}, headers=ana.headers)
    assert answer.status_code == 200
    assert [p["name"] for p in answer.json()["data"]["peers"]] == ["ana1", "caro1"]
    assert answer.json()["message"] == "Peer sacado de la sala «LAN»."
    await asyncio.sleep(0.05)
    # The guest reads who took her peer out, of which room (not the contract's 'Haz salido de una sala').
    assert beto.inbox.messages == [
        {
            "type": "deleted_guest_party",
            "data": {"id": room["id"]},
            "message": "El administrador de la sala «LAN» sacó a su peer «beto1» de la sala.",
        }
    ]
    beto_peers = {p["name"]: p["party"] for p in (await client.get(PEERS, headers=beto.headers)).json()}
    assert beto_peers["beto1"] is None  # free again

    ana.inbox.clear()
    caro.inbox.clear()
    answer = await client.delete(path, headers=ana.headers)
    assert answer.status_code == 200
    assert answer.json() == {"success": True, "message": "Sala «LAN» eliminada."}
    await asyncio.sleep(0.05)
    # The owner learns it from the answer; the push carries no second text for her.
    assert ana.inbox.messages == [{"type": "deleted_owner_party", "data": {"id": room["id"]}}]
    assert caro.inbox.messages == [
        {
            "type": "deleted_guest_party",
            "data": {"id": room["id"]},
            "message": "El administrador eliminó la sala «LAN».",
        }
    ]
    assert (await client.get(ROOMS, headers=ana.headers)).json()["owned_partys"] == []
    # Every node that enforced the room drops it.
    last = (await room_ops(services, room["id"]))[-1]
    assert last.delta.remove_rooms == (room["id"],) and last.server_id == world["s1"].id


async def test_the_owner_may_leave_and_a_room_left_empty_is_deleted(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    path = f"{ROOMS}/{room['id']}"
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    # The owner's own peer leaves: the room stays, still the owner's, with the guest in it.
    answer = await client.patch(path, json={"operation": "leave", "peer": peers["ana1"].id}, headers=ana.headers)
    assert answer.status_code == 200
    assert [p["name"] for p in answer.json()["data"]["peers"]] == ["beto1"]
    assert answer.json()["data"]["password"] == room["password"]
    # The last peer leaves: nobody could reach anybody, so the room goes and the owner hears it.
    ana.inbox.clear()
    answer = await client.patch(path, json={"operation": "leave", "peer": peers["beto1"].id}, headers=beto.headers)
    assert answer.status_code == 200
    assert answer.json() == {
        "success": True,
        "message": "Su peer salió de la sala «LAN». La sala se quedó sin peers y se eliminó.",
    }
    await asyncio.sleep(0.05)
    assert ana.inbox.of("deleted_owner_party") == [
        {
            "type": "deleted_owner_party",
            "data": {"id": room["id"]},
            "message": "La sala «LAN» se eliminó porque se quedó sin peers.",
        }
    ]
    async with services.sessionmaker() as db:
        assert (await db.execute(select(Room))).scalars().all() == []


async def test_a_room_is_busy_until_every_node_answered_and_timeouts_clear_it(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    await node_answers(services)
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    ops = [op for op in await room_ops(services, room["id"]) if op.status is OperationStatus.PENDING]
    # The room now touches both servers: each gets the whole room (members on both).
    assert sorted(op.server_id for op in ops) == sorted([world["s1"].id, world["s2"].id])
    async with services.sessionmaker() as db:
        delta = await delta_message(db, services.box, ops[0])
    assert [(r.id, sorted(r.members)) for r in delta.upsert_rooms] == [(room["id"], ["10.8.0.2", "10.9.0.2"])]

    ana.inbox.clear()
    async with transaction(services.sessionmaker) as db:
        await services.operations.finish(db, ops[0].id, None)
    await asyncio.sleep(0.05)
    assert ana.inbox.messages == []  # the other node has not answered: still busy
    assert (await client.get(ROOMS, headers=ana.headers)).json()["owned_partys"][0]["processing"] is True
    async with transaction(services.sessionmaker) as db:
        await services.operations.finish(db, ops[1].id, None)
    await asyncio.sleep(0.05)
    assert ana.inbox.types() == ["stop_party_operation", "updated_owner_party"]
    assert ana.inbox.messages[0]["data"] == {"id": room["id"]}
    assert ana.inbox.messages[1]["data"]["processing"] is False
    assert beto.inbox.types()[-2:] == ["stop_party_operation", "updated_guest_party"]

    # A node that never answers: the timeout ends the operation, never silently. The join stands (the node converges
    # when it resyncs), so the room's users hear that the node is late, not that their change failed.
    assert (await join(client, ana, "LAN", room["password"], peers["ana2"])).status_code == 200
    ana.inbox.clear()
    async with services.sessionmaker.begin() as db:
        await db.execute(
            NodeOperation.__table__.update()
            .where(NodeOperation.status == OperationStatus.PENDING)
            .values(created=utcnow() - timedelta(hours=1))
        )
    async with transaction(services.sessionmaker) as db:
        assert await services.operations.expire_overdue(db) >= 1
    await asyncio.sleep(0.05)
    assert ana.inbox.of("error") == []
    late = ana.inbox.of("info")  # one per server of the room, each named
    assert {m["message"] for m in late} == {
        f"La sala LAN ya tiene el cambio, pero el servidor {world[s].name} no lo confirmó (el servidor no respondió a"
        " tiempo). Lo aplicará en cuanto vuelva a sincronizar."
        for s in ("s1", "s2")
    }
    assert all(m["data"] == {"party_id": room["id"]} for m in late)
    assert ana.inbox.types()[-2:] == ["stop_party_operation", "updated_owner_party"]
    assert (await client.get(ROOMS, headers=ana.headers)).json()["owned_partys"][0]["processing"] is False


async def test_moving_a_peer_keeps_memberships_right(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    await node_answers(services)

    # To another party server: the peer stays in the room with its new address, on every node of the room.
    moved = await client.patch(
        f"{PEERS}/{peers['beto1'].id}", json={"operation": "change_server", "server": world["s1"].id},
        headers=beto.headers,
    )  # fmt: skip
    assert moved.status_code == 202 and moved.json()["data"]["party"]["id"] == room["id"]
    # Membership follows the committed placement: nothing changes for the room until the new node confirms.
    assert not [op for op in await room_ops(services, room["id"]) if op.status is OperationStatus.PENDING]
    await node_answers(services)  # the new node holds the peer: the move commits
    pending = [op for op in await room_ops(services, room["id"]) if op.status is OperationStatus.PENDING]
    by_node = {op.server_id: op.delta for op in pending}
    assert by_node == {
        world["s1"].id: NodeChange(upsert_rooms=(room["id"],)),
        world["s2"].id: NodeChange(remove_rooms=(room["id"],)),
    }
    async with services.sessionmaker() as db:
        state = await full_state(db, services.box, await db.get(Server, world["s1"].id))  # type: ignore[arg-type]
    assert [sorted(r.members) for r in state.rooms] == [["10.8.0.2", "10.8.0.5"]]
    await node_answers(services)

    # To a server without rooms: the peer leaves the room.
    beto.inbox.clear()
    moved = await client.patch(
        f"{PEERS}/{peers['beto1'].id}", json={"operation": "change_server", "server": world["closed"].id},
        headers=beto.headers,
    )  # fmt: skip
    assert moved.status_code == 202 and moved.json()["data"]["party"]["id"] == room["id"]
    await node_answers(services)  # confirmed: now it has left the room
    await asyncio.sleep(0.05)
    assert [m.get("message") for m in beto.inbox.of("deleted_guest_party")] == [
        "Su peer «beto1» salió de la sala «LAN»: su nuevo servidor no permite salas."
    ]
    room_now = (await client.get(ROOMS, headers=ana.headers)).json()["owned_partys"][0]
    assert [p["name"] for p in room_now["peers"]] == ["ana1"]


async def test_disabled_peers_keep_their_place(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, peers = world["ana"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    async with services.sessionmaker.begin() as db:
        await services.peers.set_active(db, await services.peers.by_id(db, peers["ana1"].id), False)
    room_now = (await client.get(ROOMS, headers=ana.headers)).json()["owned_partys"][0]
    assert [p["id"] for p in room_now["peers"]] == [peers["ana1"].id] and room_now["id"] == room["id"]


async def test_rooms_switched_off_answer_409(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    async with services.sessionmaker.begin() as db:
        await services.switches.update(db, {"allow_partys": False})
    answer = await client.get(ROOMS, headers=world["ana"].headers)
    assert answer.status_code == 409
    assert answer.json() == {"message": "Las salas no están habilitadas.", "code": "partys_disabled"}


async def test_nodes_get_their_rooms_and_the_backbone_in_the_full_state(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    await create(client, ana, "Solo", peers["ana2"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    async with services.sessionmaker() as db:
        s1, s2, closed = [await db.get(Server, world[k].id) for k in ("s1", "s2", "closed")]
        one = await full_state(db, services.box, s1)  # type: ignore[arg-type]
        two = await full_state(db, services.box, s2)  # type: ignore[arg-type]
        off = await full_state(db, services.box, closed)  # type: ignore[arg-type]
    assert sorted(len(r.members) for r in one.rooms) == [1, 2]
    assert [sorted(r.members) for r in two.rooms] == [["10.8.0.2", "10.9.0.2"]]
    assert off.rooms == [] and off.backbone.name == ""
    assert one.backbone.name == "wgb0" and one.backbone.listen_port == 51821
    [peer_of_one] = one.backbone.peers
    assert peer_of_one.node_id == s2.id and peer_of_one.public_key == s2.public_key  # type: ignore[union-attr]
    assert peer_of_one.endpoint == "madrid1.vpn.test:51821"
    assert list(peer_of_one.allowed_ips) == ["10.9.0.0/24", f"{s2.backbone_address}/32"]  # type: ignore[union-attr]
    assert list(one.backbone.addresses) == [f"{s1.backbone_address}/16"]  # type: ignore[union-attr]
    assert s1.backbone_address != s2.backbone_address  # type: ignore[union-attr]


async def test_two_joins_of_one_peer_at_once_end_with_one_winner(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, caro, peers = world["ana"], world["beto"], world["caro"], world["peers"]
    first = await create(client, ana, "Uno", peers["ana1"])
    second = await create(client, caro, "Dos", peers["caro1"])
    answers = await asyncio.gather(
        join(client, beto, "Uno", first["password"], peers["beto1"]),
        join(client, beto, "Dos", second["password"], peers["beto1"]),
        join(client, beto, "Uno", first["password"], peers["beto1"]),
    )
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200, 409, 409], [a.text for a in answers]
    assert {a.json()["message"] for a in answers if a.status_code == 409} == {"El peer ya está en una sala."}
    lists = (await client.get(ROOMS, headers=beto.headers)).json()
    assert len(lists["guest_partys"]) == 1


async def test_a_sixth_room_created_concurrently_is_refused(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana = world["ana"]
    peers = [await make_peer(services, ana.user, f"p{i}", world["s1"]) for i in range(7)]
    for i in range(3):
        await create(client, ana, f"Sala {i}", peers[i])
    answers = await asyncio.gather(
        *(client.post(ROOMS, json={"name": f"Nueva {i}", "peer": peers[3 + i].id}, headers=ana.headers)
          for i in range(4))
    )  # fmt: skip
    assert sorted(a.status_code for a in answers) == [201, 201, 409, 409], [a.text for a in answers]
    assert {a.json()["message"] for a in answers if a.status_code == 409} == {"No se pueden crear más de 5 salas"}
    assert len((await client.get(ROOMS, headers=ana.headers)).json()["owned_partys"]) == 5


async def test_two_rooms_with_one_name_at_once_end_with_one_winner(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    answers = await asyncio.gather(
        client.post(ROOMS, json={"name": "LAN", "peer": peers["ana1"].id}, headers=ana.headers),
        client.post(ROOMS, json={"name": "lan", "peer": peers["beto1"].id}, headers=beto.headers),
    )
    assert sorted(a.status_code for a in answers) == [201, 409], [a.text for a in answers]
    assert [a.json()["code"] for a in answers if a.status_code == 409] == ["party_name_taken"]


async def test_a_deleted_peer_leaves_its_room_and_its_node(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    await node_answers(services)
    beto.inbox.clear()
    async with transaction(services.sessionmaker) as db:
        peer = await services.peers.by_id(db, peers["beto1"].id)
        public_key = peer.public_key
        await services.peers.delete(db, peer)
    await asyncio.sleep(0.05)
    assert beto.inbox.types() == ["deleted_guest_party"]
    pending = [op for op in await room_ops(services, room["id"]) if op.status is OperationStatus.PENDING]
    assert {op.server_id: list(op.delta.remove_rooms) for op in pending} == {
        world["s1"].id: [],  # server 1 keeps the room (Ana's peer), with the new member list
        world["s2"].id: [room["id"]],  # server 2 has no member left: it drops the room
    }
    async with services.sessionmaker() as db:  # and the peer's node drops its key; Beto hears once it did
        removal = (
            await db.execute(select(NodeOperation).where(NodeOperation.kind == OperationKind.REMOVE))
        ).scalar_one()
        assert (removal.server_id, removal.delta.remove_peers) == (world["s2"].id, (public_key,))
        node = await db.get(Server, world["s2"].id)
        assert node is not None
        assert public_key not in {p.public_key for p in (await full_state(db, services.box, node)).peers}
    await node_answers(services)
    await asyncio.sleep(0.05)
    assert beto.inbox.of("deleted_peer")[0]["data"] == {"id": peers["beto1"].id}
    room_now = (await client.get(ROOMS, headers=ana.headers)).json()["owned_partys"][0]
    assert [p["name"] for p in room_now["peers"]] == ["ana1"]


async def test_a_server_that_stops_allowing_rooms_takes_its_peers_out_and_leaves_the_backbone(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    await node_answers(services)
    async with transaction(services.sessionmaker) as db:
        server = await db.get(Server, world["s2"].id)
        assert server is not None
        server.allow_partys = False
        await services.rooms.server_rooms_changed(db, server)
    room_now = (await client.get(ROOMS, headers=ana.headers)).json()["owned_partys"][0]
    assert [p["name"] for p in room_now["peers"]] == ["ana1"]
    async with services.sessionmaker() as db:
        backbone_ops = (
            (
                await db.execute(
                    select(NodeOperation).where(
                        NodeOperation.kind == OperationKind.BACKBONE, NodeOperation.status == OperationStatus.PENDING
                    )
                )
            )
            .scalars()
            .all()
        )
        deltas = {op.server_id: await delta_message(db, services.box, op) for op in backbone_ops}
    assert set(deltas) == {world["s1"].id, world["s2"].id}
    assert deltas[world["s2"].id].backbone.name == ""  # server 2 takes its backbone down
    assert deltas[world["s1"].id].backbone.name == "wgb0" and list(deltas[world["s1"].id].backbone.peers) == []


async def test_a_disabled_server_leaves_the_backbone_and_its_peers_leave_their_rooms(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    """Disabling a server from the manager takes it out of service for rooms, like switching its rooms off: the
    other nodes drop it from their backbone, its peers leave their rooms (with the usual pushes), none may join."""
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    await make_user(services, "jefa", role=Role.ADMIN)
    admin = bearer(await login(client, "jefa", admin=True))
    room = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    await node_answers(services)
    beto.inbox.clear()

    path = f"/api/admin/servers/{world['s2'].id}"
    assert (await client.patch(path, json={"active": False}, headers=admin)).status_code == 200
    room_now = (await client.get(ROOMS, headers=ana.headers)).json()["owned_partys"][0]
    assert [p["name"] for p in room_now["peers"]] == ["ana1"]
    assert "deleted_guest_party" in beto.inbox.types()  # beto's only peer in the room left it
    async with services.sessionmaker() as db:
        s1, s2 = [await db.get(Server, world[k].id) for k in ("s1", "s2")]
        assert s1 is not None and s2 is not None
        assert list((await full_state(db, services.box, s1)).backbone.peers) == []
        assert (await full_state(db, services.box, s2)).backbone.name == ""
    beto_peers = (await client.get(PEERS, headers=beto.headers)).json()
    assert {p["server"]["allow_partys"] for p in beto_peers} == {False}  # what beto's peer list shows
    refused = await join(client, beto, "LAN", room["password"], peers["beto2"])
    assert refused.status_code == 409 and refused.json()["code"] == "server_without_partys"

    # Enabled again: back on the backbone (memberships are not restored: peers join again).
    assert (await client.patch(path, json={"active": True}, headers=admin)).status_code == 200
    async with services.sessionmaker() as db:
        s1 = await db.get(Server, world["s1"].id)
        assert s1 is not None
        assert [p.node_id for p in (await full_state(db, services.box, s1)).backbone.peers] == [world["s2"].id]
    assert (await join(client, beto, "LAN", room["password"], peers["beto2"])).status_code == 200


async def test_versions_grow_with_every_change_a_view_shows_and_never_with_a_read(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    """docs/api.md, versions: the browser keeps the view with the larger version. A change's answer and its pushes
    carry the version the change committed; every change to what a view shows (a member joining, the nodes
    answering, a member's rename, a move settling) makes it larger; reading makes it no larger."""
    ana, beto, peers = world["ana"], world["beto"], world["peers"]

    async def listed_room() -> dict[str, Any]:
        return (await client.get(ROOMS, headers=ana.headers)).json()["owned_partys"][0]  # type: ignore[no-any-return]

    async def listed_peer(who: Person, name: str) -> dict[str, Any]:
        return next(p for p in (await client.get(PEERS, headers=who.headers)).json() if p["name"] == name)

    ana.inbox.clear()
    answered = await create(client, ana, "LAN", peers["ana1"])  # processing: the nodes have not answered
    await asyncio.sleep(0.05)
    assert answered["processing"] is True
    assert dict(ana.inbox.versions)["updated_owner_party"] == answered["version"]  # one change, one version
    assert (await listed_room())["version"] == answered["version"] == (await listed_room())["version"]

    ana.inbox.versions.clear()
    await node_answers(services)
    await asyncio.sleep(0.05)
    done = dict(ana.inbox.versions)["stop_party_operation"]
    assert done > answered["version"]  # `processing` went false: a read from before says true, and loses
    assert (await listed_room())["processing"] is False and (await listed_room())["version"] == done

    peer_before = await listed_peer(beto, "beto1")
    joined = await join(client, beto, "LAN", answered["password"], peers["beto1"])
    assert joined.status_code == 200
    assert joined.json()["data"]["version"] > done  # a member joined
    peer_in_room = await listed_peer(beto, "beto1")
    assert peer_in_room["party"] is not None and peer_in_room["version"] > peer_before["version"]  # its room shows
    await node_answers(services)
    settled = await listed_room()

    renamed = await client.patch(
        f"{PEERS}/{peers['beto1'].id}", json={"operation": "rename", "name": "beto-pc"}, headers=beto.headers
    )
    assert renamed.status_code == 200 and renamed.json()["version"] > peer_in_room["version"]
    assert (await listed_peer(beto, "beto-pc"))["version"] == renamed.json()["version"]
    after_rename = await listed_room()
    assert [p["name"] for p in after_rename["peers"]] == ["ana1", "beto-pc"]
    assert after_rename["version"] > settled["version"]  # the room shows its members' names

    moved = await client.patch(
        f"{PEERS}/{peers['beto1'].id}",
        json={"operation": "change_server", "server": world["s1"].id},
        headers=beto.headers,
    )
    assert moved.status_code == 202 and moved.json()["data"]["version"] > renamed.json()["version"]
    await node_answers(services)
    landed = await listed_peer(beto, "beto-pc")
    assert landed["server"]["id"] == world["s1"].id and landed["version"] > moved.json()["data"]["version"]
    assert (await listed_room())["version"] > after_rename["version"]  # its member's server changed
    assert (await listed_peer(beto, "beto-pc"))["version"] == landed["version"]  # read again: no change


async def agent_stream(services: Services, server: Server, *, connected: bool) -> None:
    """What the servicer writes when a node's agent connects (last seen now) or its stream ends (seen and gone now)."""
    now = utcnow()
    async with transaction(services.sessionmaker) as db:
        stored = await db.get_one(Server, server.id)
        if connected:
            stored.last_seen = now
        else:
            stored.last_seen = stored.disconnected_at = now - timedelta(seconds=1)


async def test_members_show_whether_their_server_is_connected_and_in_sync(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    """The room tells its users when a member's server is down (docs/api.md, rooms): the same `online` and
    `in_sync` as the peer list's server, read when the room is."""
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    await node_answers(services)

    async def servers_shown(who: Any, kind: str) -> list[tuple[str, str, bool, bool]]:
        [view] = (await client.get(ROOMS, headers=who.headers)).json()[kind]
        return [(p["name"], p["server"], p["server_online"], p["server_in_sync"]) for p in view["peers"]]

    both_up = [("ana1", "Miami 1", True, True), ("beto1", "Madrid 1", True, True)]
    assert await servers_shown(ana, "owned_partys") == both_up
    assert await servers_shown(beto, "guest_partys") == both_up

    # Madrid's agent goes away: both users see Beto's server offline; Ana's stays up.
    await agent_stream(services, world["s2"], connected=False)
    madrid_down = [("ana1", "Miami 1", True, True), ("beto1", "Madrid 1", False, True)]
    assert await servers_shown(ana, "owned_partys") == madrid_down
    assert await servers_shown(beto, "guest_partys") == madrid_down
    # The peer list says the same of Beto's peer.
    listed = {p["name"]: p["server"] for p in (await client.get(PEERS, headers=beto.headers)).json()}
    assert (listed["beto1"]["online"], listed["beto1"]["in_sync"]) == (False, True)

    # A change queued for Madrid while it is down: offline and behind, in the room push too.
    beto.inbox.clear()
    assert (await join(client, beto, "LAN", room["password"], peers["beto2"])).status_code == 200
    await asyncio.sleep(0.05)
    pushed = beto.inbox.of("updated_guest_party")[-1]["data"]
    assert {(p["name"], p["server_online"], p["server_in_sync"]) for p in pushed["peers"]} == {
        ("ana1", True, False),  # Miami has the new member to apply too
        ("beto1", False, False),
        ("beto2", False, False),
    }

    # Back, and caught up: every member's server is up again.
    await agent_stream(services, world["s2"], connected=True)
    await node_answers(services)
    assert await servers_shown(ana, "owned_partys") == [*both_up, ("beto2", "Madrid 1", True, True)]


async def room_across_two_servers(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any], tmp_path: Path
) -> Callable[[], ScriptedAgent]:
    """Ana's room with Beto's peer on Madrid, applied; then a maker of scripted agents for Madrid, speaking to the
    agents' gRPC server at `tmp_path`'s socket (agents_endpoint)."""
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    await node_answers(services)
    async with services.sessionmaker.begin() as db:
        credential = await services.servers.reissue_credential(db, world["s2"].id)
    target = agents_target(tmp_path)
    return lambda: ScriptedAgent(target, world["s2"].id, credential, retry_seconds=0.05, resume=False)


def agents_target(tmp_path: Path) -> str:
    return f"unix:{tmp_path / 'grpc.sock'}"


async def test_a_server_going_down_and_back_is_pushed_to_the_rooms_it_holds(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any], tmp_path: Path
) -> None:
    """A member's `server_online` changes live when its server's agent goes away or comes back (docs/api.md,
    rooms): the agents' gRPC server runs for real and a scripted agent for Madrid connects, leaves and returns."""
    ana, beto, caro = world["ana"], world["beto"], world["caro"]
    madrids_agent = await room_across_two_servers(services, client, world, tmp_path)
    agent = madrids_agent()

    def madrid_shown(who: Any, kind: str) -> list[bool]:
        pushed = [m["data"] for m in who.inbox.of(kind)]
        return [p["server_online"] for view in pushed for p in view["peers"] if p["name"] == "beto1"]

    try:
        async with agents_endpoint(services, agents_target(tmp_path)):
            agent.start()
            await agent.wait_full_state(1)
            for who in (ana, beto, caro):
                who.inbox.clear()
            await agent.stop()  # Madrid's agent goes away: its stream ends
            await wait_until(lambda: madrid_shown(ana, "updated_owner_party") == [False], "Ana was not told")
            await wait_until(lambda: madrid_shown(beto, "updated_guest_party") == [False], "Beto was not told")
            assert caro.inbox.of("updated_owner_party") == caro.inbox.of("updated_guest_party") == []

            agent = madrids_agent()
            agent.start()  # and comes back
            await wait_until(lambda: madrid_shown(ana, "updated_owner_party") == [False, True], "Ana: not back")
            await wait_until(lambda: madrid_shown(beto, "updated_guest_party") == [False, True], "Beto: not back")
    finally:
        await agent.stop()


async def test_a_node_that_leaves_is_marked_offline_even_when_its_rooms_cannot_be_read(
    services: Services,
    client: AsyncTestClient[Any],
    world: dict[str, Any],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Telling the rooms comes after the offline mark, in a transaction of its own: a database that fails that read
    (the rooms' table gone for the moment) leaves the node marked offline and the room's users without a push."""
    ana = world["ana"]
    madrids_agent = await room_across_two_servers(services, client, world, tmp_path)
    agent = madrids_agent()

    async def madrid_online(expected: bool = True) -> bool:
        async with services.sessionmaker() as db:
            return server_is_online(await db.get_one(Server, world["s2"].id)) is expected

    try:
        async with agents_endpoint(services, agents_target(tmp_path)):
            agent.start()
            await agent.wait_full_state(1)
            ana.inbox.clear()
            async with services.sessionmaker.begin() as db:
                await db.execute(text("ALTER TABLE rooms RENAME TO rooms_away"))
            try:
                await agent.stop()
                await wait_until(lambda: madrid_online(expected=False), "Madrid stayed online")
                # The rooms' read fails after the offline mark has committed: wait for it, or on a loaded host the
                # table is back before that read and its push arrives late, taken for Madrid's return.
                await wait_until(
                    lambda: any("telling the rooms" in r.getMessage() for r in caplog.records),
                    "the rooms' read did not fail",
                )
            finally:
                async with services.sessionmaker.begin() as db:
                    await db.execute(text("ALTER TABLE rooms_away RENAME TO rooms"))
            assert ana.inbox.of("updated_owner_party") == []
            # The rooms can be read again: Madrid coming back is pushed as usual.
            agent = madrids_agent()
            agent.start()
            await wait_until(lambda: ana.inbox.of("updated_owner_party"), "Ana was not told Madrid is back")
            assert await madrid_online()
    finally:
        await agent.stop()


async def stats_from(services: Services, server: Server, handshakes: dict[Peer, int]) -> None:
    """What the servicer does with a node's stats report: presence, in the report's transaction."""
    async with transaction(services.sessionmaker) as db:
        await services.rooms.record_presence(db, server.id, {p.public_key: at for p, at in handshakes.items()})


async def test_members_show_their_server_and_their_presence_changes_live(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, caro, peers = world["ana"], world["beto"], world["caro"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    await node_answers(services)

    def members(view: dict[str, Any]) -> list[tuple[str, str, bool]]:
        return [(p["name"], p["server"], p["online"]) for p in view["peers"]]

    async def owners_view() -> dict[str, Any]:
        return (await client.get(ROOMS, headers=ana.headers)).json()["owned_partys"][0]  # type: ignore[no-any-return]

    # Nobody's server has reported a handshake yet.
    assert members(await owners_view()) == [("ana1", "Miami 1", False), ("beto1", "Madrid 1", False)]

    # Ana's device handshakes with Miami 1: Ana and Beto see her online at once; Caro (outside) hears nothing.
    for who in (ana, beto, caro):
        who.inbox.clear()
    now = int(time.time())
    await stats_from(services, world["s1"], {peers["ana1"]: now - 10, peers["caro1"]: now - 5})
    await asyncio.sleep(0.05)
    assert members(ana.inbox.of("updated_owner_party")[-1]["data"]) == [
        ("ana1", "Miami 1", True),
        ("beto1", "Madrid 1", False),
    ]
    assert members(beto.inbox.of("updated_guest_party")[-1]["data"])[0] == ("ana1", "Miami 1", True)
    assert caro.inbox.messages == []
    assert members(await owners_view())[0] == ("ana1", "Miami 1", True)

    # A later report with nothing new pushes nothing; a report about Ana's peer from a server it is not placed on
    # (the old side of a move) changes nothing.
    ana.inbox.clear()
    await stats_from(services, world["s1"], {peers["ana1"]: now - 10})
    await stats_from(services, world["s2"], {peers["ana1"]: now - 3600})
    await asyncio.sleep(0.05)
    assert ana.inbox.messages == []
    assert members(await owners_view())[0] == ("ana1", "Miami 1", True)

    # No handshake for more than 3 minutes: offline, again live.
    await stats_from(services, world["s1"], {peers["ana1"]: now - 200})
    await asyncio.sleep(0.05)
    assert members(ana.inbox.of("updated_owner_party")[-1]["data"])[0] == ("ana1", "Miami 1", False)


async def test_a_guest_keeping_other_peers_reads_which_one_was_taken_out(
    client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    for peer in ("beto1", "beto2"):
        assert (await join(client, beto, "LAN", room["password"], peers[peer])).status_code == 200
    beto.inbox.clear()
    ana.inbox.clear()
    path = f"{ROOMS}/{room['id']}"
    answer = await client.patch(path, json={"operation": "remove_peer", "peer": peers["beto2"].id}, headers=ana.headers)
    assert answer.status_code == 200
    await asyncio.sleep(0.05)
    # Still a guest: the room comes again, with the sentence that says what happened to which peer.
    assert [m.get("message") for m in beto.inbox.of("updated_guest_party")] == [
        "El administrador de la sala «LAN» sacó a su peer «beto2» de la sala."
    ]
    assert [m.get("message") for m in ana.inbox.of("updated_owner_party")] == [None]


async def test_a_deleted_peer_and_a_deleted_owner_are_explained_to_the_guests(
    services: Services, client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, peers = world["ana"], world["beto"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 200
    assert (await join(client, beto, "LAN", room["password"], peers["beto2"])).status_code == 200
    beto.inbox.clear()
    async with transaction(services.sessionmaker) as db:
        peer = await db.get(Peer, peers["beto2"].id)
        assert peer is not None
        await services.rooms.peer_deleting(db, peer)
    await asyncio.sleep(0.05)
    assert [m.get("message") for m in beto.inbox.of("updated_guest_party")] == [
        "Su peer «beto2» salió de la sala «LAN» porque se eliminó."
    ]
    beto.inbox.clear()
    async with transaction(services.sessionmaker) as db:
        await services.rooms.owner_deleting(db, ana.user.id)
    await asyncio.sleep(0.05)
    assert [m.get("message") for m in beto.inbox.of("deleted_guest_party")] == [
        "La sala «LAN» se eliminó porque su administrador cerró su cuenta."
    ]


async def test_the_owner_chooses_a_password_that_the_server_checks(
    client: AsyncTestClient[Any], world: dict[str, Any]
) -> None:
    ana, beto, caro, peers = world["ana"], world["beto"], world["caro"], world["peers"]
    room = await create(client, ana, "LAN", peers["ana1"])
    path = f"{ROOMS}/{room['id']}"

    async def choose(who: Person, password: Any) -> Any:
        return await client.patch(path, json={"operation": "set_password", "password": password}, headers=who.headers)

    for bad, code, message in [
        ("   ", "party_password_required", "Escriba la nueva contraseña de la sala."),
        (None, "party_password_required", "Escriba la nueva contraseña de la sala."),
        ("corta12", "party_password_invalid", "La contraseña de la sala debe tener entre 8 y 64 caracteres."),
        ("x" * 65, "party_password_invalid", "La contraseña de la sala debe tener entre 8 y 64 caracteres."),
    ]:
        answer = await choose(ana, bad)
        assert answer.status_code == 422, bad
        assert answer.json()["code"] == code and answer.json()["message"] == message
    # Nothing was written: the old password still lets a guest in.
    assert (await join(client, caro, "LAN", room["password"], peers["caro1"])).status_code == 200

    answer = await choose(ana, "  noche de LAN  ")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["message"] == "Contraseña de la sala cambiada."
    assert body["password"] == body["data"]["password"] == "noche de LAN"
    assert (await join(client, beto, "LAN", room["password"], peers["beto1"])).status_code == 404
    assert (await join(client, beto, "LAN", "noche de LAN", peers["beto1"])).status_code == 200
    # A guest may not choose it.
    answer = await choose(beto, "otra contraseña")
    assert answer.status_code == 403 and answer.json()["code"] == "party_owner_only"
