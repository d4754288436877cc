"""A move (`operation: "change_server", server`), make before break (docs/operations.md): the target node adds the
peer at a pending address; only once it confirms does the peer move (the old node drops it then). Refused to an
offline server. Staff's move (`POST /api/admin/peers/{id}/move`) runs this same start."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.guest_passes.rules import GuestPeerLocked, is_guest_peer
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.operations import pending
from controlplane.domain.peers.operations.base import Accepted, Context, PeerOperation, server_label
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.status import is_online
from controlplane.errors import Conflict, Invalid, NotFound
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.nodes.operations import failure_reason

if TYPE_CHECKING:
    from controlplane.domain.peers.service import PeerService

SERVER_OFFLINE = (
    "El servidor elegido no está en línea en este momento. Su peer sigue en su servidor actual; elija otro o"
    " intente más tarde."
)


class PeerChangeServer(msgspec.Struct, tag_field="operation", tag="change_server", forbid_unknown_fields=True):
    """Move the peer to `server` (202; the outcome by push)."""

    server: Annotated[str, msgspec.Meta(max_length=64)] | None = None


async def move(
    peers: PeerService, db: AsyncSession, user_id: str, peer_id: str, server_id: str | None, batch_id: str | None = None
) -> Peer:
    """`batch_id`: a room move's, whose one result tells this move's outcome (its own push carries no words)."""
    if not server_id:
        raise Invalid("Debe elegir un servidor.", code="server_required", fields={"server": "Obligatorio."})
    peer = await peers.claim(db, user_id, peer_id)
    target = await db.get(Server, server_id)
    if target is None:
        raise NotFound("Servidor no encontrado.", code="server_not_found")
    if not target.active:
        raise Conflict("El servidor elegido no está activo.", code="server_inactive")
    if target.id == peer.server_id:
        raise Conflict("El peer ya está en ese servidor.", code="same_server")
    if not target.hosts_rooms and await is_guest_peer(db, peer.id):
        # It would leave its room for a server without rooms: a guest pass's peer is for its room only.
        raise GuestPeerLocked()
    if not is_online(target):
        # Queued, it would wait for nobody and time out; refused, the peer simply stays where it works.
        raise Conflict(SERVER_OFFLINE, code="server_offline")
    await peers.place(db, peer, target, pending=True)
    arriving = NodeChange.move_arriving(peer.id)
    await peers.nodes.change(
        db, target.id, OperationKind.CHANGE_SERVER, arriving, user_id=user_id, peer=peer, batch_id=batch_id
    )
    return peer


async def start(context: Context, db: AsyncSession, user_id: str, peer_id: str, request: PeerChangeServer) -> Accepted:
    return Accepted(await move(context.peers, db, user_id, peer_id, request.server))


def running(peer: Peer) -> tuple[Server, str]:
    target = peer.pending_server or peer.server  # the move happens on its target
    return target, f"Moviendo a {server_label(target)}… su configuración actual sigue funcionando."


async def ended(peers: PeerService, db: AsyncSession, operation: NodeOperation, peer: Peer) -> str:
    target_id = peer.pending_server_id  # read before settling: a failed move's text names where it was going
    await pending.settle(peers, db, operation, peer)
    if operation.status is OperationStatus.OK:
        return f"El peer {peer.name} ya está en {server_label(peer.server)}. Descargue de nuevo la configuración."
    target = await db.get(Server, target_id) if target_id else None
    where = f" al servidor {target.name}" if target is not None else ""
    return (
        f"Hubo un error al intentar cambiar el servidor del peer{where}: {failure_reason(operation)}. El peer"
        f" {peer.name} sigue en el servidor {peer.server.name} y su configuración actual sigue funcionando."
    )


OPERATION = PeerOperation(
    name="change_server",
    request=PeerChangeServer,
    start=start,
    kind=OperationKind.CHANGE_SERVER,
    running=running,
    ended=ended,
)
