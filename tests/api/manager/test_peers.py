"""Peers from the manager: search, enable and disable, manual payment, move, extend by a plan."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select

from controlplane.db import utcnow
from controlplane.domain.accounts.models import Role
from controlplane.domain.peers.models import Peer
from controlplane.nodes.models import NodeOperation, OperationKind
from controlplane.services import Services
from tests.api.factories import bearer, login, make_user
from tests.api.manager.world import audit_count, build_world, last_audit
from tests.api.two_nodes import FAILURES, assert_told_the_move_failed, fail_operation, two_nodes
from tests.api.two_nodes import World as NodesWorld
from tests.clock import ManualClock, manual_clock


async def test_search_by_owner_name_and_server(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    for q in ("ana", "MOVIL", "10.8.0.2"):
        found = (await client.get("/api/admin/peers", params={"q": q}, headers=world.support)).json()
        assert [p["name"] for p in found["items"]] == ["movil"], q
    other = await client.get("/api/admin/peers", params={"server": world.ids["other_server"]}, headers=world.support)
    assert other.json() == {"items": [], "total": 0, "page": 1, "page_size": 25}
    inactive = await client.get("/api/admin/peers", params={"active": "false"}, headers=world.support)
    assert inactive.json()["total"] == 0


async def test_disable_queues_node_removal_and_tells_the_owner(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    answer = await client.patch(f"/api/admin/peers/{world.ids['peer']}", json={"active": False}, headers=world.admin)
    assert answer.status_code == 200 and answer.json()["active"] is False and answer.json()["processing"] is True
    async with services.sessionmaker() as db:
        kinds = [op.kind for op in (await db.execute(select(NodeOperation).order_by(NodeOperation.serial))).scalars()]
    assert kinds[-1] is OperationKind.DISABLE
    download = await client.get(f"/api/client/accounts/peers/{world.ids['peer']}", headers=world.customer)
    assert download.status_code == 409
    entry = await last_audit(services)
    assert entry.action == "peer.update" and entry.summary == "movil: Activo → no"


async def test_manual_payment_flag(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    path = f"/api/admin/peers/{world.ids['peer']}"
    assert (await client.patch(path, json={"manual_payment": True}, headers=world.admin)).json()["manual_payment"]
    listed = (await client.get("/api/client/accounts/peers", headers=world.customer)).json()
    assert listed[0]["manual_payment"] is True
    empty = await client.patch(path, json={}, headers=world.admin)
    assert empty.status_code == 422 and empty.json()["code"] == "nothing_to_change"


async def test_move_uses_the_customer_path(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    path = f"/api/admin/peers/{world.ids['peer']}/move"
    before = await audit_count(services)
    missing = await client.post(path, json={"server": "nada"}, headers=world.support)
    assert missing.status_code == 404, missing.text
    assert missing.json() == {"message": "Servidor no encontrado.", "code": "server_not_found"}
    assert await audit_count(services) == before
    answer = await client.post(path, json={"server": world.ids["other_server"]}, headers=world.support)
    assert answer.status_code == 202
    body = answer.json()
    # Make before break: the peer stays on its server until the new node confirms (docs/operations.md).
    assert body["server_name"] == "Miami 1" and body["address"] == "10.8.0.2" and body["processing"] is True
    busy = await client.post(path, json={"server": world.ids["server"]}, headers=world.support)
    assert busy.status_code == 409 and busy.json()["code"] == "peer_busy"
    assert (await last_audit(services)).summary == "movil: de Miami 1 a Madrid 1"


# --- the move when things go wrong (docs/operations.md): the customer is never left without a working peer --------


@pytest.fixture
def clock() -> Iterator[ManualClock]:
    with manual_clock() as clock:
        yield clock


async def _support(world: NodesWorld) -> dict[str, str]:
    await make_user(world.services, "ayuda", role=Role.SUPPORT)
    return bearer(await login(world.client, "ayuda", admin=True))


async def _staff_row(world: NodesWorld, staff: dict[str, str]) -> tuple[str, str, bool]:
    """Where the manager's peer list shows Ana's peer: (server, address, busy)."""
    [row] = (await world.client.get("/api/admin/peers", params={"q": "movil"}, headers=staff)).json()["items"]
    return row["server_name"], row["address"], row["processing"]


async def test_a_move_to_a_server_whose_agent_is_offline_is_refused_and_changes_nothing(
    services: Services, client: AsyncTestClient[Any], clock: ManualClock
) -> None:
    world = await two_nodes(services, client)
    support = await _support(world)
    await world.stop_agent(world.madrid)  # Madrid's agent went away
    async with services.sessionmaker() as db:
        operations = await db.scalar(select(func.count()).select_from(NodeOperation))
    before = await audit_count(services)

    answer = await client.post(f"/api/admin/peers/{world.peer.id}/move", json={"server": world.madrid}, headers=support)
    assert answer.status_code == 409, answer.text
    assert answer.json() == {
        "code": "server_offline",
        "message": "El servidor elegido no está en línea en este momento. Su peer sigue en su servidor actual; elija"
        " otro o intente más tarde.",
    }
    # Nothing queued, recorded or told; staff and the customer still see the peer on Miami, not busy.
    async with services.sessionmaker() as db:
        assert await db.scalar(select(func.count()).select_from(NodeOperation)) == operations
    assert await audit_count(services) == before
    assert await world.pushes() == []
    assert await _staff_row(world, support) == ("Miami 1", "10.8.0.2", False)
    assert await world.deliver(world.madrid) == [] and await world.deliver(world.miami) == []
    await world.assert_one_story(world.miami, world.peer.public_key)


@pytest.mark.parametrize("how", FAILURES)
async def test_a_staff_move_the_target_node_fails_leaves_the_peer_where_it_works(
    services: Services, client: AsyncTestClient[Any], clock: ManualClock, how: str
) -> None:
    """The target node answers with an error, answers after the timeout, or is down until after it."""
    world = await two_nodes(services, client)
    support = await _support(world)
    answer = await client.post(f"/api/admin/peers/{world.peer.id}/move", json={"server": world.madrid}, headers=support)
    assert answer.status_code == 202, answer.text
    assert (answer.json()["server_name"], answer.json()["processing"]) == ("Miami 1", True)

    await fail_operation(world, clock, how, world.madrid)

    # Staff see the peer back on its server and free again; the owner hears why and where the peer stands.
    assert await _staff_row(world, support) == ("Miami 1", "10.8.0.2", False)
    # The overview says why in Spanish; a node's own error words stay, after ours, for the operator to search.
    overview = (await client.get("/api/admin/overview", headers=support)).json()
    [failed] = [op for op in overview["recent_operations"] if op["status"] == "failed"]
    assert failed["server_name"] == "Madrid 1"
    if how == "error":
        assert failed["error"] == (
            "El nodo no pudo aplicar el cambio. Detalle del nodo: apply failed: wg set wg0: No such device"
        )
    else:
        assert failed["error"] == "El nodo no respondió a tiempo; el cambio no se aplicó."
    pushes = await world.pushes()
    assert_told_the_move_failed(pushes, how)
    # The old node never let go of the key: the tunnel the customer has kept working throughout.
    held = world.agents.nodes[world.miami].holds().peers.get(world.peer.public_key)
    assert held is not None and held.allowed_ips == frozenset({"10.8.0.2/32"})
    stored = await world.stored()
    assert (stored.server_id, stored.address, stored.pending_server_id) == (world.miami, "10.8.0.2", None)

    await world.settle_nodes()  # Madrid undoes whatever it applied
    await world.assert_one_story(world.miami, world.peer.public_key)


async def test_extend_by_plan_from_the_later_of_now_and_expiry(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    future = utcnow() + timedelta(days=10)
    async with services.sessionmaker.begin() as db:
        peer = await db.get(Peer, world.ids["peer"])
        assert peer is not None
        peer.expiration_date = future
    answer = await client.post(
        f"/api/admin/peers/{world.ids['peer']}/plans", json={"plan": world.ids["plan"]}, headers=world.admin
    )
    assert answer.status_code == 200
    body = answer.json()
    assert body["plans_history"][-1]["plan_name"] == "Mensual" and body["plans_history"][-1]["plan_price"] == "5.00"
    async with services.sessionmaker() as db:
        stored = await db.get(Peer, world.ids["peer"])
        assert stored is not None and stored.expiration_date is not None
        assert abs((stored.expiration_date - (future + timedelta(hours=720))).total_seconds()) < 5


async def test_extend_revives_an_expired_peer(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    async with services.sessionmaker.begin() as db:
        peer = await db.get(Peer, world.ids["peer"])
        assert peer is not None
        peer.expiration_date, peer.active = utcnow() - timedelta(days=3), False
    answer = await client.post(
        f"/api/admin/peers/{world.ids['peer']}/plans", json={"plan": world.ids["plan"]}, headers=world.admin
    )
    assert answer.status_code == 200 and answer.json()["active"] is True
    async with services.sessionmaker() as db:
        stored = await db.get(Peer, world.ids["peer"])
        assert stored is not None and stored.expiration_date is not None
        assert abs((stored.expiration_date - (utcnow() + timedelta(hours=720))).total_seconds()) < 5


async def test_extend_with_unknown_plan_changes_nothing(services: Services, client: AsyncTestClient[Any]) -> None:
    world = await build_world(services, client)
    before = await audit_count(services)
    answer = await client.post(f"/api/admin/peers/{world.ids['peer']}/plans", json={"plan": "x"}, headers=world.admin)
    assert answer.status_code == 404 and answer.json()["message"] == "Plan no encontrado."
    peer = (await client.get("/api/client/accounts/peers", headers=world.customer)).json()[0]
    assert peer["plans_history"] == [] and await audit_count(services) == before


async def test_a_peer_created_by_staff_comes_back_without_its_mirror_link(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """Staff views never carry the mirror link: it is the customer's configuration, private key included."""
    world = await build_world(services, client)
    answer = await client.post(
        "/api/admin/peers", json={"username": "ana", "name": "nuevo", "days": 30}, headers=world.admin
    )
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["name"] == "nuevo" and body["username"] == "ana"
    assert "mirror_link" not in body and "/mirror/" not in answer.text
    async with services.sessionmaker() as db:
        peer = (await db.execute(select(Peer).where(Peer.name == "nuevo"))).scalar_one()
    assert services.box.decrypt(peer.mirror_token_enc) not in answer.text


