"""Peers as staff handle them: search across customers, create for a customer, rename, enable or disable, move,
manual payment, extend by a plan."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Select, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import utcnow
from controlplane.domain.accounts.models import Role, User
from controlplane.domain.accounts.service import AccountService
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.trail import AuditTrail
from controlplane.domain.peers import staff_schemas as schemas
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.schemas import RoomRef
from controlplane.domain.peers.service import PeerService
from controlplane.domain.plans.staff import get_plan
from controlplane.domain.rooms.models import Room, RoomMember
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.service import ServerService
from controlplane.errors import Invalid, NotFound
from controlplane.field_names import changes_text

STAFF_NAME_TAKEN = "El cliente ya tiene un peer con ese nombre."


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


class StaffPeers:
    """What the manager's Peers page does to a customer's peer, each with its audit note; built per request from
    the long-lived parts (domain/peers/dependencies.py). Views keep keys and the mirror link out (docs/security.md,
    "staff views")."""

    def __init__(self, accounts: AccountService, servers: ServerService, peers: PeerService) -> None:
        self._accounts = accounts
        self._servers = servers
        self._peers = peers

    async def create(self, db: AsyncSession, audit: AuditTrail, data: schemas.PeerCreate) -> schemas.StaffPeer:
        user = await self._accounts.find_by_username(db, data.username)
        if user is None or user.role is not Role.CUSTOMER:
            raise NotFound("Cliente no encontrado.", code="user_not_found")
        server = await self._servers.get(db, data.server) if data.server else None
        expiration = utcnow() + timedelta(days=data.days) if data.days else None
        peer = await self._peers.create(db, user.id, data.name, server=server, expiration_date=expiration)
        audit.note(
            "peer", peer.id,
            f"Peer {peer.name} de {user.username} en {peer.server.name}"
            + (f", {data.days} días" if data.days else ", sin vencimiento"),
        )  # fmt: skip
        return await staff_peer(db, peer)

    async def update(
        self, db: AsyncSession, audit: AuditTrail, peer_id: str, data: schemas.PeerPatch
    ) -> schemas.StaffPeer:
        if data.active is None and data.manual_payment is None and data.name is None:
            raise Invalid("Indique 'name', 'active' o 'manual_payment'.", code="nothing_to_change")
        peer = await self._peers.by_id(db, peer_id)
        changes: dict[str, object] = {}
        if data.name is not None:
            old_name = peer.name
            peer = await self._peers.rename(db, peer.user_id, peer.id, data.name, STAFF_NAME_TAKEN)
            if peer.name != old_name:
                audit.note("peer", peer.id, f"Peer {old_name} renombrado a {peer.name}", AuditAction.PEER_RENAME)
            if data.active is None and data.manual_payment is None:
                return await staff_peer(db, peer)
        if data.manual_payment is not None:
            peer.manual_payment = data.manual_payment
            changes["manual_payment"] = data.manual_payment
        if data.active is not None:
            message = None if data.active else f"El peer {peer.name} fue deshabilitado por un administrador."
            await self._peers.set_active(db, peer, data.active, message, by_staff=True)
            changes["active"] = data.active
        audit.note("peer", peer.id, f"{peer.name}: {changes_text(changes)}", AuditAction.PEER_UPDATE)
        return await staff_peer(db, peer)

    async def move(self, db: AsyncSession, audit: AuditTrail, peer_id: str, server_id: str) -> schemas.StaffPeer:
        """The customer's own change-server path: the owner's browsers hear the outcome as usual."""
        peer = await self._peers.by_id(db, peer_id)
        origin = peer.server.name
        peer = await self._peers.change_server(db, peer.user_id, peer.id, server_id)
        # The move is pending until the new node confirms (docs/operations.md): the peer still shows its old server.
        target = await db.get_one(Server, peer.pending_server_id)
        audit.note("peer", peer.id, f"{peer.name}: de {origin} a {target.name}")
        return await staff_peer(db, peer)

    async def extend(self, db: AsyncSession, audit: AuditTrail, peer_id: str, plan_id: str) -> schemas.StaffPeer:
        peer = await self._peers.by_id(db, peer_id)
        plan = await get_plan(db, plan_id)
        await self._peers.add_plan(db, peer, plan.id, plan.name, plan.price, plan.validity_hours)
        until = f"hasta el {peer.expiration_date:%d/%m/%Y %H:%M} UTC" if peer.expiration_date else "sin vencimiento"
        audit.note("peer", peer.id, f"{peer.name}: plan {plan.name} ({plan.price} USD), {until}")
        return await staff_peer(db, peer)
