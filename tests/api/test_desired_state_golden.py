"""What every node must hold after each operation, compared with golden files (as NetBird checks its network maps).

Each scenario is played through the real API and services on a real database, with the nodes answering as an agent
would; after each step, every node's full desired state (controlplane/nodes/desired_state.py: interface, peers,
rooms, backbone, serial) and the deltas still pending for it are written out with stable names in place of keys
and ids, and compared with tests/golden/desired_state/<scenario>.json.

A change to how operations are built (issue 32: one module per operation, named changes) must leave these files
as they are; a change meant to alter what nodes hold shows here as a diff to review. To write the files anew:

    VPN_GOLDEN_UPDATE=1 .venv/bin/pytest -q tests/api/test_desired_state_golden.py

then read `git diff tests/golden/` before committing it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from litestar.testing import AsyncTestClient
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import transaction, utcnow
from controlplane.domain.accounts.models import Role
from controlplane.domain.guest_passes.models import GuestPass
from controlplane.domain.guest_passes.schemas import ClaimRequest
from controlplane.domain.invoices.models import Invoice, InvoiceMode, InvoiceStatus
from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms.models import Room
from controlplane.domain.servers.models import Server
from controlplane.nodes.desired_state import delta_message, full_state
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.services import Services
from controlplane.wgkeys import generate_keypair
from protos import agent_pb2
from tests.api.factories import bearer, login, make_peer, make_server, make_user
from tests.api.test_rooms import PEERS, ROOMS, Person, node_answers, person

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "desired_state"
UPDATE = os.environ.get("VPN_GOLDEN_UPDATE") == "1"
ADMIN_PEERS = "/api/admin/peers"
ADMIN_SERVERS = "/api/admin/servers"


async def stable_names(services: Services, names: dict[str, str]) -> None:
    """Every key and id a node's state may name -> a name that is the same on every run, added to `names`. A value
    keeps the name it got first: a rotated key stays "new key of ..." once settled, so the files show which key a
    node holds, not only that it holds one."""
    box = services.box

    def name(value: str, given: str) -> None:
        names.setdefault(value, given)

    async with services.sessionmaker() as db:
        for server in (await db.execute(select(Server))).scalars():
            name(server.id, f"server {server.name}")
            if server.public_key:
                name(server.public_key, f"key of server {server.name}")
        for peer in (await db.execute(select(Peer))).scalars():
            # The pending ones first: a key seen for the first time as pending is the new one.
            if peer.pending_public_key:
                name(peer.pending_public_key, f"new key of {peer.name}")
            if peer.pending_preshared_key_enc:
                name(box.decrypt(peer.pending_preshared_key_enc), f"new preshared key of {peer.name}")
            name(peer.public_key, f"key of {peer.name}")
            name(box.decrypt(peer.preshared_key_enc), f"preshared key of {peer.name}")
        for room in (await db.execute(select(Room))).scalars():
            name(room.id, f"room {room.name}")


def _renamed(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {key: _renamed(item, names) for key, item in value.items()}
    if isinstance(value, list):
        items = [_renamed(item, names) for item in value]
        # Order within a message is not part of what a node holds (peers, rooms, backbone peers are sets).
        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
    if isinstance(value, str):
        return names.get(value, value)
    return value


def _plain(message: Any, names: dict[str, str]) -> Any:
    return _renamed(MessageToDict(message, preserving_proto_field_name=True), names)


async def node_states(services: Services, names: dict[str, str]) -> dict[str, Any]:
    """Each node, by name: what it must hold (its full state) and the changes still on their way to it."""
    await stable_names(services, names)
    states: dict[str, Any] = {}
    async with transaction(services.sessionmaker) as db:
        servers = sorted((await db.execute(select(Server))).scalars(), key=lambda s: s.name)
        for server in servers:
            pending = []
            for operation in await services.operations.pending_after(db, server.id, 0):
                delta = _plain(await delta_message(db, services.box, operation), names)
                delta["operation_id"] = f"<{operation.kind.value}>"  # a fresh id each run
                pending.append(delta)
            states[server.name] = {
                "full_state": _plain(await full_state(db, services.box, server), names),
                "applied_serial": server.applied_serial,
                "pending": pending,
            }
    return states


class Story:
    """A scenario's steps, each with every node's state once it is done; compared with its golden file at the end."""

    def __init__(self, services: Services, name: str) -> None:
        self.services = services
        self.name = name
        self.steps: dict[str, Any] = {}
        self.names: dict[str, str] = {}

    async def step(self, title: str) -> None:
        self.steps[title] = await node_states(self.services, self.names)

    async def answered(self, title: str) -> None:
        """Every node answers the operations pending now with ok (those answers may queue more), then the step
        is recorded."""
        await node_answers(self.services)
        await self.step(title)

    async def settled(self, title: str) -> None:
        """The nodes answer with ok until nothing is pending, then the step is recorded."""
        for _ in range(5):
            await node_answers(self.services)
            async with self.services.sessionmaker() as db:
                if not await pending_anywhere(db):
                    break
        await self.step(title)

    def check(self) -> None:
        path = GOLDEN / f"{self.name}.json"
        text = json.dumps(self.steps, indent=2, sort_keys=False, ensure_ascii=False) + "\n"
        if UPDATE:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            return
        assert path.exists(), f"no golden file {path}: run with VPN_GOLDEN_UPDATE=1 and review it"
        golden = json.loads(path.read_text())
        for title in golden.keys() | self.steps.keys():
            assert self.steps.get(title) == golden.get(title), f"{self.name}, step '{title}': nodes differ from {path}"


async def pending_anywhere(db: AsyncSession) -> bool:
    query = select(NodeOperation.id).where(NodeOperation.status == OperationStatus.PENDING).limit(1)
    return (await db.execute(query)).first() is not None


class World:
    """Two room-enabled servers and one without rooms; Ana's peer `movil` on Miami 1, Beto's `portatil` on
    Madrid 1, both confirmed by their nodes; an admin for the staff's operations."""

    def __init__(self, services: Services, client: AsyncTestClient[Any]) -> None:
        self.services, self.client = services, client

    async def build(self) -> World:
        services, client = self.services, self.client
        self.miami = await make_server(services, "Miami 1", "10.8.0.0/24")
        self.madrid = await make_server(services, "Madrid 1", "10.9.0.0/24")
        self.closed = await make_server(services, "Sin salas", "10.10.0.0/24", allow_partys=False)
        # The room servers learned each other's keys as their agents connected: the backbone as it stands.
        async with transaction(services.sessionmaker) as db:
            await services.rooms.server_rooms_changed(db, await db.get_one(Server, self.miami.id))
        self.ana = await person(services, client, "ana")
        self.beto = await person(services, client, "beto")
        self.movil = await make_peer(services, self.ana.user, "movil", self.miami)
        self.portatil = await make_peer(services, self.beto.user, "portatil", self.madrid)
        await node_answers(services)
        await make_user(services, "jefa", role=Role.ADMIN)
        self.staff = bearer(await login(client, "jefa", admin=True))
        return self

    async def operate(self, who: Person, peer: Peer, body: dict[str, Any]) -> None:
        answer = await self.client.patch(f"{PEERS}/{peer.id}", json=body, headers=who.headers)
        assert answer.status_code == 202, answer.text


