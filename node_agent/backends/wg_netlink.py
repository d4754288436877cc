"""Kernel WireGuard's generic netlink messages (include/uapi/linux/wireguard.h), encoded and decoded with struct.

pyroute2 builds one Python object per netlink attribute: about 0.3 ms per peer to encode on the development
machine, seconds for 10 000 peers, which is more than the kernel needs to take them. Here a message is built as
bytes and a dump walked attribute by attribute, with each peer entry's parsed form remembered until the next read
(a no-op resync reads the same peers again). pyroute2 still resolves the family id and does everything else (links,
addresses, routes). Layout, limits and figures: docs/testing-kernel.md, "The kernel backend's netlink".
"""

from __future__ import annotations

import binascii
import operator
import os
import socket
import struct
from collections.abc import Iterable, Iterator
from typing import Any

from node_agent.backends.base import PeerStat
from node_agent.state import DeviceState, Peer, normalize_network

# Netlink and generic netlink.
NLMSG_HDR = struct.Struct("=IHHII")  # length, type, flags, sequence, port id
GENL_HDR = struct.Struct("=BBH")  # command, version, reserved
NLA_HDR = struct.Struct("=HH")  # length, type
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLA_F_NESTED = 0x8000
NLA_TYPE_MASK = 0x3FFF

# WireGuard's commands and attributes.
WG_CMD_GET_DEVICE, WG_CMD_SET_DEVICE = 0, 1
WG_GENL_VERSION = 1
WGDEVICE_A_IFNAME, WGDEVICE_A_PRIVATE_KEY, WGDEVICE_A_LISTEN_PORT, WGDEVICE_A_PEERS = 2, 3, 6, 8
WGPEER_A_PUBLIC_KEY, WGPEER_A_PRESHARED_KEY, WGPEER_A_FLAGS, WGPEER_A_ENDPOINT = 1, 2, 3, 4
WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL, WGPEER_A_LAST_HANDSHAKE_TIME = 5, 6
WGPEER_A_RX_BYTES, WGPEER_A_TX_BYTES, WGPEER_A_ALLOWEDIPS, WGPEER_A_PROTOCOL_VERSION = 7, 8, 9, 10
WGALLOWEDIP_A_FAMILY, WGALLOWEDIP_A_IPADDR, WGALLOWEDIP_A_CIDR_MASK = 1, 2, 3
WGPEER_F_REMOVE_ME, WGPEER_F_REPLACE_ALLOWEDIPS, WGPEER_F_UPDATE_ONLY = 1, 2, 4

_U16 = struct.Struct("=H")
ZERO_KEY_BYTES = bytes(32)
# A nested attribute's length is 16 bits: a message's peer list must stay under 64 KiB. 40 000 bytes leaves room
# for the headers and is about 270 peers with one address each.
MESSAGE_BUDGET = 40_000
ALLOWED_IPS_PER_PART = 500  # a peer with more allowed IPs is sent in parts, as `wg` does
RECEIVE_BUFFER = 1 << 20  # dump messages are at most 32 KiB; several may come in one read


class NetlinkError(OSError):
    """The kernel answered a request with an error code."""


def _attr(kind: int, payload: bytes) -> bytes:
    length = NLA_HDR.size + len(payload)
    return NLA_HDR.pack(length, kind) + payload + bytes(-length % 4)


def _nested(kind: int, parts: Iterable[bytes]) -> bytes:
    return _attr(kind | NLA_F_NESTED, b"".join(parts))


def _key_bytes(key_b64: str) -> bytes:
    return binascii.a2b_base64(key_b64) if key_b64 else ZERO_KEY_BYTES


def _allowed_ip(network: str) -> bytes:
    address, _, mask = network.partition("/")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    return _nested(
        0,
        (
            _attr(WGALLOWEDIP_A_FAMILY, struct.pack("=H", family)),
            _attr(WGALLOWEDIP_A_IPADDR, socket.inet_pton(family, address)),
            _attr(WGALLOWEDIP_A_CIDR_MASK, struct.pack("=B", int(mask))),
        ),
    )


