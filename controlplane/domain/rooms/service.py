"""Room rules (docs/contract.md#rooms): create, join, leave, remove, delete; who is told; which nodes apply what.

Every membership change ends the same way (`_settle`): the nodes the room touched before or touches now get a
ROOM operation (the room's current members, or its removal), the room is busy while those operations are pending,
and every user the change touched hears of it (owner and guests). A room left without peers is deleted.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Iterable, Mapping

from sqlalchemy import ColumnElement, Select, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.crypto import SecretBox
from controlplane.db import after_commit, one_of
from controlplane.domain.accounts.models import User
from controlplane.domain.guest_passes.rules import refuse_guest_peer
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.service import PeerInactive, PeerNotFound, owned_peer
from controlplane.domain.rooms import lobby, schemas
from controlplane.domain.rooms.models import Room, RoomMember
from controlplane.domain.rooms.notices import Deletion, Removal, deletion_notice, removal_notice
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.status import is_in_sync
from controlplane.domain.servers.status import is_online as server_is_online
from controlplane.domain.versions import DELETED, bump, version_of_flushed
from controlplane.errors import Conflict, Forbidden, Invalid, NotFound
from controlplane.nodes.backbone import refresh_backbone
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.nodes.operations import NodeOperations, failure_reason
from controlplane.ratelimit import RateLimiter
from controlplane.realtime import messages
from controlplane.realtime.hub import PushHub
from controlplane.settings import RateLimit

MAX_OWNED = 5
NAME_MAX = 32
PASSWORD_LENGTH = 12
PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # noqa: S105 - no 0/O, 1/l/I
# Guessing room passwords: a user gets this many join attempts per window.
JOIN_ATTEMPTS = RateLimit(30, 60)

TOO_MANY = "No se pueden crear más de 5 salas"
NAME_REQUIRED = "Por favor, ingrese un nombre para la sala"
JOIN_FIELDS = "Por favor, complete todos los campos"
PEER_REQUIRED = "Por favor, selecciona un peer para añadir"
ALIAS_REQUIRED = "Antes de crear o unirse a una sala configure su alias."
# A password the owner chooses: long enough that the join limit (JOIN_ATTEMPTS) makes guessing it hopeless.
PASSWORD_MIN = 8
PASSWORD_MAX = 64
PASSWORD_REQUIRED = "Escriba la nueva contraseña de la sala."  # noqa: S105 - a message, not a password
PASSWORD_RULE = f"La contraseña de la sala debe tener entre {PASSWORD_MIN} y {PASSWORD_MAX} caracteres."
# A room operation its node did not confirm (docs/operations.md, "What the customer is told").
NODE_LATE = (
    "La sala {room} ya tiene el cambio, pero el servidor {server} no lo confirmó ({why}). Lo aplicará en cuanto"
    " vuelva a sincronizar."
)


class RoomNotFound(NotFound):
    code = "party_not_found"
    message = "Sala no encontrada."


class OwnerOnly(Forbidden):
    code = "party_owner_only"
    message = "Solo el administrador de la sala puede hacer esto."


class RoomFull(Conflict):
    code = "party_full"

    def __init__(self, most: int) -> None:
        super().__init__(
            f"La sala está llena: admite como máximo {most} peers. Pida al administrador que quite alguno."
        )


class RoomsDisabled(Conflict):
    code = "partys_disabled"
    message = "Las salas no están habilitadas."


# WireGuard re-handshakes every 2 minutes while a tunnel carries traffic (keepalives included): a peer whose
# latest handshake is older than 3 minutes is not connected.
RECENT_HANDSHAKE_SECONDS = 180


def _rooms_with_a_member(peer_condition: ColumnElement[bool]) -> Select[tuple[str]]:
    """Ids of the rooms with a member peer that meets `peer_condition` (a subquery)."""
    return select(RoomMember.room_id).join(Peer, Peer.id == RoomMember.peer_id).where(peer_condition)


def is_online(handshake_at: int, now: float) -> bool:
    return bool(handshake_at) and now - handshake_at < RECENT_HANDSHAKE_SECONDS


def new_password() -> str:
    return "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(PASSWORD_LENGTH))


def name_key(name: str) -> str:
    """What makes two room names one: neither case (Unicode case folding: 'STRASSE' is 'Straße') nor runs of
    blanks count. Create and join both go through it, so a guest finds the room however they type its name."""
    return " ".join(name.split()).casefold()


def _blank(value: str | None) -> bool:
    return value is None or not value.strip()


class RoomService:
    def __init__(
        self, box: SecretBox, nodes: NodeOperations, hub: PushHub, limiter: RateLimiter, *, max_members: int = 32
    ) -> None:
        self._max_members = max_members
        self._box = box
        self._nodes = nodes
        self._hub = hub
        self._limiter = limiter

    # --- reading --------------------------------------------------------------------------------------------

    async def lists_for(self, db: AsyncSession, user_id: str) -> schemas.RoomLists:
        """Rooms the user owns, and rooms where one of the user's peers is a guest."""
        owned = list((await db.execute(select(Room).where(Room.owner_id == user_id).order_by(Room.created))).scalars())
        guest = list(
            (
                await db.execute(
                    select(Room)
                    .where(
                        Room.owner_id != user_id,
                        Room.id.in_(_rooms_with_a_member(Peer.user_id == user_id)),
                    )
                    .order_by(Room.created)
                )
            ).scalars()
        )
        views = await self._views(db, [*owned, *guest], user_id)
        return schemas.RoomLists(owned_partys=views[: len(owned)], guest_partys=views[len(owned) :])

    async def view(self, db: AsyncSession, room: Room, viewer_id: str) -> schemas.RoomView:
        return (await self._views(db, [room], viewer_id))[0]

    async def visible(self, db: AsyncSession, user_id: str, room_id: str, *, lock: bool = False) -> Room:
        """The room if the user owns it or has a peer in it; anyone else's answers exactly like a missing one."""
        query = select(Room).where(Room.id == room_id)
        room = (await db.execute(query.with_for_update(of=Room) if lock else query)).scalar_one_or_none()
        if room is None:
            raise RoomNotFound()
        if room.owner_id != user_id and user_id not in await self._users_of(db, room.id, room.owner_id):
            raise RoomNotFound()
        return room

    async def by_id(self, db: AsyncSession, room_id: str) -> Room:
        """Any user's room: for staff and jobs only."""
        room = await db.get(Room, room_id)
        if room is None:
            raise RoomNotFound()
        return room

    async def server_status_changed(self, db: AsyncSession, server_id: str) -> None:
        """A server's agent connected or its stream ended: the users of every room with a member placed there see
        the room again, with that member's `server_online` as it now is (docs/api.md, rooms)."""
        query = select(Room).where(Room.id.in_(_rooms_with_a_member(Peer.server_id == server_id)))
        rooms = (await db.execute(query.order_by(Room.id))).scalars()
        for room in rooms:
            users = await self._users_of(db, room.id, room.owner_id)
            await self._tell(db, room, users | {room.owner_id}, operation_started=False)

    async def record_presence(
        self, db: AsyncSession, server_id: str, handshakes: Mapping[str, int], now: float | None = None
    ) -> None:
        """A server's stats report (public key -> latest handshake): room members placed on that server get their
        presence updated, and the users of every room where somebody came online or went offline see it at once.

        Only members whose placement is this server count: during a move the old server's reports are ignored.
        """
        if not handshakes:
            return
        now = time.time() if now is None else now
        rows = (
            await db.execute(
                select(RoomMember, Peer.public_key)
                .join(Peer, Peer.id == RoomMember.peer_id)
                .where(Peer.server_id == server_id, one_of(db, Peer.public_key, handshakes))
            )
        ).all()
        flipped: set[str] = set()
        for member, public_key in rows:
            handshake_at = handshakes[public_key]
            online = is_online(handshake_at, now)
            if online != member.online:
                flipped.add(member.room_id)
            if handshake_at != member.handshake_at or online != member.online:
                member.handshake_at, member.online = handshake_at, online
        if not flipped:
            return
        await db.flush()
        for room in (await db.execute(select(Room).where(Room.id.in_(flipped)))).scalars():
            users = await self._users_of(db, room.id, room.owner_id)
            await self._tell(db, room, users | {room.owner_id}, operation_started=False)

    def password_of(self, room: Room) -> str:
        return self._box.decrypt(room.password_enc)

    # --- customer operations ----------------------------------------------------------------------------------

    async def create(self, db: AsyncSession, user_id: str, name: str | None, peer_id: str | None) -> Room:
        user = await self._member_user(db, user_id, lock=True)  # the lock serializes one user's creations
        owned = await db.scalar(select(func.count()).select_from(Room).where(Room.owner_id == user.id))
        if (owned or 0) >= MAX_OWNED:
            raise Conflict(TOO_MANY, code="party_limit")
        name = self._valid_name(name)
        if _blank(peer_id):
            raise Invalid(PEER_REQUIRED, code="peer_required", fields={"peer": PEER_REQUIRED})
        assert peer_id is not None
        peer = await self._free_peer(db, user.id, peer_id)
        room = Room(
            owner_id=user.id, name=name, name_key=name_key(name), password_enc=self._box.encrypt(new_password())
        )
        try:
            async with db.begin_nested():
                db.add(room)
                await db.flush()
        except IntegrityError:
            raise Conflict("Ya existe una sala con ese nombre.", code="party_name_taken") from None
        await self._add_member(db, room, peer)
        await self._settle(db, room, nodes_before=set(), users_before=set())
        return room

    async def join(
        self, db: AsyncSession, user_id: str, name: str | None, password: str | None, peer_id: str | None
    ) -> Room:
        """Join by name and password; also how the owner adds another of their peers to their own room."""
        if _blank(name) or _blank(password) or _blank(peer_id):
            raise Invalid(JOIN_FIELDS, code="join_fields_required")
        assert name is not None and password is not None and peer_id is not None
        user = await self._member_user(db, user_id)
        await self._limiter.hit(f"room-join:{user.id}", JOIN_ATTEMPTS)
        room = (
            await db.execute(select(Room).where(Room.name_key == name_key(name)).with_for_update(of=Room))
        ).scalar_one_or_none()
        # One answer for an unknown name and a wrong password: names cannot be probed; compared in constant time.
        stored = self.password_of(room) if room is not None else new_password()
        if not hmac.compare_digest(password.strip().encode(), stored.encode()) or room is None:
            raise NotFound("Nombre o contraseña de la sala incorrectos.", code="party_credentials_invalid")
        peer = await self._free_peer(db, user.id, peer_id)
        nodes_before = await self._nodes_of(db, room.id)
        users_before = await self._users_of(db, room.id, room.owner_id)
        await self._add_member(db, room, peer)
        await self._settle(db, room, nodes_before=nodes_before, users_before=users_before)
        return room

    async def admit(self, db: AsyncSession, room_id: str, peer: Peer) -> Room:
        """A claimed guest pass's new peer enters the pass's room (domain/guest_passes/): no password, since the
        owner paid for the seat; the members cap still applies."""
        room = (await db.execute(select(Room).where(Room.id == room_id).with_for_update(of=Room))).scalar_one_or_none()
        if room is None:
            raise RoomNotFound()
        nodes_before = await self._nodes_of(db, room.id)
        users_before = await self._users_of(db, room.id, room.owner_id)
        await self._add_member(db, room, peer)
        await self._settle(db, room, nodes_before=nodes_before, users_before=users_before)
        return room

    async def regenerate_password(self, db: AsyncSession, user_id: str, room_id: str) -> tuple[Room, str]:
        """Synchronous (no node work); guests keep their place, only new joins need the new password."""
        room = await self.visible(db, user_id, room_id, lock=True)
        if room.owner_id != user_id:
            raise OwnerOnly()
        password = new_password()
        room.password_enc = self._box.encrypt(password)
        await db.flush()
        return room, password

    async def set_password(self, db: AsyncSession, user_id: str, room_id: str, password: str | None) -> Room:
        """The owner chooses the password (docs/api.md, rooms): surrounding blanks dropped (joins compare the
        stripped text), then PASSWORD_MIN..PASSWORD_MAX characters. Synchronous, like regenerating."""
        room = await self.visible(db, user_id, room_id, lock=True)
        if room.owner_id != user_id:
            raise OwnerOnly()
        chosen = (password or "").strip()
        if not chosen:
            raise Invalid(PASSWORD_REQUIRED, code="party_password_required", fields={"password": PASSWORD_REQUIRED})
        if not PASSWORD_MIN <= len(chosen) <= PASSWORD_MAX:
            raise Invalid(PASSWORD_RULE, code="party_password_invalid", fields={"password": PASSWORD_RULE})
        room.password_enc = self._box.encrypt(chosen)
        await db.flush()
        return room

    async def leave(self, db: AsyncSession, user_id: str, room_id: str, peer_id: str | None) -> Room | None:
        """A user takes one of their own peers out of the room (owner or guest). None if the room is gone."""
        peer_id = self._peer_field(peer_id)
        room = await self.visible(db, user_id, room_id, lock=True)
        member = await self._member(db, room.id, peer_id)
        if member is None or member[1] != user_id:
            raise PeerNotFound()
        return await self._remove(db, room, [peer_id], why=Removal.LEFT, actor=user_id)

    async def remove_peer(self, db: AsyncSession, user_id: str, room_id: str, peer_id: str | None) -> Room | None:
        """The owner removes any peer; a guest may only remove their own peers, which is leaving
        (docs/contract.md#room-roles)."""
        peer_id = self._peer_field(peer_id)
        room = await self.visible(db, user_id, room_id, lock=True)
        member = await self._member(db, room.id, peer_id)
        if member is None:
            raise PeerNotFound()
        if room.owner_id != user_id and member[1] != user_id:
            raise OwnerOnly("Solo puede quitar sus propios peers de la sala.")
        why = Removal.LEFT if member[1] == user_id else Removal.EXPELLED
        return await self._remove(db, room, [peer_id], why=why, actor=user_id)

    async def delete(self, db: AsyncSession, user_id: str, room_id: str) -> None:
        room = await self.visible(db, user_id, room_id, lock=True)
        if room.owner_id != user_id:
            raise OwnerOnly()
        await self._delete(db, room, why=Deletion.BY_OWNER, actor=user_id)

    # --- consistency (called by other services) ---------------------------------------------------------------

    async def peer_moved(self, db: AsyncSession, peer: Peer, old_server_id: str) -> None:
        """A peer changed server: to a server without rooms it leaves its room; otherwise every node of the room
        learns its new address (and the old node drops the room if nothing else keeps it there)."""
        # Locked like every other change to the room, so concurrent changes see each other (e.g. who empties it).
        room = await self._room_of_peer(db, peer.id, lock=True)
        if room is None:
            return
        target = await db.get(Server, peer.server_id)
        if target is None or not target.hosts_rooms:
            await self._remove(db, room, [peer.id], why=Removal.MOVED, extra_nodes={old_server_id})
            await db.refresh(peer, ["membership"])  # the answer shows the peer free at once
            return
        users = await self._users_of(db, room.id, room.owner_id)
        nodes = await self._nodes_of(db, room.id)
        await self._settle(db, room, nodes_before=nodes | {old_server_id}, users_before=users)

    async def owner_deleting(self, db: AsyncSession, user_id: str) -> None:
        """Call before deleting an account: the rooms it owns are deleted whole (guests hear `deleted_guest_party`,
        nodes drop the rooms), as when the owner deletes them."""
        owned = await db.execute(
            select(Room).where(Room.owner_id == user_id).order_by(Room.created).with_for_update(of=Room)
        )
        for room in owned.scalars().all():
            await self._delete(db, room, why=Deletion.OWNER_ACCOUNT, actor=user_id)

    async def peer_renamed(self, db: AsyncSession, peer: Peer) -> None:
        """Everyone in the peer's room sees it under its new name (nothing changes on the nodes)."""
        room = await self._room_of_peer(db, peer.id)
        if room is not None:
            users = await self._users_of(db, room.id, room.owner_id)
            await self._tell(db, room, users, operation_started=False)

    async def peer_deleting(self, db: AsyncSession, peer: Peer) -> None:
        """Call before deleting a peer: it leaves its room first, so nodes and users hear of it."""
        room = await self._room_of_peer(db, peer.id, lock=True)
        if room is not None:
            await self._remove(db, room, [peer.id], why=Removal.PEER_DELETED)

    async def server_rooms_changed(self, db: AsyncSession, server: Server) -> None:
        """Call after a server's allow_partys, active (or backbone endpoint/port) changed: peers on a server that no
        longer hosts rooms (rooms off, or the server disabled) leave them, and every room-enabled node gets the new
        backbone."""
        if not server.hosts_rooms:
            rows = await db.execute(
                select(RoomMember.peer_id, RoomMember.room_id)
                .join(Peer, Peer.id == RoomMember.peer_id)
                .where(Peer.server_id == server.id)
            )
            by_room: dict[str, list[str]] = {}
            for peer_id, room_id in rows:
                by_room.setdefault(room_id, []).append(peer_id)
            for room_id, peer_ids in sorted(by_room.items()):
                room = (await db.execute(select(Room).where(Room.id == room_id).with_for_update(of=Room))).scalar_one()
                await self._remove(db, room, peer_ids, why=Removal.SERVER_CLOSED)
        await refresh_backbone(db, self._nodes, include={server.id})

    # --- membership changes -----------------------------------------------------------------------------------

    async def _remove(
        self,
        db: AsyncSession,
        room: Room,
        peer_ids: list[str],
        *,
        why: Removal,
        actor: str | None = None,
        extra_nodes: Iterable[str] = (),
    ) -> Room | None:
        """Take peers out; the owners of those peers are told why, except `actor` (the caller, told by the answer)."""
        nodes_before = await self._nodes_of(db, room.id) | set(extra_nodes)
        users_before = await self._users_of(db, room.id, room.owner_id)
        names_by_user: dict[str, list[str]] = {}
        for name, owner in await db.execute(select(Peer.name, Peer.user_id).where(Peer.id.in_(peer_ids))):
            names_by_user.setdefault(owner, []).append(name)
        notices = {
            user: removal_notice(why, room.name, names) for user, names in names_by_user.items() if user != actor
        }
        await db.execute(delete(RoomMember).where(RoomMember.room_id == room.id, RoomMember.peer_id.in_(peer_ids)))
        await bump(db, peers=peer_ids, rooms=[room.id])  # a bulk statement: no flush saw it (domain/versions.py)
        if not await db.scalar(select(func.count()).select_from(RoomMember).where(RoomMember.room_id == room.id)):
            # A room without peers is deleted: nobody could reach anybody in it, and it frees the owner's slot.
            await self._delete(
                db,
                room,
                why=Deletion.EMPTY,
                actor=actor,
                notices=notices,
                nodes_before=nodes_before,
                users_before=users_before,
            )
            return None
        await self._settle(db, room, nodes_before=nodes_before, users_before=users_before, notices=notices)
        return room

    async def _delete(
        self,
        db: AsyncSession,
        room: Room,
        *,
        why: Deletion,
        actor: str | None = None,
        notices: Mapping[str, str] | None = None,
        nodes_before: set[str] | None = None,
        users_before: set[str] | None = None,
    ) -> None:
        """Delete the room; every user but `actor` hears why (a removal that emptied it, then the deletion)."""
        nodes = nodes_before if nodes_before is not None else await self._nodes_of(db, room.id)
        users = users_before if users_before is not None else await self._users_of(db, room.id, room.owner_id)
        room_id, owner_id, name = room.id, room.owner_id, room.name
        members = await db.execute(
            delete(RoomMember).where(RoomMember.room_id == room_id).returning(RoomMember.peer_id)
        )
        await bump(db, peers=members.scalars().all())  # their views lose the room (domain/versions.py)
        await db.delete(room)
        await db.flush()
        for server_id in sorted(nodes):
            await self._nodes.change(db, server_id, OperationKind.ROOM, NodeChange.room_left(room_id), notify=False)
        for user_id in users | {owner_id}:
            owner = user_id == owner_id
            gone = messages.DeletedOwnerRoom if owner else messages.DeletedGuestRoom
            told = None
            if user_id != actor:
                told = deletion_notice(why, name, owner=owner)
                if notices and user_id in notices:
                    told = f"{notices[user_id]} {told}"
            self._push(db, user_id, gone(data=messages.ref(room_id, DELETED), message=told))

    async def _add_member(self, db: AsyncSession, room: Room, peer: Peer) -> None:
        # Bounded fan-out: every member's discovery is copied to every other member (docs/agent-protocol.md).
        # The room's row is locked by the caller (join locks it; a new room is not visible yet), so two joins
        # cannot both see the last free place.
        members = await db.scalar(select(func.count()).select_from(RoomMember).where(RoomMember.room_id == room.id))
        if (members or 0) >= self._max_members:
            raise RoomFull(self._max_members)
        try:
            async with db.begin_nested():
                db.add(RoomMember(room_id=room.id, peer_id=peer.id))
                await db.flush()
        except IntegrityError:
            # Another request put this peer in a room first: the database keeps one membership per peer.
            raise Conflict("El peer ya está en una sala.", code="peer_in_party") from None

    async def _settle(
        self,
        db: AsyncSession,
        room: Room,
        *,
        nodes_before: set[str],
        users_before: set[str],
        notices: Mapping[str, str] | None = None,
    ) -> None:
        """Queue the room's new state on every node it touched or touches, and tell every user concerned (`notices`:
        what some of them read about the change, by user)."""
        nodes_after = await self._nodes_of(db, room.id)
        for server_id in sorted(nodes_before | nodes_after):
            payload = NodeChange.room_changed(room.id) if server_id in nodes_after else NodeChange.room_left(room.id)
            await self._nodes.change(db, server_id, OperationKind.ROOM, payload, room_id=room.id)
        users_after = await self._users_of(db, room.id, room.owner_id)
        notices = notices or {}
        for user_id in users_before - users_after:
            # Not DELETED: the room lives on, and a view after a later join has a larger version than this.
            gone = messages.DeletedGuestRoom(data=messages.ref(room.id, room.version), message=notices.get(user_id))
            self._push(db, user_id, gone)
        await self._tell(db, room, users_after, operation_started=bool(nodes_before | nodes_after), notices=notices)

    async def _tell(
        self,
        db: AsyncSession,
        room: Room,
        users: Iterable[str],
        *,
        operation_started: bool,
        notices: Mapping[str, str] | None = None,
    ) -> None:
        for user_id in sorted(users):
            view = await self.view(db, room, user_id)
            if operation_started:
                self._push(db, user_id, messages.NewRoomOperation(data=messages.ref(room.id, view.version)))
            updated = messages.UpdatedOwnerRoom if user_id == room.owner_id else messages.UpdatedGuestRoom
            self._push(db, user_id, updated(data=view, message=(notices or {}).get(user_id)))

    async def operation_ended(self, db: AsyncSession, operation: NodeOperation, _peer: Peer | None) -> None:
        """A node answered (or timed out) for a room: once none of the room's operations is pending, its users
        hear that the work stopped, with the room as it now is."""
        if operation.room_id is None:
            return
        # The lock orders concurrent answers for one room: the last of them sees nothing pending and tells.
        room = (
            await db.execute(select(Room).where(Room.id == operation.room_id).with_for_update(of=Room))
        ).scalar_one_or_none()
        if room is None:
            return
        users = await self._users_of(db, room.id, room.owner_id)
        if operation.status is OperationStatus.FAILED:
            # The membership change stands (the database decides and the node converges to it when it resyncs),
            # so the room's users are told the node is late, not that their change failed (docs/operations.md).
            server = await db.get(Server, operation.server_id)
            notice = NODE_LATE.format(
                room=room.name, server=server.name if server else operation.server_id, why=failure_reason(operation)
            )
            for user_id in users:
                self._push(db, user_id, messages.InfoPush(message=notice, data=messages.Subject(party_id=room.id)))
        if await self._busy(db, [room.id]):
            return
        # `processing` turns false: the operation's row changed, not the room's, so the room's version grows here.
        await bump(db, rooms=[room.id])
        for user_id in sorted(users):
            self._push(db, user_id, messages.StopRoomOperation(data=messages.ref(room.id, room.version)))
        await self._tell(db, room, users, operation_started=False)

    # --- helpers ------------------------------------------------------------------------------------------------

    async def _member_user(self, db: AsyncSession, user_id: str, *, lock: bool = False) -> User:
        query = select(User).where(User.id == user_id)
        user = (await db.execute(query.with_for_update(of=User) if lock else query)).scalar_one()
        if not user.alias:
            raise Conflict(ALIAS_REQUIRED, code="alias_required")
        return user

    def _valid_name(self, name: str | None) -> str:
        if _blank(name):
            raise Invalid(NAME_REQUIRED, code="party_name_required", fields={"name": NAME_REQUIRED})
        assert name is not None
        name = " ".join(name.split())
        if len(name) > NAME_MAX:
            message = f"El nombre de la sala debe tener como máximo {NAME_MAX} caracteres."
            raise Invalid(message, code="party_name_too_long", fields={"name": message})
        return name

    def _peer_field(self, peer_id: str | None) -> str:
        if _blank(peer_id):
            raise Invalid("Debe indicar el peer.", code="peer_required", fields={"peer": "Obligatorio."})
        assert peer_id is not None
        return peer_id.strip()

    async def _free_peer(self, db: AsyncSession, user_id: str, peer_id: str) -> Peer:
        """The user's own peer, active, outside any room, on a server that allows rooms."""
        peer = await owned_peer(db, user_id, peer_id.strip(), lock=True)
        if not peer.active:
            raise PeerInactive()
        if not peer.server.hosts_rooms:
            raise Conflict(
                "El servidor del peer no permite salas. Cambie el peer a un servidor con salas.",
                code="server_without_partys",
            )
        if await self._room_of_peer(db, peer.id) is not None:
            raise Conflict("El peer ya está en una sala.", code="peer_in_party")
        await refuse_guest_peer(db, peer.id)  # a guest pass's peer is for its own room only
        return peer

    async def _room_of_peer(self, db: AsyncSession, peer_id: str, *, lock: bool = False) -> Room | None:
        query = select(Room).join(RoomMember, RoomMember.room_id == Room.id).where(RoomMember.peer_id == peer_id)
        return (await db.execute(query.with_for_update(of=Room) if lock else query)).scalar_one_or_none()

    async def _member(self, db: AsyncSession, room_id: str, peer_id: str) -> tuple[str, str] | None:
        """(peer id, its owner's user id) if that peer is in the room."""
        row = (
            await db.execute(
                select(Peer.id, Peer.user_id)
                .join(RoomMember, RoomMember.peer_id == Peer.id)
                .where(RoomMember.room_id == room_id, Peer.id == peer_id)
            )
        ).one_or_none()
        return (row[0], row[1]) if row is not None else None

    async def _nodes_of(self, db: AsyncSession, room_id: str) -> set[str]:
        rows = await db.execute(
            select(Peer.server_id).join(RoomMember, RoomMember.peer_id == Peer.id).where(RoomMember.room_id == room_id)
        )
        return set(rows.scalars())

    async def _users_of(self, db: AsyncSession, room_id: str, owner_id: str) -> set[str]:
        """Everyone a change to the room concerns: the owner and every user with a peer in it."""
        rows = await db.execute(
            select(Peer.user_id).join(RoomMember, RoomMember.peer_id == Peer.id).where(RoomMember.room_id == room_id)
        )
        return {owner_id, *rows.scalars()}

    async def _busy(self, db: AsyncSession, room_ids: list[str]) -> set[str]:
        rows = await db.execute(
            select(NodeOperation.room_id)
            .where(NodeOperation.room_id.in_(room_ids), NodeOperation.status == OperationStatus.PENDING)
            .distinct()
        )
        return {pid for pid in rows.scalars() if pid}

    async def _views(self, db: AsyncSession, rooms: list[Room], viewer_id: str) -> list[schemas.RoomView]:
        if not rooms:
            return []
        ids = [p.id for p in rooms]
        rows = await db.execute(
            select(
                RoomMember.room_id,
                Peer.id,
                Peer.name,
                Peer.address,
                User.alias,
                RoomMember.handshake_at,
                Server,
                RoomMember.heard_packets,
                RoomMember.heard_at,
            )
            .join(Peer, Peer.id == RoomMember.peer_id)
            .join(User, User.id == Peer.user_id)
            .join(Server, Server.id == Peer.server_id)
            .where(RoomMember.room_id.in_(ids))
            .order_by(RoomMember.joined, Peer.name)
        )
        peers: dict[str, list[schemas.RoomPeer]] = {}
        now = time.time()
        for room_id, peer_id, name, address, alias, handshake_at, server, heard_packets, heard_at in rows:
            packets, heard_ago = lobby.heard(heard_packets, heard_at, now)
            peers.setdefault(room_id, []).append(
                schemas.RoomPeer(
                    id=peer_id,
                    name=name,
                    user=alias or "",
                    private_ip=address,
                    online=is_online(handshake_at, now),
                    server=server.name,
                    server_online=server_is_online(server),
                    server_in_sync=is_in_sync(server),
                    heard_packets=packets,
                    heard_seconds_ago=heard_ago,
                )
            )
        games = await lobby.lobbies(db, ids, now)
        owner_rows = await db.execute(select(User.id, User.alias).where(User.id.in_({p.owner_id for p in rooms})))
        owners = {user_id: alias for user_id, alias in owner_rows}
        busy = await self._busy(db, ids)
        return [
            schemas.RoomView(
                id=p.id,
                name=p.name,
                created=p.created,
                user=owners.get(p.owner_id) or "",
                password=self.password_of(p) if p.owner_id == viewer_id else None,
                peers=peers.get(p.id, []),
                processing=p.id in busy,
                lobby=games.get(p.id, []),
                version=version_of_flushed(p),  # the reads above flushed the transaction's changes
            )
            for p in rooms
        ]

    def _push(self, db: AsyncSession, user_id: str, push: messages.PushMessage) -> None:
        after_commit(db, lambda: self._hub.push(user_id, push))
