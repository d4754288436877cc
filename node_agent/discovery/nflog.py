"""How discovery packets reach the agent: an nftables rule copies them to an NFLOG group, read here.

Why not a packet socket beside the relay: on current kernels a packet tap does not see what the netdev ingress
hook drops, and the relay (node_agent/relay.py) drops every original after copying it. So a chain of our own
(table `netdev vpn_discovery`, on the same hook, before the relay's) logs each room member's discovery packet to
NFLOG_GROUP (at most LOG_PER_SECOND a second for the whole node, SNAP bytes each) and accepts it; the relay then
does what it always did. Its own table, written by its own `nft -f`, so that the relay's rules are untouched.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import Iterable, Iterator

TABLE = "vpn_discovery"
NFLOG_GROUP = 47
SNAP = 1500
LOG_PER_SECOND = 400  # what the whole node parses at most: a flood is cut here, in the kernel
PRIORITY = -150  # before the relay's chain (priority filter = 0)
GAME_REPLY_PORTS = "27015-27020, 27960-27963"  # Source and Quake III servers answer LAN queries unicast

NETLINK_NETFILTER = 12
_NFULNL_MSG_PACKET, _NFULNL_MSG_CONFIG = 0, 1
_SUBSYS_ULOG = 4
_CFG_CMD, _CFG_MODE = 1, 2
_CMD_BIND, _CMD_PF_UNBIND, _CMD_PF_BIND = 1, 4, 3
_COPY_PACKET = 2
_NFULA_PAYLOAD = 9
_NLM_F_REQUEST, _NLM_F_ACK = 1, 4


def render_rules(interface: str, members: Iterable[str], destinations: Iterable[str], quote: str = '"') -> str:
    """`nft -f` input replacing the table; without members it only deletes it."""
    lines = [f"table netdev {TABLE} {{}}", f"delete table netdev {TABLE}"]
    members = sorted(members, key=lambda a: socket.inet_aton(a))
    if not members:
        return "\n".join(lines) + "\n"
    senders = ", ".join(members)
    log = f"limit rate {LOG_PER_SECOND}/second burst {LOG_PER_SECOND} packets log group {NFLOG_GROUP} snaplen {SNAP}"
    lines += [
        f"table netdev {TABLE} {{",
        "\tchain ingress {",
        f"\t\ttype filter hook ingress device {quote}{interface}{quote} priority {PRIORITY}; policy accept;",
        f"\t\tip saddr {{ {senders} }} ip daddr {{ {', '.join(destinations)} }} ip frag-off & 0x3fff == 0"
        f" meta l4proto udp {log}",
        f"\t\tip saddr {{ {senders} }} ip frag-off & 0x3fff == 0 udp sport {{ {GAME_REPLY_PORTS} }} {log}",
        "\t}",
        "}",
    ]
    return "\n".join(lines) + "\n"


async def apply_rules(text: str) -> None:
    proc = await asyncio.create_subprocess_exec(
        "nft", "-f", "-", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    _, err = await proc.communicate(text.encode())
    if proc.returncode != 0:
        raise OSError(f"nft rejected the discovery rules: {err.decode(errors='replace').strip()}")


def _attr(kind: int, data: bytes) -> bytes:
    size = 4 + len(data)
    return struct.pack("HH", size, kind) + data + b"\0" * ((4 - size % 4) % 4)


def _config(group: int, attrs: bytes, family: int = socket.AF_UNSPEC) -> bytes:
    body = struct.pack("BBH", family, 0, socket.htons(group)) + attrs
    header = struct.pack("IHHII", 16 + len(body), (_SUBSYS_ULOG << 8) | _NFULNL_MSG_CONFIG, _NLM_F_REQUEST, 0, 0)
    return header + body


def open_socket(group: int = NFLOG_GROUP) -> socket.socket:
    """A netlink socket bound to the NFLOG group, copying whole packets (up to SNAP)."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        sock.bind((0, 0))
        sock.send(_config(group, _attr(_CFG_CMD, struct.pack("B", _CMD_BIND))))
        sock.send(_config(group, _attr(_CFG_MODE, struct.pack("!IBB", SNAP, _COPY_PACKET, 0))))
    except OSError:
        sock.close()
        raise
    return sock


def payloads(data: bytes) -> Iterator[bytes]:
    """The logged packets (from their IPv4 header) in one netlink read; anything malformed is skipped."""
    at = 0
    while at + 16 <= len(data):
        length, kind = struct.unpack_from("IH", data, at)
        if length < 16 or at + length > len(data):
            return
        if kind == (_SUBSYS_ULOG << 8) | _NFULNL_MSG_PACKET:
            attr = at + 16 + 4  # past the nlmsghdr and the nfgenmsg
            while attr + 4 <= at + length:
                size, attr_kind = struct.unpack_from("HH", data, attr)
                if size < 4 or attr + size > at + length:
                    break
                if attr_kind & 0x3FFF == _NFULA_PAYLOAD:
                    yield data[attr + 4 : attr + size]
                attr += (size + 3) & ~3
        at += (length + 3) & ~3
