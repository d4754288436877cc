"""Turns the agents' cumulative transfer counters into hourly usage rows (docs/usage.md, "Counting").

Agents report every few seconds; writing a row per peer per report would be most of the database's work. The meter
adds the deltas up in memory per peer and hour and writes them once a minute per node, in the transaction that
stores the node's stats report, together with the counters they were counted up to (`usage_counters`).

Those stored counters make the count survive restarts and hand-overs: a process that starts receiving a node's
reports (after a restart, or because the agent reconnected to another process) starts from the stored counters,
not from zero. When two processes counted the same interval (the old stream was still open), the write that comes
second sees stored counters it did not start from and keeps only what lies beyond them.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.db import one_of, transaction
from controlplane.domain.usage import store
from controlplane.domain.usage.models import UsageCounter

# What a stats report says of one peer: declared by the agents' side, which hands it over (nodes/ports.py).
from controlplane.nodes.ports import Reading as Reading

log = logging.getLogger(__name__)

FLUSH_SECONDS = 60.0


def hour_of(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


@dataclass(slots=True)
class _Counted:
    """Counters as stored in `usage_counters` (None: no row yet)."""

    server_id: str
    public_key: str
    rx: int
    tx: int
    at: datetime


def _delta(before: _Counted | None, server_id: str, reading: Reading) -> tuple[int, int]:
    """Bytes since `before`. Counters start from zero again when the device or peer is recreated (agent restart,
    new key, move): a different device, or a counter that went down, counts the new value whole."""
    if before is None:
        return 0, 0  # the first report ever seen for this peer: nothing to compare with (docs/usage.md)
    if before.server_id != server_id or before.public_key != reading.public_key:
        return reading.rx, reading.tx
    if reading.rx < before.rx or reading.tx < before.tx:
        return reading.rx, reading.tx
    return reading.rx - before.rx, reading.tx - before.tx


@dataclass
class _PeerState:
    stored: _Counted | None  # what the database held when loaded or last written by this process
    last: _Counted  # the latest report
    pending: dict[datetime, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))


@dataclass
class _NodeState:
    peers: dict[str, _PeerState] = field(default_factory=dict)
    flushed_at: datetime | None = None


class UsageMeter:
    def __init__(self, flush_seconds: float = FLUSH_SECONDS) -> None:
        self.flush_seconds = flush_seconds
        self._nodes: dict[str, _NodeState] = {}

    async def record(self, db: AsyncSession, server_id: str, readings: dict[str, Reading], now: datetime) -> None:
        """Count one stats report of `server_id` (peer id -> reading); writes when the node's minute is up."""
        # A node's first report in this process is written at once: peers never counted get their stored counters
        # now, so bytes moved before a crash of this process are still counted by whichever process comes next.
        node = self._nodes.setdefault(server_id, _NodeState())
        unknown = [peer_id for peer_id in readings if peer_id not in node.peers]
        stored = await _load(db, unknown) if unknown else {}
        hour = hour_of(now)
        for peer_id, reading in readings.items():
            state = node.peers.get(peer_id)
            if state is None:
                before = stored.get(peer_id)
                current = _Counted(server_id, reading.public_key, reading.rx, reading.tx, now)
                node.peers[peer_id] = state = _PeerState(stored=before, last=before or current)
            last = state.last
            if (last.rx, last.tx, last.public_key, last.server_id) == (
                reading.rx,
                reading.tx,
                reading.public_key,
                server_id,
            ):
                continue  # an idle peer: nothing to count, and nothing to write for it
            rx, tx = _delta(last, server_id, reading)
            if rx or tx:
                bucket = state.pending[hour]
                bucket[0] += rx
                bucket[1] += tx
            state.last = _Counted(server_id, reading.public_key, reading.rx, reading.tx, now)
        if node.flushed_at is None or (now - node.flushed_at).total_seconds() >= self.flush_seconds:
            await self._flush(db, server_id, node)
            node.flushed_at = now

    async def node_closed(self, sessionmaker: async_sessionmaker[AsyncSession], server_id: str) -> None:
        """The node's stream ended here: write what is pending and forget it (another process may receive it next)."""
        node = self._nodes.pop(server_id, None)
        if node is None:
            return
        try:
            async with transaction(sessionmaker) as db:
                await self._flush(db, server_id, node)
        except Exception:
            # Not lost: the stored counters did not move, so the next report counts these bytes again.
            log.warning("could not write the pending usage of node %s", server_id, exc_info=True)

    async def _flush(self, db: AsyncSession, server_id: str, node: _NodeState) -> None:
        # In-memory state moves on before the commit: if the transaction rolls back, the next write finds stored
        # counters older than it expects and counts from them (below), so nothing is lost. Only a peer's very first
        # write, rolled back, loses its first minute (no stored counters to count from).
        changed = {pid: s for pid, s in node.peers.items() if s.stored is None or s.last.at > s.stored.at}
        if not changed:
            return
        stored = await _load(db, list(changed), lock=True)
        peer_rows: list[dict[str, Any]] = []
        server_hours: dict[datetime, list[int]] = defaultdict(lambda: [0, 0])
        counters: list[dict[str, Any]] = []
        for peer_id, state in changed.items():
            now_stored = stored.get(peer_id)
            if now_stored is not None and (state.stored is None or now_stored.at != state.stored.at):
                # The stored counters are not the ones we last wrote: another process wrote since (it held the node's
                # stream meanwhile), or our last write rolled back with its report's transaction.
                if now_stored.at >= state.last.at:
                    # It counted up to a later report than ours: ours are already in its figures.
                    state.pending.clear()
                    state.stored = state.last = now_stored
                    continue
                # It counted an earlier part: keep only what lies beyond what it counted.
                reading = Reading(state.last.public_key, state.last.rx, state.last.tx)
                rx, tx = _delta(now_stored, state.last.server_id, reading)
                state.pending.clear()
                if rx or tx:
                    state.pending[hour_of(state.last.at)] = [rx, tx]
            for hour, (rx, tx) in state.pending.items():
                peer_rows.append({"peer_id": peer_id, "hour": hour, "rx": rx, "tx": tx})
                server_hours[hour][0] += rx
                server_hours[hour][1] += tx
            state.pending.clear()
            last = state.last
            counters.append(
                {
                    "peer_id": peer_id,
                    "server_id": last.server_id,
                    "public_key": last.public_key,
                    "rx": last.rx,
                    "tx": last.tx,
                    "counted_at": last.at,
                }
            )
            state.stored = last
        server_rows = [{"server_id": server_id, "hour": h, "rx": rx, "tx": tx} for h, (rx, tx) in server_hours.items()]
        await store.add_hours(db, peer_rows, server_rows)
        await store.save_counters(db, counters)


async def _load(db: AsyncSession, peer_ids: list[str], lock: bool = False) -> dict[str, _Counted]:
    query = select(UsageCounter).where(one_of(db, UsageCounter.peer_id, peer_ids))
    rows = (await db.execute(query.with_for_update() if lock else query)).scalars().all()
    return {r.peer_id: _Counted(r.server_id, r.public_key, r.rx, r.tx, r.counted_at) for r in rows}
