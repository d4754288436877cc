"""The manager's first page: how many users, peers and nodes, what is pending or failed, and (admins) revenue."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import utcnow
from controlplane.domain.accounts.models import Role, User
from controlplane.domain.manager import schemas
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.status import ONLINE_WITHIN
from controlplane.domain.usage.service import overview_usage
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.nodes.operations import staff_error_text


async def _count(db: AsyncSession, model: type, *where: object) -> int:
    return await db.scalar(select(func.count()).select_from(model).where(*where)) or 0  # type: ignore[arg-type]


async def recent_operations(db: AsyncSession, limit: int = 10) -> list[schemas.OperationRow]:
    """Pending operations and those that failed in the last day, newest first."""
    rows = await db.execute(
        select(NodeOperation, Server.name)
        .join(Server, Server.id == NodeOperation.server_id)
        .where(
            or_(
                NodeOperation.status == OperationStatus.PENDING,
                (NodeOperation.status == OperationStatus.FAILED)
                & (NodeOperation.created >= utcnow() - timedelta(days=1)),
            )
        )
        .order_by(NodeOperation.created.desc())
        .limit(limit)
    )
    return [operation_row(op, name) for op, name in rows.all()]


def operation_row(op: NodeOperation, server_name: str) -> schemas.OperationRow:
    return schemas.OperationRow(
        id=op.id,
        server_id=op.server_id,
        server_name=server_name,
        kind=str(op.kind),
        status=str(op.status),
        peer_id=op.peer_id,
        error=staff_error_text(op.error),
        created=op.created,
        finished=op.finished,
    )


async def _online(db: AsyncSession, now: datetime, connected_here: set[str]) -> int:
    """Seen lately (any process may hold the agent's stream), or connected to this process right now."""
    rows = await db.execute(select(Server.id, Server.last_seen))
    recent = now - ONLINE_WITHIN
    return sum(1 for sid, seen in rows.all() if sid in connected_here or (seen is not None and seen >= recent))


async def overview(
    db: AsyncSession, revenue: list[schemas.RevenueRow] | None, connected_here: set[str] | None = None
) -> schemas.Overview:
    connected_here = connected_here or set()
    now = utcnow()
    return schemas.Overview(
        users=await _count(db, User, User.role == Role.CUSTOMER),
        customers_blocked=await _count(db, User, User.role == Role.CUSTOMER, User.blocked.is_(True)),
        users_new_7d=await _count(db, User, User.role == Role.CUSTOMER, User.created >= now - timedelta(days=7)),
        peers=await _count(db, Peer),
        peers_active=await _count(db, Peer, Peer.active.is_(True)),
        # Peers whose configuration two devices share (docs/operations.md, "One device per peer").
        peers_shared_config=await _count(db, Peer, Peer.shared_config_warned_at.is_not(None)),
        servers=await _count(db, Server),
        servers_active=await _count(db, Server, Server.active.is_(True)),
        # Last-seen from the database, so every process behind a load balancer gives the same answer.
        servers_online=await _online(db, now, connected_here),
        operations_pending=await _count(db, NodeOperation, NodeOperation.status == OperationStatus.PENDING),
        operations_failed_24h=await _count(
            db,
            NodeOperation,
            NodeOperation.status == OperationStatus.FAILED,
            NodeOperation.created >= now - timedelta(days=1),
        ),
        recent_operations=await recent_operations(db),
        revenue=revenue,
        usage=await overview_usage(db, now),
    )
