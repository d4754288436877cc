"""Server (node) administration and the authentication of their agents."""

from __future__ import annotations

import hmac

import msgspec
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.crypto import SecretBox, random_token
from controlplane.db import utcnow
from controlplane.domain.servers.addresses import BACKBONE_SUBNET, allocate, validate_subnet
from controlplane.domain.servers.models import Server
from controlplane.errors import Conflict, NotFound
from controlplane.wgkeys import is_valid_key


class ServerInput(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    address: str
    tunnel_subnet: str
    port: int = 51820
    ubication: str = ""
    active: bool = True
    allow_partys: bool = False
    dns: str = "1.1.1.1"
    capacity: int = 250
    interface_name: str = "wg0"
    # Backbone (rooms across servers): the host other nodes dial ("" = address) and the UDP port.
    backbone_endpoint: str = ""
    backbone_port: int = 51821


class ServerService:
    def __init__(self, box: SecretBox) -> None:
        self._box = box

    async def create(self, db: AsyncSession, data: ServerInput) -> tuple[Server, str]:
        """A new server and its agent credential, returned this once (only a keyed hash is kept)."""
        if await db.scalar(select(func.count()).select_from(Server).where(Server.name == data.name)):
            raise Conflict("Ya existe un servidor con ese nombre.", code="server_name_taken")
        server = Server(**msgspec.structs.asdict(data))
        server.tunnel_subnet = validate_subnet(data.tunnel_subnet)
        server.backbone_address = await self._free_backbone_address(db)
        db.add(server)
        credential = self._issue(server)
        await db.flush()
        return server, credential

    async def _free_backbone_address(self, db: AsyncSession) -> str:
        """Every server gets one (used once it allows rooms); a concurrent pick fails on the unique constraint."""
        used = (await db.execute(select(Server.backbone_address).where(Server.backbone_address.is_not(None)))).scalars()
        return allocate(BACKBONE_SUBNET, [a for a in used if a])

    async def reissue_credential(self, db: AsyncSession, server_id: str) -> str:
        """The old credential stops working at once (a connected agent keeps its stream until it reconnects)."""
        server = await self.get(db, server_id)
        return self._issue(server)

    async def all(self, db: AsyncSession) -> list[Server]:
        return list((await db.execute(select(Server).order_by(Server.name))).scalars())

    async def get(self, db: AsyncSession, server_id: str) -> Server:
        server = await db.get(Server, server_id)
        if server is None:
            raise NotFound("Servidor no encontrado.", code="server_not_found")
        return server

    def _issue(self, server: Server) -> str:
        credential = random_token()
        server.credential_hash = self._box.lookup_hash(credential)
        server.credential_issued = utcnow()
        return credential

    async def authenticate_node(
        self, db: AsyncSession, node_id: str, credential: str, public_key: str
    ) -> Server | None:
        """The server whose credential this is, or None; constant-time comparison of the keyed hashes."""
        server = await db.get(Server, node_id) if node_id else None
        presented = self._box.lookup_hash(credential or "")
        stored = server.credential_hash if server is not None and server.credential_hash else "0" * 64
        if server is None or not hmac.compare_digest(presented, stored):
            return None
        if public_key and not is_valid_key(public_key):
            return None
        return server
