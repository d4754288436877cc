"""wireguard-go's UAPI text: what the agent writes for a change set and how it reads a device back."""

from __future__ import annotations

import base64

import pytest

from node_agent.backends import uapi
from node_agent.backends.uapi import UapiError, encode_set, parse_device, parse_stats
from node_agent.reconcile import Changes
from node_agent.state import Peer


def key(n: int) -> str:
    return base64.b64encode(n.to_bytes(32, "big")).decode()


def hexkey(n: int) -> str:
    return n.to_bytes(32, "big").hex()


def test_one_transaction_holds_removals_additions_and_updates() -> None:
    changes = Changes(
        add_peers=[Peer(key(1), "", frozenset({"10.8.0.2/32"}))],
        update_peers=[Peer(key(2), key(9), frozenset({"10.8.0.3/32", "fd00::3/128"}))],
        remove_peers=[key(3)],
    )
    text = encode_set(changes, listen_port=51820).decode()
    assert text.startswith("set=1\nlisten_port=51820\n") and text.endswith("\n\n")
    assert text.count("set=1") == 1
    assert f"public_key={hexkey(3)}\nremove=true\n" in text
    assert f"public_key={hexkey(1)}\npreshared_key={'0' * 64}\nallowed_ip=10.8.0.2/32\n" in text
    assert (
        f"public_key={hexkey(2)}\npreshared_key={hexkey(9)}\nreplace_allowed_ips=true\n"
        "allowed_ip=10.8.0.3/32\nallowed_ip=fd00::3/128\n"
    ) in text


GET_ANSWER = (
    f"private_key={hexkey(100)}\nlisten_port=51820\n"
    f"public_key={hexkey(1)}\npreshared_key={'0' * 64}\nprotocol_version=1\nendpoint=192.0.2.7:5555\n"
    "last_handshake_time_sec=1700000000\nlast_handshake_time_nsec=5\ntx_bytes=10\nrx_bytes=20\n"
    "persistent_keepalive_interval=0\nallowed_ip=10.8.0.2/32\nallowed_ip=fd00::2/128\n"
    f"public_key={hexkey(2)}\npreshared_key={hexkey(9)}\nprotocol_version=1\n"
    "last_handshake_time_sec=0\nlast_handshake_time_nsec=0\ntx_bytes=0\nrx_bytes=0\n"
    "persistent_keepalive_interval=0\nerrno=0\n\n"
)


def test_device_answer_parses_into_peers() -> None:
    device = parse_device(GET_ANSWER)
    assert device.listen_port == 51820
    assert device.peers[key(1)].allowed_ips == {"10.8.0.2/32", "fd00::2/128"}
    assert device.peers[key(1)].preshared_key == ""
    assert device.peers[key(2)].preshared_key == key(9)
    assert device.peers[key(2)].allowed_ips == frozenset()


def test_stats_answer_parses_handshake_and_bytes() -> None:
    stats = {s.public_key: s for s in parse_stats(GET_ANSWER)}
    assert stats[key(1)].latest_handshake == 1700000000
    assert (stats[key(1)].rx_bytes, stats[key(1)].tx_bytes) == (20, 10)
    assert stats[key(1)].endpoint == "192.0.2.7:5555"
    assert stats[key(2)].latest_handshake == 0


def test_error_answer_raises() -> None:
    with pytest.raises(UapiError, match="errno=19"):
        parse_device("errno=19\n\n")


def test_an_answer_in_another_layout_parses_the_same() -> None:
    # Another UAPI implementation may order a peer's fields differently or add some: same peers either way.
    reordered = (
        f"listen_port=51820\nprivate_key={hexkey(100)}\n"
        f"public_key={hexkey(1)}\nprotocol_version=1\nallowed_ip=10.8.0.2/32\npreshared_key={'0' * 64}\n"
        "endpoint=192.0.2.7:5555\nallowed_ip=fd00::2/128\nlast_handshake_time_sec=1700000000\nfuture_field=1\n"
        f"public_key={hexkey(2)}\npreshared_key={hexkey(9)}\npersistent_keepalive_interval=0\nerrno=0\n\n"
    )
    assert parse_device(reordered) == parse_device(GET_ANSWER)


def test_a_device_without_peers_or_key_parses() -> None:
    device = parse_device("listen_port=51820\nerrno=0\n\n")
    assert (device.peers, device.listen_port, device.private_key) == ({}, 51820, "")
    assert parse_device(f"public_key={hexkey(2)}\npreshared_key={hexkey(9)}\nerrno=0\n\n").peers.keys() == {key(2)}


def test_a_roaming_client_is_read_with_its_new_endpoint() -> None:
    first = parse_device(GET_ANSWER)
    moved = parse_device(GET_ANSWER.replace("192.0.2.7:5555", "198.51.100.1:4444"))
    assert first.peers[key(1)].endpoint == "192.0.2.7:5555"
    assert moved.peers[key(1)].endpoint == "198.51.100.1:4444"


def test_live_counters_do_not_hide_a_changed_peer() -> None:
    # A peer's text without its handshake and counters is remembered: new counters read as the same peer, and any
    # other difference (an allowed IP, a preshared key) is read as it is.
    first = parse_device(GET_ANSWER)
    busier = parse_device(GET_ANSWER.replace("tx_bytes=10\nrx_bytes=20", "tx_bytes=99999\nrx_bytes=123456"))
    assert busier.peers == first.peers
    changed = parse_device(GET_ANSWER.replace("allowed_ip=10.8.0.2/32", "allowed_ip=10.8.0.9/32"))
    assert changed.peers[key(1)].allowed_ips == {"10.8.0.9/32", "fd00::2/128"}
    rekeyed = parse_device(GET_ANSWER.replace(f"preshared_key={hexkey(9)}", f"preshared_key={hexkey(8)}"))
    assert rekeyed.peers[key(2)].preshared_key == key(8)


def test_one_peer_in_another_layout_among_the_usual_ones() -> None:
    odd = (
        f"public_key={hexkey(3)}\nallowed_ip=10.8.0.3/32\nprotocol_version=1\npreshared_key={'0' * 64}\n"
        "persistent_keepalive_interval=25\n"
    )
    answer = GET_ANSWER.replace(f"public_key={hexkey(2)}", odd + f"public_key={hexkey(2)}")
    device = parse_device(answer)
    assert device.peers.keys() == {key(1), key(2), key(3)}
    assert device.peers[key(3)].allowed_ips == {"10.8.0.3/32"}
    assert device.peers[key(3)].persistent_keepalive == 25
    assert device.peers[key(2)] == parse_device(GET_ANSWER).peers[key(2)]


def test_peers_that_come_and_go_are_not_remembered_for_ever() -> None:
    # A node whose peers change (renewals, moves, roaming endpoints) reads many peer texts over its life; what the
    # agent keeps to read them fast stays about the size of the device.
    def answer(first: int) -> str:
        peers = "".join(
            f"public_key={hexkey(n)}\npreshared_key={'0' * 64}\nprotocol_version=1\n"
            "last_handshake_time_sec=0\nlast_handshake_time_nsec=0\ntx_bytes=0\nrx_bytes=0\n"
            f"persistent_keepalive_interval=0\nallowed_ip=10.9.{n // 250}.{n % 250}/32\n"
            for n in range(first, first + 50)
        )
        return f"listen_port=51820\n{peers}errno=0\n\n"

    for round_ in range(40):
        device = parse_device(answer(1000 + round_ * 50))
        assert device.peers.keys() == {key(n) for n in range(1000 + round_ * 50, 1050 + round_ * 50)}
    assert len(uapi._PEER_TEXTS) <= 100
