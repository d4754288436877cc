"""Kernel backend's netlink codec, checked by encoding and decoding real wgmsg messages (no kernel needed)."""

from __future__ import annotations

import base64
from typing import Any

from pyroute2.netlink.generic.wireguard import WGPEER_F_REMOVE_ME, WGPEER_F_REPLACE_ALLOWEDIPS, wgmsg

from node_agent.backends.kernel import (
    ZERO_KEY,
    KernelBackend,
    parse_device_messages,
    parse_stats_messages,
)
from node_agent.reconcile import Changes
from node_agent.state import Peer


def key(n: int) -> str:
    return base64.b64encode(n.to_bytes(32, "big")).decode()


def roundtrip(attrs: list[list[Any]]) -> Any:
    """Encode like the kernel would send it, then decode as pyroute2 hands it to us."""
    msg = wgmsg()
    msg["cmd"] = 0
    msg["version"] = 1
    msg["attrs"] = [["WGDEVICE_A_IFNAME", "wg0"], *attrs]
    msg.encode()
    decoded = wgmsg(msg.data)
    decoded.decode()
    return decoded


def kernel_peer(peer: Peer, rx: int = 0, tx: int = 0, handshake: int = 0) -> dict[str, Any]:
    entry = KernelBackend._peer_attrs(peer, 0)
    entry["attrs"] += [
        ["WGPEER_A_RX_BYTES", rx],
        ["WGPEER_A_TX_BYTES", tx],
        ["WGPEER_A_LAST_HANDSHAKE_TIME", {"tv_sec": handshake, "tv_nsec": 0}],
    ]
    return entry


def test_dump_over_several_messages_is_read_whole() -> None:
    a = Peer(key(1), key(2), frozenset({"10.8.0.2/32", "fd00::2/128"}), "192.0.2.1:5000", 25)
    b = Peer(key(3), "", frozenset({"10.8.0.3/32"}))
    first = roundtrip(
        [
            ["WGDEVICE_A_PRIVATE_KEY", key(9)],
            ["WGDEVICE_A_LISTEN_PORT", 51820],
            ["WGDEVICE_A_PEERS", [kernel_peer(a)]],
        ]
    )
    # The kernel sends "no preshared key" as 32 zero bytes.
    b_entry = kernel_peer(b)
    second = roundtrip([["WGDEVICE_A_PEERS", [b_entry]]])
    device = parse_device_messages([first, second])
    assert device.listen_port == 51820
    assert device.private_key == key(9)
    assert device.peers[key(1)] == a
    assert device.peers[key(3)].preshared_key == ""
    assert device.peers[key(3)].allowed_ips == {"10.8.0.3/32"}


def test_peer_continued_in_next_message_keeps_all_allowed_ips() -> None:
    part1 = Peer(key(1), "", frozenset(f"10.9.0.{n}/32" for n in range(1, 101)))
    part2 = Peer(key(1), "", frozenset(f"10.9.1.{n}/32" for n in range(1, 101)))
    device = parse_device_messages(
        [
            roundtrip([["WGDEVICE_A_PEERS", [kernel_peer(part1)]]]),
            roundtrip([["WGDEVICE_A_PEERS", [kernel_peer(part2)]]]),
        ]
    )
    assert device.peers[key(1)].allowed_ips == part1.allowed_ips | part2.allowed_ips


def test_stats_carry_handshake_and_counters() -> None:
    peer = Peer(key(1), "", frozenset({"10.8.0.2/32"}), "192.0.2.1:5000")
    msg = roundtrip([["WGDEVICE_A_PEERS", [kernel_peer(peer, rx=100, tx=200, handshake=1_700_000_000)]]])
    (stat,) = parse_stats_messages([msg])
    assert (stat.public_key, stat.rx_bytes, stat.tx_bytes) == (key(1), 100, 200)
    assert stat.latest_handshake == 1_700_000_000
    assert stat.endpoint == "192.0.2.1:5000"


def test_set_message_carries_flags_keys_and_addresses() -> None:
    changes = Changes(
        add_peers=[Peer(key(1), "", frozenset({"10.8.0.2/32"}))],
        update_peers=[Peer(key(2), key(5), frozenset({"fd00::3/128"}))],
        remove_peers=[key(3)],
    )
    msg = roundtrip([["WGDEVICE_A_PEERS", list(KernelBackend._peer_entries(changes))]])
    entries = {entry.get_attr("WGPEER_A_PUBLIC_KEY").decode(): entry for entry in msg.get_attr("WGDEVICE_A_PEERS")}
    assert entries[key(3)].get_attr("WGPEER_A_FLAGS") == WGPEER_F_REMOVE_ME
    assert entries[key(1)].get_attr("WGPEER_A_FLAGS") == 0
    assert entries[key(1)].get_attr("WGPEER_A_PRESHARED_KEY").decode() == ZERO_KEY  # clears any old one
    assert entries[key(2)].get_attr("WGPEER_A_FLAGS") == WGPEER_F_REPLACE_ALLOWEDIPS
    assert [ip["addr"] for ip in entries[key(2)].get_attr("WGPEER_A_ALLOWEDIPS")] == ["fd00::3/128"]


def test_large_changes_are_cut_into_messages_under_the_attribute_limit() -> None:
    many = Changes(
        add_peers=[Peer(key(n), key(n + 50_000), frozenset({f"10.8.{n // 250}.{n % 250}/32"})) for n in range(3000)]
    )
    wide = Changes(
        add_peers=[Peer(key(1), "", frozenset(f"10.{n // 65536}.{n // 256 % 256}.{n % 256}/32" for n in range(1800)))]
    )
    for changes, expected_peers in ((many, 3000), (wide, 1)):
        batches = list(KernelBackend.batches(changes))
        assert len(batches) > 1
        seen: set[str] = set()
        total_ips = 0
        for batch in batches:
            msg = roundtrip([["WGDEVICE_A_PEERS", batch]])
            # A nested attribute's length field is 16 bits: the encoded peer list must fit.
            assert len(msg.data) < 65_000
            for entry in msg.get_attr("WGDEVICE_A_PEERS"):
                seen.add(entry.get_attr("WGPEER_A_PUBLIC_KEY").decode())
                total_ips += len(entry.get_attr("WGPEER_A_ALLOWEDIPS") or [])
        assert len(seen) == expected_peers
        assert total_ips == sum(len(p.allowed_ips) for p in changes.add_peers)
