"""Live sockets open per address: counted in this process, or across every process through Redis when it is set.

One address must not take every file descriptor of the deployment, so `/ws` takes a slot before it serves and
gives it back when the socket ends. With Redis each address has a sorted set whose members are the open
connections of every process, scored by when their process last vouched for them: each process refreshes its own
members every `refresh_seconds`, and members older than `stale_seconds` are pruned before counting, so the
sockets of a process that died (SIGKILL, power cut: no `finally` ran) stop counting within `stale_seconds`.
While Redis is unreachable each process counts its own sockets, as the rate limiter does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import count
from typing import Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

REFRESH_SECONDS = 20.0
STALE_SECONDS = 60.0
# A Redis that accepts but does not answer must not hold a socket's handshake: past this, count in the process.
REDIS_ANSWER_SECONDS = 2.0

# Prune what no live process vouches for, then take a place only if one is free: one atomic step in Redis.
_TAKE = """
local limit, now, stale, ttl = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - stale)
if redis.call('ZCARD', KEYS[1]) >= limit then
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('EXPIRE', KEYS[1], ttl)
return 1
"""


@dataclass(frozen=True, slots=True)
class Slot:
    """One open socket's place in its address's count."""

    address: str
    id: str


class SocketSlots(Protocol):
    async def take(self, address: str, limit: int) -> Slot | None:
        """A slot for one more socket from `address`, or None when `limit` sockets are open already."""

    async def give_back(self, slot: Slot) -> None: ...

    def held_here(self, address: str | None = None) -> int:
        """Slots this process holds (for one address, or all)."""

    async def close(self) -> None: ...


class MemorySocketSlots:
    """One process: a counter per address."""

    def __init__(self) -> None:
        self._open: Counter[str] = Counter()
        self._ids = count(1)

    async def take(self, address: str, limit: int) -> Slot | None:
        if self._open[address] >= limit:
            return None
        self._open[address] += 1
        return Slot(address, str(next(self._ids)))

    async def give_back(self, slot: Slot) -> None:
        self._open[slot.address] -= 1
        if self._open[slot.address] <= 0:
            del self._open[slot.address]

    def held_here(self, address: str | None = None) -> int:
        return self._open[address] if address is not None else sum(self._open.values())

    async def close(self) -> None:
        return None


class RedisSocketSlots:
    """Every process's sockets in one count per address (see the module's docstring)."""

    def __init__(
        self,
        redis: Redis,
        prefix: str = "vpn:",
        *,
        refresh_seconds: float = REFRESH_SECONDS,
        stale_seconds: float = STALE_SECONDS,
    ) -> None:
        self._redis = redis
        self._prefix = f"{prefix}ws:open:"
        self._process = uuid.uuid4().hex[:12]
        self._ids = count(1)
        self._refresh_seconds = refresh_seconds
        self._stale_seconds = stale_seconds
        self._ttl = math.ceil(stale_seconds) + 1
        self._take = redis.register_script(_TAKE)
        self._held: dict[str, set[str]] = defaultdict(set)
        self._refresher: asyncio.Task[None] | None = None
        self._closed = False

    async def take(self, address: str, limit: int) -> Slot | None:
        slot = Slot(address, f"{self._process}:{next(self._ids)}")
        try:
            async with asyncio.timeout(REDIS_ANSWER_SECONDS):
                taken = await self._take(
                    keys=[self._prefix + address],
                    args=[slot.id, limit, time.time(), self._stale_seconds, self._ttl],
                )
        except (RedisError, TimeoutError) as exc:
            log.warning("socket slots: redis unreachable (%s); counting in this process", type(exc).__name__)
            taken = self.held_here(address) < limit
        if not taken:
            return None
        self._held[address].add(slot.id)
        if not self._closed and (self._refresher is None or self._refresher.done()):
            self._refresher = asyncio.create_task(self._refresh_while_held(), name="socket-slots-refresh")
        return slot

    async def give_back(self, slot: Slot) -> None:
        held = self._held.get(slot.address)
        if held is not None:
            held.discard(slot.id)
            if not held:
                del self._held[slot.address]
        # If Redis is away the member stays until it is stale: it counts a little longer, never forever.
        with contextlib.suppress(RedisError, TimeoutError):
            async with asyncio.timeout(REDIS_ANSWER_SECONDS):
                await self._redis.zrem(self._prefix + slot.address, slot.id)

    def held_here(self, address: str | None = None) -> int:
        if address is not None:
            return len(self._held.get(address, ()))
        return sum(len(ids) for ids in self._held.values())

    async def close(self) -> None:
        """Stop refreshing (at shutdown; the sockets' own endings give their slots back)."""
        self._closed = True
        refresher, self._refresher = self._refresher, None
        if refresher is None or refresher.done():
            return
        if refresher.get_loop() is not asyncio.get_running_loop():
            with contextlib.suppress(RuntimeError):  # that loop is gone already: so is the task
                refresher.get_loop().call_soon_threadsafe(refresher.cancel)
            return
        refresher.cancel()
        # Bounded, and the loop also stops on `_closed`: a Redis call that never returns, or a cancellation lost
        # inside the client, must not hold the shutdown (a test run hung here once, under load).
        await asyncio.wait({refresher}, timeout=REDIS_ANSWER_SECONDS)

    async def refresh(self) -> None:
        """Vouch for this process's open sockets (and count again those taken while Redis was away)."""
        if not self._held:
            return
        now = time.time()
        vouched = {address: set(ids) for address, ids in self._held.items()}
        async with asyncio.timeout(REDIS_ANSWER_SECONDS):
            async with self._redis.pipeline(transaction=False) as pipe:
                for address, ids in vouched.items():
                    pipe.zadd(self._prefix + address, dict.fromkeys(ids, now))
                    pipe.expire(self._prefix + address, self._ttl)
                await pipe.execute()
            # A socket that ended while the refresh was on its way may have been added back after its removal.
            for address, ids in vouched.items():
                ended = ids - self._held.get(address, set())
                if ended:
                    await self._redis.zrem(self._prefix + address, *ended)

    async def _refresh_while_held(self) -> None:
        while self._held and not self._closed:
            await asyncio.sleep(self._refresh_seconds)
            try:
                await self.refresh()
            except (RedisError, TimeoutError) as exc:
                log.warning("socket slots: refresh failed (%s); retrying", type(exc).__name__)
