"""Per-process caches of database rows (validated sessions, peer lists) and the one way they are emptied: in this
process when the transaction that changed the rows commits, in every other process before that request answers."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from controlplane.realtime.bus import EventBus
from controlplane.realtime.topics import CACHES_STALE, CachesStale

V = TypeVar("V")
EVERYTHING = "*"  # a tag that stands for every entry of a cache
_PENDING = "stale_cache_tags"  # session.info: cache name -> tags changed in the open transaction
_COMMITTED = "stale_cache_tags_committed"  # ... changed by a committed transaction, not yet told to other processes
_ANNOUNCER = "stale_cache_announcer"  # an after-commit callback that announces them is registered
_GENERATIONS = "cache_generations"  # cache name -> its generation when the session's transaction began


class LocalCache(Generic[V]):
    """Values by key for at most `ttl` seconds, each under tags (`user:ID`, `session:ID`...) that drop it.

    `generation` grows with every drop: a value read from the database is stored only if no drop happened since the
    read began, so a read that raced with a commit cannot put the old rows back. While the bus may be missing events
    (Redis subscription down) the cache answers nothing."""

    def __init__(self, name: str, ttl: float, max_entries: int, usable: Callable[[], bool]) -> None:
        self.name = name
        self.generation = 0
        self._ttl = ttl
        self._max_entries = max_entries
        self._usable = usable
        self._entries: dict[str, tuple[float, V, tuple[str, ...]]] = {}
        self._by_tag: dict[str, set[str]] = {}

    def get(self, key: str) -> V | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry[0] <= time.time() or not self._usable():
            self._remove(key)
            return None
        return entry[1]

    def put(self, key: str, value: V, tags: Iterable[str], generation: int, until: float | None = None) -> None:
        """Store `value` read when `generation` was current, until `until` (epoch seconds) or the ttl, sooner."""
        if self._ttl <= 0 or generation != self.generation or not self._usable():
            return
        if key in self._entries:
            self._remove(key)
        elif len(self._entries) >= self._max_entries:
            self._remove(next(iter(self._entries)))  # the oldest
        expires = time.time() + self._ttl
        entry_tags = tuple(tags)
        self._entries[key] = (expires if until is None else min(expires, until), value, entry_tags)
        for tag in entry_tags:
            self._by_tag.setdefault(tag, set()).add(key)

    def drop(self, tags: Iterable[str]) -> None:
        self.generation += 1
        for tag in tags:
            if tag == EVERYTHING:
                self.clear()
                return
            for key in list(self._by_tag.get(tag, ())):
                self._remove(key)

    def clear(self) -> None:
        self.generation += 1
        self._entries.clear()
        self._by_tag.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def _remove(self, key: str) -> None:
        entry = self._entries.pop(key, None)
        if entry is None:
            return
        for tag in entry[2]:
            keys = self._by_tag.get(tag)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._by_tag[tag]


class CacheInvalidation:
    """The caches of this process, and the tags a transaction made stale (`stale`), dropped once it commits."""

    def __init__(self, bus: EventBus, session_class: type[Session]) -> None:
        self._bus = bus
        self._caches: dict[str, LocalCache[Any]] = {}
        bus.subscribe(CACHES_STALE, self._on_event)
        bus.on_gap(self.clear)
        event.listen(session_class, "after_begin", self._after_begin)
        event.listen(session_class, "after_commit", self._after_commit)
        event.listen(session_class, "after_rollback", self._after_rollback)

    def cache(self, name: str, ttl: float, max_entries: int = 10_000) -> LocalCache[Any]:
        cache: LocalCache[Any] = LocalCache(name, ttl, max_entries, lambda: self._bus.reliable)
        self._caches[name] = cache
        return cache

    def generation(self, session: Session | AsyncSession, cache: LocalCache[Any]) -> int:
        """The generation to store what `session` reads under: the one of when its transaction began, because a
        transaction may read from a snapshot of that moment (SQLite), older than drops that came since."""
        if session.in_transaction():
            begun: dict[str, int] | None = session.info.get(_GENERATIONS)
            if begun is not None and cache.name in begun:
                return begun[cache.name]
        return cache.generation

    def stale(self, session: Session | AsyncSession, cache: str, tags: Iterable[str]) -> None:
        """Tags whose entries the open transaction changes: dropped here at its commit, everywhere else by
        `announce`, which the request's transaction (db.transaction) runs before it answers."""
        info = session.info
        pending: dict[str, set[str]] = info.setdefault(_PENDING, {})
        pending.setdefault(cache, set()).update(tags)
        if not info.get(_ANNOUNCER):
            info[_ANNOUNCER] = True

            async def announce() -> None:
                await self.announce(info)

            info.setdefault("after_commit", []).append(announce)

    async def announce(self, info: dict[Any, Any]) -> None:
        """Tell every other process what the committed transactions of a session (its `info`) made stale;
        returns once they all know."""
        info.pop(_ANNOUNCER, None)
        committed: dict[str, set[str]] | None = info.pop(_COMMITTED, None)
        if committed:
            await self._bus.publish_everywhere(
                CACHES_STALE, CachesStale({name: sorted(tags) for name, tags in committed.items()})
            )

    def clear(self) -> None:
        for cache in self._caches.values():
            cache.clear()

    def _drop(self, tags_by_cache: Mapping[str, Iterable[str]]) -> None:
        for name, tags in tags_by_cache.items():
            cache = self._caches.get(name)
            if cache is not None:
                cache.drop(tags)

    def _after_begin(self, session: Session, _transaction: Any, _connection: Any) -> None:
        # The outer transaction's moment counts; a savepoint begun later must not move it forward.
        session.info.setdefault(_GENERATIONS, {name: cache.generation for name, cache in self._caches.items()})

    def _after_commit(self, session: Session) -> None:
        if session.in_nested_transaction():
            return  # a savepoint: nothing is committed until the outer transaction is
        session.info.pop(_GENERATIONS, None)
        pending: dict[str, set[str]] | None = session.info.pop(_PENDING, None)
        if not pending:
            return
        self._drop(pending)
        committed: dict[str, set[str]] = session.info.setdefault(_COMMITTED, {})
        for name, tags in pending.items():
            committed.setdefault(name, set()).update(tags)

    def _after_rollback(self, session: Session) -> None:
        if session.in_nested_transaction():
            return  # a savepoint: what was flushed before it still stands (dropping more than needed is harmless)
        session.info.pop(_GENERATIONS, None)
        session.info.pop(_PENDING, None)

    async def _on_event(self, event: CachesStale) -> None:
        self._drop(event.tags)
