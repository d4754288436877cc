"""Key rotation (`operation: "regenerate"`): new client keys, pending until the peer's node swaps them; until then the
customer sees and downloads the old ones, and if the node fails or times out they stay (docs/operations.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.operations import pending
from controlplane.domain.peers.operations.base import Accepted, Context, PeerOperation, server_label
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.status import is_online
from controlplane.errors import Conflict
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.nodes.operations import failure_reason
from controlplane.wgkeys import generate_keypair, generate_preshared_key

if TYPE_CHECKING:
    from controlplane.domain.peers.service import PeerService

OWN_SERVER_OFFLINE = (
    "El servidor de este peer no está en línea en este momento, así que no puede recibir claves nuevas. El peer"
    " conserva sus claves actuales; intente regenerarlo cuando el servidor vuelva."
)


class PeerRegenerate(msgspec.Struct, tag_field="operation", tag="regenerate", forbid_unknown_fields=True):
    """New keys for the peer (202; the outcome by push)."""


async def start(context: Context, db: AsyncSession, user_id: str, peer_id: str, _: PeerRegenerate) -> Accepted:
    peers = context.peers
    peer = await peers.claim(db, user_id, peer_id)
    if not is_online(peer.server):
        # Queued, the swap would wait for nobody and time out; refused, the customer knows at once and keeps
        # the keys that work (a node that comes back gets its full state, old keys included).
        raise Conflict(OWN_SERVER_OFFLINE, code="server_offline")
    private, public = generate_keypair()
    peer.pending_server_id = peer.server_id
    peer.pending_public_key = public
    peer.pending_private_key_enc = peers.box.encrypt(private)
    peer.pending_preshared_key_enc = peers.box.encrypt(generate_preshared_key())
    rotation = NodeChange.key_rotation(peer.id, peer.public_key)
    await peers.nodes.change(db, peer.server_id, OperationKind.REGENERATE, rotation, user_id=user_id, peer=peer)
    return Accepted(peer)


def running(peer: Peer) -> tuple[Server, str]:
    text = (
        f"Generando claves nuevas para {peer.name} en {server_label(peer.server)}… su configuración actual sigue"
        " funcionando hasta que terminen."
    )
    return peer.server, text


async def ended(peers: PeerService, db: AsyncSession, operation: NodeOperation, peer: Peer) -> str:
    await pending.settle(peers, db, operation, peer)
    if operation.status is OperationStatus.OK:
        return f"Peer {peer.name} regenerado correctamente."
    return (
        f"Hubo un error al intentar regenerar el peer {peer.name}: {failure_reason(operation)}. El peer conserva sus"
        " claves anteriores y su configuración actual sigue funcionando."
    )


OPERATION = PeerOperation(
    name="regenerate",
    request=PeerRegenerate,
    start=start,
    kind=OperationKind.REGENERATE,
    running=running,
    ended=ended,
)
