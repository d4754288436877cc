"""Sockets opening at the same moment have their tokens checked together: one read transaction and one query.

After a restart every browser reconnects within seconds (webui/src/lib/socket.ts draws 2.5-5 s), and a new
process has no token cached: one session lookup per socket was a third of a handshake's CPU (docs/benchmarks.md,
"Reconnect storms"). After a quiet spell a socket's check waits for nothing: the first one of a moment starts a
check, and the ones that arrive while it runs go together in the next one. During a storm the checks follow each
other closely, and sockets arrive a few at a time between them: there a check first waits a moment for more to
join it (on PostgreSQL, checks of four sockets, as they came, cost a third of each socket's CPU:
docs/benchmarks.md, "Reconnect storms: checks that wait for company")."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from controlplane.db import transaction
from controlplane.errors import DomainError

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

    from controlplane.domain.accounts.sessions import Principal, SessionService

BATCH = 500  # tokens per query: well under SQLite's 32 766 bound parameters
# A check that follows another within STORM_SECONDS waits GATHER_SECONDS for more sockets to join it: a
# reconnecting page does not notice 20 ms, and a storm of 10 000 sockets in 10 s takes hundreds of checks instead of
# thousands. A socket arriving after a quiet spell is checked at once.
STORM_SECONDS = 0.1
GATHER_SECONDS = 0.02


class HandshakeChecks:
    def __init__(self, sessions: SessionService, read_sessionmaker: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._sessionmaker = read_sessionmaker
        self._waiting: dict[str, asyncio.Future[Principal]] = {}
        self._checker: asyncio.Task[None] | None = None
        self._last_check_ended = float("-inf")  # event-loop time

    async def principal(self, token: str) -> Principal:
        """The token's principal (either area), or the DomainError `SessionService.resolve` would raise."""
        future = self._waiting.get(token)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            # Read even when every socket waiting for it went away (no "exception never retrieved" in the log).
            future.add_done_callback(lambda done: done.cancelled() or done.exception())
            self._waiting[token] = future
            if self._checker is None or self._checker.done():
                self._checker = asyncio.create_task(self._check_waiting(), name="socket-handshake-checks")
        # Shielded: one socket going away must not cancel the check others (the same token) wait for.
        return await asyncio.shield(future)

    async def _check_waiting(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiting:
            storm = loop.time() - self._last_check_ended < STORM_SECONDS and len(self._waiting) < BATCH
            await asyncio.sleep(GATHER_SECONDS if storm else 0)  # the sockets of this moment join
            tokens = list(self._waiting)[:BATCH]
            futures = {token: self._waiting.pop(token) for token in tokens}
            try:
                async with transaction(self._sessionmaker) as db:
                    verdicts = await self._sessions.resolve_many(db, tokens)
            except Exception as exc:  # the database is away: every socket of the batch gets the error
                for future in futures.values():
                    if not future.done():
                        future.set_exception(exc)
                continue
            finally:
                self._last_check_ended = loop.time()
            for token, future in futures.items():
                if future.done():
                    continue
                verdict = verdicts[token]
                if isinstance(verdict, DomainError):
                    future.set_exception(verdict)
                else:
                    future.set_result(verdict)
