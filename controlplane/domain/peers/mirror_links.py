"""A mirror link fetched (`GET /mirror/{token}`, without a session): the token found, or the guess counted against
the caller's address, then the fetch let through by the link's budget and device binding (mirror_binding.py).
Built per request from the long-lived parts (domain/peers/dependencies.py)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.crypto import SecretBox
from controlplane.domain.peers import mirror_binding
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.service import PeerService
from controlplane.errors import NotFound
from controlplane.ratelimit import RateLimiter
from controlplane.realtime.hub import PushHub
from controlplane.settings import RateLimits


class MirrorLinks:
    def __init__(
        self,
        peers: PeerService,
        limiter: RateLimiter,
        limits: RateLimits,
        box: SecretBox,
        hub: PushHub,
        sessionmaker: async_sessionmaker[AsyncSession],
    ) -> None:
        self._peers = peers
        self._limiter = limiter
        self._limits = limits
        self._box = box
        self._hub = hub
        self._sessionmaker = sessionmaker

    async def fetch(self, db: AsyncSession, token: str, ip: str, device_id: str | None) -> Peer:
        limits = self._limits
        # An address that keeps guessing tokens is refused outright, so a lucky guess cannot be told apart.
        await self._limiter.check(f"mirror-miss:ip:{ip}", limits.mirror_misses_per_address)
        peer = await self._peers.by_mirror_token(db, token) if len(token) <= 128 else None
        if peer is None:
            await self._limiter.hit(f"mirror-miss:ip:{ip}", limits.mirror_misses_per_address)
            raise NotFound("Enlace no encontrado.", code="mirror_not_found")
        # The token's budget is spent there, by device: a stranger's fetches never spend the bound device's.
        await mirror_binding.admit(
            self._sessionmaker, self._box, self._limiter, limits, self._peers, self._hub, peer, device_id
        )
        return peer
