"""The version of a peer's or a room's view (docs/api.md, versions), kept in its row and grown in the transaction of
every change to what the view shows: watched on every flush of every session, so that no service has to remember it.

It comes from the data, not from a clock: two control-plane hosts whose clocks disagree still order two views of
one row as the database ordered the changes. `UPDATE ... SET version = version + 1` takes the row's lock, so two
transactions changing one row get two versions in the order they commit.

What a view shows beyond its own row is counted too: a room's view lists its members (a join, a leave, a member's
rename or move, someone coming online) and its running operation; a peer's shows its room and plan history. A
server's live status and names (shown in both) are read as they are at each read, without a version: equal versions
are both taken, the later arrival winning, and those changes are not pushed to customers anyway."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Table, event, inspect, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstanceState, Session, SessionTransaction, SessionTransactionOrigin, UOWTransaction
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key

from controlplane.domain.peers.models import Peer, PlanHistory
from controlplane.domain.rooms.models import Room, RoomMember

# A deletion outranks every view: the row is gone, so nothing newer can come (ids are never reused). The largest
# integer a browser's number holds exactly.
DELETED = 2**53 - 1
# What a room's view shows of a member's peer row.
MEMBER_FIELDS = frozenset({"name", "address", "server_id", "user_id"})


def _changed(obj: Any, fields: Iterable[str]) -> bool:
    attrs = inspect(obj).attrs
    return any(attrs[name].history.has_changes() for name in fields)


def _changes(session: Session) -> tuple[set[str], set[str]]:
    """The peers and rooms whose views this flush changes (ids)."""
    peers: set[str] = set()
    rooms: set[str] = set()
    for obj in session.new:
        if isinstance(obj, RoomMember):
            peers.add(obj.peer_id)
            rooms.add(obj.room_id)
        elif isinstance(obj, PlanHistory) and obj.peer_id is not None:
            peers.add(obj.peer_id)
    for obj in session.dirty:
        if isinstance(obj, Peer) and session.is_modified(obj):
            peers.add(obj.id)
            if obj.membership is not None and _changed(obj, MEMBER_FIELDS):
                rooms.add(obj.membership.room_id)
        elif isinstance(obj, Room) and session.is_modified(obj):
            rooms.add(obj.id)
        elif isinstance(obj, RoomMember) and _changed(obj, ("online",)):
            rooms.add(obj.room_id)  # the handshake time alone changes nothing shown: presence is pushed on flips
    for obj in session.deleted:
        if isinstance(obj, RoomMember):
            peers.add(obj.peer_id)
            rooms.add(obj.room_id)
        elif isinstance(obj, PlanHistory):
            peers.add(obj.peer_id)
        elif isinstance(obj, Peer) and obj.membership is not None:
            rooms.add(obj.membership.room_id)  # its membership goes with it (ON DELETE CASCADE)
    deleted = {obj.id for obj in session.deleted if isinstance(obj, Peer | Room)}
    return peers - deleted, rooms - deleted


# The rows this transaction has already bumped (session.info): a row is bumped once per transaction, since the
# first UPDATE holds its lock until the commit and no other transaction can see or version it in between. Forgotten
# when the transaction or a savepoint ends (a savepoint rolled back takes its bump with it), not when a flush ends:
# a flush runs in a subtransaction of its own, whose end SQLAlchemy announces too.
BUMPED = "versions_bumped"


def _bump(session: Session, model: type[Peer] | type[Room], ids: Iterable[str]) -> None:
    """Grows the versions of rows this flush does not otherwise update, one statement per table; the new versions
    are written into the session's copies of the rows, so a view built from them afterwards carries the version of
    what it shows."""
    bumped: set[tuple[str, str]] = session.info.setdefault(BUMPED, set())
    # One order for every transaction: two of them lock the same rows without a deadlock.
    wanted = sorted({row_id for row_id in ids if (model.__name__, row_id) not in bumped})
    if not wanted:
        return
    bumped.update((model.__name__, row_id) for row_id in wanted)
    table: Table = model.__table__  # type: ignore[assignment]
    statement = (
        update(table)
        .where(table.c.id.in_(wanted))
        .values(version=table.c.version + 1)
        .returning(table.c.id, table.c.version)
    )
    # On the connection, not session.execute: no ORM bulk-statement hook reads it as a change of its own.
    for row_id, version in session.connection().execute(statement):
        obj = session.identity_map.get(identity_key(model, row_id))
        if obj is not None:
            set_committed_value(obj, "version", version)


# `version + 1`, built once: one expression serves every row of its table (building it costs more than the rest
# of the hook).
_GROWN = {Peer: Peer.version + 1, Room: Room.version + 1}


def _bump_in_update(session: Session, objs: Iterable[Peer | Room]) -> None:
    """Rows this flush updates anyway grow their version in that same UPDATE (`version = version + 1`), whose
    RETURNING brings the new version back into the session's copy (the models' eager defaults): one statement for
    the change and its version. A second UPDATE of a row in one transaction would make PostgreSQL check the row's
    foreign keys again (it does for a row its own transaction wrote), locking the owner's `users` row behind a
    transaction that holds it and waits for us: a deadlock, seen with peers created concurrently in two processes."""
    bumped: set[tuple[str, str]] = session.info.setdefault(BUMPED, set())
    for obj in objs:
        key = (type(obj).__name__, obj.id)
        if key in bumped:
            continue
        bumped.add(key)
        obj.version = _GROWN[type(obj)]  # type: ignore[assignment]


def _before_flush(session: Session, _flush: UOWTransaction, _instances: object) -> None:
    peers, rooms = _changes(session)
    updated = [
        obj
        for obj in session.dirty
        if isinstance(obj, Peer | Room) and obj.id in (peers if isinstance(obj, Peer) else rooms)
    ]
    _bump_in_update(session, updated)
    _bump(session, Peer, peers - {obj.id for obj in updated if isinstance(obj, Peer)})
    _bump(session, Room, rooms - {obj.id for obj in updated if isinstance(obj, Room)})


async def bump(db: AsyncSession, *, peers: Iterable[str] = (), rooms: Iterable[str] = ()) -> None:
    """For changes made by a bulk statement, which no flush sees (members taken out of a room, a room's operation
    ended)."""
    await db.flush()

    def both(session: Session) -> None:
        _bump(session, Peer, peers)
        _bump(session, Room, rooms)

    await db.run_sync(both)


def version_of_flushed(obj: Peer | Room) -> int:
    """The version of a view built now. A change not yet flushed would be shown under the version before it, which
    an older view shares: callers flush first (async reads do so by themselves)."""
    state: InstanceState[Any] = inspect(obj)
    if state.modified:
        raise AssertionError(f"{type(obj).__name__} {obj.id}: view built before its change was flushed")
    return obj.version


def _transaction_ended(session: Session, transaction: SessionTransaction) -> None:
    if transaction.origin is SessionTransactionOrigin.SUBTRANSACTION:
        return  # a flush's: the transaction goes on, its bumps with it
    session.info.pop(BUMPED, None)


# Every session class, the app's and the scripts' alike: a change made without a bump would let an older view win.
if not event.contains(Session, "before_flush", _before_flush):
    event.listen(Session, "before_flush", _before_flush)
    event.listen(Session, "after_transaction_end", _transaction_ended)
