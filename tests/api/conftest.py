"""API layer: the real Litestar app on a real database (SQLite file or PostgreSQL, by VPN_TEST_DB)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio.to_thread
import asyncpg
import httpx
import msgspec
import pytest
from litestar.testing import AsyncTestClient
from litestar.testing.transport import TestClientTransport

from controlplane.app import create_app
from controlplane.migrate import upgrade
from controlplane.models import Base
from controlplane.services import Services, build_services
from controlplane.settings import PasswordHashing, RateLimit, RateLimits, Settings
from tests.conftest import skip_or_fail
from tests.fakes import captcha as fake_captcha
from tests.fakes.captcha import FakeCaptcha
from tests.fakes.qvapay import FakeQvaPay
from tests.fakes.remesita import FakeRemesita
from tests.fakes.smtp import FakeSMTP
from tests.postgres import PG_ADMIN_URL, pg_admin

TEST_DB = os.environ.get("VPN_TEST_DB", "sqlite")
LOOSE = RateLimit(10_000, 60)


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One migrated database per test run; each test starts from empty tables."""
    if TEST_DB == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('db') / 'api.sqlite3'}"
        upgrade(url)
        yield url
        return
    name = f"vpn_test_{uuid.uuid4().hex[:10]}"
    try:
        pg_admin(f'CREATE DATABASE "{name}"')
    except (OSError, asyncpg.PostgresError) as exc:
        skip_or_fail(f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}")
    url = PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1) + f"/{name}"
    upgrade(url)
    yield url
    pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def captcha() -> Iterator[FakeCaptcha]:
    with FakeCaptcha() as server:
        yield server


@pytest.fixture(scope="session")
def smtp() -> Iterator[FakeSMTP]:
    with FakeSMTP() as server:
        yield server


def make_settings(database_url: str, tmp: Path, **overrides: Any) -> Settings:
    base = Settings(
        database_url=database_url,
        product_name="VPN Prueba",
        support_url="https://soporte.example.invalid",
        client_url="http://testserver.local",
        secret_key_file=tmp / "secret.key",
        password_hashing=PasswordHashing(time_cost=1, memory_cost_kib=8 * 1024, parallelism=1),
        rate_limits=RateLimits(
            login_per_account=LOOSE,
            login_per_address=LOOSE,
            verification_emails_per_account=LOOSE,
            password_checks_per_session=LOOSE,
            password_checks_per_address=LOOSE,
            register_per_address=LOOSE,
            recovery_per_account=LOOSE,
            recovery_per_address=LOOSE,
            mirror_per_token=LOOSE,
            mirror_others_per_token=LOOSE,
            mirror_misses_per_address=LOOSE,
            tokens_per_address=LOOSE,
            socket_handshakes_per_address=LOOSE,
        ),
        run_jobs=False,
        run_grpc=False,
        # The test client runs the app on its own event loop; pooled asyncpg connections cannot cross loops.
        database_pool=False,
    )
    return msgspec.structs.replace(base, **overrides)


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    """Tests override single settings by redefining this fixture (e.g. tighter rate limits)."""
    return {}


@pytest.fixture
def settings(
    database_url: str,
    tmp_path: Path,
    captcha: FakeCaptcha,
    smtp: FakeSMTP,
    settings_overrides: dict[str, Any],
) -> Settings:
    smtp.clear()
    defaults: dict[str, Any] = {
        "captcha_secret": fake_captcha.SECRET,
        "captcha_site_key": "site-key",
        "captcha_verify_url": captcha.url,
        "smtp_url": smtp.url,
    }
    return make_settings(database_url, tmp_path, **{**defaults, **settings_overrides})


async def _empty_database(services: Services) -> None:
    async with services.engine.begin() as conn:
        for table in reversed(Base.metadata.sorted_tables):
            await conn.execute(table.delete())


@pytest.fixture
async def services(settings: Settings) -> AsyncIterator[Services]:
    services = build_services(settings)
    await _empty_database(services)
    yield services
    await services.close()


@pytest.fixture
async def client(services: Services) -> AsyncIterator[AsyncTestClient[Any]]:
    app = create_app(services=services)
    async with AsyncTestClient(app=app, base_url="http://testserver.local") as test_client:
        yield test_client


class _WaitingTransport(TestClientTransport[Any]):
    """Litestar's transport answers an `await` by running the app in its portal thread and blocking the caller's
    loop until it is done; this one waits in a worker thread, so the test's loop keeps running meanwhile."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await anyio.to_thread.run_sync(self.handle_request, request)


@pytest.fixture
async def loop_free_client(services: Services) -> AsyncIterator[AsyncTestClient[Any]]:
    """`client` for a test whose event loop runs the server's other half at the same time (agents' streams and
    answers, as the servicer runs them): with the plain client, a transaction of that half holding the database
    (SQLite's write lock, a PostgreSQL row lock) while a request waits for it could not end until the request did,
    so the request failed after SQLite's 30 s busy timeout ("database is locked") or waited for ever. Not the
    default: the app then really runs beside the test's tasks, in another thread, which the production server (one
    loop) never does (tests/api/test_answer_overlap.py)."""
    app = create_app(services=services)
    async with AsyncTestClient(app=app, base_url="http://testserver.local") as test_client:
        # Litestar passes its transport to httpx the same way (its type is not httpx's async one).
        test_client._transport = _WaitingTransport(client=test_client)  # type: ignore[assignment]
        yield test_client


# The local fake gateways (controlplane/demo/), one each per test module that asks for them, reset for every test:
# the purchase, payment-link and guest-pass tests talk to them as the real client code would.
@pytest.fixture(scope="module")
def qvapay_server() -> Iterator[FakeQvaPay]:
    with FakeQvaPay() as server:
        yield server  # type: ignore[misc]


@pytest.fixture(scope="module")
def remesita_server() -> Iterator[FakeRemesita]:
    with FakeRemesita() as server:
        yield server  # type: ignore[misc]


@pytest.fixture
def qvapay(qvapay_server: FakeQvaPay) -> FakeQvaPay:
    qvapay_server.reset()
    return qvapay_server


@pytest.fixture
def remesita(remesita_server: FakeRemesita) -> FakeRemesita:
    remesita_server.reset()
    return remesita_server
