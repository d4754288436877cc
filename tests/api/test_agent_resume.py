"""A reconnecting agent whose serial is current gets InSync, not a full state (docs/agent-protocol.md,
"Reconnecting"): the agents' gRPC server runs for real on a Unix socket and is restarted under a scripted agent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from controlplane.db import transaction
from controlplane.domain.accounts.models import User
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.nodes.servicer import NodeControlServicer, start_grpc_server
from controlplane.services import Services
from tests.api.factories import bearer, login, make_peer, make_server, make_user
from tests.multiprocess.scripted_agent import ScriptedAgent


@asynccontextmanager
async def agents_endpoint(services: Services, target: str) -> AsyncIterator[grpc.aio.Server]:
    """The agents' gRPC server as `serve` runs it: a new servicer each time, as a new process would have."""
    servicer = NodeControlServicer(services.agent_sessions, services.agents)
    server = await start_grpc_server(servicer, target)
    try:
        yield server
    finally:
        await server.stop(grace=0.5)  # as the process's shutdown does (grace 2 s)
        # The streams' clean-up (offline mark) has run before the next step touches the database.
        await wait_until(lambda: len(services.agents) == 0, "a stream outlived its server")


async def node_with_credential(services: Services) -> tuple[Server, str]:
    server = await make_server(services, "Miami 1", "10.8.0.0/24")
    async with services.sessionmaker.begin() as db:
        credential = await services.servers.reissue_credential(db, server.id)
    return server, credential


async def serial_of(services: Services, server_id: str) -> tuple[int, int]:
    async with services.sessionmaker() as db:
        row = await db.get(Server, server_id)
        assert row is not None
        return row.serial, row.applied_serial


async def create_peer(services: Services, user: User, name: str, server: Server) -> Peer:
    """As the API does: committed through `transaction`, whose after-commit hook wakes the node's stream."""
    async with transaction(services.sessionmaker) as db:
        return await services.peers.create(db, user.id, name, server=await db.get(Server, server.id))


@pytest.fixture
def target(tmp_path: Path) -> str:
    return f"unix:{tmp_path / 'grpc.sock'}"


async def test_an_agent_with_the_current_serial_gets_in_sync_and_then_deltas(
    services: Services, client: AsyncTestClient[Any], target: str
) -> None:
    server, credential = await node_with_credential(services)
    ana = await make_user(services, "ana")
    await make_peer(services, ana, "movil", server)
    agent = ScriptedAgent(target, server.id, credential, retry_seconds=0.05, resume=True)
    try:
        async with agents_endpoint(services, target):
            agent.start()
            first = await agent.wait_full_state(1)
            assert len(first.peers) == 1
        # The control plane restarts; the node applied everything meanwhile.
        async with agents_endpoint(services, target):
            await wait_until(lambda: agent.in_syncs, "the agent was never told it is in sync")
            assert agent.in_syncs[-1][1] == first.serial
            assert len(agent.full_states) == 1  # no second snapshot: nothing read, decrypted or sent
            # Changes after InSync come as deltas, as after a snapshot.
            laptop = await create_peer(services, ana, "portatil", server)
            delta = await agent.next_delta()
            assert delta.serial > first.serial and [p.allowed_ips[0] for p in delta.upsert_peers] == [
                f"{laptop.address}/32"
            ]
            await wait_until(lambda: _in_sync(services, server.id), "the operator never saw the node in sync")
            peers = (await client.get("/api/client/accounts/peers", headers=bearer(await login(client, "ana")))).json()
            assert not any(p["processing"] for p in peers)
    finally:
        await agent.stop()


async def test_an_agent_that_missed_a_change_gets_a_full_state(services: Services, target: str) -> None:
    server, credential = await node_with_credential(services)
    ana = await make_user(services, "ana")
    agent = ScriptedAgent(target, server.id, credential, retry_seconds=0.05, resume=True)
    try:
        async with agents_endpoint(services, target):
            agent.start()
            await agent.wait_full_state(1)
        await create_peer(services, ana, "movil", server)  # while the control plane is away
        async with agents_endpoint(services, target):
            second = await agent.wait_full_state(2)
            assert len(second.peers) == 1 and agent.in_syncs == []
    finally:
        await agent.stop()


async def test_an_agent_without_resume_gets_a_full_state_even_when_current(services: Services, target: str) -> None:
    # An agent from before InSync existed would ignore it and then refuse every delta: it gets a snapshot.
    server, credential = await node_with_credential(services)
    agent = ScriptedAgent(target, server.id, credential, retry_seconds=0.05, resume=False)
    try:
        async with agents_endpoint(services, target):
            agent.start()
            await agent.wait_full_state(1)
        async with agents_endpoint(services, target):
            await agent.wait_full_state(2)
            assert agent.in_syncs == []
    finally:
        await agent.stop()


async def test_a_result_lost_with_the_old_process_is_settled_by_the_reported_serial(
    services: Services, client: AsyncTestClient[Any], target: str
) -> None:
    server, credential = await node_with_credential(services)
    ana = await make_user(services, "ana")
    agent = ScriptedAgent(target, server.id, credential, retry_seconds=0.05, resume=True)
    try:
        async with agents_endpoint(services, target):
            agent.start()
            await agent.wait_full_state(1)
            agent.answering = False  # the node applies it, but its answer dies with the control plane
            peer = await create_peer(services, ana, "movil", server)
            delta = await agent.next_delta()
        async with services.sessionmaker() as db:
            [status] = (await db.execute(select(NodeOperation.status).where(NodeOperation.peer_id == peer.id))).one()
        assert status is OperationStatus.PENDING
        agent.answering = True
        async with agents_endpoint(services, target):
            await wait_until(lambda: agent.in_syncs, "the agent was never told it is in sync")
            assert agent.in_syncs[-1][1] == delta.serial
            assert await serial_of(services, server.id) == (delta.serial, delta.serial)
            listed = (await client.get("/api/client/accounts/peers", headers=bearer(await login(client, "ana")))).json()
            assert [p["processing"] for p in listed] == [False]  # the customer's device is no longer "processing"
    finally:
        await agent.stop()


async def _in_sync(services: Services, server_id: str) -> bool:
    serial, applied = await serial_of(services, server_id)
    return applied >= serial


async def wait_until(check: Any, message: str, within: float = 30) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while loop.time() < deadline:
        value = check()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(message)
