"""Peers as staff handle them: search across customers, enable or disable, move, manual payment, extend by a plan."""

from __future__ import annotations

from sqlalchemy import Select, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.accounts.models import User
from controlplane.domain.peers import staff_schemas as schemas
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.schemas import RoomRef
from controlplane.domain.rooms.models import Room, RoomMember
from controlplane.domain.servers.models import Server


async def _rooms_of(db: AsyncSession, peer_ids: list[str]) -> dict[str, RoomRef]:
    if not peer_ids:
        return {}
    rows = await db.execute(
        select(RoomMember.peer_id, Room.id, Room.name)
        .join(Room, Room.id == RoomMember.room_id)
        .where(RoomMember.peer_id.in_(peer_ids))
    )
    return {peer_id: RoomRef(id=pid, name=name) for peer_id, pid, name in rows.all()}


async def _views(db: AsyncSession, rows: list[tuple[Peer, str]]) -> list[schemas.StaffPeer]:
    rooms = await _rooms_of(db, [p.id for p, _ in rows])
    return [staff_view(p, u, rooms.get(p.id)) for p, u in rows]


def staff_view(peer: Peer, username: str, room: RoomRef | None = None) -> schemas.StaffPeer:
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
        party=room,
    )


def _peers_with_owner() -> Select[tuple[Peer, str]]:
    return select(Peer, User.username).join(User, User.id == Peer.user_id)


async def peers_of(db: AsyncSession, user_id: str) -> list[schemas.StaffPeer]:
    rows = await db.execute(_peers_with_owner().where(Peer.user_id == user_id).order_by(Peer.created, Peer.name))
    return await _views(db, [(p, u) for p, u in rows.all()])


async def staff_peer(db: AsyncSession, peer: Peer) -> schemas.StaffPeer:
    await db.refresh(peer, ["plans_history"])
    username = await db.scalar(select(User.username).where(User.id == peer.user_id))
    return (await _views(db, [(peer, username or "")]))[0]


async def search_peers(
    db: AsyncSession, q: str, server: str, active: bool | None, page: int, page_size: int
) -> schemas.PeerPage:
    query = _peers_with_owner()
    if q.strip():
        # contains(autoescape): a typed % or _ is a character to find, not a wildcard.
        needle = q.strip().lower()
        query = query.where(
            or_(
                func.lower(Peer.name).contains(needle, autoescape=True),
                User.username_key.contains(needle, autoescape=True),
                Peer.address.contains(needle, autoescape=True),
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
    items = await _views(db, [(p, u) for p, u in rows.all()])
    return schemas.PeerPage(items=items, total=total, page=page, page_size=page_size)
