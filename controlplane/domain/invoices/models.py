"""Invoices: one purchase of a plan through a payment gateway, from creation to the peer created or extended."""

from __future__ import annotations

import enum
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, Enum, ForeignKey, Index, Integer, Numeric, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from controlplane.db import Base, UTCDateTime, new_id, utcnow
from controlplane.domain.accounts.models import enum_values


class InvoiceStatus(enum.StrEnum):
    PENDING = "pending"  # waiting for the customer to pay
    PAID = "paid"  # the gateway confirmed the payment, the peer is not created or extended yet (retried)
    FULFILLED = "fulfilled"  # paid and the peer created or extended: final
    CANCELED = "canceled"  # the gateway says the payment was canceled
    EXPIRED = "expired"  # nobody paid within the invoice lifetime
    FAILED = "failed"  # the gateway refused the invoice, or the payment does not match it (admins look)


class InvoiceMode(enum.StrEnum):
    NEW_PEER = "new_peer"
    ADD_PLAN = "add_plan"
    # A room owner's guest pass for a friend (domain/guest_passes/): paying makes the pass claimable; the peer is
    # made when the friend claims it. Opened only by the guest passes' own endpoint, never by PUT /invoices.
    GUEST_PASS = "guest_pass"  # noqa: S105 - a mode, not a password


class Invoice(Base):
    __tablename__ = "invoices"
    __table_args__ = (
        # One gateway payment pays one invoice.
        UniqueConstraint("gateway", "transaction_id", name="uq_invoices_gateway_transaction_id"),
        Index("ix_invoices_status_created", "status", "created"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    # Public and unguessable: sent to the gateway, in return and notification URLs, and in the customer's URL.
    remote_id: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    gateway: Mapped[str] = mapped_column(String(16))
    mode: Mapped[InvoiceMode] = mapped_column(
        Enum(InvoiceMode, native_enum=False, length=16, values_callable=enum_values)
    )
    status: Mapped[InvoiceStatus] = mapped_column(
        Enum(InvoiceStatus, native_enum=False, length=16, values_callable=enum_values), default=InvoiceStatus.PENDING
    )
    # What was bought, as it was at the time (admins may edit or hide the plan later).
    plan_id: Mapped[str | None] = mapped_column(ForeignKey("plans.id", ondelete="SET NULL"), default=None)
    plan_name: Mapped[str] = mapped_column(String(64))
    validity_hours: Mapped[int] = mapped_column(Integer)
    amount: Mapped[Decimal] = mapped_column(Numeric(10, 2))  # USD
    # add_plan: the peer to extend; new_peer: the peer created on payment (its name chosen at purchase).
    peer_id: Mapped[str | None] = mapped_column(ForeignKey("peers.id", ondelete="SET NULL"), default=None)
    peer_name: Mapped[str] = mapped_column(String(32))
    payment_url: Mapped[str | None] = mapped_column(Text, default=None)
    transaction_id: Mapped[str | None] = mapped_column(String(128), default=None)
    # The gateway's own record of the payment (creation answer, then the payment read back), for the admin pages.
    gateway_record: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    problem: Mapped[str | None] = mapped_column(String(255), default=None)  # why it failed or is not fulfilled yet
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
    paid_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    fulfilled_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
