"""Guest passes: a room owner pays a short plan for a friend, who claims it with their own account and gets a peer
in that room only, for the plan's hours (docs/payments.md, "Guest passes")."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from controlplane.db import Base, UTCDateTime, new_id, utcnow


class GuestPass(Base):
    __tablename__ = "guest_passes"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    buyer_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    # A deleted room leaves the pass readable (its owner paid for it) but no longer claimable.
    room_id: Mapped[str | None] = mapped_column(ForeignKey("rooms.id", ondelete="SET NULL"), index=True)
    room_name: Mapped[str] = mapped_column(String(32))
    # The ordinary invoice machine pays it, once: this invoice's credit is what makes the pass claimable.
    invoice_id: Mapped[str] = mapped_column(ForeignKey("invoices.id", ondelete="CASCADE"), unique=True)
    plan_name: Mapped[str] = mapped_column(String(64))
    hours: Mapped[int] = mapped_column(Integer)
    # As a payment link's: looked up by its keyed hash, kept encrypted so its buyer can copy the link again.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    token_enc: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    paid_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    # Paid and never claimed: the link stops working at this moment (paid_at + CLAIM_WINDOW).
    claim_by: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    claimed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    guest_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), default=None)
    guest_alias: Mapped[str | None] = mapped_column(String(64), default=None)  # as the buyer's list shows it
    # The guest's peer. Unique: a peer is some pass's peer at most once, and that is what locks it to its room.
    peer_id: Mapped[str | None] = mapped_column(ForeignKey("peers.id", ondelete="SET NULL"), unique=True, default=None)
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)  # claimed_at + hours
