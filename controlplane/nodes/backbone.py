"""The backbone: WireGuard tunnels between the room-enabled nodes, so a room spans servers (docs/design.md)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.servers.addresses import backbone_interface_address
from controlplane.domain.servers.models import Server
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import OperationKind
from controlplane.nodes.operations import NodeOperations
from protos import agent_pb2

# The backbone interface's default name (an agent may override it locally, VPN_NODE_BACKBONE_INTERFACE).
BACKBONE_INTERFACE = "wgb0"


def allowed_ips(address: str) -> list[str]:
    return [f"{address}/128" if ":" in address else f"{address}/32"]


def on_backbone(server: Server) -> bool:
    return server.hosts_rooms and bool(server.backbone_address)


async def backbone_spec(db: AsyncSession, server: Server) -> agent_pb2.BackboneSpec:
    """The node's side of the backbone: empty (no backbone) unless it allows rooms; its peers are the other
    room-enabled nodes whose key is known, each routing its client subnet and backbone address."""
    if not on_backbone(server):
        return agent_pb2.BackboneSpec(name="")
    assert server.backbone_address is not None
    others = await db.execute(
        select(Server)
        .where(
            Server.id != server.id,
            Server.allow_partys.is_(True),
            Server.active.is_(True),
            Server.public_key.is_not(None),
            Server.backbone_address.is_not(None),
        )
        .order_by(Server.id)
    )
    return agent_pb2.BackboneSpec(
        name=BACKBONE_INTERFACE,
        listen_port=server.backbone_port,
        addresses=[backbone_interface_address(server.backbone_address)],
        peers=[
            agent_pb2.BackbonePeer(
                node_id=other.id,
                public_key=other.public_key or "",
                endpoint=_endpoint(other.backbone_endpoint or other.address, other.backbone_port),
                allowed_ips=[other.tunnel_subnet, *allowed_ips(other.backbone_address or "")],
            )
            for other in others.scalars()
        ],
    )


def _endpoint(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def refresh_backbone(db: AsyncSession, nodes: NodeOperations, include: Iterable[str] = ()) -> None:
    """The set of room-enabled nodes (or one's key, endpoint or port) changed: every room-enabled node, and the
    nodes in `include` (one that just stopped allowing rooms drops its backbone), gets its backbone anew."""
    rows = await db.execute(select(Server))
    extra = set(include)
    for server in sorted(rows.scalars(), key=lambda s: s.id):
        if on_backbone(server) or server.id in extra:
            await nodes.change(db, server.id, OperationKind.BACKBONE, NodeChange.backbone_changed(), notify=False)
