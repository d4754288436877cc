"""Customer peer endpoints: list, download, mirror links, asynchronous operations and ownership."""

from __future__ import annotations

import io
from datetime import timedelta
from decimal import Decimal
from typing import Any

import wgconfig
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select, update

from controlplane.db import utcnow
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.services import Services
from controlplane.wgkeys import public_key_of
from tests.api.factories import bearer, login, make_peer, make_server, make_user

PEERS = "/api/client/accounts/peers"


async def _setup(services: Services, client: AsyncTestClient[Any]) -> tuple[dict[str, str], Peer, Server]:
    user = await make_user(services, "ana")
    server = await make_server(services)
    peer = await make_peer(services, user, "movil", server)
    return bearer(await login(client, "ana")), peer, server


def _parse(text: str) -> wgconfig.WGConfig:
    config = wgconfig.WGConfig()
    config.read_from_fileobj(io.StringIO(text))
    return config


async def test_customer_lists_own_peers_with_every_field(services: Services, client: AsyncTestClient[Any]) -> None:
    headers, peer, server = await _setup(services, client)
    other = await make_user(services, "beto")
    await make_peer(services, other, "ajeno", server)

    answer = await client.get(PEERS, headers=headers)
    assert answer.status_code == 200
    [item] = answer.json()
    assert item["id"] == peer.id and item["name"] == "movil" and item["active"] is True
    assert item["server"] == {
        "id": server.id,
        "name": "Miami 1",
        "address": "miami1.vpn.test",
        "active": True,
        "ubication": "Miami",
        "allow_partys": True,
        "online": True,  # its agent was heard from lately
        "in_sync": False,  # the new peer is still queued for it
    }
    assert item["mirror_link"].startswith("http://testserver.local/mirror/")
    assert item["party"] is None and item["expiration_date"] is None and item["plans_history"] == []
    assert item["address"] == "10.8.0.2"
    assert item["processing"] is True  # the node has not confirmed the new peer yet


async def test_download_is_a_wg_quick_file_matching_the_peer(services: Services, client: AsyncTestClient[Any]) -> None:
    headers, peer, server = await _setup(services, client)
    answer = await client.get(f"{PEERS}/{peer.id}", headers=headers)
    assert answer.status_code == 200
    assert answer.headers["content-disposition"] == "attachment; filename=\"movil.conf\"; filename*=UTF-8''movil.conf"
    # One charset: the answer said "text/plain; charset=utf-8; charset=utf-8".
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"
    config = _parse(answer.text)
    assert public_key_of(config.interface["PrivateKey"]) == peer.public_key
    assert config.interface["Address"] == "10.8.0.2/32"
    [server_key] = config.peers
    assert server_key == server.public_key
    assert config.peers[server_key]["Endpoint"] == "miami1.vpn.test:51820"
    assert config.peers[server_key]["AllowedIPs"] == ["0.0.0.0/0", "::/0"]


