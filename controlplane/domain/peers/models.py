"""Peers (one WireGuard configuration per device) and their plan history; the node operations that apply them
live in controlplane/nodes/models.py."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import (
    BigInteger,
    Boolean,
    FetchedValue,
    ForeignKey,
    Index,
    Numeric,
    String,
    Text,
    UniqueConstraint,
    and_,
    select,
)
from sqlalchemy.orm import Mapped, joinedload, mapped_column, relationship

from controlplane.db import Base, UTCDateTime, new_id, utcnow
from controlplane.domain.rooms.models import RoomMember
from controlplane.domain.servers.models import Server


class Peer(Base):
    __tablename__ = "peers"
    __table_args__ = (
        # A tunnel address is handed out once per server; freed when the peer leaves or is deleted.
        UniqueConstraint("server_id", "address", name="uq_peers_server_address"),
        # A pending placement holds its address on the target too (docs/operations.md, "Make before break").
        UniqueConstraint("pending_server_id", "pending_address", name="uq_peers_pending_server_address"),
        Index("ix_peers_expiration", "active", "expiration_date"),
    )
    # Every UPDATE of a peer returns its version (RETURNING, on SQLite and PostgreSQL): the version a flush grew
    # comes back with that flush's own statement, not a SELECT after it (domain/versions.py).
    __mapper_args__ = {"eager_defaults": True}

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    server_id: Mapped[str] = mapped_column(ForeignKey("servers.id"), index=True)
    name: Mapped[str] = mapped_column(String(32))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    # Staff disabled it: it stays disabled, paid or not, until staff enable it (docs/security.md, "admin disable").
    disabled_by_staff: Mapped[bool] = mapped_column(Boolean, default=False)
    manual_payment: Mapped[bool] = mapped_column(Boolean, default=False)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expiration_date: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    address: Mapped[str] = mapped_column(String(45))
    public_key: Mapped[str] = mapped_column(String(44), unique=True)
    private_key_enc: Mapped[str] = mapped_column(Text)
    preshared_key_enc: Mapped[str] = mapped_column(Text)
    mirror_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    mirror_token_enc: Mapped[str] = mapped_column(Text)
    # One device per peer (docs/operations.md, "One device per peer"): when its node saw the peer's endpoint
    # alternate between addresses (two devices sharing the configuration). Cleared when its keys are regenerated.
    shared_config_warned_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    # Mirror link bound to one device (docs/api.md, "Mirror links"): off by default; once on, the first device id
    # that fetches the link is kept (as a keyed hash) and other devices are refused until the customer releases it.
    mirror_device_binding: Mapped[bool] = mapped_column(Boolean, default=False)
    mirror_device_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    # Paused by its owner (docs/api.md, "Pause and resume"): since when; its node does not hold its key meanwhile.
    paused_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    # The operation in flight for this peer, if any: the peer's "busy" flag.
    pending_operation_id: Mapped[str | None] = mapped_column(String(32), default=None)
    # What that operation is (a node operation kind) and since when: the customer's view tells it (docs/api.md,
    # "Peer operations"). Set and cleared with pending_operation_id.
    pending_kind: Mapped[str | None] = mapped_column(String(16), default=None)
    pending_since: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    # How the last create, key rotation or move ended, as its owner was told: kept so that a poll or a reload says
    # what the push said (docs/api.md, "Peer operations").
    outcome_kind: Mapped[str | None] = mapped_column(String(16), default=None)
    outcome_ok: Mapped[bool | None] = mapped_column(Boolean, default=None)
    outcome_message: Mapped[str | None] = mapped_column(Text, default=None)
    outcome_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    # A move or key rotation waiting for its node (docs/operations.md, "Make before break"): the columns above stay
    # what the customer sees and downloads until the node confirms; these hold the new placement and keys. Set
    # together with pending_operation_id; a move keeps the keys (pending_public_key None), a rotation keeps the
    # server and address (pending_server_id = server_id). Secrets encrypted like the committed ones.
    pending_server_id: Mapped[str | None] = mapped_column(ForeignKey("servers.id"), default=None, index=True)
    pending_address: Mapped[str | None] = mapped_column(String(45), default=None)
    pending_public_key: Mapped[str | None] = mapped_column(String(44), unique=True, default=None)
    pending_private_key_enc: Mapped[str | None] = mapped_column(Text, default=None)
    pending_preshared_key_enc: Mapped[str | None] = mapped_column(Text, default=None)
    # Of two views of this peer, the one with the larger version is the newer (docs/api.md, versions): it grows in
    # the transaction of every change to what the view shows (domain/versions.py), so it orders views whichever
    # process or host read them. server_onupdate: the database may change it in an UPDATE (`version + 1`), so the
    # mapper's eager defaults read it back in that UPDATE's RETURNING.
    version: Mapped[int] = mapped_column(BigInteger, default=1, server_default="1", server_onupdate=FetchedValue())

    server: Mapped[Server] = relationship(lazy="joined", foreign_keys=[server_id])
    # A pending move's target, named in the customer's view while the move runs.
    pending_server: Mapped[Server | None] = relationship(lazy="joined", foreign_keys=[pending_server_id])
    # The room this peer is in, if any (the room service writes memberships; this side only reads). Joined: one
    # statement reads a peer with its server, membership and room (a lock names its table: FOR UPDATE OF peers).
    membership: Mapped[RoomMember | None] = relationship(lazy="joined", uselist=False, viewonly=True)
    plans_history: Mapped[list[PlanHistory]] = relationship(
        lazy="selectin", order_by="PlanHistory.created", cascade="all, delete-orphan"
    )


# Whether a peer's key belongs on its node: every desired state (full states, deltas, pending forms) reads it here,
# so a state that takes a peer off its node (disabled, expired...) is declared in one place (controlplane/nodes/
# desired_state.py).
HELD_BY_NODE = and_(Peer.active.is_(True), Peer.paused_at.is_(None))


class PlanHistory(Base):
    __tablename__ = "plans_history"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    peer_id: Mapped[str] = mapped_column(ForeignKey("peers.id", ondelete="CASCADE"), index=True)
    plan_id: Mapped[str | None] = mapped_column(ForeignKey("plans.id", ondelete="SET NULL"), default=None)
    plan_name: Mapped[str] = mapped_column(String(64))
    plan_price: Mapped[Decimal] = mapped_column(Numeric(10, 2))
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ExpiryReminder(Base):
    """One reminder email sent (or being sent) about one expiration date of one peer.

    The primary key is the claim: whichever process inserts the row first sends the mail, any other blocks on the
    key until that transaction ends and then finds it taken. The expiration date is part of the key, so a renewed
    peer (a new date) is reminded again before its new date."""

    __tablename__ = "expiry_reminders"

    peer_id: Mapped[str] = mapped_column(ForeignKey("peers.id", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)  # "72h" or "24h"
    expiration_date: Mapped[datetime] = mapped_column(UTCDateTime, primary_key=True)
    sent_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# One peer with everything its view shows, in one statement: server, membership and room are joined by default, and
# so is the plan history here (selectin by default, for lists: a second statement, and for one peer the dearer
# part of the read; docs/benchmarks.md, "Cost per change"). A collection joined in: results need `.unique()`.
ONE_PEER = select(Peer).options(joinedload(Peer.plans_history))
