"""What throttled forms may answer is in the OpenAPI document: the settings form, joining a room and opening a
purchase (tests/api/test_payments.py) answer 429 past their limits (docs/security.md, "Settings" and "Limits"),
and a client generated from the document must know that status and its body."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.domain.rooms.operations.join import JOIN_ATTEMPTS
from controlplane.services import Services
from controlplane.settings import RateLimits
from tests.api.factories import PASSWORD, logged_in

SETTINGS = "/api/client/settings"
ROOMS = "/api/client/network/partys"


@pytest.fixture
def settings_overrides() -> dict[str, Any]:
    return {"rate_limits": RateLimits()}  # the shipped limits: five wrong current passwords an hour


async def test_the_settings_throttle_answers_a_status_the_document_lists(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    headers = await logged_in(services, client)
    for n in range(RateLimits().password_checks_per_session.attempts):
        guess = {"old_password": f"adivinanza-{n}", "new_password": "clave-nueva-2026"}
        assert (await client.patch(SETTINGS, json=guess, headers=headers)).status_code == 422
    refused = await client.patch(
        SETTINGS, json={"old_password": PASSWORD, "new_password": "clave-nueva-2026"}, headers=headers
    )
    await documented_429(client, SETTINGS, "patch", refused)


async def test_guessing_room_passwords_is_refused_with_a_status_the_document_lists(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    headers = await logged_in(services, client, alias="Adivino")
    guess = {"operation": "join", "name": "Sala de otro", "password": "adivinanza", "peer": "p"}
    for _ in range(JOIN_ATTEMPTS.attempts):
        assert (await client.patch(ROOMS, json=guess, headers=headers)).status_code == 404
    await documented_429(client, ROOMS, "patch", await client.patch(ROOMS, json=guess, headers=headers))


async def documented_429(client: AsyncTestClient[Any], path: str, method: str, refused: Any) -> None:
    """`refused` is a 429 with `Retry-After`, and the served document lists 429 for the operation with the error body
    it has (also used by tests/api/test_payments.py for purchases)."""
    assert refused.status_code == 429, refused.text
    assert "retry-after" in refused.headers
    document = (await client.get("/api/schema/openapi.json")).json()
    responses = document["paths"][path][method]["responses"]
    assert "429" in responses, sorted(responses)
    assert responses["429"]["description"] == "Demasiados intentos; ver `Retry-After`"
    body_schema = responses["429"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    required = document["components"]["schemas"][body_schema]["required"]
    assert set(required) <= set(refused.json())
    assert refused.json()["code"] == "too_many_requests"
