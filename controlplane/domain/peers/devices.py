"""One device per peer (docs/operations.md, "One device per peer"): telling a configuration shared by two devices
from one device that moves, out of the endpoints the peer's node reports every few seconds.

WireGuard answers a peer at the address its latest authenticated packet came from. Two devices holding one key
take turns at it: the endpoint goes A -> B -> A -> B as each of them sends. A phone that leaves Wi-Fi for mobile
data moves once (A -> B) and stays; one that comes home goes back once (A -> B -> A). So a move back to an address
the peer left within the window is a "return", and RETURNS_TO_WARN returns inside the window mean two devices.

The decision is the pure functions `follow` and `shared` (tests/unit/test_shared_config.py feeds them many
sequences); `SharedConfigWatch` keeps the trails in memory, fed by the agent servicer, and writes the warning to
the peer once (a restart forgets the trails, which only delays a warning; the warning itself is in the database).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import after_commit
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.schemas import PeerView
from controlplane.realtime.hub import PushHub
from controlplane.realtime.messages import UpdatedPeer

# Alternations older than this are forgotten: two devices fighting switch every few seconds to minutes; a person
# who walks in and out of Wi-Fi coverage twice in ten minutes is rare (and is told what to do if it happens).
WINDOW_SECONDS = 600.0
RETURNS_TO_WARN = 2
MAX_MOVES = 32  # a trail's memory stays small however often the endpoint flips


@dataclass(frozen=True, slots=True)
class Move:
    at: float  # unix seconds
    left: str
    reached: str


@dataclass(frozen=True, slots=True)
class Trail:
    """Where a peer's endpoint is now and how it moved within the window."""

    endpoint: str
    moves: tuple[Move, ...] = ()


def follow(trail: Trail | None, endpoint: str, now: float) -> Trail | None:
    """The trail after the node reported `endpoint` at `now`. An empty endpoint (no handshake yet) says nothing."""
    if not endpoint:
        return trail
    if trail is None:
        return Trail(endpoint)
    if endpoint == trail.endpoint and (not trail.moves or now - trail.moves[0].at <= WINDOW_SECONDS):
        return trail  # the usual report: nothing moved and nothing to forget (no allocation per peer)
    moves = tuple(m for m in trail.moves if now - m.at <= WINDOW_SECONDS)
    if endpoint != trail.endpoint:
        moves = (*moves, Move(now, trail.endpoint, endpoint))[-MAX_MOVES:]
    return Trail(endpoint, moves)


def returns(trail: Trail | None) -> int:
    """Moves within the window to an address the peer had already been at within the window."""
    if trail is None:
        return 0
    seen: set[str] = set()
    count = 0
    for move in trail.moves:
        seen.add(move.left)
        if move.reached in seen:
            count += 1
        seen.add(move.reached)
    return count


def shared(trail: Trail | None) -> bool:
    return returns(trail) >= RETURNS_TO_WARN


def shared_after(sightings: Iterable[tuple[float, str]]) -> bool:
    """Whether a sequence of (time, endpoint) reports ends in a warning: `follow` folded, then `shared`."""
    trail: Trail | None = None
    for at, endpoint in sightings:
        trail = follow(trail, endpoint, at)
    return shared(trail)


class SharedConfigWatch:
    """The servicer's endpoint hook: one trail per peer of each node whose agent reports to this process."""

    def __init__(self, hub: PushHub, view: Callable[[Peer], PeerView], clock: Callable[[], float] = time.time) -> None:
        self._hub = hub
        self._view = view
        self._clock = clock
        self._trails: dict[str, dict[str, Trail]] = {}  # server id -> public key -> trail
        self._warned: dict[str, set[str]] = {}  # server id -> public keys already warned (no query each report)

    async def record(self, db: AsyncSession, server_id: str, endpoints: Mapping[str, str], complete: bool) -> None:
        """A stats report (public key -> endpoint): called in the transaction that stores it. `complete`: the report
        holds every peer of the node; otherwise only those whose figures changed (the others' endpoints stayed)."""
        now = self._clock()
        previous = self._trails.get(server_id, {})
        warned = self._warned.get(server_id, set())
        if complete:
            # Keys the node no longer reports (deleted, moved away, new keys) are dropped with their trails.
            trails: dict[str, Trail] = {}
            warned = warned & endpoints.keys()
        else:
            trails = previous
        suspects: list[str] = []
        for key, endpoint in endpoints.items():
            trail = follow(previous.get(key), endpoint, now)
            if trail is None:
                continue
            trails[key] = trail
            if key not in warned and shared(trail):
                suspects.append(key)
        self._trails[server_id] = trails
        self._warned[server_id] = warned
        if suspects:
            await self._warn(db, server_id, suspects, now)
            # Remembered once the mark is committed: a report whose transaction fails is tried again next time.
            after_commit(db, functools.partial(self._remember, server_id, suspects))

    async def _remember(self, server_id: str, keys: list[str]) -> None:
        self._warned.setdefault(server_id, set()).update(keys)

    async def _warn(self, db: AsyncSession, server_id: str, keys: list[str], now: float) -> None:
        """Mark the peers (once: a peer already marked, by this process or another before a restart, is left as it
        is) and send their owners the peer with its warning after the commit."""
        rows = await db.execute(
            select(Peer).where(
                Peer.server_id == server_id, Peer.public_key.in_(keys), Peer.shared_config_warned_at.is_(None)
            )
        )
        peers = list(rows.scalars())
        if not peers:
            return
        at = datetime.fromtimestamp(now, UTC)
        for peer in peers:
            peer.shared_config_warned_at = at
        await db.flush()
        for peer in peers:
            push = UpdatedPeer(data=self._view(peer))
            after_commit(db, functools.partial(self._hub.push, peer.user_id, push))
