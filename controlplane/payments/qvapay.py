"""QvaPay's merchant API (v2): invoices, webhooks (signed, or unsigned hints), transactions read back.

Sources disagree on several points (docs/payments.md lists who says what); this client accepts every form seen:
both spellings of the transaction id, a repeated `remote_id` answered `DUPLICATE_REQUEST` (recovered by reading the
app's transactions back), and webhooks with or without `X-QvaPay-Signature` (without one it only names what to read
back, and the caller throttles it).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
import uuid
from collections.abc import Mapping
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

import httpx

from controlplane.db import utcnow
from controlplane.payments.base import (
    CreatedPayment,
    Gateway,
    GatewayError,
    GatewayUnavailable,
    Notification,
    PaymentRecord,
    PaymentRequest,
    PaymentStatus,
    RejectedNotification,
    decode_json,
    money,
    plain,
)

# A notification older (or further in the future) than this is a replay and is refused.
MAX_NOTIFICATION_AGE_SECONDS = 300
# An unsigned notification is read only this far (a hint needs a few hundred bytes; a hostile POST gets no parser).
MAX_HINT_BYTES = 65_536
# Our invoices' remote ids: 24 URL-safe characters (random_token); a hint naming anything else is not ours.
_REMOTE_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
# Reading a repeated remote_id back: pages of the app's transactions, newest first, searched this far.
TRANSACTION_PAGES, PAGE_SIZE = 10, 100
DUPLICATE = "DUPLICATE_REQUEST"

_STATUSES = {
    "paid": PaymentStatus.PAID,
    "completed": PaymentStatus.PAID,
    "pending": PaymentStatus.PENDING,
    "cancelled": PaymentStatus.CANCELED,
    "canceled": PaymentStatus.CANCELED,
    "failed": PaymentStatus.FAILED,
}


def canonical_uuid(value: Any) -> str | None:
    """The lower-case, hyphenated form of a UUID, or None. Only this form goes into a URL path: a webhook or an
    answer naming `../charge` must never steer our read-back to another endpoint."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def exact_json(value: Any) -> bytes:
    """JSON where a Decimal is written as a JSON number with its exact digits (`5.00`), never through a float: the
    API wants numbers for `amount` and `price` (qvapaykit), and floats are not money."""

    def encode(item: Any) -> str:
        if isinstance(item, Decimal):
            return format(item, "f")
        if isinstance(item, dict):
            return "{" + ",".join(f"{json.dumps(str(k))}:{encode(v)}" for k, v in item.items()) + "}"
        if isinstance(item, list | tuple):
            return "[" + ",".join(encode(v) for v in item) + "]"
        return json.dumps(item)

    return encode(value).encode()


