"""Nobody can lock somebody else out: wrong passwords slow the (account, address) pair that sent them, a looser
per-address limit stops spraying many accounts, and the customer and staff logins count apart.

The limits are the shipped defaults, with no captcha configured (what a captcha adds is in test_login_captcha.py).
The client stands behind a trusted proxy, so each X-Forwarded-For below is a caller of its own.
"""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.domain.accounts.models import Role
from controlplane.services import Services
from controlplane.settings import RateLimits
from tests.api.factories import PASSWORD, make_user

ATTACKER = {"X-Forwarded-For": "203.0.113.66"}
OWNER = {"X-Forwarded-For": "198.51.100.7"}
CLIENT_LOGIN, STAFF_LOGIN = "/api/client/login", "/api/admin/login"


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"trusted_proxies": ("testclient",), "rate_limits": RateLimits(), "captcha_secret": ""}


async def attempt(client: AsyncTestClient[Any], path: str, username: str, password: str, who: dict[str, str]) -> Any:
    return await client.post(path, json={"username": username, "password": password}, headers=who)


async def test_wrong_passwords_from_another_address_do_not_lock_the_owner_out(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    statuses = [(await attempt(client, CLIENT_LOGIN, "ana", f"adivinanza{n}", ATTACKER)).status_code for n in range(12)]
    assert statuses[:5] == [401] * 5
    assert set(statuses[5:]) == {429}  # the guesser waits, then waits longer
    refused = await attempt(client, CLIENT_LOGIN, "ana", PASSWORD, ATTACKER)
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert refused.json()["code"] == "too_many_requests"

    owner = await attempt(client, CLIENT_LOGIN, "ana", PASSWORD, OWNER)
    assert owner.status_code == 200, owner.text


async def test_the_owner_who_mistypes_waits_only_from_their_own_address(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    for n in range(5):
        assert (await attempt(client, CLIENT_LOGIN, "ana", f"casi{n}", OWNER)).status_code == 401
    assert (await attempt(client, CLIENT_LOGIN, "ana", PASSWORD, OWNER)).status_code == 429
    # The same person on their phone's network gets in.
    assert (await attempt(client, CLIENT_LOGIN, "ana", PASSWORD, ATTACKER)).status_code == 200


async def test_wrong_passwords_on_the_customer_login_never_lock_a_staff_account(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "jefa", role=Role.ADMIN)
    for n in range(12):
        answer = await attempt(client, CLIENT_LOGIN, "jefa", f"adivinanza{n}", OWNER)
        assert answer.status_code in {401, 429}
    # Even from the very address the guesses came from: the manager's login counts its own failures.
    staff = await attempt(client, STAFF_LOGIN, "jefa", PASSWORD, OWNER)
    assert staff.status_code == 200, staff.text


async def test_wrong_passwords_on_the_staff_login_never_lock_a_customer(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    for n in range(12):
        assert (await attempt(client, STAFF_LOGIN, "ana", f"adivinanza{n}", OWNER)).status_code in {401, 429}
    assert (await attempt(client, CLIENT_LOGIN, "ana", PASSWORD, OWNER)).status_code == 200


async def test_the_customer_login_does_not_check_staff_passwords(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """A staff password is never confirmed through the customer login, right or wrong: both answer as for a
    stranger."""
    await make_user(services, "jefa", role=Role.ADMIN)
    right = await attempt(client, CLIENT_LOGIN, "jefa", PASSWORD, OWNER)
    wrong = await attempt(client, CLIENT_LOGIN, "jefa", "otra-cosa-1", OWNER)
    nobody = await attempt(client, CLIENT_LOGIN, "nadie", PASSWORD, OWNER)
    assert right.status_code == wrong.status_code == nobody.status_code == 401
    assert right.json() == wrong.json() == nobody.json()


async def test_spraying_many_accounts_from_one_address_is_capped(client: AsyncTestClient[Any]) -> None:
    per_address = RateLimits().login_per_address.attempts
    for n in range(per_address):
        assert (await attempt(client, CLIENT_LOGIN, f"cuenta{n}", "Verano2024!", ATTACKER)).status_code == 401
    assert (await attempt(client, CLIENT_LOGIN, "otra", "Verano2024!", ATTACKER)).status_code == 429
    assert (await attempt(client, CLIENT_LOGIN, "otra", "Verano2024!", OWNER)).status_code == 401


async def test_without_a_captcha_configured_failures_never_ask_for_one(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    for n in range(4):
        assert (await attempt(client, CLIENT_LOGIN, "ana", f"casi{n}", OWNER)).status_code == 401
    for n in range(4):
        other = {"X-Forwarded-For": f"192.0.2.{n + 10}"}
        assert (await attempt(client, CLIENT_LOGIN, "ana", f"otra{n}", other)).status_code == 401
    assert (await attempt(client, CLIENT_LOGIN, "ana", PASSWORD, OWNER)).status_code == 200
