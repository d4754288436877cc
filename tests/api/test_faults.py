"""Faults of the services the control plane leans on: the database unreachable for a while, Redis down.

Real PostgreSQL and Redis behind a TCP proxy the test cuts and restores. While a dependency is away the answers
are clear (503 `unavailable` in Spanish, never a 500 or a hang), nothing is half-written, and once it is back
everything works again without a restart. Gateway timeouts are in test_payments.py (purchase and notification
with the gateway down or slow, then the reconciliation job crediting once); the agent and control-plane restarts
with real WireGuard are in tests/netns/test_faults.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient
from redis.asyncio import Redis
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError

from controlplane import db as database
from controlplane.app import create_app
from controlplane.domain.accounts.models import User
from controlplane.domain.accounts.schemas import LoginRequest
from controlplane.domain.accounts.sessions import CLIENT
from controlplane.errors import DomainError
from controlplane.realtime.messages import InfoPush, SuccessPush
from controlplane.services import Services, build_services
from controlplane.settings import RateLimit, RateLimits, Settings
from tests.api.conftest import TEST_DB, _empty_database
from tests.api.factories import PASSWORD, bearer, login, make_user
from tests.api.test_fanout_redis import REDIS_URL, RecordingSocket
from tests.conftest import skip_or_fail
from tests.fakes.captcha import GOOD_TOKEN
from tests.fakes.tcp_proxy import TcpProxy

UNAVAILABLE = {
    "message": "El servicio no está disponible en este momento. Intente más tarde.",
    "code": "unavailable",
}


@pytest.fixture
def redis_proxy() -> Iterator[tuple[TcpProxy, str]]:
    proxy, url = TcpProxy.for_url(REDIS_URL)
    yield proxy, url
    proxy.close()


async def test_redis_down_logins_limits_and_pushes_go_on_in_this_process(
    settings: Settings, redis_proxy: tuple[TcpProxy, str]
) -> None:
    proxy, url = redis_proxy
    probe = Redis.from_url(REDIS_URL)
    try:
        await probe.ping()
    except Exception as exc:
        skip_or_fail(f"Redis not reachable at {REDIS_URL}: {exc}")
    finally:
        await probe.aclose()
    limited = RateLimits(**{**msgspec.structs.asdict(settings.rate_limits), "login_per_account": RateLimit(3, 300)})
    services = build_services(
        msgspec.structs.replace(settings, redis_url=url, redis_prefix="faults:", rate_limits=limited)
    )
    await _empty_database(services)
    user = await make_user(services, "ana")
    await services.start()  # the bus's Redis subscription, on this test's event loop (one loop, as in production)

    async def login_as(password: str) -> str:
        try:
            await services.accounts.login(LoginRequest(username="ana", password=password), CLIENT, "192.0.2.9")
        except DomainError as refused:
            return refused.code
        return "ok"

    browser = RecordingSocket()
    services.hub.attach(user.id, browser)

    async def delivered(push: InfoPush | SuccessPush) -> bool:
        browser.received.clear()
        await services.hub.push(user.id, push)
        for _ in range(100):  # up to 5 s: a loaded CI machine may take a while to carry it through Redis
            if browser.received:
                return browser.received == [msgspec.to_builtins(push)]
            await asyncio.sleep(0.05)
        return False

    try:
        assert await delivered(InfoPush(message="Con Redis"))
        proxy.cut()
        # Logins work (the limiter counts in this process) and the limit still holds.
        assert await login_as(PASSWORD) == "ok"
        assert [await login_as("mala") for _ in range(3)][-1] in {"invalid_credentials", "too_many_requests"}
        assert await login_as(PASSWORD) == "too_many_requests"
        # A push reaches this process's browser although Redis cannot carry it.
        assert await delivered(SuccessPush(message="Sin Redis"))
        proxy.restore()
        # Redis is back: no push is lost while the subscription re-subscribes (it retries every second), none is
        # delivered twice, and after that they flow through Redis again.
        for n in range(30):
            assert await delivered(InfoPush(message=f"Con Redis otra vez {n}"))
            await asyncio.sleep(0.1)
        assert services.bus._ready.is_set()
    finally:
        await services.close()


@pytest.fixture
async def pg_behind_proxy(settings: Settings) -> AsyncIterator[tuple[Services, TcpProxy]]:
    proxy, url = TcpProxy.for_url(settings.database_url.replace("+asyncpg", ""))
    services = build_services(
        msgspec.structs.replace(settings, database_url=url.replace("postgresql", "postgresql+asyncpg", 1))
    )
    await _empty_database(services)
    yield services, proxy
    proxy.close()
    await services.close()


# PostgreSQL only: a SQLite file does not go away over the network (a held write lock waits out busy_timeout).
if TEST_DB == "postgresql":

    async def test_database_unreachable_for_a_while(pg_behind_proxy: tuple[Services, TcpProxy]) -> None:
        services, proxy = pg_behind_proxy
        await make_user(services, "ana")
        async with AsyncTestClient(app=create_app(services=services), base_url="http://testserver.local") as client:
            auth = bearer(await login(client, "ana"))
            listed = await client.get("/api/client/accounts/peers", headers=auth)
            assert listed.status_code == 200
            proxy.cut()
            # The peer list just read is still in this process's cache (at most 10 s, emptied by any change, and
            # nothing can change while the database is away): it keeps answering, the same list.
            cached = await asyncio.wait_for(client.get("/api/client/accounts/peers", headers=auth), timeout=30)
            assert (cached.status_code, cached.json()) == (200, listed.json())
            calls: list[Any] = [
                client.post("/api/client/login", json={"username": "ana", "password": PASSWORD}),
                client.put(
                    "/api/client/register",
                    json={"username": "nueva", "password": PASSWORD, "captcha_token": GOOD_TOKEN},
                ),
                client.get("/api/client/settings", headers=auth),
            ]
            for answer in await asyncio.wait_for(asyncio.gather(*calls), timeout=30):
                assert answer.status_code == 503, answer.text
                assert answer.json() == UNAVAILABLE
                assert answer.headers["retry-after"] == "5"
            proxy.restore()
            assert (await client.get("/api/client/accounts/peers", headers=auth)).status_code == 200
            registered = await client.put(
                "/api/client/register", json={"username": "nueva", "password": PASSWORD, "captcha_token": GOOD_TOKEN}
            )
            assert registered.status_code == 201, registered.text  # the refused attempt left nothing behind
        async with services.sessionmaker() as db:
            assert await db.scalar(select(func.count()).select_from(User).where(User.username == "nueva")) == 1

    async def test_a_pooled_connection_idle_for_a_while_is_checked_before_use(
        settings: Settings, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # The server restarts while nobody asks: every pooled connection is dead. The control plane's own pool (the
        # API tests open a connection per use, so this takes the engine as a deployment builds it) pings a
        # connection that sat idle (controlplane/db.py, _ping_when_idle): the first statement after the quiet spell
        # works. One used moments ago is not pinged: that statement fails, and the one after it works. The idle
        # spell is shortened from 2 s to keep the test quick.
        monkeypatch.setattr(database, "PING_AFTER_IDLE_SECONDS", 0.5)
        proxy, url = TcpProxy.for_url(settings.database_url.replace("+asyncpg", ""))
        engine = database.create_engine(url.replace("postgresql", "postgresql+asyncpg", 1))

        async def select_one() -> Any:
            async with engine.connect() as connection:
                return await connection.scalar(text("SELECT 1"))

        try:
            assert await select_one() == 1
            proxy.cut()
            proxy.restore()
            await asyncio.sleep(0.6)
            assert await select_one() == 1  # pinged, found dead, replaced: nobody saw the restart

            proxy.cut()
            proxy.restore()
            with pytest.raises(DBAPIError) as failed:
                await select_one()
            assert failed.value.connection_invalidated  # answered 503 by the API (errors.unreachable_handler)
            assert await select_one() == 1
        finally:
            await engine.dispose()
            proxy.close()
