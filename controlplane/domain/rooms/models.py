"""Rooms: shared private networks between peers, and who is in them.

Customers call them "salas"; the wire keeps the contract's "partys" (docs/glossary.md)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    FetchedValue,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from controlplane.db import Base, UTCDateTime, new_id, utcnow


class Room(Base):
    __tablename__ = "rooms"
    # As Peer's: every UPDATE returns the version (domain/versions.py).
    __mapper_args__ = {"eager_defaults": True}

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(32))
    # The name's case-folded copy (service.name_key) carrying the unique constraint: joining is by name, so names are
    # unique without regard to case. Folding can lengthen a name (up to three characters for one), hence 96.
    name_key: Mapped[str] = mapped_column(String(96), unique=True)
    # The owner reads it back, so it is encrypted (SecretBox), not hashed.
    password_enc: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # As Peer.version: grows with every change to what the room's view shows, its members included
    # (domain/versions.py).
    version: Mapped[int] = mapped_column(BigInteger, default=1, server_default="1", server_onupdate=FetchedValue())


class RoomMember(Base):
    """A peer in a room. The peer id is the primary key: the database itself keeps a peer in at most one room,
    so two concurrent joins of the same peer end with one winner."""

    __tablename__ = "room_members"

    peer_id: Mapped[str] = mapped_column(ForeignKey("peers.id", ondelete="CASCADE"), primary_key=True)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"), index=True)
    joined: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Presence, from the stats of the peer's server (RoomService.record_presence): the latest handshake (unix
    # seconds, 0 = none seen while in the room) and whether it was recent at the last report.
    handshake_at: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    online: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Who can hear whom (lobby.py): discovery packets its server saw from it since it joined, and when the last
    # one was (unix seconds, 0 = none since it joined).
    heard_packets: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    heard_at: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    # Round trip from its server to its device (node_agent/rtt.py, via record_presence): the median of the latest
    # ICMP echoes in microseconds (None = not measured: the device drops echo, or an older agent) and when the
    # control plane heard it (unix seconds), and the server that measured it: after a move the figure is about the
    # old server and is not shown (best_server.py reads it only while the member is still there).
    rtt_us: Mapped[int | None] = mapped_column(Integer, nullable=True, default=None)
    rtt_at: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    rtt_server: Mapped[str] = mapped_column(String(32), default="", server_default="")

    room: Mapped[Room] = relationship(lazy="joined")


class RoomGame(Base):
    """A game or service a member announces in its room (the lobby, controlplane/domain/rooms/lobby.py): what its
    server's agent recognized in the member's discovery traffic. Shown while `room_id` is the member's room and
    its last announcement is under 30 s old; rows past that are deleted when the next report arrives."""

    __tablename__ = "room_games"
    __table_args__ = (UniqueConstraint("peer_id", "key"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"), index=True)
    peer_id: Mapped[str] = mapped_column(ForeignKey("peers.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(200))
    game: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(64))
    detail: Mapped[str] = mapped_column(String(64))
    port: Mapped[int] = mapped_column(Integer)
    players: Mapped[int] = mapped_column(Integer)  # -1 = the game did not say
    max_players: Mapped[int] = mapped_column(Integer)
    seen_at: Mapped[float] = mapped_column(Float)  # unix seconds of its last announcement, by our clock
