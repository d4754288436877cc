"""Hostile input never gets a 500: deeply nested JSON, bodies that are not UTF-8, NUL in the path. Each answers
400 or 422 with the error shape and a Spanish message, and nothing is written (docs/security.md)."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.domain.accounts.models import Role
from controlplane.services import Services
from tests.api.factories import PASSWORD, bearer, login, make_user

BODY_ROUTES = [
    ("POST", "/api/client/login"),
    ("PUT", "/api/client/register"),
    ("POST", "/api/client/password-recovery"),
    ("POST", "/api/refresh-token"),
    ("POST", "/api/logout"),
    ("POST", "/api/admin/login"),
]
DEEP = b"[" * 10_000 + b"]" * 10_000
DEEP_OBJECT = b'{"a":' * 10_000 + b"1" + b"}" * 10_000
NOT_UTF8 = b'{"username": "\xff\xfe\xfa", "password": "\xc3\x28"}'


def assert_refused_in_spanish(answer: Any) -> None:
    assert answer.status_code in (400, 422), (answer.status_code, answer.text)
    body = answer.json()
    assert set(body) <= {"message", "code", "fields"} and body["code"], body
    assert body["message"].endswith(".") and "Traceback" not in answer.text
    # Spanish: the JSON message, or the field the strict decoder stopped at.
    assert any(word in body["message"] for word in ("JSON válido", "campo", "inválid")), body["message"]


@pytest.mark.parametrize(("method", "path"), BODY_ROUTES)
@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT, NOT_UTF8], ids=["deep-array", "deep-object", "not-utf8"])
async def test_a_hostile_body_is_refused_with_the_error_shape(
    client: AsyncTestClient[Any], method: str, path: str, body: bytes
) -> None:
    answer = await client.request(method, path, content=body, headers={"Content-Type": "application/json"})
    assert_refused_in_spanish(answer)


async def test_a_deep_body_on_an_authenticated_route_is_refused(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    await make_user(services, "ana")
    headers = {**bearer(await login(client, "ana")), "Content-Type": "application/json"}
    for body in (DEEP_OBJECT, NOT_UTF8):
        assert_refused_in_spanish(await client.patch("/api/client/settings", content=body, headers=headers))
    settings = await client.get("/api/client/settings", headers=headers)
    assert settings.status_code == 200 and settings.json()["username"] == "ana"


@pytest.mark.parametrize("path", ["/%00", "/api/%00", "/api/client/accounts/peers/%00", "/mirror/%00", "/%ff"])
async def test_a_nul_or_broken_byte_in_the_path_is_not_a_crash(client: AsyncTestClient[Any], path: str) -> None:
    answer = await client.get(path)
    assert answer.status_code < 500, (answer.status_code, answer.text)
    if answer.headers["content-type"].startswith("application/json"):
        body = answer.json()
        assert set(body) <= {"message", "code", "fields"} and body["message"].endswith("."), body
    if path == "/%00":
        assert body == {"message": "La ruta de la solicitud no es válida.", "code": "invalid_path"}


async def test_booleans_are_strict_a_zero_does_not_switch_a_gateway_off(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """Litestar read `0` as `false` and `"true"` as `true`; the contract says booleans are JSON booleans."""
    await make_user(services, "jefa", role=Role.ADMIN)
    staff = bearer(await login(client, "jefa", admin=True))
    assert (await client.patch("/api/admin/switches", json={"allow_payments_qvapay": True}, headers=staff)).is_success
    for lenient in (0, "false"):
        answer = await client.patch("/api/admin/switches", json={"allow_payments_qvapay": lenient}, headers=staff)
        assert answer.status_code == 422, (lenient, answer.text)
        assert answer.json().get("fields") == {"allow_payments_qvapay": "Debe ser verdadero o falso."}, answer.text
    switches = (await client.get("/api/client")).json()
    assert switches["allow_payments_qvapay"] is True
    remember = await client.post("/api/client/login", json={"username": "jefa", "password": PASSWORD, "remember": 1})
    assert remember.status_code == 422 and "remember" in remember.json()["fields"]
