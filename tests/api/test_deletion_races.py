"""Purchases racing an account's deletion are refused (docs/security.md, "Deleting an account"): the review found
invoices created 5-43 ms after a deletion had committed. The purchase's session was checked before the deletion
committed, and nothing later looked at the account again. Now the purchase reads the account's row `FOR UPDATE`, as
the deletion does: whichever comes second waits for the first and sees what it did.

PostgreSQL only: there transactions really interleave. On SQLite every writing transaction begins `IMMEDIATE`, so a
purchase's whole transaction runs before or after a deletion's, and the same check inside it decides. The app runs
on the test's own event loop (tests/api/live.py), so requests are really in flight together.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from decimal import Decimal
from typing import Any

import httpx
import pytest
from sqlalchemy import select, text

from controlplane.domain.accounts.models import User
from controlplane.domain.invoices.models import Invoice
from controlplane.domain.plans.models import Plan
from controlplane.domain.plans.service import add_plan
from controlplane.services import Services
from controlplane.settings import RateLimit, RateLimits
from tests.api.factories import PASSWORD, bearer, login, make_server, make_user
from tests.api.live import live_client
from tests.fakes.gateways import gateway_settings
from tests.fakes.qvapay import FakeQvaPay
from tests.fakes.remesita import FakeRemesita

INVOICES = "/api/client/invoices"
DELETE = "/api/client/settings/delete-account"
ROUNDS = 30


@pytest.fixture(scope="module")
def qvapay() -> Any:
    with FakeQvaPay() as server:
        yield server


@pytest.fixture(scope="module")
def remesita() -> Any:
    with FakeRemesita() as server:
        yield server


@pytest.fixture
def settings_overrides(qvapay: FakeQvaPay, remesita: FakeRemesita) -> dict[str, Any]:
    loose = RateLimit(100_000, 3600)
    limits = RateLimits(login_per_account=loose, login_per_address=loose, invoices_per_user=loose)
    return {"rate_limits": limits, **gateway_settings(qvapay, remesita, timeout=15.0)}


@pytest.fixture
async def app_client(services: Services) -> AsyncIterator[httpx.AsyncClient]:
    if services.engine.dialect.name != "postgresql":
        pytest.skip("transactions interleave on PostgreSQL only (SQLite runs writers one after another)")
    async with live_client(services) as client:
        yield client


async def _shop(services: Services) -> Plan:
    await make_server(services)
    async with services.sessionmaker.begin() as db:
        await services.switches.update(db, {"allow_payments_qvapay": True})
        return await add_plan(db, "Mensual", 720, Decimal("5.00"))


async def _purchase(client: httpx.AsyncClient, headers: dict[str, str], plan: Plan) -> httpx.Response:
    return await client.put(INVOICES, json={"mode": "new_peer", "plan": plan.id, "peer": "nuevo"}, headers=headers)


async def _waiting_on_a_lock(services: Services) -> None:
    """Until another connection of this database waits for a row lock (bounded: a purchase that never reaches the
    lock fails the test)."""
    query = text(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )
    async with asyncio.timeout(60):
        while True:
            async with services.engine.connect() as conn:
                if (await conn.execute(query)).scalar_one():
                    return
            await asyncio.sleep(0.01)


async def _invoices_of(services: Services, user_id: str) -> list[Invoice]:
    async with services.sessionmaker() as db:
        return list((await db.execute(select(Invoice).where(Invoice.user_id == user_id))).scalars())


async def test_a_purchase_waiting_on_a_deletion_is_refused_once_it_commits(
    services: Services, app_client: httpx.AsyncClient
) -> None:
    plan = await _shop(services)
    ana = await make_user(services, "ana")
    headers = bearer(await login(app_client, "ana"))
    assert (await app_client.get("/api/client/settings", headers=headers)).status_code == 200  # session checked
    async with services.sessionmaker() as db, db.begin():
        user = await db.get(User, ana.id)
        assert user is not None
        await services.deletion.delete(db, user, "account_deleted")
        # The deletion has not committed: the purchase's session still checks out, and it goes on to its write.
        purchase = asyncio.create_task(_purchase(app_client, headers, plan))
        await _waiting_on_a_lock(services)
    answer = await purchase
    assert answer.status_code == 409, answer.text
    assert answer.json() == {"message": "La cuenta fue eliminada.", "code": "account_deleted"}
    assert await _invoices_of(services, ana.id) == []


async def test_purchases_interleaved_with_deletions_never_outlive_the_account(
    services: Services, app_client: httpx.AsyncClient
) -> None:
    """Deletion (over HTTP, the owner's password) and a purchase from the same session, started together with the
    purchase a random moment later, many times: every invoice a deleted account has was made before its deletion."""
    plan = await _shop(services)
    outcomes: dict[int, int] = {}
    for n in range(ROUNDS):
        user = await make_user(services, f"cliente{n}")
        headers = bearer(await login(app_client, f"cliente{n}"))

        async def purchase_soon(headers: dict[str, str] = headers) -> httpx.Response:
            await asyncio.sleep(random.uniform(0, 0.4))  # spreading the starts
            return await _purchase(app_client, headers, plan)

        deleted, bought = await asyncio.gather(
            app_client.post(DELETE, json={"password": PASSWORD}, headers=headers), purchase_soon()
        )
        assert deleted.status_code == 200, deleted.text
        assert bought.status_code in (200, 401, 409), bought.text
        outcomes[bought.status_code] = outcomes.get(bought.status_code, 0) + 1
        async with services.sessionmaker() as db:
            gone = await db.get(User, user.id)
            assert gone is not None and gone.deleted_at is not None
            for invoice in await _invoices_of(services, user.id):
                assert invoice.created < gone.deleted_at, f"round {n}: an invoice made after its account's deletion"
    print(f"purchase answers over {ROUNDS} rounds: {outcomes}")  # seen with -s