async def test_private_and_preshared_keys_are_not_stored_in_plain_text(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    headers, peer, _ = await _setup(services, client)
    config = _parse((await client.get(f"{PEERS}/{peer.id}", headers=headers)).text)
    async with services.sessionmaker() as db:
        row = (await db.execute(select(Peer.private_key_enc, Peer.preshared_key_enc).where(Peer.id == peer.id))).one()
    assert config.interface["PrivateKey"] not in row.private_key_enc
    assert config.peers[next(iter(config.peers))]["PresharedKey"] not in row.preshared_key_enc


async def test_another_users_peer_answers_404_everywhere(services: Services, client: AsyncTestClient[Any]) -> None:
    _, peer, _ = await _setup(services, client)
    await make_user(services, "beto")
    intruder = bearer(await login(client, "beto"))
    for answer in [
        await client.get(f"{PEERS}/{peer.id}", headers=intruder),
        await client.patch(f"{PEERS}/{peer.id}", json={"operation": "regenerate_token"}, headers=intruder),
        await client.patch(f"{PEERS}/{peer.id}", json={"operation": "regenerate"}, headers=intruder),
        await client.get(f"/api/client/network/{peer.id}", headers=intruder),
    ]:
        assert answer.status_code == 404
        assert answer.json() == {"message": "Peer no encontrado.", "code": "peer_not_found"}


async def test_mirror_link_serves_the_config_until_regenerated(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    headers, peer, _ = await _setup(services, client)
    old_link = (await client.get(PEERS, headers=headers)).json()[0]["mirror_link"]
    old_path = old_link.removeprefix("http://testserver.local")
    mirrored = await client.get(old_path)
    assert mirrored.status_code == 200
    assert mirrored.headers["content-type"] == "text/plain; charset=utf-8"
    assert mirrored.text == (await client.get(f"{PEERS}/{peer.id}", headers=headers)).text
    assert (await client.get(old_path, headers={"If-None-Match": mirrored.headers["etag"]})).status_code == 304

    answer = await client.patch(f"{PEERS}/{peer.id}", json={"operation": "regenerate_token"}, headers=headers)
    assert answer.status_code == 200
    assert answer.json()["message"] == "Mirror Link regenerado correctamente."
    new_link = answer.json()["mirror_link"]
    assert new_link != old_link
    assert (await client.get(old_path)).status_code == 404
    assert (await client.get(new_link.removeprefix("http://testserver.local"))).status_code == 200


async def test_regenerate_is_asynchronous_and_refuses_a_second_one_while_busy(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    headers, peer, _ = await _setup(services, client)
    async with services.sessionmaker.begin() as db:  # the node confirmed the creation
        await services.operations.covered_by_snapshot(db, peer.server_id, 10**6)
    answer = await client.patch(f"{PEERS}/{peer.id}", json={"operation": "regenerate"}, headers=headers)
    assert answer.status_code == 202
    assert answer.json()["data"]["processing"] is True
    busy = await client.patch(f"{PEERS}/{peer.id}", json={"operation": "regenerate"}, headers=headers)
    assert busy.status_code == 409
    assert busy.json()["code"] == "peer_busy"
    async with services.sessionmaker() as db:
        ops = (await db.execute(select(NodeOperation).where(NodeOperation.peer_id == peer.id))).scalars().all()
        stored = await db.get_one(Peer, peer.id)
    pending = [op for op in ops if op.status is OperationStatus.PENDING]
    assert [op.kind.value for op in pending] == ["regenerate"]
    # One delta swaps the keys on the node: the old one out, the pending new one in.
    assert pending[0].delta == NodeChange(remove_peers=(peer.public_key,), pending_peers=(peer.id,))
    # Until the node confirms, the customer keeps (and downloads) the old keys; the new ones wait beside them.
    assert stored.public_key == peer.public_key
    assert stored.pending_public_key not in (None, peer.public_key)


async def test_change_server_rules(services: Services, client: AsyncTestClient[Any]) -> None:
    headers, peer, server = await _setup(services, client)
    async with services.sessionmaker.begin() as db:
        await services.operations.covered_by_snapshot(db, server.id, 10**6)
    other = await make_server(services, "Madrid 1", "10.9.0.0/24")
    closed = await make_server(services, "Cerrado", "10.10.0.0/24", active=False)
    down = await make_server(services, "Caido", "10.11.0.0/24")
    async with services.sessionmaker.begin() as db:  # its agent's stream ended a moment ago
        (await db.get_one(Server, down.id)).disconnected_at = utcnow()

    options = (await client.get(f"/api/client/network/{peer.id}", headers=headers)).json()
    # Offline servers are listed as such (the customer sees why they cannot go there).
    assert [(o["name"], o["online"], o["in_sync"]) for o in options] == [
        ("Caido", False, True),
        ("Madrid 1", True, True),
    ]

    cases = [
        ({"operation": "change_server"}, 422, "server_required"),
        ({"operation": "change_server", "server": "no-existe"}, 404, "server_not_found"),
        ({"operation": "change_server", "server": closed.id}, 409, "server_inactive"),
        ({"operation": "change_server", "server": down.id}, 409, "server_offline"),
        ({"operation": "volar"}, 422, "unknown_operation"),
        ({"operation": "regenerate", "extra": 1}, 422, "invalid"),
        # Each operation takes its own fields only (the body is a tagged union on `operation`).
        ({"operation": "regenerate", "server": other.id}, 422, "invalid"),
    ]
    for body, status, code in cases:
        answer = await client.patch(f"{PEERS}/{peer.id}", json=body, headers=headers)
        assert (answer.status_code, answer.json()["code"]) == (status, code), body

    moved = await client.patch(
        f"{PEERS}/{peer.id}", json={"operation": "change_server", "server": other.id}, headers=headers
    )
    assert moved.status_code == 202
    # Make before break: the peer stays where it works until the new node confirms; only the new node hears yet.
    assert moved.json()["data"]["server"]["name"] == "Miami 1"
    assert moved.json()["data"]["address"] == "10.8.0.2" and moved.json()["data"]["processing"] is True
    async with services.sessionmaker() as db:
        ops = (await db.execute(select(NodeOperation).order_by(NodeOperation.created))).scalars().all()
        stored = await db.get_one(Peer, peer.id)
    assert [(op.server_id, op.kind.value) for op in ops[-1:]] == [(other.id, "change_server")]
    assert (stored.pending_server_id, stored.pending_address) == (other.id, "10.9.0.2")


async def test_a_regenerate_on_a_peer_whose_server_is_offline_is_refused_and_changes_nothing(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    headers, peer, server = await _setup(services, client)
    async with services.sessionmaker.begin() as db:  # its node confirmed the new peer...
        await services.operations.covered_by_snapshot(db, server.id, 10**6)
    config = (await client.get(f"{PEERS}/{peer.id}", headers=headers)).text
    async with services.sessionmaker.begin() as db:  # ...then its agent's stream ended
        (await db.get_one(Server, server.id)).disconnected_at = utcnow()
        queued = await db.scalar(select(func.count()).select_from(NodeOperation))

    answer = await client.patch(f"{PEERS}/{peer.id}", json={"operation": "regenerate"}, headers=headers)
    assert answer.status_code == 409
    assert answer.json() == {
        "message": "El servidor de este peer no está en línea en este momento, así que no puede recibir claves"
        " nuevas. El peer conserva sus claves actuales; intente regenerarlo cuando el servidor vuelva.",
        "code": "server_offline",
    }
    # Nothing queued for a node that cannot take it, nothing pending, the same file and no busy peer.
    async with services.sessionmaker() as db:
        stored = await db.get_one(Peer, peer.id)
        assert await db.scalar(select(func.count()).select_from(NodeOperation)) == queued
    assert (stored.pending_public_key, stored.pending_operation_id) == (None, None)
    assert (await client.get(f"{PEERS}/{peer.id}", headers=headers)).text == config
    [listed] = (await client.get(PEERS, headers=headers)).json()
    assert listed["processing"] is False


async def test_a_disabled_peer_cannot_be_downloaded_regenerated_or_get_a_new_link(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    headers, peer, _ = await _setup(services, client)
    async with services.sessionmaker.begin() as db:
        await services.peers.set_active(db, await services.peers.by_id(db, peer.id), False)
    download = await client.get(f"{PEERS}/{peer.id}", headers=headers)
    assert download.status_code == 409
    assert download.json()["message"] == "No se puede descargar la configuración de un peer inactivo"
    for body in (
        {"operation": "regenerate"},
        {"operation": "regenerate_token"},
        {"operation": "change_server", "server": "x"},
    ):
        answer = await client.patch(f"{PEERS}/{peer.id}", json=body, headers=headers)
        assert answer.status_code == 409
        assert answer.json()["message"] == "Peer no activo"
    link = (await client.get(PEERS, headers=headers)).json()[0]["mirror_link"]
    assert (await client.get(link.removeprefix("http://testserver.local"))).status_code == 404


async def test_freed_addresses_are_reused_and_a_full_subnet_says_so(services: Services) -> None:
    user = await make_user(services, "ana")
    server = await make_server(services, "Chico", "10.20.0.0/29")  # hosts .1-.6: node .1, peers .2-.6
    peers = [await make_peer(services, user, f"p{i}", server) for i in range(5)]
    assert [p.address for p in peers] == [f"10.20.0.{i}" for i in range(2, 7)]
    async with services.sessionmaker() as db:
        try:
            await services.peers.create(db, user.id, "p9", server=await db.get(Server, server.id))
            raise AssertionError("a full subnet must refuse")
        except Exception as exc:
            assert getattr(exc, "code", "") == "subnet_full"
            assert "no tiene direcciones libres" in str(exc)
        await db.rollback()
    async with services.sessionmaker.begin() as db:
        await db.delete(await db.get(Peer, peers[1].id))
    again = await make_peer(services, user, "nuevo", server)
    assert again.address == "10.20.0.3"


async def test_new_peers_go_to_a_server_whose_agent_is_connected(services: Services) -> None:
    """Found by the browser tests: a just-created server (agent not installed yet) is the emptiest and took every
    new peer, which then waited for an agent that was not there. A connected server with room comes first."""
    user = await make_user(services, "rosa")
    connected = await make_server(services, "Conectado", "10.8.0.0/24")
    await make_server(services, "Nuevo", "10.9.0.0/24", ready=False)  # no agent ever: empty, but not for customers
    async with services.sessionmaker.begin() as db:
        (await db.get(Server, connected.id)).last_seen = utcnow()  # type: ignore[union-attr]
    await make_peer(services, user, "uno", server=connected)  # the connected one is now the fuller one
    async with services.sessionmaker.begin() as db:
        chosen = await services.peers.roomiest_server(db)
    assert chosen.id == connected.id
    # When no agent has been seen recently, the roomiest active server still takes the peer (queued for its agent).
    async with services.sessionmaker.begin() as db:
        (await db.get(Server, connected.id)).last_seen = utcnow() - timedelta(minutes=5)  # type: ignore[union-attr]
    async with services.sessionmaker.begin() as db:
        assert (await services.peers.roomiest_server(db)).name == "Nuevo"


async def test_the_list_shows_a_change_made_behind_it_at_once(services: Services, client: AsyncTestClient[Any]) -> None:
    """The list is kept per process; every change a customer can see there (server, room, plan) empties it."""
    ana = await make_user(services, "ana")
    server = await make_server(services, "Miami 1")
    peer = await make_peer(services, ana, "movil", server)
    headers = bearer(await login(client, "ana"))
    [listed] = (await client.get("/api/client/accounts/peers", headers=headers)).json()
    assert listed["server"]["name"] == "Miami 1" and listed["plans_history"] == []
    async with services.sessionmaker.begin() as db:
        stored = await db.get(Server, server.id)
        assert stored is not None
        stored.name = "Miami 2"
    [listed] = (await client.get("/api/client/accounts/peers", headers=headers)).json()
    assert listed["server"]["name"] == "Miami 2"
    async with services.sessionmaker.begin() as db:
        stored_peer = await services.peers.by_id(db, peer.id)
        await services.peers.add_plan(db, stored_peer, None, "Mensual", Decimal("5.00"), 720)
    [listed] = (await client.get("/api/client/accounts/peers", headers=headers)).json()
    assert [h["plan_name"] for h in listed["plans_history"]] == ["Mensual"]
    # What the list does not show (a node's heartbeat, its serial) leaves it alone; it is still right afterwards.
    async with services.sessionmaker.begin() as db:
        await db.execute(update(Server).where(Server.id == server.id).values(serial=Server.serial + 1))
    assert (await client.get("/api/client/accounts/peers", headers=headers)).json() == [listed]
