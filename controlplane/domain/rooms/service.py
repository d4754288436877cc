"""Room rules (docs/contract.md#rooms): what every room operation shares, and the queries. The operations
themselves (create, join, leave, remove, delete, passwords, and what other services start: a member moved or
deleted, a server closed to rooms, an account closed) are one module each in `operations/`.

Every membership change ends the same way (`settle`): the nodes the room touched before or touches now get a
ROOM operation (the room's current members, or its removal), the room is busy while those operations are pending,
and every user the change touched hears of it (owner and guests). A room left without peers is deleted (`remove`).
"""

from __future__ import annotations

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
from controlplane.domain.peers.service import PeerInactive, owned_peer
from controlplane.domain.rooms import lobby, operations, schemas
from controlplane.domain.rooms.errors import RoomFull, RoomNotFound
from controlplane.domain.rooms.models import Room, RoomMember
from controlplane.domain.rooms.operations import create as create_operation
from controlplane.domain.rooms.operations import delete as delete_operation
from controlplane.domain.rooms.operations import peer_deleted, peer_moved, server_closed
from controlplane.domain.rooms.operations.base import DeletionNotice, RemovalNotice, blank, emptied
from controlplane.domain.rooms.operations.password import new_password
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.status import is_in_sync
from controlplane.domain.servers.status import is_online as server_is_online
from controlplane.domain.versions import DELETED, bump, version_of_flushed
from controlplane.errors import Conflict, Invalid
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.nodes.operations import NodeOperations
from controlplane.ratelimit import RateLimiter
from controlplane.realtime import messages
from controlplane.realtime.hub import PushHub

ALIAS_REQUIRED = "Antes de crear o unirse a una sala configure su alias."

# WireGuard re-handshakes every 2 minutes while a tunnel carries traffic (keepalives included): a peer whose
# latest handshake is older than 3 minutes is not connected.
RECENT_HANDSHAKE_SECONDS = 180


def _rooms_with_a_member(peer_condition: ColumnElement[bool]) -> Select[tuple[str]]:
    """Ids of the rooms with a member peer that meets `peer_condition` (a subquery)."""
    return select(RoomMember.room_id).join(Peer, Peer.id == RoomMember.peer_id).where(peer_condition)


def is_online(handshake_at: int, now: float) -> bool:
    return bool(handshake_at) and now - handshake_at < RECENT_HANDSHAKE_SECONDS


