"""What the node keeps and reports of room members' announcements (node_agent/discovery/tracker.py, capture.py):
entries per member bounded, expired 30 s after their last announcement, reports only when something was heard,
hostile packets changing nothing, and the nft rules and NFLOG messages that bring the packets."""

from __future__ import annotations

import os
import socket
import struct

import pytest

from node_agent.discovery import nflog
from node_agent.discovery.announcement import Announcement
from node_agent.discovery.capture import DiscoveryCapture
from node_agent.discovery.tracker import ENTRIES_PER_SENDER, DiscoveryTracker
from tests.unit.agent import discovery_samples as sample


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_report_carries_what_was_heard_since_the_last_one() -> None:
    clock = Clock()
    tracker = DiscoveryTracker(clock)
    assert tracker.report() is None  # nothing heard: no report at all
    tracker.observe("10.8.0.2", [Announcement("minecraft", "Mundo", 51234)])
    clock.now += 1.5
    tracker.observe("10.8.0.2", [Announcement("minecraft", "Mundo", 51234)])
    tracker.observe("10.8.0.3", [])  # a packet that announced nothing still counts for "who can hear whom"
    report = tracker.report()
    assert report is not None
    assert [(g.sender, g.game, g.name, g.port, g.seconds_ago) for g in report.games] == [
        ("10.8.0.2", "minecraft", "Mundo", 51234, 0)
    ]
    assert {(s.address, s.packets) for s in report.senders} == {("10.8.0.2", 2), ("10.8.0.3", 1)}
    assert tracker.report() is None  # nothing new since


def test_entries_per_member_are_bounded_and_expire() -> None:
    clock = Clock()
    tracker = DiscoveryTracker(clock)
    for i in range(ENTRIES_PER_SENDER * 4):
        tracker.observe("10.8.0.2", [Announcement("other", port=1000 + i)])
    report = tracker.report()
    assert report is not None and len(report.games) == ENTRIES_PER_SENDER
    clock.now += 31  # the first ones expired: room for new ones
    tracker.observe("10.8.0.2", [Announcement("other", port=5000)])
    report = tracker.report()
    assert report is not None and [g.port for g in report.games] == [5000]


def test_a_member_that_left_is_forgotten() -> None:
    tracker = DiscoveryTracker(Clock())
    tracker.observe("10.8.0.2", [Announcement("other", port=7777)])
    tracker.forget_except(frozenset({"10.8.0.3"}))
    assert tracker.report() is None


def _ip_udp(source: str, dest: str, sport: int, dport: int, payload: bytes) -> bytes:
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    header = struct.pack(
        "!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 1, 17, 0, socket.inet_aton(source), socket.inet_aton(dest)
    )
    return header + udp


def _capture(tracker: DiscoveryTracker) -> DiscoveryCapture:
    return DiscoveryCapture("wg0", tracker, lambda: frozenset({"10.8.0.2"}), lambda: frozenset({"10.8.0.255"}))


def test_the_capture_reads_members_only_and_garbage_changes_nothing() -> None:
    tracker = DiscoveryTracker(Clock())
    capture = _capture(tracker)
    broadcasts = frozenset({"10.8.0.255"})
    capture.handle(_ip_udp("10.8.0.9", "224.0.2.60", 5000, 4445, sample.minecraft()), broadcasts)  # no member
    capture.handle(_ip_udp("10.8.0.2", "10.8.0.3", 5000, 4445, sample.minecraft()), broadcasts)  # unicast
    capture.handle(b"\x45garbage", broadcasts)
    capture.handle(_ip_udp("10.8.0.2", "224.0.2.60", 5000, 4445, b"[MOTD]roto[/MO"), broadcasts)
    report = tracker.report()
    assert report is not None and list(report.games) == []  # the cut announcement made no entry
    assert [(s.address, s.packets) for s in report.senders] == [("10.8.0.2", 1)]
    capture.handle(_ip_udp("10.8.0.2", "10.8.0.255", 5000, 4445, sample.minecraft()), broadcasts)
    capture.handle(_ip_udp("10.8.0.2", "10.8.0.3", 27960, 40000, sample.quake3()), broadcasts)
    report = tracker.report()
    assert report is not None and sorted(g.game for g in report.games) == ["minecraft", "quake3"]


def test_the_nft_rules_log_members_discovery_only() -> None:
    rules = nflog.render_rules("wg0", {"10.8.0.3", "10.8.0.2"}, ["255.255.255.255", "10.8.0.255"])
    assert 'hook ingress device "wg0" priority -150' in rules
    assert "ip saddr { 10.8.0.2, 10.8.0.3 } ip daddr { 255.255.255.255, 10.8.0.255 }" in rules
    assert f"log group {nflog.NFLOG_GROUP}" in rules and "udp sport { 27015-27020, 27960-27963 }" in rules
    # No member left: the table goes.
    assert nflog.render_rules("wg0", set(), []).strip().endswith("delete table netdev vpn_discovery")


def test_nflog_messages_yield_their_packets_and_malformed_ones_nothing() -> None:
    packet = _ip_udp("10.8.0.2", "224.0.2.60", 5000, 4445, sample.minecraft())

    def message(*attrs: bytes) -> bytes:
        body = struct.pack("BBH", 0, 0, 0) + b"".join(attrs)
        return struct.pack("IHHII", 16 + len(body), 4 << 8, 0, 0, 0) + body

    def attr(kind: int, data: bytes) -> bytes:
        return struct.pack("HH", 4 + len(data), kind) + data + b"\0" * ((4 - len(data) % 4) % 4)

    two = message(attr(1, b"\x08\x00\x01\x00"), attr(9, packet)) + message(attr(9, b"xyz"))
    assert list(nflog.payloads(two)) == [packet, b"xyz"]
    assert list(nflog.payloads(two[:-3])) == [packet]  # a cut message is dropped
    assert list(nflog.payloads(b"\xff" * 40)) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="NFLOG sockets need root")
def test_the_kernel_accepts_the_nflog_binding() -> None:
    nflog.open_socket(nflog.NFLOG_GROUP + 1).close()