@pytest.fixture
async def world(services: Services, client: AsyncTestClient[Any]) -> World:
    return await World(services, client).build()


Scenario = Callable[[World, Story], Awaitable[None]]


async def peer_created(world: World, story: Story) -> None:
    await story.step("two peers, confirmed")
    await make_peer(world.services, world.ana.user, "tableta", world.miami)
    await story.step("a third peer created, pending")
    await story.settled("a third peer created, confirmed")


async def key_rotation(world: World, story: Story) -> None:
    await world.operate(world.ana, world.movil, {"operation": "regenerate"})
    await story.step("new keys pending")
    await story.settled("new keys settled")


async def move(world: World, story: Story) -> None:
    await world.operate(world.ana, world.movil, {"operation": "change_server", "server": world.madrid.id})
    await story.step("move to Madrid 1 pending")
    await story.answered("move to Madrid 1 settled, Miami 1 yet to drop the peer")
    await story.settled("Miami 1 dropped the peer")


async def peer_disabled(world: World, story: Story) -> None:
    answer = await world.client.patch(f"{ADMIN_PEERS}/{world.movil.id}", json={"active": False}, headers=world.staff)
    assert answer.status_code == 200, answer.text
    await story.step("disabled by staff, pending")
    await story.settled("disabled by staff, confirmed")
    answer = await world.client.patch(f"{ADMIN_PEERS}/{world.movil.id}", json={"active": True}, headers=world.staff)
    assert answer.status_code == 200, answer.text
    await story.settled("enabled again, confirmed")


async def peer_expired(world: World, story: Story) -> None:
    services = world.services
    async with transaction(services.sessionmaker) as db:
        peer = await db.get_one(Peer, world.movil.id)
        peer.expiration_date = utcnow() - timedelta(minutes=1)
    async with transaction(services.sessionmaker) as db:
        assert await services.peers.expire_due(db) == 1  # the expiry job's run
    await story.step("expired, pending")
    await story.settled("expired, confirmed")


async def peer_deleted(world: World, story: Story) -> None:
    services = world.services
    async with transaction(services.sessionmaker) as db:
        await services.peers.delete(db, await services.peers.by_id(db, world.movil.id))
    await story.step("deleted, pending")
    await story.settled("deleted, confirmed")


