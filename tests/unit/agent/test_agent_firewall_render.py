"""The nftables ruleset the agent writes: NAT out of egress, rooms as sets, default deny between clients."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid

import pytest

from node_agent.firewall import FirewallPlan, render_ruleset, room_set_name
from node_agent.state import Room


def plan(**kw: object) -> FirewallPlan:
    values: dict[str, object] = {
        "tunnel_interfaces": ("wg0",),
        "client_networks": frozenset({"10.8.0.0/24"}),
        "local_networks": frozenset({"10.8.0.0/24"}),
        "egress_interface": "eth0",
        "rooms": {"r1": Room("r1", frozenset({"10.8.0.2", "10.8.0.3"}))},
    }
    values.update(kw)
    return FirewallPlan(**values)  # type: ignore[arg-type]


def test_ruleset_replaces_our_table_in_one_transaction() -> None:
    text = render_ruleset(plan())
    lines = text.splitlines()
    # create-if-absent, delete, recreate: twice gives the same table; other tables are untouched
    assert lines[:3] == ["table inet vpn_node {}", "delete table inet vpn_node", "table inet vpn_node {"]
    assert "flush ruleset" not in text


def test_clients_are_masqueraded_out_of_egress() -> None:
    text = render_ruleset(plan())
    assert 'oifname "eth0" ip saddr @local_v4 masquerade' in text
    assert "elements = { 10.8.0.0/24 }" in text


def test_room_members_reach_each_other_and_others_are_dropped() -> None:
    text = render_ruleset(plan())
    assert "elements = { 10.8.0.2, 10.8.0.3 }" in text
    assert "ip saddr @room_r1_v4 ip daddr @room_r1_v4 accept" in text
    chain = text.split("chain client_to_client {")[1].split("}")[0]
    assert chain.strip().splitlines()[-1].strip() == "drop"
    # room check comes before conntrack, so leaving a room cuts existing flows
    forward = text.split("chain forward {")[1]
    assert forward.index("jump client_to_client") < forward.index("ct state established")


def _forward(text: str) -> list[str]:
    # The chain ends at its own closing brace (its rules hold braces of their own: `iifname { "wg0" }`).
    return [line.strip() for line in text.split("chain forward {\n")[1].split("\n\t}")[0].splitlines()]


def test_room_only_peers_reach_their_room_and_nothing_else() -> None:
    text = render_ruleset(plan(room_only=frozenset({"10.8.0.3/32", "10.8.0.9/32", "fd00:8::3/128"})))
    room_only_v4 = "set room_only_v4 {\n\t\ttype ipv4_addr\n\t\tflags interval\n"
    assert room_only_v4 + "\t\telements = { 10.8.0.3/32, 10.8.0.9/32 }" in text
    assert "elements = { fd00:8::3/128 }" in text
    forward = _forward(text)
    v4 = forward.index("ip saddr @room_only_v4 drop")
    v6 = forward.index("ip6 saddr @room_only_v6 drop")
    # After the room check (which accepts its room and drops other clients), before conntrack (an open connection is
    # cut too) and before the egress accept (no internet): one lookup whatever the number of guests.
    for rule in (
        "ip saddr @clients_v4 ip daddr @clients_v4 jump client_to_client",
        "ip6 saddr @clients_v6 ip6 daddr @clients_v6 jump client_to_client",
    ):
        assert forward.index(rule) < min(v4, v6)
    assert max(v4, v6) < forward.index("ct state established,related accept")
    assert max(v4, v6) < next(i for i, line in enumerate(forward) if 'oifname "eth0" accept' in line)
    assert text.count("room_only_v4") == 2 and text.count("room_only_v6") == 2  # the set and its one rule


def test_room_membership_rules_do_not_change_with_guests() -> None:
    without = render_ruleset(plan())
    with_guests = render_ruleset(plan(room_only=frozenset({"10.8.0.3/32"})))
    chain = "chain client_to_client {"
    assert without.split(chain)[1].split("}")[0] == with_guests.split(chain)[1].split("}")[0]


def test_without_guests_the_room_only_sets_are_empty() -> None:
    text = render_ruleset(plan())
    assert "set room_only_v4 {\n\t\ttype ipv4_addr\n\t\tflags interval\n\t}" in text


def test_no_egress_means_no_nat() -> None:
    text = render_ruleset(plan(egress_interface=""))
    assert "masquerade" not in text and "postrouting" not in text


def test_odd_room_ids_get_safe_stable_set_names() -> None:
    name = room_set_name("6f1c-…-room id")
    assert name == room_set_name("6f1c-…-room id")
    assert name.replace("_", "").isalnum() and len(name) < 40


def test_overlapping_networks_are_collapsed() -> None:
    text = render_ruleset(plan(client_networks=frozenset({"10.8.0.0/24", "10.8.0.0/16", "fd00::/64"})))
    assert "elements = { 10.8.0.0/16 }" in text
    assert "elements = { fd00::/64 }" in text


def test_same_plan_renders_identically() -> None:
    assert render_ruleset(plan()) == render_ruleset(plan())


def test_nft_accepts_the_ruleset_syntax() -> None:
    if shutil.which("nft") is None:
        if os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1":
            pytest.fail("nft is not installed (apt-get install nftables)")
        pytest.skip("nft is not installed")
    # `nft -c` parses and validates without applying; it needs CAP_NET_ADMIN for the kernel round trip.
    rooms = {
        "r1": Room("r1", frozenset({"10.8.0.2", "10.9.0.3", "fd00:8::2"})),
        "x y": Room("x y", frozenset()),
    }
    text = render_ruleset(
        plan(
            tunnel_interfaces=("wg0", "wgb0"),
            client_networks=frozenset({"10.8.0.0/24", "10.9.0.0/24", "fd00:8::/64"}),
            rooms=rooms,
            room_only=frozenset({"10.8.0.2/32", "fd00:8::2/128"}),
        )
    )
    # nft resolves the relay's interface names while parsing: check in a scratch namespace that has them.
    scratch = f"vpnchk{uuid.uuid4().hex[:10]}"
    made = subprocess.run(["ip", "netns", "add", scratch], capture_output=True, text=True, check=False)
    try:
        argv = ["nft", "-c", "-f", "-"]
        if made.returncode == 0:
            subprocess.run(
                ["ip", "-n", scratch, "link", "add", "wg0", "type", "veth", "peer", "name", "wgb0"], check=True
            )
            argv = ["ip", "netns", "exec", scratch, *argv]
        proc = subprocess.run(argv, input=text, capture_output=True, text=True, check=False)
    finally:
        if made.returncode == 0:
            subprocess.run(["ip", "netns", "del", scratch], check=False)
    if proc.returncode != 0 and "Operation not permitted" in proc.stderr:
        if os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1":
            pytest.fail("nft -c needs CAP_NET_ADMIN (run as root)")
        pytest.skip("nft -c needs CAP_NET_ADMIN")
    assert proc.returncode == 0, proc.stderr
