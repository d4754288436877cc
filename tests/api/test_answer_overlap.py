"""A customer's request while an agent's answer is being written: both are served, one after the other.

The agent's stream runs on the test's event loop (as on the server's), the request through the test client. The
answer here is a node's full state confirming a pending key rotation; its transaction holds SQLite's write lock
(and PostgreSQL's row lock on the peer) while its outcome is settled. The outcome handler added below keeps that
transaction open a little longer, so the request lands inside it every time instead of by luck.

Litestar's AsyncTestClient answered an `await` by running the app in its portal thread and blocking the calling
loop until the answer came: the answer's transaction could not finish while the request waited for its lock, and
SQLite gave up after its 30 s busy timeout ("database is locked", a 503; on PostgreSQL the two would wait for ever).
`loop_free_client` (tests/api/conftest.py) waits in a worker thread, as a browser waits without stopping the server.
The server itself never blocks its loop: in production the answer's transaction ends and the request goes on.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import select

from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.nodes.agent_sessions import FULL_PREFIX
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.services import Services
from protos import agent_pb2
from tests.api.two_nodes import World, two_nodes

PEERS = "/api/client/accounts/peers"
HELD_SECONDS = 0.5


async def test_a_rename_during_a_full_state_answer_is_served_at_once(
    services: Services, loop_free_client: AsyncTestClient[Any]
) -> None:
    client = loop_free_client
    world: World = await two_nodes(services, client)
    answer = await client.patch(f"{PEERS}/{world.peer.id}", json={"operation": "regenerate"}, headers=world.headers)
    assert answer.status_code == 202, answer.text

    inside = asyncio.Event()

    async def slow_outcome(*_: object) -> None:
        inside.set()
        await asyncio.sleep(HELD_SECONDS)  # the answer's transaction, lock held, is still running

    services.operations.on_outcome(slow_outcome)
    async with services.sessionmaker() as db:
        serial = (await db.get_one(Server, world.miami)).serial
    full_state_ok = agent_pb2.OperationResult(operation_id=f"{FULL_PREFIX}{serial}", serial=serial, ok=True)
    answering = asyncio.create_task(services.agent_sessions.result(world.miami, full_state_ok))
    await asyncio.wait_for(inside.wait(), 10)

    started = time.monotonic()
    renamed = await client.patch(
        f"{PEERS}/{world.peer.id}", json={"operation": "rename", "name": "tableta"}, headers=world.headers
    )
    waited = time.monotonic() - started
    await asyncio.wait_for(answering, 10)

    assert renamed.status_code == 200, renamed.text
    assert waited < 10, f"the rename waited {waited:.1f} s for the agent's answer"
    async with services.sessionmaker() as db:
        peer = await db.get_one(Peer, world.peer.id)
        assert peer.name == "tableta"
        assert peer.pending_operation_id is None and peer.public_key != world.peer.public_key  # the rotation is done
        statuses = (await db.execute(select(NodeOperation.status))).scalars().all()
        assert OperationStatus.PENDING not in statuses
