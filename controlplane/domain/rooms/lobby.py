"""A room's lobby ("Partidas en la sala") and who can hear whom: what the nodes recognized in the members'
discovery traffic (docs/agent-protocol.md, "Discovery report"; docs/api.md, rooms).

Kept in the database (room_games, room_members.heard_*) so that every control-plane process serves the same lobby.
An entry belongs to the member's room at the time it was heard and is shown only while the peer is still in that
room and its last announcement is under EXPIRY_SECONDS old; a room holds at most ROOM_MAX entries. The room's
users are pushed the room again when its lobby changes (an entry new, gone or changed; a member heard for the
first time in a while), never on a mere refresh, and never another room's users.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Protocol, cast, get_args

from sqlalchemy import and_, delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import after_commit, one_of
from controlplane.domain.accounts.models import User
from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms import schemas
from controlplane.domain.rooms.models import Room, RoomGame, RoomMember
from controlplane.realtime import messages
from controlplane.realtime.hub import PushHub

EXPIRY_SECONDS = 30
ROOM_MAX = 32  # entries per room: a member announcing a hundred services cannot make the page endless
# A report names at most this many games and senders (an agent sends far fewer; more is ignored).
REPORT_MAX = 256
GAMES: frozenset[str] = frozenset(get_args(schemas.GameKind))


class _Game(Protocol):
    @property
    def sender(self) -> str: ...
    @property
    def key(self) -> str: ...
    @property
    def game(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def max_players(self) -> int: ...
    @property
    def detail(self) -> str: ...
    @property
    def seconds_ago(self) -> int: ...


class _Sender(Protocol):
    @property
    def address(self) -> str: ...
    @property
    def packets(self) -> int: ...
    @property
    def seconds_ago(self) -> int: ...


class DiscoveryReport(Protocol):
    """What the agent sends (protos/agent.proto, DiscoveryReport), as this module reads it."""

    @property
    def games(self) -> Sequence[_Game]: ...
    @property
    def senders(self) -> Sequence[_Sender]: ...


# (db, room, viewer id) -> the room as that user sees it (RoomService.view).
ViewOf = Callable[[AsyncSession, Room, str], Awaitable[schemas.RoomView]]


def _count(value: int) -> int | None:
    return value if 0 <= value <= 10_000 else None


class Lobby:
    def __init__(self, hub: PushHub, view: ViewOf) -> None:
        self._hub = hub
        self._view = view

    async def record(self, db: AsyncSession, server_id: str, report: DiscoveryReport, now: float | None = None) -> None:
        """One node's report: members placed on that server only (during a move the old server is ignored)."""
        now = time.time() if now is None else now
        games = [g for g in list(report.games)[:REPORT_MAX] if g.game in GAMES]
        senders = list(report.senders)[:REPORT_MAX]
        addresses = {g.sender for g in games} | {s.address for s in senders}
        if not addresses:
            return
        rows = (
            await db.execute(
                select(RoomMember, Peer.address)
                .join(Peer, Peer.id == RoomMember.peer_id)
                .where(Peer.server_id == server_id, Peer.active, one_of(db, Peer.address, addresses))
            )
        ).all()
        members = {address: member for member, address in rows}
        changed: set[str] = set()
        for sender in senders:
            member = members.get(sender.address)
            if member is None:
                continue
            heard_at = now - min(sender.seconds_ago, EXPIRY_SECONDS)
            if now - member.heard_at > EXPIRY_SECONDS:
                changed.add(member.room_id)  # "ninguno" (or a long silence) becomes "recibidos"
            member.heard_packets += min(sender.packets, 1_000_000)
            member.heard_at = max(member.heard_at, heard_at)
        changed |= await self._store(db, games, members, now)
        changed |= await self._expire(db, {m.room_id for m in members.values()}, now)
        if changed:
            await db.flush()
            for room in (await db.execute(select(Room).where(Room.id.in_(changed)).order_by(Room.id))).scalars():
                await self._tell(db, room)

    async def _store(
        self, db: AsyncSession, games: list[_Game], members: dict[str, RoomMember], now: float
    ) -> set[str]:
        heard = [(members[g.sender], g) for g in games if g.sender in members and g.key]
        if not heard:
            return set()
        peer_ids = {m.peer_id for m, _ in heard}
        existing = {
            (row.peer_id, row.key): row
            for row in (await db.execute(select(RoomGame).where(RoomGame.peer_id.in_(peer_ids)))).scalars()
        }
        live = await self._live_counts(db, {m.room_id for m, _ in heard}, now)
        changed: set[str] = set()
        for member, game in heard:
            seen_at = now - min(game.seconds_ago, EXPIRY_SECONDS)
            fields = {
                "game": game.game,
                "name": game.name[:64],
                "detail": game.detail[:64],
                "port": game.port if 0 < game.port < 65536 else 0,
                "players": game.players,
                "max_players": game.max_players,
            }
            row = existing.get((member.peer_id, game.key[:200]))
            if row is not None and row.room_id == member.room_id and now - row.seen_at <= EXPIRY_SECONDS:
                if any(getattr(row, k) != v for k, v in fields.items()):
                    changed.add(member.room_id)
                    for k, v in fields.items():
                        setattr(row, k, v)
                row.seen_at = max(row.seen_at, seen_at)
                continue
            if live.get(member.room_id, 0) >= ROOM_MAX:
                continue  # the room's lobby is full: newcomers wait for an entry to expire
            live[member.room_id] = live.get(member.room_id, 0) + 1
            changed.add(member.room_id)
            if row is None:
                row = RoomGame(peer_id=member.peer_id, key=game.key[:200], **fields)
                db.add(row)
                existing[(member.peer_id, row.key)] = row
            else:  # expired, or heard in the peer's previous room: starts again in this one
                for k, v in fields.items():
                    setattr(row, k, v)
            row.room_id, row.seen_at = member.room_id, seen_at
        return changed

    async def _live_counts(self, db: AsyncSession, room_ids: set[str], now: float) -> dict[str, int]:
        counts: dict[str, int] = {}
        rows = await db.execute(
            select(RoomGame.room_id).where(RoomGame.room_id.in_(room_ids), RoomGame.seen_at >= now - EXPIRY_SECONDS)
        )
        for (room_id,) in rows:
            counts[room_id] = counts.get(room_id, 0) + 1
        return counts

    async def _expire(self, db: AsyncSession, room_ids: set[str], now: float) -> set[str]:
        """Entries of these rooms past their time, and entries left behind by a peer that changed room."""
        stale = or_(
            RoomGame.seen_at < now - EXPIRY_SECONDS,
            ~select(RoomMember.peer_id)
            .where(RoomMember.peer_id == RoomGame.peer_id, RoomMember.room_id == RoomGame.room_id)
            .exists(),
        )
        gone = (
            await db.execute(select(RoomGame.room_id).where(RoomGame.room_id.in_(room_ids), stale).distinct())
        ).scalars()
        changed = set(gone)
        if changed:
            await db.execute(delete(RoomGame).where(RoomGame.room_id.in_(changed), stale))
        return changed

    async def _tell(self, db: AsyncSession, room: Room) -> None:
        users = await users_of(db, room)
        for user_id in sorted(users):
            view = await self._view(db, room, user_id)
            updated = messages.UpdatedOwnerRoom if user_id == room.owner_id else messages.UpdatedGuestRoom
            self._push_after_commit(db, user_id, updated(data=view))

    def _push_after_commit(self, db: AsyncSession, user_id: str, push: messages.PushMessage) -> None:
        after_commit(db, lambda: self._hub.push(user_id, push))


