"""A local QvaPay merchant API (v2) following the contract in docs/payments.md: create_invoice, transactions/{uuid},
signed webhooks; plus a payment page with 'Pagar'/'Cancelar' buttons for trying purchases by hand."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Mapping
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from controlplane.demo.gateway_server import Answer, FakeGatewayServer, deliver, pay_page, read_json, valid_amount

APP_ID = "qvapay-test-app"
APP_SECRET = "qvapay-test-secret"


class FakeQvaPay(FakeGatewayServer):
    def __init__(self, app_id: str = APP_ID, app_secret: str = APP_SECRET, port: int = 0) -> None:
        super().__init__(port)
        self.app_id, self.app_secret = app_id, app_secret
        self.invoices: dict[str, dict[str, Any]] = {}  # by transaction uuid

    @property
    def base_url(self) -> str:
        return f"{self.url}/v2"

    # --- what the tests (and the demo page) do as the paying customer ----------------------------------------

    def by_remote_id(self, remote_id: str) -> dict[str, Any]:
        with self.lock:
            return next(i for i in self.invoices.values() if i["remote_id"] == remote_id)

    def pay(self, transaction: str, amount: Decimal | None = None) -> None:
        """The customer pays; `amount` other than the invoice's stands for a gateway paying the wrong sum."""
        with self.lock:
            invoice = self.invoices[transaction]
            invoice["status"] = "paid"
            if amount is not None:
                invoice["amount"] = f"{amount:.2f}"
            invoice["updated_at"] = _now()

    def cancel(self, transaction: str) -> None:
        """The customer cancels at the gateway's page."""
        with self.lock:
            invoice = self.invoices[transaction]
            invoice["status"] = "cancelled"
            invoice["updated_at"] = _now()

    def notification(
        self, transaction: str, *, timestamp: int | None = None, secret: str | None = None, **changes: Any
    ) -> tuple[str, bytes, dict[str, str]]:
        """The webhook QvaPay would send now: (URL path on the merchant, raw body, headers)."""
        with self.lock:
            invoice = self.invoices[transaction]
            payload = {
                "transaction_uuid": transaction,
                "remote_id": invoice["remote_id"],
                "amount": invoice["amount"],
                "status": invoice["status"],
                "signed": True,
                "created_at": invoice["created_at"],
                "updated_at": invoice["updated_at"],
                **changes,
            }
            webhook = invoice["webhook"]
        body = json.dumps(payload).encode()
        key = (secret or self.app_secret).encode()
        headers = {
            "X-QvaPay-Signature": "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest(),
            "X-QvaPay-Timestamp": str(int(time.time()) if timestamp is None else timestamp),
        }
        return urlsplit(webhook).path, body, headers

    # --- the API ----------------------------------------------------------------------------------------------

    def _authorized(self, headers: Mapping[str, str], body: Any) -> bool:
        given = (headers.get("app-id"), headers.get("app-secret"))
        if isinstance(body, dict) and not all(given):
            given = (body.get("app_id"), body.get("app_secret"))
        return given == (self.app_id, self.app_secret)

    def route(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Answer:
        data = read_json(body)
        path = path.split("?", 1)[0]
        if path.startswith("/pay/"):
            return self._pay_page(method, path)
        if not self._authorized(headers, data):
            return 401, {"error": "Unauthorized"}, {}
        if method == "POST" and path == "/v2/create_invoice":
            return self._create(data)
        if method == "POST" and path.startswith("/v2/transactions/"):
            with self.lock:
                invoice = self.invoices.get(path.rsplit("/", 1)[1])
            if invoice is None:
                return 404, {"error": "Transaction not found"}, {}
            return 200, {k: v for k, v in invoice.items() if k != "webhook"}, {}
        return 404, {"error": "Not found"}, {}

    def _create(self, data: Any) -> Answer:
        amount = valid_amount(data.get("amount")) if isinstance(data, dict) else None
        if amount is None or not data.get("remote_id") or not data.get("description"):
            return 422, {"error": "amount, description and remote_id are required"}, {}
        transaction = str(uuid.uuid4())
        invoice = {
            "uuid": transaction,
            "app_id": self.app_id,
            "amount": f"{amount:.2f}",
            "description": data["description"],
            "remote_id": data["remote_id"],
            "status": "pending",
            "webhook": data.get("webhook", ""),
            "success_url": data.get("success_url", ""),
            "cancel_url": data.get("cancel_url", ""),
            "created_at": _now(),
            "updated_at": _now(),
        }
        with self.lock:
            self.invoices[transaction] = invoice
        url = f"{self.url}/pay/{transaction}"
        return (
            200,
            {
                "app_id": self.app_id,
                "amount": invoice["amount"],
                "description": invoice["description"],
                "remote_id": invoice["remote_id"],
                "signed": str(data.get("signed", 0)),
                "transation_uuid": transaction,  # sic: QvaPay's spelling
                "url": url,
                "signedUrl": f"{url}?expires={int(time.time()) + 3600}&signature=fake",
            },
            {},
        )

    def _pay_page(self, method: str, path: str) -> Answer:
        parts = path.strip("/").split("/")  # pay/{uuid}[/paid|/canceled]
        with self.lock:
            invoice = self.invoices.get(parts[1]) if len(parts) > 1 else None
        if invoice is None:
            return 404, "<h1>Factura no encontrada</h1>", {}
        if method == "GET":
            return 200, pay_page("QvaPay", invoice["amount"], invoice["description"], f"/pay/{parts[1]}"), {}
        if parts[-1] == "paid":
            self.pay(parts[1])
            _, body, headers = self.notification(parts[1])
            deliver(invoice["webhook"], body, headers)
            return 303, "", {"Location": invoice["success_url"]}
        self.cancel(parts[1])
        return 303, "", {"Location": invoice["cancel_url"]}


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
