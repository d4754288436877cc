"""The change a domain service asks a node to make: the typed delta stored with every node operation."""

from __future__ import annotations

import msgspec


class NodeChange(msgspec.Struct, frozen=True, omit_defaults=True):
    """References to the desired state, never key material (secrets stay encrypted in their rows).

    Peers' keys, rooms' members and the backbone are read when the delta is built (desired_state.delta_message:
    just before the queuing transaction commits, or when the stream reads it back; docs/agent-protocol.md, "Deltas:
    built ahead or read back"), so a delta carries their state as of then, and a peer gone or off the node by then
    is skipped."""

    upsert_peers: tuple[str, ...] = ()  # peer ids, in their committed form
    remove_peers: tuple[str, ...] = ()  # public keys
    # Peer ids upserted in their pending form: a move or key rotation waiting for this node (docs/operations.md).
    pending_peers: tuple[str, ...] = ()
    upsert_rooms: tuple[str, ...] = ()  # room ids: the node gets each room's current members
    remove_rooms: tuple[str, ...] = ()
    backbone: bool = False  # the node gets its backbone anew

    # --- what happened, by name: domain code says which, and never spells the fields above -------------------

    @classmethod
    def peer_added(cls, peer_id: str) -> NodeChange:
        """A new peer, or one back in service (enabled, resumed): the node gets its committed keys."""
        return cls(upsert_peers=(peer_id,))

    @classmethod
    def peer_removed(cls, public_key: str) -> NodeChange:
        """A peer out of this node (deleted, disabled, paused, or the old node's half of a move)."""
        return cls(remove_peers=(public_key,))

    @classmethod
    def key_rotation(cls, peer_id: str, old_public_key: str) -> NodeChange:
        """New keys waiting for the peer's node: the old key goes, the pending one comes (make before break)."""
        return cls(remove_peers=(old_public_key,), pending_peers=(peer_id,))

    @classmethod
    def move_arriving(cls, peer_id: str) -> NodeChange:
        """A move's target node: it adds the peer at its pending address (the old node lets go once it confirms)."""
        return cls(pending_peers=(peer_id,))

    @classmethod
    def pending_undone(cls, peer_id: str, pending_public_key: str | None, public_key: str) -> NodeChange:
        """A key rotation or move that failed, for the node that may have applied it late: a rotation's node puts
        the committed keys back and drops the pending key; a move's target drops the peer."""
        if pending_public_key is not None:
            return cls(upsert_peers=(peer_id,), remove_peers=(pending_public_key,))
        return cls(remove_peers=(public_key,))

    @classmethod
    def room_changed(cls, room_id: str) -> NodeChange:
        """A room's members changed and the node still enforces it: it gets the room's current members."""
        return cls(upsert_rooms=(room_id,))

    @classmethod
    def room_left(cls, room_id: str) -> NodeChange:
        """The room has no member on this node any more (or is gone): the node drops it."""
        return cls(remove_rooms=(room_id,))

    @classmethod
    def backbone_changed(cls) -> NodeChange:
        """The set of room-enabled nodes changed: the node gets its backbone anew."""
        return cls(backbone=True)


def encode_change(change: NodeChange) -> dict[str, object]:
    return msgspec.to_builtins(change)  # type: ignore[no-any-return]


def decode_change(stored: object) -> NodeChange:
    return msgspec.convert(stored, NodeChange)
