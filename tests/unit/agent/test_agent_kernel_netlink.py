"""Kernel backend's netlink codec (wg_netlink), checked against pyroute2's independent wgmsg (no kernel needed):
what we encode, pyroute2 decodes as the kernel would; what pyroute2 encodes as the kernel does, we read."""

from __future__ import annotations

import base64
import dataclasses
import ipaddress
import itertools
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from pyroute2.netlink.generic.wireguard import WGPEER_F_REMOVE_ME, WGPEER_F_REPLACE_ALLOWEDIPS, wgmsg

from node_agent.backends import wg_netlink
from node_agent.backends.kernel import KernelBackend
from node_agent.made_ahead import made_ahead
from node_agent.reconcile import Changes
from node_agent.state import Peer

ZERO_KEY = base64.b64encode(bytes(32)).decode()
HEADERS = 20  # nlmsghdr (16) + genlmsghdr (4)


def key(n: int) -> str:
    return base64.b64encode(n.to_bytes(32, "big")).decode()


def kernel_message(attrs: list[list[Any]]) -> bytes:
    """A dump message as the kernel sends it (encoded by pyroute2); returns its body, as wg_netlink.dump does."""
    msg = wgmsg()
    msg["cmd"] = 0
    msg["version"] = 1
    msg["attrs"] = [["WGDEVICE_A_IFNAME", "wg0"], *attrs]
    msg.encode()
    return bytes(msg.data[HEADERS:])


def kernel_peer(peer: Peer, rx: int = 0, tx: int = 0, handshake: int = 0, first_part: bool = True) -> dict[str, Any]:
    attrs: list[list[Any]] = [["WGPEER_A_PUBLIC_KEY", peer.public_key]]
    if first_part:  # a continuation entry carries only the key and further allowed IPs
        attrs += [
            ["WGPEER_A_PRESHARED_KEY", peer.preshared_key or ZERO_KEY],
            ["WGPEER_A_LAST_HANDSHAKE_TIME", {"tv_sec": handshake, "tv_nsec": 0}],
            ["WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL", peer.persistent_keepalive],
            ["WGPEER_A_TX_BYTES", tx],
            ["WGPEER_A_RX_BYTES", rx],
            ["WGPEER_A_PROTOCOL_VERSION", 1],
        ]
        if peer.endpoint:
            host, _, port = peer.endpoint.rpartition(":")
            attrs.append(["WGPEER_A_ENDPOINT", {"addr": host.strip("[]"), "port": int(port)}])
    attrs.append(["WGPEER_A_ALLOWEDIPS", [_allowed_ip(network) for network in sorted(peer.allowed_ips)]])
    return {"attrs": attrs}


def _allowed_ip(network: str) -> dict[str, Any]:
    net = ipaddress.ip_network(network)
    return {
        "attrs": [
            ["WGALLOWEDIP_A_FAMILY", 2 if net.version == 4 else 10],
            ["WGALLOWEDIP_A_IPADDR", net.network_address.packed],
            ["WGALLOWEDIP_A_CIDR_MASK", net.prefixlen],
        ]
    }


def decoded(message: bytes) -> Any:
    """Our encoded request, as pyroute2 (standing in for the kernel) reads it."""
    msg = wgmsg(message)
    msg.decode()
    return msg


def test_dump_over_several_messages_is_read_whole() -> None:
    a = Peer(key(1), key(2), frozenset({"10.8.0.2/32", "fd00::2/128"}), "192.0.2.1:5000", 25)
    b = Peer(key(3), "", frozenset({"10.8.0.3/32"}))
    c = Peer(key(4), "", frozenset({"10.8.0.4/32"}), "[2001:db8::1]:51820")
    first = kernel_message(
        [
            ["WGDEVICE_A_PRIVATE_KEY", key(9)],
            ["WGDEVICE_A_LISTEN_PORT", 51820],
            ["WGDEVICE_A_PEERS", [kernel_peer(a)]],
        ]
    )
    # The kernel sends "no preshared key" as 32 zero bytes.
    second = kernel_message([["WGDEVICE_A_PEERS", [kernel_peer(b), kernel_peer(c)]]])
    device = wg_netlink.DeviceReader().device_state([first, second])
    assert device.listen_port == 51820
    assert device.private_key == key(9)
    assert device.peers == {key(1): a, key(3): b, key(4): c}


