"""An agent's answer ends only operations sent to its own node (docs/security.md, "agents")."""

from __future__ import annotations

from typing import Any

from litestar.testing import AsyncTestClient
from sqlalchemy import select

from controlplane.domain.peers.models import Peer
from controlplane.nodes.agent_sessions import AgentSessions
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.services import Services
from protos import agent_pb2
from tests.api.factories import bearer, login, make_peer, make_server, make_user


def servicer(services: Services) -> AgentSessions:
    return services.agent_sessions


async def test_an_agent_cannot_end_another_nodes_operation(services: Services, client: AsyncTestClient[Any]) -> None:
    miami, madrid = (
        await make_server(services, "Miami 1", "10.8.0.0/24"),
        await make_server(services, "Madrid 1", "10.9.0.0/24"),
    )
    ana = await make_user(services, "ana")
    peer = await make_peer(services, ana, "movil", miami)  # its CREATE is pending on Miami
    async with services.sessionmaker() as db:
        operation = (await db.execute(select(NodeOperation).where(NodeOperation.peer_id == peer.id))).scalar_one()
    node = servicer(services)
    # Madrid's agent names Miami's operation: as if it were applied (or failed) there.
    for ok in (True, False):
        result = agent_pb2.OperationResult(operation_id=operation.id, serial=operation.serial, ok=ok, error="x")
        await node.result(madrid.id, result)
    async with services.sessionmaker() as db:
        assert (await db.get(NodeOperation, operation.id)).status is OperationStatus.PENDING  # type: ignore[union-attr]
        assert (await db.get(Peer, peer.id)).pending_operation_id == operation.id  # type: ignore[union-attr]
    listed = (await client.get("/api/client/accounts/peers", headers=bearer(await login(client, "ana")))).json()
    assert listed[0]["processing"] is True
    # Miami's own answer ends it.
    await node.result(miami.id, agent_pb2.OperationResult(operation_id=operation.id, ok=True))
    async with services.sessionmaker() as db:
        assert (await db.get(NodeOperation, operation.id)).status is OperationStatus.OK  # type: ignore[union-attr]
