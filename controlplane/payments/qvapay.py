"""QvaPay's merchant API (v2): invoices, signed webhooks, transactions read back (sources in docs/payments.md)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

import httpx

from controlplane.db import utcnow
from controlplane.payments.base import (
    CreatedPayment,
    Gateway,
    GatewayError,
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

_STATUSES = {
    "paid": PaymentStatus.PAID,
    "completed": PaymentStatus.PAID,
    "pending": PaymentStatus.PENDING,
    "cancelled": PaymentStatus.CANCELED,
    "canceled": PaymentStatus.CANCELED,
    "failed": PaymentStatus.FAILED,
}


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
        # The v2 API reads the credentials from headers; older clients send them in the body: send both.
        credentials = {"app_id": self._app_id, "app_secret": self._app_secret}
        headers = {"app-id": self._app_id, "app-secret": self._app_secret}
        return headers, credentials

    async def create_payment(self, request: PaymentRequest) -> CreatedPayment:
        headers, credentials = self._auth()
        body = {
            **credentials,
            "amount": str(request.amount),
            "description": request.description,
            "remote_id": request.remote_id,
            "signed": 1,
            "webhook": request.notify_url,
            "success_url": request.success_url,
            "cancel_url": request.cancel_url,
        }
        answer = await self._request("POST", f"{self._base}/create_invoice", json=body, headers=headers)
        if not isinstance(answer, dict):
            raise GatewayError("QvaPay respondió algo inesperado al crear el cobro.")
        url = answer.get("signedUrl") or answer.get("url")
        # QvaPay spells it `transation_uuid` in its answers; newer ones say `transaction_uuid`.
        reference = answer.get("transation_uuid") or answer.get("transaction_uuid") or answer.get("uuid")
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            raise GatewayError("QvaPay no devolvió el enlace de pago.")
        return CreatedPayment(payment_url=url, reference=str(reference) if reference else None, raw=plain(answer))

    def verify_notification(self, body: bytes, headers: Mapping[str, str], path: Mapping[str, str]) -> Notification:
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
        try:
            data = decode_json(body)
        except ValueError as exc:
            raise RejectedNotification("qvapay: body is not JSON") from exc
        if not isinstance(data, dict):
            raise RejectedNotification("qvapay: body is not an object")
        inner = data.get("transaction")
        transaction: dict[str, Any] = inner if isinstance(inner, dict) else data
        remote_id = transaction.get("remote_id")
        reference = transaction.get("transaction_uuid") or transaction.get("uuid") or transaction.get("id")
        if not isinstance(remote_id, str) or not remote_id:
            raise RejectedNotification("qvapay: notification without remote_id")
        return Notification(remote_id=remote_id, reference=str(reference) if reference else None)

    async def lookup(self, reference: str, remote_id: str) -> PaymentRecord:
        headers, credentials = self._auth()
        answer = await self._request(
            "POST", f"{self._base}/transactions/{reference}", json=credentials, headers=headers
        )
        if not isinstance(answer, dict):
            raise GatewayError("QvaPay respondió algo inesperado al consultar el pago.")
        transaction: dict[str, Any] = answer["transaction"] if isinstance(answer.get("transaction"), dict) else answer
        uuid = transaction.get("uuid") or transaction.get("transaction_uuid") or reference
        status = _STATUSES.get(str(transaction.get("status", "")).lower(), PaymentStatus.PENDING)
        return PaymentRecord(
            reference=str(uuid),
            remote_id=transaction.get("remote_id"),
            amount=money(transaction.get("amount")),
            status=status,
            raw=plain(transaction),
        )
