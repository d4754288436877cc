"""Payment links ("alguien paga por mí"): a customer shares a link that lets anyone pay one plan for one of their
peers without logging in (docs/payments.md, "Payment links")."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from controlplane.db import Base, UTCDateTime, new_id, utcnow


class PaymentLink(Base):
    __tablename__ = "payment_links"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    # Deleting the peer or the plan ends the link: there is nothing left to pay for.
    peer_id: Mapped[str] = mapped_column(ForeignKey("peers.id", ondelete="CASCADE"), index=True)
    plan_id: Mapped[str] = mapped_column(ForeignKey("plans.id", ondelete="CASCADE"))
    # The link's secret is looked up by its keyed hash (SecretBox.lookup_hash) and kept encrypted beside it, so the
    # owner can copy the link again; the database alone yields neither a working link nor a way to find one.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    token_enc: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)


class PaymentLinkInvoice(Base):
    """An invoice a payer opened through a link. The invoice itself is an ordinary add_plan invoice of the link's
    owner: the same gateways, notifications, reconciliation and single credit as the owner's own purchases."""

    __tablename__ = "payment_link_invoices"

    invoice_id: Mapped[str] = mapped_column(ForeignKey("invoices.id", ondelete="CASCADE"), primary_key=True)
    link_id: Mapped[str] = mapped_column(ForeignKey("payment_links.id", ondelete="CASCADE"), index=True)