def _sockaddr(endpoint: str) -> bytes:
    """struct sockaddr_in / sockaddr_in6: family in host order, port and address in network order."""
    host, _, port = endpoint.rpartition(":")
    host = host.strip("[]")
    if ":" in host:
        address = socket.inet_pton(socket.AF_INET6, host)
        return _U16.pack(socket.AF_INET6) + struct.pack("!HI16sI", int(port), 0, address, 0)
    return _U16.pack(socket.AF_INET) + struct.pack("!H4s8x", int(port), socket.inet_aton(host))


# A customer's peer, the common case: key, preshared key, flags and one allowed address, no endpoint, no keepalive.
# Packed in one call, byte for byte what the general path below builds from its parts (five times faster, most of
# a 10 000-peer snapshot's encoding: docs/testing-kernel.md, "The kernel backend's netlink"). Per family: the
# peer's length, then each attribute's (length, type) and payload; an IPv4 address pads its family's u16 and mask.
_ONE_ADDRESS = {
    socket.AF_INET: (struct.Struct("=HH HH32s HH32s HHI HH HH HHH2x HH4s HHB3x"), 116, 32, 28, 8),
    socket.AF_INET6: (struct.Struct("=HH HH32s HH32s HHI HH HH HHH2x HH16s HHB3x"), 128, 44, 40, 20),
}


def _one_address_peer(peer: Peer, flags: int, network: str) -> bytes:
    address, _, mask = network.partition("/")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    layout, length, allowed_length, entry_length, address_length = _ONE_ADDRESS[family]
    return layout.pack(
        *(length, NLA_F_NESTED),
        *(36, WGPEER_A_PUBLIC_KEY, _key_bytes(peer.public_key)),
        *(36, WGPEER_A_PRESHARED_KEY, _key_bytes(peer.preshared_key)),
        *(8, WGPEER_A_FLAGS, flags),
        *(allowed_length, WGPEER_A_ALLOWEDIPS | NLA_F_NESTED),
        *(entry_length, NLA_F_NESTED),
        *(6, WGALLOWEDIP_A_FAMILY, family),
        *(address_length, WGALLOWEDIP_A_IPADDR, socket.inet_pton(family, address)),
        *(5, WGALLOWEDIP_A_CIDR_MASK, int(mask)),
    )


def peer_parts(peer: Peer, flags: int) -> Iterator[bytes]:
    """One peer's nested attribute; a peer with many allowed IPs continues in update-only parts, as `wg` does."""
    if len(peer.allowed_ips) == 1 and not peer.endpoint and not peer.persistent_keepalive:
        (network,) = peer.allowed_ips
        yield _one_address_peer(peer, flags, network)
        return
    public_key = _attr(WGPEER_A_PUBLIC_KEY, _key_bytes(peer.public_key))
    networks = sorted(peer.allowed_ips)
    attrs = [
        public_key,
        # All zeroes is how the kernel says "no preshared key": needed to clear one that was set before.
        _attr(WGPEER_A_PRESHARED_KEY, _key_bytes(peer.preshared_key)),
        _attr(WGPEER_A_FLAGS, struct.pack("=I", flags)),
    ]
    if peer.endpoint:
        attrs.append(_attr(WGPEER_A_ENDPOINT, _sockaddr(peer.endpoint)))
    if peer.persistent_keepalive:
        attrs.append(_attr(WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL, struct.pack("=H", peer.persistent_keepalive)))
    attrs.append(_nested(WGPEER_A_ALLOWEDIPS, map(_allowed_ip, networks[:ALLOWED_IPS_PER_PART])))
    yield _nested(0, attrs)
    for start in range(ALLOWED_IPS_PER_PART, len(networks), ALLOWED_IPS_PER_PART):
        part = networks[start : start + ALLOWED_IPS_PER_PART]
        yield _nested(
            0,
            (
                public_key,
                _attr(WGPEER_A_FLAGS, struct.pack("=I", WGPEER_F_UPDATE_ONLY)),
                _nested(WGPEER_A_ALLOWEDIPS, map(_allowed_ip, part)),
            ),
        )


