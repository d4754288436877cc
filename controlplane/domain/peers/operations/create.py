"""A new peer on its node (a purchase or staff create it: `PeerService.create`; no customer request of its own)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.operations.base import PeerOperation, server_label
from controlplane.domain.servers.models import Server
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.nodes.operations import failure_reason

if TYPE_CHECKING:
    from controlplane.domain.peers.service import PeerService


def running(peer: Peer) -> tuple[Server, str]:
    return peer.server, (
        f"Preparando el peer {peer.name} en {server_label(peer.server)}… estará listo en unos segundos."
    )


async def ended(peers: PeerService, db: AsyncSession, operation: NodeOperation, peer: Peer) -> str:
    if operation.status is OperationStatus.OK:
        return f"Peer {peer.name} creado correctamente."
    return (
        f"El peer {peer.name} está creado, pero {server_label(peer.server)} aún no lo confirma:"
        f" {failure_reason(operation)}. Funcionará en cuanto el servidor se sincronice; si en unos minutos no se"
        " conecta, avise a soporte."
    )


OPERATION = PeerOperation(name="create", kind=OperationKind.CREATE, running=running, ended=ended)
