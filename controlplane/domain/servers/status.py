"""What staff see of a server (live status included) and the exact steps to install its agent."""

from __future__ import annotations

from datetime import datetime

import msgspec

from controlplane.domain.servers.install_steps import AgentSource, AgentTrust, NodeFacts, render
from controlplane.domain.servers.models import Server

# Liveness is the agents' stream's business (nodes/liveness.py); named here too for the domain's readers.
from controlplane.nodes.liveness import ONLINE_WITHIN as ONLINE_WITHIN
from controlplane.nodes.liveness import is_online as is_online
from controlplane.nodes.liveness import online_clause as online_clause


def is_in_sync(server: Server) -> bool:
    """Its agent has applied every change queued for it."""
    return server.applied_serial >= server.serial


class ServerStatus(msgspec.Struct):
    id: str
    name: str
    address: str
    port: int
    ubication: str
    active: bool
    allow_partys: bool
    interface_name: str
    tunnel_subnet: str
    dns: str
    capacity: int
    public_key: str | None
    agent_version: str | None
    backend: str | None
    online: bool
    last_seen: datetime | None
    serial: int
    applied_serial: int
    in_sync: bool
    has_credential: bool
    credential_issued: datetime | None
    peers: int
    peers_active: int
    stats_at: datetime | None
    stats_peers_connected: int
    stats_rx_bytes: int
    stats_tx_bytes: int
    backbone_address: str | None
    backbone_endpoint: str
    backbone_port: int


class ServerCreated(msgspec.Struct):
    server: ServerStatus
    credential: str
    install: str
    # Control-plane settings the install steps needed but did not have (e.g. VPN_AGENT_REPOSITORY): those steps
    # are left commented out and marked "FALTA", and the manager page says which settings to add.
    install_missing: list[str] = msgspec.field(default_factory=list)


def status_of(server: Server, peers: int = 0, peers_active: int = 0, connected_here: bool = False) -> ServerStatus:
    """`online` reads last-seen from the database (any process may hold the agent's stream); a stream held by this
    process counts too."""
    online = connected_here or is_online(server)
    return ServerStatus(
        id=server.id,
        name=server.name,
        address=server.address,
        port=server.port,
        ubication=server.ubication,
        active=server.active,
        allow_partys=server.allow_partys,
        interface_name=server.interface_name,
        tunnel_subnet=server.tunnel_subnet,
        dns=server.dns,
        capacity=server.capacity,
        public_key=server.public_key,
        agent_version=server.agent_version,
        backend=server.backend,
        online=online,
        last_seen=server.last_seen,
        serial=server.serial,
        applied_serial=server.applied_serial,
        in_sync=is_in_sync(server),
        has_credential=server.credential_hash is not None,
        credential_issued=server.credential_issued,
        peers=peers,
        peers_active=peers_active,
        stats_at=server.stats_at,
        stats_peers_connected=server.stats_peers_connected or 0,
        stats_rx_bytes=server.stats_rx_bytes or 0,
        stats_tx_bytes=server.stats_tx_bytes or 0,
        backbone_address=server.backbone_address,
        backbone_endpoint=server.backbone_endpoint,
        backbone_port=server.backbone_port,
    )


def install_steps(
    server: Server, credential: str, control_url: str, trust: AgentTrust, source: AgentSource
) -> tuple[str, list[str]]:
    """A root shell session for a fresh Debian server (packaging/node-install.sh with this server's values), and the
    settings it lacked. Only these steps ever show the credential; it is not stored in clear."""
    facts = NodeFacts(
        server_id=server.id,
        name=server.name,
        address=server.address,
        port=server.port,
        interface=server.interface_name,
        allow_partys=server.allow_partys,
        backbone_port=server.backbone_port,
        backbone_endpoint=server.backbone_endpoint,
    )
    return render(facts, credential, control_url, trust, source)
