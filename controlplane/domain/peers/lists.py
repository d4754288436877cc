"""What makes a customer's cached peer list stale: watched on every flush and every bulk statement of the app's
sessions, so that no service has to remember to say so."""

from __future__ import annotations

from itertools import chain
from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.orm import ORMExecuteState, Session, UOWTransaction

from controlplane.domain.peers.models import Peer, PlanHistory
from controlplane.domain.rooms.models import Room, RoomMember
from controlplane.domain.servers.models import Server
from controlplane.realtime.invalidation import EVERYTHING, CacheInvalidation

PEER_LISTS = "peer_lists"
# Changes are announced to every process (CacheInvalidation); the lifetime only bounds what an unannounced change
# (a row edited by hand) leaves visible.
PEER_LIST_SECONDS = 10.0
# What a peer list shows of a server and of a room: other columns (serials, heartbeats, stats) change all the time.
SERVER_FIELDS = frozenset({"name", "address", "active", "ubication", "allow_partys"})
ROOM_FIELDS = frozenset({"name"})
# Tables whose bulk statements (no objects to tell which user they touch) make every list stale.
LISTED_TABLES = frozenset({"peers", "plans_history", "room_members", "rooms"})


def user_tag(user_id: str) -> str:
    return f"user:{user_id}"


def peer_tag(peer_id: str) -> str:
    return f"peer:{peer_id}"


def _changed(obj: Any, fields: frozenset[str]) -> bool:
    attrs = inspect(obj).attrs
    return any(attrs[name].history.has_changes() for name in fields)


def stale_tags(session: Session) -> set[str]:
    """The lists a flush changed (called before the session forgets what it flushed)."""
    tags: set[str] = set()
    for obj in chain(session.new, session.dirty, session.deleted):
        if isinstance(obj, Peer):
            tags.add(user_tag(obj.user_id))
        elif isinstance(obj, PlanHistory | RoomMember):
            tags.add(peer_tag(obj.peer_id))
        elif isinstance(obj, Room):
            if obj in session.deleted or (obj not in session.new and _changed(obj, ROOM_FIELDS)):
                return {EVERYTHING}
        elif isinstance(obj, Server) and obj in session.dirty and _changed(obj, SERVER_FIELDS):
            return {EVERYTHING}
    return tags


def _bulk_statement_is_stale(state: ORMExecuteState) -> bool:
    if not (state.is_update or state.is_delete or state.is_insert):
        return False
    table = getattr(state.statement, "table", None)
    name = getattr(table, "name", None)
    if name in LISTED_TABLES:
        return True
    if name == "servers" and state.is_update:
        values = getattr(state.statement, "_values", None) or {}
        return any(getattr(column, "key", column) in SERVER_FIELDS for column in values)
    return False


def watch_peer_lists(invalidation: CacheInvalidation, session_class: type[Session]) -> None:
    """Mark the lists a transaction changes as stale (dropped when it commits, on every process)."""

    @event.listens_for(session_class, "after_flush")
    def _after_flush(session: Session, _flush: UOWTransaction) -> None:
        # After the flush the foreign keys are set; new, dirty and deleted still say what it wrote.
        tags = stale_tags(session)
        if tags:
            invalidation.stale(session, PEER_LISTS, tags)

    @event.listens_for(session_class, "do_orm_execute")
    def _bulk(state: ORMExecuteState) -> None:
        if _bulk_statement_is_stale(state):
            invalidation.stale(state.session, PEER_LISTS, [EVERYTHING])
