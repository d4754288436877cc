"""The fake Remesita held to the independent clients found (none is installable from a registry, so their calls are
replayed here as their source writes them; docs/payments.md): Remesita's PHP payment client and the TypeScript SDK
authenticate with `{api_key, api_secret}`, read `accessToken`, send `Authorization: Bearer <token>` and the amount
as a JSON number, and read `link` from the payment-link answer."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.fakes.remesita import API_KEY, API_SECRET, BUSINESS_UNIT, FakeRemesita


@pytest.fixture
def fake() -> Iterator[FakeRemesita]:
    with FakeRemesita() as server:
        yield server  # type: ignore[misc]


@pytest.mark.parametrize("authorization", ["Bearer {}", "{}"])  # the clients' form, the WooCommerce plugin's
def test_a_payment_link_made_as_the_independent_clients_make_it(fake: FakeRemesita, authorization: str) -> None:
    auth = httpx.post(f"{fake.base_url}/auth", json={"api_key": API_KEY, "api_secret": API_SECRET})
    assert auth.status_code == 200
    token = auth.json()["accessToken"]
    assert isinstance(token, str) and token and isinstance(auth.json()["user"], dict)
    body = {"businessUnitId": BUSINESS_UNIT, "amount": 5.0, "concept": "Plan Mensual", "customId": "factura-1"}
    made = httpx.post(
        f"{fake.base_url}/payment-link", json=body, headers={"Authorization": authorization.format(token)}
    )
    assert made.status_code == 200
    assert made.json()["link"].startswith(f"{fake.url}/pay/")
    assert fake.by_custom_id("factura-1")["amount"] == "5.00"


def test_a_wrong_token_is_refused_in_either_form(fake: FakeRemesita) -> None:
    for authorization in ("Bearer adivinado", "adivinado", ""):
        answer = httpx.post(f"{fake.base_url}/payment-link", json={}, headers={"Authorization": authorization})
        assert answer.status_code == 401
