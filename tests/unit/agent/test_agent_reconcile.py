"""The pure reconcile step: what a full snapshot or a delta changes on a device, and what it must never do."""

from __future__ import annotations

import base64

from node_agent.reconcile import reconcile
from node_agent.state import (
    Backbone,
    DesiredState,
    DeviceState,
    Interface,
    Peer,
    Room,
    desired_from_delta,
    desired_from_full_state,
)
from protos import agent_pb2


def key(n: int) -> str:
    return base64.b64encode(n.to_bytes(32, "big")).decode()


def peer(n: int, psk: str = "", ips: tuple[str, ...] | None = None) -> Peer:
    return Peer(key(n), psk, frozenset(ips or (f"10.8.{n // 250}.{n % 250 + 2}/32",)))


IFACE = Interface("wg0", 51820, frozenset({"10.8.0.1/24"}), 1420)


def device(*peers: Peer, port: int = 51820) -> DeviceState:
    return DeviceState(peers={p.public_key: p for p in peers}, listen_port=port, addresses=IFACE.addresses, mtu=1420)


def snapshot(*peers: Peer, rooms: dict[str, Room] | None = None, serial: int = 1) -> DesiredState:
    return DesiredState(
        serial=serial,
        full=True,
        peers={p.public_key: p for p in peers},
        rooms=rooms or {},
        interface=IFACE,
        backbone=Backbone(Interface("")),
    )


def delta(*peers: Peer, remove: tuple[str, ...] = (), serial: int = 2) -> DesiredState:
    return DesiredState(
        serial=serial, full=False, peers={p.public_key: p for p in peers}, remove_peers=frozenset(remove)
    )


def test_snapshot_onto_empty_device_adds_every_peer() -> None:
    changes = reconcile(snapshot(peer(1), peer(2)), device())
    assert {p.public_key for p in changes.add_peers} == {key(1), key(2)}
    assert changes.update_peers == [] and changes.remove_peers == []


def test_same_snapshot_twice_changes_nothing() -> None:
    desired = snapshot(peer(1), peer(2), rooms={"r": Room("r", frozenset({"10.8.0.3"}))})
    first = reconcile(desired, device())
    second = reconcile(desired, device(peer(1), peer(2)), applied_rooms=first.rooms, applied_backbone=first.backbone)
    assert second.empty


def test_snapshot_prunes_peers_it_does_not_name() -> None:
    changes = reconcile(snapshot(peer(1)), device(peer(1), peer(2)))
    assert changes.remove_peers == [key(2)]


def test_delta_never_prunes_unnamed_peers() -> None:
    changes = reconcile(delta(peer(3)), device(peer(1), peer(2)))
    assert changes.remove_peers == []
    assert [p.public_key for p in changes.add_peers] == [key(3)]


def test_delta_removes_only_named_peers_that_exist() -> None:
    changes = reconcile(delta(remove=(key(2), key(9))), device(peer(1), peer(2)))
    assert changes.remove_peers == [key(2)]


def test_changed_preshared_key_is_an_update() -> None:
    changes = reconcile(snapshot(peer(1, psk=key(77))), device(peer(1)))
    assert [p.preshared_key for p in changes.update_peers] == [key(77)]
    assert not changes.add_peers and not changes.remove_peers


def test_changed_allowed_ips_is_an_update() -> None:
    changes = reconcile(snapshot(peer(1, ips=("10.8.0.9/32",))), device(peer(1)))
    assert [set(p.allowed_ips) for p in changes.update_peers] == [{"10.8.0.9/32"}]


def test_roaming_endpoint_is_not_a_difference() -> None:
    on_device = Peer(key(1), "", peer(1).allowed_ips, endpoint="192.0.2.1:4444")
    assert reconcile(snapshot(peer(1)), device(on_device), {}, Backbone(Interface(""))).empty


def test_key_swap_removes_old_and_adds_new() -> None:
    changes = reconcile(delta(peer(5), remove=(key(4),)), device(peer(4)))
    assert changes.remove_peers == [key(4)]
    assert [p.public_key for p in changes.add_peers] == [key(5)]


def test_key_upserted_and_removed_in_one_delta_stays() -> None:
    changes = reconcile(delta(peer(1), remove=(key(1),)), device(peer(1)))
    assert changes.remove_peers == []


def test_snapshot_keeps_peers_whose_entry_was_invalid() -> None:
    desired = snapshot(peer(1))
    desired.keep_peers = frozenset({key(2)})
    assert reconcile(desired, device(peer(1), peer(2))).remove_peers == []


def test_interface_port_and_addresses_are_diffed() -> None:
    actual = DeviceState(peers={}, listen_port=1000, addresses=frozenset({"10.9.0.1/24"}), mtu=1420)
    change = reconcile(snapshot(), actual).interface
    assert change is not None
    assert change.listen_port == 51820
    assert change.add_addresses == {"10.8.0.1/24"}
    assert change.remove_addresses == {"10.9.0.1/24"}
    assert change.mtu is None


