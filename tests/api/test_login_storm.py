"""A login storm (many wrong passwords at once) costs hashes, not the service: nobody else waits for them.

Each login's password hash is checked outside any database transaction (on SQLite a writing transaction holds the
one write lock), at most a few at a time; the others queue (refused with 429 only after a long wait). The storm
comes from 200 addresses (the client stands behind a trusted proxy), so no per-address limit stops it before the
hash.

The app runs on the test's own event loop (tests/api/live.py): with litestar's test client no two logins would ever
be in flight together.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from controlplane.services import Services
from controlplane.settings import PasswordHashing
from tests.api.factories import bearer, login, make_user
from tests.api.live import live_client

STORM = 200


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    # A hash costs some tens of milliseconds here, as a real one costs hundreds: 200 of them take seconds.
    return {
        "trusted_proxies": ("127.0.0.1",),
        # Every wrong password is hashed: no captcha asked after an account's third failure (it would spare hashes).
        "captcha_secret": "",
        "password_hashing": PasswordHashing(time_cost=2, memory_cost_kib=32 * 1024, parallelism=1),
    }


@pytest.fixture
async def app_client(services: Services) -> AsyncIterator[httpx.AsyncClient]:
    async with live_client(services) as client:
        yield client


def address(n: int) -> dict[str, str]:
    return {"X-Forwarded-For": f"198.18.{n // 200}.{n % 200 + 1}"}


async def test_an_unrelated_write_commits_while_200_logins_are_in_flight(
    services: Services, app_client: httpx.AsyncClient
) -> None:
    client = app_client
    await make_user(services, "ana")
    await make_user(services, "beto")
    beto = bearer(await login(client, "beto"))
    answers: list[int] = []

    async def wrong_login(n: int) -> None:
        payload = {"username": "ana" if n % 2 else f"nadie{n}", "password": f"adivinanza-{n}"}
        answer = await client.post("/api/client/login", json=payload, headers=address(n))
        answers.append(answer.status_code)

    storm = [asyncio.create_task(wrong_login(n)) for n in range(STORM)]
    while not answers:  # the storm is hashing
        await asyncio.sleep(0.01)
    written = await client.patch("/api/client/settings", json={"alias": "Beto Nuevo"}, headers=beto)
    answered_before_the_write = len(answers)
    await asyncio.gather(*storm)

    assert written.status_code == 200, written.text
    assert answered_before_the_write < STORM, "the write waited for the whole storm"
    read = await client.get("/api/client/settings", headers=beto)
    assert read.json()["alias"] == "Beto Nuevo"
    statuses = Counter(answers)
    assert set(statuses) <= {401, 429}, statuses
    assert statuses[401] >= 1  # some were really checked