class RoomService:
    def __init__(
        self, box: SecretBox, nodes: NodeOperations, hub: PushHub, limiter: RateLimiter, *, max_members: int = 32
    ) -> None:
        self._max_members = max_members
        self._box = box
        self._nodes = nodes
        self._hub = hub
        self._limiter = limiter

    # What the operation modules use beside the transaction.
    @property
    def box(self) -> SecretBox:
        return self._box

    @property
    def nodes(self) -> NodeOperations:
        return self._nodes

    @property
    def limiter(self) -> RateLimiter:
        return self._limiter

    def new_password(self) -> str:
        return new_password()

    def new_password_enc(self) -> str:
        return self._box.encrypt(new_password())

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
        if room.owner_id != user_id and user_id not in await self.users_of(db, room.id, room.owner_id):
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
            users = await self.users_of(db, room.id, room.owner_id)
            await self.tell(db, room, users | {room.owner_id}, operation_started=False)

    async def record_presence(
        self,
        db: AsyncSession,
        server_id: str,
        handshakes: Mapping[str, int],
        now: float | None = None,
        rtts: Mapping[str, int | None] | None = None,
    ) -> None:
        """A server's stats report (public key -> latest handshake): room members placed on that server get their
        presence updated, and the users of every room where somebody came online or went offline see it at once.
        `rtts` (public key -> round trip in µs, None = not measured) are the same lines' round trips: each line
        carries the peer's current figure, so a line without one clears it (docs/agent-protocol.md, "Round trips").

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
            if rtts is not None:
                rtt = rtts.get(public_key)
                if rtt is not None:
                    member.rtt_us, member.rtt_at, member.rtt_server = rtt, now, server_id
                elif member.rtt_us is not None:
                    member.rtt_us = None
        if not flipped:
            return
        await db.flush()
        for room in (await db.execute(select(Room).where(Room.id.in_(flipped)))).scalars():
            users = await self.users_of(db, room.id, room.owner_id)
            await self.tell(db, room, users | {room.owner_id}, operation_started=False)

    def password_of(self, room: Room) -> str:
        return self._box.decrypt(room.password_enc)

    # --- operations (one module each: operations/) --------------------------------------------------------------

    async def operate(self, db: AsyncSession, user_id: str, room_id: str | None, request: object) -> schemas.RoomAnswer:
        """A customer's call on the rooms, run by its module; the answer shows the room if the caller still sees it
        (a guest that took out its last peer, or a deleted room, gets none)."""
        operation = operations.by_request(request)
        assert operation.start is not None  # every module with a request starts
        answer = await operation.start(self, db, user_id, room_id, request)
        if answer.room is None:
            return schemas.RoomAnswer(success=True, message=answer.message)
        try:
            still = await self.visible(db, user_id, answer.room.id)
        except RoomNotFound:  # the caller is out of the room now
            return schemas.RoomAnswer(success=True, message=answer.message)
        view = await self.view(db, still, user_id)
        return schemas.RoomAnswer(success=True, message=answer.message, data=view, password=answer.password)

    async def create(self, db: AsyncSession, user_id: str, name: str, peer_id: str) -> Room:
        """A room created outside a request (the demo's data, tests' worlds), by the create module's own path."""
        answer = await create_operation.start(self, db, user_id, None, create_operation.RoomCreate(name, peer_id))
        assert answer.room is not None
        return answer.room

    # --- what other services start (RoomHooks, ServerAdmin, AccountDeletion): their modules say what happens ------

    async def admit(self, db: AsyncSession, room_id: str, peer: Peer) -> Room:
        """A claimed guest pass's new peer enters the pass's room (domain/guest_passes/): no password, since the
        owner paid for the seat; the members cap still applies."""
        room = (await db.execute(select(Room).where(Room.id == room_id).with_for_update(of=Room))).scalar_one_or_none()
        if room is None:
            raise RoomNotFound()
        nodes_before = await self.nodes_of(db, room.id)
        users_before = await self.users_of(db, room.id, room.owner_id)
        await self.add_member(db, room, peer)
        await self.settle(db, room, nodes_before=nodes_before, users_before=users_before)
        return room

    async def peer_moved(self, db: AsyncSession, peer: Peer, old_server_id: str) -> None:
        await peer_moved.peer_moved(self, db, peer, old_server_id)

    async def peer_deleting(self, db: AsyncSession, peer: Peer) -> None:
        await peer_deleted.peer_deleting(self, db, peer)

    async def owner_deleting(self, db: AsyncSession, user_id: str) -> None:
        await delete_operation.owner_deleting(self, db, user_id)

    async def server_rooms_changed(self, db: AsyncSession, server: Server) -> None:
        await server_closed.server_rooms_changed(self, db, server)

    async def peer_renamed(self, db: AsyncSession, peer: Peer) -> None:
        """Everyone in the peer's room sees it under its new name (nothing changes on the nodes)."""
        room = await self.room_of_peer(db, peer.id)
        if room is not None:
            users = await self.users_of(db, room.id, room.owner_id)
            await self.tell(db, room, users, operation_started=False)

    # --- membership changes -----------------------------------------------------------------------------------

    async def remove(
        self,
        db: AsyncSession,
        room: Room,
        peer_ids: list[str],
        *,
        notice: RemovalNotice,
        actor: str | None = None,
        extra_nodes: Iterable[str] = (),
    ) -> Room | None:
        """Take peers out; the owners of those peers read `notice` (why, in the operation's words), except `actor`
        (the caller, told by the answer). A room left without peers is deleted; then None."""
        nodes_before = await self.nodes_of(db, room.id) | set(extra_nodes)
        users_before = await self.users_of(db, room.id, room.owner_id)
        names_by_user: dict[str, list[str]] = {}
        for name, owner in await db.execute(select(Peer.name, Peer.user_id).where(Peer.id.in_(peer_ids))):
            names_by_user.setdefault(owner, []).append(name)
        notices = {user: notice(room.name, names) for user, names in names_by_user.items() if user != actor}
        await db.execute(delete(RoomMember).where(RoomMember.room_id == room.id, RoomMember.peer_id.in_(peer_ids)))
        await bump(db, peers=peer_ids, rooms=[room.id])  # a bulk statement: no flush saw it (domain/versions.py)
        if not await db.scalar(select(func.count()).select_from(RoomMember).where(RoomMember.room_id == room.id)):
            # A room without peers is deleted: nobody could reach anybody in it, and it frees the owner's slot.
            await self.delete_room(
                db,
                room,
                notice=emptied,
                actor=actor,
                notices=notices,
                nodes_before=nodes_before,
                users_before=users_before,
            )
            return None
        await self.settle(db, room, nodes_before=nodes_before, users_before=users_before, notices=notices)
        return room

    async def delete_room(
        self,
        db: AsyncSession,
        room: Room,
        *,
        notice: DeletionNotice,
        actor: str | None = None,
        notices: Mapping[str, str] | None = None,
        nodes_before: set[str] | None = None,
        users_before: set[str] | None = None,
    ) -> None:
        """Delete the room; every user but `actor` reads `notice` (after the removal's, when a removal emptied it)."""
        nodes = nodes_before if nodes_before is not None else await self.nodes_of(db, room.id)
        users = users_before if users_before is not None else await self.users_of(db, room.id, room.owner_id)
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
                told = notice(name, owner)
                if notices and user_id in notices:
                    told = f"{notices[user_id]} {told}"
            self.push(db, user_id, gone(data=messages.ref(room_id, DELETED), message=told))

    async def add_member(self, db: AsyncSession, room: Room, peer: Peer) -> None:
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

    async def settle(
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
        nodes_after = await self.nodes_of(db, room.id)
        for server_id in sorted(nodes_before | nodes_after):
            payload = NodeChange.room_changed(room.id) if server_id in nodes_after else NodeChange.room_left(room.id)
            await self._nodes.change(db, server_id, OperationKind.ROOM, payload, room_id=room.id)
        users_after = await self.users_of(db, room.id, room.owner_id)
        notices = notices or {}
        for user_id in users_before - users_after:
            # Not DELETED: the room lives on, and a view after a later join has a larger version than this.
            gone = messages.DeletedGuestRoom(data=messages.ref(room.id, room.version), message=notices.get(user_id))
            self.push(db, user_id, gone)
        await self.tell(db, room, users_after, operation_started=bool(nodes_before | nodes_after), notices=notices)

    async def tell(
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
                self.push(db, user_id, messages.NewRoomOperation(data=messages.ref(room.id, view.version)))
            updated = messages.UpdatedOwnerRoom if user_id == room.owner_id else messages.UpdatedGuestRoom
            self.push(db, user_id, updated(data=view, message=(notices or {}).get(user_id)))

    async def operation_ended(self, db: AsyncSession, operation: NodeOperation, _peer: Peer | None) -> None:
        """A node answered (or timed out): the room's ending for that kind of node operation runs (operations/)."""
        ended = operations.ENDINGS.get(operation.kind)  # a lookup: every ended node operation passes here
        if ended is not None:
            await ended(self, db, operation)

    # --- helpers ------------------------------------------------------------------------------------------------

    async def member_user(self, db: AsyncSession, user_id: str, *, lock: bool = False) -> User:
        query = select(User).where(User.id == user_id)
        user = (await db.execute(query.with_for_update(of=User) if lock else query)).scalar_one()
        if not user.alias:
            raise Conflict(ALIAS_REQUIRED, code="alias_required")
        return user

    def peer_field(self, peer_id: str | None) -> str:
        if blank(peer_id):
            raise Invalid("Debe indicar el peer.", code="peer_required", fields={"peer": "Obligatorio."})
        assert peer_id is not None
        return peer_id.strip()

    async def free_peer(self, db: AsyncSession, user_id: str, peer_id: str) -> Peer:
        """The user's own peer, active, outside any room, on a server that allows rooms."""
        peer = await owned_peer(db, user_id, peer_id.strip(), lock=True)
        if not peer.active:
            raise PeerInactive()
        if not peer.server.hosts_rooms:
            raise Conflict(
                "El servidor del peer no permite salas. Cambie el peer a un servidor con salas.",
                code="server_without_partys",
            )
        if await self.room_of_peer(db, peer.id) is not None:
            raise Conflict("El peer ya está en una sala.", code="peer_in_party")
        await refuse_guest_peer(db, peer.id)  # a guest pass's peer is for its own room only
        return peer

    async def room_of_peer(self, db: AsyncSession, peer_id: str, *, lock: bool = False) -> Room | None:
        query = select(Room).join(RoomMember, RoomMember.room_id == Room.id).where(RoomMember.peer_id == peer_id)
        return (await db.execute(query.with_for_update(of=Room) if lock else query)).scalar_one_or_none()

    async def member(self, db: AsyncSession, room_id: str, peer_id: str) -> tuple[str, str] | None:
        """(peer id, its owner's user id) if that peer is in the room."""
        row = (
            await db.execute(
                select(Peer.id, Peer.user_id)
                .join(RoomMember, RoomMember.peer_id == Peer.id)
                .where(RoomMember.room_id == room_id, Peer.id == peer_id)
            )
        ).one_or_none()
        return (row[0], row[1]) if row is not None else None

    async def nodes_of(self, db: AsyncSession, room_id: str) -> set[str]:
        rows = await db.execute(
            select(Peer.server_id).join(RoomMember, RoomMember.peer_id == Peer.id).where(RoomMember.room_id == room_id)
        )
        return set(rows.scalars())

    async def users_of(self, db: AsyncSession, room_id: str, owner_id: str) -> set[str]:
        """Everyone a change to the room concerns: the owner and every user with a peer in it."""
        rows = await db.execute(
            select(Peer.user_id).join(RoomMember, RoomMember.peer_id == Peer.id).where(RoomMember.room_id == room_id)
        )
        return {owner_id, *rows.scalars()}

    async def busy(self, db: AsyncSession, room_ids: list[str]) -> set[str]:
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
        busy = await self.busy(db, ids)
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

    def push(self, db: AsyncSession, user_id: str, push: messages.PushMessage) -> None:
        after_commit(db, lambda: self._hub.push(user_id, push))
