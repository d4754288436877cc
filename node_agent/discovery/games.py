"""Game announcements: Minecraft Java LAN, the Quake III engine family, Source A2S_INFO, Warcraft III.

Every parser takes the UDP payload as sent by a member (hostile bytes included) and returns an Announcement or
None; none of them raises on any input (tests/unit/agent/test_discovery_parsers.py fuzzes them).
"""

from __future__ import annotations

import re
import struct

from node_agent.discovery.announcement import UNKNOWN, Announcement, clean, count, port_number

MINECRAFT_PORT = 4445
QUAKE3_PORTS = range(27960, 27964)
SOURCE_PORTS = range(27015, 27021)
WARCRAFT3_PORT = 6112

OOB = b"\xff\xff\xff\xff"  # the "connectionless packet" prefix of id Tech 3 and Source

_MINECRAFT = re.compile(rb"\[MOTD\](.{0,1024}?)\[/MOTD\]\[AD\](\d{1,5})\[/AD\]", re.DOTALL)


def minecraft(payload: bytes) -> Announcement | None:
    """`[MOTD]<world name>[/MOTD][AD]<port>[/AD]`, sent every 1.5 s to 224.0.2.60:4445 by a world opened to LAN."""
    match = _MINECRAFT.search(payload[:2048])
    if match is None:
        return None
    port = port_number(int(match.group(2)))
    if not port:
        return None
    return Announcement("minecraft", clean(match.group(1), minecraft=True), port)


def quake3(payload: bytes, source_port: int) -> Announcement | None:
    """The answer of an id Tech 3 server (Quake III, Urban Terror, OpenArena, Wolfenstein: ET...) to a LAN
    `getinfo`: `\\xff\\xff\\xff\\xffinfoResponse\\n\\key\\value...`, from its game port."""
    prefix = OOB + b"infoResponse"
    if not payload.startswith(prefix):
        return None
    body = payload[len(prefix) :].lstrip(b"\n")[:4096]
    parts = body.split(b"\\")
    if len(parts) < 3 or parts[0] != b"":
        return None
    info = {parts[i].lower(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}
    name = info.get(b"hostname") or info.get(b"sv_hostname")
    if name is None:
        return None
    return Announcement(
        "quake3",
        clean(re.sub(rb"\^.", b"", name)),  # ^1 colour codes
        port_number(source_port),
        _int(info.get(b"clients")),
        _int(info.get(b"sv_maxclients")),
        clean(info.get(b"mapname", b"")),
    )


def source(payload: bytes, source_port: int) -> Announcement | None:
    """An `A2S_INFO` reply (header 'I'): protocol, name, map, folder, game, app id, players, max players."""
    if not payload.startswith(OOB + b"I") or len(payload) < 6:
        return None
    fields: list[bytes] = []
    at = 6  # past the header and the protocol byte
    for _ in range(4):
        end = payload.find(b"\0", at, at + 512)
        if end < 0:
            return None
        fields.append(payload[at:end])
        at = end + 1
    if len(payload) < at + 9:  # app id, players, max players, bots, server type, environment, visibility, VAC
        return None
    players, max_players = payload[at + 2], payload[at + 3]
    name, map_name, _folder, game = fields
    detail = clean(map_name)
    if game:
        detail = clean(f"{clean(game)} · {detail}")
    return Announcement("source", clean(name), port_number(source_port), count(players), count(max_players), detail)


def warcraft3(payload: bytes) -> Announcement | None:
    """W3GS_GAMEINFO (0xF7 0x30), broadcast on UDP 6112 by a host: product, version, host counter, entry key,
    game name, a zero, the encoded stat string, slots total, game type, 1, slots open, uptime, game port."""
    if len(payload) < 4 or payload[0] != 0xF7 or payload[1] != 0x30:
        return None
    (length,) = struct.unpack_from("<H", payload, 2)
    if length != len(payload):
        return None
    at = 4 + 16
    end = payload.find(b"\0", at)
    if end < 0:
        return None
    name = payload[at:end]
    at = end + 2  # the name's terminator and the zero byte after it
    end = payload.find(b"\0", at)
    if end < 0 or len(payload) < end + 1 + 22:
        return None
    total, _type, _one, open_slots, _uptime, port = struct.unpack_from("<IIIIIH", payload, end + 1)
    players = total - open_slots if 0 <= open_slots <= total else UNKNOWN
    return Announcement("warcraft3", clean(name), port_number(port), count(players), count(total))


def _int(value: bytes | None) -> int:
    if value is None or not value.strip().isdigit() or len(value) > 6:
        return UNKNOWN
    return count(int(value))
