"""Deleting an account, by its owner (password confirmed) or by an admin (docs/security.md, "Deleting an account").

What goes: every peer (through `PeerService.delete`: it leaves its room and its node drops the key), the rooms the
account owns (guests are told, nodes drop them), the single-use links, every session (its sockets close with 4401 on
every process once this commits) with its refresh tokens and the addresses and devices it was used from, and the
personal data on the account row: username, email, alias, password.
What stays: the row itself, marked `deleted_at` and renamed `#eliminado-<id>` (a name registration can never give),
because invoices (the business's accounting) and the audit log point at it. A payment that arrives later for one of
its invoices is kept `paid` with its problem for staff to refund, never turned into a peer.
"""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import utcnow
from controlplane.domain.accounts.models import OneTimeLink, User
from controlplane.domain.accounts.service import AccountService
from controlplane.domain.accounts.sessions import Principal, SessionService
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.service import PeerService
from controlplane.domain.rooms.service import RoomService
from controlplane.errors import Conflict, Invalid, NotFound

DELETED_PREFIX = "#eliminado-"  # '#' is outside the usernames registration accepts (service.USERNAME_RE)
UNUSABLE_PASSWORD = "!"  # not a hash: no password ever verifies against it  # noqa: S105


class AccountDeletion:
    def __init__(
        self, accounts: AccountService, sessions: SessionService, peers: PeerService, rooms: RoomService
    ) -> None:
        self._accounts = accounts
        self._sessions = sessions
        self._peers = peers
        self._rooms = rooms

    async def delete_own(self, db: AsyncSession, caller: Principal, password: str, ip: str) -> None:
        """The customer deletes their own account; their current password confirms it."""
        if not password:
            raise Invalid("Escriba su contraseña para confirmar.", code="blank", fields={"password": "Obligatoria."})
        # The hash must not run inside the request's transaction (on SQLite it holds the one write lock); the
        # session check may have begun it, reading only: end it, as a password change does.
        await db.rollback()
        checked_hash = await self._accounts.confirm_password(caller, password, "password", ip)
        user = await self._accounts.get_user(db, caller.user_id)
        if user.password_hash != checked_hash:
            # Changed (a reset, another session's change) while the hash ran: the password checked is not current.
            raise Conflict(
                "La contraseña cambió mientras se procesaba la solicitud. Intente de nuevo.",
                code="password_changed_meanwhile",
            )
        await self.delete(db, user, "account_deleted")

    async def delete(self, db: AsyncSession, user: User, reason: str) -> None:
        query = select(User).where(User.id == user.id).with_for_update().execution_options(populate_existing=True)
        locked = (await db.execute(query)).scalar_one_or_none()
        if locked is None or locked.deleted_at is not None:
            raise NotFound("La cuenta ya no existe.", code="account_deleted")
        # Owned rooms first, whole: then each peer leaves at most a room of someone else's.
        await self._rooms.owner_deleting(db, user.id)
        peers = await db.execute(select(Peer).where(Peer.user_id == user.id).order_by(Peer.created))
        for peer in peers.scalars().all():
            await self._peers.delete(db, peer)
        await db.execute(delete(OneTimeLink).where(OneTimeLink.user_id == user.id))
        locked.username = locked.username_key = f"{DELETED_PREFIX}{user.id[:20]}"
        locked.password_hash = UNUSABLE_PASSWORD
        locked.email, locked.email_verified = None, False
        locked.alias = locked.alias_key = None
        locked.deleted_at = utcnow()
        await self._sessions.end_all(db, user.id, reason)
        await self._sessions.forget_devices(db, user.id)
        await db.flush()
