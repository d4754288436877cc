"""What the stateful property tests share: servers for their worlds, model agents, and how a machine is run.

A model agent holds what a node's agent would hold after the snapshots and deltas it was sent, computed with the
agent's own conversion and reconcile step (node_agent.state, node_agent.reconcile) instead of a device.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test
from sqlalchemy import select, update

from controlplane.db import transaction, utcnow
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.service import ServerInput
from controlplane.nodes.desired_state import delta_message, full_state
from controlplane.services import Services, build_services
from node_agent.reconcile import reconcile
from node_agent.state import (
    Backbone,
    DesiredState,
    DeviceState,
    Peer,
    Room,
    desired_from_delta,
    desired_from_full_state,
)
from protos import agent_pb2
from tests.api.conftest import make_settings
from tests.api.live import live_client

T = TypeVar("T")


class ServicesMachine(RuleBasedStateMachine):
    """A state machine over the real services, whose rules run coroutines on the test's one event loop."""

    def __init__(self, services: Services, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self.services, self.loop = services, loop

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coro)


@dataclass(frozen=True)
class NodeHolds:
    """What a node enforces: WireGuard peers by public key, rooms (which tunnel addresses may reach which) and
    its backbone to the other room-enabled nodes."""

    peers: dict[str, Peer]
    rooms: dict[str, Room]
    backbone: Backbone | None


def desired_holds(state: agent_pb2.FullState) -> NodeHolds:
    desired = desired_from_full_state(state)
    return NodeHolds(dict(desired.peers), dict(desired.rooms), desired.backbone)


@dataclass
class ModelNode:
    """One node's agent, as Agent._apply_full / _apply_delta change it (without the device)."""

    peers: dict[str, Peer] = field(default_factory=dict)
    rooms: dict[str, Room] | None = None
    backbone: Backbone | None = None
    applied: int = 0
    diverged: bool = False  # failed an operation: it waits for a snapshot to be right again

    def apply_full(self, state: agent_pb2.FullState) -> None:
        desired = desired_from_full_state(state)
        self._take(desired)
        self.peers = dict(desired.peers)
        self.applied, self.diverged = state.serial, False

    def apply_delta(self, delta: agent_pb2.Delta) -> None:
        desired = desired_from_delta(delta)
        changes = self._take(desired)
        for key in changes.remove_peers:
            self.peers.pop(key, None)
        for peer in (*changes.add_peers, *changes.update_peers):
            self.peers[peer.public_key] = peer
        self.applied = delta.serial

    def _take(self, desired: DesiredState) -> Any:
        changes = reconcile(desired, DeviceState(peers=dict(self.peers)), self.rooms, self.backbone)
        if changes.backbone is not None:
            self.backbone = changes.backbone
        self.rooms = changes.rooms if changes.rooms is not None else self.rooms or {}
        return changes

    def holds(self) -> NodeHolds:
        return NodeHolds(dict(self.peers), dict(self.rooms or {}), self.backbone)


