"""Peers (one WireGuard configuration per device), their plan history and the node operations that apply them."""

from __future__ import annotations

import enum
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Enum, ForeignKey, Index, Numeric, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from controlplane.db import Base, UTCDateTime, new_id, utcnow
from controlplane.domain.accounts.models import enum_values
from controlplane.domain.partys.models import PartyMember
from controlplane.domain.servers.models import Server


class Peer(Base):
    __tablename__ = "peers"
    __table_args__ = (
        # A tunnel address is handed out once per server; freed when the peer leaves or is deleted.
        UniqueConstraint("server_id", "address", name="uq_peers_server_address"),
        Index("ix_peers_expiration", "active", "expiration_date"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    server_id: Mapped[str] = mapped_column(ForeignKey("servers.id"), index=True)
    name: Mapped[str] = mapped_column(String(32))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    manual_payment: Mapped[bool] = mapped_column(Boolean, default=False)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expiration_date: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    address: Mapped[str] = mapped_column(String(45))
    public_key: Mapped[str] = mapped_column(String(44), unique=True)
    private_key_enc: Mapped[str] = mapped_column(Text)
    preshared_key_enc: Mapped[str] = mapped_column(Text)
    mirror_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    mirror_token_enc: Mapped[str] = mapped_column(Text)
    # The operation in flight for this peer, if any: the peer's "busy" flag.
    pending_operation_id: Mapped[str | None] = mapped_column(String(32), default=None)

    server: Mapped[Server] = relationship(lazy="joined")
    # The room this peer is in, if any (the room service writes memberships; this side only reads).
    membership: Mapped[PartyMember | None] = relationship(lazy="selectin", uselist=False, viewonly=True)
    plans_history: Mapped[list[PlanHistory]] = relationship(
        lazy="selectin", order_by="PlanHistory.created", cascade="all, delete-orphan"
    )


class PlanHistory(Base):
    __tablename__ = "plans_history"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    peer_id: Mapped[str] = mapped_column(ForeignKey("peers.id", ondelete="CASCADE"), index=True)
    plan_id: Mapped[str | None] = mapped_column(ForeignKey("plans.id", ondelete="SET NULL"), default=None)
    plan_name: Mapped[str] = mapped_column(String(64))
    plan_price: Mapped[Decimal] = mapped_column(Numeric(10, 2))
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class OperationStatus(enum.StrEnum):
    PENDING = "pending"
    OK = "ok"
    FAILED = "failed"


class OperationKind(enum.StrEnum):
    CREATE = "create"
    REGENERATE = "regenerate"
    CHANGE_SERVER = "change_server"
    DISABLE = "disable"
    ENABLE = "enable"
    REMOVE = "remove"  # the old node's half of a move, or a deleted peer
    ROOM = "room"  # a room's members changed on this node (or the room left it)
    BACKBONE = "backbone"  # the set of party-enabled nodes changed


class NodeOperation(Base):
    """One change to one node's desired state, durable until the agent answers it (or it times out)."""

    __tablename__ = "node_operations"
    __table_args__ = (
        UniqueConstraint("server_id", "serial", name="uq_node_operations_server_serial"),
        Index("ix_node_operations_pending", "status", "created"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    server_id: Mapped[str] = mapped_column(ForeignKey("servers.id", ondelete="CASCADE"))
    serial: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[OperationKind] = mapped_column(
        Enum(OperationKind, native_enum=False, length=16, values_callable=enum_values)
    )
    status: Mapped[OperationStatus] = mapped_column(
        Enum(OperationStatus, native_enum=False, length=16, values_callable=enum_values),
        default=OperationStatus.PENDING,
    )
    # Whose browser hears the outcome, and which peer's busy flag it clears (none for background halves).
    user_id: Mapped[str | None] = mapped_column(String(32), default=None)
    peer_id: Mapped[str | None] = mapped_column(String(32), default=None)
    # The room whose busy flag this operation holds: a room is busy while any of its operations is pending.
    party_id: Mapped[str | None] = mapped_column(String(32), default=None, index=True)
    notify: Mapped[bool] = mapped_column(Boolean, default=True)
    delta: Mapped[dict[str, Any]] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
