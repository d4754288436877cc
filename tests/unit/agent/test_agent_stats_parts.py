"""A stats report too large for one message goes out in parts (node_agent/stats.py, `split`), and the control plane
joins them into the report the agent made (controlplane/nodes/report_parts.py): a node of 100 000 peers reports
under the agents' port's message limit without losing a peer or the report's meaning."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, cast

from controlplane.nodes.agent_port import MAX_MESSAGE_BYTES
from controlplane.nodes.report_parts import ReportParts
from node_agent.agent import NodeAgent
from node_agent.backends.base import PeerStat
from node_agent.config import AgentConfig
from node_agent.keys import generate_private_key
from node_agent.stats import PART_BYTES, split
from protos import agent_pb2

NOW = 1_800_000_000


def device(peers: int) -> list[PeerStat]:
    """A busy node's dump: real-sized keys, recent handshakes, large counters, IPv6 and IPv4 endpoints."""
    return [
        PeerStat(
            base64.b64encode(n.to_bytes(32, "big")).decode(),
            NOW - n % 170,
            (n % 1000 + 1) * 12_345_678_901,
            (n % 1000 + 1) * 9_876_543_210,
            f"[2001:db8::{n % 65536:x}]:{10_000 + n % 50_000}" if n % 2 else f"198.51.{n % 256}.{n % 253}:51820",
        )
        for n in range(peers)
    ]


def agent(tmp_path: Path) -> NodeAgent:
    config = AgentConfig(
        control_url="unix:/nonexistent",
        node_id="n1",
        credential="c",
        backend="userspace",
        interface="wg0",
        state_dir=tmp_path,
    )
    return NodeAgent(config, backend=cast(Any, object()), private_key=generate_private_key())


def test_a_complete_report_of_100000_peers_leaves_in_parts_under_the_port_limit(tmp_path: Path) -> None:
    node = agent(tmp_path)
    node.applied_serial = 42
    peers = device(100_000)
    messages = node.stats_report(peers)  # the stream's first report: every peer
    whole = sum(m.stats.ByteSize() for m in messages)
    assert whole > MAX_MESSAGE_BYTES, "the test must need the split"
    assert len(messages) > 1
    assert all(m.ByteSize() <= PART_BYTES <= MAX_MESSAGE_BYTES for m in messages)
    assert [m.stats.continued for m in messages] == [True] * (len(messages) - 1) + [False]
    assert all(m.stats.complete and m.stats.serial == 42 and m.stats.totals.peers == 100_000 for m in messages)

    # The control plane's side: nothing until the last part, then the report as one, every peer once.
    parts = ReportParts("n1")
    joined = [parts.add(m.stats) for m in messages]
    assert joined[:-1] == [None] * (len(messages) - 1)
    report = joined[-1]
    assert report is not None and report.complete and report.serial == 42
    assert report.totals.peers == 100_000 and not report.continued
    assert [p.public_key for p in report.peers] == [p.public_key for p in peers]
    assert report.peers[99_999].endpoint == peers[99_999].endpoint


def test_a_small_report_is_one_message_as_before(tmp_path: Path) -> None:
    node = agent(tmp_path)
    [message] = node.stats_report(device(3))
    assert not message.stats.continued and len(message.stats.peers) == 3
    assert ReportParts("n1").add(message.stats) is message.stats


def test_a_report_of_an_older_agent_sent_whole_is_taken_as_it_is() -> None:
    old = agent_pb2.StatsReport(serial=3, peers=[agent_pb2.PeerStats(public_key="k", rx_bytes=5)])
    assert ReportParts("n1").add(old) is old


def test_parts_beyond_the_bound_are_dropped_and_the_next_report_counts_again() -> None:
    report = agent_pb2.StatsReport(
        serial=1, peers=[agent_pb2.PeerStats(public_key=f"key-{n}", rx_bytes=n) for n in range(400)], complete=True
    )
    parts = ReportParts("n1", max_bytes=2_000)
    pieces = split(report, max_bytes=1_000)
    assert len(pieces) > 2
    assert [parts.add(p) for p in pieces] == [None] * len(pieces)  # too large: dropped, not half-stored
    small = split(agent_pb2.StatsReport(serial=2, peers=report.peers[:20], complete=True), max_bytes=300)
    assert len(small) > 1
    joined = [parts.add(p) for p in small][-1]
    assert joined is not None and len(joined.peers) == 20 and joined.serial == 2
