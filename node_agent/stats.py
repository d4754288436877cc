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
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from node_agent.backends.base import PeerStat
from protos import agent_pb2

# A report holding every peer at least this often (seconds).
FULL_INTERVAL = 60.0
# A handshake this recent counts as connected: WireGuard drops a session's keys 180 s after its handshake
# (REJECT_AFTER_TIME), so a peer quiet for longer has no session. The control plane uses the same window.
CONNECTED_SECONDS = 180


def line(stat: PeerStat) -> agent_pb2.PeerStats:
    """A peer's figures as a report line."""
    return agent_pb2.PeerStats(
        public_key=stat.public_key,
        latest_handshake=stat.latest_handshake,
        rx_bytes=stat.rx_bytes,
        tx_bytes=stat.tx_bytes,
        endpoint=stat.endpoint,
    )


def connected(latest_handshake: int, now: float) -> bool:
    return latest_handshake > 0 and now - latest_handshake < CONNECTED_SECONDS


class StatsReporter:
    """What this stream's control plane was last told, per peer; one per agent, started over with every stream."""

    def __init__(self, full_interval: float = FULL_INTERVAL, clock: Callable[[], float] = time.time) -> None:
        self._full_interval = full_interval
        self._clock = clock
        self._sent: dict[str, tuple[PeerStat, bool]] = {}  # public key -> figures and connected state last sent
        self._complete_at: float | None = None  # when the last report holding every peer was made

    def stream_started(self) -> None:
        """The next report is a complete one: the control plane on the other end may know nothing of this node."""
        self._sent = {}
        self._complete_at = None

    def report(self, serial: int, stats: Sequence[PeerStat]) -> agent_pb2.StatsReport:
        now = self._clock()
        complete = self._complete_at is None or now - self._complete_at >= self._full_interval
        if complete:
            self._complete_at = now
        previous = self._sent
        sent: dict[str, tuple[PeerStat, bool]] = {}
        lines: list[agent_pb2.PeerStats] = []
        connected_count = rx_total = tx_total = 0
        for stat in stats:
            online = connected(stat.latest_handshake, now)
            connected_count += online
            rx_total += stat.rx_bytes
            tx_total += stat.tx_bytes
            entry = (stat, online)
            sent[stat.public_key] = entry
            if complete or previous.get(stat.public_key) != entry:
                lines.append(line(stat))
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
