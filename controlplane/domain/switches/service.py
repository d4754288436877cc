"""Reads and flips the runtime switches; a short per-process cache keeps them off the hot path."""

from __future__ import annotations

import time

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

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
    """Every process caches the switches for `ttl` seconds: a flip reaches all processes within that time."""

    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession], ttl: float = 1.0) -> None:
        self._sessionmaker = sessionmaker
        self._ttl = ttl
        self._cached: Switches | None = None
        self._loaded_at = 0.0

    async def current(self) -> Switches:
        if self._cached is None or time.monotonic() - self._loaded_at > self._ttl:
            async with self._sessionmaker() as db:
                rows = (await db.execute(select(Switch.name, Switch.enabled))).all()
            stored = {name: enabled for name, enabled in rows if name in SWITCH_NAMES}
            self._cached = msgspec.structs.replace(DEFAULTS, **stored)
            self._loaded_at = time.monotonic()
        return self._cached

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
        self.invalidate()
        rows = (await db.execute(select(Switch.name, Switch.enabled))).all()
        return msgspec.structs.replace(DEFAULTS, **{n: e for n, e in rows if n in SWITCH_NAMES})

    def invalidate(self) -> None:
        self._cached = None
