"""The manager roles, endpoint by endpoint: anonymous 401, customer 403, support only where docs/api.md says,
admin everywhere; every successful write leaves one audit entry naming who, what and from where."""

from __future__ import annotations

import re
from typing import Any

import pytest
from litestar.routes import HTTPRoute
from litestar.testing import AsyncTestClient

from controlplane.app import create_app
from controlplane.domain.accounts.guards import ROLE_GUARDS, admin_only, admin_or_support
from controlplane.services import Services
from tests.api.manager.world import audit_count, build_world, last_audit

# (method, path, body, support may call it). Paths name the world's objects in braces.
ENDPOINTS: list[tuple[str, str, dict[str, Any] | None, bool]] = [
    ("GET", "/api/admin/verify-token", None, True),
    ("GET", "/api/admin/overview", None, True),
    ("GET", "/api/admin/audit", None, True),
    ("GET", "/api/admin/switches", None, True),
    ("PATCH", "/api/admin/switches", {"maintenance": True}, False),
    ("GET", "/api/admin/users", None, True),
    ("GET", "/api/admin/users/{user}", None, True),
    ("PATCH", "/api/admin/users/{user}", {"blocked": True}, True),
    ("POST", "/api/admin/users/{user}/password-reset", None, True),
    ("POST", "/api/admin/users/{unverified}/verification", None, True),
    ("DELETE", "/api/admin/users/{user}", None, False),
    ("GET", "/api/admin/servers", None, True),
    ("GET", "/api/admin/servers/{server}", None, True),
    ("POST", "/api/admin/servers", {"name": "Nuevo", "address": "n.vpn.test", "tunnel_subnet": "10.50.0.0/24"}, False),
    ("PATCH", "/api/admin/servers/{server}", {"ubication": "Miami, FL"}, False),
    ("POST", "/api/admin/servers/{server}/credential", None, False),
    ("DELETE", "/api/admin/servers/{server}/credential", None, False),
    ("GET", "/api/admin/peers", None, True),
    ("POST", "/api/admin/peers", {"username": "ana", "name": "tablet"}, False),
    ("PATCH", "/api/admin/peers/{peer}", {"manual_payment": True}, False),
    ("POST", "/api/admin/peers/{peer}/move", {"server": "{other_server}"}, True),
    ("POST", "/api/admin/peers/{peer}/plans", {"plan": "{plan}"}, False),
    ("GET", "/api/admin/plans", None, True),
    ("POST", "/api/admin/plans", {"name": "Anual", "validity_hours": 8760, "price": "40"}, False),
    ("PATCH", "/api/admin/plans/{plan}", {"visible": False}, False),
    ("GET", "/api/admin/announcements", None, True),
    ("POST", "/api/admin/announcements", {"name": "Aviso", "message": "Mantenimiento el lunes"}, False),
    ("PATCH", "/api/admin/announcements/{announcement}", {"visible": False}, False),
    ("DELETE", "/api/admin/announcements/{announcement}", None, False),
    ("GET", "/api/admin/client-releases", None, True),
    ("POST", "/api/admin/client-releases", {"version": "1.1.0", "url": "https://example.test/1.1.apk"}, False),
    ("DELETE", "/api/admin/client-releases/{release}", None, False),
    ("GET", "/api/admin/invoices", None, True),
    ("GET", "/api/admin/invoices/{invoice}", None, True),
    ("POST", "/api/admin/invoices/{invoice}/manual-payment", {"note": "transferencia 42"}, False),
]


def _fill(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**ids)
    if isinstance(value, dict):
        return {k: _fill(v, ids) for k, v in value.items()}
    return value


async def _call(client: AsyncTestClient[Any], method: str, path: str, body: Any, headers: dict[str, str]) -> Any:
    kwargs: dict[str, Any] = {"headers": headers}
    if body is not None:
        kwargs["json"] = body
    return await client.request(method, path, **kwargs)


@pytest.mark.parametrize(
    ("method", "path", "body", "support_ok"), ENDPOINTS, ids=[f"{m} {p}" for m, p, *_ in ENDPOINTS]
)
async def test_role_matrix(
    services: Services, client: AsyncTestClient[Any], method: str, path: str, body: Any, support_ok: bool
) -> None:
    world = await build_world(services, client)
    path, body = _fill(path, world.ids), _fill(body, world.ids)
    write = method != "GET"

    anonymous = await _call(client, method, path, body, {})
    assert anonymous.status_code == 401, anonymous.text
    assert anonymous.json()["code"] == "missing_token"

    customer = await _call(client, method, path, body, world.customer)
    assert customer.status_code == 403, customer.text
    assert customer.json() == {"message": "Esta sección es solo para el personal.", "code": "staff_only"}

    before = await audit_count(services)
    support = await _call(client, method, path, body, world.support)
    if support_ok:
        assert support.status_code < 300, support.text
        if write:
            assert await audit_count(services) == before + 1
            entry = await last_audit(services)
            assert entry.actor_username == "ayuda" and entry.actor_role == "support"
            return  # the admin case of the same write is the same code path, checked below for admin-only ones
    else:
        assert support.status_code == 403, support.text
        assert support.json() == {"message": "Solo un administrador puede hacer esto.", "code": "admin_only"}
        assert await audit_count(services) == before  # refused before anything was written

    admin = await _call(client, method, path, body, world.admin)
    assert admin.status_code < 300, admin.text
    if write:
        assert await audit_count(services) == before + 1
        entry = await last_audit(services)
        assert entry.actor_username == "jefa" and entry.actor_role == "admin"
        assert entry.ip_address == "testclient"
        assert entry.action and entry.summary


def test_every_admin_endpoint_is_in_the_matrix(services: Services) -> None:
    """A new admin endpoint without a row here fails this test, so nobody ships one with unchecked roles."""
    app = create_app(services=services)
    listed = {(m, p.split("{")[0].rstrip("/")) for m, p, *_ in ENDPOINTS}
    found = set()
    for route in app.routes:
        if not route.path.startswith("/api/admin") or route.path == "/api/admin/login":
            continue
        for method in getattr(route, "methods", ()):
            if method in {"HEAD", "OPTIONS"}:
                continue
            found.add((method, route.path.split("{")[0].rstrip("/")))
    assert found <= listed, sorted(found - listed)


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path).rstrip("/")


def test_every_admin_route_declares_its_role_with_one_guard(services: Services) -> None:
    """Who may call an admin route is said on the route: exactly one role guard, the one the matrix expects (a
    route without one fails here, and its `staff` would answer 500)."""
    app = create_app(services=services)
    support_may = {(m, _shape(p)): support for m, p, _, support in ENDPOINTS}
    checked = 0
    for route in app.routes:
        if not isinstance(route, HTTPRoute) or not route.path.startswith("/api/admin"):
            continue
        if route.path == "/api/admin/login":
            continue
        for handler in route.route_handlers:
            for method in sorted(handler.http_methods - {"HEAD", "OPTIONS"}):
                roles = [guard for guard in handler.resolve_guards() if guard in ROLE_GUARDS]
                expected = admin_or_support if support_may[(method, _shape(route.path))] else admin_only
                assert roles == [expected], f"{method} {route.path}: {[g.__name__ for g in roles]}"
                checked += 1
    assert checked == len(ENDPOINTS)
