"""The figures the customer and manager APIs show, from the usage tables (docs/usage.md)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.domain.usage import schemas, store


def _points(rows: list[tuple[datetime, int, int]]) -> list[schemas.UsagePoint]:
    # rx is what the node received from the device (its upload), tx what it sent (its download).
    return [schemas.UsagePoint(start=start, download=tx, upload=rx) for start, rx, tx in rows]


async def peer_usage(db: AsyncSession, peer_id: str, range_: store.Range, now: datetime) -> schemas.UsageSeries:
    points = _points(await store.series(db, store.PEERS, [peer_id], range_, now))
    return schemas.UsageSeries(
        range=range_,
        bucket=store.BUCKETS[range_],
        points=points,
        download=sum(p.download for p in points),
        upload=sum(p.upload for p in points),
    )


async def month_usage_of(db: AsyncSession, user_id: str, now: datetime) -> list[schemas.PeerMonthUsage]:
    """Every peer of the user with what it used this UTC month (zeros included)."""
    peer_ids = list((await db.execute(select(Peer.id).where(Peer.user_id == user_id))).scalars())
    totals = await store.month_totals(db, store.PEERS, peer_ids, now) if peer_ids else {}
    return [
        schemas.PeerMonthUsage(peer=pid, download=totals.get(pid, (0, 0))[1], upload=totals.get(pid, (0, 0))[0])
        for pid in peer_ids
    ]


async def overview_usage(db: AsyncSession, now: datetime) -> schemas.UsageOverview:
    totals = await store.month_totals(db, store.SERVERS, None, now)
    servers = (await db.execute(select(Server.id, Server.name).order_by(Server.name))).all()
    rows = [
        schemas.ServerMonthUsage(
            id=sid, name=name, download=totals.get(sid, (0, 0))[1], upload=totals.get(sid, (0, 0))[0]
        )
        for sid, name in servers
    ]
    return schemas.UsageOverview(
        month_start=store.month_of(now),
        servers=rows,
        download=sum(r.download for r in rows),
        upload=sum(r.upload for r in rows),
        days=_points(await store.series(db, store.SERVERS, None, "30d", now)),
    )
