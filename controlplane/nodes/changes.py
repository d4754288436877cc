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


def encode_change(change: NodeChange) -> dict[str, object]:
    return msgspec.to_builtins(change)  # type: ignore[no-any-return]


def decode_change(stored: object) -> NodeChange:
    return msgspec.convert(stored, NodeChange)
