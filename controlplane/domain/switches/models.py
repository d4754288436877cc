"""Runtime switches that admins flip (stored in the database, read by every process)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, String
from sqlalchemy.orm import Mapped, mapped_column

from controlplane.db import Base, UTCDateTime, utcnow


class Switch(Base):
    __tablename__ = "switches"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    enabled: Mapped[bool] = mapped_column(Boolean)
    updated: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)