async def test_staff_search_reads_percent_and_underscore_as_characters(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """A typed `%` or `_` is looked for as such: `%` does not list every peer, user, invoice or audit entry."""
    world = await build_world(services, client)
    # Something in the audit log to (not) find.
    disabled = await client.patch(f"/api/admin/peers/{world.ids['peer']}", json={"active": False}, headers=world.admin)
    assert disabled.status_code == 200
    for q in ("%", "_", "m_vil"):
        peers = (await client.get("/api/admin/peers", params={"q": q}, headers=world.support)).json()
        users = (await client.get("/api/admin/users", params={"q": q}, headers=world.support)).json()
        invoices = (await client.get("/api/admin/invoices", params={"q": q}, headers=world.support)).json()
        audit = (await client.get("/api/admin/audit", params={"q": q}, headers=world.admin)).json()
        assert (peers["total"], users["total"], invoices["total"], audit["total"]) == (0, 0, 0, 0), q
    # A name that holds the character is still found by it.
    async with services.sessionmaker.begin() as db:
        (await db.get(Peer, world.ids["peer"])).name = "mi_movil%"  # type: ignore[union-attr]
    found = (await client.get("/api/admin/peers", params={"q": "_movil%"}, headers=world.support)).json()
    assert [p["name"] for p in found["items"]] == ["mi_movil%"]
