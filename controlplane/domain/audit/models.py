"""The audit log: one row per staff action that changed something."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from controlplane.db import Base, UTCDateTime, new_id, utcnow


class AuditEntry(Base):
    """Who (id, name and role as they were then), what (action, target, a summary without secrets), when, from where.

    The actor is copied rather than referenced so the entry survives the account and tells what it was at the time.
    """

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_target", "target_type", "target_id"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    actor_id: Mapped[str] = mapped_column(String(32), index=True)
    actor_username: Mapped[str] = mapped_column(String(32))
    actor_role: Mapped[str] = mapped_column(String(16))
    action: Mapped[str] = mapped_column(String(48), index=True)
    target_type: Mapped[str] = mapped_column(String(24))
    target_id: Mapped[str | None] = mapped_column(String(64), default=None)
    summary: Mapped[str] = mapped_column(Text, default="")
    ip_address: Mapped[str] = mapped_column(String(64))
