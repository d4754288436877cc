"""Stats reports that carry what changed (docs/agent-protocol.md, "Stats").

Most peers of a node are idle at any moment: their handshake, counters and endpoint are what the previous report
said. Sending every peer every 5 s made the control plane's work grow with the peers a node holds rather than with
what they do (13 CPU-seconds a second at a million peers, docs/benchmarks.md, "Stats reports at a million
peers"). A report now holds the peers
whose figures changed since the previous report on this stream, plus the node's totals. The first report of a
stream, and one a minute after it (`stats_full_interval`), holds every peer: a browser opened since then sees its
idle peers' figures within that minute, and what the control plane keeps per peer is pruned of peers gone.

A peer whose handshake leaves (or enters) the connected window is sent too, although none of its figures moved:
the control plane's room presence and connected counts change at that moment.

A report larger than PART_BYTES (a complete one past ~11 000 peers) goes out in parts (`split`): the control plane
takes no message over 4 MiB from anyone, and joins the parts into one report (controlplane/nodes/report_parts.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from node_agent.backends.base import PeerStat
from protos import agent_pb2

# A report holding every peer at least this often (seconds).
FULL_INTERVAL = 60.0
# The most a report's message may hold: a quarter of the control plane's limit (agent_port.MAX_MESSAGE_BYTES,
# 4 MiB), so that neither a longer line nor a future field brings a part near it; about 11 000 peers a part.
PART_BYTES = 1 << 20
# What a part holds besides its lines (serial, totals, the flags, the message's own envelope), generously.
_PART_HEADER_BYTES = 128
# A handshake this recent counts as connected: WireGuard drops a session's keys 180 s after its handshake
# (REJECT_AFTER_TIME), so a peer quiet for longer has no session. The control plane uses the same window.
CONNECTED_SECONDS = 180


def line(stat: PeerStat, rtt_us: int | None = None) -> agent_pb2.PeerStats:
    """A peer's figures as a report line; `rtt_us` only when its round trip is measured (node_agent/rtt.py)."""
    return agent_pb2.PeerStats(
        public_key=stat.public_key,
        latest_handshake=stat.latest_handshake,
        rx_bytes=stat.rx_bytes,
        tx_bytes=stat.tx_bytes,
        endpoint=stat.endpoint,
        rtt_us=rtt_us,
    )


def connected(latest_handshake: int, now: float) -> bool:
    return latest_handshake > 0 and now - latest_handshake < CONNECTED_SECONDS


def split(report: agent_pb2.StatsReport, max_bytes: int = PART_BYTES) -> list[agent_pb2.StatsReport]:
    """The report as parts of at most `max_bytes` each, sent in a row: each has the report's serial, totals and
    `complete`; all but the last say `continued`. A report that fits is returned as it is (one part)."""
    if report.ByteSize() + _PART_HEADER_BYTES <= max_bytes:
        return [report]
    budget = max_bytes - _PART_HEADER_BYTES
    parts: list[list[agent_pb2.PeerStats]] = [[]]
    size = 0
    for peer in report.peers:
        # A repeated field's element: one tag byte, its length as a varint (at most 3 bytes here), then itself.
        cost = peer.ByteSize() + 4
        if parts[-1] and size + cost > budget:
            parts.append([])
            size = 0
        parts[-1].append(peer)
        size += cost
    return [
        agent_pb2.StatsReport(
            serial=report.serial,
            peers=lines,
            totals=report.totals if report.HasField("totals") else None,
            complete=report.complete,
            continued=n < len(parts) - 1,
        )
        for n, lines in enumerate(parts)
    ]


class StatsReporter:
    """What this stream's control plane was last told, per peer; one per agent, started over with every stream."""

    def __init__(self, full_interval: float = FULL_INTERVAL, clock: Callable[[], float] = time.time) -> None:
        self._full_interval = full_interval
        self._clock = clock
        # public key -> figures, connected state and round trip last sent
        self._sent: dict[str, tuple[PeerStat, bool, int | None]] = {}
        self._complete_at: float | None = None  # when the last report holding every peer was made

    def stream_started(self) -> None:
        """The next report is a complete one: the control plane on the other end may know nothing of this node."""
        self._sent = {}
        self._complete_at = None

    def report(
        self, serial: int, stats: Sequence[PeerStat], rtts: Mapping[str, int] | None = None
    ) -> agent_pb2.StatsReport:
        """`rtts`: public key -> the member's round trip (µs), for the peers that have one (node_agent/rtt.py); a
        new figure, or one gone, makes the peer's line part of the report like any other change."""
        rtts = rtts or {}
        now = self._clock()
        complete = self._complete_at is None or now - self._complete_at >= self._full_interval
        if complete:
            self._complete_at = now
        previous = self._sent
        sent: dict[str, tuple[PeerStat, bool, int | None]] = {}
        lines: list[agent_pb2.PeerStats] = []
        connected_count = rx_total = tx_total = 0
        for stat in stats:
            online = connected(stat.latest_handshake, now)
            connected_count += online
            rx_total += stat.rx_bytes
            tx_total += stat.tx_bytes
            entry = (stat, online, rtts.get(stat.public_key))
            sent[stat.public_key] = entry
            if complete or previous.get(stat.public_key) != entry:
                lines.append(line(stat, entry[2]))
        # Peers gone from the device are simply not in `sent`: the control plane learns of removals from its own
        # changes, and its per-peer memory is pruned by the next complete report.
        self._sent = sent
        return agent_pb2.StatsReport(
            serial=serial,
            peers=lines,
            totals=agent_pb2.StatsTotals(
                peers=len(sent), peers_connected=connected_count, rx_bytes=rx_total, tx_bytes=tx_total
            ),
            complete=complete,
        )
