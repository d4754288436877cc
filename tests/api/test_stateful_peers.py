"""Stateful property test of the peer life cycle (hypothesis RuleBasedStateMachine) on the real database.

Customers create peers, regenerate them, move them between servers, get disabled and enabled, expire; a model
agent per server applies the operations' deltas in serial order (or fails some), reconnects for a full snapshot.
After every step:
- tunnel addresses are unique per server and inside its subnet; public keys unique; each public key matches its
  (encrypted) private key;
- a busy peer points at a pending operation of its own, and an idle system has no busy peer;
- a disabled or expired peer cannot be downloaded;
- a node that applied every delta without error holds exactly the desired state (peers, rooms and backbone: the
  snapshot it would get on reconnect), and after a reconnect every node does.
"""

from __future__ import annotations

import asyncio
import ipaddress
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, initialize, invariant, rule
from sqlalchemy import select

from controlplane.db import utcnow
from controlplane.domain.accounts.models import Role
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.operations.regenerate import PeerRegenerate
from controlplane.domain.peers.service import PeerInactive
from controlplane.domain.servers.models import Server
from controlplane.errors import DomainError
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.services import Services
from controlplane.wgkeys import generate_keypair, public_key_of
from tests.api.conftest import _empty_database
from tests.api.stateful import ModelAgents, ServicesMachine, machine_services, run_machine, server_input


