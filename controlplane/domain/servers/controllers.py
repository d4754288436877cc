"""Admin endpoints for servers and their agents (the manager's Servidores page)."""

from __future__ import annotations

from litestar import Controller, delete, get, patch, post
from litestar.params import FromPath, JSONBody
from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.dependencies import DB, STAFF, ClientIP, ServicesDep, Staff
from controlplane.domain.manager.access import SUPPORT
from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.service import ServerInput, ServerPatch
from controlplane.domain.servers.status import AgentSource, ServerCreated, ServerStatus, install_steps, status_of
from controlplane.services import Services


async def _peer_counts(db: AsyncSession, server_id: str | None = None) -> dict[str, tuple[int, int]]:
    query = select(Peer.server_id, func.count(), func.sum(case((Peer.active.is_(True), 1), else_=0))).group_by(
        Peer.server_id
    )
    if server_id:
        query = query.where(Peer.server_id == server_id)
    return {sid: (total, int(active or 0)) for sid, total, active in (await db.execute(query)).all()}


async def _status(services: Services, db: AsyncSession, server: Server) -> ServerStatus:
    total, active = (await _peer_counts(db, server.id)).get(server.id, (0, 0))
    return status_of(server, total, active, services.agents.connected(server.id))


def _created(services: Services, server: Server, status: ServerStatus, credential: str) -> ServerCreated:
    settings = services.settings
    source = AgentSource(settings.agent_repository, settings.agent_ref)
    install, missing = install_steps(
        server, credential, settings.grpc_public_url, tls=bool(settings.grpc_tls_cert), source=source
    )
    return ServerCreated(server=status, credential=credential, install=install, install_missing=missing)


class AdminServerController(Controller):
    path = "/api/admin/servers"
    tags = ["admin"]
    dependencies = STAFF

    @get("/", operation_id="adminListServers", opt=SUPPORT)
    async def list_servers(self, services: ServicesDep, db: DB, staff: Staff) -> list[ServerStatus]:
        counts = await _peer_counts(db)
        return [
            status_of(s, *counts.get(s.id, (0, 0)), connected_here=services.agents.connected(s.id))
            for s in await services.servers.all(db)
        ]

    @get("/{server_id:str}", operation_id="adminGetServer", opt=SUPPORT)
    async def read(self, services: ServicesDep, db: DB, staff: Staff, server_id: FromPath[str]) -> ServerStatus:
        return await _status(services, db, await services.servers.get(db, server_id))

    @post("/", status_code=201, operation_id="adminCreateServer")
    async def create_server(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, data: JSONBody[ServerInput]
    ) -> ServerCreated:
        server, credential = await services.servers.create(db, data)
        await services.audit.record(
            db, staff, ip, "server.create", "server", server.id,
            f"Servidor {server.name} ({server.address}:{server.port}, subred {server.tunnel_subnet})",
        )  # fmt: skip
        return _created(services, server, await _status(services, db, server), credential)

    @patch("/{server_id:str}", operation_id="adminUpdateServer")
    async def update(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, server_id: FromPath[str],
        data: JSONBody[ServerPatch],
    ) -> ServerStatus:  # fmt: skip
        server, changes = await services.servers.update(db, server_id, data)
        if changes.get("active") is False:
            await services.peers.cancel_moves_to(db, server.id)  # docs/operations.md, "Make before break"
        if changes.keys() & {"allow_partys", "active", "backbone_endpoint", "backbone_port", "address"}:
            # Rooms on this node and the backbone between room-enabled nodes follow (issue 4's path); a disabled
            # server is out of service for rooms (docs/api.md, rooms consistency rules).
            await services.rooms.server_rooms_changed(db, server)
        summary = ", ".join(f"{k}={v}" for k, v in changes.items()) or "sin cambios"
        await services.audit.record(db, staff, ip, "server.update", "server", server.id, f"{server.name}: {summary}")
        return await _status(services, db, server)

    @post("/{server_id:str}/credential", status_code=201, operation_id="adminReissueCredential")
    async def reissue(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, server_id: FromPath[str]
    ) -> ServerCreated:
        """A new credential; the old one is refused from now on and the agent's open stream ends."""
        credential = await services.servers.reissue_credential(db, server_id)
        server = await services.servers.get(db, server_id)
        await services.audit.record(
            db, staff, ip, "server.credential_reissue", "server", server.id, f"Nueva credencial para {server.name}"
        )
        services.operations.credential_revoked(db, server_id)
        return _created(services, server, await _status(services, db, server), credential)

    @delete("/{server_id:str}/credential", status_code=200, operation_id="adminRevokeCredential")
    async def revoke(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, server_id: FromPath[str]
    ) -> ServerStatus:
        server = await services.servers.revoke_credential(db, server_id)
        await services.audit.record(
            db, staff, ip, "server.credential_revoke", "server", server.id, f"Credencial revocada: {server.name}"
        )
        services.operations.credential_revoked(db, server_id)
        return await _status(services, db, server)
