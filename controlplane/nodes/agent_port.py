"""The agents' gRPC port before authentication (docs/security.md, "The agents' port"): how large a message may be,
how many streams may be waiting for their Hello (from one address and in all), and how failed Hellos are
throttled and logged per address.

gRPC sets its message limit per server, not per stream, so "small until authenticated" is built in three layers:
the transport refuses any message over MAX_MESSAGE_BYTES from its length prefix, before buffering it (with the
BDP probe off, see servicer.server_options); a first message over HELLO_MAX_BYTES is refused as soon as it is read;
and the streams that may be reading a first message at once are capped, so what strangers can make this process
hold is at most `total` x MAX_MESSAGE_BYTES, whatever they send."""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

log = logging.getLogger(__name__)

# The largest message the port accepts, from anyone. gRPC's own default: an agent splits its stats reports into
# parts of at most STATS_PART_BYTES (node_agent/stats.py), its other messages are small (a Hello is ~200 bytes, an
# OperationResult's error is cut at 16 KiB), and an agent older than the split sends a report holding every peer
# in one message, about 92 bytes a peer: up to ~45 000 peers on a node fit.
MAX_MESSAGE_BYTES = 4 << 20
# A Hello is two ids, a key, a version and a backend: about 200 bytes. Anything larger is not an agent.
HELLO_MAX_BYTES = 1024
# A stream that has not sent its Hello by then is closed: an agent sends it right after opening the stream.
HELLO_TIMEOUT = 5.0
# Streams not yet authenticated, per address and in all. An agent has one stream, and its Hello is checked in a
# few milliseconds; the caps bound what strangers hold (total x MAX_MESSAGE_BYTES, 128 MiB). The settings
# VPN_GRPC_UNAUTHENTICATED_PER_ADDRESS / _TOTAL raise them where many agents share one address (the benchmarks'
# scripted agents on loopback).
UNAUTHENTICATED_PER_ADDRESS = 4
UNAUTHENTICATED_TOTAL = 32
# Failed Hellos from one address: after this many within the window, its Hellos are refused without reading the
# database until the window ends. An agent with a wrong credential retries every 30 s (node_agent/client.py), so
# it never reaches the limit by itself.
FAILURES_ALLOWED = 5
FAILURE_WINDOW_SECONDS = 60.0


@dataclass
class _Failures:
    started: float  # when the window's first failure came
    count: int
    last_node: str  # the node id the latest one claimed (cut), for the summary line


def peer_host(peer: str) -> str:
    """The address part of gRPC's peer string: `ipv4:1.2.3.4:5678`, `ipv6:[::1]:5678`, `unix:/path`."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    return kind or "unknown"  # a unix socket: one local address


class AgentPortGate:
    """Counts, per address, the streams waiting to be authenticated and the Hellos that failed."""

    def __init__(
        self,
        trusted_proxies: Iterable[str] = (),
        per_address: int = UNAUTHENTICATED_PER_ADDRESS,
        total: int = UNAUTHENTICATED_TOTAL,
        failures_allowed: int = FAILURES_ALLOWED,
        window: float = FAILURE_WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._trusted_proxies = frozenset(trusted_proxies)
        self._per_address = per_address
        self._total = total
        self._failures_allowed = failures_allowed
        self._window = window
        self._clock = clock
        self._waiting: dict[str, int] = {}
        self._waiting_total = 0
        self._failures: dict[str, _Failures] = {}

    def address(self, peer: str, metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
        """The agent's address; behind a configured reverse proxy (nginx), the one it forwards in X-Forwarded-For."""
        host = peer_host(peer)
        if host not in self._trusted_proxies:
            return host
        forwarded = next((str(v) for k, v in metadata or () if k == "x-forwarded-for"), "")
        candidate = forwarded.split(",")[-1].strip()
        try:
            return str(ipaddress.ip_address(candidate))
        except ValueError:
            return host

    def enter(self, address: str) -> bool:
        """Take a place for an unauthenticated stream; False when the address or the port has none left."""
        if self._waiting_total >= self._total or self._waiting.get(address, 0) >= self._per_address:
            return False
        self._waiting[address] = self._waiting.get(address, 0) + 1
        self._waiting_total += 1
        return True

    def leave(self, address: str) -> None:
        """The stream was authenticated, refused or ended: its place is free."""
        left = self._waiting.get(address, 0) - 1
        if left > 0:
            self._waiting[address] = left
        else:
            self._waiting.pop(address, None)
        self._waiting_total -= 1

    def throttled(self, address: str) -> bool:
        """Too many failed Hellos from this address lately: refuse without reading the database."""
        self.flush()
        failures = self._failures.get(address)
        return failures is not None and failures.count >= self._failures_allowed

    def failed(self, address: str, node_id: str, reason: str) -> None:
        """A Hello refused. The first of a window is logged at once; the rest are counted and logged together when
        the window ends (flush), so a flood writes two lines a minute per address, not one per try."""
        self.flush()
        claimed = node_id[:64]
        failures = self._failures.get(address)
        if failures is None:
            self._failures[address] = _Failures(self._clock(), 1, claimed)
            log.warning(
                "refused agent claiming node %r from %s: %s (further failures from there are counted for %.0f s)",
                claimed,
                address,
                reason,
                self._window,
            )
            return
        failures.count += 1
        failures.last_node = claimed

    def counting(self) -> bool:
        """Some address has failed Hellos in a window not yet over."""
        return bool(self._failures)

    def flush(self) -> None:
        """End the windows that are over, logging how many Hellos each address had refused after its first."""
        now = self._clock()
        for address, failures in list(self._failures.items()):
            if now - failures.started < self._window:
                continue
            del self._failures[address]
            if failures.count > 1:
                log.warning(
                    "%d more agent Hellos refused from %s in %.0f s (last claiming node %r)%s",
                    failures.count - 1,
                    address,
                    self._window,
                    failures.last_node,
                    "; throttled" if failures.count > self._failures_allowed else "",
                )
