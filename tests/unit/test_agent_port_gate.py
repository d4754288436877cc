"""The agents' port before authentication (controlplane/nodes/agent_port.py): places for unauthenticated streams per
address and in all, failed Hellos throttled per address and logged once per window with a count. The real port is
exercised in tests/adversarial/test_agent_port.py; here the window is moved by hand."""

from __future__ import annotations

import logging

import pytest

from controlplane.nodes.agent_port import AgentPortGate, peer_host


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_streams_past_the_cap_of_one_address_or_of_the_port_find_no_place() -> None:
    gate = AgentPortGate(per_address=2, total=3)
    assert gate.enter("198.51.100.1") and gate.enter("198.51.100.1")
    assert not gate.enter("198.51.100.1")  # a third from the same address
    assert gate.enter("203.0.113.9")
    assert not gate.enter("192.0.2.7")  # the port is full, whoever asks
    gate.leave("198.51.100.1")
    assert gate.enter("192.0.2.7")  # a place freed by an authenticated (or refused) stream
    assert not gate.enter("198.51.100.1")


def test_failed_hellos_are_throttled_after_the_allowed_count_until_the_window_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    gate = AgentPortGate(failures_allowed=3, window=60, clock=clock)
    caplog.set_level(logging.WARNING, "controlplane.nodes.agent_port")
    for _ in range(3):
        assert not gate.throttled("198.51.100.1")
        gate.failed("198.51.100.1", "node-x", "wrong credential")
    for _ in range(40):  # the flood goes on: refused without the database, counted, not logged
        assert gate.throttled("198.51.100.1")
        gate.failed("198.51.100.1", "node-x", "throttled")
    assert not gate.throttled("203.0.113.9")  # another address is not concerned
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "198.51.100.1" in lines[0] and "'node-x'" in lines[0]

    clock.now += 61
    gate.flush()  # the window ends: one line with the count
    lines = [r.getMessage() for r in caplog.records]
    assert (
        len(lines) == 2
        and lines[1].startswith("42 more agent Hellos refused from 198.51.100.1")
        and "throttled" in lines[1]
    )
    assert not gate.throttled("198.51.100.1")  # a new window: its agent may try again


def test_a_single_failure_writes_one_line_and_no_summary(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    gate = AgentPortGate(clock=clock)
    caplog.set_level(logging.WARNING, "controlplane.nodes.agent_port")
    gate.failed("198.51.100.1", "n" * 500, "wrong credential")
    clock.now += 3600
    gate.flush()
    [line] = [r.getMessage() for r in caplog.records]
    assert "n" * 65 not in line  # the claimed id is cut


def test_the_address_is_the_peer_unless_a_trusted_proxy_forwards_another() -> None:
    assert peer_host("ipv4:198.51.100.1:40000") == "198.51.100.1"
    assert peer_host("ipv6:[2001:db8::1]:40000") == "2001:db8::1"
    assert peer_host("unix:/run/vpn/grpc.sock") == "unix"
    gate = AgentPortGate(trusted_proxies=("127.0.0.1",))
    forwarded = [("x-forwarded-for", "203.0.113.9")]
    assert gate.address("ipv4:127.0.0.1:5000", forwarded) == "203.0.113.9"
    assert gate.address("ipv4:127.0.0.1:5000", [("x-forwarded-for", "not an address")]) == "127.0.0.1"
    assert gate.address("ipv4:127.0.0.1:5000", None) == "127.0.0.1"
    # Anyone else's header is not believed: an attacker would name a fresh address for every try.
    assert gate.address("ipv4:198.51.100.1:5000", forwarded) == "198.51.100.1"