def remove_entry(key_b64: str) -> Iterator[bytes]:
    yield _nested(
        0,
        (_attr(WGPEER_A_PUBLIC_KEY, _key_bytes(key_b64)), _attr(WGPEER_A_FLAGS, struct.pack("=I", WGPEER_F_REMOVE_ME))),
    )


def peer_batches(entries: Iterable[bytes]) -> Iterator[list[bytes]]:
    """Peer entries grouped so that each message's peer list stays under MESSAGE_BUDGET bytes."""
    batch: list[bytes] = []
    size = 0
    for entry in entries:
        if batch and size + len(entry) > MESSAGE_BUDGET:
            yield batch
            batch, size = [], 0
        batch.append(entry)
        size += len(entry)
    if batch:
        yield batch


def set_device_message(
    family: int, seq: int, ifname: str, device_attrs: Iterable[bytes] = (), peers: Iterable[bytes] = ()
) -> bytes:
    """One WG_CMD_SET_DEVICE request (acknowledged) for `ifname`."""
    body = [_attr(WGDEVICE_A_IFNAME, ifname.encode() + b"\0"), *device_attrs]
    peer_list = list(peers)
    if peer_list:
        body.append(_nested(WGDEVICE_A_PEERS, peer_list))
    return _message(family, NLM_F_REQUEST | NLM_F_ACK, seq, WG_CMD_SET_DEVICE, b"".join(body))


def private_key_attr(key_b64: str) -> bytes:
    return _attr(WGDEVICE_A_PRIVATE_KEY, _key_bytes(key_b64))


def listen_port_attr(port: int) -> bytes:
    return _attr(WGDEVICE_A_LISTEN_PORT, struct.pack("=H", port))


def get_device_message(family: int, seq: int, ifname: str) -> bytes:
    return _message(
        family, NLM_F_REQUEST | NLM_F_DUMP, seq, WG_CMD_GET_DEVICE, _attr(WGDEVICE_A_IFNAME, ifname.encode() + b"\0")
    )


def _message(family: int, flags: int, seq: int, command: int, body: bytes) -> bytes:
    length = NLMSG_HDR.size + GENL_HDR.size + len(body)
    return NLMSG_HDR.pack(length, family, flags, seq, 0) + GENL_HDR.pack(command, WG_GENL_VERSION, 0) + body


# --- talking to the kernel ------------------------------------------------------------------------------------


def transact(sock: socket.socket, messages: Iterable[bytes]) -> None:
    """Send each request and wait for its acknowledgement; the first error raises NetlinkError."""
    for message in messages:
        sock.send(message)
        seq = NLMSG_HDR.unpack_from(message)[3]
        while True:
            kind, answer_seq, error = _error_of(sock.recv(RECEIVE_BUFFER))
            if kind == NLMSG_ERROR and answer_seq == seq:
                if error:
                    raise NetlinkError(error, f"WG_CMD_SET_DEVICE: {os.strerror(error)}")
                break


def _error_of(data: bytes) -> tuple[int, int, int]:
    _length, kind, _flags, seq, _pid = NLMSG_HDR.unpack_from(data)
    error = -struct.unpack_from("=i", data, NLMSG_HDR.size)[0] if kind == NLMSG_ERROR else 0
    return kind, seq, error


