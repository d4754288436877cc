"""Announcements shown on the customer home, and the releases of the game-connect client app."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from controlplane.db import Base, UTCDateTime, new_id, utcnow


class Announcement(Base):
    __tablename__ = "announcements"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(120))
    message: Mapped[str] = mapped_column(Text)
    visible: Mapped[bool] = mapped_column(Boolean, default=True)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)


class ClientRelease(Base):
    __tablename__ = "client_releases"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    version: Mapped[str] = mapped_column(String(32))
    url: Mapped[str] = mapped_column(String(500))
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