async def rooms_across_two_servers(world: World, story: Story) -> None:
    client, ana, beto = world.client, world.ana, world.beto
    answer = await client.post(ROOMS, json={"name": "LAN", "peer": world.movil.id}, headers=ana.headers)
    assert answer.status_code == 201, answer.text
    room = answer.json()["data"]
    await story.step("room created on Miami 1, pending")
    await story.settled("room created on Miami 1, confirmed")

    async def join() -> None:
        body = {"operation": "join", "name": "LAN", "password": room["password"], "peer": world.portatil.id}
        joined = await client.patch(ROOMS, json=body, headers=beto.headers)
        assert joined.status_code == 200, joined.text

    async def out(who: Person, operation: str) -> None:
        body = {"operation": operation, "peer": world.portatil.id}
        left = await client.patch(f"{ROOMS}/{room['id']}", json=body, headers=who.headers)
        assert left.status_code == 200, left.text

    await join()
    await story.step("Beto's peer on Madrid 1 joined, pending")
    await story.settled("Beto's peer on Madrid 1 joined, confirmed")
    await out(beto, "leave")
    await story.settled("Beto's peer left, confirmed")
    await join()
    await story.settled("Beto's peer joined again, confirmed")
    await out(ana, "remove_peer")
    await story.step("Beto's peer kicked by Ana, pending")
    await story.settled("Beto's peer kicked by Ana, confirmed")


async def guest_pass(world: World, story: Story) -> None:
    """Beto claims a pass Ana paid for her room: his new peer is sent room only (docs/rooms.md, "Guest peers") and
    goes when the pass ends. The payment itself is test_guest_passes.py's: here the pass is written paid."""
    services, client = world.services, world.client
    answer = await client.post(ROOMS, json={"name": "LAN", "peer": world.movil.id}, headers=world.ana.headers)
    assert answer.status_code == 201, answer.text
    room_id = answer.json()["data"]["id"]
    await story.settled("room created on Miami 1, confirmed")
    token = "golden-pass-token"
    now = utcnow()
    async with transaction(services.sessionmaker) as db:
        invoice = Invoice(
            remote_id="golden-pass",
            user_id=world.ana.user.id,
            gateway="qvapay",
            mode=InvoiceMode.GUEST_PASS,
            status=InvoiceStatus.FULFILLED,
            plan_name="Pase 24 h",
            validity_hours=24,
            amount=Decimal("1.50"),
            peer_name="pase de invitado",
        )
        db.add(invoice)
        await db.flush()
        db.add(
            GuestPass(
                buyer_id=world.ana.user.id,
                room_id=room_id,
                room_name="LAN",
                invoice_id=invoice.id,
                plan_name="Pase 24 h",
                hours=24,
                token_hash=services.box.lookup_hash(token),
                token_enc=services.box.encrypt(token),
                paid_at=now,
                claim_by=now + timedelta(days=1),
            )
        )
    async with transaction(services.sessionmaker) as db:
        await services.guest_passes.claim(db, world.beto.user.id, token, ClaimRequest(name="invitado"))
    await story.step("Beto's pass claimed, pending")
    await story.settled("Beto's pass claimed, confirmed")
    async with transaction(services.sessionmaker) as db:
        await db.execute(update(GuestPass).values(ends_at=utcnow() - timedelta(seconds=1)))
    async with transaction(services.sessionmaker) as db:
        assert await services.guest_passes.end_due(db) == 1  # the job's run
    await story.step("the pass ended, pending")
    await story.settled("the pass ended, confirmed")


async def backbone(world: World, story: Story) -> None:
    services, client = world.services, world.client
    await story.step("two room servers")
    bogota = await make_server(services, "Bogota 1", "10.11.0.0/24", ready=False)
    async with transaction(services.sessionmaker) as db:
        credential = await services.servers.reissue_credential(db, bogota.id)
    hello = agent_pb2.Hello(node_id=bogota.id, credential=credential, public_key=generate_keypair()[1])
    assert await services.agent_sessions.admit(hello) is not None  # its agent connects and tells its key
    await story.step("Bogota 1 added (its agent connected), pending")
    await story.settled("Bogota 1 added, confirmed")
    answer = await client.patch(f"{ADMIN_SERVERS}/{world.madrid.id}", json={"allow_partys": False}, headers=world.staff)
    assert answer.status_code == 200, answer.text
    await story.step("Madrid 1 stops hosting rooms, pending")
    await story.settled("Madrid 1 stops hosting rooms, confirmed")


SCENARIOS: dict[str, Scenario] = {
    "peer_created": peer_created,
    "key_rotation": key_rotation,
    "move": move,
    "peer_disabled": peer_disabled,
    "peer_expired": peer_expired,
    "peer_deleted": peer_deleted,
    "rooms_across_two_servers": rooms_across_two_servers,
    "backbone": backbone,
    "guest_pass": guest_pass,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
async def test_every_node_holds_what_its_golden_file_says(world: World, services: Services, name: str) -> None:
    story = Story(services, name)
    await stable_names(services, story.names)  # before anything is deleted or rotated
    await SCENARIOS[name](world, story)
    story.check()


def test_every_golden_file_has_its_scenario() -> None:
    """A scenario renamed or dropped leaves no file behind that nothing checks."""
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == sorted(SCENARIOS)
