"""A signed-in session cannot mail without end nor guess the current password without end (the shipped limits:
five verification emails an hour; five wrong current passwords, then each try waits)."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.services import Services
from controlplane.settings import RateLimits
from tests.api.factories import PASSWORD, logged_in, login
from tests.fakes.smtp import FakeSMTP

SETTINGS = "/api/client/settings"


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"rate_limits": RateLimits()}


def assert_too_many(answer: Any) -> None:
    assert answer.status_code == 429, answer.text
    assert answer.json() == {
        "message": "Demasiados intentos. Intente de nuevo en unos minutos.",
        "code": "too_many_requests",
    }
    assert int(answer.headers["retry-after"]) >= 1


async def test_email_changes_stop_mailing_after_five_an_hour(
    services: Services, client: AsyncTestClient[Any], smtp: FakeSMTP
) -> None:
    headers = await logged_in(services, client, email="ana@example.org")
    allowed = RateLimits().verification_emails_per_account.attempts
    for n in range(allowed):
        answer = await client.patch(SETTINGS, json={"email": f"ana{n}@example.org"}, headers=headers)
        assert answer.status_code == 200, answer.text
        smtp.wait_for(f"ana{n}@example.org")

    refused = await client.patch(SETTINGS, json={"email": "victima@example.org"}, headers=headers)
    assert_too_many(refused)
    # Nothing changed and nobody was mailed.
    current = (await client.get(SETTINGS, headers=headers)).json()
    assert current["email"] == f"ana{allowed - 1}@example.org"
    await login(client)  # the mail goes out after the answer: give a stray one time to arrive
    assert smtp.sent_to("victima@example.org") == []


async def test_guessing_the_current_password_is_slowed(services: Services, client: AsyncTestClient[Any]) -> None:
    headers = await logged_in(services, client)
    for n in range(RateLimits().password_checks_per_session.attempts):
        guess = {"old_password": f"adivinanza-{n}", "new_password": "clave-nueva-2026"}
        answer = await client.patch(SETTINGS, json=guess, headers=headers)
        assert answer.status_code == 422 and answer.json()["code"] == "wrong_password"
    # Even the right one waits now: the answer must not tell the guesser which try was right.
    right = {"old_password": PASSWORD, "new_password": "clave-nueva-2026"}
    assert_too_many(await client.patch(SETTINGS, json=right, headers=headers))
    await login(client, "ana", PASSWORD)  # the password did not change