def dump(sock: socket.socket, request: bytes) -> list[bytes]:
    """Every message of a WG_CMD_GET_DEVICE dump (the bodies after the generic netlink header), until DONE.

    A device with many peers comes back as many messages (each at most 32 KiB, several per read): all are kept.
    """
    sock.send(request)
    seq = NLMSG_HDR.unpack_from(request)[3]
    bodies: list[bytes] = []
    while True:
        data = sock.recv(RECEIVE_BUFFER)
        offset = 0
        while offset + NLMSG_HDR.size <= len(data):
            length, kind, _flags, answer_seq, _pid = NLMSG_HDR.unpack_from(data, offset)
            if length < NLMSG_HDR.size:
                raise NetlinkError(0, "malformed netlink answer")
            if answer_seq == seq:
                if kind == NLMSG_DONE:
                    # DONE carries the dump's outcome: an error met mid-way means the peers read are not all.
                    if length >= NLMSG_HDR.size + 4:
                        error = -struct.unpack_from("=i", data, offset + NLMSG_HDR.size)[0]
                        if error > 0:
                            raise NetlinkError(error, f"WG_CMD_GET_DEVICE ended early: {os.strerror(error)}")
                    return bodies
                if kind == NLMSG_ERROR:
                    error = -struct.unpack_from("=i", data, offset + NLMSG_HDR.size)[0]
                    raise NetlinkError(error, f"WG_CMD_GET_DEVICE: {os.strerror(error)}")
                bodies.append(data[offset + NLMSG_HDR.size + GENL_HDR.size : offset + length])
            offset += (length + 3) & ~3


# --- reading a dump -------------------------------------------------------------------------------------------


# One peer entry of a dump, its fields as the kernel sent them: (public key, preshared key or None in a
# continuation entry, endpoint sockaddr, keepalive, allowed-IP attribute, handshake seconds, rx bytes, tx bytes).
PeerRecord = tuple[bytes, bytes | None, bytes, int, bytes, int, int, int]

_U64 = struct.Struct("=Q")
_I64 = struct.Struct("=q")


