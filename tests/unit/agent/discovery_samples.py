"""Announcements as the games and services send them, for the parser tests (and the netns test's senders)."""

from __future__ import annotations

import struct

OOB = b"\xff\xff\xff\xff"


def minecraft(motd: str = "Mundo de Ana", port: int = 51234) -> bytes:
    return f"[MOTD]{motd}[/MOTD][AD]{port}[/AD]".encode()


def quake3(name: str = "^1Arena ^7de Beto", mapname: str = "q3dm17", clients: int = 3, max_clients: int = 8) -> bytes:
    info = f"\\sv_hostname\\{name}\\mapname\\{mapname}\\clients\\{clients}"
    info += f"\\sv_maxclients\\{max_clients}\\gamename\\baseq3"
    return OOB + b"infoResponse\n" + info.encode()


def source(name: str = "CS de Caro", map_name: str = "de_dust2", players: int = 5, max_players: int = 16) -> bytes:
    body = b"I\x11" + b"\0".join(x.encode() for x in (name, map_name, "cstrike", "Counter-Strike")) + b"\0"
    return OOB + body + struct.pack("<H", 10) + bytes([players, max_players, 0]) + b"dl\x00\x01"


def warcraft3(name: str = "DotA de Dani", total: int = 10, open_slots: int = 6, port: int = 6113) -> bytes:
    stat = b"\x01\x03\x49\x07\x01\x01\x75\x01\x99\x7f\x2b\x0d\x03"
    body = b"PX3W" + struct.pack("<III", 26, 1, 0x1234) + name.encode() + b"\0\0" + stat + b"\0"
    body += struct.pack("<IIIIIH", total, 9, 1, open_slots, 120, port)
    return b"\xf7\x30" + struct.pack("<H", 4 + len(body)) + body


def _dns_name(name: str) -> bytes:
    return b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\0"


def mdns(instance: str = "Impresora de Eva", service: str = "_ipp._tcp.local", port: int = 631) -> bytes:
    full = f"{instance}.{service}"
    ptr = _dns_name(service) + struct.pack("!HHIH", 12, 1, 120, len(_dns_name(full))) + _dns_name(full)
    srv_data = struct.pack("!HHH", 0, 0, port) + _dns_name("eva.local")
    srv = _dns_name(full) + struct.pack("!HHIH", 33, 0x8001, 120, len(srv_data)) + srv_data
    return struct.pack("!HHHHHH", 0, 0x8400, 0, 2, 0, 0) + ptr + srv


MEDIA_SERVER = "urn:schemas-upnp-org:device:MediaServer:1"


def ssdp(server: str = "Kodi de Fede", nt: str = MEDIA_SERVER, port: int = 8080) -> bytes:
    return (
        "NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\n"
        f"LOCATION: http://10.8.0.9:{port}/desc.xml\r\nNT: {nt}\r\nNTS: ssdp:alive\r\nSERVER: {server}\r\n"
        "USN: uuid:1234::upnp:rootdevice\r\n\r\n"
    ).encode()
