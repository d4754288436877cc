"""A peer switched on or off on its node by staff, a payment or the expiry job (`PeerService.set_active`), or
deleted (`PeerService.delete`). A switch stands whatever its node said: the database is the truth and the node
converges to it (docs/operations.md, "What the customer is told"), so its end tells nothing."""

from __future__ import annotations

from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.operations.base import PeerOperation, server_label
from controlplane.domain.servers.models import Server
from controlplane.nodes.models import OperationKind


def _enabling(peer: Peer) -> tuple[Server, str]:
    return peer.server, f"Activando el peer {peer.name} en {server_label(peer.server)}…"


def _disabling(peer: Peer) -> tuple[Server, str]:
    return peer.server, f"Desactivando el peer {peer.name} en {server_label(peer.server)}…"


def _removing(peer: Peer) -> tuple[Server, str]:
    return peer.server, f"Eliminando el peer {peer.name} de {server_label(peer.server)}…"


ENABLE = PeerOperation(name="enable", kind=OperationKind.ENABLE, running=_enabling)
DISABLE = PeerOperation(name="disable", kind=OperationKind.DISABLE, running=_disabling)
REMOVE = PeerOperation(name="remove", kind=OperationKind.REMOVE, running=_removing)
