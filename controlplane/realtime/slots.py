"""Live sockets open per address, and handshakes per address: counted in this process, or across every process
through Redis when it is set.

One address must not take every file descriptor of the deployment, so `/ws` takes a slot before it serves and
gives it back when the socket ends; taking one also counts a handshake against the address's handshake limit
(a fixed window, as the rate limiter counts). With Redis each address has a sorted set whose members are the open
connections of every process, scored by when their process last vouched for them: each process refreshes its own
members every `refresh_seconds`, and members older than `stale_seconds` are pruned before counting, so the
sockets of a process that died (SIGKILL, power cut: no `finally` ran) stop counting within `stale_seconds`.
While Redis is unreachable each process counts its own sockets and handshakes, as the rate limiter does.

After a restart every browser reconnects within seconds: the takes of sockets arriving together go to Redis
together, one script for up to `BATCH` of them (one round trip, not two per socket; docs/benchmarks.md,
"Reconnect storms"). Each socket's verdict is the one it would get alone, in arrival order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import count
from typing import Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

from controlplane.errors import TooManyRequests
from controlplane.ratelimit import MemoryRateLimiter
from controlplane.settings import RateLimit

log = logging.getLogger(__name__)

REFRESH_SECONDS = 20.0
STALE_SECONDS = 60.0
# A Redis that accepts but does not answer must not hold a socket's handshake: past this, count in the process.
REDIS_ANSWER_SECONDS = 2.0

BATCH = 500  # takes per script: Redis runs a script alone, so a batch must stay short (about a millisecond)
TAKEN, FULL, TOO_MANY_HANDSHAKES = 1, 0, -1

# For each socket of the batch, in order: prune what no live process vouches for; refuse when the address's open
# sockets fill the cap; else count the handshake in the address's window (INCR, and the window's expiry when it
# starts, as RedisRateLimiter.hit does) and refuse when the window was full; else take the place. Atomic as a
# whole, so sockets of one address in one batch (or in two processes' batches) never both take the last place.
# KEYS: per socket its set of open sockets, then its handshake counter. ARGV: now, stale, ttl, then per socket
# its member, cap, handshakes per window (-1: not counted) and window seconds.
_TAKE_MANY = """
local now, stale, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local verdicts = {}
for i = 1, #KEYS / 2 do
  local open, tried, at = KEYS[2 * i - 1], KEYS[2 * i], 4 * i
  local limit, attempts = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
  redis.call('ZREMRANGEBYSCORE', open, '-inf', now - stale)
  if redis.call('ZCARD', open) >= limit then
    verdicts[i] = 0
  else
    local verdict = 1
    if attempts >= 0 then
      local count = redis.call('INCR', tried)
      redis.call('EXPIRE', tried, ARGV[at + 3], 'NX')
      if count > attempts then
        verdict = -1
      end
    end
    if verdict == 1 then
      redis.call('ZADD', open, now, ARGV[at])
      redis.call('EXPIRE', open, ttl)
    end
    verdicts[i] = verdict
  end
