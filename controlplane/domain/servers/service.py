"""Server (node) administration and the authentication of their agents."""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Callable
from typing import Annotated, Any

import msgspec
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.crypto import SecretBox, random_token
from controlplane.db import utcnow
from controlplane.domain.servers import fields
from controlplane.domain.servers.addresses import BACKBONE_SUBNET, allocate, validate_subnet
from controlplane.domain.servers.models import Server
from controlplane.errors import Conflict, Invalid, NotFound
from controlplane.wgkeys import is_valid_key

ServerName = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Host = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]
Port = Annotated[int, msgspec.Meta(ge=1, le=65535)]
Capacity = Annotated[int, msgspec.Meta(ge=1, le=65000)]
Location = Annotated[str, msgspec.Meta(max_length=64)]
InterfaceName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_.-]{1,15}$")]


class ServerInput(msgspec.Struct, forbid_unknown_fields=True):
    name: ServerName
    address: Host
    tunnel_subnet: Annotated[str, msgspec.Meta(max_length=43)]
    port: Port = 51820
    ubication: Location = ""
    active: bool = True
    allow_partys: bool = False
    dns: Host = "1.1.1.1"
    capacity: Capacity = 250
    interface_name: InterfaceName = "wg0"
    # Backbone (rooms across servers): the host other nodes dial ("" = address) and the UDP port.
    backbone_endpoint: Annotated[str, msgspec.Meta(max_length=255)] = ""
    backbone_port: Port = 51821


class ServerPatch(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """What may change on a live server; its subnet and interface stay (every peer's address depends on them)."""

    name: ServerName | None = None
    address: Host | None = None
    port: Port | None = None
    ubication: Location | None = None
    active: bool | None = None
    allow_partys: bool | None = None
    dns: Host | None = None
    capacity: Capacity | None = None
    backbone_endpoint: Annotated[str, msgspec.Meta(max_length=255)] | None = None
    backbone_port: Port | None = None


def check_backbone(endpoint: str, backbone_port: int, port: int) -> None:
    """The backbone endpoint is a bare host ("" = the server's address) and its UDP port is not the clients' one:
    both interfaces listen on the same machine."""
    if endpoint and not fields.is_host(endpoint):
        raise Invalid(
            "El endpoint del backbone debe ser un nombre de host o una IP, sin puerto ni esquema.",
            code="invalid_backbone_endpoint",
            fields={"backbone_endpoint": "Host o IP no válido."},
        )
    if backbone_port == port:
        raise Invalid(
            "El puerto del backbone debe ser distinto del puerto UDP de los clientes.",
            code="backbone_port_clash",
            fields={"backbone_port": "Debe ser distinto del puerto UDP."},
        )


# The checks of the fields that reach customers' files and the install steps (controlplane/domain/servers/fields.py).
_REQUIRED = {"name": "El nombre es obligatorio.", "address": "La dirección es obligatoria."}
_CHECKS: dict[str, Callable[[str], str]] = {
    "name": lambda value: fields.check_text(value, "name"),
    "ubication": lambda value: fields.check_text(value, "ubication"),
    "address": fields.check_address,
    "dns": fields.check_dns,
}


def checked(values: dict[str, Any]) -> dict[str, Any]:
    """`values` trimmed, each field that has a check passed through it (422 naming the first bad field)."""
    values = {k: v.strip() if isinstance(v, str) else v for k, v in values.items()}
    for key, message in _REQUIRED.items():
        if values.get(key) == "":
            raise Invalid(message, code="required", fields={key: "Campo obligatorio."})
    for key, check in _CHECKS.items():
        if isinstance(values.get(key), str):
            values[key] = check(values[key])
    return values


class ServerService:
    def __init__(self, box: SecretBox) -> None:
        self._box = box

    async def create(self, db: AsyncSession, data: ServerInput) -> tuple[Server, str]:
        """A new server and its agent credential, returned this once (only a keyed hash is kept)."""
        data = msgspec.structs.replace(data, **checked(msgspec.structs.asdict(data)))
        if await db.scalar(select(func.count()).select_from(Server).where(Server.name == data.name)):
            raise Conflict("Ya existe un servidor con ese nombre.", code="server_name_taken")
        check_backbone(data.backbone_endpoint, data.backbone_port, data.port)
        subnet = validate_subnet(data.tunnel_subnet)
        await self._check_overlap(db, subnet)
        server = Server(**msgspec.structs.asdict(data))
        server.tunnel_subnet = subnet
        server.backbone_address = await self._free_backbone_address(db)
        db.add(server)
        credential = self._issue(server)
        await db.flush()
        return server, credential

    async def _free_backbone_address(self, db: AsyncSession) -> str:
        """Every server gets one (used once it allows rooms); a concurrent pick fails on the unique constraint."""
        used = (await db.execute(select(Server.backbone_address).where(Server.backbone_address.is_not(None)))).scalars()
        return allocate(BACKBONE_SUBNET, [a for a in used if a])

    async def update(self, db: AsyncSession, server_id: str, patch: ServerPatch) -> tuple[Server, dict[str, Any]]:
        """Endpoint, DNS or name changes reach customers when they download their configuration again."""
        server = await self.get(db, server_id)
        changes = checked({k: v for k, v in msgspec.structs.asdict(patch).items() if v is not None})
        if "name" in changes:
            taken = await db.scalar(
                select(func.count()).select_from(Server).where(Server.name == changes["name"], Server.id != server.id)
            )
            if taken:
                raise Conflict("Ya existe un servidor con ese nombre.", code="server_name_taken")
        if changes.keys() & {"backbone_endpoint", "backbone_port", "port"}:
            check_backbone(
                changes.get("backbone_endpoint", server.backbone_endpoint),
                changes.get("backbone_port", server.backbone_port),
                changes.get("port", server.port),
            )
        for key, value in changes.items():
            setattr(server, key, value)
        await db.flush()
        return server, changes

    async def _check_overlap(self, db: AsyncSession, subnet: str) -> None:
        """Room-enabled nodes route each other's client subnets, so no two servers may share addresses."""
        network = ipaddress.ip_network(subnet)
        for name, other in (await db.execute(select(Server.name, Server.tunnel_subnet))).all():
            other_net = ipaddress.ip_network(other)
            if other_net.version == network.version and other_net.overlaps(network):  # type: ignore[arg-type]
                raise Conflict(
                    f"La subred se superpone con la del servidor {name}.",
                    code="subnet_overlap",
                    fields={"tunnel_subnet": "Subred en uso."},
                )

    async def revoke_credential(self, db: AsyncSession, server_id: str) -> Server:
        """No credential at all: the agent is refused from now on (its open stream is ended after the commit)."""
        server = await self.get(db, server_id)
        server.credential_hash = None
        server.credential_issued = None
        await db.flush()
        return server

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
