"""NodeChange's named constructors say what happened; these pin the delta each one stores (what the agent is sent)."""

from __future__ import annotations

from controlplane.nodes.changes import NodeChange, decode_change, encode_change


def test_each_named_change_is_the_delta_its_name_says() -> None:
    assert NodeChange.peer_added("p1") == NodeChange(upsert_peers=("p1",))
    assert NodeChange.peer_removed("KEY=") == NodeChange(remove_peers=("KEY=",))
    # A rotation drops the old key and adds the pending one; a move's target adds the pending placement only.
    assert NodeChange.key_rotation("p1", "OLD=") == NodeChange(remove_peers=("OLD=",), pending_peers=("p1",))
    assert NodeChange.move_arriving("p1") == NodeChange(pending_peers=("p1",))
    # Undoing a failed rotation puts the committed keys back; a failed move's target drops the peer.
    assert NodeChange.pending_undone("p1", "NEW=", "OLD=") == NodeChange(upsert_peers=("p1",), remove_peers=("NEW=",))
    assert NodeChange.pending_undone("p1", None, "OLD=") == NodeChange(remove_peers=("OLD=",))
    assert NodeChange.room_changed("r1") == NodeChange(upsert_rooms=("r1",))
    assert NodeChange.room_left("r1") == NodeChange(remove_rooms=("r1",))
    assert NodeChange.backbone_changed() == NodeChange(backbone=True)


def test_a_named_change_is_stored_as_its_fields() -> None:
    change = NodeChange.key_rotation("p1", "OLD=")
    assert encode_change(change) == {"remove_peers": ("OLD=",), "pending_peers": ("p1",)}
    assert decode_change(encode_change(change)) == change