class ModelAgents:
    """The agents of every server in a world: they connect for a snapshot, apply their node's pending operations
    in serial order (or fail one), and reconnect."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.nodes: dict[str, ModelNode] = {}

    async def connect(self, server_id: str) -> None:
        """A (re)connection: the full state, which covers every operation up to its serial."""
        async with transaction(self.services.sessionmaker) as db:
            server = await db.get(Server, server_id)
            assert server is not None
            server.last_seen = utcnow()  # what the servicer records on a connection
            state = await full_state(db, self.services.box, server)
            self.nodes.setdefault(server_id, ModelNode()).apply_full(state)
            await self.services.operations.covered_by_snapshot(db, server_id, state.serial)

    async def apply_pending(self, server_id: str, *, fail_first: bool = False) -> None:
        node = self.nodes[server_id]
        async with transaction(self.services.sessionmaker) as db:
            await db.execute(update(Server).where(Server.id == server_id).values(last_seen=utcnow()))
            pending = await self.services.operations.pending_after(db, server_id, node.applied)
            for n, operation in enumerate(pending):
                if fail_first and n == 0:
                    node.diverged = True
                    await self.services.operations.finish(db, operation.id, "wg: no se pudo aplicar")
                else:
                    node.apply_delta(await delta_message(db, self.services.box, operation))
                    await self.services.operations.finish(db, operation.id, None)
                node.applied = operation.serial

    async def caught_up(self) -> list[str]:
        """Servers whose agent applied every operation without error (so it must hold exactly its snapshot)."""
        ready = []
        async with self.services.sessionmaker() as db:
            for server_id, node in self.nodes.items():
                if not node.diverged and not await self.services.operations.pending_after(db, server_id, node.applied):
                    ready.append(server_id)
        return ready

    async def snapshots(self) -> dict[str, tuple[Server, NodeHolds]]:
        """Every server, and what its node would hold after a reconnect."""
        async with self.services.sessionmaker() as db:
            servers = list((await db.execute(select(Server))).scalars())
            return {s.id: (s, desired_holds(await full_state(db, self.services.box, s))) for s in servers}

    async def assert_caught_up_nodes_hold_their_snapshot(
        self, snapshots: dict[str, tuple[Server, NodeHolds]] | None = None
    ) -> None:
        snapshots = snapshots or await self.snapshots()
        for server_id in await self.caught_up():
            server, desired = snapshots[server_id]
            held = self.nodes[server_id].holds()
            assert held.peers == desired.peers, f"node {server.name} drifted from its desired peers"
            assert held.rooms == desired.rooms, f"node {server.name} drifted from its desired rooms"
            assert held.backbone == desired.backbone, f"node {server.name} drifted from its desired backbone"


def server_input(n: int, *, allow_partys: bool = True, subnet_bits: int = 29) -> ServerInput:
    """Server n of a world; small subnets (/29: five client addresses) so that running out happens too."""
    return ServerInput(
        name=f"Nodo {n}",
        address=f"nodo{n}.vpn.test",
        tunnel_subnet=f"10.{60 + n}.0.0/{subnet_bits}",
        ubication="Miami",
        active=True,
        allow_partys=allow_partys,
    )


@contextmanager
def machine_services(
    database_url: str, tmp_path: Path, **overrides: Any
) -> Iterator[tuple[Services, asyncio.AbstractEventLoop]]:
    """The services of a machine's worlds, on an event loop of their own (rules are plain functions). Everything
    runs on that one loop (the test client's requests too), so connections are pooled: opening one per session
    made the machines several times slower on PostgreSQL. `overrides`: settings of this machine's own."""
    loop = asyncio.new_event_loop()
    services = build_services(make_settings(database_url, tmp_path, database_pool=True, **overrides))
    try:
        yield services, loop
    finally:
        loop.run_until_complete(services.close())
        loop.close()


@contextmanager
def machine_client(services: Services, loop: asyncio.AbstractEventLoop) -> Iterator[httpx.AsyncClient]:
    """An HTTP client for the real app, running it on the machine's loop (see tests/api/live.py)."""
    serving = live_client(services)
    client = loop.run_until_complete(serving.__aenter__())
    try:
        yield client
    finally:
        loop.run_until_complete(serving.__aexit__(None, None, None))


def run_machine(machine: Callable[[], RuleBasedStateMachine], *, examples: int, steps: int) -> None:
    """Run a machine with a fixed budget (VPN_STATEFUL_EXAMPLES overrides the count): derandomized, so CI runs
    are repeatable, yet every example is a different walk. VPN_STATEFUL_SHRINK=0 reports a failure as found
    (shrinking a long walk against a database can take minutes)."""
    shrink = os.environ.get("VPN_STATEFUL_SHRINK", "1") != "0"
    run_state_machine_as_test(
        machine,
        settings=settings(
            phases=[phase for phase in Phase if shrink or phase is not Phase.shrink],
            max_examples=int(os.environ.get("VPN_STATEFUL_EXAMPLES", str(examples))),
            stateful_step_count=steps,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        ),
    )
