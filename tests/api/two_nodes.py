"""Two servers with model agents and one customer's peer: the world of the make-before-break tests
(tests/api/test_make_before_break.py) and of the manager's move (tests/api/manager/test_peers.py).

Ana's peer `movil` is on Miami 1; Madrid 1 is the other server. Both nodes are model agents (tests/api/stateful.py:
the agent's own conversion and reconcile step on its snapshots and deltas) that the test drives by hand: deliver the
pending deltas, answer them (ok or error), let them time out, stop or reconnect. `assert_one_story` checks that the
database, every node, the customer's list and the downloaded configuration agree on where the peer is.

Timeouts are moved by a manual clock (tests/clock.py): a test module using `time_out` or `fail_operation` gives
itself a `clock` fixture with `manual_clock()`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import update

from controlplane.db import transaction, utcnow
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.nodes.desired_state import delta_message, full_state
from controlplane.nodes.models import NodeOperation
from controlplane.services import Services
from controlplane.wgkeys import public_key_of
from tests.api.factories import bearer, login, make_peer, make_server, make_user
from tests.api.stateful import ModelAgents, desired_holds
from tests.api.test_rooms import Inbox
from tests.clock import ManualClock

PEERS = "/api/client/accounts/peers"

# The ways a node fails a pending operation (`fail_operation`).
FAILURES = ["error", "late answer", "down, back after the timeout"]


@dataclass
class World:
    services: Services
    client: AsyncTestClient[Any]
    agents: ModelAgents
    headers: dict[str, str]
    inbox: Inbox
    miami: str
    madrid: str
    peer: Peer

    async def services_server(self, server_id: str) -> Server:
        async with self.services.sessionmaker() as db:
            return await db.get_one(Server, server_id)

    async def stored(self) -> Peer:
        async with self.services.sessionmaker() as db:
            return await db.get_one(Peer, self.peer.id)

    async def deliver(self, server_id: str) -> list[NodeOperation]:
        """The node gets and applies its pending deltas, without answering yet."""
        node = self.agents.nodes[server_id]
        async with transaction(self.services.sessionmaker) as db:
            pending = await self.services.operations.pending_after(db, server_id, node.applied)
            for operation in pending:
                node.apply_delta(await delta_message(db, self.services.box, operation))
        return pending

    async def answer(self, operations: list[NodeOperation], error: str | None = None) -> None:
        async with transaction(self.services.sessionmaker) as db:
            for operation in operations:
                await self.services.operations.finish(db, operation.id, error)

    async def time_out(self, clock: ManualClock) -> None:
        """The operation timeout passes and the `operation_timeouts` job runs."""
        clock.advance(timedelta(seconds=self.services.settings.operation_timeout_seconds + 1))
        async with transaction(self.services.sessionmaker) as db:
            await self.services.operations.expire_overdue(db)

    async def stop_agent(self, server_id: str) -> None:
        """The node's agent stream ends: what the servicer writes then (seen and gone now: offline at once)."""
        now = utcnow()
        async with transaction(self.services.sessionmaker) as db:
            await db.execute(update(Server).where(Server.id == server_id).values(last_seen=now, disconnected_at=now))

    async def settle_nodes(self) -> None:
        """Every node applies (and confirms) whatever is still queued for it."""
        for server_id in (self.miami, self.madrid):
            await self.answer(await self.deliver(server_id))

    async def pushes(self) -> list[dict[str, Any]]:
        await asyncio.sleep(0.05)  # pushes go out after the commit
        messages = list(self.inbox.messages)
        self.inbox.clear()
        return messages

    async def assert_one_story(self, server_id: str, public_key: str) -> None:
        """The peer is on `server_id` with `public_key` in the database, in the customer's list, in the config file
        they download and on that node only; every node holds exactly its snapshot; nothing is pending."""
        stored = await self.stored()
        assert (stored.server_id, stored.public_key) == (server_id, public_key)
        assert stored.pending_operation_id is None and stored.pending_server_id is None
        assert stored.pending_public_key is None and stored.pending_address is None
        [listed] = (await self.client.get(PEERS, headers=self.headers)).json()
        assert listed["server"]["id"] == server_id and listed["address"] == stored.address
        assert listed["processing"] is False
        config = (await self.client.get(f"{PEERS}/{self.peer.id}", headers=self.headers)).text
        private = next(line.split("=", 1)[1].strip() for line in config.splitlines() if line.startswith("PrivateKey"))
        assert public_key_of(private) == public_key
        assert f"Address = {stored.address}/32" in config
        async with self.services.sessionmaker() as db:
            server = await db.get_one(Server, server_id)
            assert f"Endpoint = {server.address}:{server.port}" in config
            for node_id, node in self.agents.nodes.items():
                snapshot = desired_holds(await full_state(db, self.services.box, await db.get_one(Server, node_id)))
                assert node.holds().peers == snapshot.peers, "a node drifted from the database"
                held = node.holds().peers.get(public_key)
                if node_id == server_id:
                    assert held is not None and held.allowed_ips == frozenset({f"{stored.address}/32"})
                else:
                    assert held is None, "the peer's key is left on a node it is not on"
                assert all(p.allowed_ips != frozenset({f"{stored.address}/32"}) for k, p in node.holds().peers.items()
                           if k != public_key and node_id == server_id)  # fmt: skip


async def two_nodes(services: Services, client: AsyncTestClient[Any]) -> World:
    """Ana (alias Ana, logged in, her pushes in `inbox`), her peer on Miami 1, and Madrid 1; both agents connected
    and caught up (their snapshots hold the new peer: its creation is confirmed)."""
    user = await make_user(services, "ana", alias="Ana")
    miami = await make_server(services, "Miami 1", "10.8.0.0/24")
    madrid = await make_server(services, "Madrid 1", "10.9.0.0/24")
    peer = await make_peer(services, user, "movil", miami)
    inbox = Inbox()
    services.hub.attach(user.id, inbox)
    agents = ModelAgents(services)
    for server in (miami, madrid):
        await agents.connect(server.id)
    world = World(services, client, agents, bearer(await login(client, "ana")), inbox, miami.id, madrid.id, peer)
    await world.pushes()
    return world


async def fail_operation(world: World, clock: ManualClock, how: str, node: str) -> None:
    """Make the node fail its pending operation in one of the ways nodes do (`FAILURES`)."""
    if how == "error":
        operations = await world.deliver(node)  # the node may have written part of it: it fails anyway
        await world.answer(operations, "apply failed: wg set wg0: No such device")
    elif how == "late answer":
        operations = await world.deliver(node)  # applied, but the answer comes after the timeout
        await world.time_out(clock)
        await world.answer(operations)  # too late: changes nothing
    else:
        await world.time_out(clock)
        await world.agents.connect(node)  # back: the snapshot is the truth


def assert_told_the_move_failed(pushes: list[dict[str, Any]], how: str) -> None:
    """The owner heard that the move to Madrid 1 failed, why (as `fail_operation` made it fail) and that the peer
    still works on Miami 1, then the peer as it stands."""
    assert [p["type"] for p in pushes] == ["error", "updated_peer"]
    why = "el servidor no pudo aplicar el cambio" if how == "error" else "el servidor no respondió a tiempo"
    assert pushes[0]["message"] == (
        f"Hubo un error al intentar cambiar el servidor del peer al servidor Madrid 1: {why}. El peer movil sigue en"
        " el servidor Miami 1 y su configuración actual sigue funcionando."
    )
