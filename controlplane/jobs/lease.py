"""A database lease so that each scheduled job runs in one process at a time, whatever the number of processes."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, insert, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.db import utcnow
from controlplane.jobs.models import JobLease


async def acquire(sessionmaker: async_sessionmaker[AsyncSession], name: str, holder: str, seconds: float) -> bool:
    """True when `holder` now holds the lease `name` for `seconds` (taken over once the previous one expired)."""
    now = utcnow()
    until = now + timedelta(seconds=seconds)
    async with sessionmaker.begin() as db:
        taken = await db.execute(
            update(JobLease)
            .where(JobLease.name == name, (JobLease.expires_at < now) | (JobLease.holder == holder))
            .values(holder=holder, expires_at=until)
        )
        if taken.rowcount == 1:  # type: ignore[attr-defined]
            return True
    try:
        async with sessionmaker.begin() as db:
            await db.execute(insert(JobLease).values(name=name, holder=holder, expires_at=until))
        return True
    except IntegrityError:
        return False


async def release_all(sessionmaker: async_sessionmaker[AsyncSession], holder: str) -> int:
    """Gives up every lease `holder` holds, so that another process takes its jobs over at their next tick instead
    of after the lease ran out (a minute without expiry or reminders at every restart of an upgrade)."""
    async with sessionmaker.begin() as db:
        released = await db.execute(delete(JobLease).where(JobLease.holder == holder))
    return int(released.rowcount)  # type: ignore[attr-defined]
