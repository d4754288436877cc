"""What one address may spend on logins: failures, not successes, so that the customers behind one shared address
(carrier-grade NAT) never use up each other's budget; and who is let past a spent budget (docs/security.md,
"Logins behind one address")."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import utcnow
from controlplane.domain.accounts.models import LoginSession
from controlplane.errors import TooManyRequests
from controlplane.ratelimit import RateLimiter
from controlplane.settings import RateLimit

# A login for an account that started a session from the same address within this long is a returning customer.
RETURNING_DAYS = 30


async def signed_in_from(db: AsyncSession, user_id: str, audience: str, ip: str) -> bool:
    """Whether the account started a session in this area from `ip` lately: its owner, back at their usual address
    (their carrier's NAT), goes first in the hashing queue and past a spent address budget."""
    since = utcnow() - timedelta(days=RETURNING_DAYS)
    found = await db.scalar(
        select(LoginSession.id)
        .where(
            LoginSession.user_id == user_id,
            LoginSession.audience == audience,
            LoginSession.ip_address == ip,
            LoginSession.created >= since,
        )
        .limit(1)
    )
    return found is not None


class AddressBudget:
    """Logins from one address that have not succeeded: each try is counted when it starts (so a burst sent at once
    cannot all pass before the first failure is counted) and given back when it succeeds. A successful login thus
    never spends the budget: fifty customers behind one NAT all get in, and only failures (wrong passwords and
    unknown names alike, so the count tells nothing about which names exist) bring the address to its limit."""

    def __init__(self, limiter: RateLimiter) -> None:
        self._limiter = limiter

    async def start(self, key: str, limit: RateLimit) -> TooManyRequests | None:
        """Count a try; the refusal (with its Retry-After) when the address has spent its budget."""
        try:
            await self._limiter.hit(key, limit)
        except TooManyRequests as refused:
            return refused
        return None

    async def succeeded(self, key: str) -> None:
        await self._limiter.refund(key)

    async def failed_uncounted(self, key: str, limit: RateLimit) -> None:
        """A failure of a try that was let through without being counted (a returning customer's)."""
        await self._limiter.count(key, limit.window_seconds)
