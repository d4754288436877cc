"""The fake QvaPay held to an independent client: qvapaykit (PyPI), whose authors report testing it against the live
v2 API. It drives the fake through every call the control plane makes, and each answer must parse into its models;
its refusals must map to the SDK's own errors. A test-only dependency (pyproject's dev group)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import httpx
import pydantic
import pytest
from qvapaykit import QvaPayClient
from qvapaykit.exceptions import (
    QvaPayAuthError,
    QvaPayDuplicateRequestError,
    QvaPayNotFoundError,
    QvaPayValidationError,
)
from qvapaykit.http import raise_api_error
from qvapaykit.models import Invoice, Product, TransactionStatus
from qvapaykit.webhooks import parse_webhook

from tests.fakes.qvapay import APP_ID, APP_SECRET, FakeQvaPay

WEBHOOK = "http://127.0.0.1:9/api/payments/qvapay/webhook"


@pytest.fixture
def fake() -> Iterator[FakeQvaPay]:
    with FakeQvaPay() as server:
        yield server  # type: ignore[misc]


@pytest.fixture
def sdk(fake: FakeQvaPay) -> Iterator[QvaPayClient]:
    # The SDK adds /v2 itself; no retries, so a refusal is seen at once.
    with QvaPayClient(APP_ID, APP_SECRET, base_url=fake.url, max_retries=0) as client:
        yield client


def create(sdk: QvaPayClient, remote_id: str, amount: str = "5.00") -> Invoice:
    return sdk.create_invoice(
        amount=Decimal(amount),
        description="VPN: plan Mensual",
        remote_id=remote_id,
        products=[Product(name="Plan Mensual", price=Decimal(amount), quantity=1)],
        webhook=WEBHOOK,
    )


def test_an_invoice_made_through_the_sdk_parses_and_is_read_back(fake: FakeQvaPay, sdk: QvaPayClient) -> None:
    invoice = sdk.create_invoice(
        amount=Decimal("4.99"),
        description="VPN: plan Mensual",
        remote_id="factura-sdk-1",
        products=[Product(name="Plan Mensual", price=Decimal("4.99"), quantity=1)],
        webhook=WEBHOOK,
    )
    held = fake.by_remote_id("factura-sdk-1")
    assert invoice.transaction_uuid == held["uuid"]
    assert invoice.amount == Decimal("4.99") and invoice.url.startswith(f"{fake.url}/pay/")

    detail = sdk.transaction_detail(invoice.transaction_uuid)
    assert (detail.remote_id, detail.amount, detail.status) == ("factura-sdk-1", Decimal("4.99"), "pending")
    assert detail.products and detail.products[0].price == Decimal("4.99")
    fake.pay(invoice.transaction_uuid)
    assert sdk.transaction_detail(invoice.transaction_uuid).is_paid
    fake.cancel(invoice.transaction_uuid)
    assert sdk.transaction_detail(invoice.transaction_uuid).status is TransactionStatus.CANCELLED

    [listed] = sdk.transactions(page=1, take=100)
    assert listed.uuid == invoice.transaction_uuid


def test_a_repeated_remote_id_is_answered_as_the_sdk_expects_and_recovered(fake: FakeQvaPay, sdk: QvaPayClient) -> None:
    first = create(sdk, "factura-sdk-2")
    # The SDK meets DUPLICATE_REQUEST and recovers by reading the transactions back, as the control plane does.
    again = create(sdk, "factura-sdk-2")
    assert again.transaction_uuid == first.transaction_uuid
    assert [i["remote_id"] for i in fake.invoices.values()] == ["factura-sdk-2"]
    assert ("POST", "/v2/transactions") in fake.calls


def test_the_webhook_parses_signed_or_unsigned(fake: FakeQvaPay, sdk: QvaPayClient) -> None:
    invoice = create(sdk, "factura-sdk-3")
    transaction = invoice.transaction_uuid
    _, signed_body, signed_headers = fake.notification(transaction)
    _, unsigned_body, unsigned_headers = fake.notification(transaction, signed=False)
    assert "X-QvaPay-Signature" in signed_headers and "X-QvaPay-Signature" not in unsigned_headers
    for body in (signed_body, unsigned_body):
        event = parse_webhook(body)
        assert (event.transaction_uuid, event.remote_id) == (transaction, "factura-sdk-3")


def test_the_fakes_refusals_are_the_sdks_errors(fake: FakeQvaPay, sdk: QvaPayClient) -> None:
    with QvaPayClient(APP_ID, "otro-secreto", base_url=fake.url, max_retries=0) as stranger:
        with pytest.raises(QvaPayAuthError):
            stranger.transactions()
    with pytest.raises(QvaPayNotFoundError):
        sdk.transaction_detail("00000000-0000-4000-8000-000000000000")
    # Without products (the SDK itself will not send that): 400, a validation error, not a duplicate.
    headers = {"app-id": APP_ID, "app-secret": APP_SECRET}
    body = {"amount": 5, "description": "VPN", "remote_id": "factura-sdk-4"}
    answer = httpx.post(f"{fake.base_url}/create_invoice", json=body, headers=headers)
    with pytest.raises(QvaPayValidationError) as refused:
        raise_api_error(answer)
    assert not isinstance(refused.value, QvaPayDuplicateRequestError)


def test_a_legacy_only_answer_is_what_the_sdk_cannot_parse(fake: FakeQvaPay, sdk: QvaPayClient) -> None:
    """Why the fake answers both spellings by default: the legacy `transation_uuid` alone breaks the SDK (and the
    control plane reads either: tests/api/test_payments.py)."""
    fake.spellings = ("transation_uuid",)
    with pytest.raises(pydantic.ValidationError):
        create(sdk, "factura-sdk-5")
    assert fake.by_remote_id("factura-sdk-5")["status"] == "pending"  # made all the same
