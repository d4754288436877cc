"""Invoices as staff see them (filters, the gateway's own record), manual payments, and revenue figures."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Annotated, Any

import msgspec
from sqlalchemy import Select, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import utcnow
from controlplane.domain.accounts.models import User
from controlplane.domain.invoices.models import Invoice, InvoiceStatus
from controlplane.domain.invoices.service import MANUAL_PREFIX
from controlplane.errors import NotFound
from controlplane.payments import gateway_label

# Money that came in: paid (peer not made yet, retried) and fulfilled invoices.
RECEIVED = (InvoiceStatus.PAID, InvoiceStatus.FULFILLED)
# A payment marked by staff: its transaction id starts with this (unique per invoice, so credited once).
# An invoice's state in the manager's messages ("La factura está fallida: ...").
STATUS_NAMES = {
    InvoiceStatus.PENDING: "pendiente",
    InvoiceStatus.PAID: "pagada",
    InvoiceStatus.FULFILLED: "completada",
    InvoiceStatus.CANCELED: "cancelada",
    InvoiceStatus.EXPIRED: "vencida",
    InvoiceStatus.FAILED: "fallida",
}


class StaffInvoice(msgspec.Struct):
    id: str
    remote_id: str
    user_id: str
    username: str
    gateway: str
    gateway_label: str  # "QvaPay", "Remesita", or "Pago manual" when staff settled it by hand
    mode: str
    status: str
    plan_name: str
    validity_hours: int
    amount: str
    peer_id: str | None
    peer_name: str
    transaction_id: str | None
    manual: bool
    problem: str | None
    created: datetime
    paid_at: datetime | None
    fulfilled_at: datetime | None


class StaffInvoiceDetail(StaffInvoice):
    gateway_record: dict[str, Any] | None = None


class InvoicePage(msgspec.Struct):
    items: list[StaffInvoice]
    total: int
    page: int
    page_size: int


class ManualPayment(msgspec.Struct, forbid_unknown_fields=True):
    # e.g. "transferencia 1234", kept in the record and the audit entry; required for a failed or canceled invoice
    note: Annotated[str, msgspec.Meta(max_length=200)] = ""


def _fields(invoice: Invoice, username: str) -> dict[str, Any]:
    return {
        "id": invoice.id,
        "remote_id": invoice.remote_id,
        "user_id": invoice.user_id,
        "username": username,
        "gateway": invoice.gateway,
        "gateway_label": gateway_label(
            "manual" if (invoice.transaction_id or "").startswith(MANUAL_PREFIX) else invoice.gateway
        ),
        "mode": str(invoice.mode),
        "status": str(invoice.status),
        "plan_name": invoice.plan_name,
        "validity_hours": invoice.validity_hours,
        "amount": f"{invoice.amount:.2f}",
        "peer_id": invoice.peer_id,
        "peer_name": invoice.peer_name,
        "transaction_id": invoice.transaction_id,
        "manual": (invoice.transaction_id or "").startswith(MANUAL_PREFIX),
        "problem": invoice.problem,
        "created": invoice.created,
        "paid_at": invoice.paid_at,
        "fulfilled_at": invoice.fulfilled_at,
    }


def _with_owner() -> Select[tuple[Invoice, str]]:
    return select(Invoice, User.username).join(User, User.id == Invoice.user_id)


async def search_invoices(
    db: AsyncSession, q: str, status: str, gateway: str, user: str, page: int, page_size: int
) -> InvoicePage:
    query = _with_owner()
    if q.strip():
        # contains(autoescape): a typed % or _ is a character to find, not a wildcard.
        needle = q.strip().lower()
        query = query.where(
            or_(
                User.username_key.contains(needle, autoescape=True),
                Invoice.remote_id == q.strip(),
                Invoice.transaction_id == q.strip(),
                func.lower(Invoice.peer_name).contains(needle, autoescape=True),
            )
        )
    if status:
        query = query.where(Invoice.status == status)
    if gateway:
        query = query.where(Invoice.gateway == gateway)
    if user:
        query = query.where(Invoice.user_id == user)
    total = await db.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = await db.execute(
        query.order_by(Invoice.created.desc(), Invoice.id).offset((page - 1) * page_size).limit(page_size)
    )
    items = [StaffInvoice(**_fields(i, u)) for i, u in rows.all()]
    return InvoicePage(items=items, total=total, page=page, page_size=page_size)


async def invoice_detail(db: AsyncSession, invoice_id: str) -> StaffInvoiceDetail:
    row = (await db.execute(_with_owner().where(Invoice.id == invoice_id))).one_or_none()
    if row is None:
        raise NotFound("Factura no encontrada.", code="invoice_not_found")
    invoice, username = row
    return StaffInvoiceDetail(**_fields(invoice, username), gateway_record=invoice.gateway_record)


class RevenueRow(msgspec.Struct):
    period: str  # "2026-11" (month) or "2026-11-21" (day)
    gateway: str
    gateway_label: str  # "QvaPay", "Remesita", "Pago manual"
    invoices: int
    amount: str


async def revenue_rows(db: AsyncSession, period: str) -> list[RevenueRow]:
    """Money received per month (last 12) or per day (last 31), by gateway; manual payments count as 'manual'.
    Grouped here rather than in SQL so SQLite and PostgreSQL give the same periods (UTC)."""
    since = utcnow() - (timedelta(days=366) if period == "month" else timedelta(days=31))
    rows = await db.execute(
        select(Invoice.paid_at, Invoice.gateway, Invoice.transaction_id, Invoice.amount).where(
            Invoice.status.in_(RECEIVED), Invoice.paid_at >= since
        )
    )
    totals: dict[tuple[str, str], list[Decimal]] = defaultdict(list)
    for paid_at, gateway, transaction_id, amount in rows.all():
        key = paid_at.strftime("%Y-%m" if period == "month" else "%Y-%m-%d")
        source = "manual" if (transaction_id or "").startswith(MANUAL_PREFIX) else gateway
        totals[(key, source)].append(amount)
    return [
        RevenueRow(
            period=p, gateway=g, gateway_label=gateway_label(g), invoices=len(a), amount=f"{sum(a, Decimal(0)):.2f}"
        )
        for (p, g), a in sorted(totals.items(), key=lambda item: (item[0][0], item[0][1]), reverse=True)
    ]
