"""Node operations: queued with the node's next serial, delivered to its agent, ended by its answer or a timeout.

The one door through which the rest of the control plane changes what a node holds (docs/architecture.md)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Protocol, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key

from controlplane.db import after_commit, new_id, utcnow
from controlplane.domain.peers.models import ONE_PEER, Peer
from controlplane.domain.servers.models import Server
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.realtime.bus import EventBus
from controlplane.realtime.topics import NODE_CHANGED, NodeChanged


class Ahead(Protocol):
    """Sending a queued change ahead to a stream this process holds (nodes/send_ahead.py, `SendAhead`): declared
    here, not imported, since building a delta reads the desired state, which reads the backbone, which queues
    its changes here."""

    def queue(self, db: AsyncSession, operation: NodeOperation) -> None: ...


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


# Why the control plane cancelled an operation, as staff read it (old rows were written in English).
_CANCELLED = {
    "the peer was disabled or enabled meanwhile": "el peer se deshabilitó o habilitó mientras tanto",
    "the peer was deleted meanwhile": "el peer se borró mientras tanto",
    "the target server was disabled": "el servidor de destino se deshabilitó",
}


def staff_error_text(error: str | None) -> str | None:
    """Why an operation failed, in the manager's Spanish (the overview's recent operations). A node that answered
    with an error keeps its own words after ours: they are what an operator searches the node's log for."""
    if not error:
        return None
    if error.startswith(TIMEOUT_PREFIX):
        return "El nodo no respondió a tiempo; el cambio no se aplicó."
    if error.startswith("cancelled"):
        reason = error.partition(":")[2].strip()
        reason = _CANCELLED.get(reason, reason)
        return f"Cancelada: {reason}." if reason else "Cancelada."
    return f"El nodo no pudo aplicar el cambio. Detalle del nodo: {error}"


# The statements of the change path, built once (docs/benchmarks.md, "Cost per change"): every regenerate, move or
# switch runs them, and building a statement costs more than sending it. Core statements on the tables also skip
# the ORM's autoflush, so a service's pending changes to the peer go out in one flush with the operation's row.
# (An update's parameters must not be named like a column: those names are its SET values.)
_servers = cast(Table, Server.__table__)
_operations = cast(Table, NodeOperation.__table__)
_BUMP_SERIAL = (
    update(_servers)
    .where(_servers.c.id == bindparam("server_id"))
    .values(serial=_servers.c.serial + 1)
    .returning(_servers.c.serial)
)
_APPLIED = (
    update(_servers)
    .where(_servers.c.id == bindparam("server_id"), _servers.c.applied_serial < bindparam("applied"))
    .values(applied_serial=bindparam("applied"))
)
_END = (
    update(_operations)
    .where(_operations.c.id == bindparam("operation_id"), _operations.c.status == OperationStatus.PENDING)
    .values(status=bindparam("outcome"), error=bindparam("why"), finished=bindparam("ended_at"))
    .returning(*_operations.c)
)
# An agent may end only operations sent to its own node (docs/security.md, "agents").
_END_OWN = _END.where(_operations.c.server_id == bindparam("node"))
_PENDING_AFTER = (
    select(*_operations.c)
    .where(
        _operations.c.server_id == bindparam("server_id"),
        _operations.c.serial > bindparam("serial"),
        _operations.c.status == OperationStatus.PENDING,
    )
    .order_by(_operations.c.serial)
)
# The peer an operation ended for, with what its view shows.
_PEER = ONE_PEER.where(Peer.id == bindparam("peer_id"))


def _read_here(db: AsyncSession, server_id: str) -> Server | None:
    """The server as this transaction already read it, if it did: the Core updates above do not refresh it."""
    server: Server | None = db.identity_map.get(identity_key(Server, server_id))
    return server


# Called with (db, operation, peer or None) when a notifying operation ends; registered in one place,
# controlplane/services.py (the peers' and the rooms' outcome handlers).
OutcomeHandler = Callable[[AsyncSession, NodeOperation, Peer | None], Awaitable[None]]


