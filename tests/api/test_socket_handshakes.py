"""Sockets opening together have their tokens checked together (controlplane/realtime/handshakes.py): each socket
still gets its own verdict, and a database error reaches the sockets of that check without stopping the next."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import event, text, update

from controlplane.domain.accounts.models import User
from controlplane.domain.accounts.sessions import Principal
from controlplane.errors import DomainError
from controlplane.services import Services
from tests.api.factories import login, make_user


async def _verdict(services: Services, token: str) -> Principal | str:
    try:
        return await services.handshakes.principal(token)
    except DomainError as refused:
        return refused.code


async def test_sockets_opening_together_each_get_their_own_verdict(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    for name in ("ana", "bea", "cora", "dani"):
        await make_user(services, name)
    ana, ana_again, dani = (await login(client, "ana")), (await login(client, "ana")), (await login(client, "dani"))
    bea, cora = await login(client, "bea"), await login(client, "cora")
    assert (await client.post("/api/logout", json={"refresh": bea["refresh"]})).status_code == 200
    async with services.sessionmaker.begin() as db:  # blocked by hand: its session is still open
        await db.execute(update(User).where(User.username == "cora").values(blocked=True))

    tokens = [ana["access"], ana_again["access"], bea["access"], cora["access"], "nope", dani["access"], ana["access"]]
    verdicts = await asyncio.gather(*(_verdict(services, token) for token in tokens))

    names = [v.username if isinstance(v, Principal) else v for v in verdicts]
    assert names == ["ana", "ana", "session_ended", "account_blocked", "invalid_token", "dani", "ana"]
    first, second = verdicts[0], verdicts[1]
    assert isinstance(first, Principal) and isinstance(second, Principal)
    assert first.session_id != second.session_id  # two logins of ana: two sessions, not mixed up


async def test_a_database_error_reaches_the_waiting_sockets_and_the_next_check_works(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    await make_user(services, "bea")
    ana, bea = await login(client, "ana"), await login(client, "bea")
    async with services.sessionmaker.begin() as db:
        await db.execute(text("ALTER TABLE login_sessions RENAME TO login_sessions_away"))
    try:
        failed = await asyncio.gather(
            services.handshakes.principal(ana["access"]),
            services.handshakes.principal(bea["access"]),
            return_exceptions=True,
        )
    finally:
        async with services.sessionmaker.begin() as db:
            await db.execute(text("ALTER TABLE login_sessions_away RENAME TO login_sessions"))
    assert all(isinstance(f, Exception) and not isinstance(f, DomainError) for f in failed), failed
    principal = await services.handshakes.principal(bea["access"])
    assert principal.username == "bea"


@pytest.mark.parametrize("sockets", [1200])
async def test_more_sockets_than_one_query_takes_are_all_answered(
    services: Services, client: AsyncTestClient[Any], sockets: int
) -> None:
    await make_user(services, "ana")
    token = (await login(client, "ana"))["access"]
    # Distinct tokens are what fill a batch: forged ones are refused without a query, the real one passes.
    tokens = [f"{token}x{n}" for n in range(sockets)] + [token]
    verdicts = await asyncio.gather(*(_verdict(services, t) for t in tokens))
    assert verdicts[:-1] == ["invalid_token"] * sockets
    assert isinstance(verdicts[-1], Principal) and verdicts[-1].username == "ana"


async def test_sockets_that_keep_coming_are_checked_together(services: Services, client: AsyncTestClient[Any]) -> None:
    # A storm as the server sees it: one socket after another, a few milliseconds apart, each with its own session.
    await make_user(services, "ana")
    tokens = [(await login(client, "ana"))["access"] for _ in range(30)]
    session_reads: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "login_sessions" in statement:
            session_reads.append(statement)

    async def arrive(after: float, token: str) -> Principal | str:
        await asyncio.sleep(after)
        return await _verdict(services, token)

    event.listen(services.engine.sync_engine, "before_cursor_execute", count)
    try:
        verdicts = await asyncio.gather(*(arrive(n * 0.002, token) for n, token in enumerate(tokens)))
    finally:
        event.remove(services.engine.sync_engine, "before_cursor_execute", count)
    assert [v.username if isinstance(v, Principal) else v for v in verdicts] == ["ana"] * len(tokens)
    # Checked one by one as they came, that would be 30 reads of the sessions table.
    assert len(session_reads) <= len(tokens) // 3, len(session_reads)