def test_rooms_delta_upserts_and_removes_against_applied_rooms() -> None:
    applied = {"a": Room("a", frozenset({"10.8.0.2"})), "b": Room("b", frozenset({"10.8.0.3"}))}
    desired = DesiredState(
        serial=3,
        full=False,
        rooms={"c": Room("c", frozenset({"10.8.0.4"}))},
        remove_rooms=frozenset({"b"}),
    )
    changes = reconcile(desired, device(), applied_rooms=applied)
    assert changes.rooms is not None and set(changes.rooms) == {"a", "c"}


def test_peer_only_delta_leaves_rooms_alone() -> None:
    applied = {"a": Room("a", frozenset({"10.8.0.2"}))}
    assert reconcile(delta(peer(1)), device(), applied_rooms=applied).rooms is None


def test_backbone_change_is_reported_once() -> None:
    backbone = Backbone(Interface("wgb0", 51821, frozenset({"10.255.0.1/24"})), (peer(9),))
    desired = snapshot()
    desired.backbone = backbone
    assert reconcile(desired, device(), {}, None).backbone == backbone
    assert reconcile(desired, device(), {}, backbone).backbone is None


def test_ten_thousand_peer_noop_is_empty() -> None:
    peers = [peer(n) for n in range(10_000)]
    changes = reconcile(snapshot(*peers), device(*peers), {}, Backbone(Interface("")))
    assert changes.empty


def test_proto_snapshot_normalises_addresses_and_keys() -> None:
    msg = agent_pb2.FullState(
        serial=7,
        interface=agent_pb2.InterfaceSpec(name="wg0", listen_port=51820, addresses=["10.8.0.1/24"]),
        peers=[agent_pb2.PeerSpec(public_key=key(1), allowed_ips=["10.8.0.2", "fd00:8::2/128"])],
    )
    desired = desired_from_full_state(msg)
    assert desired.peers[key(1)].allowed_ips == {"10.8.0.2/32", "fd00:8::2/128"}
    # The device reports the same peer in canonical form: nothing to do.
    on_device = Peer(key(1), "", frozenset({"10.8.0.2/32", "fd00:8::2/128"}))
    changes = reconcile(desired, device(on_device), {}, Backbone(Interface("")))
    assert changes.peers_empty


def test_proto_snapshot_skips_invalid_peer_and_names_it() -> None:
    msg = agent_pb2.FullState(
        serial=1,
        interface=agent_pb2.InterfaceSpec(name="wg0"),
        peers=[
            agent_pb2.PeerSpec(public_key=key(1), allowed_ips=["10.8.0.2/32"]),
            agent_pb2.PeerSpec(public_key=key(2), preshared_key="not-a-key", allowed_ips=["10.8.0.3/32"]),
        ],
    )
    desired = desired_from_full_state(msg)
    assert set(desired.peers) == {key(1)}
    assert desired.keep_peers == {key(2)}
    assert "not-a-key" not in " ".join(desired.invalid)  # secrets never echoed
    assert key(2) in " ".join(desired.invalid)


def test_proto_delta_with_invalid_entry_is_refused_whole() -> None:
    msg = agent_pb2.Delta(
        serial=2,
        upsert_peers=[agent_pb2.PeerSpec(public_key=key(1), allowed_ips=["10.8.0.300/32"])],
    )
    try:
        desired_from_delta(msg)
    except ValueError as exc:
        assert "10.8.0.300" in str(exc)
    else:
        raise AssertionError("invalid delta accepted")


def test_keys_and_routes_in_any_spelling_come_out_as_the_kernel_writes_them() -> None:
    """Canonical keys and host routes are taken as they are; every other spelling still goes the long way."""
    raw = bytes(range(32))
    canonical = base64.b64encode(raw).decode()
    # The same 32 bytes with the last character's two spare bits set: valid base64, not the canonical spelling.
    loose = canonical[:42] + "B="
    msg = agent_pb2.FullState(
        serial=1,
        interface=agent_pb2.InterfaceSpec(name="wg0"),
        peers=[
            agent_pb2.PeerSpec(public_key=canonical, allowed_ips=["10.8.0.2/32"]),
            agent_pb2.PeerSpec(public_key=key(7), preshared_key=loose, allowed_ips=["10.8.0.3"]),
            agent_pb2.PeerSpec(public_key=key(8), allowed_ips=["10.8.0.300/32"]),
            agent_pb2.PeerSpec(public_key=key(9), allowed_ips=["010.8.0.4/32"]),
        ],
    )
    desired = desired_from_full_state(msg)
    assert desired.peers[canonical].allowed_ips == {"10.8.0.2/32"}
    assert desired.peers[key(7)].preshared_key == base64.b64encode(base64.b64decode(loose)).decode() != loose
    assert desired.peers[key(7)].allowed_ips == {"10.8.0.3/32"}
    assert set(desired.peers) == {canonical, key(7)}  # an octet over 255 or with a leading zero is refused
    assert desired.keep_peers == {key(8), key(9)}
