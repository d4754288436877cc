"""Make before break (docs/operations.md): a move or a key rotation never leaves the customer with nothing.

Each operation against a node that confirms, one that answers with an error, one that answers only after the
timeout (having applied the change meanwhile) and one that is down and comes back after the timeout. The nodes are
model agents (tests/api/stateful.py: the agent's own conversion and reconcile step on its snapshots and deltas) in
the world of tests/api/two_nodes.py; after every outcome the database, what every node holds, the customer's list
and the downloaded configuration must tell one story.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from controlplane.db import transaction
from controlplane.domain.accounts.models import Role
from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms.models import RoomMember
from controlplane.domain.servers.models import Server
from controlplane.nodes.desired_state import full_state
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.services import Services
from controlplane.wgkeys import public_key_of
from tests.api.factories import bearer, login, make_peer, make_user
from tests.api.test_rooms import ROOMS, person
from tests.api.two_nodes import FAILURES, World, assert_told_the_move_failed, fail_operation, two_nodes
from tests.clock import ManualClock, manual_clock

PEERS = "/api/client/accounts/peers"
TIMEOUT = 60.0


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"operation_timeout_seconds": TIMEOUT}


@pytest.fixture
def clock() -> Iterator[ManualClock]:
    with manual_clock() as clock:
        yield clock


@pytest.fixture
async def world(services: Services, client: AsyncTestClient[Any], clock: ManualClock) -> World:
    return await two_nodes(services, client)


async def _move(world: World) -> None:
    answer = await world.client.patch(
        f"{PEERS}/{world.peer.id}", json={"operation": "change_server", "server": world.madrid}, headers=world.headers
    )
    assert answer.status_code == 202, answer.text
    # Accepted, and nothing broken yet: the customer still sees (and downloads) the server that works.
    assert answer.json()["data"]["server"]["id"] == world.miami and answer.json()["data"]["processing"] is True
    config = (await world.client.get(f"{PEERS}/{world.peer.id}", headers=world.headers)).text
    assert "Endpoint = miami1.vpn.test:51820" in config


async def _regenerate(world: World) -> None:
    answer = await world.client.patch(
        f"{PEERS}/{world.peer.id}", json={"operation": "regenerate"}, headers=world.headers
    )
    assert answer.status_code == 202, answer.text
    config = (await world.client.get(f"{PEERS}/{world.peer.id}", headers=world.headers)).text
    private = next(line.split("=", 1)[1].strip() for line in config.splitlines() if line.startswith("PrivateKey"))
    assert public_key_of(private) == world.peer.public_key, "the new keys were handed out before the node had them"


async def test_a_confirmed_move_switches_and_only_then_the_old_node_lets_go(world: World) -> None:
    await _move(world)
    assert await world.deliver(world.miami) == [], "the old node was told before the new one confirmed"
    [operation] = await world.deliver(world.madrid)
    # Both nodes hold the peer for now: the old tunnel works until the switch is committed.
    assert world.peer.public_key in world.agents.nodes[world.miami].holds().peers
    assert world.peer.public_key in world.agents.nodes[world.madrid].holds().peers
    await world.answer([operation])
    pushes = await world.pushes()
    assert [(p["type"], p["message"]) for p in pushes] == [
        ("updated_peer", "El peer movil ya está en Madrid 1 (Miami). Descargue de nuevo la configuración.")
    ]
    assert pushes[0]["data"]["server"]["id"] == world.madrid and pushes[0]["data"]["address"] == "10.9.0.2"
    await world.settle_nodes()  # the old node drops the key now
    await world.assert_one_story(world.madrid, world.peer.public_key)


async def test_a_confirmed_regenerate_hands_out_the_new_keys(world: World) -> None:
    await _regenerate(world)
    [operation] = await world.deliver(world.miami)
    new_key = (await world.stored()).pending_public_key
    assert new_key is not None and set(world.agents.nodes[world.miami].holds().peers) == {new_key}
    await world.answer([operation])
    pushes = await world.pushes()
    assert [(p["type"], p["message"]) for p in pushes] == [("updated_peer", "Peer movil regenerado correctamente.")]
    await world.settle_nodes()
    await world.assert_one_story(world.miami, new_key)


async def test_a_snapshot_taken_while_pending_confirms_the_change(world: World) -> None:
    """A node that reconnects while the operation is pending gets it in its full state, which confirms it."""
    await _regenerate(world)
    new_key = (await world.stored()).pending_public_key
    await world.agents.connect(world.miami)
    assert [p["type"] for p in await world.pushes()] == ["updated_peer"]
    await world.settle_nodes()
    assert new_key is not None
    await world.assert_one_story(world.miami, new_key)


@pytest.mark.parametrize("how", FAILURES)
async def test_a_failed_move_leaves_the_peer_where_it_works(world: World, clock: ManualClock, how: str) -> None:
    await _move(world)
    await fail_operation(world, clock, how, world.madrid)
    pushes = await world.pushes()
    assert_told_the_move_failed(pushes, how)
    assert pushes[1]["data"]["server"]["id"] == world.miami and pushes[1]["data"]["processing"] is False
    await world.settle_nodes()  # the new node undoes whatever it applied (serials keep order)
    await world.assert_one_story(world.miami, world.peer.public_key)
    async with world.services.sessionmaker() as db:
        statuses = (await db.execute(select(NodeOperation.status).where(NodeOperation.peer_id == world.peer.id))).all()
    assert OperationStatus.OK not in [s for (s,) in statuses[1:]], "a late answer turned a failed move into a move"


@pytest.mark.parametrize("how", FAILURES)
async def test_a_failed_regenerate_keeps_the_old_keys(world: World, clock: ManualClock, how: str) -> None:
    await _regenerate(world)
    await fail_operation(world, clock, how, world.miami)
    pushes = await world.pushes()
    assert [p["type"] for p in pushes] == ["error", "updated_peer"]
    why = "el servidor no pudo aplicar el cambio" if how == "error" else "el servidor no respondió a tiempo"
    assert pushes[0]["message"] == (
        f"Hubo un error al intentar regenerar el peer movil: {why}. El peer conserva sus claves anteriores y su"
        " configuración actual sigue funcionando."
    )
    await world.settle_nodes()  # the node swaps the old key back in
    await world.assert_one_story(world.miami, world.peer.public_key)


async def test_expiry_while_a_move_is_pending_cancels_it_first(world: World) -> None:
    await _move(world)
    await world.deliver(world.madrid)  # the new node already added it
    async with transaction(world.services.sessionmaker) as db:
        peer = await db.get_one(Peer, world.peer.id)
        await world.services.peers.set_active(db, peer, False)
    pushes = await world.pushes()
    assert pushes[0]["type"] == "error" and "la operación fue cancelada" in pushes[0]["message"]
    await world.settle_nodes()
    stored = await world.stored()
    assert stored.server_id == world.miami and stored.pending_server_id is None and not stored.active
    for node in world.agents.nodes.values():  # disabled: no node holds it, the new one included
        assert world.peer.public_key not in node.holds().peers


async def test_a_room_member_stays_in_its_room_where_it_was_when_a_move_fails(world: World) -> None:
    answer = await world.client.post(ROOMS, json={"name": "LAN", "peer": world.peer.id}, headers=world.headers)
    assert answer.status_code == 201, answer.text
    room = answer.json()["data"]
    await world.settle_nodes()
    await _move(world)
    [operation] = await world.deliver(world.madrid)
    await world.answer([operation], "apply failed: nft: Operation not permitted")
    await world.settle_nodes()
    async with world.services.sessionmaker() as db:
        state = await full_state(db, world.services.box, await db.get_one(Server, world.miami))
        other = await full_state(db, world.services.box, await db.get_one(Server, world.madrid))
    # The room still has the peer at its old address, on the old node; the new node never got the room.
    assert [(r.id, list(r.members)) for r in state.rooms] == [(room["id"], ["10.8.0.2"])]
    assert list(other.rooms) == []
    await world.assert_one_story(world.miami, world.peer.public_key)


async def test_disabling_the_target_server_cancels_a_pending_move(world: World) -> None:
    await make_user(world.services, "jefa", role=Role.ADMIN)
    admin = bearer(await login(world.client, "jefa", admin=True))
    await _move(world)
    await world.deliver(world.madrid)  # the target already added it
    answer = await world.client.patch(f"/api/admin/servers/{world.madrid}", json={"active": False}, headers=admin)
    assert answer.status_code == 200, answer.text
    pushes = await world.pushes()
    assert pushes[0]["type"] == "error" and "la operación fue cancelada" in pushes[0]["message"]
    assert "sigue en el servidor Miami 1" in pushes[0]["message"]
    await world.settle_nodes()  # the disabled server's node drops the key it had added
    await world.assert_one_story(world.miami, world.peer.public_key)


# --- expiry, staff's switch and rooms: the other operations the rule covers -----------------------------------------


async def _node_fails(world: World, clock: ManualClock, how: str, node: str) -> None:
    """`fail_operation`, plus what the real agent does after answering an error: it resyncs from a fresh snapshot."""
    await fail_operation(world, clock, how, node)
    if how == "error":
        await world.agents.connect(node)


async def _assert_switched(world: World, active: bool) -> None:
    """The peer's switch tells one story: the database, the customer's list, the download, and every node (which
    holds the key exactly when the peer is active, and exactly its snapshot)."""
    stored = await world.stored()
    assert stored.active is active and stored.pending_operation_id is None
    [listed] = (await world.client.get(PEERS, headers=world.headers)).json()
    assert listed["active"] is active and listed["processing"] is False
    download = await world.client.get(f"{PEERS}/{world.peer.id}", headers=world.headers)
    if active:
        assert download.status_code == 200 and f"Address = {stored.address}/32" in download.text
    else:
        assert download.status_code == 409 and download.json()["code"] == "peer_inactive", download.text
    await world.agents.assert_caught_up_nodes_hold_their_snapshot()
    assert sorted(await world.agents.caught_up()) == sorted(world.agents.nodes), "a node never caught up"
    for node_id, node in world.agents.nodes.items():
        held = world.peer.public_key in node.holds().peers
        assert held is (active and node_id == world.miami), "a node holds a key the database disagrees with"


async def _expire(world: World, clock: ManualClock) -> None:
    async with transaction(world.services.sessionmaker) as db:
        peer = await db.get_one(Peer, world.peer.id)
        peer.expiration_date = clock.now - timedelta(minutes=1)
    async with transaction(world.services.sessionmaker) as db:
        assert await world.services.peers.expire_due(db) == 1  # the expiry job's run


async def _staff_switch(world: World, active: bool) -> None:
    await make_user(world.services, "jefa", role=Role.ADMIN)
    admin = bearer(await login(world.client, "jefa", admin=True))
    if active:  # staff disabled it earlier, and every node confirmed that
        answer = await world.client.patch(f"/api/admin/peers/{world.peer.id}", json={"active": False}, headers=admin)
        assert answer.status_code == 200, answer.text
        await world.settle_nodes()
        await world.pushes()
    answer = await world.client.patch(f"/api/admin/peers/{world.peer.id}", json={"active": active}, headers=admin)
    assert answer.status_code == 200, answer.text


SWITCHES = ["expiry", "staff disables", "staff enables"]


@pytest.mark.parametrize("how", ["confirmed", *FAILURES])
@pytest.mark.parametrize("switch", SWITCHES)
async def test_expiry_and_staffs_switch_end_where_the_database_says(
    world: World, clock: ManualClock, switch: str, how: str
) -> None:
    active = switch == "staff enables"
    if switch == "expiry":
        await _expire(world, clock)
    else:
        await _staff_switch(world, active)
    if how == "confirmed":
        await world.settle_nodes()
    else:
        await _node_fails(world, clock, how, world.miami)
    pushes = await world.pushes()
    await world.settle_nodes()
    await _assert_switched(world, active)
    told = [(p["type"], p.get("message")) for p in pushes]
    staff_note = (
        [] if switch != "staff disables" else [("info", "El peer movil fue deshabilitado por un administrador.")]
    )
    assert told == [*staff_note, ("updated_peer", None)], told
    assert pushes[-1]["data"]["active"] is active and pushes[-1]["data"]["processing"] is False


ROOM_OPERATIONS = ["join", "leave", "remove a member", "delete"]


@pytest.mark.parametrize("how", ["confirmed", *FAILURES])
@pytest.mark.parametrize("operation", ROOM_OPERATIONS)
async def test_a_room_operation_ends_where_the_database_says_when_a_members_node_fails(
    world: World, clock: ManualClock, operation: str, how: str
) -> None:
    """Ana's room on Miami; Beto's peer, on Madrid, joins, leaves, is removed, or the room is deleted while Madrid
    confirms, errs, answers late or is down. The membership committed stands (rooms carry committed state) and every
    node ends with its snapshot's rooms; both customers see that, and hear of a failure."""
    beto = await person(world.services, world.client, "beto")
    beto_peer = await make_peer(world.services, beto.user, "portatil", await world.services_server(world.madrid))
    await world.agents.connect(world.madrid)
    room = (await world.client.post(ROOMS, json={"name": "LAN", "peer": world.peer.id}, headers=world.headers)).json()
    path = f"{ROOMS}/{room['data']['id']}"
    join = {"operation": "join", "name": "LAN", "password": room["data"]["password"], "peer": beto_peer.id}
    if operation != "join":
        assert (await world.client.patch(ROOMS, json=join, headers=beto.headers)).status_code == 200
    await world.settle_nodes()
    await world.pushes()
    beto.inbox.clear()
    if operation == "join":
        answer = await world.client.patch(ROOMS, json=join, headers=beto.headers)
    elif operation == "leave":
        answer = await world.client.patch(path, json={"operation": "leave", "peer": beto_peer.id}, headers=beto.headers)
    elif operation == "remove a member":
        answer = await world.client.patch(
            path, json={"operation": "remove_peer", "peer": beto_peer.id}, headers=world.headers
        )
    else:
        answer = await world.client.delete(path, headers=world.headers)
    assert answer.status_code == 200, answer.text
    await world.answer(await world.deliver(world.miami))  # Ana's node confirms
    if how == "confirmed":
        await world.settle_nodes()
    else:
        await _node_fails(world, clock, how, world.madrid)
    ana_told, beto_told = await world.pushes(), list(beto.inbox.messages)
    async with world.services.sessionmaker() as db:
        madrid_ended = (
            await db.execute(
                select(NodeOperation.status)
                .where(NodeOperation.server_id == world.madrid, NodeOperation.kind == OperationKind.ROOM)
                .order_by(NodeOperation.serial.desc())
                .limit(1)
            )
        ).scalar_one()
    assert madrid_ended is (OperationStatus.OK if how == "confirmed" else OperationStatus.FAILED)
    await world.settle_nodes()

    # The database: Beto's peer is in the room after a join, out of it otherwise; the room is gone after a delete.
    async with world.services.sessionmaker() as db:
        members = set((await db.execute(select(RoomMember.peer_id))).scalars())
    expected = (
        {world.peer.id, beto_peer.id} if operation == "join" else set() if operation == "delete" else {world.peer.id}
    )
    assert members == expected
    # Every node: exactly its snapshot (peers, rooms, backbone), caught up.
    await world.agents.assert_caught_up_nodes_hold_their_snapshot()
    assert sorted(await world.agents.caught_up()) == sorted(world.agents.nodes), "a node never caught up"
    madrid_rooms = world.agents.nodes[world.madrid].holds().rooms
    assert (room["data"]["id"] in madrid_rooms) is (operation == "join"), "Madrid enforces a room it is not in"
    # What both customers see and download.
    ana_rooms = (await world.client.get(ROOMS, headers=world.headers)).json()
    beto_rooms = (await world.client.get(ROOMS, headers=beto.headers)).json()
    if operation == "delete":
        assert ana_rooms["owned_partys"] == [] and beto_rooms["guest_partys"] == []
    else:
        [owned] = ana_rooms["owned_partys"]
        assert owned["processing"] is False
        shown = sorted(p["name"] for p in owned["peers"])
        assert shown == (["movil", "portatil"] if operation == "join" else ["movil"])
        assert [r["id"] for r in beto_rooms["guest_partys"]] == ([owned["id"]] if operation == "join" else [])
    [listed] = (await world.client.get(PEERS, headers=beto.headers)).json()
    assert (listed["party"] is not None) is (operation == "join") and listed["processing"] is False
    download = await world.client.get(f"{PEERS}/{beto_peer.id}", headers=beto.headers)
    assert download.status_code == 200 and "Address = 10.9.0.2/32" in download.text
    # Told: a node that did not confirm is news for everyone still in the room, never an error (the change stands),
    # and the room stops being busy for them.
    failed = how != "confirmed"
    in_room = [ana_told] + ([beto_told] if operation == "join" else [])
    for told in in_room if operation != "delete" else []:
        assert [m for m in told if m["type"] == "error"] == []
        late = [m["message"] for m in told if m["type"] == "info"]
        assert len(late) == (1 if failed else 0), late
        assert all(m.startswith("La sala LAN ya tiene el cambio, pero el servidor ") for m in late), late
        assert [m["type"] for m in told][-2:] == ["stop_party_operation", "updated_owner_party" if told is ana_told
                                                  else "updated_guest_party"]  # fmt: skip
