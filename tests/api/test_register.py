"""Registration: captcha checked by the provider, Spanish validation, email verification, nothing half-written."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select

from controlplane.domain.accounts.models import User
from controlplane.services import Services
from controlplane.settings import RateLimit
from tests.fakes.captcha import GOOD_TOKEN, FakeCaptcha
from tests.fakes.smtp import FakeSMTP, link_in

NEW = {"username": "Pepe", "password": "una-clave-larga", "captcha_token": GOOD_TOKEN}


async def count_users(services: Services) -> int:
    async with services.sessionmaker() as db:
        return int(await db.scalar(select(func.count()).select_from(User)) or 0)


async def test_new_customer_registers_and_logs_in(client: AsyncTestClient[Any], captcha: FakeCaptcha) -> None:
    answer = await client.put("/api/client/register", json=NEW)
    assert answer.status_code == 201
    assert answer.json()["success"] is True
    assert answer.json()["message"].startswith("Registro Completado")
    assert captcha.requests[-1]["response"] == GOOD_TOKEN  # really verified with the provider
    login = await client.post("/api/client/login", json={"username": "pepe", "password": "una-clave-larga"})
    assert login.status_code == 200


async def test_registration_with_email_sends_a_verification_link_that_verifies(
    client: AsyncTestClient[Any], smtp: FakeSMTP
) -> None:
    answer = await client.put("/api/client/register", json={**NEW, "email": "pepe@example.org"})
    assert answer.status_code == 201
    assert "email de verificación" in answer.json()["message"]
    token = link_in(smtp.wait_for("pepe@example.org"), "/verify-email")

    assert (await client.post("/api/client/verify-email", json={"token": token})).status_code == 200
    again = await client.post("/api/client/verify-email", json={"token": token})
    assert again.status_code == 400
    assert again.json()["message"] == "El enlace no es válido o ya venció."


@pytest.mark.parametrize(
    ("payload", "status", "message"),
    [
        ({**NEW, "captcha_token": ""}, 422, "Por favor, complete el captcha."),
        ({**NEW, "captcha_token": "forged"}, 422, "La verificación del captcha falló. Intente de nuevo."),
        ({**NEW, "username": ""}, 422, "El usuario y contraseña son obligatorios."),
        ({**NEW, "password": ""}, 422, "El usuario y contraseña son obligatorios."),
        ({**NEW, "password": "corta"}, 422, "La contraseña debe tener entre 8 y 128 caracteres."),
        ({**NEW, "username": "a b"}, 422, None),
        ({**NEW, "email": "no-es-email"}, 422, "El email no es válido."),
        ({**NEW, "username": "x" * 65}, 422, None),
        ({**NEW, "password": 12345678}, 422, None),
        ({**NEW, "is_admin": True}, 422, "El campo 'is_admin' no está permitido."),
        (
            {"password": "una-clave-larga", "captcha_token": GOOD_TOKEN},
            422,
            "Usuario: campo obligatorio.",
        ),
    ],
)
async def test_bad_registrations_are_refused_in_spanish_and_create_nothing(
    services: Services,
    client: AsyncTestClient[Any],
    payload: dict[str, Any],
    status: int,
    message: str | None,
) -> None:
    answer = await client.put("/api/client/register", json=payload)
    assert answer.status_code == status
    body = answer.json()
    assert body["code"]
    if message:
        assert body["message"] == message
    else:
        assert body["message"]  # some Spanish text, never empty
    assert await count_users(services) == 0


async def test_usernames_are_unique_without_regard_to_case(services: Services, client: AsyncTestClient[Any]) -> None:
    assert (await client.put("/api/client/register", json=NEW)).status_code == 201
    answer = await client.put("/api/client/register", json={**NEW, "username": "PEPE"})
    assert answer.status_code == 409
    assert answer.json()["message"] == "El nombre de usuario ya está en uso."
    assert await count_users(services) == 1


async def test_registration_closed_by_the_switch(services: Services, client: AsyncTestClient[Any]) -> None:
    async with services.sessionmaker.begin() as db:
        await services.switches.update(db, {"allow_registration": False})
    answer = await client.put("/api/client/register", json=NEW)
    assert answer.status_code == 403
    assert answer.json()["code"] == "registration_closed"
    assert await count_users(services) == 0


async def test_email_is_ignored_when_email_is_switched_off(
    services: Services, client: AsyncTestClient[Any], smtp: FakeSMTP
) -> None:
    async with services.sessionmaker.begin() as db:
        await services.switches.update(db, {"allow_email": False})
    answer = await client.put("/api/client/register", json={**NEW, "email": "pepe@example.org"})
    assert answer.status_code == 201
    assert "email" not in answer.json()["message"]
    assert smtp.sent_to("pepe@example.org") == []


class TestFlood:
    @pytest.fixture
    def settings_overrides(self) -> dict[str, Any]:
        from controlplane.settings import RateLimits

        loose = RateLimit(1000, 60)
        return {
            "rate_limits": RateLimits(
                register_per_address=RateLimit(3, 3600), login_per_account=loose, login_per_address=loose
            )
        }

    async def test_registration_flood_from_one_address_gets_429(
        self, services: Services, client: AsyncTestClient[Any]
    ) -> None:
        for i in range(3):
            assert (await client.put("/api/client/register", json={**NEW, "username": f"u{i}xx"})).status_code == 201
        answer = await client.put("/api/client/register", json={**NEW, "username": "u9xx"})
        assert answer.status_code == 429
        assert answer.json()["message"] == "Demasiados intentos. Intente de nuevo en unos minutos."
        assert int(answer.headers["retry-after"]) > 0
        assert await count_users(services) == 3
