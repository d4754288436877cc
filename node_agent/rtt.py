"""Round trips from this node to its room members' devices (docs/agent-protocol.md, "Round trips"), for the room's
best server (docs/rooms.md).

WireGuard measures no delay, so the agent times ICMP echoes to the tunnel address of each room member whose peer is
on this node: a few probes per member now and then, the median reported with the peer's stats. The traffic is
bounded on purpose: at most MAX_PEERS members a round (the others wait their turn), PROBES echoes each, one round
every ROUND_INTERVAL seconds, i.e. at most 96 small packets in 30 s whatever the node holds. A device that does not
answer (Windows drops echo on the Public profile) simply has no figure, and a figure not renewed within
FRESH_SECONDS is dropped: the control plane never reads an old delay as a current one.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import socket
import struct
import time
from collections.abc import Callable, Iterable, Mapping
from statistics import median

from node_agent.state import Peer, Room

log = logging.getLogger(__name__)

ROUND_INTERVAL = 30.0  # seconds between rounds
PROBES = 3  # echoes per member and round; the median of those answered is its figure
MAX_PEERS = 32  # members probed per round: at most PROBES * MAX_PEERS echo requests a round
PROBE_SPACING = 0.2  # seconds between one member's echoes (a burst would measure the first one's queue only)
TIMEOUT = 1.0  # seconds to wait for the last echo's answer; later answers are not counted
FRESH_SECONDS = 3 * ROUND_INTERVAL + 60  # a figure older than this is dropped (not probed or not answering since)

ECHO_REQUEST, ECHO_REPLY = 8, 0
_PAYLOAD = b"vpn-rtt!"  # 8 bytes: a small, recognisable echo


def checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071) of an ICMP message."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def echo_request(ident: int, seq: int) -> bytes:
    header = struct.pack("!BBHHH", ECHO_REQUEST, 0, 0, ident, seq)
    return struct.pack("!BBHHH", ECHO_REQUEST, 0, checksum(header + _PAYLOAD), ident, seq) + _PAYLOAD


def parse_echo_reply(data: bytes, with_ip_header: bool) -> tuple[int, int] | None:
    """(identifier, sequence) of an echo reply; None for anything else (another ICMP type, a truncated or hostile
    packet). A raw socket hands the IP header too; a ping socket (SOCK_DGRAM) only the ICMP message."""
    if with_ip_header:
        if len(data) < 20 or data[0] >> 4 != 4:
            return None
        header_length = (data[0] & 0x0F) * 4
        if header_length < 20 or data[9] != socket.IPPROTO_ICMP:
            return None
        data = data[header_length:]
    if len(data) < 8:
        return None
    kind, code, _sum, ident, seq = struct.unpack("!BBHHH", data[:8])
    if kind != ECHO_REPLY or code != 0:
        return None
    return ident, seq


def room_targets(peers: Mapping[str, Peer], rooms: Mapping[str, Room]) -> dict[str, str]:
    """Tunnel address -> public key, for the room members whose peer is on this node (IPv4 only: every peer has
    one, and one figure per member is enough)."""
    members = {m for room in rooms.values() for m in room.members}
    targets: dict[str, str] = {}
    for key, peer in peers.items():
        for network in peer.allowed_ips:
            address = network.split("/", 1)[0]
            if address in members and ipaddress.ip_address(address).version == 4:
                targets[address] = key
                break
    return targets


class ProbeSchedule:
    """Which members a round probes: all of them when they are few, else MAX_PEERS in turn (sorted by address, a
    cursor going round), so that every member is measured within ceil(members / MAX_PEERS) rounds."""

    def __init__(self, max_peers: int = MAX_PEERS) -> None:
        self.max_peers = max_peers
        self._after = ""  # the last address probed: the next round starts past it

    def next_round(self, addresses: Iterable[str]) -> list[str]:
        ordered = sorted(addresses, key=_order)  # IPv4 only (room_targets)
        if len(ordered) <= self.max_peers:
            return ordered
        start = next((n for n, a in enumerate(ordered) if self._after and _order(a) > _order(self._after)), 0)
        chosen = (ordered[start:] + ordered[:start])[: self.max_peers]
        self._after = chosen[-1]
        return chosen


def _order(address: str) -> int:
    return int(ipaddress.IPv4Address(address))


class RttProber:
    """The latest figure per peer (public key -> median round trip in microseconds, and when it was measured)."""

    def __init__(
        self, schedule: ProbeSchedule | None = None, clock: Callable[[], float] = time.monotonic, probes: int = PROBES
    ) -> None:
        self.schedule = schedule or ProbeSchedule()
        self._clock = clock
        self._probes = probes
        self._figures: dict[str, tuple[int, float]] = {}
        self._seq = 0
        self._ident = os.getpid() & 0xFFFF

    def figures(self) -> dict[str, int]:
        """Public key -> round trip (µs), fresh figures only."""
        now = self._clock()
        return {key: rtt for key, (rtt, at) in self._figures.items() if now - at < FRESH_SECONDS}

    def record(self, targets: Mapping[str, str], chosen: Iterable[str], samples: Mapping[str, list[float]]) -> None:
        """A round's outcome: a member that answered gets the median of its samples (seconds); one that did not
        loses its figure; peers no longer room members on this node are forgotten."""
        now = self._clock()
        for address in chosen:
            key = targets[address]
            answered = samples.get(address)
            if answered:
                self._figures[key] = (max(1, round(median(answered) * 1_000_000)), now)
            else:
                self._figures.pop(key, None)
        wanted = set(targets.values())
        self._figures = {k: v for k, v in self._figures.items() if k in wanted}

    async def round(self, targets: Mapping[str, str]) -> dict[str, list[float]]:
        """Probe this round's members; what each answered (round trips in seconds). An error opening the socket
        is logged and the round measures nothing."""
        chosen = self.schedule.next_round(targets)
        if not chosen:
            self.record(targets, chosen, {})
            return {}
        try:
            sock, with_ip_header = _open_socket()
        except OSError as exc:
            log.warning("cannot time round trips to room members: %s", exc)
            return {}
        try:
            samples = await self._probe(sock, with_ip_header, chosen)
        finally:
            sock.close()
        self.record(targets, chosen, samples)
        return samples

    async def _probe(self, sock: socket.socket, with_ip_header: bool, chosen: list[str]) -> dict[str, list[float]]:
        loop = asyncio.get_running_loop()
        sent: dict[tuple[str, int], float] = {}  # (address, sequence) -> when sent
        samples: dict[str, list[float]] = {}

        async def receive() -> None:
            while True:
                data, (source, *_rest) = await loop.sock_recvfrom(sock, 1500)
                at = time.perf_counter()
                reply = parse_echo_reply(data, with_ip_header)
                if reply is None:
                    continue
                ident, seq = reply
                # A ping socket's identifier is its port, set by the kernel: match on address and sequence there.
                if with_ip_header and ident != self._ident:
                    continue
                started = sent.pop((source, seq), None)
                if started is not None:
                    samples.setdefault(source, []).append(at - started)

        receiver = asyncio.create_task(receive())
        try:
            for n in range(self._probes):
                if n:
                    await asyncio.sleep(PROBE_SPACING)
                for address in chosen:
                    self._seq = (self._seq + 1) & 0xFFFF
                    sent[(address, self._seq)] = time.perf_counter()
                    try:
                        await loop.sock_sendto(sock, echo_request(self._ident, self._seq), (address, 0))
                    except OSError:  # no route (a peer being removed): no figure for it this round
                        sent.pop((address, self._seq), None)
            await asyncio.sleep(TIMEOUT)
        finally:
            receiver.cancel()
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await receiver
        return samples


def _open_socket() -> tuple[socket.socket, bool]:
    """A raw ICMP socket (the agent runs as root), else an unprivileged ping socket; non-blocking."""
    try:
        sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        with_ip_header = True
    except PermissionError:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
        with_ip_header = False
    sock.setblocking(False)
    return sock, with_ip_header
