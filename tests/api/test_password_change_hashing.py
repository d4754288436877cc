"""The settings form's password change hashes outside any transaction, as the login does (docs/security.md, "Login
storms" and "Settings"): while it waits for a hashing turn or hashes (twice: the current password, then the new one)
nobody else waits for it. Before, the change ran inside the request's writing transaction, which on SQLite holds the
one write lock: an unrelated customer's write waited for the whole change (and on PostgreSQL a connection sat idle
in its transaction meanwhile).

The app runs on the test's own event loop (tests/api/live.py), so the change and the write are really in flight
together. Hashing has the production cost, one hash at a time: the test holds that one turn (as another login's
hash would) while the change waits for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from controlplane.services import Services
from controlplane.settings import PasswordHashing
from tests.api.factories import PASSWORD, bearer, login, make_user
from tests.api.live import live_client

SETTINGS = "/api/client/settings"
NEW_PASSWORD = "otra-contraseña-segura-2"


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    # Production cost; one turn, long enough a queue that the change is never shed while the test holds the turn.
    return {"password_hashing": PasswordHashing(concurrent=1, queue_seconds=20.0)}


@pytest.fixture
async def app_client(services: Services) -> AsyncIterator[httpx.AsyncClient]:
    async with live_client(services) as client:
        yield client


async def queued(services: Services, waiting: int) -> None:
    """Until `waiting` callers wait for a hashing turn (bounded: a request stuck before the queue fails the test)."""
    async with asyncio.timeout(60):
        while services.passwords.waiting < waiting:
            await asyncio.sleep(0.005)


async def idle_transactions(services: Services) -> int | None:
    """PostgreSQL: connections of this database left idle inside a transaction (None on SQLite)."""
    if services.engine.dialect.name != "postgresql":
        return None
    async with services.engine.connect() as conn:
        query = (
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND state LIKE 'idle in transaction%'"
        )
        return int((await conn.execute(text(query))).scalar_one())


async def test_an_unrelated_write_commits_while_a_password_change_waits_for_its_hash(
    services: Services, app_client: httpx.AsyncClient
) -> None:
    client = app_client
    await make_user(services, "ana")
    await make_user(services, "beto")
    ana, beto = bearer(await login(client, "ana")), bearer(await login(client, "beto"))

    async with services.passwords.turn():  # another hash holds the one turn
        change = asyncio.create_task(
            client.patch(SETTINGS, json={"old_password": PASSWORD, "new_password": NEW_PASSWORD}, headers=ana)
        )
        await queued(services, 1)  # the change reached the hashing queue
        assert await idle_transactions(services) in {None, 0}, "the change holds a transaction open"
        written = await client.patch(SETTINGS, json={"alias": "Beto Nuevo"}, headers=beto)
        assert written.status_code == 200, written.text
        assert not change.done(), "the write waited for the password change"

    changed = await change
    assert changed.status_code == 200, changed.text
    assert changed.json()["message"] == "Contraseña cambiada correctamente."
    assert (await client.get(SETTINGS, headers=beto)).json()["alias"] == "Beto Nuevo"
    # The change took: the new password opens the account, the old one no longer does.
    assert (
        await client.post("/api/client/login", json={"username": "ana", "password": NEW_PASSWORD})
    ).status_code == 200
    old = await client.post("/api/client/login", json={"username": "ana", "password": PASSWORD})
    assert old.status_code == 401


async def test_a_password_changed_while_the_hashes_ran_is_not_overwritten(
    services: Services, app_client: httpx.AsyncClient
) -> None:
    """Two changes with the same current password in flight at once: the first one written wins, the second hears
    409 instead of replacing a password it never checked."""
    client = app_client
    await make_user(services, "ana")
    ana = bearer(await login(client, "ana"))
    async with services.passwords.turn():  # both changes queue behind this turn, then check the same old hash
        first = asyncio.create_task(
            client.patch(SETTINGS, json={"old_password": PASSWORD, "new_password": NEW_PASSWORD}, headers=ana)
        )
        await queued(services, 1)
        second = asyncio.create_task(
            client.patch(SETTINGS, json={"old_password": PASSWORD, "new_password": "tercera-contraseña-3"}, headers=ana)
        )
        await queued(services, 2)
    answers = sorted([(await first).status_code, (await second).status_code])
    assert answers == [200, 409], answers
    loser = (await first) if (await first).status_code == 409 else (await second)
    assert loser.json() == {
        "message": "La contraseña cambió mientras se procesaba la solicitud. Intente de nuevo.",
        "code": "password_changed_meanwhile",
    }
