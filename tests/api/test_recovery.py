"""Password recovery: the same answer for everyone, a single-use expiring link, sessions ended on reset."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import update

from controlplane.db import utcnow
from controlplane.domain.accounts.models import OneTimeLink
from controlplane.services import Services
from tests.api.factories import PASSWORD, bearer, login, make_user
from tests.fakes.smtp import FakeSMTP, link_in

SAME_ANSWER = {
    "success": True,
    "message": "Si la cuenta existe y tiene un email verificado, le enviamos un enlace para restablecer la contraseña.",
}


@pytest.mark.parametrize("username", ["nadie", "sinmail", "conmail"])
async def test_the_answer_is_the_same_whether_or_not_the_account_exists_or_has_an_email(
    services: Services, client: AsyncTestClient[Any], smtp: FakeSMTP, username: str
) -> None:
    await make_user(services, "sinmail")
    await make_user(services, "conmail", email="conmail@example.org")
    answer = await client.post("/api/client/password-recovery", json={"username": username})
    assert answer.status_code == 200
    assert answer.json() == SAME_ANSWER
    if username == "conmail":
        smtp.wait_for("conmail@example.org")
    else:
        assert smtp.inbox.messages == []


async def test_reset_link_sets_a_new_password_once_and_ends_every_session(
    services: Services, client: AsyncTestClient[Any], smtp: FakeSMTP
) -> None:
    await make_user(services, "ana", email="ana@example.org")
    old_session = await login(client, "ana")
    await client.post("/api/client/password-recovery", json={"username": "ANA"})
    token = link_in(smtp.wait_for("ana@example.org"), "/password-reset")

    answer = await client.post("/api/client/password-reset", json={"token": token, "password": "nueva-clave-123"})
    assert answer.status_code == 200
    assert (await client.get("/api/client/settings", headers=bearer(old_session))).status_code == 401
    assert (await client.post("/api/client/login", json={"username": "ana", "password": PASSWORD})).status_code == 401
    assert (
        await client.post("/api/client/login", json={"username": "ana", "password": "nueva-clave-123"})
    ).status_code == 200

    reuse = await client.post("/api/client/password-reset", json={"token": token, "password": "otra-clave-456"})
    assert reuse.status_code == 400
    assert reuse.json() == {
        "message": "El enlace no es válido o ya venció.",
        "code": "password_reset_token_invalid",
    }


async def test_an_expired_link_is_refused(services: Services, client: AsyncTestClient[Any], smtp: FakeSMTP) -> None:
    await make_user(services, "ana", email="ana@example.org")
    await client.post("/api/client/password-recovery", json={"username": "ana"})
    token = link_in(smtp.wait_for("ana@example.org"), "/password-reset")
    async with services.sessionmaker.begin() as db:
        await db.execute(update(OneTimeLink).values(expires_at=utcnow() - timedelta(minutes=1)))
    answer = await client.post("/api/client/password-reset", json={"token": token, "password": "nueva-clave-123"})
    assert answer.status_code == 400
    assert (await client.post("/api/client/login", json={"username": "ana", "password": PASSWORD})).status_code == 200


async def test_recovery_switched_off(services: Services, client: AsyncTestClient[Any], smtp: FakeSMTP) -> None:
    await make_user(services, "ana", email="ana@example.org")
    async with services.sessionmaker.begin() as db:
        await services.switches.update(db, {"allow_password_recovery": False})
    answer = await client.post("/api/client/password-recovery", json={"username": "ana"})
    assert answer.status_code == 403
    assert answer.json()["code"] == "recovery_closed"
    assert smtp.inbox.messages == []
