"""Admin endpoints for servers and their agents (the manager's Servidores page)."""

from __future__ import annotations

from litestar import Controller, delete, get, patch, post
from litestar.params import FromPath, JSONBody
from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.dependencies import (
    DB,
    Agents,
    Audit,
    ClientIP,
    Operations,
    Peers,
    Rooms,
    Servers,
    SettingsDep,
    Staff,
)
from controlplane.domain.accounts.guards import admin_only, admin_or_support
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.install_steps import AgentSource, agent_trust
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.service import ServerInput, ServerPatch
from controlplane.domain.servers.status import ServerCreated, ServerStatus, install_steps, status_of
from controlplane.field_names import changes_text
from controlplane.settings import Settings


async def _peer_counts(db: AsyncSession, server_id: str | None = None) -> dict[str, tuple[int, int]]:
    query = select(Peer.server_id, func.count(), func.sum(case((Peer.active.is_(True), 1), else_=0))).group_by(
        Peer.server_id
    )
    if server_id:
        query = query.where(Peer.server_id == server_id)
    return {sid: (total, int(active or 0)) for sid, total, active in (await db.execute(query)).all()}


async def _status(agents: Agents, db: AsyncSession, server: Server) -> ServerStatus:
    total, active = (await _peer_counts(db, server.id)).get(server.id, (0, 0))
    return status_of(server, total, active, agents.connected(server.id))


def _created(settings: Settings, server: Server, status: ServerStatus, credential: str) -> ServerCreated:
    source = AgentSource(settings.agent_repository, settings.agent_ref)
    trust = agent_trust(settings.agent_tls_ca, settings.grpc_public_url)
    install, missing = install_steps(server, credential, settings.grpc_public_url, trust, source)
    return ServerCreated(server=status, credential=credential, install=install, install_missing=missing)


class AdminServerController(Controller):
    path = "/api/admin/servers"
    tags = ["admin"]

    @get("/", operation_id="adminListServers", guards=[admin_or_support])
    async def list_servers(self, servers: Servers, agents: Agents, db: DB) -> list[ServerStatus]:
        counts = await _peer_counts(db)
        return [
            status_of(s, *counts.get(s.id, (0, 0)), connected_here=agents.connected(s.id))
            for s in await servers.all(db)
        ]

    @get("/{server_id:str}", operation_id="adminGetServer", guards=[admin_or_support])
    async def read(self, servers: Servers, agents: Agents, db: DB, server_id: FromPath[str]) -> ServerStatus:
        return await _status(agents, db, await servers.get(db, server_id))

    @post("/", status_code=201, operation_id="adminCreateServer", guards=[admin_only])
    async def create_server(
        self, servers: Servers, agents: Agents, settings: SettingsDep, audit: Audit, db: DB, staff: Staff,
        ip: ClientIP, data: JSONBody[ServerInput],
    ) -> ServerCreated:  # fmt: skip
        server, credential = await servers.create(db, data)
        await audit.record(
            db, staff, ip, AuditAction.SERVER_CREATE, "server", server.id,
            f"Servidor {server.name} ({server.address}:{server.port}, subred {server.tunnel_subnet})",
        )  # fmt: skip
        return _created(settings, server, await _status(agents, db, server), credential)

    @patch("/{server_id:str}", operation_id="adminUpdateServer", guards=[admin_only])
    async def update(
        self, servers: Servers, peers: Peers, rooms: Rooms, agents: Agents, audit: Audit, db: DB, staff: Staff,
        ip: ClientIP, server_id: FromPath[str], data: JSONBody[ServerPatch],
    ) -> ServerStatus:  # fmt: skip
        server, changes = await servers.update(db, server_id, data)
        if changes.get("active") is False:
            await peers.cancel_moves_to(db, server.id)  # docs/operations.md, "Make before break"
        if changes.keys() & {"allow_partys", "active", "backbone_endpoint", "backbone_port", "address"}:
            # Rooms on this node and the backbone between room-enabled nodes follow (issue 4's path); a disabled
            # server is out of service for rooms (docs/api.md, rooms consistency rules).
            await rooms.server_rooms_changed(db, server)
        summary = changes_text(changes)
        await audit.record(db, staff, ip, AuditAction.SERVER_UPDATE, "server", server.id, f"{server.name}: {summary}")
        return await _status(agents, db, server)

    @post("/{server_id:str}/credential", status_code=201, operation_id="adminReissueCredential", guards=[admin_only])
    async def reissue(
        self, servers: Servers, operations: Operations, agents: Agents, settings: SettingsDep, audit: Audit, db: DB,
        staff: Staff, ip: ClientIP, server_id: FromPath[str],
    ) -> ServerCreated:  # fmt: skip
        """A new credential; the old one is refused from now on and the agent's open stream ends."""
        credential = await servers.reissue_credential(db, server_id)
        server = await servers.get(db, server_id)
        await audit.record(
            db,
            staff,
            ip,
            AuditAction.SERVER_CREDENTIAL_REISSUE,
            "server",
            server.id,
            f"Nueva credencial para {server.name}",
        )
        operations.credential_revoked(db, server_id)
        return _created(settings, server, await _status(agents, db, server), credential)

    @delete("/{server_id:str}/credential", status_code=200, operation_id="adminRevokeCredential", guards=[admin_only])
    async def revoke(
        self, servers: Servers, operations: Operations, agents: Agents, audit: Audit, db: DB, staff: Staff,
        ip: ClientIP, server_id: FromPath[str],
    ) -> ServerStatus:  # fmt: skip
        server = await servers.revoke_credential(db, server_id)
        await audit.record(
            db,
            staff,
            ip,
            AuditAction.SERVER_CREDENTIAL_REVOKE,
            "server",
            server.id,
            f"Credencial revocada: {server.name}",
        )
        operations.credential_revoked(db, server_id)
        return await _status(agents, db, server)
