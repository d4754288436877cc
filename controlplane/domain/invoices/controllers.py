"""Invoice endpoints: the customer's purchase (docs/contract.md#invoice-calls), gateway notifications and the
return from a gateway."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post, put
from litestar.params import FromPath, FromQuery, JSONBody
from litestar.response import Redirect

from controlplane.dependencies import (
    CUSTOMER,
    DB,
    Customer,
    Invoices,
    Limiter,
    SettingsDep,
    SwitchesDep,
    not_in_maintenance,
)
from controlplane.domain.invoices import schemas
from controlplane.domain.invoices.service import Outcome
from controlplane.payments.base import GatewayError, GatewayUnavailable
from controlplane.query_params import LOOSE_QUERY


class InvoiceController(Controller):
    path = "/api/client/invoices"
    tags = ["invoices"]
    guards = [not_in_maintenance]
    dependencies = CUSTOMER

    # 429: purchases are limited per account (docs/security.md, "Limits").
    @put("/", operation_id="createInvoice", opt={"errors": (404, 409, 429, 502)})
    async def create(
        self,
        invoices: Invoices,
        limiter: Limiter,
        settings: SettingsDep,
        db: DB,
        customer: Customer,
        switches: SwitchesDep,
        data: JSONBody[schemas.InvoiceRequest],
    ) -> schemas.InvoiceCreated:
        invoice = await invoices.open(db, customer.user_id, data, switches)
        # Each invoice opens a payment at a gateway: a customer (or a stolen session) must not flood them.
        await limiter.hit(f"invoices:user:{customer.user_id}", settings.rate_limits.invoices_per_user)
        invoice = await invoices.start_payment(db, invoice)
        label = invoices.gateways[invoice.gateway].label
        return schemas.InvoiceCreated(
            payment_url=invoice.payment_url or "",
            message=f"Factura creada. Complete el pago en {label}.",
            remote_id=invoice.remote_id,
            gateway=invoice.gateway,
        )

    @get("/{remote_id:str}", operation_id="getInvoice")
    async def read(
        self, invoices: Invoices, db: DB, customer: Customer, remote_id: FromPath[str]
    ) -> schemas.InvoiceDetails:
        invoice = await invoices.owned(db, customer.user_id, remote_id)
        return invoices.details(invoice)


def _answer(outcome: Outcome) -> Response[dict[str, Any]]:
    # Gateways retry notifications that are not answered 2xx; a handled one (credited or not) is answered 200.
    return Response({"received": True, "credited": outcome.credited, "result": outcome.reason}, status_code=200)


def _gateway_down() -> Response[dict[str, Any]]:
    # The payment could not be read back: the gateway will notify again, and the reconciliation job checks too.
    body = {"message": "No se pudo verificar el pago con la pasarela; se reintentará.", "code": "gateway_unavailable"}
    return Response(body, status_code=502)


class PaymentGatewayController(Controller):
    """What gateways and the customer's browser call without a session; exempt from maintenance (money moves)."""

    path = "/api/payments"
    tags = ["payments"]

    @post(
        "/qvapay/webhook",
        operation_id="qvapayNotification",
        status_code=200,
        opt={"errors": (401, 404, 502), **LOOSE_QUERY},
    )
    async def qvapay(self, request: Request[Any, Any, Any], invoices: Invoices) -> Response[dict[str, Any]]:
        body = await request.body()
        try:
            outcome = await invoices.notified("qvapay", body, dict(request.headers), {})
        except (GatewayUnavailable, GatewayError):
            return _gateway_down()
        return _answer(outcome)

    @post(
        "/remesita/{remote_id:str}",
        operation_id="remesitaNotification",
        status_code=200,
        opt={"errors": (401, 502), **LOOSE_QUERY},
    )
    async def remesita(
        self, request: Request[Any, Any, Any], invoices: Invoices, remote_id: FromPath[str], key: FromQuery[str] = ""
    ) -> Response[dict[str, Any]]:
        body = await request.body()
        path = {"remote_id": remote_id, "secret": key}
        try:
            outcome = await invoices.notified("remesita", body, dict(request.headers), path)
        except (GatewayUnavailable, GatewayError):
            return _gateway_down()
        return _answer(outcome)

    # The gateway sends the customer back with query parameters of its own beside `status`.
    @get("/return/{remote_id:str}", operation_id="paymentReturn", opt=LOOSE_QUERY)
    async def back_from_gateway(
        self, invoices: Invoices, db: DB, remote_id: FromPath[str], status: FromQuery[str] = ""
    ) -> Redirect:
        return Redirect(await invoices.return_target(db, remote_id, status), status_code=302)
