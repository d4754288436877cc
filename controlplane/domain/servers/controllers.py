"""Admin endpoints for servers and their agents, and for placing peers by hand (the manager pages build on these)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated

import msgspec
from litestar import Controller, get, patch, post
from litestar.params import FromPath, JSONBody

from controlplane.db import utcnow
from controlplane.dependencies import DB, STAFF, ServicesDep, Staff
from controlplane.domain.accounts.models import Role
from controlplane.domain.accounts.sessions import Principal
from controlplane.domain.peers.schemas import PeerView
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.service import ServerInput
from controlplane.errors import Forbidden, NotFound

ONLINE_WITHIN = timedelta(seconds=45)


class ServerStatus(msgspec.Struct):
    id: str
    name: str
    address: str
    port: int
    ubication: str
    active: bool
    allow_partys: bool
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


class ServerCreated(msgspec.Struct):
    server: ServerStatus
    credential: str
    install: str


class PeerCreate(msgspec.Struct, forbid_unknown_fields=True):
    username: Annotated[str, msgspec.Meta(max_length=64)]
    name: Annotated[str, msgspec.Meta(max_length=64)]
    server: str | None = None
    days: Annotated[int, msgspec.Meta(ge=0, le=3650)] | None = None


class PeerState(msgspec.Struct, forbid_unknown_fields=True):
    active: bool


def _require_admin(staff: Principal) -> None:
    if staff.role is not Role.ADMIN:
        raise Forbidden("Solo un administrador puede hacer esto.", code="admin_only")


def status_of(server: Server) -> ServerStatus:
    online = server.last_seen is not None and utcnow() - server.last_seen < ONLINE_WITHIN
    return ServerStatus(
        id=server.id,
        name=server.name,
        address=server.address,
        port=server.port,
        ubication=server.ubication,
        active=server.active,
        allow_partys=server.allow_partys,
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
        in_sync=server.applied_serial >= server.serial,
    )


def install_steps(server: Server, credential: str, control_url: str) -> str:
    """The commands of docs/deployment.md ("Adding a VPN node"), with this node's values filled in."""
    return (
        "# En el servidor Debian nuevo, como root (pasos completos en docs/deployment.md):\n"
        "apt-get update && apt-get install -y wireguard-tools nftables python3-venv git ca-certificates\n"
        "useradd --system --no-create-home --shell /usr/sbin/nologin vpn-node\n"
        "# el código en /opt/vpn-service y su entorno: ver docs/deployment.md\n"
        "install -d -m 0750 -g vpn-node /etc/vpn-node\n"
        "cat > /etc/vpn-node/agent.toml <<'EOF'\n"
        f'control_url = "{control_url}"\n'
        f'node_id = "{server.id}"\n'
        f'credential = "{credential}"\n'
        f'interface = "{server.interface_name}"\n'
        'backend = "kernel"\n'
        "# gRPC con TLS (recomendado): la CA del certificado del panel, p. ej.\n"
        '# tls_ca = "/etc/ssl/certs/ca-certificates.crt"\n'
        "EOF\n"
        "chown root:vpn-node /etc/vpn-node/agent.toml && chmod 0640 /etc/vpn-node/agent.toml\n"
        "install -m 0644 /opt/vpn-service/packaging/vpn-node-agent.service /etc/systemd/system/\n"
        "systemctl daemon-reload && systemctl enable --now vpn-node-agent\n"
    )


class AdminServerController(Controller):
    path = "/api/admin"
    tags = ["admin"]
    dependencies = STAFF

    @get("/servers", operation_id="adminListServers")
    async def list_servers(self, services: ServicesDep, db: DB, staff: Staff) -> list[ServerStatus]:
        return [status_of(s) for s in await services.servers.all(db)]

    @post("/servers", status_code=201, operation_id="adminCreateServer")
    async def create_server(
        self, services: ServicesDep, db: DB, staff: Staff, data: JSONBody[ServerInput]
    ) -> ServerCreated:
        _require_admin(staff)
        server, credential = await services.servers.create(db, data)
        return ServerCreated(
            server=status_of(server),
            credential=credential,
            install=install_steps(server, credential, services.settings.grpc_public_url),
        )

    @post("/servers/{server_id:str}/credential", status_code=201, operation_id="adminReissueCredential")
    async def reissue(self, services: ServicesDep, db: DB, staff: Staff, server_id: FromPath[str]) -> ServerCreated:
        _require_admin(staff)
        credential = await services.servers.reissue_credential(db, server_id)
        server = await services.servers.get(db, server_id)
        return ServerCreated(
            server=status_of(server),
            credential=credential,
            install=install_steps(server, credential, services.settings.grpc_public_url),
        )

    @post("/peers", status_code=201, operation_id="adminCreatePeer")
    async def create_peer(self, services: ServicesDep, db: DB, staff: Staff, data: JSONBody[PeerCreate]) -> PeerView:
        _require_admin(staff)
        user = await services.accounts.find_by_username(db, data.username)
        if user is None or user.role is not Role.CUSTOMER:
            raise NotFound("Cliente no encontrado.", code="user_not_found")
        server = await services.servers.get(db, data.server) if data.server else None
        expiration = utcnow() + timedelta(days=data.days) if data.days else None
        peer = await services.peers.create(db, user.id, data.name, server=server, expiration_date=expiration)
        return services.peers.view(peer)

    @patch("/peers/{peer_id:str}", operation_id="adminSetPeerState")
    async def set_peer_state(
        self, services: ServicesDep, db: DB, staff: Staff, peer_id: FromPath[str], data: JSONBody[PeerState]
    ) -> PeerView:
        _require_admin(staff)
        peer = await services.peers.by_id(db, peer_id)
        await services.peers.set_active(db, peer, data.active)
        return services.peers.view(peer)