def signature(secret: str, body: bytes) -> str:
    """The webhook signature: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the app secret."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class QvaPayGateway(Gateway):
    name = "qvapay"
    label = "QvaPay"

    def __init__(
        self, http: httpx.AsyncClient, timeout: float, public_url: str, base_url: str, app_id: str, app_secret: str
    ) -> None:
        super().__init__(http, timeout, public_url)
        self._base = base_url.rstrip("/")
        self._app_id = app_id
        self._app_secret = app_secret

    @property
    def configured(self) -> bool:
        return bool(self._app_id and self._app_secret)

    def notify_url(self, remote_id: str) -> str:
        return f"{self._public_url}/api/payments/qvapay/webhook"

    def _auth(self) -> tuple[dict[str, str], dict[str, str]]:
        # The v2 API reads the credentials from headers (qvapaykit); older clients send them in the body: send both.
        credentials = {"app_id": self._app_id, "app_secret": self._app_secret}
        headers = {"app-id": self._app_id, "app-secret": self._app_secret, "Content-Type": "application/json"}
        return headers, credentials

    async def _post(self, path: str, body: dict[str, Any]) -> Any:
        headers, credentials = self._auth()
        return await self._request(
            "POST", f"{self._base}/{path}", content=exact_json({**credentials, **body}), headers=headers
        )

    def pay_page(self, transaction: str) -> str:
        """The customer's payment page for a transaction whose create answer we never read (a repeated remote_id):
        `https://www.qvapay.com/pay/{uuid}` for the API at api.qvapay.com (qvapaykit), the same host otherwise."""
        parts = urlsplit(self._base)
        host = parts.netloc
        if host.startswith("api."):
            host = "www." + host.removeprefix("api.")
        return f"{parts.scheme}://{host}/pay/{transaction}"

    async def create_payment(self, request: PaymentRequest) -> CreatedPayment:
        body = {
            "amount": request.amount,  # a JSON number with exactly the invoice's digits (exact_json)
            "description": request.description,
            "remote_id": request.remote_id,
            # qvapaykit: the v2 API refuses an invoice without products; the plan is the one product.
            "products": [{"name": request.item or request.description, "price": request.amount, "quantity": 1}],
            "signed": 1,
            "webhook": request.notify_url,
            "success_url": request.success_url,
            "cancel_url": request.cancel_url,
        }
        started = time.monotonic()
        try:
            try:
                answer = await self._post("create_invoice", body)
            except GatewayUnavailable:
                # A quick failure (a reset connection, a proxy's 502) may have lost the answer to an invoice QvaPay
                # did make: try once more while there is time; a repeat is answered DUPLICATE_REQUEST, read back below.
                if time.monotonic() - started > self._timeout / 2:
                    raise
                answer = await self._post("create_invoice", body)
        except GatewayError as exc:
            if exc.code != DUPLICATE:
                raise
            return await self._recover(request)
        if not isinstance(answer, dict):
            raise GatewayError("QvaPay respondió algo inesperado al crear el cobro.")
        url = answer.get("signedUrl") or answer.get("url")
        # The v2 answer says `transaction_uuid` (qvapaykit); older answers spell it `transation_uuid`.
        reference = answer.get("transaction_uuid") or answer.get("transation_uuid") or answer.get("uuid")
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            raise GatewayError("QvaPay no devolvió el enlace de pago.")
        if reference is not None and canonical_uuid(reference) is None:
            raise GatewayError("QvaPay devolvió un identificador de transacción que no es un UUID.")
        return CreatedPayment(payment_url=url, reference=canonical_uuid(reference), raw=plain(answer))

    async def _recover(self, request: PaymentRequest) -> CreatedPayment:
        """QvaPay already holds an invoice with this remote_id (our first try got through, its answer did not):
        find it among the app's transactions and use it, if it is the same sale."""
        transaction = await self._find(request.remote_id)
        if transaction is None:
            raise GatewayError(
                "QvaPay dice que el cobro ya existe (DUPLICATE_REQUEST), pero no aparece entre sus transacciones."
            )
        reference = canonical_uuid(transaction.get("uuid") or transaction.get("transaction_uuid"))
        if reference is None or money(transaction.get("amount")) != request.amount:
            raise GatewayError("QvaPay ya tiene un cobro con este identificador, pero no es el de esta factura.")
        return CreatedPayment(
            payment_url=self.pay_page(reference), reference=reference, raw={"recovered": plain(transaction)}
        )

    async def _find(self, remote_id: str) -> dict[str, Any] | None:
        for page in range(1, TRANSACTION_PAGES + 1):
            answer = await self._post("transactions", {"page": page, "take": PAGE_SIZE})
            items = answer.get("transactions") if isinstance(answer, dict) else None
            if not isinstance(items, list):
                raise GatewayError("QvaPay respondió algo inesperado al leer sus transacciones.")
            for item in items:
                if isinstance(item, dict) and item.get("remote_id") == remote_id:
                    return item
            if len(items) < PAGE_SIZE:
                break
        return None

    def verify_notification(self, body: bytes, headers: Mapping[str, str], path: Mapping[str, str]) -> Notification:
        if not headers.get("x-qvapay-signature"):
            return self._hint(body)
        given = headers.get("x-qvapay-signature", "")
        if not self._app_secret or not hmac.compare_digest(given, signature(self._app_secret, body)):
            raise RejectedNotification("qvapay: bad signature")
        stamp = headers.get("x-qvapay-timestamp")
        if stamp is not None:
            try:
                age = abs(utcnow().timestamp() - int(stamp))
            except ValueError as exc:
                raise RejectedNotification("qvapay: unreadable timestamp") from exc
            if age > MAX_NOTIFICATION_AGE_SECONDS:
                raise RejectedNotification(f"qvapay: stale notification ({int(age)} s old)")
        transaction = _transaction_of(body)
        remote_id = transaction.get("remote_id")
        reference = transaction.get("transaction_uuid") or transaction.get("uuid") or transaction.get("id")
        if not isinstance(remote_id, str) or not remote_id:
            raise RejectedNotification("qvapay: notification without remote_id")
        named = canonical_uuid(reference) or (str(reference) if reference else None)
        return Notification(remote_id=remote_id, reference=named)

    def _hint(self, body: bytes) -> Notification:
        """An unsigned webhook (qvapaykit: "public and not signed"): it proves nothing, so it may only name a
        canonical transaction UUID or one of our remote ids; what is credited is what the API answers for it."""
        if len(body) > MAX_HINT_BYTES:
            raise RejectedNotification("qvapay: unsigned notification too large")
        transaction = _transaction_of(body)
        reference = canonical_uuid(transaction.get("transaction_uuid") or transaction.get("uuid"))
        remote_id = transaction.get("remote_id")
        if not isinstance(remote_id, str) or not _REMOTE_ID.fullmatch(remote_id):
            remote_id = ""
        if not reference and not remote_id:
            raise RejectedNotification("qvapay: unsigned notification names no transaction UUID nor invoice")
        return Notification(remote_id=remote_id, reference=reference, hint=True)

    async def lookup(self, reference: str, remote_id: str) -> PaymentRecord:
        transaction_id = canonical_uuid(reference)
        if transaction_id is None:
            raise GatewayError("El identificador de la transacción de QvaPay no es un UUID.")
        answer = await self._post(f"transactions/{transaction_id}", {})
        if not isinstance(answer, dict):
            raise GatewayError("QvaPay respondió algo inesperado al consultar el pago.")
        transaction: dict[str, Any] = answer["transaction"] if isinstance(answer.get("transaction"), dict) else answer
        uuid_ = transaction.get("uuid") or transaction.get("transaction_uuid") or transaction_id
        status = _STATUSES.get(str(transaction.get("status", "")).lower(), PaymentStatus.PENDING)
        return PaymentRecord(
            reference=canonical_uuid(uuid_) or str(uuid_),
            remote_id=transaction.get("remote_id"),
            amount=money(transaction.get("amount")),
            status=status,
            raw=plain(transaction),
        )


def _transaction_of(body: bytes) -> dict[str, Any]:
    """The webhook's transaction: the body itself or its `transaction` member (sources show both)."""
    try:
        data = decode_json(body)
    except (ValueError, RecursionError) as exc:
        raise RejectedNotification("qvapay: body is not JSON") from exc
    if not isinstance(data, dict):
        raise RejectedNotification("qvapay: body is not an object")
    inner = data.get("transaction")
    return inner if isinstance(inner, dict) else data
