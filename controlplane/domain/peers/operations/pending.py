"""Make before break (docs/operations.md): what a key rotation and a move share. The new keys or placement wait in
the peer's pending columns while the node operation runs; its end makes them the peer's, or drops them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus

if TYPE_CHECKING:
    from controlplane.domain.peers.service import PeerService


def clear(peer: Peer) -> None:
    peer.pending_server_id = peer.pending_address = peer.pending_public_key = None
    peer.pending_server = None
    peer.pending_private_key_enc = peer.pending_preshared_key_enc = None


async def settle(peers: PeerService, db: AsyncSession, operation: NodeOperation, peer: Peer) -> None:
    """The node answered (or the operation timed out): on ok the pending placement or keys become the peer's
    (and only then does the old node drop the old ones); otherwise they are dropped and the node that may have
    applied them gets a correcting delta, so it ends where the database is."""
    if peer.pending_server_id is None:
        return
    target_id, old_server_id = peer.pending_server_id, peer.server_id
    new_key, new_address = peer.pending_public_key, peer.pending_address
    ok = operation.status is OperationStatus.OK
    if ok and new_key is not None:
        assert peer.pending_private_key_enc is not None and peer.pending_preshared_key_enc is not None
        peer.public_key, peer.private_key_enc = new_key, peer.pending_private_key_enc
        peer.preshared_key_enc = peer.pending_preshared_key_enc
        peer.shared_config_warned_at = None  # new keys: only the device that downloads them again holds them
    moved = ok and new_address is not None and target_id != old_server_id
    clear(peer)
    if moved:
        assert new_address is not None
        await db.flush()  # the pending address is released before the peer takes it
        peer.server_id, peer.address = target_id, new_address
        peer.server = await db.get_one(Server, target_id)
    if ok and not moved:
        # Nothing more here: the caller's flush writes the new keys with the outcome it records, one UPDATE of the
        # peer (PostgreSQL checks a row's foreign keys again at a second UPDATE in the transaction that wrote it).
        return
    await db.flush()
    if moved:
        # Break after make: the new node holds the peer; now the old one lets it go.
        removal = NodeChange.peer_removed(peer.public_key)
        await peers.nodes.change(db, old_server_id, OperationKind.REMOVE, removal, notify=False)
        await peers.room_hooks.peer_moved(db, peer, old_server_id)
        return
    if not ok:
        # Serials keep order: a node that applied the change late (or comes back now) undoes it with this.
        correction = NodeChange.pending_undone(peer.id, new_key, peer.public_key)
        await peers.nodes.change(db, target_id, OperationKind.REMOVE, correction, notify=False)
