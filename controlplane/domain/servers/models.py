"""VPN servers (nodes): where peers live, with the serial of their desired state."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from controlplane.db import Base, UTCDateTime, new_id, utcnow


class Server(Base):
    __tablename__ = "servers"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    address: Mapped[str] = mapped_column(String(255))  # endpoint host customers' clients dial
    port: Mapped[int] = mapped_column(Integer, default=51820)
    ubication: Mapped[str] = mapped_column(String(64), default="")
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    allow_partys: Mapped[bool] = mapped_column(Boolean, default=False)
    interface_name: Mapped[str] = mapped_column(String(15), default="wg0")
    tunnel_subnet: Mapped[str] = mapped_column(String(43))  # e.g. 10.8.0.0/24; the node takes the first host
    dns: Mapped[str] = mapped_column(String(255), default="1.1.1.1")
    capacity: Mapped[int] = mapped_column(Integer, default=250)
    # Backbone between room-enabled nodes (rooms across servers). The node's own WireGuard key serves the
    # backbone too, so no key is stored here. Address: unique inside BACKBONE_SUBNET; endpoint: host other nodes
    # dial (empty = `address`), UDP port `backbone_port`.
    backbone_address: Mapped[str | None] = mapped_column(String(45), unique=True, default=None)
    backbone_endpoint: Mapped[str] = mapped_column(String(255), default="")
    backbone_port: Mapped[int] = mapped_column(Integer, default=51821)
    # Agent credential: only a keyed hash is stored; the secret is shown once to the admin.
    credential_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    credential_issued: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    # Reported by the agent: the node's public key (its private key never leaves the node).
    public_key: Mapped[str | None] = mapped_column(String(44), default=None)
    agent_version: Mapped[str | None] = mapped_column(String(32), default=None)
    backend: Mapped[str | None] = mapped_column(String(16), default=None)
    last_seen: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    # When its agent's stream last ended cleanly: offline from then until it is seen again (docs/operations.md).
    disconnected_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    # Grows with every change to this node's desired state; the agent reports the last one it applied.
    serial: Mapped[int] = mapped_column(BigInteger, default=0)
    applied_serial: Mapped[int] = mapped_column(BigInteger, default=0)
    # The latest stats report of its agent, summed over the node (the manager's live status shows it).
    stats_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    stats_peers_connected: Mapped[int] = mapped_column(Integer, default=0)  # handshake within 3 minutes
    stats_rx_bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    stats_tx_bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    @property
    def hosts_rooms(self) -> bool:
        """Rooms may use this server: it allows them and is enabled. A disabled server is out of service for rooms
        (it leaves the backbone, its peers leave their rooms) even while its current peers keep their tunnels."""
        return self.allow_partys and self.active
