"""Service announcements: mDNS / DNS-SD responses (RFC 6762/6763) and SSDP `NOTIFY ... ssdp:alive` (UPnP).

Queries (mDNS questions, SSDP M-SEARCH) are somebody looking, not somebody hosting: they make no entry. Like
games.py, nothing here raises on any input.
"""

from __future__ import annotations

import re
import struct

from node_agent.discovery.announcement import Announcement, clean, port_number

MDNS_PORT = 5353
SSDP_PORT = 1900

_PTR, _SRV = 12, 33
_MAX_RECORDS = 64  # a response with more is not a LAN announcement worth reading further
_META = "_services._dns-sd._udp.local"


class _Malformed(Exception):
    pass


def _name(packet: bytes, at: int) -> tuple[str, int]:
    """A (possibly compressed) domain name at `at`: (the name, where the record continues)."""
    labels: list[str] = []
    end = -1
    jumps = 0
    while True:
        if at >= len(packet):
            raise _Malformed
        length = packet[at]
        if length & 0xC0 == 0xC0:
            if at + 1 >= len(packet) or jumps > 16:
                raise _Malformed
            if end < 0:
                end = at + 2
            at = ((length & 0x3F) << 8) | packet[at + 1]
            jumps += 1
            continue
        if length & 0xC0:
            raise _Malformed
        if length == 0:
            return ".".join(labels), (end if end >= 0 else at + 1)
        label = packet[at + 1 : at + 1 + length]
        if len(label) != length or len(labels) > 32:
            raise _Malformed
        labels.append(label.decode("utf-8", errors="replace"))
        at += 1 + length


def mdns(payload: bytes) -> list[Announcement]:
    """The service instances a response announces: `Instance._svc._proto.local` (PTR) with its SRV port."""
    try:
        return _mdns(payload)
    except (_Malformed, struct.error):
        return []


def _mdns(packet: bytes) -> list[Announcement]:
    if len(packet) < 12:
        return []
    _id, flags, questions, answers, authority, additional = struct.unpack_from("!HHHHHH", packet)
    if not flags & 0x8000 or answers + authority + additional > _MAX_RECORDS or questions > _MAX_RECORDS:
        return []  # a query
    at = 12
    for _ in range(questions):
        _, at = _name(packet, at)
        at += 4
    instances: dict[str, str] = {}  # instance name -> service type
    ports: dict[str, int] = {}
    for _ in range(answers + authority + additional):
        owner, at = _name(packet, at)
        kind, _class, _ttl, size = struct.unpack_from("!HHIH", packet, at)
        at += 10
        if at + size > len(packet):
            raise _Malformed
        if kind == _PTR and owner.lower() != _META:
            target, _ = _name(packet, at)
            if target.lower().endswith("." + owner.lower()):
                instances[target] = owner
        elif kind == _SRV and size >= 6:
            ports[owner] = struct.unpack_from("!H", packet, at + 4)[0]
        at += size
    found = []
    for instance, service in instances.items():
        label = instance[: -len(service) - 1]
        kind = service.removesuffix(".local")
        found.append(Announcement("mdns", clean(label), port_number(ports.get(instance, 0)), detail=clean(kind)))
    return found[:8]


_HEADER = re.compile(rb"^([A-Za-z0-9-]{1,64})[ \t]*:[ \t]*(.{0,512}?)[ \t]*$")
_LOCATION_PORT = re.compile(r"^[a-z]+://[^/:]+:(\d{1,5})", re.IGNORECASE)


def ssdp(payload: bytes) -> Announcement | None:
    """`NOTIFY * HTTP/1.1` with `NTS: ssdp:alive`: the service type (NT), a name (SERVER, else USN), the port of
    its LOCATION URL."""
    head, end, _ = payload[:4096].partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    if not end or not lines or not lines[0].upper().startswith(b"NOTIFY * HTTP/1."):
        return None
    headers: dict[bytes, bytes] = {}
    for line in lines[1:40]:
        match = _HEADER.match(line)
        if match:
            headers[match.group(1).upper()] = match.group(2)
    if headers.get(b"NTS", b"").lower() != b"ssdp:alive" or b"NT" not in headers:
        return None
    location = _LOCATION_PORT.match(headers.get(b"LOCATION", b"").decode("latin-1"))
    port = port_number(int(location.group(1))) if location else 0
    name = headers.get(b"SERVER") or headers.get(b"USN", b"")
    return Announcement("ssdp", clean(name), port, detail=clean(headers[b"NT"]))