def test_peer_continued_in_next_message_keeps_all_allowed_ips() -> None:
    part1 = Peer(key(1), key(2), frozenset(f"10.9.0.{n}/32" for n in range(1, 101)), "192.0.2.1:5000", 25)
    part2 = Peer(key(1), "", frozenset(f"10.9.1.{n}/32" for n in range(1, 101)))
    dump = [
        kernel_message([["WGDEVICE_A_PEERS", [kernel_peer(part1, rx=5)]]]),
        kernel_message([["WGDEVICE_A_PEERS", [kernel_peer(part2, first_part=False)]]]),
    ]
    device = wg_netlink.DeviceReader().device_state(dump)
    assert device.peers == {key(1): Peer(key(1), key(2), part1.allowed_ips | part2.allowed_ips, "192.0.2.1:5000", 25)}
    # The continuation is the same peer: one stats entry, with the counters of the first part.
    assert [(s.public_key, s.rx_bytes) for s in wg_netlink.peer_stats(dump)] == [(key(1), 5)]


def test_a_peer_read_again_is_found_as_it_was_and_any_change_is_seen() -> None:
    """The device reader remembers each peer entry of its last read (the kernel's head without the handshake time
    and counters): a resync finds unchanged peers in one lookup, and must still see every change an operator makes
    by hand between two reads."""
    peers = {
        n: Peer(key(n), key(100 + n) if n % 2 else "", frozenset({f"10.8.0.{n}/32"}), "192.0.2.1:5000" if n > 4 else "")
        for n in range(1, 9)
    }
    reader = wg_netlink.DeviceReader()

    def read(changed: dict[int, Peer], traffic: int) -> dict[str, Peer]:
        entries = [kernel_peer(peer, rx=traffic, tx=traffic, handshake=traffic) for peer in changed.values()]
        return reader.device_state([kernel_message([["WGDEVICE_A_PEERS", entries]])]).peers

    first = read(peers, traffic=0)
    assert first == {peer.public_key: peer for peer in peers.values()}
    again = read(peers, traffic=5000)  # handshakes and counters moved on: the same configuration
    assert again == first and all(again[k] is first[k] for k in first)  # found as they were, not parsed again

    by_hand = dict(peers)
    by_hand[1] = dataclasses.replace(peers[1], preshared_key=key(999))
    by_hand[2] = dataclasses.replace(peers[2], preshared_key=key(998))  # had none
    by_hand[3] = dataclasses.replace(peers[3], allowed_ips=frozenset({"10.8.0.33/32"}))
    by_hand[4] = dataclasses.replace(peers[4], persistent_keepalive=25)
    by_hand[5] = dataclasses.replace(peers[5], endpoint="[2001:db8::5]:51820")
    by_hand[6] = dataclasses.replace(peers[6], allowed_ips=peers[6].allowed_ips | {"fd00::6/128"})
    del by_hand[7]
    assert read(by_hand, traffic=6000) == {peer.public_key: peer for peer in by_hand.values()}
    assert read(peers, traffic=7000) == first  # and back


def test_a_continued_peer_read_again_keeps_its_continuation() -> None:
    part1 = Peer(key(1), key(2), frozenset(f"10.9.0.{n}/32" for n in range(1, 101)))
    part2 = Peer(key(1), "", frozenset(f"10.9.1.{n}/32" for n in range(1, 101)))
    other = Peer(key(3), "", frozenset({"10.9.2.1/32"}))
    reader = wg_netlink.DeviceReader()

    def read(first: Peer, continuation: Peer) -> dict[str, Peer]:
        dump = [
            kernel_message([["WGDEVICE_A_PEERS", [kernel_peer(first)]]]),
            kernel_message([["WGDEVICE_A_PEERS", [kernel_peer(continuation, first_part=False), kernel_peer(other)]]]),
        ]
        return reader.device_state(dump).peers

    whole = Peer(key(1), key(2), part1.allowed_ips | part2.allowed_ips)
    assert read(part1, part2) == {key(1): whole, key(3): other}
    assert read(part1, part2) == {key(1): whole, key(3): other}
    # A continuation stands for nothing alone: a change in the first part shows with the continuation unchanged.
    rekeyed = dataclasses.replace(part1, preshared_key=key(5), allowed_ips=frozenset({"10.9.0.1/32"}))
    assert read(rekeyed, part2)[key(1)] == Peer(key(1), key(5), frozenset({"10.9.0.1/32"}) | part2.allowed_ips)


def test_stats_carry_handshake_and_counters() -> None:
    peer = Peer(key(1), "", frozenset({"10.8.0.2/32"}), "192.0.2.1:5000")
    body = kernel_message([["WGDEVICE_A_PEERS", [kernel_peer(peer, rx=100, tx=200, handshake=1_700_000_000)]]])
    (stat,) = wg_netlink.peer_stats([body])
    assert (stat.public_key, stat.rx_bytes, stat.tx_bytes) == (key(1), 100, 200)
    assert stat.latest_handshake == 1_700_000_000
    assert stat.endpoint == "192.0.2.1:5000"


