"""Sockets opening at the same moment have their tokens checked together: one read transaction and one query.

After a restart every browser reconnects within seconds (webui/src/lib/socket.ts draws 2.5-5 s), and a new
process has no token cached: one session lookup per socket was a third of a handshake's CPU (docs/benchmarks.md,
"Reconnect storms"). A socket's check waits for nothing: the first one of a moment starts a check, and the ones that
arrive while it runs go together in the next one.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from controlplane.db import transaction
from controlplane.errors import DomainError

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

    from controlplane.domain.accounts.sessions import Principal, SessionService

BATCH = 500  # tokens per query: well under SQLite's 32 766 bound parameters


class HandshakeChecks:
    def __init__(self, sessions: SessionService, read_sessionmaker: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._sessionmaker = read_sessionmaker
        self._waiting: dict[str, asyncio.Future[Principal]] = {}
        self._checker: asyncio.Task[None] | None = None

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
        await asyncio.sleep(0)  # the sockets of this moment join
        while self._waiting:
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
            for token, future in futures.items():
                if future.done():
                    continue
                verdict = verdicts[token]
                if isinstance(verdict, DomainError):
                    future.set_exception(verdict)
                else:
                    future.set_result(verdict)
