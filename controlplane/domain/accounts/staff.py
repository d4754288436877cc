"""Helping customers: finding accounts, blocking and unblocking them, sending reset and verification links."""

from __future__ import annotations

from sqlalchemy import Select, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.accounts import staff_schemas as schemas
from controlplane.domain.accounts.deletion import AccountDeletion
from controlplane.domain.accounts.models import Role, User
from controlplane.domain.accounts.service import AccountService, Email
from controlplane.domain.accounts.sessions import SessionService
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.staff import peers_of
from controlplane.domain.rooms.models import Room, RoomMember
from controlplane.errors import Conflict, Forbidden, NotFound


class UserNotFound(NotFound):
    code = "user_not_found"
    message = "Usuario no encontrado."


def _row(user: User, peers: int) -> schemas.UserRow:
    return schemas.UserRow(
        id=user.id,
        username=user.username,
        email=user.email,
        email_verified=user.email_verified,
        alias=user.alias,
        role=str(user.role),
        blocked=user.blocked,
        deleted=user.deleted_at is not None,
        created=user.created,
        last_login=user.last_login,
        peers=peers,
    )


def _with_peer_count(query: Select[tuple[User]]) -> Select[tuple[User, int]]:
    counts = select(Peer.user_id, func.count().label("n")).group_by(Peer.user_id).subquery()
    return query.outerjoin(counts, counts.c.user_id == User.id).add_columns(func.coalesce(counts.c.n, 0))


async def rooms_of(db: AsyncSession, user_id: str) -> list[schemas.StaffRoom]:
    """Rooms the user owns, then rooms where one of their peers is a guest."""
    members = select(RoomMember.room_id, func.count().label("n")).group_by(RoomMember.room_id).subquery()
    guest_in = select(RoomMember.room_id).join(Peer, Peer.id == RoomMember.peer_id).where(Peer.user_id == user_id)
    rows = await db.execute(
        select(Room, User.username, func.coalesce(members.c.n, 0))
        .join(User, User.id == Room.owner_id)
        .outerjoin(members, members.c.room_id == Room.id)
        .where(or_(Room.owner_id == user_id, Room.id.in_(guest_in)))
        .order_by(Room.created)
    )
    rooms = [
        schemas.StaffRoom(
            id=room.id,
            name=room.name,
            owner=owner,
            relation="owner" if room.owner_id == user_id else "guest",
            members=n,
            created=room.created,
        )
        for room, owner, n in rows.all()
    ]
    return sorted(rooms, key=lambda r: r.relation != "owner")


class StaffUsers:
    def __init__(self, accounts: AccountService, sessions: SessionService, deletion: AccountDeletion) -> None:
        self._accounts = accounts
        self._sessions = sessions
        self._deletion = deletion

    async def search(
        self, db: AsyncSession, q: str, blocked: bool | None, role: str, page: int, page_size: int
    ) -> schemas.UserPage:
        query = select(User)
        if q.strip():
            # contains(autoescape): a typed % or _ is a character to find, not a wildcard.
            needle = q.strip().lower()
            query = query.where(
                or_(
                    User.username_key.contains(needle, autoescape=True),
                    func.lower(User.email).contains(needle, autoescape=True),
                    User.alias_key.contains(needle, autoescape=True),
                )
            )
        if blocked is not None:
            query = query.where(User.blocked.is_(blocked))
        if role:
            query = query.where(User.role == role)
        total = await db.scalar(select(func.count()).select_from(query.subquery())) or 0
        rows = await db.execute(
            _with_peer_count(query)
            .order_by(User.created.desc(), User.id)
            .offset((page - 1) * page_size)
            .limit(page_size)
        )
        return schemas.UserPage(
            items=[_row(user, n) for user, n in rows.all()], total=total, page=page, page_size=page_size
        )

    async def get(self, db: AsyncSession, user_id: str) -> User:
        user = await db.get(User, user_id)
        if user is None:
            raise UserNotFound()
        return user

    async def living(self, db: AsyncSession, user_id: str) -> User:
        """An account staff act on: a deleted one answers 409 `account_deleted`, whatever the action (nothing staff
        do brings it back: docs/security.md, "Deleting an account")."""
        user = await self.get(db, user_id)
        if user.deleted_at is not None:
            raise Conflict("La cuenta fue eliminada.", code="account_deleted")
        return user

    async def detail(self, db: AsyncSession, user_id: str) -> schemas.UserDetail:
        user = await self.get(db, user_id)
        peers = await peers_of(db, user.id)
        return schemas.UserDetail(user=_row(user, len(peers)), peers=peers, rooms=await rooms_of(db, user.id))

    async def set_blocked(self, db: AsyncSession, user_id: str, blocked: bool) -> schemas.UserRow:
        """A blocked account cannot log in, and every session it has ends now: its next call answers 401 and its
        open sockets (on every process) are closed with 4401 once this commits."""
        user = await self.get(db, user_id)
        if user.role is not Role.CUSTOMER:
            raise Forbidden("Las cuentas del personal no se bloquean desde aquí.", code="staff_account")
        user = await self.living(db, user_id)
        user.blocked = blocked
        if blocked:
            await self._sessions.end_all(db, user.id, "blocked")
        await db.flush()
        peers = await db.scalar(select(func.count()).select_from(Peer).where(Peer.user_id == user.id)) or 0
        return _row(user, peers)

    async def delete(self, db: AsyncSession, user_id: str) -> tuple[str, schemas.UserRow]:
        """Delete a customer's account (domain/accounts/deletion.py); returns its former username and its row."""
        user = await self.get(db, user_id)
        if user.role is not Role.CUSTOMER:
            raise Forbidden("Las cuentas del personal no se eliminan desde aquí.", code="staff_account")
        if user.deleted_at is not None:
            raise Conflict("La cuenta ya fue eliminada.", code="account_deleted")
        username = user.username
        await self._deletion.delete(db, user, "deleted_by_staff")
        return username, _row(user, 0)

    async def password_reset_email(self, db: AsyncSession, user_id: str) -> tuple[User, Email]:
        user = await self.living(db, user_id)
        if user.blocked:
            raise Conflict("La cuenta está bloqueada; desbloquéela antes.", code="account_blocked")
        if not user.email or not user.email_verified:
            raise Conflict("El usuario no tiene un email verificado.", code="no_verified_email")
        return user, await self._accounts.password_reset_email(db, user)

    async def verification_email(self, db: AsyncSession, user_id: str) -> tuple[User, Email]:
        user = await self.living(db, user_id)
        if not user.email:
            raise Conflict("El usuario no tiene email.", code="no_email")
        if user.email_verified:
            raise Conflict("El email del usuario ya está verificado.", code="email_already_verified")
        return user, await self._accounts.verification_email(db, user)
