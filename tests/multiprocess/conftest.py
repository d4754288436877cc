"""Two control-plane processes on one PostgreSQL database and one Redis (a prefix of their own), for the module."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest
from redis import Redis

from tests.conftest import skip_or_fail
from tests.multiprocess.cluster import ADMIN, SMALL_ARGON2, ControlPlaneProcess
from tests.postgres import PG_ADMIN_URL, pg_admin

REDIS_URL = os.environ.get("VPN_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
EXPIRY_INTERVAL = 0.5  # seconds: both processes' expiry jobs fire many times while a test watches


@dataclass
class Cluster:
    first: ControlPlaneProcess
    second: ControlPlaneProcess
    database_url: str  # asyncpg DSN, for the few checks that read the database directly
    outbox: Path  # without an SMTP server, both processes write their mails here (one .eml file each)

    @property
    def processes(self) -> tuple[ControlPlaneProcess, ControlPlaneProcess]:
        return self.first, self.second


@contextlib.contextmanager
def throwaway_database() -> Iterator[tuple[str, str]]:
    """A new PostgreSQL database: its SQLAlchemy URL (for VPN_DATABASE_URL) and its asyncpg DSN; dropped after."""
    name = f"vpn_mp_{uuid.uuid4().hex[:10]}"
    try:
        pg_admin(f'CREATE DATABASE "{name}"')
    except (OSError, asyncpg.PostgresError) as exc:
        skip_or_fail(f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}")
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield base.replace("postgresql://", "postgresql+asyncpg://", 1) + f"/{name}", f"{base}/{name}"
    finally:
        pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    try:
        Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except Exception as exc:
        skip_or_fail(f"Redis not reachable at {REDIS_URL}: {exc}")
    workdir: Path = tmp_path_factory.mktemp("cluster")
    with throwaway_database() as (database_url, dsn):
        shared = {
            "VPN_DATABASE_URL": database_url,
            "VPN_REDIS_URL": REDIS_URL,
            "VPN_REDIS_PREFIX": f"vpn-mp-{uuid.uuid4().hex[:8]}:",
            # One key for every process: it encrypts peers' keys and signs sessions.
            "VPN_SECRET_KEY_FILE": str(workdir / "secret.key"),
            "VPN_EXPIRY_INTERVAL": str(EXPIRY_INTERVAL),
            "VPN_REMINDER_INTERVAL": str(EXPIRY_INTERVAL),
            "VPN_OPERATION_TIMEOUT": "30",
            "VPN_ADMIN_PASSWORD": ADMIN[1],
            **SMALL_ARGON2,
        }
        first = ControlPlaneProcess("first", workdir, shared)
        second = ControlPlaneProcess("second", workdir, shared)
        try:
            first.cli("migrate")
            first.cli("create-admin", ADMIN[0])
            first.start()
            second.start()
            first.wait_ready()
            second.wait_ready()
            yield Cluster(first, second, dsn, workdir / "outbox")
        finally:
            first.stop()
            second.stop()