class NodeOperations:
    def __init__(
        self,
        bus: EventBus,
        timeout_seconds: float,
        count_outcome: Callable[[bool], None],
        ahead: Ahead | None = None,
    ) -> None:
        self._bus = bus
        self._ahead = ahead  # deltas for the agents whose streams this process holds, built before commit
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
        batch_id: str | None = None,
    ) -> NodeOperation:
        """Bump the node's serial and record the change; its agent hears of it once the transaction commits.

        The operation's row is written with the transaction's next flush, with the peer's busy flag beside it.
        `batch_id`: the batch that tells its outcome in one result (models.NodeOperation.batch_id)."""
        serial = (await db.execute(_BUMP_SERIAL, {"server_id": server_id})).scalar_one()
        server = _read_here(db, server_id)
        if server is not None:  # it shows the new serial (out of sync until applied), as the ORM update did
            set_committed_value(server, "serial", serial)
        operation = NodeOperation(
            id=new_id(),
            server_id=server_id,
            serial=serial,
            kind=kind,
            delta=delta,
            user_id=user_id,
            peer_id=peer.id if peer else None,
            room_id=room_id,
            notify=notify,
            batch_id=batch_id,
            status=OperationStatus.PENDING,
        )
        db.add(operation)
        if peer is not None and notify:
            peer.pending_operation_id = operation.id
            peer.pending_kind, peer.pending_since = kind.value, utcnow()  # what the customer's view tells
        if self._ahead is not None:
            self._ahead.queue(db, operation)  # before the publish: the stream here has the delta when woken
        after_commit(db, lambda: self._bus.publish(NODE_CHANGED, NodeChanged(server_id, serial=serial)))
        return operation

    def credential_revoked(self, db: AsyncSession, server_id: str) -> None:
        """The node's credential changed: once committed, its agent's open stream ends, on whichever process."""
        after_commit(db, lambda: self._bus.publish(NODE_CHANGED, NodeChanged(server_id, revoked=True)))

    async def pending_after(self, db: AsyncSession, server_id: str, serial: int) -> list[NodeOperation]:
        """The node's pending operations after `serial`, in order: read to be sent, not to be changed (they are
        not attached to the session)."""
        await db.flush()  # the statement is Core: operations this transaction queued must be in the table first
        rows = await db.execute(_PENDING_AFTER, {"server_id": server_id, "serial": serial})
        return [NodeOperation(**row._mapping) for row in rows]

    async def finish(
        self, db: AsyncSession, operation_id: str, error: str | None, server_id: str | None = None
    ) -> NodeOperation | None:
        """End one operation (once: a second answer for it changes nothing) and tell its owner.

        `server_id`: the node that answered. An agent may end only operations sent to its own node; another
        node's (a compromised or confused agent naming a foreign id) is ignored (docs/security.md, "agents")."""
        status = OperationStatus.FAILED if error else OperationStatus.OK
        # One statement ends it and returns the row (the answer path to the owner's browser is latency-bound).
        await db.flush()  # Core, like _END: an operation queued in this transaction must be in the table
        values = {"operation_id": operation_id, "outcome": status, "why": error, "ended_at": utcnow()}
        if server_id is None:
            ended = (await db.execute(_END, values)).one_or_none()
        else:  # (a parameter the statement does not name would be written as a column: hence two statements)
            ended = (await db.execute(_END_OWN, {**values, "node": server_id})).one_or_none()
        if ended is None:
            return None
        operation = NodeOperation(**ended._mapping)  # what ended, for the handlers (not attached to the session)
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
            await self.finish(db, operation_id, f"{TIMEOUT_PREFIX}: el nodo no respondió a tiempo")
        return len(overdue)

    async def _ended(self, db: AsyncSession, operation: NodeOperation) -> None:
        if operation.status is OperationStatus.OK:
            # Before the peer is read: the view pushed to its owner shows the server in sync.
            await db.execute(_APPLIED, {"server_id": operation.server_id, "applied": operation.serial})
            server = _read_here(db, operation.server_id)
            if server is not None and server.applied_serial < operation.serial:
                set_committed_value(server, "applied_serial", operation.serial)
        peer = None
        if operation.peer_id:
            peer = (await db.execute(_PEER, {"peer_id": operation.peer_id})).unique().scalar_one_or_none()
            if peer is not None and peer.pending_operation_id == operation.id:
                peer.pending_operation_id = peer.pending_kind = peer.pending_since = None
        if operation.notify:
            for handler in self._handlers:
                await handler(db, operation, peer)
