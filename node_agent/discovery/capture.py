"""Reading room members' discovery packets into the tracker: NFLOG copies made by our own nft chain
(node_agent/discovery/nflog.py explains why not a packet socket), parsed on a thread of their own so the agent's
event loop never waits for them. The kernel hands over at most nflog.LOG_PER_SECOND packets a second; each sender's
are parsed at most PARSED_PER_SECOND times a second (all are counted).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import struct
import threading
import time
from collections.abc import Callable

from node_agent.discovery import nflog
from node_agent.discovery.recognize import recognize
from node_agent.discovery.tracker import DiscoveryTracker

log = logging.getLogger(__name__)

PARSED_PER_SECOND = 20
_REPLY_PORTS = ((27960, 27963), (27015, 27020))


def parse_ipv4_udp(packet: bytes) -> tuple[str, str, int, int, bytes] | None:
    """(source, destination, source port, destination port, payload) of an IPv4 UDP packet, else None."""
    if len(packet) < 28 or packet[0] >> 4 != 4 or packet[9] != socket.IPPROTO_UDP:
        return None
    header = (packet[0] & 0x0F) * 4
    if header < 20 or len(packet) < header + 8:
        return None
    source, dest = socket.inet_ntoa(packet[12:16]), socket.inet_ntoa(packet[16:20])
    source_port, dest_port = struct.unpack_from("!HH", packet, header)
    return source, dest, source_port, dest_port, packet[header + 8 :]


class DiscoveryCapture:
    """A thread reading `interface`'s discovery packets into `tracker`, for senders in `members()`."""

    def __init__(
        self,
        interface: str,
        tracker: DiscoveryTracker,
        members: Callable[[], frozenset[str]],
        broadcasts: Callable[[], frozenset[str]],
    ) -> None:
        self.interface = interface
        self.tracker = tracker
        self._members = members
        self._broadcasts = broadcasts
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._budget: dict[str, tuple[float, int]] = {}  # sender -> (second, packets parsed in it)

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="discovery-capture", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)
            self._thread = None

    def _run(self) -> None:
        sock: socket.socket | None = None
        warned = False
        while not self._stop.is_set():
            if sock is None:
                try:
                    sock = nflog.open_socket()
                    sock.settimeout(1.0)
                    warned = False
                    log.info("discovery capture listening (NFLOG group %d) for %s", nflog.NFLOG_GROUP, self.interface)
                except OSError as exc:  # this host refuses netlink sockets
                    if not warned:
                        log.info("discovery capture on %s not running yet: %s", self.interface, exc)
                        warned = True
                    self._stop.wait(2.0)
                    continue
            try:
                data = sock.recv(1 << 16)
            except TimeoutError:
                continue
            except OSError as exc:  # ENOBUFS: a burst overflowed the buffer; those packets are lost, not the socket
                log.debug("discovery capture: %s", exc)
                continue
            broadcasts = self._broadcasts()
            for packet in nflog.payloads(data):
                self.handle(packet, broadcasts)
        if sock is not None:
            sock.close()

    def handle(self, packet: bytes, broadcasts: frozenset[str]) -> None:
        parsed = parse_ipv4_udp(packet)
        if parsed is None:
            return
        source, dest, source_port, dest_port, payload = parsed
        if source not in self._members():
            return
        to_group = dest in broadcasts or ipaddress.IPv4Address(dest) >= ipaddress.IPv4Address("224.0.0.0")
        if not to_group and not any(low <= source_port <= high for low, high in _REPLY_PORTS):
            return
        second = int(time.monotonic())
        at, parsed_count = self._budget.get(source, (second, 0))
        if at != second:
            parsed_count = 0
        if len(self._budget) > 4096:
            self._budget.clear()
        self._budget[source] = (second, parsed_count + 1)
        found = recognize(payload, source_port, dest_port, to_group) if parsed_count < PARSED_PER_SECOND else []
        if to_group or found:
            self.tracker.observe(source, found)
