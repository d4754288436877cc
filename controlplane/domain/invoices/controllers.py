"""Invoice endpoints: the customer's purchase (docs/contract.md#invoice-calls), gateway notifications and the
return from a gateway; the manager's Facturas page (`/api/admin/invoices`)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post, put
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter
from litestar.response import Redirect

from controlplane.dependencies import (
    CUSTOMER,
    DB,
    Audit,
    ClientIP,
    Customer,
    Limiter,
    SettingsDep,
    Staff,
    SwitchesDep,
    customer_area,
)
from controlplane.domain.accounts.guards import admin_only, admin_or_support
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.trail import audited
from controlplane.domain.invoices import schemas
from controlplane.domain.invoices import staff as staff_invoices
from controlplane.domain.invoices.dependencies import CUSTOMER_INVOICES, INVOICES, Invoices
from controlplane.domain.invoices.models import InvoiceStatus
from controlplane.domain.invoices.service import MANUAL_PREFIX, REASON_REQUIRED, STAFF_CREDITABLE, Outcome
from controlplane.domain.paylinks.dependencies import PAYMENT_LINKS, PaymentLinks
from controlplane.domain.staff_forms import Page, PageSize, Search
from controlplane.errors import Conflict, Invalid
from controlplane.payments.base import GatewayError, GatewayUnavailable, PaymentRecord, PaymentStatus
from controlplane.query_params import LOOSE_QUERY


class InvoiceController(Controller):
    path = "/api/client/invoices"
    tags = ["invoices"]
    before_request = staticmethod(customer_area)
    dependencies = {**CUSTOMER, **CUSTOMER_INVOICES}

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

    @get("/", operation_id="listInvoices")
    async def list_invoices(self, invoices: Invoices, db: DB, customer: Customer) -> list[schemas.InvoiceListItem]:
        """The customer's 'Facturas' page: their own invoices, newest first (not in the customer contract)."""
        return await invoices.list_for(db, customer.user_id)

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
    dependencies = {**INVOICES, **PAYMENT_LINKS}

    @post(
        "/qvapay/webhook",
        operation_id="qvapayNotification",
        status_code=200,
        opt={"errors": (401, 404, 429, 502), **LOOSE_QUERY},
    )
    async def qvapay(
        self,
        request: Request[Any, Any, Any],
        invoices: Invoices,
        limiter: Limiter,
        settings: SettingsDep,
        ip: ClientIP,
    ) -> Response[dict[str, Any]]:
        if not request.headers.get("x-qvapay-signature"):
            # Unsigned: anyone may send it, and each makes us ask the gateway (docs/payments.md, "Notifications").
            await limiter.hit(f"payment-hints:ip:{ip}", settings.rate_limits.payment_hints_per_address)
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
        self,
        invoices: Invoices,
        payment_links: PaymentLinks,
        limiter: Limiter,
        settings: SettingsDep,
        db: DB,
        remote_id: FromPath[str],
        status: FromQuery[str] = "",
    ) -> Redirect:
        if status == "canceled":
            await invoices.came_back_canceled(remote_id, limiter, settings.rate_limits.payment_returns_per_invoice)
        # A payer who came through a payment link goes back to its page, not to the owner's dashboard.
        target = await payment_links.return_target(db, remote_id, status)
        return Redirect(target or await invoices.return_target(db, remote_id, status), status_code=302)


class AdminInvoiceController(Controller):
    path = "/api/admin/invoices"
    tags = ["admin"]
    dependencies = INVOICES

    @get("/", operation_id="adminSearchInvoices", guards=[admin_or_support])
    async def search(
        self,
        db: DB,
        q: Search = "",
        status: Annotated[str, QueryParameter(max_length=16)] = "",
        gateway: Annotated[str, QueryParameter(max_length=16)] = "",
        user: Annotated[str, QueryParameter(max_length=64)] = "",
        page: Page = 1,
        page_size: PageSize = 25,
    ) -> staff_invoices.InvoicePage:
        return await staff_invoices.search_invoices(db, q, status, gateway, user, page, page_size)

    @get("/{invoice_id:str}", operation_id="adminGetInvoice", guards=[admin_or_support])
    async def read(self, db: DB, invoice_id: FromPath[str]) -> staff_invoices.StaffInvoiceDetail:
        return await staff_invoices.invoice_detail(db, invoice_id)

    @post(
        "/{invoice_id:str}/manual-payment", status_code=200, operation_id="adminMarkInvoicePaid", guards=[admin_only],
        opt=audited(AuditAction.INVOICE_MANUAL_PAYMENT),
    )  # fmt: skip
    async def manual_payment(
        self, invoices: Invoices, db: DB, staff: Staff, audit: Audit, invoice_id: FromPath[str],
        data: JSONBody[staff_invoices.ManualPayment],
    ) -> staff_invoices.StaffInvoiceDetail:  # fmt: skip
        """Credited through the payments' own settle path (one conditional update), so it happens once even if the
        gateway's notification arrives at the same moment; in this request's transaction, so the credit and its
        audit entry commit together or not at all. A failed or canceled invoice needs the admin's reason."""
        invoice = await staff_invoices.invoice_detail(db, invoice_id)
        note = data.note.strip()
        was = InvoiceStatus(invoice.status)
        if was in REASON_REQUIRED and not note:
            raise Invalid(
                f"La factura está {staff_invoices.STATUS_NAMES[was]}: indique el motivo del pago manual "
                "(cómo comprobó que el dinero llegó).",
                code="note_required",
                fields={"note": "Obligatorio para una factura fallida o cancelada."},
            )
        raw: dict[str, object] = {"manual": True, "by": staff.username, "note": note}
        if was is not InvoiceStatus.PENDING:
            raw.update(settled_from=was.value, problem=invoice.problem)
        record = PaymentRecord(
            reference=f"{MANUAL_PREFIX}{invoice.id}",
            remote_id=invoice.remote_id,
            amount=Decimal(invoice.amount),
            status=PaymentStatus.PAID,
            raw=raw,
        )
        outcome = await invoices.settle_in(db, invoice.id, record, creditable=STAFF_CREDITABLE)
        if not outcome.credited:
            raise Conflict(
                f"La factura ya está pagada o no se puede acreditar (estado: {invoice.status}).",
                code="invoice_not_creditable",
            )
        summary = f"Pago manual de {invoice.amount} USD ({invoice.plan_name}, {invoice.username})"
        if was is not InvoiceStatus.PENDING:
            summary += f" sobre una factura {staff_invoices.STATUS_NAMES[was]}"
            if invoice.problem:
                summary += f" ({invoice.problem})"
        audit.note("invoice", invoice.id, summary + (f": {note}" if note else ""))
        return await staff_invoices.invoice_detail(db, invoice_id)
