"""Node operations: queued with the node's next serial, delivered to its agent, ended by its answer or a timeout.

The one door through which the rest of the control plane changes what a node holds (docs/architecture.md)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta

from sqlalchemy import select, true, update
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import after_commit, utcnow
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.realtime.bus import EventBus
from controlplane.realtime.topics import NODE_CHANGED, NodeChanged

# How a timed-out operation's error begins (the owner is told the node did not answer in time).
TIMEOUT_PREFIX = "timeout"


def failure_reason(operation: NodeOperation) -> str:
    """Why a node operation failed, in the customer's words (docs/operations.md, "What the customer is told")."""
    error = operation.error or ""
    if error.startswith(TIMEOUT_PREFIX):
        return "el servidor no respondió a tiempo"
    if error.startswith("cancelled"):
        return "la operación fue cancelada"
    return "el servidor no pudo aplicar el cambio"


# Called with (db, operation, peer or None) when a notifying operation ends; registered in one place,
# controlplane/services.py (the peers' and the rooms' outcome handlers).
OutcomeHandler = Callable[[AsyncSession, NodeOperation, Peer | None], Awaitable[None]]


class NodeOperations:
    def __init__(self, bus: EventBus, timeout_seconds: float, count_outcome: Callable[[bool], None]) -> None:
        self._bus = bus
        self._timeout = timedelta(seconds=timeout_seconds)
        self._handlers: list[OutcomeHandler] = []
        self._count_outcome = count_outcome  # every ended operation, notified or not (the metrics count them)

    def on_outcome(self, handler: OutcomeHandler) -> None:
        self._handlers.append(handler)

    async def change(
        self,
        db: AsyncSession,
        server_id: str,
        kind: OperationKind,
        delta: NodeChange,
        *,
        user_id: str | None = None,
        peer: Peer | None = None,
        notify: bool = True,
        room_id: str | None = None,
    ) -> NodeOperation:
        """Bump the node's serial and record the change; its agent hears of it once the transaction commits."""
        serial = (
            await db.execute(
                update(Server).where(Server.id == server_id).values(serial=Server.serial + 1).returning(Server.serial)
            )
        ).scalar_one()
        operation = NodeOperation(
            server_id=server_id,
            serial=serial,
            kind=kind,
            delta=delta,
            user_id=user_id,
            peer_id=peer.id if peer else None,
            room_id=room_id,
            notify=notify,
        )
        db.add(operation)
        await db.flush()
        if peer is not None and notify:
            peer.pending_operation_id = operation.id
        after_commit(db, lambda: self._bus.publish(NODE_CHANGED, NodeChanged(server_id)))
        return operation

    def credential_revoked(self, db: AsyncSession, server_id: str) -> None:
        """The node's credential changed: once committed, its agent's open stream ends, on whichever process."""
        after_commit(db, lambda: self._bus.publish(NODE_CHANGED, NodeChanged(server_id, revoked=True)))

    async def pending_after(self, db: AsyncSession, server_id: str, serial: int) -> list[NodeOperation]:
        rows = await db.execute(
            select(NodeOperation)
            .where(
                NodeOperation.server_id == server_id,
                NodeOperation.serial > serial,
                NodeOperation.status == OperationStatus.PENDING,
            )
            .order_by(NodeOperation.serial)
        )
        return list(rows.scalars())

    async def finish(
        self, db: AsyncSession, operation_id: str, error: str | None, server_id: str | None = None
    ) -> NodeOperation | None:
        """End one operation (once: a second answer for it changes nothing) and tell its owner.

        `server_id`: the node that answered. An agent may end only operations sent to its own node; another
        node's (a compromised or confused agent naming a foreign id) is ignored (docs/security.md, "agents")."""
        status = OperationStatus.FAILED if error else OperationStatus.OK
        mine = NodeOperation.server_id == server_id if server_id is not None else true()
        # One statement ends it and returns the row (the answer path to the owner's browser is latency-bound).
        operation = await db.scalar(
            update(NodeOperation)
            .where(NodeOperation.id == operation_id, NodeOperation.status == OperationStatus.PENDING, mine)
            .values(status=status, error=error, finished=utcnow())
            .returning(NodeOperation),
            execution_options={"populate_existing": True, "synchronize_session": False},
        )
        if operation is None:
            return None
        self._count_outcome(error is None)
        await self._ended(db, operation)
        return operation

    async def covered_by_snapshot(self, db: AsyncSession, server_id: str, serial: int) -> None:
        """A full state with `serial` applied: every pending operation up to it is done."""
        rows = await db.execute(
            select(NodeOperation.id).where(
                NodeOperation.server_id == server_id,
                NodeOperation.serial <= serial,
                NodeOperation.status == OperationStatus.PENDING,
            )
        )
        for operation_id in rows.scalars().all():
            await self.finish(db, operation_id, None)
        await db.execute(
            update(Server).where(Server.id == server_id, Server.applied_serial < serial).values(applied_serial=serial)
        )

    async def expire_overdue(self, db: AsyncSession) -> int:
        """Operations waiting longer than the timeout end with an error: never silently."""
        rows = await db.execute(
            select(NodeOperation.id).where(
                NodeOperation.status == OperationStatus.PENDING, NodeOperation.created < utcnow() - self._timeout
            )
        )
        overdue = rows.scalars().all()
        for operation_id in overdue:
            await self.finish(db, operation_id, f"{TIMEOUT_PREFIX}: the node did not answer in time")
        return len(overdue)

    async def _ended(self, db: AsyncSession, operation: NodeOperation) -> None:
        peer = None
        if operation.peer_id:
            peer = await db.get(Peer, operation.peer_id)
            if peer is not None and peer.pending_operation_id == operation.id:
                peer.pending_operation_id = None
        if operation.status is OperationStatus.OK:
            await db.execute(
                update(Server)
                .where(Server.id == operation.server_id, Server.applied_serial < operation.serial)
                .values(applied_serial=operation.serial)
            )
        if operation.notify:
            for handler in self._handlers:
                await handler(db, operation, peer)
