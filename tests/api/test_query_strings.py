"""Query strings are read strictly on documented routes: an undeclared parameter, a repeated one, a value not written
as its type, or one out of its range answers 422 in Spanish, with the error shape, and does nothing. What the web
client sends goes through, and the routes third parties call with their own parameters stay lenient
(controlplane/query_params.py, docs/api.md "Query strings")."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from controlplane.domain.accounts.models import Role
from controlplane.field_names import FIELD_NAMES
from controlplane.services import Services
from tests.api.factories import bearer, logged_in, login, make_user


@pytest.fixture
async def admin(services: Services, client: AsyncTestClient[Any]) -> dict[str, str]:
    await make_user(services, "jefa", role=Role.ADMIN)
    return bearer(await login(client, "jefa", admin=True))


def assert_refused(answer: Any, parameter: str) -> None:
    assert answer.status_code == 422, (answer.status_code, answer.text)
    body = answer.json()
    assert body["code"] == "invalid" and set(body) == {"message", "code", "fields"}, body
    # Named as the manager's forms name it ("Tamaño de página: ..."), or quoted when it is no field of ours.
    named = body["message"].startswith(f"{FIELD_NAMES[parameter]}: ") if parameter in FIELD_NAMES else False
    assert named or f"'{parameter}'" in body["message"], body
    assert body["message"].endswith(".") and parameter in body["fields"], body


@pytest.mark.parametrize(
    ("path", "params", "parameter"),
    [
        ("/api/admin/users", {"pagesize": "50"}, "pagesize"),  # a typo, ignored before: the default 25 came back
        ("/api/admin/users", {"page_size": "201"}, "page_size"),
        ("/api/admin/users", {"page_size": "0"}, "page_size"),
        ("/api/admin/users", {"page": "1.5"}, "page"),
        ("/api/admin/users", {"blocked": "1"}, "blocked"),  # read as true before
        ("/api/admin/peers", {"active": "yes"}, "active"),
        ("/api/admin/audit", {"until": "0.5"}, "until"),  # read as a Unix timestamp before
        ("/api/admin/invoices", {"q": "x" * 101}, "q"),
        ("/api/admin/overview", {"period": "siglo"}, "period"),
    ],
)
async def test_a_bad_query_string_is_refused_in_spanish(
    client: AsyncTestClient[Any], admin: dict[str, str], path: str, params: dict[str, str], parameter: str
) -> None:
    assert_refused(await client.get(path, params=params, headers=admin), parameter)


async def test_a_repeated_parameter_is_refused(client: AsyncTestClient[Any], admin: dict[str, str]) -> None:
    assert_refused(await client.get("/api/admin/users?page=1&page=2", headers=admin), "page")


async def test_routes_without_parameters_refuse_any(services: Services, client: AsyncTestClient[Any]) -> None:
    customer = await logged_in(services, client)
    assert_refused(await client.get("/api/client/accounts/peers", params={"_": "123"}, headers=customer), "_")
    # Nothing is done either: a refused change leaves the settings as they were.
    answer = await client.patch("/api/client/settings?x=1", json={"alias": "Nuevo Alias"}, headers=customer)
    assert_refused(answer, "x")
    assert (await client.get("/api/client/settings", headers=customer)).json()["alias"] is None


async def test_what_the_manager_sends_is_accepted(client: AsyncTestClient[Any], admin: dict[str, str]) -> None:
    """The manager pages' query strings (webui/src/features/manager/api/manager.ts, `query()`)."""
    for path, params in [
        ("/api/admin/users", {"q": "ana", "blocked": "true", "page": "2"}),
        ("/api/admin/users", {"page_size": "200", "role": "customer"}),
        ("/api/admin/peers", {"q": "movil", "server": "x", "active": "false", "page": "1"}),
        ("/api/admin/invoices", {"q": "x", "status": "paid", "gateway": "qvapay", "user": "u", "page": "1"}),
        ("/api/admin/audit", {"q": "x", "action": "user.block", "actor": "jefa", "since": "2026-01-01T00:00:00Z"}),
    ]:
        answer = await client.get(path, params=params, headers=admin)
        assert answer.status_code == 200, (path, answer.text)


async def test_third_party_routes_keep_their_own_parameters(client: AsyncTestClient[Any]) -> None:
    """A gateway's return link with its own parameters, and the mirror link with a cache-buster: not refused for
    them (the return is answered with the client's payment page, the unknown mirror token with 404)."""
    back = await client.get("/api/payments/return/nada", params={"status": "success", "ref": "x"})
    assert back.status_code != 422, back.text
    mirror = await client.get("/mirror/no-existe", params={"v": "2"})
    assert mirror.status_code == 404 and mirror.json()["code"] == "mirror_not_found"


async def test_the_document_says_the_ranges(client: AsyncTestClient[Any]) -> None:
    document = (await client.get("/api/schema/openapi.json")).json()
    [page_size] = [p for p in document["paths"]["/api/admin/users"]["get"]["parameters"] if p["name"] == "page_size"]
    assert page_size["schema"]["maximum"] == 200 and page_size["schema"]["minimum"] == 1
    assert "422" in document["paths"]["/api/client/accounts/peers"]["get"]["responses"]
