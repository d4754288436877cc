"""Renaming a peer: the owner from the peers page, staff from the manager; the peer name rule, one name per account
without regard to case, the owner's other pages and the peer's room told, an audit entry for staff."""

from __future__ import annotations

from typing import Any

from litestar.testing import AsyncTestClient

from controlplane.services import Services
from tests.api.factories import make_peer, make_server
from tests.api.manager.world import audit_count, build_world, last_audit
from tests.api.test_rooms import ROOMS, create, join, node_answers, person

PEERS = "/api/client/accounts/peers"
RULE = "El nombre del peer debe tener entre 1 y 32 caracteres: letras, números, guion o guion bajo."


async def _rename(client: AsyncTestClient[Any], headers: dict[str, str], peer_id: str, name: Any) -> Any:
    return await client.patch(f"{PEERS}/{peer_id}", json={"operation": "rename", "name": name}, headers=headers)


async def test_the_owner_renames_a_peer_and_sees_it_everywhere(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    server = await make_server(services)
    ana = await person(services, client, "ana")
    peer = await make_peer(services, ana.user, "movil", server)
    await make_peer(services, ana.user, "laptop", server)
    ana.inbox.clear()

    answer = await _rename(client, ana.headers, peer.id, "  telefono-Ana_2 ")
    assert answer.status_code == 200, answer.text
    assert answer.json()["name"] == "telefono-Ana_2" and answer.json()["message"] == "Nombre del peer cambiado."
    # The list (cached until something changes) and the downloaded file's name follow at once.
    listed = (await client.get(PEERS, headers=ana.headers)).json()
    assert sorted(p["name"] for p in listed) == ["laptop", "telefono-Ana_2"]
    download = await client.get(f"{PEERS}/{peer.id}", headers=ana.headers)
    assert 'filename="telefono-Ana_2.conf"' in download.headers["content-disposition"]
    # The owner's other pages hear it.
    [push] = ana.inbox.of("updated_peer")
    assert push["data"]["id"] == peer.id and push["data"]["name"] == "telefono-Ana_2"


async def test_names_that_break_the_rule_or_are_taken_are_refused_in_spanish_and_change_nothing(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    server = await make_server(services)
    ana = await person(services, client, "ana")
    peer = await make_peer(services, ana.user, "movil", server)
    await make_peer(services, ana.user, "laptop", server)
    for bad in ("", "   ", "con espacio", "ñandú", "a" * 33, "peer/1", None):
        answer = await _rename(client, ana.headers, peer.id, bad)
        assert answer.status_code == 422, bad
        body = answer.json()
        assert body["message"] == RULE and body["code"] == "invalid_peer_name", bad
        assert body["fields"] == {"name": "Nombre inválido."}
    taken = await _rename(client, ana.headers, peer.id, "LAPTOP")  # taken without regard to case
    assert taken.status_code == 409
    assert taken.json()["message"] == "Ya tiene un peer con ese nombre." and taken.json()["code"] == "peer_name_taken"
    listed = (await client.get(PEERS, headers=ana.headers)).json()
    assert sorted(p["name"] for p in listed) == ["laptop", "movil"]
    # The same name with other capitals is the peer's own: allowed.
    assert (await _rename(client, ana.headers, peer.id, "MOVIL")).json()["name"] == "MOVIL"


async def test_another_customers_peer_cannot_be_renamed(services: Services, client: AsyncTestClient[Any]) -> None:
    server = await make_server(services)
    ana = await person(services, client, "ana")
    beto = await person(services, client, "beto")
    peer = await make_peer(services, ana.user, "movil", server)
    answer = await _rename(client, beto.headers, peer.id, "robado")
    assert answer.status_code == 404
    assert answer.json() == {"message": "Peer no encontrado.", "code": "peer_not_found"}
    assert [p["name"] for p in (await client.get(PEERS, headers=ana.headers)).json()] == ["movil"]


async def test_the_members_of_a_peers_room_see_its_new_name(services: Services, client: AsyncTestClient[Any]) -> None:
    server = await make_server(services)
    ana = await person(services, client, "ana")
    beto = await person(services, client, "beto")
    ana1 = await make_peer(services, ana.user, "ana1", server)
    beto1 = await make_peer(services, beto.user, "beto1", server)
    await node_answers(services)
    room = await create(client, ana, "LAN", ana1)
    assert (await join(client, beto, "LAN", room["password"], beto1)).status_code == 200
    await node_answers(services)
    ana.inbox.clear()

    assert (await _rename(client, beto.headers, beto1.id, "portatil")).status_code == 200
    [told] = ana.inbox.of("updated_owner_party")
    assert sorted(p["name"] for p in told["data"]["peers"]) == ["ana1", "portatil"]
    rooms = (await client.get(ROOMS, headers=ana.headers)).json()
    assert sorted(p["name"] for p in rooms["owned_partys"][0]["peers"]) == ["ana1", "portatil"]


async def test_staff_rename_is_audited_and_follows_the_same_rule(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    world = await build_world(services, client)
    path = f"/api/admin/peers/{world.ids['peer']}"
    answer = await client.patch(path, json={"name": "movil-ana"}, headers=world.admin)
    assert answer.status_code == 200 and answer.json()["name"] == "movil-ana"
    entry = await last_audit(services)
    assert (entry.action, entry.summary) == ("peer.rename", "Peer movil renombrado a movil-ana")
    listed = (await client.get(PEERS, headers=world.customer)).json()
    assert [p["name"] for p in listed] == ["movil-ana"]

    before = await audit_count(services)
    bad = await client.patch(path, json={"name": "con espacio"}, headers=world.admin)
    assert bad.status_code == 422 and bad.json()["message"] == RULE
    # Support reads peers but does not change them.
    assert (await client.patch(path, json={"name": "otro"}, headers=world.support)).status_code == 403
    assert await audit_count(services) == before
    assert [p["name"] for p in (await client.get(PEERS, headers=world.customer)).json()] == ["movil-ana"]
