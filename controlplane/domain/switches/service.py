"""Reads and flips the runtime switches; a short per-process cache keeps them off the hot path."""

from __future__ import annotations

import asyncio
import time

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.db import after_commit
from controlplane.domain.switches.models import Switch
from controlplane.errors import Invalid


class Switches(msgspec.Struct, frozen=True):
    maintenance: bool = False
    allow_registration: bool = True
    allow_password_recovery: bool = True
    show_landing: bool = True
    allow_email: bool = True
    allow_partys: bool = True
    allow_payments_qvapay: bool = False
    allow_payments_remesita: bool = False


SWITCH_NAMES: tuple[str, ...] = Switches.__struct_fields__
DEFAULTS = Switches()


class SwitchService:
    """Every process caches the switches for `ttl` seconds: a flip reaches all processes within that time, and the
    process that made it at once (its cache is emptied when the flip commits)."""

    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession], ttl: float = 1.0) -> None:
        self._sessionmaker = sessionmaker
        self._ttl = ttl
        self._cached: Switches | None = None
        self._loaded_at = 0.0
        # Bumped by every flip; a read started before a flip may hold the old rows and is not cached as fresh.
        self._generation = 0
        # One read at a time per generation: a burst of requests as the cache expires (a login storm) waits for it
        # instead of taking a database connection each, and nobody is answered with what a flip replaced.
        self._reload: tuple[int, asyncio.Future[Switches]] | None = None

    async def current(self) -> Switches:
        if self._cached is not None and time.monotonic() - self._loaded_at <= self._ttl:
            return self._cached
        reload = self._reload
        if reload is None or reload[0] != self._generation or reload[1].get_loop() is not asyncio.get_running_loop():
            reload = self._reload = (self._generation, asyncio.ensure_future(self._load(self._generation)))
        return await asyncio.shield(reload[1])

    async def _load(self, generation: int) -> Switches:
        try:
            async with self._sessionmaker() as db:
                rows = (await db.execute(select(Switch.name, Switch.enabled))).all()
        finally:
            if self._reload is not None and self._reload[0] == generation:
                self._reload = None  # the next expiry reads again
        switches = msgspec.structs.replace(DEFAULTS, **{n: e for n, e in rows if n in SWITCH_NAMES})
        if generation == self._generation:
            self._cached, self._loaded_at = switches, time.monotonic()
        return switches

    async def update(self, db: AsyncSession, changes: dict[str, bool]) -> Switches:
        unknown = set(changes) - set(SWITCH_NAMES)
        if unknown:
            raise Invalid(f"Interruptor desconocido: {', '.join(sorted(unknown))}.", code="unknown_switch")
        for name, enabled in changes.items():
            row = await db.get(Switch, name)
            if row is None:
                db.add(Switch(name=name, enabled=enabled))
            else:
                row.enabled = enabled
        await db.flush()
        # Now (a caller committing by hand runs no after-commit callbacks) and again after the commit: a read in
        # between sees the old rows and would keep them as fresh.
        self.invalidate()
        after_commit(db, self._invalidated_after_commit)
        rows = (await db.execute(select(Switch.name, Switch.enabled))).all()
        return msgspec.structs.replace(DEFAULTS, **{n: e for n, e in rows if n in SWITCH_NAMES})

    def invalidate(self) -> None:
        self._generation += 1
        self._loaded_at = float("-inf")

    async def _invalidated_after_commit(self) -> None:
        self.invalidate()
