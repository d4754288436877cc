"""The node operation record: one change to one node's desired state, and how it ended."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Dialect, Enum, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from controlplane.db import Base, UTCDateTime, new_id, utcnow
from controlplane.domain.accounts.models import enum_values
from controlplane.nodes.changes import NodeChange, decode_change, encode_change


class ChangeColumn(TypeDecorator[NodeChange]):
    """A NodeChange stored as JSON: code reads and writes the typed struct, never a dict by string keys."""

    impl = JSON
    cache_ok = True

    def process_bind_param(self, value: NodeChange | None, dialect: Dialect) -> Any:
        return None if value is None else encode_change(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> NodeChange | None:
        return None if value is None else decode_change(value)


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
    BACKBONE = "backbone"  # the set of room-enabled nodes changed


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
    room_id: Mapped[str | None] = mapped_column(String(32), default=None, index=True)
    notify: Mapped[bool] = mapped_column(Boolean, default=True)
    # The batch whose one result tells this operation's outcome (a room owner's "move all my peers", its
    # room_moves row): the owner's browsers get the peer's new state, but no words of the peer's own.
    batch_id: Mapped[str | None] = mapped_column(String(32), default=None)
    delta: Mapped[NodeChange] = mapped_column(ChangeColumn)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
