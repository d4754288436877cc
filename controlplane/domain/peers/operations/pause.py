"""Pause and resume (`operation: "pause"` / `"resume"`): the customer takes their own peer off its node for a while
and brings it back. While paused the node does not hold the peer's key (no handshake), the configuration and the QR
stay downloadable, and the expiry keeps counting (a pause buys no time). Synchronous: the pause is the database's
(`peers.paused_at`, read by every desired state through `HELD_BY_NODE`), so, like staff's switch, it stands whatever
the node answers and the node converges to it (a resync, a snapshot on reconnect)."""

from __future__ import annotations

from typing import Any

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.db import utcnow
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.operations.base import Context, Done, PeerOperation
from controlplane.errors import Conflict
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import OperationKind


class PeerPause(msgspec.Struct, tag_field="operation", tag="pause", forbid_unknown_fields=True):
    """Take the peer off its node until it is resumed (200)."""


class PeerResume(msgspec.Struct, tag_field="operation", tag="resume", forbid_unknown_fields=True):
    """Put a paused peer back on its node (200)."""


async def pause(context: Context, db: AsyncSession, user_id: str, peer_id: str, _: PeerPause) -> Done:
    peers = context.peers
    peer = await peers.claim(db, user_id, peer_id)  # active and with no operation running
    if peer.paused_at is not None:
        raise Conflict("Este peer ya está en pausa.", code="peer_paused")
    peer.paused_at = utcnow()
    removal = NodeChange.peer_removed(peer.public_key)
    await peers.nodes.change(db, peer.server_id, OperationKind.DISABLE, removal, notify=False)
    return Done(
        peer,
        f"Peer {peer.name} en pausa: no tendrá conexión hasta que lo reanude. Su configuración sigue disponible y"
        " el vencimiento sigue contando.",
    )


async def resume(context: Context, db: AsyncSession, user_id: str, peer_id: str, _: PeerResume) -> Done:
    peers = context.peers
    peer = await peers.owned(db, user_id, peer_id, lock=True)
    if peer.paused_at is None:
        raise Conflict("Este peer no está en pausa.", code="peer_not_paused")
    if peer.pending_operation_id is not None:
        raise Conflict("Ya hay una operación en curso para este peer.", code="peer_busy")
    peer.paused_at = None
    await db.flush()
    if not peer.active:  # expired while paused: back on its node when renewed
        return Done(peer, f"Peer {peer.name} reanudado. Sigue inactivo hasta que renueve su plan.")
    await peers.nodes.change(db, peer.server_id, OperationKind.ENABLE, NodeChange.peer_added(peer.id), notify=False)
    return Done(peer, f"Peer {peer.name} reanudado: ya puede conectarse con su configuración de siempre.")


def view(peer: Peer) -> dict[str, Any]:
    if peer.paused_at is None:
        return {}
    # No clock time in the text: the server would have to pick a time zone (UTC reads five hours off in Cuba);
    # `paused_since` is a moment, shown by the page in the customer's own time as every other date there.
    notice = (
        "El servidor no acepta la conexión de este peer hasta que lo reanude. Puede descargar su configuración;"
        " el vencimiento sigue contando."
    )
    return {"paused": True, "paused_since": peer.paused_at, "pause_notice": notice}


PAUSE = PeerOperation(name="pause", request=PeerPause, start=pause, view=view)
RESUME = PeerOperation(name="resume", request=PeerResume, start=resume)
