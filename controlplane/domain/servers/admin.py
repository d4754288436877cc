"""The manager's Servidores page: servers with their peer counts and whether their agent is connected here, and
what changing a server sets off in the other domains (moves cancelled, rooms and the backbone following). Built per
request from the long-lived parts (domain/servers/dependencies.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.service import PeerService
from controlplane.domain.rooms.service import RoomService
from controlplane.domain.servers.install_steps import AgentSource, agent_trust
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.service import ServerInput, ServerPatch, ServerService
from controlplane.domain.servers.status import ServerCreated, ServerStatus, install_steps, status_of
from controlplane.nodes.operations import NodeOperations
from controlplane.settings import Settings

# A change to any of these reaches the rooms on the server and the backbone between room-enabled nodes.
ROOM_FIELDS = frozenset({"allow_partys", "active", "backbone_endpoint", "backbone_port", "address"})


async def peer_counts(db: AsyncSession, server_id: str | None = None) -> dict[str, tuple[int, int]]:
    """Each server's peers: (all, active)."""
    query = select(Peer.server_id, func.count(), func.sum(case((Peer.active.is_(True), 1), else_=0))).group_by(
        Peer.server_id
    )
    if server_id:
        query = query.where(Peer.server_id == server_id)
    return {sid: (total, int(active or 0)) for sid, total, active in (await db.execute(query)).all()}


class ServerAdmin:
    def __init__(
        self,
        servers: ServerService,
        peers: PeerService,
        rooms: RoomService,
        operations: NodeOperations,
        connected_here: Callable[[str], bool],
        settings: Settings,
    ) -> None:
        self._servers = servers
        self._peers = peers
        self._rooms = rooms
        self._operations = operations
        self._connected_here = connected_here
        self._settings = settings

    async def all(self, db: AsyncSession) -> list[ServerStatus]:
        counts = await peer_counts(db)
        return [
            status_of(s, *counts.get(s.id, (0, 0)), connected_here=self._connected_here(s.id))
            for s in await self._servers.all(db)
        ]

    async def status(self, db: AsyncSession, server: Server) -> ServerStatus:
        total, active = (await peer_counts(db, server.id)).get(server.id, (0, 0))
        return status_of(server, total, active, self._connected_here(server.id))

    async def read(self, db: AsyncSession, server_id: str) -> ServerStatus:
        return await self.status(db, await self._servers.get(db, server_id))

    async def create(self, db: AsyncSession, data: ServerInput) -> tuple[Server, ServerCreated]:
        server, credential = await self._servers.create(db, data)
        return server, await self._created(db, server, credential)

    async def update(self, db: AsyncSession, server_id: str, data: ServerPatch) -> tuple[Server, dict[str, Any]]:
        server, changes = await self._servers.update(db, server_id, data)
        if changes.get("active") is False:
            await self._peers.cancel_moves_to(db, server.id)  # docs/operations.md, "Make before break"
        if changes.keys() & ROOM_FIELDS:
            # Rooms on this node and the backbone between room-enabled nodes follow (issue 4's path); a disabled
            # server is out of service for rooms (docs/api.md, rooms consistency rules).
            await self._rooms.server_rooms_changed(db, server)
        return server, changes

    async def reissue_credential(self, db: AsyncSession, server_id: str) -> tuple[Server, ServerCreated]:
        """A new credential; the old one is refused from now on and the agent's open stream ends."""
        credential = await self._servers.reissue_credential(db, server_id)
        server = await self._servers.get(db, server_id)
        self._operations.credential_revoked(db, server_id)
        return server, await self._created(db, server, credential)

    async def revoke_credential(self, db: AsyncSession, server_id: str) -> Server:
        server = await self._servers.revoke_credential(db, server_id)
        self._operations.credential_revoked(db, server_id)
        return server

    async def _created(self, db: AsyncSession, server: Server, credential: str) -> ServerCreated:
        settings = self._settings
        source = AgentSource(settings.agent_repository, settings.agent_ref)
        trust = agent_trust(settings.agent_tls_ca, settings.grpc_public_url)
        install, missing = install_steps(server, credential, settings.grpc_public_url, trust, source)
        status = await self.status(db, server)
        return ServerCreated(server=status, credential=credential, install=install, install_missing=missing)