def _attrs(data: bytes, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """(type, payload start, payload end) of each attribute in data[start:end]."""
    while start + 4 <= end:
        length, kind = NLA_HDR.unpack_from(data, start)
        if length < 4:
            return
        yield kind & NLA_TYPE_MASK, start + 4, start + length
        start += (length + 3) & ~3


def _peer_records(data: bytes, start: int, end: int, out: list[PeerRecord]) -> None:
    """Append every peer entry of a WGDEVICE_A_PEERS payload to `out`.

    The hot loop of a resync (10 000 peers, about 9 attributes each): kept flat, without a generator per peer.
    """
    header = NLA_HDR.unpack_from
    while start + 4 <= end:
        peer_length = header(data, start)[0]
        if peer_length < 4:
            return
        peer_end = start + peer_length
        offset = start + 4
        public_key = endpoint = allowed = b""
        preshared: bytes | None = None
        keepalive = handshake = rx = tx = 0
        while offset + 4 <= peer_end:
            length, kind = header(data, offset)
            if length < 4:
                break
            kind &= NLA_TYPE_MASK
            if kind == WGPEER_A_PUBLIC_KEY:
                public_key = data[offset + 4 : offset + length]
            elif kind == WGPEER_A_PRESHARED_KEY:
                preshared = data[offset + 4 : offset + length]
            elif kind == WGPEER_A_ALLOWEDIPS:
                allowed = data[offset + 4 : offset + length]
            elif kind == WGPEER_A_LAST_HANDSHAKE_TIME:
                handshake = _I64.unpack_from(data, offset + 4)[0]
            elif kind == WGPEER_A_RX_BYTES:
                rx = _U64.unpack_from(data, offset + 4)[0]
            elif kind == WGPEER_A_TX_BYTES:
                tx = _U64.unpack_from(data, offset + 4)[0]
            elif kind == WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL:
                keepalive = _U16.unpack_from(data, offset + 4)[0]
            elif kind == WGPEER_A_ENDPOINT:
                endpoint = data[offset + 4 : offset + length]
            offset += (length + 3) & ~3
        out.append((public_key, preshared, endpoint, keepalive, allowed, handshake, rx, tx))
        start += (peer_length + 3) & ~3


def key_text(raw: bytes) -> str:
    return binascii.b2a_base64(raw, newline=False).decode()


def endpoint_text(raw: bytes) -> str:
    """A sockaddr_in / sockaddr_in6 as "a.b.c.d:port" / "[v6]:port"; "" when none (port 0)."""
    if len(raw) < 8:
        return ""
    family = _U16.unpack_from(raw)[0]
    port = struct.unpack_from("!H", raw, 2)[0]
    if not port:
        return ""
    if family == socket.AF_INET6 and len(raw) >= 24:
        return f"[{socket.inet_ntop(socket.AF_INET6, raw[8:24])}]:{port}"
    return f"{socket.inet_ntop(socket.AF_INET, raw[4:8])}:{port}"


_NETWORKS: dict[bytes, frozenset[str]] = {}  # a peer's allowed-IP attribute -> its networks, as the agent writes them
_CACHE_MAX = 500_000


def networks_of(raw: bytes) -> frozenset[str]:
    hit = _NETWORKS.get(raw)
    if hit is None:
        found = []
        for _, begin, finish in _attrs(raw, 0, len(raw)):
            family, address, mask = socket.AF_INET, b"", 0
            for kind, b, f in _attrs(raw, begin, finish):
                if kind == WGALLOWEDIP_A_FAMILY:
                    family = _U16.unpack_from(raw, b)[0]
                elif kind == WGALLOWEDIP_A_IPADDR:
                    address = raw[b:f]
                elif kind == WGALLOWEDIP_A_CIDR_MASK:
                    mask = raw[b]
            if address:
                found.append(normalize_network(f"{socket.inet_ntop(family, address)}/{mask}"))
        hit = frozenset(found)
        if len(_NETWORKS) >= _CACHE_MAX:
            _NETWORKS.clear()
        _NETWORKS[raw] = hit
    return hit


# Every peer's first entry in a dump starts with the same head, in this order (drivers/net/wireguard/netlink.c,
# get_peer): public key, preshared key, handshake time, keepalive, tx bytes, rx bytes, protocol version, each an
# attribute of fixed size; the endpoint, if any, and the allowed IPs follow. Such an entry without the payloads of
# the handshake time and the counters (_stable) identifies the peer's configuration.
_HEAD = struct.Struct("=HH HH32s HH32s HH16x HHH2x HH8x HH8x HH4x")  # 136 bytes: the head, payloads skipped
# The head's attribute headers, (length, type) each, where _HEAD puts them.
_head_shape = operator.itemgetter(2, 3, 5, 6, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18)
_HEAD_SHAPE = (
    *(36, WGPEER_A_PUBLIC_KEY, 36, WGPEER_A_PRESHARED_KEY, 20, WGPEER_A_LAST_HANDSHAKE_TIME),
    *(6, WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL, 12, WGPEER_A_TX_BYTES, 12, WGPEER_A_RX_BYTES),
    *(8, WGPEER_A_PROTOCOL_VERSION),
)


def _stable(data: bytes, start: int, length: int) -> bytes:
    """The entry at `start` without the handshake time (bytes 80-96) and the tx and rx counts (108-116, 120-128):
    every attribute header is kept, so an entry of another shape cannot match a head entry's."""
    return (
        data[start : start + 80]
        + data[start + 96 : start + 108]
        + data[start + 116 : start + 120]
        + (data[start + 128 : start + length])
    )


class DeviceReader:
    """Reads one device's dumps into the DeviceState the agent compares, remembering the last read's peer entries.

    A resync reads every peer again, and almost every entry comes back as it was but for its handshake time and
    counters: such an entry is the Peer it was last time, found with one struct call and one lookup instead of an
    attribute walk (a 10 000-peer no-op resync in the kernel VM: docs/testing-kernel.md, "The kernel backend's
    netlink"). The key holds every attribute header of the head, and an entry is remembered only when those
    headers were checked to be the kernel's head: an entry of another shape cannot match one."""

    def __init__(self) -> None:
        self._last: dict[bytes, Peer] = {}

    def device_state(self, bodies: list[bytes]) -> DeviceState:
        """The device in `bodies` (a dump's messages); addresses and MTU come from the link, not from here."""
        device = DeviceState()
        private_key = ZERO_KEY_BYTES
        seen: dict[bytes, Peer] = {}
        for body in bodies:
            for kind, begin, finish in _attrs(body, 0, len(body)):
                if kind == WGDEVICE_A_PEERS:
                    self._read_peers(body, begin, finish, device.peers, seen)
                elif kind == WGDEVICE_A_LISTEN_PORT:
                    device.listen_port = _U16.unpack_from(body, begin)[0]
                elif kind == WGDEVICE_A_PRIVATE_KEY:
                    private_key = body[begin:finish]
        self._last = seen  # only what the device holds now: nothing stale piles up
        device.private_key = "" if private_key == ZERO_KEY_BYTES else key_text(private_key)
        return device

    def _read_peers(self, data: bytes, start: int, end: int, peers: dict[str, Peer], seen: dict[bytes, Peer]) -> None:
        """Every peer entry of a WGDEVICE_A_PEERS payload into `peers`: the hot loop of a resync, kept flat."""
        last = self._last.get
        header = NLA_HDR.unpack_from
        while start + 4 <= end:
            length = header(data, start)[0]
            if length < 4:
                return
            stable = _stable(data, start, length)
            peer = last(stable)
            if peer is None:
                fields = _HEAD.unpack_from(data, start) if length >= _HEAD.size else None
                if fields is not None and _head_shape(fields) == _HEAD_SHAPE:
                    peer = _peer_after_head(fields, data, start + _HEAD.size, start + length)
                else:
                    stable = b""  # not the kernel's head: read the long way every time
                    records: list[PeerRecord] = []
                    _peer_records(data, start, start + length, records)
                    (record,) = records
                    peer = _peer_of(record)
                    previous = peers.get(peer.public_key)
                    if previous is not None and record[1] is None:
                        # A continuation entry (the key and more allowed IPs) belongs to the peer before it.
                        peer = Peer(
                            previous.public_key,
                            previous.preshared_key,
                            previous.allowed_ips | peer.allowed_ips,
                            previous.endpoint,
                            previous.persistent_keepalive,
                        )
            if stable:
                seen[stable] = peer
            peers[peer.public_key] = peer
            start += (length + 3) & ~3


def _peer_after_head(fields: tuple[Any, ...], data: bytes, start: int, end: int) -> Peer:
    """The peer of an entry with the kernel's head (`fields`, from _HEAD): only what follows the head is walked."""
    endpoint = allowed = b""
    for kind, begin, finish in _attrs(data, start, end):
        if kind == WGPEER_A_ENDPOINT:
            endpoint = data[begin:finish]
        elif kind == WGPEER_A_ALLOWEDIPS:
            allowed = data[begin:finish]
    preshared = fields[7]
    return Peer(
        key_text(fields[4]),
        "" if preshared == ZERO_KEY_BYTES else key_text(preshared),
        networks_of(allowed),
        endpoint_text(endpoint),
        fields[12],
    )


def _peer_of(record: PeerRecord) -> Peer:
    public_key, preshared, endpoint, keepalive, allowed, *_counters = record
    return Peer(
        public_key=key_text(public_key),
        preshared_key="" if preshared is None or preshared == ZERO_KEY_BYTES else key_text(preshared),
        allowed_ips=networks_of(allowed),
        endpoint=endpoint_text(endpoint),
        persistent_keepalive=keepalive,
    )


def peer_stats(bodies: list[bytes]) -> list[PeerStat]:
    """Per-peer handshake, counters and endpoint; a continuation entry (more allowed IPs) carries none."""
    records: list[PeerRecord] = []
    for body in bodies:
        for kind, begin, finish in _attrs(body, 0, len(body)):
            if kind == WGDEVICE_A_PEERS:
                _peer_records(body, begin, finish, records)
    return [
        PeerStat(key_text(public_key), handshake, rx, tx, endpoint_text(endpoint))
        for public_key, preshared, endpoint, _keepalive, _allowed, handshake, rx, tx in records
        if preshared is not None
    ]
