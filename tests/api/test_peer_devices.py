"""What customers see of their own service (docs/operations.md, "One device per peer"; docs/api.md, "Mirror links",
"Servers for a peer"): the warning when two devices share a peer, the mirror link bound to one device, and the
servers' load in the move list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from controlplane.db import transaction, utcnow
from controlplane.domain.accounts.models import Role
from controlplane.domain.peers.devices import SharedConfigWatch
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.nodes.agent_sessions import AgentSessions
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.nodes.servicer import NodeControlServicer, start_grpc_server
from controlplane.services import Services
from node_agent.stats import split
from protos import agent_pb2
from tests.api.factories import bearer, login, make_peer, make_server, make_user
from tests.api.test_agent_resume import node_with_credential, wait_until
from tests.api.test_rooms import ROOMS, node_answers, person
from tests.multiprocess.scripted_agent import ScriptedAgent

PEERS = "/api/client/accounts/peers"
HOME, MOBILE, FRIEND = "203.0.113.5:51000", "198.51.100.7:40000", "192.0.2.44:61000"
LINK_PREFIX = "http://testserver.local"


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def node_with_watch(services: Services, clock: Clock) -> tuple[AgentSessions, SharedConfigWatch]:
    """The agents' servicer of a control-plane process, with its endpoint watch on a clock the test moves."""
    watch = SharedConfigWatch(services.hub, services.peers.view, clock)
    node = AgentSessions(
        services.sessionmaker,
        services.read_sessionmaker,
        services.box,
        services.servers,
        services.operations,
        services.hub,
        endpoints=watch.record,
    )
    return node, watch


async def report(node: AgentSessions, clock: Clock, server: Server, peer: Peer, *endpoints: str) -> None:
    """The node's stats reports, 5 s apart, with the peer at each endpoint in turn."""
    for endpoint in endpoints:
        clock.now += 5
        stats = agent_pb2.PeerStats(
            public_key=peer.public_key, latest_handshake=int(clock.now), rx_bytes=1, tx_bytes=1, endpoint=endpoint
        )
        await node.stats(server.id, agent_pb2.StatsReport(serial=1, peers=[stats]))


async def listed(client: AsyncTestClient[Any], headers: dict[str, str]) -> dict[str, Any]:
    answer = await client.get(PEERS, headers=headers)
    assert answer.status_code == 200
    return answer.json()[0]  # type: ignore[no-any-return]


