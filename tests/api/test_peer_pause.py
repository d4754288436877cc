"""A customer pauses and resumes their own peer (docs/api.md, "Pause and resume"): the node's desired state drops the
key while paused and holds it again on resume; the configuration stays downloadable; the expiry keeps counting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import select

from controlplane.db import utcnow
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.nodes.desired_state import delta_message, full_state
from controlplane.nodes.models import NodeOperation
from controlplane.services import Services
from tests.api.factories import bearer, login, make_peer, make_server, make_user

PEERS = "/api/client/accounts/peers"


async def _created(services: Services, server: Server) -> None:
    """The node confirmed what it was sent (the peer's create): the peer is not busy."""
    async with services.sessionmaker.begin() as db:
        await services.operations.covered_by_snapshot(db, server.id, 10**6)


async def _node_keys(services: Services, server: Server) -> set[str]:
    """The keys the peer's node must hold now: its full state, as a reconnecting agent gets it."""
    async with services.sessionmaker() as db:
        state = await full_state(db, services.box, await db.get_one(Server, server.id))
    return {p.public_key for p in state.peers}


async def _last_delta(services: Services, server: Server) -> tuple[list[str], list[str]]:
    """The last change queued for the node, as its agent reads it: (keys added, keys removed)."""
    async with services.sessionmaker() as db:
        operation = (
            (
                await db.execute(
                    select(NodeOperation)
                    .where(NodeOperation.server_id == server.id)
                    .order_by(NodeOperation.serial.desc())
                )
            )
            .scalars()
            .first()
        )
        assert operation is not None
        delta = await delta_message(db, services.box, operation)
    return [p.public_key for p in delta.upsert_peers], list(delta.remove_peers)


async def test_a_paused_peer_is_off_its_node_until_resumed_and_stays_downloadable(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    user = await make_user(services, "ana")
    server = await make_server(services)
    peer = await make_peer(services, user, "movil", server)
    await _created(services, server)
    headers = bearer(await login(client, "ana"))
    assert peer.public_key in await _node_keys(services, server)

    paused = await client.patch(f"{PEERS}/{peer.id}", json={"operation": "pause"}, headers=headers)
    assert paused.status_code == 200
    body = paused.json()
    assert body["message"].startswith("Peer movil en pausa: no tendrá conexión hasta que lo reanude.")
    assert body["paused"] is True and body["active"] is True and body["processing"] is False
    # Since when as a moment (the page shows it in the customer's time zone), not a clock time in the text.
    assert abs(datetime.fromisoformat(body["paused_since"]) - datetime.now(UTC)) < timedelta(minutes=5)
    assert body["pause_notice"].startswith("El servidor no acepta la conexión de este peer")
    assert "UTC" not in body["pause_notice"]
    assert "el vencimiento sigue contando" in body["pause_notice"]
    # The node drops the key now, and a node that reconnects gets a full state without it.
    assert await _last_delta(services, server) == ([], [peer.public_key])
    assert peer.public_key not in await _node_keys(services, server)
    # The configuration, the QR (the same text) and the mirror link stay available.
    download = await client.get(f"{PEERS}/{peer.id}", headers=headers)
    assert download.status_code == 200 and "PrivateKey" in download.text
    link = (await client.get(PEERS, headers=headers)).json()[0]["mirror_link"]
    assert (await client.get(link.removeprefix("http://testserver.local"))).status_code == 200
    # The list says so too, and a second pause is refused.
    [listed] = (await client.get(PEERS, headers=headers)).json()
    assert listed["paused"] is True
    again = await client.patch(f"{PEERS}/{peer.id}", json={"operation": "pause"}, headers=headers)
    assert (again.status_code, again.json()["code"]) == (409, "peer_paused")
    # Staff enabling it (as a payment would) does not bring the key back: the pause is the customer's.
    async with services.sessionmaker.begin() as db:
        await services.peers.set_active(db, await services.peers.by_id(db, peer.id), True, by_staff=True)
    assert peer.public_key not in await _node_keys(services, server)

    resumed = await client.patch(f"{PEERS}/{peer.id}", json={"operation": "resume"}, headers=headers)
    assert resumed.status_code == 200
    assert resumed.json()["message"] == "Peer movil reanudado: ya puede conectarse con su configuración de siempre."
    assert resumed.json()["paused"] is False and resumed.json()["pause_notice"] is None
    assert await _last_delta(services, server) == ([peer.public_key], [])
    assert peer.public_key in await _node_keys(services, server)
    again = await client.patch(f"{PEERS}/{peer.id}", json={"operation": "resume"}, headers=headers)
    assert (again.status_code, again.json()["code"]) == (409, "peer_not_paused")


async def test_another_customers_peer_cannot_be_paused_or_resumed(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    server = await make_server(services)
    ana = await make_user(services, "ana")
    await make_user(services, "beto")
    peer = await make_peer(services, ana, "movil", server)
    beto = bearer(await login(client, "beto"))
    for operation in ("pause", "resume"):
        answer = await client.patch(f"{PEERS}/{peer.id}", json={"operation": operation}, headers=beto)
        assert (answer.status_code, answer.json()["code"]) == (404, "peer_not_found"), operation
    assert peer.public_key in await _node_keys(services, server)


async def test_a_paused_peer_still_expires_and_resuming_it_does_not_bring_it_back(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    user = await make_user(services, "ana")
    server = await make_server(services)
    peer = await make_peer(services, user, "movil", server)
    await _created(services, server)
    headers = bearer(await login(client, "ana"))
    async with services.sessionmaker.begin() as db:
        (await db.get_one(Peer, peer.id)).expiration_date = utcnow() + timedelta(hours=1)
    assert (await client.patch(f"{PEERS}/{peer.id}", json={"operation": "pause"}, headers=headers)).status_code == 200

    async with services.sessionmaker.begin() as db:  # the hour passes while paused: a pause buys no time
        (await db.get_one(Peer, peer.id)).expiration_date = utcnow() - timedelta(minutes=1)
    async with services.sessionmaker.begin() as db:
        assert await services.peers.expire_due(db) == 1
    [listed] = (await client.get(PEERS, headers=headers)).json()
    assert (listed["active"], listed["disabled_reason"], listed["paused"]) == (False, "expired", True)
    await _created(services, server)  # the node confirmed the expiry (the peer was busy with it until then)

    resumed = await client.patch(f"{PEERS}/{peer.id}", json={"operation": "resume"}, headers=headers)
    assert resumed.status_code == 200
    assert resumed.json()["message"] == "Peer movil reanudado. Sigue inactivo hasta que renueve su plan."
    assert peer.public_key not in await _node_keys(services, server)  # expired: off its node all the same
    paused = await client.patch(f"{PEERS}/{peer.id}", json={"operation": "pause"}, headers=headers)
    assert (paused.status_code, paused.json()["code"]) == (409, "peer_inactive")
