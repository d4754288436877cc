"""Fixed-window attempt counters, in memory for one process or in Redis for several."""

from __future__ import annotations

import contextlib
import logging
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

    async def check(self, key: str, limit: RateLimit) -> None:
        """Raise TooManyRequests when the window is full, without counting this request."""


class MemoryRateLimiter:
    def __init__(self) -> None:
        self._windows: dict[str, tuple[float, int]] = {}

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

    async def check(self, key: str, limit: RateLimit) -> None:
        now = time.monotonic()
        started, count = self._windows.get(key, (now, 0))
        if now - started < limit.window_seconds and count >= limit.attempts:
            raise TooManyRequests(int(limit.window_seconds - (now - started)) + 1)

    def _forget_expired(self, now: float, window: int) -> None:
        for key in [k for k, (started, _) in self._windows.items() if now - started >= window]:
            del self._windows[key]


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

    async def check(self, key: str, limit: RateLimit) -> None:
        await self._fallback.check(key, limit)
        with contextlib.suppress(RedisError):
            await self._check(key, limit)

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
