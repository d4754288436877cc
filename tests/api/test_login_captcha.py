"""With a captcha configured, failed logins on an account (from any address) make its next tries ask for a solved
captcha: a guesser spreading tries over many addresses pays a captcha per try, and the owner still gets in by
solving one, from any address, the guesser's own included (docs/security.md, "Logins").

The captcha provider is the local fake (tests/fakes/captcha.py), which follows the siteverify contract. The limits are
the shipped defaults; each X-Forwarded-For below is a caller of its own.
"""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.domain.accounts.models import Role
from controlplane.services import Services
from controlplane.settings import RateLimits
from tests.api.factories import PASSWORD, make_user
from tests.fakes.captcha import GOOD_TOKEN, FakeCaptcha

ATTACKER = {"X-Forwarded-For": "203.0.113.66"}
OWNER = {"X-Forwarded-For": "198.51.100.7"}
CLIENT_LOGIN, STAFF_LOGIN = "/api/client/login", "/api/admin/login"
REQUIRED = {"message": "Por favor, complete el captcha.", "code": "captcha_required"}
FAILED = {"message": "La verificación del captcha falló. Intente de nuevo.", "code": "captcha_failed"}


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"trusted_proxies": ("testclient",), "rate_limits": RateLimits()}


async def attempt(
    client: AsyncTestClient[Any],
    username: str,
    password: str,
    who: dict[str, str],
    captcha: str | None = None,
    path: str = CLIENT_LOGIN,
) -> Any:
    body = {"username": username, "password": password}
    if captcha is not None:
        body["captcha_token"] = captcha
    return await client.post(path, json=body, headers=who)


async def fail_three_times(
    client: AsyncTestClient[Any], username: str, who: dict[str, str], path: str = CLIENT_LOGIN
) -> None:
    for n in range(3):
        answer = await attempt(client, username, f"adivinanza{n}", who, path=path)
        assert answer.status_code == 401, answer.text


def error(answer: Any) -> dict[str, str]:
    body = answer.json()
    return {"message": body["message"], "code": body["code"]}


async def test_after_three_failures_every_address_is_asked_for_a_captcha_and_the_owner_gets_in_by_solving_it(
    services: Services, client: AsyncTestClient[Any], captcha: FakeCaptcha
) -> None:
    await make_user(services, "ana")
    await fail_three_times(client, "ana", ATTACKER)

    # A guesser with many addresses gains nothing by moving: every one of them is asked for a captcha.
    for n in range(10):
        other = {"X-Forwarded-For": f"192.0.2.{n + 10}"}
        answer = await attempt(client, "ana", f"otra{n}", other)
        assert answer.status_code == 422 and error(answer) == REQUIRED

    # The owner, with the right password: asked too, refused on a bad token, in with a solved one.
    asked = await attempt(client, "ana", PASSWORD, OWNER)
    assert asked.status_code == 422 and error(asked) == REQUIRED
    bad = await attempt(client, "ana", PASSWORD, OWNER, captcha="token-inventado")
    assert bad.status_code == 422 and error(bad) == FAILED
    solved = await attempt(client, "ana", PASSWORD, OWNER, captcha=GOOD_TOKEN)
    assert solved.status_code == 200, solved.text
    assert solved.json()["access"]
    # The provider was asked with the caller's own address (siteverify's `remoteip`).
    assert {"response": GOOD_TOKEN, "remoteip": "198.51.100.7"}.items() <= captcha.requests[-1].items()


