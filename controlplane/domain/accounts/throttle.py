"""Password guessing slows down the guesser, not the owner: failures are counted per (account, address) pair, and
once a pair has used its allowance each further try waits, longer every time; with a captcha configured, failures
on an account from any address make its next tries ask for a solved captcha (docs/security.md, "Logins")."""

from __future__ import annotations

from controlplane.errors import TooManyRequests
from controlplane.ratelimit import RateLimiter
from controlplane.settings import RateLimit

FIRST_DELAY_SECONDS = 30


class FailureThrottle:
    def __init__(self, limiter: RateLimiter) -> None:
        self._limiter = limiter

    async def check(self, key: str) -> None:
        """Raise TooManyRequests (with the seconds left) while `key` waits after its last failure."""
        left = await self._limiter.held(f"{key}:hold")
        if left:
            raise TooManyRequests(left)

    async def failed(self, key: str, limit: RateLimit) -> None:
        """Count a failure; past `limit.attempts` in the window the key waits 30 s, then 60 s, 120 s... (at most the
        window) before its next try."""
        failures = await self._limiter.count(key, limit.window_seconds)
        if failures >= limit.attempts:
            doublings = min(failures - limit.attempts, 16)
            await self._limiter.hold(f"{key}:hold", min(FIRST_DELAY_SECONDS * 2**doublings, limit.window_seconds))

    async def succeeded(self, key: str) -> None:
        await self._limiter.reset(key)
        await self._limiter.reset(f"{key}:hold")


class CaptchaGate:
    """Failures on one account counted across every address: past `limit.attempts` each try needs a solved captcha.
    Counted per account, not per pair, because a guesser spreading tries over many addresses is exactly what the
    pair waits cannot slow; the owner is never refused for it, only asked to solve the captcha."""

    def __init__(self, limiter: RateLimiter) -> None:
        self._limiter = limiter

    async def required(self, key: str, limit: RateLimit) -> bool:
        try:
            await self._limiter.check(key, limit)
        except TooManyRequests:
            return True
        return False

    async def failed(self, key: str, limit: RateLimit) -> None:
        await self._limiter.count(key, limit.window_seconds)

    async def succeeded(self, key: str) -> None:
        await self._limiter.reset(key)
