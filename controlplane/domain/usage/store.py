"""Reading and writing the usage tables: adding hours, the daily roll-up and the figures the API shows."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from sqlalchemy import delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.usage.models import (
    PeerUsageDay,
    PeerUsageHour,
    ServerUsageDay,
    ServerUsageHour,
    UsageCounter,
)

HOURLY_DAYS = 30  # hourly rows are kept this long, then summed into days
DAILY_DAYS = 366  # daily rows are kept a year (and the day that runs across the boundary)

Table = type[PeerUsageHour] | type[PeerUsageDay] | type[ServerUsageHour] | type[ServerUsageDay]


def _insert(db: AsyncSession, table: Any) -> Any:
    """INSERT ... ON CONFLICT in the dialect at hand (both spell it the same way)."""
    dialect = db.get_bind().dialect.name
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)


async def _add(db: AsyncSession, table: Any, keys: tuple[str, str], rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    statement = _insert(db, table)
    statement = statement.on_conflict_do_update(
        index_elements=list(keys),
        set_={"rx": table.rx + statement.excluded.rx, "tx": table.tx + statement.excluded.tx},
    )
    await db.execute(statement, rows)


async def add_hours(db: AsyncSession, peer_rows: list[dict[str, Any]], server_rows: list[dict[str, Any]]) -> None:
    """Add bytes to hourly rows: one upsert per batch, never a read-modify-write."""
    await _add(db, PeerUsageHour, ("peer_id", "hour"), peer_rows)
    await _add(db, ServerUsageHour, ("server_id", "hour"), server_rows)


async def save_counters(db: AsyncSession, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    statement = _insert(db, UsageCounter)
    statement = statement.on_conflict_do_update(
        index_elements=["peer_id"],
        set_={name: statement.excluded[name] for name in ("server_id", "public_key", "rx", "tx", "counted_at")},
    )
    await db.execute(statement, rows)


def day_of(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def month_of(moment: datetime) -> datetime:
    return day_of(moment).replace(day=1)


async def roll_up(db: AsyncSession, now: datetime) -> int:
    """Hourly rows older than 30 days become daily rows (whole UTC days at once); daily rows older than a year go.
    Returns how many rows it removed. One transaction: a byte is in the hourly or the daily table, never both."""
    cutoff = day_of(now) - timedelta(days=HOURLY_DAYS)
    removed = 0
    pairs = ((PeerUsageHour, PeerUsageDay, "peer_id"), (ServerUsageHour, ServerUsageDay, "server_id"))
    for hourly, daily, key in pairs:
        rows = (
            await db.execute(
                select(getattr(hourly, key), hourly.hour, hourly.rx, hourly.tx).where(hourly.hour < cutoff)
            )
        ).all()
        days: dict[tuple[str, datetime], list[int]] = defaultdict(lambda: [0, 0])
        for owner, hour, rx, tx in rows:
            bucket = days[(owner, day_of(hour))]
            bucket[0] += rx
            bucket[1] += tx
        await _add(
            db, daily, (key, "day"), [{key: o, "day": d, "rx": rx, "tx": tx} for (o, d), (rx, tx) in days.items()]
        )
        removed += (await db.execute(delete(hourly).where(hourly.hour < cutoff))).rowcount  # type: ignore[attr-defined]
        expired = day_of(now) - timedelta(days=DAILY_DAYS)
        removed += (await db.execute(delete(daily).where(daily.day < expired))).rowcount  # type: ignore[attr-defined]
    return removed


Range = Literal["24h", "30d", "1y"]
Bucket = Literal["hour", "day", "month"]
BUCKETS: dict[str, Bucket] = {"24h": "hour", "30d": "day", "1y": "month"}


def _buckets(range_: Range, now: datetime) -> list[datetime]:
    """Every bucket the range shows, oldest first, empty ones included (a chart needs the gaps)."""
    if range_ == "24h":
        last = now.replace(minute=0, second=0, microsecond=0)
        return [last - timedelta(hours=h) for h in range(23, -1, -1)]
    if range_ == "30d":
        today = day_of(now)
        return [today - timedelta(days=d) for d in range(29, -1, -1)]
    month = month_of(now)
    months = []
    for _ in range(12):
        months.append(month)
        month = (month - timedelta(days=1)).replace(day=1)
    return months[::-1]


def _bucket_of(moment: datetime, bucket: Bucket) -> datetime:
    if bucket == "hour":
        return moment
    return day_of(moment) if bucket == "day" else month_of(moment)


@dataclass(frozen=True)
class Tables:
    """An hourly table, its daily table and the column naming whose bytes they hold."""

    hourly: Any
    daily: Any
    owner: str


PEERS = Tables(PeerUsageHour, PeerUsageDay, "peer_id")
SERVERS = Tables(ServerUsageHour, ServerUsageDay, "server_id")


def _parts(tables: Tables, since: datetime, owners: list[str] | None) -> list[tuple[Any, Any, list[Any]]]:
    """(table, owner column, conditions) for the hourly rows from `since` and the daily rows from `since` (the days
    the hourly window no longer holds). `owners` None: every owner."""
    parts = []
    for table, column in ((tables.hourly, tables.hourly.hour), (tables.daily, tables.daily.day)):
        owner = getattr(table, tables.owner)
        where = [column >= since] + ([owner.in_(owners)] if owners is not None else [])
        parts.append((table, owner, where))
    return parts


async def series(
    db: AsyncSession, tables: Tables, owners: list[str] | None, range_: Range, now: datetime
) -> list[tuple[datetime, int, int]]:
    """(bucket start, rx, tx) for every bucket of the range, summed over `owners` (None: all)."""
    bucket = BUCKETS[range_]
    starts = _buckets(range_, now)
    sums: dict[datetime, list[int]] = {start: [0, 0] for start in starts}
    for table, _owner, where in _parts(tables, starts[0], owners):
        moment_column = table.hour if table is tables.hourly else table.day
        for moment, rx, tx in (await db.execute(select(moment_column, table.rx, table.tx).where(*where))).all():
            key = _bucket_of(moment.astimezone(UTC), bucket)
            if key in sums:
                sums[key][0] += rx
                sums[key][1] += tx
    return [(start, rx, tx) for start, (rx, tx) in sums.items()]


async def month_totals(
    db: AsyncSession, tables: Tables, owners: list[str] | None, now: datetime
) -> dict[str, tuple[int, int]]:
    """Bytes since the start of the current UTC month, per owner."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for table, owner_column, where in _parts(tables, month_of(now), owners):
        grouped = select(owner_column, func.sum(table.rx), func.sum(table.tx)).where(*where).group_by(owner_column)
        for owner, rx, tx in (await db.execute(grouped)).all():
            totals[owner][0] += int(rx or 0)
            totals[owner][1] += int(tx or 0)
    return {owner: (rx, tx) for owner, (rx, tx) in totals.items()}
