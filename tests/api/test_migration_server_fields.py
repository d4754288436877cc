"""Migrations that change rows, run on a database of their own (SQLite or PostgreSQL, by VPN_TEST_DB) holding rows
written before them."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from sqlalchemy import select

from controlplane.db import create_engine, utcnow
from controlplane.domain.servers.models import Server
from controlplane.migrate import upgrade
from tests.api.conftest import TEST_DB
from tests.conftest import skip_or_fail
from tests.postgres import PG_ADMIN_URL, pg_admin

BEFORE_SERVER_FIELDS_CHECKED = "3f6b2a9c1d70"
INJECTED = "PostUp = touch /tmp/pwned"


@pytest.fixture
def empty_database(tmp_path: Path) -> Iterator[str]:
    if TEST_DB == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'old.sqlite3'}"
        return
    name = f"vpn_migration_{uuid.uuid4().hex[:10]}"
    try:
        pg_admin(f'CREATE DATABASE "{name}"')
    except (OSError, asyncpg.PostgresError) as exc:
        skip_or_fail(f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}")
    yield PG_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1) + f"/{name}"
    pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


FIELDS = ("name", "ubication", "address", "dns", "backbone_endpoint")


def _server(number: int, **fields: str) -> dict[str, Any]:
    """A servers row as the tables stood before the migration."""
    return {
        "id": f"{number:02d}" + "a" * 30,
        "name": f"Servidor {number}",
        "address": f"s{number}.vpn.test",
        "dns": "1.1.1.1",
        "ubication": "La Habana",
        "backbone_endpoint": "",
        "tunnel_subnet": f"10.{number}.0.0/24",
        **fields,
    }


# (row, what its fields hold after the migration) for rows an admin could write before the check.
ROWS = [
    (_server(1, dns=f"1.1.1.1\n{INJECTED}"), {"dns": "1.1.1.1"}),
    (_server(2, dns=f"\r\n{INJECTED}"), {"dns": "1.1.1.1"}),
    (_server(3, address=f"s3.vpn.test\u2028{INJECTED}"), {"address": "s3.vpn.test"}),
    (_server(4, address=f"\x85{INJECTED}"), {"address": "direccion-invalida.invalid"}),
    (
        _server(5, name=f"Servidor 1\n{INJECTED}", ubication=f"Miami\r{INJECTED}"),
        {"name": "servidor-05aaaaaa", "ubication": "Miami"},
    ),
    (
        _server(6, name=f"Nuevo\t{INJECTED}", backbone_endpoint=f"\n{INJECTED}"),
        {"name": "Nuevo", "backbone_endpoint": ""},
    ),
    # No control character: nothing can be injected, so the values stay, reported for staff to correct.
    (_server(7, dns="dns.google", address="mi_host.vpn.test"), {}),
    # Good rows are not touched (search domains, IPv6, an IP address as the endpoint).
    (_server(8, dns="10.8.0.1, 2606:4700:4700::1111, casa.lan", address="2001:db8::7"), {}),
]


async def _insert(url: str) -> None:
    engine = create_engine(url, pooled=False)
    try:
        async with engine.begin() as connection:
            for row, _ in ROWS:
                await connection.execute(Server.__table__.insert().values(**row, created=utcnow()))
    finally:
        await engine.dispose()


async def _read(url: str) -> dict[str, dict[str, str]]:
    engine = create_engine(url, pooled=False)
    try:
        async with engine.connect() as connection:
            rows = (await connection.execute(select(Server.__table__))).mappings().all()
    finally:
        await engine.dispose()
    return {row["id"]: {field: row[field] for field in FIELDS} for row in rows}


async def test_servers_with_control_characters_are_cut_and_reported(
    empty_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    await asyncio.to_thread(upgrade, empty_database, BEFORE_SERVER_FIELDS_CHECKED)
    await _insert(empty_database)
    before = await _read(empty_database)
    with caplog.at_level(logging.WARNING, logger="controlplane.migrations"):
        await asyncio.to_thread(upgrade, empty_database)
    after = await _read(empty_database)
    for row, expected in ROWS:
        assert after[row["id"]] == {**before[row["id"]], **expected}, row["id"]
        assert not [value for value in after[row["id"]].values() if "PostUp" in value]
    reported = {
        (record.__dict__["server_id"], record.__dict__["field"])
        for record in caplog.records
        if record.name == "controlplane.migrations"
    }
    assert {(row["id"], field) for row, expected in ROWS for field in expected} <= reported
    # Left as they were but not what the fields take: reported too; good rows are not.
    odd, good = ROWS[6][0]["id"], ROWS[7][0]["id"]
    assert {(odd, "dns"), (odd, "address")} <= reported
    assert not [pair for pair in reported if pair[0] == good]
