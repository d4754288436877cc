"""Customer A's object ids in the BODY of customer B's requests, against the real control plane (the suite's
subprocess): a purchase extending A's peer, a room created with A's peer, A's peer joined to a room (A's own, with
its right name and password, or B's), A's peer taken out of B's room. test_cross_user.py puts A's ids in paths and
sends `{}` bodies; here the id travels where the handler reads it from the body.

Each probe must answer exactly what the same request with an id that exists nowhere answers (404 `..._not_found`
or 422), so the answer neither confirms that A's object exists nor carries any of A's data; and afterwards A's
peers, rooms and settings, B's own views and the invoices on record are as they were (docs/security.md,
"adversarial")."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.adversarial.conftest import Customer, Deployment
from tests.adversarial.test_cross_user import assert_nothing_of, own_view
from tests.api.factories import PASSWORD

INVOICES = "/api/client/invoices"
ROOMS = "/api/client/network/partys"


def admin(deployment: Deployment) -> httpx.Client:
    """A fresh admin session (the suite's own token may be near its 15 minutes)."""
    answer = httpx.post(
        f"{deployment.url}/api/admin/login", json={"username": "jefa", "password": PASSWORD}, timeout=30
    )
    assert answer.status_code == 200, answer.text
    headers = {"Authorization": f"Bearer {answer.json()['access']}"}
    return httpx.Client(base_url=deployment.url, timeout=30, headers=headers)


@pytest.fixture
def payments_on(deployment: Deployment) -> Iterator[None]:
    """QvaPay switched on for the probes (a purchase is refused before any peer is read while no gateway is on),
    switched back afterwards. Its credentials are not set: a purchase that got past every check answers 502
    `gateway_not_configured` and records nothing."""
    with admin(deployment) as http:
        before = http.get("/api/admin/switches").json()["allow_payments_qvapay"]
        assert http.patch("/api/admin/switches", json={"allow_payments_qvapay": True}).status_code == 200
        try:
            yield
        finally:
            assert http.patch("/api/admin/switches", json={"allow_payments_qvapay": before}).status_code == 200


def probes(a: Customer, b: Customer, plan_id: str) -> list[tuple[str, str, dict[str, Any], str]]:
    """(method, path, body, the body field holding A's id) of B's requests."""
    return [
        ("PUT", INVOICES, {"mode": "add_plan", "plan": plan_id, "peer": a.peer_ids[0]}, "peer"),
        ("PUT", INVOICES, {"operation": "add_plan", "plan": plan_id, "peer": a.peer_ids[1]}, "peer"),
        ("POST", ROOMS, {"name": "sala-con-peer-ajeno", "peer": a.peer_ids[1]}, "peer"),
        ("POST", ROOMS, {"name": "sala-con-peer-ajeno", "peer": a.peer_ids[0]}, "peer"),
        # A's own room, its right name and password (a guest joins so), with A's free peer: B must not place it.
        (
            "PATCH",
            ROOMS,
            {"operation": "join", "name": a.room_name, "password": a.room_password, "peer": a.peer_ids[1]},
            "peer",
        ),
        (
            "PATCH",
            ROOMS,
            {"operation": "join", "name": b.room_name, "password": b.room_password, "peer": a.peer_ids[1]},
            "peer",
        ),
        ("PATCH", f"{ROOMS}/{b.room_id}", {"operation": "leave", "peer": a.peer_ids[0]}, "peer"),
        ("PATCH", f"{ROOMS}/{b.room_id}", {"operation": "remove_peer", "peer": a.peer_ids[0]}, "peer"),
    ]


def invoices_on_record(deployment: Deployment) -> int:
    with admin(deployment) as http:
        answer = http.get("/api/admin/invoices", params={"page_size": 200})
    assert answer.status_code == 200, answer.text
    return int(answer.json()["total"])


def test_customer_as_ids_in_customer_bs_bodies_are_unknown_objects(deployment: Deployment, payments_on: None) -> None:
    a, b = deployment.a, deployment.b
    plans = httpx.get(f"{deployment.url}/api/client/plans", timeout=30).json()
    plan_id = plans[0]["id"]
    # The probes reach the ownership check: B's purchase for B's own peer gets past it (to the unset gateway).
    own = httpx.put(
        f"{deployment.url}{INVOICES}",
        json={"mode": "add_plan", "plan": plan_id, "peer": b.peer_ids[0]},
        headers=b.headers,
        timeout=30,
    )
    assert own.status_code == 502 and own.json()["code"] == "gateway_not_configured", own.text

    a_before, b_before, invoices_before = (
        own_view(deployment, a),
        own_view(deployment, b),
        invoices_on_record(deployment),
    )
    for method, path, body, field in probes(a, b, plan_id):
        what = f"{method} {path} as {b.username} with {field}={body[field]} of {a.username}"
        answer = httpx.request(method, f"{deployment.url}{path}", json=body, headers=b.headers, timeout=30)
        unknown = httpx.request(
            method, f"{deployment.url}{path}", json={**body, field: uuid.uuid4().hex}, headers=b.headers, timeout=30
        )
        assert answer.status_code in (404, 422), f"{what}: {answer.status_code} {answer.text[:300]}"
        if answer.status_code == 404:
            assert answer.json()["code"].endswith("not_found"), f"{what}: {answer.text[:300]}"
        # Word for word what an id that exists nowhere answers: nothing tells B that A's object is there.
        assert (answer.status_code, answer.json()) == (unknown.status_code, unknown.json()), what
        assert_nothing_of(a, answer, what)

    assert own_view(deployment, a) == a_before  # A's peers, rooms and settings untouched
    b_after = own_view(deployment, b)
    assert b_after == b_before  # B gained nothing: no room with A's peer, no guest of A's
    for view in b_after:
        for secret in (*a.peer_ids, *a.public_keys, a.alias, a.room_id):
            assert secret not in view
    assert invoices_on_record(deployment) == invoices_before  # no purchase opened for A's peer