def set_message(changes: Changes) -> Any:
    (batch,) = KernelBackend.batches(changes)
    return decoded(wg_netlink.set_device_message(28, 7, "wg0", [wg_netlink.listen_port_attr(51820)], batch))


def test_set_message_carries_flags_keys_and_addresses() -> None:
    changes = Changes(
        add_peers=[Peer(key(1), "", frozenset({"10.8.0.2/32"}), "[2001:db8::1]:51820", 25)],
        update_peers=[Peer(key(2), key(5), frozenset({"fd00::3/128", "10.8.0.0/24"}))],
        remove_peers=[key(3)],
    )
    msg = set_message(changes)
    assert (msg["header"]["type"], msg["header"]["sequence_number"], msg["cmd"]) == (28, 7, 1)
    assert msg.get_attr("WGDEVICE_A_IFNAME") == "wg0"
    assert msg.get_attr("WGDEVICE_A_LISTEN_PORT") == 51820
    entries = {entry.get_attr("WGPEER_A_PUBLIC_KEY").decode(): entry for entry in msg.get_attr("WGDEVICE_A_PEERS")}
    assert entries[key(3)].get_attr("WGPEER_A_FLAGS") == WGPEER_F_REMOVE_ME
    assert entries[key(1)].get_attr("WGPEER_A_FLAGS") == 0
    assert entries[key(1)].get_attr("WGPEER_A_PRESHARED_KEY").decode() == ZERO_KEY  # clears any old one
    endpoint = entries[key(1)].get_attr("WGPEER_A_ENDPOINT")
    assert (endpoint["family"], endpoint["addr"], endpoint["port"]) == (10, "2001:db8::1", 51820)
    assert entries[key(1)].get_attr("WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL") == 25
    assert entries[key(2)].get_attr("WGPEER_A_FLAGS") == WGPEER_F_REPLACE_ALLOWEDIPS
    assert entries[key(2)].get_attr("WGPEER_A_PRESHARED_KEY").decode() == key(5)
    assert sorted(ip["addr"] for ip in entries[key(2)].get_attr("WGPEER_A_ALLOWEDIPS")) == [
        "10.8.0.0/24",
        "fd00::3/128",
    ]


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
            message = wg_netlink.set_device_message(28, 1, "wg0", [], batch)
            # A nested attribute's length field is 16 bits: the encoded peer list must fit.
            assert len(message) < 65_000
            for entry in decoded(message).get_attr("WGDEVICE_A_PEERS"):
                seen.add(entry.get_attr("WGPEER_A_PUBLIC_KEY").decode())
                total_ips += len(entry.get_attr("WGPEER_A_ALLOWEDIPS") or [])
        assert len(seen) == expected_peers
        assert total_ips == sum(len(p.allowed_ips) for p in changes.add_peers)


def test_one_address_peers_packed_at_once_read_as_the_kernel_reads_them() -> None:
    """The packed form of the common peer (one address, no endpoint, no keepalive) against pyroute2's reading."""
    peers = [
        Peer(key(1), key(11), frozenset({"10.8.0.2/32"})),
        Peer(key(2), "", frozenset({"10.8.0.0/24"})),
        Peer(key(3), key(13), frozenset({"fd00::3/128"})),
        Peer(key(4), "", frozenset({"2001:db8::/64"})),
    ]
    msg = set_message(Changes(update_peers=peers))
    entries = {entry.get_attr("WGPEER_A_PUBLIC_KEY").decode(): entry for entry in msg.get_attr("WGDEVICE_A_PEERS")}
    assert set(entries) == {peer.public_key for peer in peers}
    for peer in peers:
        entry = entries[peer.public_key]
        assert entry.get_attr("WGPEER_A_PRESHARED_KEY").decode() == (peer.preshared_key or ZERO_KEY)
        assert entry.get_attr("WGPEER_A_FLAGS") == WGPEER_F_REPLACE_ALLOWEDIPS
        assert [ip["addr"] for ip in entry.get_attr("WGPEER_A_ALLOWEDIPS")] == list(peer.allowed_ips)
        assert entry.get_attr("WGPEER_A_ENDPOINT") is None


def test_messages_made_ahead_come_in_order_and_bring_their_errors() -> None:
    assert list(made_ahead(iter(range(1000)), depth=3)) == list(range(1000))

    def failing() -> Iterator[int]:
        yield 1
        raise ValueError("encoding failed")

    made = made_ahead(failing())
    assert next(made) == 1
    with pytest.raises(ValueError, match="encoding failed"):
        next(made)
    # A caller that stops early (the kernel refused a message) stops the maker: nothing is left running.
    endless = made_ahead(itertools.count(), depth=2, name="endless")
    assert next(endless) == 0
    endless.close()
    assert not any(t.name == "made-ahead-endless" for t in threading.enumerate())