async def users_of(db: AsyncSession, room: Room) -> set[str]:
    """The room's owner and every user with a peer in it: nobody else is ever told of its lobby."""
    rows = await db.execute(
        select(Peer.user_id).join(RoomMember, RoomMember.peer_id == Peer.id).where(RoomMember.room_id == room.id)
    )
    return {room.owner_id, *rows.scalars()}


async def lobbies(db: AsyncSession, room_ids: Iterable[str], now: float) -> dict[str, list[schemas.LobbyGame]]:
    """The live entries of these rooms, newest first: of peers still in the room, heard since they joined it."""
    rows = await db.execute(
        select(RoomGame, RoomMember.joined, Peer.name, Peer.address, User.alias)
        .join(
            RoomMember,
            and_(RoomMember.peer_id == RoomGame.peer_id, RoomMember.room_id == RoomGame.room_id),
        )
        .join(Peer, Peer.id == RoomGame.peer_id)
        .join(User, User.id == Peer.user_id)
        .where(RoomGame.room_id.in_(list(room_ids)), RoomGame.seen_at >= now - EXPIRY_SECONDS)
        .order_by(RoomGame.seen_at.desc(), RoomGame.id)
    )
    found: dict[str, list[schemas.LobbyGame]] = {}
    for game, joined, peer_name, address, alias in rows:
        entries = found.setdefault(game.room_id, [])
        if len(entries) >= ROOM_MAX or game.seen_at < joined.timestamp():  # heard before it (re)joined
            continue
        entries.append(
            schemas.LobbyGame(
                id=game.id,
                game=cast(schemas.GameKind, game.game),
                name=game.name,
                detail=game.detail,
                peer=game.peer_id,
                peer_name=peer_name,
                user=alias or "",
                address=address,
                port=game.port,
                players=_count(game.players),
                max_players=_count(game.max_players),
                seen_seconds_ago=max(0, int(now - game.seen_at)),
            )
        )
    return found


def heard(packets: int, heard_at: float, now: float) -> tuple[int, int | None]:
    """(discovery packets since the member joined, seconds since the last one or None for none)."""
    if not packets or not heard_at:
        return 0, None
    return packets, max(0, int(now - heard_at))
