"""A local Remesita merchant API following the contract in docs/payments.md: auth, payment-link, payment-link/{ref},
unsigned IPN notifications; plus a payment page with 'Pagar'/'Cancelar' buttons for trying purchases by hand."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Mapping
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from controlplane.demo.gateway_server import Answer, FakeGatewayServer, deliver, pay_page, read_json, valid_amount

API_KEY = "remesita-test-key"
API_SECRET = "remesita-test-secret"
BUSINESS_UNIT = "bu-test-1"


class FakeRemesita(FakeGatewayServer):
    def __init__(
        self, api_key: str = API_KEY, api_secret: str = API_SECRET, business_unit: str = BUSINESS_UNIT, port: int = 0
    ) -> None:
        super().__init__(port)
        self.api_key, self.api_secret, self.business_unit = api_key, api_secret, business_unit
        self.tokens: set[str] = set()
        self.links: dict[str, dict[str, Any]] = {}  # by reference

    @property
    def base_url(self) -> str:
        return f"{self.url}/rest/v1"

    # --- what the tests (and the demo page) do as the paying customer ----------------------------------------

    def by_custom_id(self, custom_id: str) -> dict[str, Any]:
        with self.lock:
            return next(link for link in self.links.values() if link["customId"] == custom_id)

    def pay(self, reference: str, amount: Decimal | None = None) -> None:
        with self.lock:
            link = self.links[reference]
            link["status"] = "paid"
            link["payedAt"] = _now()
            if amount is not None:
                link["amount"] = f"{amount:.2f}"

    def cancel(self, reference: str) -> None:
        """The customer cancels at the gateway's page."""
        with self.lock:
            self.links[reference]["status"] = "cancelled"

    def notification(self, reference: str, **changes: Any) -> tuple[str, bytes]:
        """The IPN Remesita would send now: (URL path and query on the merchant, raw body). Unsigned, as Remesita's
        are."""
        with self.lock:
            link = self.links[reference]
            payload = {
                "custom_id": link["customId"],
                "ref": reference,
                "status": link["status"],
                "amount": link["amount"],
                "customer": {"name": "Cliente de prueba", "phone": "+5350000000", "email": "cliente@example.com"},
                **changes,
            }
            ipn = link["ipnUrl"]
        url = urlsplit(ipn)
        return f"{url.path}?{url.query}", json.dumps(payload).encode()

    # --- the API ----------------------------------------------------------------------------------------------

    def route(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Answer:
        data = read_json(body)
        path = path.split("?", 1)[0]
        if path.startswith("/pay/"):
            return self._pay_page(method, path)
        if method == "POST" and path == "/rest/v1/auth":
            if not isinstance(data, dict) or (data.get("api_key"), data.get("api_secret")) != (
                self.api_key,
                self.api_secret,
            ):
                return 401, {"error": "Credenciales inválidas"}, {}
            token = secrets.token_urlsafe(24)
            with self.lock:
                self.tokens.add(token)
            return 200, {"accessToken": token, "user": {"name": "Negocio de prueba"}}, {}
        # The official WooCommerce plugin sends the bare token; Remesita's PHP payment client and the TypeScript SDK
        # send `Bearer <token>` (docs/payments.md): both are taken.
        token = headers.get("authorization", "").removeprefix("Bearer ")
        with self.lock:
            authorized = token in self.tokens
        if not authorized:
            return 401, {"error": "Unauthorized"}, {}
        if method == "POST" and path == "/rest/v1/payment-link":
            return self._create(data)
        if method == "GET" and path.startswith("/rest/v1/payment-link/"):
            with self.lock:
                link = self.links.get(path.rsplit("/", 1)[1])
            if link is None:
                return 404, {"error": "Not found"}, {}
            return 200, {k: v for k, v in link.items() if k not in ("ipnUrl", "successUrl", "cancelUrl")}, {}
        return 404, {"error": "Not found"}, {}

    def _create(self, data: Any) -> Answer:
        amount = valid_amount(data.get("amount")) if isinstance(data, dict) else None
        if amount is None or not data.get("concept") or data.get("businessUnitId") != self.business_unit:
            return 422, {"error": "businessUnitId, amount and concept are required"}, {}
        reference = "RP" + secrets.token_hex(6).upper()
        link = {
            "reference": reference,
            "businessUnitId": data["businessUnitId"],
            "customId": data.get("customId"),
            "amount": f"{amount:.2f}",
            "concept": data["concept"],
            "ipnUrl": data.get("ipnUrl", ""),
            "successUrl": data.get("successUrl", ""),
            "cancelUrl": data.get("cancelUrl", ""),
            "status": "start",
            "createdAt": _now(),
            "payedAt": None,
        }
        with self.lock:
            self.links[reference] = link
        return 200, {"link": f"{self.url}/pay/{reference}", "reference": reference}, {}

    def _pay_page(self, method: str, path: str) -> Answer:
        parts = path.strip("/").split("/")  # pay/{reference}[/paid|/canceled]
        with self.lock:
            link = self.links.get(parts[1]) if len(parts) > 1 else None
        if link is None:
            return 404, "<h1>Enlace no encontrado</h1>", {}
        if method == "GET":
            return 200, pay_page("Remesita", link["amount"], link["concept"], f"/pay/{parts[1]}"), {}
        if parts[-1] == "paid":
            self.pay(parts[1])
            _, body = self.notification(parts[1])
            deliver(link["ipnUrl"], body, {})
            return 303, "", {"Location": link["successUrl"]}
        self.cancel(parts[1])
        return 303, "", {"Location": link["cancelUrl"]}


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