async def test_the_right_password_with_a_solved_captcha_gets_in_from_the_address_the_failures_came_from(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    await fail_three_times(client, "ana", OWNER)  # the owner mistyped three times
    assert error(await attempt(client, "ana", PASSWORD, OWNER)) == REQUIRED
    answer = await attempt(client, "ana", PASSWORD, OWNER, captcha=GOOD_TOKEN)
    assert answer.status_code == 200, answer.text

    # A success clears the account's count: the owner's next login asks for nothing.
    again = await attempt(client, "ana", PASSWORD, OWNER)
    assert again.status_code == 200, again.text


async def test_a_try_refused_for_its_captcha_never_checks_the_password_nor_makes_the_pair_wait(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    await fail_three_times(client, "ana", ATTACKER)
    # Twenty tries without a captcha: none is a failure of the pair (five would make it wait), and the right
    # password among them is not told apart.
    for n in range(20):
        password = PASSWORD if n == 7 else f"adivinanza-{n}"
        answer = await attempt(client, "ana", password, ATTACKER)
        assert answer.status_code == 422 and error(answer) == REQUIRED
    answer = await attempt(client, "ana", PASSWORD, ATTACKER, captcha=GOOD_TOKEN)
    assert answer.status_code == 200, answer.text


async def test_a_solved_captcha_does_not_lift_the_wait_of_the_pair_that_kept_failing(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    await fail_three_times(client, "ana", ATTACKER)
    for n in range(2):  # a guesser who solves captchas: failures four and five of this pair
        answer = await attempt(client, "ana", f"resuelto{n}", ATTACKER, captcha=GOOD_TOKEN)
        assert answer.status_code == 401, answer.text
    held = await attempt(client, "ana", f"resuelto{9}", ATTACKER, captcha=GOOD_TOKEN)
    assert held.status_code == 429 and held.json()["code"] == "too_many_requests"
    # The owner, from their own address, is not held: a captcha and they are in.
    assert (await attempt(client, "ana", PASSWORD, OWNER, captcha=GOOD_TOKEN)).status_code == 200


async def test_unknown_accounts_ask_for_the_captcha_exactly_as_real_ones(client: AsyncTestClient[Any]) -> None:
    await fail_three_times(client, "nadie", ATTACKER)
    answer = await attempt(client, "nadie", "lo-que-sea", OWNER)
    assert answer.status_code == 422 and error(answer) == REQUIRED
    answer = await attempt(client, "nadie", "lo-que-sea", OWNER, captcha=GOOD_TOKEN)
    assert answer.status_code == 401 and answer.json()["code"] == "invalid_credentials"


async def test_failures_on_the_customer_login_never_make_the_manager_login_ask_for_a_captcha(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "jefa", role=Role.ADMIN)
    await fail_three_times(client, "jefa", OWNER)
    assert error(await attempt(client, "jefa", PASSWORD, OWNER)) == REQUIRED  # the customer login's own count
    staff = await attempt(client, "jefa", PASSWORD, OWNER, path=STAFF_LOGIN)
    assert staff.status_code == 200, staff.text


async def test_the_manager_login_asks_for_a_captcha_after_its_own_failures(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "jefa", role=Role.ADMIN)
    await fail_three_times(client, "jefa", ATTACKER, path=STAFF_LOGIN)
    asked = await attempt(client, "jefa", PASSWORD, OWNER, path=STAFF_LOGIN)
    assert asked.status_code == 422 and error(asked) == REQUIRED
    staff = await attempt(client, "jefa", PASSWORD, OWNER, captcha=GOOD_TOKEN, path=STAFF_LOGIN)
    assert staff.status_code == 200, staff.text


async def test_a_burst_of_unknown_names_from_one_address_meets_the_captcha_and_a_customer_there_solves_it(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """Past the address's budget of failures every try from it needs a solved captcha, whatever the name (so the
    answer says nothing about which names exist); a customer behind the same address solves it and gets in."""
    await make_user(services, "ana")
    budget = RateLimits().login_per_address.attempts
    for n in range(budget):
        answer = await attempt(client, f"nadie{n}", "Verano2024!", ATTACKER)
        assert answer.status_code == 401, answer.text
    for name in ("nadie-mas", "ana"):
        answer = await attempt(client, name, "Verano2024!", ATTACKER)
        assert answer.status_code == 422 and error(answer) == REQUIRED
    assert (await attempt(client, "ana", PASSWORD, ATTACKER)).status_code == 422
    answer = await attempt(client, "ana", PASSWORD, ATTACKER, captcha=GOOD_TOKEN)
    assert answer.status_code == 200, answer.text
