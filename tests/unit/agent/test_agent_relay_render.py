"""The discovery relay's rules: who a member's broadcast reaches, through which interface, within which limits;
and the relay's metrics built from nft's counters."""

from __future__ import annotations

import json

import pytest

from node_agent.config import ConfigError, load_config
from node_agent.firewall import FirewallPlan, render_ruleset
from node_agent.metrics import AgentMetrics
from node_agent.relay import (
    Copy,
    RelayLimits,
    RelayTotals,
    discovery_destinations,
    parse_counters,
    relay_groups,
    relay_targets,
    room_label,
    room_share,
)
from node_agent.state import Room

BASE_ENV = {"VPN_NODE_CONTROL_URL": "cp.example:7443", "VPN_NODE_ID": "n1", "VPN_NODE_CREDENTIAL": "s3cret"}
LOCAL = ("10.8.0.0/24",)
CLIENTS = ("10.8.0.0/24", "10.9.0.0/24")  # ours and the other server's, behind the backbone


def rooms(*groups: tuple[str, ...]) -> dict[str, Room]:
    return {f"r{i}": Room(f"r{i}", frozenset(g)) for i, g in enumerate(groups)}


def relay_part(plan: FirewallPlan) -> str:
    return render_ruleset(plan).split("table netdev vpn_relay {}", 1)[1]


def plan(room_map: dict[str, Room], limits: RelayLimits | None = None) -> FirewallPlan:
    return FirewallPlan(
        tunnel_interfaces=("wg0", "wgb0"),
        client_networks=frozenset(CLIENTS),
        local_networks=frozenset(LOCAL),
        egress_interface="eth0",
        rooms=room_map,
        relay_limits=limits or RelayLimits(),
    )


def test_each_local_member_reaches_every_other_member_of_its_rooms_and_only_them() -> None:
    targets = relay_targets(
        rooms(("10.8.0.2", "10.8.0.3", "10.9.0.2"), ("10.8.0.2", "10.8.0.9"), ("10.8.0.20", "10.8.0.21")),
        LOCAL,
        CLIENTS,
        "wg0",
        "wgb0",
    )
    assert targets["10.8.0.2"] == (Copy("10.8.0.3", "wg0"), Copy("10.8.0.9", "wg0"), Copy("10.9.0.2", "wgb0"))
    assert targets["10.8.0.9"] == (Copy("10.8.0.2", "wg0"),)  # not 10.8.0.3: they share no room
    assert targets["10.8.0.20"] == (Copy("10.8.0.21", "wg0"),)
    # A member on the other server sends through its own server's relay, not ours.
    assert "10.9.0.2" not in targets


def test_members_nobody_can_carry_to_and_ipv6_members_get_no_copy() -> None:
    # No backbone: the other server's member cannot be reached; an address on no known network neither.
    targets = relay_targets(rooms(("10.8.0.2", "10.9.0.2", "10.50.0.2", "fd00::2")), LOCAL, CLIENTS, "wg0", "")
    assert targets == {}
    targets = relay_targets(rooms(("10.8.0.2", "10.8.0.3", "fd00::2", "fd00::3")), LOCAL, CLIENTS, "wg0", "")
    assert set(targets) == {"10.8.0.2", "10.8.0.3"}


def test_discovery_is_broadcast_mdns_and_multicast_above_the_link_local_control_block() -> None:
    assert discovery_destinations(("10.8.0.0/24", "10.8.1.0/30", "10.8.2.7/32", "fd00::/64")) == [
        "255.255.255.255",
        "10.8.0.255",
        "10.8.1.3",
        "224.0.0.251",
        "224.0.1.0-239.255.255.255",
    ]


