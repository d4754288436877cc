"""Reading the discovery traffic of the node's client interface: a packet socket with a classic BPF filter, so
that only the few packets the lobby reads ever reach this process.

Why a packet socket: the relay itself runs in nftables (node_agent/relay.py) and never passes through the agent.
Packet taps see an interface's incoming packets before its netdev ingress hook, so they see what a member sent
even when the relay's limits drop it; packets the host sends (the relay's own copies) are filtered out.

What the filter lets through (IPv4, UDP, unfragmented, received from a member's tunnel):
- to a multicast or broadcast address (what the relay copies);
- from a Quake III (27960-27963) or Source (27015-27020) port: their servers answer LAN queries unicast.
At most SNAP bytes of each; the socket's small receive buffer makes the kernel drop a flood rather than queue it,
and each sender's packets are parsed at most PARSED_PER_SECOND times a second (all are counted).
"""

from __future__ import annotations

import ctypes
import ipaddress
import logging
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterable

from node_agent.discovery.recognize import recognize
from node_agent.discovery.tracker import DiscoveryTracker

log = logging.getLogger(__name__)

ETH_P_IP = 0x0800
SO_ATTACH_FILTER = 26
PACKET_OUTGOING = 4
SNAP = 2048
RECEIVE_BUFFER = 256 * 1024
PARSED_PER_SECOND = 20

# Classic BPF opcodes (linux/filter.h).
_LD_W_ABS, _LD_H_ABS, _LD_B_ABS, _LD_H_IND, _LDX_B_MSH = 0x20, 0x28, 0x30, 0x48, 0xB1
_AND_K, _JEQ_K, _JGT_K, _JGE_K, _JSET_K, _RET_K = 0x54, 0x15, 0x25, 0x35, 0x45, 0x06
_PKTTYPE = 0xFFFFF000 + 4  # SKF_AD_OFF + SKF_AD_PKTTYPE
_PORT_RANGES = ((27960, 27963), (27015, 27020))


def filter_program(broadcasts: Iterable[str]) -> list[tuple[int, int, int, int]]:
    """The BPF program, as (code, jt, jf, k), for a layer-3 interface (offset 0 is the IPv4 header)."""
    accept, drop = "accept", "drop"
    program: list[tuple[int, object, object, int]] = [
        (_LD_W_ABS, 0, 0, _PKTTYPE),
        (_JEQ_K, drop, 0, PACKET_OUTGOING),
        (_LD_B_ABS, 0, 0, 0),
        (_AND_K, 0, 0, 0xF0),
        (_JEQ_K, 0, drop, 0x40),
        (_LD_B_ABS, 0, 0, 9),
        (_JEQ_K, 0, drop, socket.IPPROTO_UDP),
        (_LD_H_ABS, 0, 0, 6),
        (_JSET_K, drop, 0, 0x3FFF),  # a fragment: the relay does not copy those either
        (_LD_W_ABS, 0, 0, 16),  # destination address
        (_JGE_K, accept, 0, 0xE0000000),  # multicast, and 255.255.255.255
    ]
    for address in broadcasts:
        program.append((_JEQ_K, accept, 0, int(ipaddress.IPv4Address(address))))
    program += [(_LDX_B_MSH, 0, 0, 0), (_LD_H_IND, 0, 0, 0)]  # source port
    for low, high in _PORT_RANGES:
        program += [(_JGE_K, 0, 1, low), (_JGT_K, 0, accept, high)]
    program += [(_RET_K, 0, 0, 0)]
    labels = {drop: len(program), accept: len(program) + 1}
    program += [(_RET_K, 0, 0, 0), (_RET_K, 0, 0, SNAP)]

    def jump(target: object, at: int) -> int:
        return labels[target] - at - 1 if isinstance(target, str) else int(target)  # type: ignore[call-overload]

    return [(code, jump(jt, i), jump(jf, i), k) for i, (code, jt, jf, k) in enumerate(program)]


def _attach(sock: socket.socket, program: list[tuple[int, int, int, int]]) -> None:
    raw = b"".join(struct.pack("HBBI", *insn) for insn in program)
    buffer = ctypes.create_string_buffer(raw)
    fprog = struct.pack("HL", len(program), ctypes.addressof(buffer))
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)


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

    def _open(self) -> tuple[socket.socket, frozenset[str]]:
        broadcasts = self._broadcasts()
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_IP))
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
            _attach(sock, filter_program(sorted(broadcasts)))
            sock.bind((self.interface, ETH_P_IP))
            sock.settimeout(1.0)
        except OSError:
            sock.close()
            raise
        return sock, broadcasts

    def _run(self) -> None:
        sock: socket.socket | None = None
        broadcasts: frozenset[str] = frozenset()
        warned = False
        while not self._stop.is_set():
            if sock is None or broadcasts != self._broadcasts():
                if sock is not None:
                    sock.close()
                    sock = None
                try:
                    sock, broadcasts = self._open()
                    warned = False
                except OSError as exc:  # the interface is not there yet, or this host refuses packet sockets
                    if not warned:
                        log.info("discovery capture on %s not running yet: %s", self.interface, exc)
                        warned = True
                    self._stop.wait(2.0)
                    continue
            try:
                data, address = sock.recvfrom(SNAP)
            except TimeoutError:
                continue
            except OSError:  # the interface went away: open again once it is back
                sock.close()
                sock = None
                continue
            if address[2] == PACKET_OUTGOING:
                continue
            self.handle(data, broadcasts)
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
        if not to_group and not any(low <= source_port <= high for low, high in _PORT_RANGES):
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
