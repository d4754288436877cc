"""Login for customers and staff, and the limits on guessing."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.domain.accounts.models import Role
from controlplane.services import Services
from controlplane.settings import RateLimit, RateLimits
from tests.api.factories import PASSWORD, bearer, login, make_user
from tests.fakes.captcha import GOOD_TOKEN


async def test_login_answers_tokens_and_the_session_reads_the_user(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "Ana", email="ana@example.org", alias="AnaGamer")
    answer = await client.post("/api/client/login", json={"username": "ana", "password": PASSWORD, "remember": True})
    assert answer.status_code == 200
    body = answer.json()
    assert body["success"] is True and body["access"] and body["refresh"] and body["message"]

    me = await client.get("/api/client/verify-token", headers=bearer(body))
    assert me.status_code == 200
    assert me.json() == {
        "username": "Ana",
        "alias": "AnaGamer",
        "email": "ana@example.org",
        "email_verified": True,
        "role": "customer",
        "web_settings": {"allow_partys": True, "allow_email": True},
    }


@pytest.mark.parametrize("username", ["ana", "nadie"])
async def test_wrong_password_and_unknown_user_get_the_same_answer(
    services: Services, client: AsyncTestClient[Any], username: str
) -> None:
    await make_user(services, "ana")
    answer = await client.post("/api/client/login", json={"username": username, "password": "otra-clave-mala"})
    assert answer.status_code == 401
    assert answer.json() == {
        "message": "Usuario o contraseña incorrectos.",
        "code": "invalid_credentials",
        "success": False,
    }


async def test_blank_fields_are_refused(client: AsyncTestClient[Any]) -> None:
    answer = await client.post("/api/client/login", json={"username": " ", "password": ""})
    assert answer.status_code == 422
    assert answer.json()["message"] == "El usuario y contraseña son obligatorios."


async def test_blocked_account_cannot_log_in(services: Services, client: AsyncTestClient[Any]) -> None:
    user = await make_user(services, "ana")
    async with services.sessionmaker.begin() as db:
        (await db.get(type(user), user.id)).blocked = True  # type: ignore[union-attr]
    answer = await client.post("/api/client/login", json={"username": "ana", "password": PASSWORD})
    assert answer.status_code == 403
    assert answer.json()["code"] == "account_blocked"


async def test_staff_and_customers_log_in_only_in_their_own_area(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    await make_user(services, "jefa", role=Role.ADMIN)
    assert (await client.post("/api/client/login", json={"username": "jefa", "password": PASSWORD})).status_code == 401
    assert (await client.post("/api/admin/login", json={"username": "ana", "password": PASSWORD})).status_code == 401
    staff = await login(client, "jefa", admin=True)
    assert (await client.get("/api/admin/verify-token", headers=bearer(staff))).json()["role"] == "admin"


async def test_customer_token_is_refused_on_admin_calls_and_staff_token_on_customer_calls(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    await make_user(services, "jefa", role=Role.ADMIN)
    customer = bearer(await login(client, "ana"))
    staff = bearer(await login(client, "jefa", admin=True))

    answer = await client.get("/api/admin/verify-token", headers=customer)
    assert answer.status_code == 403 and answer.json()["code"] == "staff_only"
    answer = await client.get("/api/client/settings", headers=staff)
    assert answer.status_code == 403 and answer.json()["code"] == "customer_only"


class TestBruteForce:
    @pytest.fixture
    def settings_overrides(self) -> dict[str, Any]:
        return {"rate_limits": RateLimits(login_per_account=RateLimit(5, 300), login_per_address=RateLimit(1000, 300))}

    async def test_guessing_one_account_is_stopped_even_with_the_right_password_after(
        self, services: Services, client: AsyncTestClient[Any]
    ) -> None:
        await make_user(services, "ana")
        await make_user(services, "beto")
        # Solved captchas (asked for after three failures) do not lift the wait.
        for _ in range(5):
            wrong = {"username": "ana", "password": "adivinanza", "captcha_token": GOOD_TOKEN}
            assert (await client.post("/api/client/login", json=wrong)).status_code == 401
        right = {"username": "ana", "password": PASSWORD, "captcha_token": GOOD_TOKEN}
        answer = await client.post("/api/client/login", json=right)
        assert answer.status_code == 429
        assert answer.json()["message"] == "Demasiados intentos. Intente de nuevo en unos minutos."
        # Other accounts are not locked out by it.
        assert (
            await client.post("/api/client/login", json={"username": "beto", "password": PASSWORD})
        ).status_code == 200
