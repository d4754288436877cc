"""Plans customers buy: a validity period and a price in USD."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import Boolean, Integer, Numeric, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from controlplane.db import Base, UTCDateTime, new_id, utcnow


class Plan(Base):
    __tablename__ = "plans"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(64))
    description: Mapped[str] = mapped_column(Text, default="")
    validity_hours: Mapped[int] = mapped_column(Integer)
    price: Mapped[Decimal] = mapped_column(Numeric(10, 2))
    visible: Mapped[bool] = mapped_column(Boolean, default=True)
    sort_order: Mapped[int] = mapped_column(Integer, default=0)
    # A guest pass (domain/guest_passes/): a room owner buys it for a friend, who gets a peer in that room only for
    # `validity_hours`. Never in the ordinary catalogue, never bought for a peer (docs/payments.md, "Guest passes").
    guest_pass: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
