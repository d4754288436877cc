"""Remesita's merchant API: authenticate, create a payment link, read the payment back (sources in docs/payments.md).

Remesita's IPN notifications carry no signature, so each invoice's notification URL holds a secret of its own
(a keyed hash of the invoice's remote id); a notification only names which payment to read back.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping
from typing import Any

import httpx

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

_STATUSES = {
    "paid": PaymentStatus.PAID,
    "completed": PaymentStatus.PAID,  # paid and settled to the business account
    "start": PaymentStatus.PENDING,
    "processing": PaymentStatus.PENDING,
    "payment_review": PaymentStatus.PENDING,
    "cancelled": PaymentStatus.CANCELED,
    "canceled": PaymentStatus.CANCELED,
    "failed": PaymentStatus.FAILED,
}


class RemesitaGateway(Gateway):
    name = "remesita"
    label = "Remesita"

    def __init__(
        self,
        http: httpx.AsyncClient,
        timeout: float,
        public_url: str,
        *,
        base_url: str,
        api_key: str,
        api_secret: str,
        business_unit_id: str,
        sandbox: bool,
        url_secret: Callable[[str], str],
    ) -> None:
        super().__init__(http, timeout, public_url)
        self._base = base_url.rstrip("/")
        self._api_key = api_key
        self._api_secret = api_secret
        self._business_unit_id = business_unit_id
        self._sandbox = sandbox
        self._url_secret = url_secret

    @property
    def configured(self) -> bool:
        return bool(self._api_key and self._api_secret and self._business_unit_id)

    def notify_url(self, remote_id: str) -> str:
        # The secret travels in the query string, so every log that writes request lines must leave it out: the
        # control plane's access log writes the route template and redacts `key=` in any line a library writes; the
        # shipped nginx example writes `?[query]` for every query string and only critical errors on /api/payments/
        # in its error log (packaging/nginx-vpn.conf). A proxy with its default log format writes it in full
        # (docs/security.md, "Logs").
        return f"{self._public_url}/api/payments/remesita/{remote_id}?key={self._url_secret(remote_id)}"

    async def _token(self) -> str:
        answer = await self._request(
            "POST", f"{self._base}/auth", json={"api_key": self._api_key, "api_secret": self._api_secret}
        )
        token = answer.get("accessToken") if isinstance(answer, dict) else None
        if not isinstance(token, str) or not token:
            raise GatewayError("Remesita no devolvió el token de acceso.")
        return token

    async def create_payment(self, request: PaymentRequest) -> CreatedPayment:
        token = await self._token()
        body = {
            "businessUnitId": self._business_unit_id,
            "amount": str(request.amount),
            "concept": request.description,
            "customId": request.remote_id,
            "ipnUrl": request.notify_url,
            "successUrl": request.success_url,
            "cancelUrl": request.cancel_url,
            "sandbox": self._sandbox,
        }
        answer = await self._request("POST", f"{self._base}/payment-link", json=body, headers={"Authorization": token})
        link = answer.get("link") if isinstance(answer, dict) else None
        if not isinstance(link, str) or not link.startswith(("https://", "http://")):
            raise GatewayError("Remesita no devolvió el enlace de pago.")
        reference = answer.get("reference") or answer.get("ref")
        # The IPN URL holds the invoice's secret: keep it out of the record the admins read.
        raw = {k: v for k, v in plain(answer).items() if k not in ("ipnUrl", "ipn_url")}
        return CreatedPayment(payment_url=link, reference=str(reference) if reference else None, raw=raw)

    def verify_notification(self, body: bytes, headers: Mapping[str, str], path: Mapping[str, str]) -> Notification:
        remote_id, secret = path.get("remote_id", ""), path.get("secret", "")
        if not hmac.compare_digest(secret.encode(), self._url_secret(remote_id).encode()):
            raise RejectedNotification("remesita: wrong notification secret")
        try:
            data = decode_json(body) if body.strip() else {}
        except ValueError as exc:
            raise RejectedNotification("remesita: body is not JSON") from exc
        if not isinstance(data, dict):
            raise RejectedNotification("remesita: body is not an object")
        custom_id = data.get("custom_id") or data.get("customId")
        if custom_id is not None and custom_id != remote_id:
            raise RejectedNotification("remesita: custom_id does not match the notification URL")
        reference = data.get("ref") or data.get("reference")
        return Notification(remote_id=remote_id, reference=str(reference) if reference else None)

    async def lookup(self, reference: str, remote_id: str) -> PaymentRecord:
        token = await self._token()
        answer = await self._request("GET", f"{self._base}/payment-link/{reference}", headers={"Authorization": token})
        if not isinstance(answer, dict):
            raise GatewayError("Remesita respondió algo inesperado al consultar el pago.")
        payment: dict[str, Any] = answer
        status = _STATUSES.get(str(payment.get("status", "")).lower(), PaymentStatus.PENDING)
        return PaymentRecord(
            reference=str(payment.get("reference") or reference),
            remote_id=payment.get("customId") or payment.get("custom_id"),
            amount=money(payment.get("amount")),
            status=status,
            raw={k: v for k, v in plain(payment).items() if k not in ("ipnUrl", "ipn_url")},
        )
