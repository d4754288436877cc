"""Round trips to room members (node_agent/rtt.py): who is probed, how many packets a round may send, how replies
are read, how figures are kept and reported; and a real round over loopback (the tests run as root)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

from node_agent.backends.base import PeerStat
from node_agent.rtt import (
    FRESH_SECONDS,
    MAX_PEERS,
    PROBES,
    ProbeSchedule,
    RttProber,
    checksum,
    echo_request,
    parse_echo_reply,
    room_targets,
)
from node_agent.state import Peer, Room
from node_agent.stats import StatsReporter

REPO = Path(__file__).resolve().parents[3]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_only_room_members_on_this_node_are_probed_once_each_by_their_ipv4_address() -> None:
    peers = {
        "k1": Peer("k1", allowed_ips=frozenset({"10.8.0.2/32", "fd00:8::2/128"})),
        "k2": Peer("k2", allowed_ips=frozenset({"10.8.0.3/32"})),  # on this node, in no room
        "k3": Peer("k3", allowed_ips=frozenset({"fd00:8::4/128"})),  # IPv6 only: no figure
    }
    rooms = {"r": Room("r", frozenset({"10.8.0.2", "fd00:8::2", "10.9.0.7", "fd00:8::4"}))}  # 10.9.0.7: another node
    assert room_targets(peers, rooms) == {"10.8.0.2": "k1"}


def test_a_round_probes_at_most_max_peers_and_every_member_gets_its_turn() -> None:
    schedule = ProbeSchedule(max_peers=3)
    members = [f"10.8.0.{n}" for n in range(2, 9)]  # 7 members
    rounds = [schedule.next_round(members) for _ in range(3)]
    assert all(len(r) <= 3 for r in rounds)
    assert rounds[0] == ["10.8.0.2", "10.8.0.3", "10.8.0.4"]
    assert rounds[1] == ["10.8.0.5", "10.8.0.6", "10.8.0.7"]
    assert rounds[2] == ["10.8.0.8", "10.8.0.2", "10.8.0.3"]  # wraps around
    assert ProbeSchedule(max_peers=3).next_round(members[:2]) == members[:2]


def test_the_packet_budget_of_a_round_is_small_whatever_the_node_holds() -> None:
    assert PROBES * MAX_PEERS <= 100


def test_an_echo_request_is_well_formed_and_its_reply_is_read_from_both_kinds_of_socket() -> None:
    request = echo_request(0x1234, 7)
    assert request[0] == 8 and checksum(request) == 0
    reply = bytes([0, 0]) + request[2:]
    ip_header = bytes([0x45, 0, 0, 36, 0, 0, 0, 0, 64, 1, 0, 0, 10, 8, 0, 2, 10, 8, 0, 1])
    assert parse_echo_reply(reply, with_ip_header=False) == (0x1234, 7)
    assert parse_echo_reply(ip_header + reply, with_ip_header=True) == (0x1234, 7)


def test_hostile_or_unrelated_packets_are_not_replies() -> None:
    unreachable = struct.pack("!BBHHH", 3, 1, 0, 0, 0)
    assert parse_echo_reply(unreachable, with_ip_header=False) is None
    assert parse_echo_reply(echo_request(1, 1), with_ip_header=False) is None  # a request, not a reply
    for junk in (b"", b"\x00", b"\x45" * 19, bytes([0x4F]) + bytes(30), bytes([0x60]) + bytes(40)):
        assert parse_echo_reply(junk, with_ip_header=True) is None
        assert parse_echo_reply(junk[:7], with_ip_header=False) is None


def test_the_figure_is_the_median_then_dropped_when_the_member_stops_answering_or_it_grows_old() -> None:
    clock = Clock()
    prober = RttProber(clock=clock)
    targets = {"10.8.0.2": "k1", "10.8.0.3": "k2"}
    prober.record(targets, targets, {"10.8.0.2": [0.050, 0.052, 0.300], "10.8.0.3": [0.035]})
    assert prober.figures() == {"k1": 52_000, "k2": 35_000}
    prober.record(targets, ["10.8.0.2"], {})  # k1 did not answer this round; k2 was not probed
    assert prober.figures() == {"k2": 35_000}
    clock.now += FRESH_SECONDS
    assert prober.figures() == {}


def test_a_peer_that_left_the_room_is_forgotten() -> None:
    prober = RttProber(clock=Clock())
    prober.record({"10.8.0.2": "k1"}, ["10.8.0.2"], {"10.8.0.2": [0.01]})
    prober.record({}, [], {})
    assert prober.figures() == {}


def test_a_new_figure_goes_out_with_the_peers_stats_and_absent_means_unknown() -> None:
    reporter = StatsReporter(full_interval=60, clock=lambda: 1_800_000_000.0)
    device = [PeerStat("k1", 0, 0, 0, ""), PeerStat("k2", 0, 0, 0, "")]
    first = reporter.report(1, device, {"k1": 35_000})
    by_key = {p.public_key: p for p in first.peers}
    assert by_key["k1"].HasField("rtt_us") and by_key["k1"].rtt_us == 35_000
    assert not by_key["k2"].HasField("rtt_us")
    assert [p.public_key for p in reporter.report(1, device, {"k1": 35_000}).peers] == []  # nothing changed
    changed = reporter.report(1, device, {"k1": 41_000, "k2": 9_000})
    assert {p.public_key: p.rtt_us for p in changed.peers} == {"k1": 41_000, "k2": 9_000}
    gone = reporter.report(1, device, {"k2": 9_000})
    assert [(p.public_key, p.HasField("rtt_us")) for p in gone.peers] == [("k1", False)]


ROUND_IN_A_NAMESPACE = """
import asyncio, json
from node_agent.rtt import RttProber
prober = RttProber()
samples = asyncio.run(prober.round({"127.0.0.1": "here", "10.77.0.9": "nobody"}))
print(json.dumps({"samples": {a: len(s) for a, s in samples.items()}, "figures": prober.figures()}))
"""


def test_a_real_round_measures_a_host_that_answers_and_not_one_that_does_not() -> None:
    # In a namespace of its own with only loopback: 127.0.0.1 answers, 10.77.0.9 has no route (no answer ever).
    script = f"ip link set lo up && {sys.executable} -c '{ROUND_IN_A_NAMESPACE}'"
    done = subprocess.run(["unshare", "-n", "sh", "-c", script], capture_output=True, text=True, timeout=30, cwd=REPO)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["samples"] == {"127.0.0.1": PROBES}
    assert set(outcome["figures"]) == {"here"} and 0 < outcome["figures"]["here"] < 100_000