end
return verdicts
"""


@dataclass(frozen=True, slots=True)
class Slot:
    """One open socket's place in its address's count."""

    address: str
    id: str


class SocketSlots(Protocol):
    async def take(self, address: str, limit: int, handshakes: RateLimit | None = None) -> Slot | None:
        """A slot for one more socket from `address`, or None when `limit` sockets are open already or (with
        `handshakes`) the address opened that many in the window; a refused socket takes no slot."""

    async def give_back(self, slot: Slot) -> None: ...

    def held_here(self, address: str | None = None) -> int:
        """Slots this process holds (for one address, or all)."""

    async def close(self) -> None: ...


class MemorySocketSlots:
    """One process: a counter per address."""

    def __init__(self) -> None:
        self._open: Counter[str] = Counter()
        self._ids = count(1)
        self._handshakes = MemoryRateLimiter()

    async def take(self, address: str, limit: int, handshakes: RateLimit | None = None) -> Slot | None:
        if self._open[address] >= limit:
            return None
        if handshakes is not None and not await _counted(self._handshakes, address, handshakes):
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
        # The handshake counters are the rate limiter's keys (RedisRateLimiter: `<prefix>rl:` + key).
        self._handshakes_prefix = f"{prefix}rl:ws:ip:"
        self._process = uuid.uuid4().hex[:12]
        self._ids = count(1)
        self._refresh_seconds = refresh_seconds
        self._stale_seconds = stale_seconds
        self._ttl = math.ceil(stale_seconds) + 1
        self._take_many = redis.register_script(_TAKE_MANY)
        self._held: dict[str, set[str]] = defaultdict(set)
        self._refresher: asyncio.Task[None] | None = None
        self._closed = False
        self._waiting: list[_Take] = []
        self._taker: asyncio.Task[None] | None = None
        self._handshakes_here = MemoryRateLimiter()  # while Redis is away
        self._unclaimed: set[asyncio.Task[None]] = set()  # give-backs under way (strong references)

    async def take(self, address: str, limit: int, handshakes: RateLimit | None = None) -> Slot | None:
        waiting = _Take(Slot(address, f"{self._process}:{next(self._ids)}"), limit, handshakes)
        self._waiting.append(waiting)
        if self._taker is None or self._taker.done():
            self._taker = asyncio.create_task(self._take_waiting(), name="socket-slots-take")
        try:
            # Shielded: one socket going away must not cancel the script the batch's others wait for.
            return await asyncio.shield(waiting.verdict)
        except asyncio.CancelledError:
            # Its slot may be taken already (or be about to be): give it back rather than count it until stale.
            waiting.verdict.add_done_callback(self._give_back_unclaimed)
            raise

    def _give_back_unclaimed(self, verdict: asyncio.Future[Slot | None]) -> None:
        if verdict.cancelled() or verdict.exception() is not None or (slot := verdict.result()) is None:
            return
        task = asyncio.get_running_loop().create_task(self.give_back(slot))
        self._unclaimed.add(task)
        task.add_done_callback(self._unclaimed.discard)

    async def _take_waiting(self) -> None:
        await asyncio.sleep(0)  # the sockets of this moment join
        while self._waiting:
            batch, self._waiting = self._waiting[:BATCH], self._waiting[BATCH:]
            verdicts: list[int] | None = None
            try:
                verdicts = await self._take_in_redis(batch)
            except (RedisError, TimeoutError) as exc:
                log.warning("socket slots: redis unreachable (%s); counting in this process", type(exc).__name__)
            except Exception as exc:  # not Redis's answer: a bug; the batch's sockets fail rather than wait forever
                for waiting in batch:
                    if not waiting.verdict.done():
                        waiting.verdict.set_exception(exc)
                continue
            for n, waiting in enumerate(batch):
                # Counted here one by one when Redis is away, so a batch's sockets see the ones before them.
                verdict = verdicts[n] if verdicts is not None else await self._take_here(waiting)
                if verdict == TAKEN:
                    self._held[waiting.slot.address].add(waiting.slot.id)
                if not waiting.verdict.done():
                    waiting.verdict.set_result(waiting.slot if verdict == TAKEN else None)
            if self._held and not self._closed and (self._refresher is None or self._refresher.done()):
                self._refresher = asyncio.create_task(self._refresh_while_held(), name="socket-slots-refresh")

    async def _take_in_redis(self, batch: list[_Take]) -> list[int]:
        keys: list[str] = []
        args: list[str | int | float] = [time.time(), self._stale_seconds, self._ttl]
        for waiting in batch:
            address, handshakes = waiting.slot.address, waiting.handshakes
            keys += (self._prefix + address, self._handshakes_prefix + address)
            args += (
                waiting.slot.id,
                waiting.limit,
                handshakes.attempts if handshakes is not None else -1,
                handshakes.window_seconds if handshakes is not None else 1,
            )
        async with asyncio.timeout(REDIS_ANSWER_SECONDS):
            verdicts = await self._take_many(keys=keys, args=args)
        return [int(verdict) for verdict in verdicts]

    async def _take_here(self, waiting: _Take) -> int:
        """The verdict by this process's own counts (Redis is away)."""
        address = waiting.slot.address
        if self.held_here(address) >= waiting.limit:
            return FULL
        if waiting.handshakes is not None and not await _counted(self._handshakes_here, address, waiting.handshakes):
            return TOO_MANY_HANDSHAKES
        return TAKEN

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


@dataclass(slots=True)
class _Take:
    """A socket waiting for its slot."""

    slot: Slot  # the member it adds when taken
    limit: int
    handshakes: RateLimit | None
    verdict: asyncio.Future[Slot | None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


async def _counted(limiter: MemoryRateLimiter, address: str, handshakes: RateLimit) -> bool:
    """Count one handshake from `address` in this process; False when its window is full."""
    try:
        await limiter.hit(f"ws:ip:{address}", handshakes)
    except TooManyRequests:
        return False
    return True
