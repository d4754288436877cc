"""A local QvaPay merchant API (v2) as strict as the strictest description found (docs/payments.md): `create_invoice`
refuses an invoice without products or with a string amount, answers `transaction_uuid` and the legacy
`transation_uuid`, answers a repeated `remote_id` with `DUPLICATE_REQUEST`; `transactions` lists and
`transactions/{uuid}` reads back; webhooks go out signed or unsigned. Plus a payment page with 'Pagar'/'Cancelar'
buttons for trying purchases by hand. Every answer parses with qvapaykit's models (tests/unit/test_qvapay_sdk.py)."""

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

from controlplane.demo.gateway_server import Answer, FakeGatewayServer, deliver, pay_page, read_json

APP_ID = "qvapay-test-app"
APP_SECRET = "qvapay-test-secret"
CENT = Decimal("0.01")
# The spellings of the transaction id in create_invoice's answer: v2 (qvapaykit) and the legacy one (older SDKs).
BOTH_SPELLINGS = ("transaction_uuid", "transation_uuid")
MISSING = {"error": "Faltan campos requeridos"}  # qvapaykit: the API's 400 for a missing amount or products


class FakeQvaPay(FakeGatewayServer):
    def __init__(self, app_id: str = APP_ID, app_secret: str = APP_SECRET, port: int = 0) -> None:
        super().__init__(port)
        self.app_id, self.app_secret = app_id, app_secret
        self.invoices: dict[str, dict[str, Any]] = {}  # by transaction uuid, in creation order
        self._defaults()

    def _defaults(self) -> None:
        # Whether webhooks carry X-QvaPay-Signature (integrations say so; qvapaykit says they are not signed).
        self.signs_webhooks = True
        # Which spellings of the transaction id create_invoice answers with.
        self.spellings: tuple[str, ...] = BOTH_SPELLINGS
        # Creates to carry out whose answer is then lost (answered 502, as a proxy would): the caller's retry meets
        # DUPLICATE_REQUEST.
        self.lose_answers = 0

    def reset(self) -> None:
        super().reset()
        self._defaults()

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
        self,
        transaction: str,
        *,
        timestamp: int | None = None,
        secret: str | None = None,
        signed: bool | None = None,
        **changes: Any,
    ) -> tuple[str, bytes, dict[str, str]]:
        """The webhook QvaPay would send now: (URL path on the merchant, raw body, headers). Signed unless `signed`
        (or `signs_webhooks`) says not; `secret` signs with another key (a forger's)."""
        with self.lock:
            invoice = self.invoices[transaction]
            payload = {
                "transaction_uuid": transaction,
                "remote_id": invoice["remote_id"],
                "amount": invoice["amount"],
                "description": invoice["description"],
                "status": invoice["status"],
                "signed": True,
                "created_at": invoice["created_at"],
                "updated_at": invoice["updated_at"],
                **changes,
            }
            webhook = invoice["webhook"]
        body = json.dumps(payload).encode()
        headers: dict[str, str] = {"Content-Type": "application/json"}
        if self.signs_webhooks if signed is None else signed:
            key = (secret or self.app_secret).encode()
            headers["X-QvaPay-Signature"] = "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()
            headers["X-QvaPay-Timestamp"] = str(int(time.time()) if timestamp is None else timestamp)
        return urlsplit(webhook).path, body, headers

    # --- the API ----------------------------------------------------------------------------------------------

    def _authorized(self, headers: Mapping[str, str]) -> bool:
        # v2 reads the credentials from the app-id/app-secret headers (qvapaykit); body credentials alone do not do.
        return (headers.get("app-id"), headers.get("app-secret")) == (self.app_id, self.app_secret)

    def route(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Answer:
        data = read_json(body)
        path = path.split("?", 1)[0]
        if path.startswith("/pay/"):
            return self._pay_page(method, path)
        if not self._authorized(headers):
            return 401, {"error": "Unauthorized"}, {}
        if method == "POST" and path == "/v2/create_invoice":
            return self._create(data)
        if method == "POST" and path == "/v2/transactions":
            return self._list(data)
        if method == "POST" and path.startswith("/v2/transactions/"):
            with self.lock:
                invoice = self.invoices.get(path.rsplit("/", 1)[1])
            if invoice is None:
                return 404, {"error": "Transaction not found"}, {}
            return 200, _public(invoice), {}
        return 404, {"error": "Not found"}, {}

    def _create(self, data: Any) -> Answer:
        if not isinstance(data, dict):
            return 400, MISSING, {}
        amount = _number(data.get("amount"))
        products = _products(data.get("products"))
        description, remote_id = data.get("description"), data.get("remote_id")
        if amount is None or products is None or not _text(description) or not _text(remote_id):
            return 400, MISSING, {}
        webhook = data.get("webhook") or ""
        if webhook and urlsplit(str(webhook)).scheme not in ("http", "https"):
            return 400, {"error": "webhook inválido"}, {}
        with self.lock:
            if any(i["remote_id"] == remote_id for i in self.invoices.values()):
                return 400, {"error": "Solicitud duplicada", "code": "DUPLICATE_REQUEST"}, {}
            transaction = str(uuid.uuid4())
            invoice = {
                "uuid": transaction,
                "app_id": self.app_id,
                "amount": f"{amount:.2f}",
                "description": description,
                "remote_id": remote_id,
                "status": "pending",
                "products": products,
                "webhook": webhook,
                "success_url": data.get("success_url", ""),
                "cancel_url": data.get("cancel_url", ""),
                "created_at": _now(),
                "updated_at": _now(),
            }
            self.invoices[transaction] = invoice
            lost = self.lose_answers > 0
            if lost:
                self.lose_answers -= 1
        if lost:
            return 502, {"error": "Bad Gateway"}, {}
        url = f"{self.url}/pay/{transaction}"
        answer: dict[str, Any] = {
            "app_id": self.app_id,
            "amount": amount,
            "description": description,
            "remote_id": remote_id,
            "signed": str(data.get("signed", 0)),
            **dict.fromkeys(self.spellings, transaction),
            "expire_at": None,
            "url": url,
            "signedUrl": f"{url}?expires={int(time.time()) + 3600}&signature=fake",
        }
        return 200, answer, {}

    def _list(self, data: Any) -> Answer:
        """The app's transactions, newest first, a page at a time (`page` from 1, `take` up to 100)."""
        page = data.get("page", 1) if isinstance(data, dict) else 1
        take = data.get("take", 30) if isinstance(data, dict) else 30
        if not isinstance(page, int) or not isinstance(take, int) or page < 1 or not 1 <= take <= 100:
            return 400, {"error": "page o take inválidos"}, {}
        with self.lock:
            newest = [_public(i) for i in reversed(self.invoices.values())]
        return 200, {"transactions": newest[(page - 1) * take : page * take]}, {}

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


def _public(invoice: dict[str, Any]) -> dict[str, Any]:
    """A transaction as the API shows it: amounts as JSON numbers; the merchant's URLs left out."""
    shown = {k: v for k, v in invoice.items() if k not in ("webhook", "success_url", "cancel_url")}
    shown["amount"] = Decimal(invoice["amount"])
    return shown


def _number(value: Any) -> Decimal | None:
    """An amount as the API takes it: a JSON number (not a string), above 0, at most 100000, at most 2 decimals."""
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        return None
    amount = Decimal(value)
    if not 0 < amount <= 100000 or amount != amount.quantize(CENT):
        return None
    return amount


def _text(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 255


def _products(value: Any) -> list[dict[str, Any]] | None:
    """A non-empty list of {name, price (number), quantity >= 1}; None when missing or malformed."""
    if not isinstance(value, list) or not value:
        return None
    products = []
    for item in value:
        if not isinstance(item, dict) or not _text(item.get("name")):
            return None
        price, quantity = _number(item.get("price")), item.get("quantity", 1)
        if price is None or isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
            return None
        products.append({"name": item["name"], "price": price, "quantity": quantity})
    return products


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