class PeerLifeCycle(ServicesMachine):
    peers = Bundle("peers")

    def __init__(self, services: Services, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(services, loop)
        self.users: list[str] = []
        self.servers: list[str] = []
        self.agents = ModelAgents(services)
        self.names = 0

    @initialize()
    def world(self) -> None:
        async def build() -> None:
            await _empty_database(self.services)
            async with self.services.sessionmaker.begin() as db:
                for name in ("ana", "beto"):
                    user = await self.services.accounts.create_user(db, name, "contraseña-segura-1", Role.CUSTOMER)
                    self.users.append(user.id)
                # Small subnets (/29: five client addresses) so that running out of addresses happens too.
                for n in range(3):
                    server, _ = await self.services.servers.create(db, server_input(n))
                    server.public_key = generate_keypair()[1]  # as if its agent had connected once
                    self.servers.append(server.id)
            for server_id in self.servers:
                await self.agents.connect(server_id)

        self.run(build())

    # --- customers and admins ---------------------------------------------------------------------------------

    @rule(target=peers, user=st.integers(0, 1), server=st.integers(0, 2))
    def create(self, user: int, server: int) -> Any:
        self.names += 1

        async def go() -> str | None:
            async with self.services.sessionmaker.begin() as db:
                target = await db.get(Server, self.servers[server])
                try:
                    peer = await self.services.peers.create(db, self.users[user], f"p{self.names}", server=target)
                except DomainError as refused:
                    assert refused.code == "address_conflict" or refused.status_code == 409, refused.code
                    return None
                return peer.id

        return self.run(go()) or "none"

    @rule(peer=peers)
    def regenerate(self, peer: str) -> None:
        rotate = PeerRegenerate()
        self._customer_op(
            peer, lambda db, user: self.services.peers.operate(db, self.services.limiter, user, peer, rotate)
        )

    @rule(peer=peers, server=st.integers(0, 2))
    def change_server(self, peer: str, server: int) -> None:
        target = self.servers[server]
        self._customer_op(peer, lambda db, user: self.services.peers.change_server(db, user, peer, target))

    @rule(peer=peers, active=st.booleans())
    def admin_sets_active(self, peer: str, active: bool) -> None:
        async def go() -> None:
            async with self.services.sessionmaker.begin() as db:
                found = await db.get(Peer, peer)
                if found is not None:
                    await self.services.peers.set_active(db, found, active)

        self.run(go())

    @rule(peer=peers)
    def expires(self, peer: str) -> None:
        async def go() -> None:
            async with self.services.sessionmaker.begin() as db:
                found = await db.get(Peer, peer)
                if found is not None:
                    found.expiration_date = utcnow() - timedelta(seconds=1)
            async with self.services.sessionmaker.begin() as db:
                await self.services.peers.expire_due(db)

        self.run(go())

    def _customer_op(self, peer: str, call: Any) -> None:
        async def go() -> None:
            async with self.services.sessionmaker.begin() as db:
                found = await db.get(Peer, peer)
                if found is None:
                    return
                busy, active = found.pending_operation_id is not None, found.active
                try:
                    await call(db, found.user_id)
                except DomainError as refused:
                    # Refusals are the documented ones, and only when the state calls for them.
                    allowed = {"peer_busy": busy, "peer_inactive": not active}
                    assert allowed.get(refused.code, refused.code in {"same_server", "address_conflict"}), refused.code
                    await db.rollback()
                    return
                assert active and not busy, "an operation was accepted on a disabled or busy peer"

        self.run(go())

    # --- the agents ---------------------------------------------------------------------------------------------

    @rule(server=st.integers(0, 2), fail_one=st.booleans())
    def agent_applies(self, server: int, fail_one: bool) -> None:
        """The node applies its pending deltas in serial order; optionally the first one fails on the node."""
        self.run(self.agents.apply_pending(self.servers[server], fail_first=fail_one))

    @rule(server=st.integers(0, 2))
    def agent_reconnects(self, server: int) -> None:
        self.run(self.agents.connect(self.servers[server]))

    # --- invariants -------------------------------------------------------------------------------------------

    async def _peers(self) -> list[Peer]:
        async with self.services.sessionmaker() as db:
            return list((await db.execute(select(Peer))).scalars())

    @invariant()
    def addresses_and_keys_are_sound(self) -> None:
        if not self.servers:
            return
        peers = self.run(self._peers())
        subnets = self.run(self._subnets())
        seen: set[tuple[str, str]] = set()
        for peer in peers:
            assert (peer.server_id, peer.address) not in seen, f"address {peer.address} given twice"
            seen.add((peer.server_id, peer.address))
            subnet = ipaddress.ip_network(subnets[peer.server_id])
            address = ipaddress.ip_address(peer.address)
            assert address in subnet and address not in {subnet.network_address, subnet.broadcast_address}
            assert address != next(subnet.hosts()), "a client got the node's own address"
            assert public_key_of(self.services.box.decrypt(peer.private_key_enc)) == peer.public_key
        assert len({p.public_key for p in peers}) == len(peers)

    @invariant()
    def busy_means_a_pending_operation_of_its_own(self) -> None:
        if not self.servers:
            return

        async def check() -> None:
            async with self.services.sessionmaker() as db:
                for peer in (await db.execute(select(Peer))).scalars():
                    if peer.pending_operation_id is None:
                        continue
                    operation = await db.get(NodeOperation, peer.pending_operation_id)
                    assert operation is not None and operation.peer_id == peer.id
                    assert operation.status is OperationStatus.PENDING

        self.run(check())

    @invariant()
    def inactive_peers_cannot_be_downloaded(self) -> None:
        if not self.servers:
            return

        async def check() -> None:
            async with self.services.sessionmaker() as db:
                for peer in (await db.execute(select(Peer))).scalars():
                    if not peer.active:
                        with pytest.raises(PeerInactive):
                            await self.services.peers.config_text(db, peer)

        self.run(check())

    @invariant()
    def nodes_that_kept_up_hold_the_desired_state(self) -> None:
        if self.servers:
            self.run(self.agents.assert_caught_up_nodes_hold_their_snapshot())

    async def _subnets(self) -> dict[str, str]:
        async with self.services.sessionmaker() as db:
            return {s.id: s.tunnel_subnet for s in (await db.execute(select(Server))).scalars()}

    def teardown(self) -> None:
        # Everyone catches up: afterwards every node holds its desired state and no peer is busy.
        for n in range(len(self.servers)):
            self.agent_reconnects(n)
        self.nodes_that_kept_up_hold_the_desired_state()
        assert not [p for p in self.run(self._peers()) if p.pending_operation_id is not None]


def test_peer_life_cycle_keeps_its_invariants(database_url: str, tmp_path: Path) -> None:
    with machine_services(database_url, tmp_path) as (services, loop):
        run_machine(lambda: PeerLifeCycle(services, loop), examples=8, steps=25)
