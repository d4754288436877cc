"""Fixed-window attempt counters and holds (a key refused until a moment), in memory for one process or in Redis
for several."""

from __future__ import annotations

import contextlib
import logging
import math
import time
from typing import Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

from controlplane.errors import TooManyRequests
from controlplane.settings import RateLimit

log = logging.getLogger(__name__)


class RateLimiter(Protocol):
    async def hit(self, key: str, limit: RateLimit) -> None:
        """Count one attempt; raise TooManyRequests when the window is already full."""

    async def reset(self, key: str) -> None: ...

    async def refund(self, key: str) -> None:
        """Take back one attempt `hit` counted (it turned out not to be one that the limit is about)."""

    async def check(self, key: str, limit: RateLimit) -> None:
        """Raise TooManyRequests when the window is full, without counting this request."""

    async def count(self, key: str, window_seconds: int) -> int:
        """Count one event in the key's window; return how many the window holds now."""

    async def hold(self, key: str, seconds: int) -> None:
        """Refuse the key for `seconds` from now (see `held`)."""

    async def held(self, key: str) -> int:
        """Seconds the key is still refused for; 0 when it is not."""


class MemoryRateLimiter:
    def __init__(self) -> None:
        self._windows: dict[str, tuple[float, int]] = {}
        self._holds: dict[str, float] = {}

    async def hit(self, key: str, limit: RateLimit) -> None:
        now = time.monotonic()
        started, count = self._windows.get(key, (now, 0))
        if now - started >= limit.window_seconds:
            started, count = now, 0
        if count >= limit.attempts:
            raise TooManyRequests(int(limit.window_seconds - (now - started)) + 1)
        self._windows[key] = (started, count + 1)
        if len(self._windows) > 100_000:
            self._forget_expired(now, limit.window_seconds)

    async def reset(self, key: str) -> None:
        self._windows.pop(key, None)
        self._holds.pop(key, None)

    async def refund(self, key: str) -> None:
        if key in self._windows:
            started, count = self._windows[key]
            self._windows[key] = (started, max(count - 1, 0))

    async def check(self, key: str, limit: RateLimit) -> None:
        now = time.monotonic()
        started, count = self._windows.get(key, (now, 0))
        if now - started < limit.window_seconds and count >= limit.attempts:
            raise TooManyRequests(int(limit.window_seconds - (now - started)) + 1)

    async def count(self, key: str, window_seconds: int) -> int:
        now = time.monotonic()
        started, count = self._windows.get(key, (now, 0))
        if now - started >= window_seconds:
            started, count = now, 0
        self._windows[key] = (started, count + 1)
        if len(self._windows) > 100_000:
            self._forget_expired(now, window_seconds)
        return count + 1

    async def hold(self, key: str, seconds: int) -> None:
        now = time.monotonic()
        self._holds[key] = now + seconds
        if len(self._holds) > 100_000:
            for old in [k for k, until in self._holds.items() if until <= now]:
                del self._holds[old]

    async def held(self, key: str) -> int:
        left = self._holds.get(key, 0.0) - time.monotonic()
        return math.ceil(left) if left > 0 else 0

    def _forget_expired(self, now: float, window: int) -> None:
        for key in [k for k, (started, _) in self._windows.items() if now - started >= window]:
            del self._windows[key]


# One less in a window that still runs; never below zero, never a key made anew (it would have no expiry).
_REFUND = """
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0
"""


class RedisRateLimiter:
    """Shared counters; while Redis is unreachable each process counts on its own (limits hold, per process)
    rather than failing every login."""

    def __init__(self, redis: Redis, prefix: str = "vpn:") -> None:
        self._redis = redis
        self._prefix = f"{prefix}rl:"
        self._fallback = MemoryRateLimiter()

    async def hit(self, key: str, limit: RateLimit) -> None:
        try:
            await self._hit(key, limit)
        except RedisError as exc:
            log.warning("rate limiter: redis unreachable (%s); counting in this process", type(exc).__name__)
            await self._fallback.hit(key, limit)

    async def reset(self, key: str) -> None:
        await self._fallback.reset(key)
        with contextlib.suppress(RedisError):
            await self._redis.delete(self._prefix + key)

    async def refund(self, key: str) -> None:
        await self._fallback.refund(key)
        with contextlib.suppress(RedisError):
            await self._redis.eval(_REFUND, 1, self._prefix + key)

    async def check(self, key: str, limit: RateLimit) -> None:
        await self._fallback.check(key, limit)
        with contextlib.suppress(RedisError):
            await self._check(key, limit)

    async def count(self, key: str, window_seconds: int) -> int:
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.incr(self._prefix + key)
                pipe.expire(self._prefix + key, window_seconds, nx=True)
                count, _ = await pipe.execute()
            return int(count)
        except RedisError as exc:
            log.warning("rate limiter: redis unreachable (%s); counting in this process", type(exc).__name__)
            return await self._fallback.count(key, window_seconds)

    async def hold(self, key: str, seconds: int) -> None:
        await self._fallback.hold(key, seconds)
        with contextlib.suppress(RedisError):
            await self._redis.set(self._prefix + key, 1, ex=seconds)

    async def held(self, key: str) -> int:
        here = await self._fallback.held(key)
        try:
            ttl = await self._redis.pttl(self._prefix + key)
        except RedisError:
            return here
        return max(here, math.ceil(ttl / 1000) if ttl and ttl > 0 else 0)

    async def _hit(self, key: str, limit: RateLimit) -> None:
        name = self._prefix + key
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.incr(name)
            pipe.expire(name, limit.window_seconds, nx=True)
            pipe.ttl(name)
            count, _, ttl = await pipe.execute()
        if count > limit.attempts:
            raise TooManyRequests(int(ttl) if ttl and ttl > 0 else limit.window_seconds)

    async def _check(self, key: str, limit: RateLimit) -> None:
        name = self._prefix + key
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.get(name)
            pipe.ttl(name)
            count, ttl = await pipe.execute()
        if count is not None and int(count) >= limit.attempts:
            raise TooManyRequests(int(ttl) if ttl and ttl > 0 else limit.window_seconds)