def test_the_relay_table_follows_the_rooms_in_the_same_transaction() -> None:
    text = relay_part(plan(rooms(("10.8.0.2", "10.8.0.3", "10.9.0.2"))))
    assert text.startswith("\ndelete table netdev vpn_relay\ntable netdev vpn_relay {")
    assert 'type filter hook ingress device "wg0"' in text
    assert (
        "ip daddr { 255.255.255.255, 10.8.0.255, 224.0.0.251, 224.0.1.0-239.255.255.255 }"
        " ip frag-off & 0x3fff == 0 meta l4proto udp"
        " ip saddr vmap { 10.8.0.2 : jump from_10_8_0_2, 10.8.0.3 : jump from_10_8_0_3 }"
    ) in text
    sender = text.split("chain from_10_8_0_2 {")[1].split("}")[0]
    lines = [line.strip() for line in sender.strip().splitlines()]
    assert lines == [
        'limit rate over 50/second burst 100 packets counter name "limited_10_8_0_2" drop',
        'limit rate over 65536 bytes/second burst 131072 bytes counter name "limited_10_8_0_2" drop',
        "ip ttl set 64",
        "jump from_10_8_0_2_in_r0",
        "drop",
    ]
    in_room = text.split("chain from_10_8_0_2_in_r0 {")[1].split("}")[0]
    lines = [line.strip() for line in in_room.strip().splitlines()]
    assert lines == [
        # Two copies: two draws from each of the room's share, then two from each of the node's budget, before
        # any copy leaves; a refusal goes back to the sender's chain without a copy.
        *[
            'limit name "room_r0_packets" counter name "share_r0" return',
            'limit name "room_r0_bytes" counter name "share_r0" return',
        ]
        * 2,
        *[
            'limit name "budget_packets" counter name "budget_dropped" return',
            'limit name "budget_bytes" counter name "budget_dropped" return',
        ]
        * 2,
        'counter name "relayed_10_8_0_2"',
        'ip daddr set 10.8.0.3 dup to "wg0"',
        'ip daddr set 10.9.0.2 dup to "wgb0"',
    ]


def test_without_anybody_to_relay_to_the_table_is_only_removed() -> None:
    # Leaving the last shared room removes the relay with the room rules: no hook stays on the interface.
    for room_map in ({}, rooms(("10.8.0.2",)), rooms(("10.9.0.2", "10.9.0.3"))):
        assert relay_part(plan(room_map)).strip() == "delete table netdev vpn_relay"


def test_limits_come_from_the_configuration() -> None:
    text = relay_part(plan(rooms(("10.8.0.2", "10.8.0.3")), RelayLimits(10, 2000)))
    assert "limit rate over 10/second burst 20 packets" in text
    assert "limit rate over 2000 bytes/second burst 4000 bytes" in text
    config = load_config({**BASE_ENV, "VPN_NODE_RELAY_PACKETS_PER_SECOND": "10"})
    assert (config.relay_packets_per_second, config.relay_bytes_per_second) == (10, 65536)
    with pytest.raises(ConfigError, match="relay_bytes_per_second must be between 1 and 1000000000"):
        load_config({**BASE_ENV, "VPN_NODE_RELAY_BYTES_PER_SECOND": "0.5"})
    # nft keeps a limit's burst in 32 bits: a rate whose burst would not fit is refused before nft sees it.
    with pytest.raises(ConfigError, match="relay_bytes_per_second must be between 1 and 1000000000"):
        load_config({**BASE_ENV, "VPN_NODE_RELAY_BYTES_PER_SECOND": "3000000000"})


def test_the_node_budget_is_one_bucket_shared_by_every_room_and_configured() -> None:
    two_rooms = {
        "r1": Room("r1", frozenset({"10.8.0.2", "10.8.0.3"})),
        "r2": Room("r2", frozenset({"10.8.0.4", "10.8.0.5"})),
    }
    text = relay_part(plan(two_rooms, RelayLimits(10, 2000, 300, 90000)))
    # Declared once in the table, drawn from by every sender's chain of both rooms.
    assert text.count("limit budget_packets { rate over 300/second burst 600 packets }") == 1
    assert text.count("limit budget_bytes { rate over 90000 bytes/second burst 180000 bytes }") == 1
    for sender in ("10_8_0_2", "10_8_0_3", "10_8_0_4", "10_8_0_5"):
        chain = text.split(f"chain from_{sender}_in_")[1].split("}")[0]
        assert 'limit name "budget_bytes" counter name "budget_dropped" return' in chain
    config = load_config(
        {
            **BASE_ENV,
            "VPN_NODE_RELAY_BUDGET_PACKETS_PER_SECOND": "300",
            "VPN_NODE_RELAY_BUDGET_BYTES_PER_SECOND": "90000",
        }
    )
    assert (config.relay_budget_packets_per_second, config.relay_budget_bytes_per_second) == (300, 90000)
    with pytest.raises(ConfigError, match="relay_budget_bytes_per_second must be between 1 and 1000000000"):
        load_config({**BASE_ENV, "VPN_NODE_RELAY_BUDGET_BYTES_PER_SECOND": "0.5"})


def test_budget_drops_are_a_metric_and_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    reads = [{"relayed_10_8_0_2": (4, 400), "budget_dropped": (0, 0)}]
    metrics = AgentMetrics()
    metrics.track_relay(lambda: reads[-1], RelayLimits(50, 65536, 300, 90000))
    registry = metrics.registry
    assert registry.get_sample_value("vpn_agent_relay_budget_bytes_per_second") == 90000
    assert registry.get_sample_value("vpn_agent_relay_packets_total", {"result": "budget"}) == 0
    assert "over the node's budget" not in caplog.text
    reads.append({"relayed_10_8_0_2": (9, 900), "budget_dropped": (7, 700)})
    assert registry.get_sample_value("vpn_agent_relay_packets_total", {"result": "budget"}) == 7
    assert "over the node's budget: 7 packets dropped" in caplog.text


