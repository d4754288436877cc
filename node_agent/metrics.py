"""The agent's own Prometheus metrics (apply durations, peers, recent handshakes, stream state), served on a local
port when `metrics_bind` is set (VPN_NODE_METRICS_BIND, e.g. 127.0.0.1:9586)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from node_agent.config import ConfigError
from node_agent.relay import RelayLimits, RelayTotals

log = logging.getLogger(__name__)

# WireGuard re-handshakes every 2 minutes while traffic flows; a peer silent for longer than 3 is not connected.
RECENT_HANDSHAKE_SECONDS = 180
APPLY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class AgentMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.apply_seconds = Histogram(
            "vpn_agent_apply_duration_seconds",
            "Time to apply a control-plane message (full state or delta) to the device.",
            ("kind",),
            buckets=APPLY_BUCKETS,
            registry=self.registry,
        )
        self.apply_failures = Counter(
            "vpn_agent_apply_failures",
            "Messages the agent could not apply, by kind.",
            ("kind",),
            registry=self.registry,
        )
        self.peers = Gauge("vpn_agent_peers", "Peers the agent holds on its interface.", registry=self.registry)
        self.recent_handshakes = Gauge(
            "vpn_agent_peers_recent_handshake",
            f"Peers whose latest handshake is under {RECENT_HANDSHAKE_SECONDS} s old (connected clients).",
            registry=self.registry,
        )
        self.applied_serial = Gauge(
            "vpn_agent_applied_serial", "Serial of the last desired state applied.", registry=self.registry
        )
        self.connected = Gauge(
            "vpn_agent_connected", "1 while a stream to the control plane is open.", registry=self.registry
        )

    def track(self, peer_count: Callable[[], int], applied_serial: Callable[[], int]) -> None:
        """Read the agent's own figures at scrape time, so they are never stale."""
        self.peers.set_function(peer_count)
        self.applied_serial.set_function(applied_serial)

    def track_relay(self, read_counters: Callable[[], dict[str, tuple[int, int]]], limits: RelayLimits) -> None:
        """The discovery relay's limits, and its counters read from nftables at scrape time."""
        Gauge(
            "vpn_agent_relay_limit_packets_per_second",
            "Discovery packets a room member may have relayed per second; more are dropped.",
            registry=self.registry,
        ).set(limits.packets_per_second)
        Gauge(
            "vpn_agent_relay_limit_bytes_per_second",
            "Discovery bytes a room member may have relayed per second; more are dropped.",
            registry=self.registry,
        ).set(limits.bytes_per_second)
        Gauge(
            "vpn_agent_relay_budget_packets_per_second",
            "Copies the discovery relay may send per second, all rooms together; packets past it are dropped.",
            registry=self.registry,
        ).set(limits.budget_packets_per_second)
        Gauge(
            "vpn_agent_relay_budget_bytes_per_second",
            "Bytes of copies the discovery relay may send per second, all rooms together; more are dropped.",
            registry=self.registry,
        ).set(limits.budget_bytes_per_second)
        Gauge(
            "vpn_agent_relay_room_share_min_packets_per_second",
            "The least share of the relay budget (copies per second) each room gets: an equal part, at least this.",
            registry=self.registry,
        ).set(limits.room_share_min_packets_per_second)
        Gauge(
            "vpn_agent_relay_room_share_min_bytes_per_second",
            "The least share of the relay budget (bytes per second) each room gets: an equal part, at least this.",
            registry=self.registry,
        ).set(limits.room_share_min_bytes_per_second)
        self.registry.register(_RelayCollector(read_counters))

    def record_apply(self, kind: str, seconds: float, ok: bool) -> None:
        self.apply_seconds.labels(kind).observe(seconds)
        if not ok:
            self.apply_failures.labels(kind).inc()

    def record_handshakes(self, latest_handshakes: Iterable[int], now: float | None = None) -> None:
        cutoff = (now if now is not None else time.time()) - RECENT_HANDSHAKE_SECONDS
        self.recent_handshakes.set(sum(1 for h in latest_handshakes if h and h >= cutoff))

    def serve(self, bind: str) -> Callable[[], None]:
        """Start the exporter thread on host:port; returns what stops it. Bind to loopback (or a private
        address) only: the figures reveal how many customers a node has."""
        host, sep, port = bind.rpartition(":")
        if not sep or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(f"metrics_bind must be host:port, got {bind!r}")
        server, _thread = start_http_server(int(port), addr=host.strip("[]") or "127.0.0.1", registry=self.registry)
        log.info("metrics on http://%s/metrics", bind)
        return server.shutdown


class _RelayCollector(Collector):
    """vpn_agent_relay_packets / _bytes by result: "relayed" (copied to the sender's room mates, counted once per
    packet sent and room, not per copy), "limited" (dropped by the sender's limits), "share" (a room's copies of a
    packet dropped by the room's share of the budget) or "budget" (dropped by the node-wide budget). Share and budget
    drops are also logged, once per scrape that sees new ones: an operator reading logs learns that a room asked
    more than its share, or all rooms together more than the node allows."""

    def __init__(self, read_counters: Callable[[], dict[str, tuple[int, int]]]) -> None:
        self._read = read_counters
        self._totals = RelayTotals()
        self._over_budget = 0
        self._over_share = 0

    def collect(self) -> Iterable[CounterMetricFamily]:
        try:
            current = self._read()
        except Exception:  # a failed read must not break the whole scrape
            log.exception("cannot read the relay counters")
            current = None
        totals = self._totals.update(current) if current is not None else None
        if totals is not None and totals["budget"][0] > self._over_budget:
            log.warning(
                "discovery relay over the node's budget: %d packets dropped since the last read (%d in all)",
                totals["budget"][0] - self._over_budget,
                totals["budget"][0],
            )
            self._over_budget = totals["budget"][0]
        if totals is not None and totals["share"][0] > self._over_share:
            log.warning(
                "discovery relay: rooms over their share of the node's budget: %d packets dropped since the last read"
                " (%d in all; nft list counters table netdev vpn_relay names the rooms, share_<room>)",
                totals["share"][0] - self._over_share,
                totals["share"][0],
            )
            self._over_share = totals["share"][0]
        packets = CounterMetricFamily(
            "vpn_agent_relay_packets", "Discovery packets from room members, by result.", labels=("result",)
        )
        octets = CounterMetricFamily(
            "vpn_agent_relay_bytes", "Bytes of discovery packets from room members, by result.", labels=("result",)
        )
        for result, (count, size) in (totals or {}).items():
            packets.add_metric((result,), count)
            octets.add_metric((result,), size)
        yield packets
        yield octets
