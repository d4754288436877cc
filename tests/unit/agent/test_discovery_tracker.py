"""What the node keeps and reports of room members' announcements (node_agent/discovery/tracker.py, capture.py):
entries per member bounded, expired 30 s after their last announcement, reports only when something was heard,
hostile packets changing nothing, and the capture's BPF program accepted by the kernel."""

from __future__ import annotations

import os
import socket
import struct

import pytest

from node_agent.discovery.announcement import Announcement
from node_agent.discovery.capture import DiscoveryCapture, _attach, filter_program
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


def test_the_filter_program_jumps_stay_inside_it() -> None:
    program = filter_program(["10.8.0.255", "10.9.0.255"])
    for at, (code, jt, jf, _k) in enumerate(program):
        if code & 0x07 == 0x05:  # a jump
            assert at + 1 + max(jt, jf) < len(program)
    assert program[-1] == (0x06, 0, 0, 2048) and program[-2] == (0x06, 0, 0, 0)


@pytest.mark.skipif(os.geteuid() != 0, reason="packet sockets need root")
def test_the_kernel_accepts_the_filter_program() -> None:
    with socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0800)) as sock:
        _attach(sock, filter_program(["10.8.0.255"]))