def nft_json(**counters: tuple[int, int]) -> str:
    items = [{"metainfo": {"version": "1.0.6"}}]
    items += [{"counter": {"name": n, "packets": p, "bytes": b}} for n, (p, b) in counters.items()]
    return json.dumps({"nftables": items})


def test_totals_survive_rules_rewrites_and_members_leaving() -> None:
    totals = RelayTotals()
    first = parse_counters(nft_json(relayed_10_8_0_2=(10, 1000), limited_10_8_0_2=(0, 0)))
    assert totals.update(first) == {"relayed": (10, 1000), "limited": (0, 0), "share": (0, 0), "budget": (0, 0)}
    # A room change rewrote the table: counters restarted from zero and count again.
    assert totals.update({"relayed_10_8_0_2": (3, 300), "limited_10_8_0_2": (5, 500), "share_r1": (2, 200)}) == {
        "relayed": (13, 1300),
        "limited": (5, 500),
        "share": (2, 200),
        "budget": (0, 0),
    }
    # The member left every room: its counters are gone from nft, not from the totals.
    assert totals.update({}) == {"relayed": (13, 1300), "limited": (5, 500), "share": (2, 200), "budget": (0, 0)}


def test_relay_metrics_show_limits_and_counters_read_at_scrape_time() -> None:
    reads = [{"relayed_10_8_0_2": (4, 400), "limited_10_8_0_2": (96, 9600)}]
    metrics = AgentMetrics()
    metrics.track_relay(lambda: reads[-1], RelayLimits(50, 65536))
    registry = metrics.registry
    assert registry.get_sample_value("vpn_agent_relay_limit_packets_per_second") == 50
    assert registry.get_sample_value("vpn_agent_relay_limit_bytes_per_second") == 65536
    assert registry.get_sample_value("vpn_agent_relay_packets_total", {"result": "limited"}) == 96
    reads.append({"relayed_10_8_0_2": (6, 600), "limited_10_8_0_2": (96, 9600)})
    assert registry.get_sample_value("vpn_agent_relay_packets_total", {"result": "relayed"}) == 6
    assert registry.get_sample_value("vpn_agent_relay_bytes_total", {"result": "relayed"}) == 600


def test_each_room_gets_an_equal_share_of_the_budget_but_never_less_than_the_minimum_nor_more_than_all() -> None:
    limits = RelayLimits(50, 65536, 10_000, 4_000_000, 2_000, 800_000)
    assert room_share(limits, 1) == (10_000, 4_000_000)  # alone on the node: the whole budget
    assert room_share(limits, 2) == (5_000, 2_000_000)
    assert room_share(limits, 4) == (2_500, 1_000_000)
    assert room_share(limits, 300) == (2_000, 800_000)  # hundreds of rooms: the minimum a LAN night needs
    # A minimum above the budget is the budget.
    assert room_share(RelayLimits(50, 65536, 300, 90_000, 2_000, 800_000), 3) == (300, 90_000)
    assert room_share(limits, 0) == (10_000, 4_000_000)


