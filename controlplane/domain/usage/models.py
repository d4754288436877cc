"""Usage tables: one row per peer (and per server) per hour or day, and the counters last accounted per peer.

A byte is in exactly one of the hourly and daily tables: the roll-up moves hourly rows into days and deletes them in
one transaction, so sums over both never count it twice (docs/usage.md, "Storage").
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from controlplane.db import Base, UTCDateTime


class PeerUsageHour(Base):
    __tablename__ = "peer_usage_hourly"
    __table_args__ = (Index("ix_peer_usage_hourly_hour", "hour"),)

    peer_id: Mapped[str] = mapped_column(ForeignKey("peers.id", ondelete="CASCADE"), primary_key=True)
    hour: Mapped[datetime] = mapped_column(UTCDateTime, primary_key=True)  # start of the UTC hour
    rx: Mapped[int] = mapped_column(BigInteger, default=0)  # bytes the node received from the peer (its upload)
    tx: Mapped[int] = mapped_column(BigInteger, default=0)  # bytes the node sent to the peer (its download)


class PeerUsageDay(Base):
    __tablename__ = "peer_usage_daily"
    __table_args__ = (Index("ix_peer_usage_daily_day", "day"),)

    peer_id: Mapped[str] = mapped_column(ForeignKey("peers.id", ondelete="CASCADE"), primary_key=True)
    day: Mapped[datetime] = mapped_column(UTCDateTime, primary_key=True)  # 00:00 UTC of the day
    rx: Mapped[int] = mapped_column(BigInteger, default=0)
    tx: Mapped[int] = mapped_column(BigInteger, default=0)


class ServerUsageHour(Base):
    """The same bytes per server: kept apart so a server's figures survive its peers moving away or being deleted."""

    __tablename__ = "server_usage_hourly"
    __table_args__ = (Index("ix_server_usage_hourly_hour", "hour"),)

    server_id: Mapped[str] = mapped_column(ForeignKey("servers.id", ondelete="CASCADE"), primary_key=True)
    hour: Mapped[datetime] = mapped_column(UTCDateTime, primary_key=True)
    rx: Mapped[int] = mapped_column(BigInteger, default=0)
    tx: Mapped[int] = mapped_column(BigInteger, default=0)


class ServerUsageDay(Base):
    __tablename__ = "server_usage_daily"
    __table_args__ = (Index("ix_server_usage_daily_day", "day"),)

    server_id: Mapped[str] = mapped_column(ForeignKey("servers.id", ondelete="CASCADE"), primary_key=True)
    day: Mapped[datetime] = mapped_column(UTCDateTime, primary_key=True)
    rx: Mapped[int] = mapped_column(BigInteger, default=0)
    tx: Mapped[int] = mapped_column(BigInteger, default=0)


class UsageCounter(Base):
    """The WireGuard counters already counted for a peer: where the next delta starts, whichever process (or which
    restart of it) receives the next report. Counters belong to one device on one node: a different server or public
    key, or a counter that went down, means they started again from zero."""

    __tablename__ = "usage_counters"

    peer_id: Mapped[str] = mapped_column(ForeignKey("peers.id", ondelete="CASCADE"), primary_key=True)
    server_id: Mapped[str] = mapped_column(String(32))
    public_key: Mapped[str] = mapped_column(String(44))
    rx: Mapped[int] = mapped_column(BigInteger)
    tx: Mapped[int] = mapped_column(BigInteger)
    counted_at: Mapped[datetime] = mapped_column(UTCDateTime)  # when the node reported these figures
