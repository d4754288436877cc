"""Every route of the OpenAPI document, probed against the real control plane (a subprocess) with every identity
that must not get through: customer B with customer A's object ids, customers on staff routes, support on
admin-only routes, nobody on protected routes. Nothing of A's may reach B; another customer's object answers 404
(never 403, which would confirm it exists); a wrong role answers 401/403 (docs/security.md, "adversarial suite")."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.adversarial.conftest import Customer, Deployment, document
from tests.api.test_authorization_matrix import MATRIX

# Calls that end the caller's own session or account: B's probes would lose B's token (not a leak either way).
SELF_ENDING = {("POST", "/api/logout"), ("DELETE", "/api/client/settings")}
# Gateways and the mirror link are public by design (a signature, a secret URL or the token itself decide).
PUBLIC_BY_SECRET = ("/api/payments/", "/mirror/")
# A valid body for the object routes, so the answer is about the object (404), not about the body (422).
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("PATCH", "/api/client/accounts/peers/{peer_id}"): {"operation": "regenerate_token"},
    ("PATCH", "/api/client/network/partys/{room_id}"): {"operation": "regenerate_password"},
}


def operations(url: str) -> list[tuple[str, str, dict[str, Any]]]:
    found = []
    for path, item in document(url)["paths"].items():
        for method, operation in item.items():
            if method in {"get", "post", "put", "patch", "delete"}:
                found.append((method.upper(), path, operation))
    return found


def fill(path: str, owner: Customer, server_id: str) -> str:
    """The path with the OWNER's objects (a shared server where the path names one)."""
    values = {
        "peer_id": owner.peer_ids[0],
        "room_id": owner.room_id,
        "remote_id": owner.invoice_remote_id,
        "user_id": owner.user_id,
        "invoice_id": owner.invoice_id,
        "token": owner.mirror_tokens[0],
        "server_id": server_id,
    }
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), "desconocido"), path)


def call(deployment: Deployment, method: str, path: str, template: str, headers: dict[str, str]) -> httpx.Response:
    body = BODIES.get((method, template), {}) if method in {"POST", "PUT", "PATCH"} else None
    return httpx.request(method, f"{deployment.url}{path}", json=body, headers=headers, timeout=30)


def assert_nothing_of(owner: Customer, answer: httpx.Response, what: str) -> None:
    for secret in owner.secrets():
        assert secret not in answer.text, f"{what}: {secret!r} of {owner.username} in {answer.text[:300]}"


def own_view(deployment: Deployment, customer: Customer) -> list[Any]:
    """What the customer sees of their own things, without the read-time stamps."""
    views = []
    for path in ("/api/client/accounts/peers", "/api/client/network/partys", "/api/client/settings"):
        answer = httpx.get(f"{deployment.url}{path}", headers=customer.headers, timeout=30)
        assert answer.status_code == 200, answer.text
        views.append(re.sub(r'"version":\d+', "", answer.text))
    return views


@pytest.fixture(scope="module")
def probed(deployment: Deployment) -> list[tuple[str, str, dict[str, Any]]]:
    ops = operations(deployment.url)
    assert len(ops) > 40  # the whole API, read from the running server's own document
    return ops


def test_customer_b_gets_nothing_of_customer_a(deployment: Deployment, probed: list[Any]) -> None:
    a, b = deployment.a, deployment.b
    before = own_view(deployment, a)
    tried = 0
    for method, template, _ in probed:
        if not template.startswith("/api/client") or (method, template) in SELF_ENDING:
            continue
        path = fill(template, a, deployment.server_id)
        answer = call(deployment, method, path, template, b.headers)
        what = f"{method} {path} as {b.username}"
        assert answer.status_code < 500, f"{what}: {answer.status_code} {answer.text[:300]}"
        assert_nothing_of(a, answer, what)
        if "{" in template:
            # One of A's objects in the path: exactly what a missing one answers.
            assert answer.status_code == 404, f"{what}: {answer.status_code} {answer.text[:300]}"
            assert answer.json()["code"].endswith("not_found"), what
        tried += 1
    assert tried >= 15
    assert own_view(deployment, a) == before  # and nothing of A's changed


def test_customers_are_refused_on_every_staff_route(deployment: Deployment, probed: list[Any]) -> None:
    for method, template, _ in probed:
        if not template.startswith("/api/admin") or template == "/api/admin/login":
            continue
        path = fill(template, deployment.a, deployment.server_id)
        for customer in (deployment.a, deployment.b):
            answer = call(deployment, method, path, template, customer.headers)
            what = f"{method} {path} as {customer.username}"
            assert answer.status_code == 403, f"{what}: {answer.status_code} {answer.text[:300]}"
            assert_nothing_of(deployment.a if customer is deployment.b else deployment.b, answer, what)


def test_staff_tokens_are_refused_on_the_customer_area(deployment: Deployment, probed: list[Any]) -> None:
    for method, template, operation in probed:
        if not template.startswith("/api/client") or not operation.get("security"):
            continue
        path = fill(template, deployment.a, deployment.server_id)
        for name, headers in (("support", deployment.support), ("admin", deployment.admin)):
            answer = call(deployment, method, path, template, headers)
            assert answer.status_code == 403, f"{method} {path} as {name}: {answer.status_code} {answer.text[:200]}"


def test_support_is_refused_where_only_admins_may_act(deployment: Deployment, probed: list[Any]) -> None:
    checked = 0
    for method, template, _ in probed:
        rule = MATRIX.get((method, template))
        if not template.startswith("/api/admin") or rule is None or template == "/api/admin/login":
            continue
        path = fill(template, deployment.a, deployment.server_id)
        if rule.support == 403:
            answer = call(deployment, method, path, template, deployment.support)
            assert answer.status_code == 403, f"{method} {path} as support: {answer.status_code} {answer.text[:200]}"
            checked += 1
        elif method == "GET":  # what support may read, support reads
            answer = call(deployment, method, path, template, deployment.support)
            assert answer.status_code not in (401, 403), f"{method} {path} as support: {answer.status_code}"
    assert checked >= 10


def test_nobody_without_a_session_gets_through(deployment: Deployment, probed: list[Any]) -> None:
    protected = 0
    for method, template, operation in probed:
        if template.startswith(PUBLIC_BY_SECRET):
            continue
        path = fill(template, deployment.a, deployment.server_id)
        answer = call(deployment, method, path, template, {})
        what = f"{method} {path} without a session"
        assert answer.status_code < 500, f"{what}: {answer.status_code}"
        assert_nothing_of(deployment.a, answer, what)
        if operation.get("security"):
            assert answer.status_code == 401, f"{what}: {answer.status_code} {answer.text[:200]}"
            protected += 1
    assert protected >= 30