def test_every_relaying_room_has_its_share_drawn_before_the_nodes_budget() -> None:
    three = {
        "r1": Room("r1", frozenset({"10.8.0.2", "10.8.0.3"})),
        "r2": Room("r2", frozenset({"10.8.0.4", "10.8.0.5", "10.9.0.7"})),
        # Nobody here to send from or to: not relaying on this node, so no share and not counted in the split.
        "r3": Room("r3", frozenset({"10.9.0.2", "10.9.0.3"})),
        # A room id that is no nft identifier gets a stable hashed label.
        "sala de Beto": Room("sala de Beto", frozenset({"10.8.0.2", "10.8.0.6"})),
    }
    text = relay_part(plan(three, RelayLimits(10, 2000, 300, 90000, 20, 5000)))
    hashed = room_label("sala de Beto")
    assert hashed.startswith("h") and len(hashed) == 25 and hashed == room_label("sala de Beto")
    for room in ("r1", "r2", hashed):
        # 300 / 3 relaying rooms = 100 copies/s (above the minimum of 20), 90000 / 3 bytes/s.
        assert f"limit room_{room}_packets {{ rate over 100/second burst 200 packets }}" in text
        assert f"limit room_{room}_bytes {{ rate over 30000 bytes/second burst 60000 bytes }}" in text
        assert f"counter share_{room} {{}}" in text
    assert "room_r3" not in text
    # 10.8.0.2 is in r1 and in the hashed room: one part per room, each all or nothing on its own.
    sender = text.split("chain from_10_8_0_2 {")[1].split("}")[0]
    assert [line.strip() for line in sender.strip().splitlines() if "jump" in line] == [
        "jump from_10_8_0_2_in_r1",
        f"jump from_10_8_0_2_in_{hashed}",
    ]
    in_r2 = [line.strip() for line in text.split("chain from_10_8_0_4_in_r2 {")[1].split("}")[0].strip().splitlines()]
    # The share first (a room over it spends nothing of the node's budget), then the budget, per copy.
    assert (
        in_r2[:4]
        == [
            'limit name "room_r2_packets" counter name "share_r2" return',
            'limit name "room_r2_bytes" counter name "share_r2" return',
        ]
        * 2
    )
    assert (
        in_r2[4:8]
        == [
            'limit name "budget_packets" counter name "budget_dropped" return',
            'limit name "budget_bytes" counter name "budget_dropped" return',
        ]
        * 2
    )
    assert in_r2[8:] == [
        'counter name "relayed_10_8_0_4"',
        'ip daddr set 10.8.0.5 dup to "wg0"',
        'ip daddr set 10.9.0.7 dup to "wgb0"',
    ]


def test_a_mate_in_two_of_the_senders_rooms_gets_one_copy_drawn_from_the_first_rooms_share() -> None:
    groups = relay_groups(
        rooms(("10.8.0.2", "10.8.0.3", "10.8.0.4"), ("10.8.0.2", "10.8.0.3", "10.8.0.5")), LOCAL, CLIENTS, "wg0", ""
    )
    assert groups["10.8.0.2"] == (
        ("r0", (Copy("10.8.0.3", "wg0"), Copy("10.8.0.4", "wg0"))),
        ("r1", (Copy("10.8.0.5", "wg0"),)),
    )
    # 10.8.0.4 shares only r0 with 10.8.0.3 and 10.8.0.2.
    assert groups["10.8.0.4"] == (("r0", (Copy("10.8.0.2", "wg0"), Copy("10.8.0.3", "wg0"))),)


def test_the_room_share_minimum_is_configured_and_checked() -> None:
    config = load_config(
        {
            **BASE_ENV,
            "VPN_NODE_RELAY_ROOM_SHARE_MIN_PACKETS_PER_SECOND": "500",
            "VPN_NODE_RELAY_ROOM_SHARE_MIN_BYTES_PER_SECOND": "100000",
        }
    )
    assert (config.relay_room_share_min_packets_per_second, config.relay_room_share_min_bytes_per_second) == (
        500,
        100000,
    )
    assert (load_config(BASE_ENV).relay_room_share_min_packets_per_second) == 2000
    with pytest.raises(ConfigError, match="relay_room_share_min_packets_per_second must be between 1 and 1000000"):
        load_config({**BASE_ENV, "VPN_NODE_RELAY_ROOM_SHARE_MIN_PACKETS_PER_SECOND": "0.5"})
    with pytest.raises(ValueError, match=r"room share minimum bytes per second must be 1\.\.1000000000"):
        RelayLimits(room_share_min_bytes_per_second=0)


def test_share_drops_are_a_metric_and_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    reads = [{"relayed_10_8_0_2": (4, 400), "share_r1": (0, 0), "budget_dropped": (0, 0)}]
    metrics = AgentMetrics()
    metrics.track_relay(lambda: reads[-1], RelayLimits(50, 65536, 300, 90000, 20, 5000))
    registry = metrics.registry
    assert registry.get_sample_value("vpn_agent_relay_room_share_min_packets_per_second") == 20
    assert registry.get_sample_value("vpn_agent_relay_room_share_min_bytes_per_second") == 5000
    assert registry.get_sample_value("vpn_agent_relay_packets_total", {"result": "share"}) == 0
    assert "over their share" not in caplog.text
    reads.append({"relayed_10_8_0_2": (9, 900), "share_r1": (5, 500), "share_r2": (2, 200), "budget_dropped": (0, 0)})
    assert registry.get_sample_value("vpn_agent_relay_packets_total", {"result": "share"}) == 7
    assert registry.get_sample_value("vpn_agent_relay_bytes_total", {"result": "share"}) == 700
    assert registry.get_sample_value("vpn_agent_relay_packets_total", {"result": "budget"}) == 0
    assert "rooms over their share of the node's budget: 7 packets dropped" in caplog.text
