"""Peers as staff handle them: search across customers, enable or disable, move, manual payment, extend by a plan."""

from __future__ import annotations

from sqlalchemy import Select, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.accounts.models import User
from controlplane.domain.manager import schemas
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server


def staff_view(peer: Peer, username: str) -> schemas.StaffPeer:
    return schemas.StaffPeer(
        id=peer.id,
        name=peer.name,
        user_id=peer.user_id,
        username=username,
        active=peer.active,
        manual_payment=peer.manual_payment,
        created=peer.created,
        expiration_date=peer.expiration_date,
        address=peer.address,
        server_id=peer.server_id,
        server_name=peer.server.name,
        processing=peer.pending_operation_id is not None,
        plans_history=[
            schemas.PlanHistoryRow(plan_name=h.plan_name, plan_price=f"{h.plan_price:.2f}", created=h.created)
            for h in peer.plans_history
        ],
    )


def _peers_with_owner() -> Select[tuple[Peer, str]]:
    return select(Peer, User.username).join(User, User.id == Peer.user_id)


async def peers_of(db: AsyncSession, user_id: str) -> list[schemas.StaffPeer]:
    rows = await db.execute(_peers_with_owner().where(Peer.user_id == user_id).order_by(Peer.created, Peer.name))
    return [staff_view(p, u) for p, u in rows.all()]


async def staff_peer(db: AsyncSession, peer: Peer) -> schemas.StaffPeer:
    await db.refresh(peer, ["plans_history"])
    username = await db.scalar(select(User.username).where(User.id == peer.user_id))
    return staff_view(peer, username or "")


async def search_peers(
    db: AsyncSession, q: str, server: str, active: bool | None, page: int, page_size: int
) -> schemas.PeerPage:
    query = _peers_with_owner()
    if q.strip():
        like = f"%{q.strip().lower()}%"
        query = query.where(
            or_(
                func.lower(Peer.name).like(like),
                User.username_key.like(like),
                Peer.address.like(like),
                Peer.public_key == q.strip(),
                Peer.id == q.strip(),
            )
        )
    if server:
        query = query.where(Peer.server_id == server)
    if active is not None:
        query = query.where(Peer.active.is_(active))
    total = await db.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = await db.execute(
        query.join(Server, Server.id == Peer.server_id)
        .order_by(Peer.created.desc(), Peer.id)
        .offset((page - 1) * page_size)
        .limit(page_size)
    )
    return schemas.PeerPage(
        items=[staff_view(p, u) for p, u in rows.all()], total=total, page=page, page_size=page_size
    )