async def test_two_devices_taking_turns_warn_the_owner_once_and_staff_see_a_count(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    server = await make_server(services)
    ana = await person(services, client, "ana")
    peer = await make_peer(services, ana.user, "movil", server)
    await make_user(services, "jefa", role=Role.ADMIN)
    admin = bearer(await login(client, "jefa", admin=True))
    clock = Clock()
    node, _ = node_with_watch(services, clock)
    ana.inbox.clear()

    await report(node, clock, server, peer, HOME, FRIEND, HOME)
    assert (await listed(client, ana.headers))["shared_config_warning"] is False
    assert ana.inbox.of("updated_peer") == []

    await report(node, clock, server, peer, FRIEND)  # A -> B -> A -> B: two devices
    assert (await listed(client, ana.headers))["shared_config_warning"] is True
    [push] = ana.inbox.of("updated_peer")
    assert push["data"]["id"] == peer.id and push["data"]["shared_config_warning"] is True
    overview = (await client.get("/api/admin/overview", headers=admin)).json()
    assert overview["peers_shared_config"] == 1

    # They keep fighting: the peer stays marked, the owner is not told again.
    await report(node, clock, server, peer, HOME, FRIEND, HOME, FRIEND)
    # Nor after a restart (a new process, trails forgotten): the mark is in the database.
    restarted, _ = node_with_watch(services, clock)
    await report(restarted, clock, server, peer, HOME, FRIEND, HOME, FRIEND)
    assert len(ana.inbox.of("updated_peer")) == 1
    async with services.sessionmaker() as db:
        stored = await db.get_one(Peer, peer.id)
    assert stored.shared_config_warned_at is not None


async def test_a_complete_report_the_agent_split_in_parts_still_follows_every_peer(
    services: Services, client: AsyncTestClient[Any], tmp_path: Path
) -> None:
    # A large report leaves the agent in parts (node_agent/stats.py, `split`), here one peer a part, over the real
    # gRPC port. The parts are one complete report: were each taken as complete on its own, the part naming the
    # laptop would forget the phone's moves every time, and two devices on the phone would never be noticed.
    server, credential = await node_with_credential(services)
    ana = await person(services, client, "ana")
    phone = await make_peer(services, ana.user, "movil", server)
    laptop = await make_peer(services, ana.user, "pc", server)
    clock = Clock()
    node, _ = node_with_watch(services, clock)
    servicer = NodeControlServicer(node, services.agents)
    target = f"unix:{tmp_path / 'grpc.sock'}"
    port = await start_grpc_server(servicer, target)
    agent = ScriptedAgent(target, server.id, credential)
    try:
        agent.start()
        await agent.wait_full_state()
        for endpoint in (HOME, FRIEND, HOME, FRIEND):  # A -> B -> A -> B: two devices
            clock.now += 5
            lines = [
                agent_pb2.PeerStats(public_key=phone.public_key, latest_handshake=int(clock.now), endpoint=endpoint),
                agent_pb2.PeerStats(public_key=laptop.public_key, latest_handshake=int(clock.now), endpoint=MOBILE),
            ]
            totals = agent_pb2.StatsTotals(peers=2, peers_connected=2)
            parts = split(agent_pb2.StatsReport(serial=1, peers=lines, totals=totals, complete=True), max_bytes=250)
            assert [len(part.peers) for part in parts] == [1, 1]
            for part in parts:
                agent.send(agent_pb2.AgentMessage(stats=part))

        async def warned() -> bool:
            peers = (await client.get(PEERS, headers=ana.headers)).json()
            return any(p["id"] == phone.id and p["shared_config_warning"] for p in peers)

        await wait_until(warned, "the phone's two devices were never noticed")
        async with services.sessionmaker() as db:
            assert (await db.get_one(Peer, laptop.id)).shared_config_warned_at is None
            assert (await db.get_one(Server, server.id)).stats_peers_connected == 2
    finally:
        await agent.stop()
        await servicer.stop(port)


async def test_reports_of_changes_that_do_not_name_a_peer_keep_following_its_moves(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    # An agent of this version names only the peers whose figures changed (docs/agent-protocol.md, "Stats"): a
    # report about somebody else says the peer stayed where it was, it does not forget its moves.
    server = await make_server(services)
    ana = await person(services, client, "ana")
    peer = await make_peer(services, ana.user, "movil", server)
    other = await make_peer(services, ana.user, "pc", server)
    clock = Clock()
    node, _ = node_with_watch(services, clock)
    totals = agent_pb2.StatsTotals(peers=2)

    async def changes(who: Peer, endpoint: str, complete: bool = False) -> None:
        clock.now += 5
        line = agent_pb2.PeerStats(public_key=who.public_key, latest_handshake=int(clock.now), endpoint=endpoint)
        await node.stats(server.id, agent_pb2.StatsReport(serial=1, peers=[line], totals=totals, complete=complete))

    await changes(peer, HOME, complete=True)
    for endpoint in (FRIEND, HOME, FRIEND):  # A -> B -> A -> B, with the other peer's news in between
        await changes(other, MOBILE)
        await changes(peer, endpoint)
    mine = (await client.get(PEERS, headers=ana.headers)).json()
    assert {p["name"]: p["shared_config_warning"] for p in mine} == {"movil": True, "pc": False}
    [push] = ana.inbox.of("updated_peer")
    assert push["data"]["id"] == peer.id


async def test_a_phone_that_changes_network_is_not_warned(services: Services, client: AsyncTestClient[Any]) -> None:
    server = await make_server(services)
    ana = await person(services, client, "ana")
    peer = await make_peer(services, ana.user, "movil", server)
    clock = Clock()
    node, _ = node_with_watch(services, clock)
    ana.inbox.clear()
    # Wi-Fi, then mobile data for a while, then home again; then, an hour later, out and back once more.
    await report(node, clock, server, peer, "", HOME, HOME, MOBILE, MOBILE, MOBILE, HOME, HOME)
    clock.now += 3600
    await report(node, clock, server, peer, MOBILE, HOME)
    assert (await listed(client, ana.headers))["shared_config_warning"] is False
    assert ana.inbox.of("updated_peer") == []


async def test_another_customers_peer_is_not_warned_by_one_report(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """Each peer has its own trail: two peers on one node, each on one address, never add up to a fight."""
    server = await make_server(services)
    ana = await person(services, client, "ana")
    beto = await person(services, client, "beto")
    peers = [await make_peer(services, ana.user, "movil", server), await make_peer(services, beto.user, "pc", server)]
    clock = Clock()
    node, _ = node_with_watch(services, clock)
    for _ in range(6):
        clock.now += 5
        stats = [
            agent_pb2.PeerStats(public_key=p.public_key, latest_handshake=int(clock.now), endpoint=e)
            for p, e in zip(peers, (HOME, FRIEND), strict=True)
        ]
        await node.stats(server.id, agent_pb2.StatsReport(serial=1, peers=stats))
    assert (await listed(client, ana.headers))["shared_config_warning"] is False
    assert (await listed(client, beto.headers))["shared_config_warning"] is False


async def test_regenerating_the_keys_clears_the_warning(services: Services, client: AsyncTestClient[Any]) -> None:
    server = await make_server(services)
    ana = await person(services, client, "ana")
    peer = await make_peer(services, ana.user, "movil", server)
    await node_answers(services)
    clock = Clock()
    node, _ = node_with_watch(services, clock)
    await report(node, clock, server, peer, HOME, FRIEND, HOME, FRIEND)
    assert (await listed(client, ana.headers))["shared_config_warning"] is True

    answer = await client.patch(f"{PEERS}/{peer.id}", json={"operation": "regenerate"}, headers=ana.headers)
    assert answer.status_code == 202
    # Until the node swaps the keys the old ones (and the warning) stand.
    assert answer.json()["data"]["shared_config_warning"] is True
    async with services.sessionmaker() as db:
        operation = (
            await db.execute(
                select(NodeOperation).where(
                    NodeOperation.peer_id == peer.id, NodeOperation.status == OperationStatus.PENDING
                )
            )
        ).scalar_one()
    ana.inbox.clear()
    await node.result(server.id, agent_pb2.OperationResult(operation_id=operation.id, ok=True))
    assert (await listed(client, ana.headers))["shared_config_warning"] is False
    [push] = ana.inbox.of("updated_peer")
    assert push["data"]["shared_config_warning"] is False
    async with services.sessionmaker() as db:
        stored = await db.get_one(Peer, peer.id)
    # The old key's fight is over; the new key starts its own trail and one device is no fight.
    await report(node, clock, server, stored, HOME, HOME, HOME)
    assert (await listed(client, ana.headers))["shared_config_warning"] is False


async def test_a_failed_regeneration_keeps_the_warning(services: Services, client: AsyncTestClient[Any]) -> None:
    server = await make_server(services)
    ana = await person(services, client, "ana")
    peer = await make_peer(services, ana.user, "movil", server)
    await node_answers(services)
    async with services.sessionmaker.begin() as db:
        (await db.get_one(Peer, peer.id)).shared_config_warned_at = utcnow()
    await client.patch(f"{PEERS}/{peer.id}", json={"operation": "regenerate"}, headers=ana.headers)
    await node_answers(services, error="wg: device busy")
    # The keys did not change: both devices still hold them.
    assert (await listed(client, ana.headers))["shared_config_warning"] is True


# --- mirror link bound to a device ------------------------------------------------------------------------------


async def mirror_setup(services: Services, client: AsyncTestClient[Any]) -> tuple[dict[str, str], Peer, str]:
    server = await make_server(services)
    user = await make_user(services, "ana")
    peer = await make_peer(services, user, "movil", server)
    headers = bearer(await login(client, "ana"))
    path = (await listed(client, headers))["mirror_link"].removeprefix(LINK_PREFIX)
    return headers, peer, path


async def operate(client: AsyncTestClient[Any], headers: dict[str, str], peer: Peer, **body: Any) -> Any:
    return await client.patch(f"{PEERS}/{peer.id}", json=body, headers=headers)


def device(name: str) -> dict[str, str]:
    return {"X-Device-Id": f"device-{name}-0123456789"}


async def test_without_binding_the_mirror_link_works_as_before(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    headers, _, path = await mirror_setup(services, client)
    view = await listed(client, headers)
    assert (view["mirror_binding"], view["mirror_bound"]) == (False, False)
    assert (await client.get(path)).status_code == 200
    assert (await client.get(path, headers=device("a"))).status_code == 200
    assert (await client.get(path, headers=device("b"))).status_code == 200
    assert (await listed(client, headers))["mirror_bound"] is False


async def bind_by_code(client: AsyncTestClient[Any], headers: dict[str, str], peer: Peer, path: str, name: str) -> Any:
    """What the owner does: the device shows its code (a refused fetch), the owner types it, the device fetches."""
    waiting = await client.get(path, headers=device(name))
    assert waiting.status_code == 409, waiting.text
    code = waiting.json()["device_code"]
    assert code in waiting.json()["message"]
    confirmed = await operate(client, headers, peer, operation="confirm_mirror_device", code=code)
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["message"] == (
        "Código aceptado: el dispositivo que lo muestra quedará vinculado en su próxima consulta."
    )
    return await client.get(path, headers=device(name))


async def test_a_bound_link_serves_only_the_device_its_owner_confirmed(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    headers, peer, path = await mirror_setup(services, client)
    answer = await operate(client, headers, peer, operation="mirror_binding", enabled=True)
    assert answer.status_code == 200
    assert answer.json()["mirror_binding"] is True and answer.json()["mirror_bound"] is False
    assert "código de vinculación" in answer.json()["message"] and "regenérelo" in answer.json()["message"]

    first = await bind_by_code(client, headers, peer, path, "a")
    assert first.status_code == 200 and "PrivateKey" in first.text
    assert (await listed(client, headers))["mirror_bound"] is True
    # The same device again (and its ETag) as before.
    assert (await client.get(path, headers={**device("a"), "If-None-Match": first.headers["etag"]})).status_code == 304

    other = await client.get(path, headers=device("b"))
    assert other.status_code == 409
    code = other.json()["device_code"]
    assert other.json() == {
        "message": "Este enlace está vinculado a otro dispositivo. Para usarlo en este, el dueño del peer debe escribir"
        f" el código {code} en los detalles del peer.",
        "code": "mirror_device_mismatch",
        "device_code": code,
    }
    assert "PrivateKey" not in other.text
    anonymous = await client.get(path)
    assert anonymous.status_code == 409 and anonymous.json()["code"] == "mirror_device_required"
    bad = await client.get(path, headers={"X-Device-Id": "x y"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_device_id"

    # A new phone: the owner types the code it shows; it replaces the old one.
    assert (await bind_by_code(client, headers, peer, path, "b")).status_code == 200
    assert (await client.get(path, headers=device("a"))).status_code == 409

    # Turned off: any device (and a client that sends no id) again.
    off = await operate(client, headers, peer, operation="mirror_binding", enabled=False)
    assert off.json()["mirror_binding"] is False and off.json()["mirror_bound"] is False
    assert (await client.get(path)).status_code == 200
    assert (await client.get(path, headers=device("c"))).status_code == 200


async def test_turning_the_binding_on_with_a_strangers_fetch_pending_binds_nobody_unconfirmed(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """A leaked link polled by a stranger: the first fetch after turning the binding on was the stranger's, and the
    stranger was bound."""
    headers, peer, path = await mirror_setup(services, client)
    await operate(client, headers, peer, operation="mirror_binding", enabled=True)
    for _ in range(3):
        stranger = await client.get(path, headers=device("extrano"))
        assert stranger.status_code == 409 and stranger.json()["code"] == "mirror_device_unconfirmed"
        assert "PrivateKey" not in stranger.text
        assert stranger.json()["message"] == (
            "Este dispositivo espera la confirmación del dueño del peer. Código de vinculación:"
            f" {stranger.json()['device_code']}. Escríbalo en los detalles del peer para vincular este dispositivo."
        )
    assert (await listed(client, headers))["mirror_bound"] is False
    # The owner confirms the code their own device shows: only that device is served.
    assert (await bind_by_code(client, headers, peer, path, "dueno")).status_code == 200
    assert (await client.get(path, headers=device("extrano"))).json()["code"] == "mirror_device_mismatch"
    # A code is six digits; a wrong one binds nobody.
    for wrong in ("12345", "abcdef", ""):
        refused = await operate(client, headers, peer, operation="confirm_mirror_device", code=wrong)
        assert refused.status_code == 422 and refused.json()["code"] == "invalid_device_code", wrong


async def test_releasing_hands_the_link_to_nobody_and_names_regeneration_as_the_way_out(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """Releasing re-armed the race: the stranger, polling, fetched first and was bound (5 times in 5)."""
    headers, peer, path = await mirror_setup(services, client)
    await operate(client, headers, peer, operation="mirror_binding", enabled=True)
    assert (await bind_by_code(client, headers, peer, path, "dueno")).status_code == 200
    released = await operate(client, headers, peer, operation="release_mirror_device")
    assert released.status_code == 200 and released.json()["mirror_bound"] is False
    assert released.json()["message"] == (
        "El enlace mirror quedó libre: el dispositivo que lo use le mostrará un código de vinculación; escríbalo aquí"
        " para vincularlo. Si otra persona tiene el enlace, regenérelo: el actual dejará de funcionar."
    )
    stranger = await client.get(path, headers=device("extrano"))
    assert stranger.status_code == 409 and stranger.json()["code"] == "mirror_device_unconfirmed"
    assert (await client.get(path, headers=device("dueno"))).status_code == 409
    assert (await listed(client, headers))["mirror_bound"] is False
    # The way out that works against a stranger: a new link.
    fresh = await operate(client, headers, peer, operation="regenerate_token")
    assert (await client.get(path, headers=device("extrano"))).status_code == 404
    new_path = fresh.json()["mirror_link"].removeprefix(LINK_PREFIX)
    assert (await bind_by_code(client, headers, peer, new_path, "dueno")).status_code == 200


async def test_a_new_mirror_link_frees_the_bound_device(services: Services, client: AsyncTestClient[Any]) -> None:
    headers, peer, path = await mirror_setup(services, client)
    await operate(client, headers, peer, operation="mirror_binding", enabled=True)
    assert (await bind_by_code(client, headers, peer, path, "a")).status_code == 200
    fresh = await operate(client, headers, peer, operation="regenerate_token")
    assert fresh.json()["mirror_binding"] is True and fresh.json()["mirror_bound"] is False
    new_path = fresh.json()["mirror_link"].removeprefix(LINK_PREFIX)
    assert (await client.get(path, headers=device("a"))).status_code == 404
    assert (await client.get(new_path, headers=device("a"))).json()["code"] == "mirror_device_unconfirmed"


async def test_binding_is_the_owners_own_and_needs_its_switch(services: Services, client: AsyncTestClient[Any]) -> None:
    headers, peer, _ = await mirror_setup(services, client)
    await make_user(services, "beto")
    intruder = bearer(await login(client, "beto"))
    for body in (
        {"operation": "mirror_binding", "enabled": True},
        {"operation": "release_mirror_device"},
        {"operation": "confirm_mirror_device", "code": "123456"},
    ):
        answer = await operate(client, intruder, peer, **body)
        assert answer.status_code == 404 and answer.json()["code"] == "peer_not_found"
    missing = await operate(client, headers, peer, operation="mirror_binding")
    assert missing.status_code == 422 and missing.json()["code"] == "enabled_required"
    off = await operate(client, headers, peer, operation="confirm_mirror_device", code="123456")
    assert off.status_code == 409 and off.json()["code"] == "mirror_binding_off"
    async with services.sessionmaker() as db:
        assert (await db.get_one(Peer, peer.id)).mirror_device_binding is False


# --- servers' load in the move list -----------------------------------------------------------------------------


async def test_the_move_list_shows_load_and_recommends_the_least_loaded_server_that_fits(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    miami = await make_server(services, "Miami 1", "10.8.0.0/24")
    madrid = await make_server(services, "Madrid 1", "10.9.0.0/24")
    lima = await make_server(services, "Lima 1", "10.10.0.0/24", allow_partys=False)
    caido = await make_server(services, "Caido", "10.11.0.0/24", ready=False)  # empty, but its agent is away
    lleno = await make_server(services, "Lleno", "10.12.0.0/24")
    await make_server(services, "Cerrado", "10.13.0.0/24", active=False)
    ana = await person(services, client, "ana")
    beto = await make_user(services, "beto")
    peer = await make_peer(services, ana.user, "movil", miami)
    for i, where in enumerate([madrid, madrid, madrid, lima, lleno]):
        await make_peer(services, beto, f"b{i}", where)
    async with services.sessionmaker.begin() as db:
        (await db.get_one(Server, lleno.id)).capacity = 1  # full
        (await db.get_one(Server, madrid.id)).stats_peers_connected = 2
        (await db.get_one(Server, lima.id)).stats_peers_connected = 1
        (await db.get_one(Server, caido.id)).stats_peers_connected = 7  # stale: its agent left

    options = (await client.get(f"/api/client/network/{peer.id}", headers=ana.headers)).json()
    assert [(o["name"], o["online"], o["peers"], o["connected_peers"], o["recommended"]) for o in options] == [
        ("Caido", False, 0, 0, False),
        ("Lima 1", True, 1, 1, True),
        ("Lleno", True, 1, 0, False),
        ("Madrid 1", True, 3, 2, False),
    ]

    # In a room, the peer needs a server with rooms: Lima has none (a move there would take it out of the room).
    created = await client.post(ROOMS, json={"name": "LAN", "peer": peer.id}, headers=ana.headers)
    assert created.status_code in (200, 201, 202), created.text
    await node_answers(services)
    options = (await client.get(f"/api/client/network/{peer.id}", headers=ana.headers)).json()
    assert [o["name"] for o in options if o["recommended"]] == ["Madrid 1"]


async def test_no_server_is_recommended_when_none_fits(services: Services, client: AsyncTestClient[Any]) -> None:
    miami = await make_server(services, "Miami 1", "10.8.0.0/24")
    await make_server(services, "Caido", "10.11.0.0/24", ready=False)
    ana = await person(services, client, "ana")
    peer = await make_peer(services, ana.user, "movil", miami)
    options = (await client.get(f"/api/client/network/{peer.id}", headers=ana.headers)).json()
    assert [(o["name"], o["recommended"]) for o in options] == [("Caido", False)]


async def test_a_mark_lost_with_its_transaction_is_made_again_by_the_next_report(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """The stats transaction that wrote the mark rolled back (the database refused the report's other writes): no
    one was told, and the next report marks the peer and tells its owner."""
    server = await make_server(services)
    ana = await person(services, client, "ana")
    peer = await make_peer(services, ana.user, "movil", server)
    clock = Clock()
    watch = SharedConfigWatch(services.hub, services.peers.view, clock)
    ana.inbox.clear()
    for endpoint in (HOME, FRIEND, HOME):
        clock.now += 5
        async with transaction(services.sessionmaker) as db:
            await watch.record(db, server.id, {peer.public_key: endpoint}, True)

    class ReportFailed(Exception):
        pass

    clock.now += 5
    with pytest.raises(ReportFailed):
        async with transaction(services.sessionmaker) as db:
            await watch.record(db, server.id, {peer.public_key: FRIEND}, True)  # the fourth turn: marks
            raise ReportFailed()
    assert (await listed(client, ana.headers))["shared_config_warning"] is False
    assert ana.inbox.of("updated_peer") == []

    clock.now += 5
    async with transaction(services.sessionmaker) as db:
        await watch.record(db, server.id, {peer.public_key: FRIEND}, True)
    assert (await listed(client, ana.headers))["shared_config_warning"] is True
    assert len(ana.inbox.of("updated_peer")) == 1
