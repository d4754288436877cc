"""wireguard-go's UAPI text protocol (get=1 / set=1 on /var/run/wireguard/<ifname>.sock): encode and parse."""

from __future__ import annotations

import asyncio
import base64
import binascii
import re
import socket
import struct
from pathlib import Path

from node_agent.backends.base import BackendError, PeerStat
from node_agent.reconcile import Changes
from node_agent.state import DeviceState, Peer

SOCKET_DIR = Path("/var/run/wireguard")
ZERO_KEY_HEX = "0" * 64


class UapiError(BackendError):
    """wireguard-go answered with a non-zero errno, or the socket is unusable."""


def socket_path(ifname: str) -> Path:
    return SOCKET_DIR / f"{ifname}.sock"


_HEX_KEYS: dict[str, str] = {}  # a device's keys repeat on every read: convert each once


def key_to_hex(key_b64: str) -> str:
    key_hex = base64.b64decode(key_b64).hex()
    # The keys written are the ones read back next: the first read after a 50 000-peer sync converts none.
    if len(_HEX_KEYS) >= 500_000:
        _HEX_KEYS.clear()
    _HEX_KEYS[key_hex] = key_b64
    return key_hex


def hex_to_key(key_hex: str) -> str:
    hit = _HEX_KEYS.get(key_hex)
    if hit is None:
        hit = binascii.b2a_base64(bytes.fromhex(key_hex), newline=False).decode()
        if len(_HEX_KEYS) >= 500_000:
            _HEX_KEYS.clear()
        _HEX_KEYS[key_hex] = hit
    return hit


def _peer_lines(peer: Peer, out: list[str], *, replace: bool) -> None:
    key_hex = key_to_hex(peer.public_key)
    # An all-zero preshared key is how UAPI says "none": needed to clear one that was set before.
    psk_hex = key_to_hex(peer.preshared_key) if peer.preshared_key else ZERO_KEY_HEX
    out.append(f"public_key={key_hex}")
    out.append(f"preshared_key={psk_hex}")
    if peer.endpoint:
        out.append(f"endpoint={peer.endpoint}")
    if peer.persistent_keepalive:
        out.append(f"persistent_keepalive_interval={peer.persistent_keepalive}")
    if replace:
        out.append("replace_allowed_ips=true")
    allowed = [f"allowed_ip={network}" for network in sorted(peer.allowed_ips)]
    out.extend(allowed)
    if not peer.endpoint:
        # How wireguard-go will show this peer in its next get=1 answer (see _LIVE_LINES): the first read after a
        # large sync then finds every peer already parsed. A guess that does not match is only a cache miss.
        _remember(
            f"{key_hex}\npreshared_key={psk_hex}\nprotocol_version=1"
            f"\npersistent_keepalive_interval={peer.persistent_keepalive}" + "".join("\n" + a for a in allowed),
            peer,
        )


def encode_set(changes: Changes, *, private_key: str | None = None, listen_port: int | None = None) -> bytes:
    """One set=1 transaction holding every change, so a 10 000-peer sync is a single round trip."""
    out = ["set=1"]
    if private_key is not None:
        out.append(f"private_key={key_to_hex(private_key)}")
    if listen_port is not None:
        out.append(f"listen_port={listen_port}")
    for key in changes.remove_peers:
        out.append(f"public_key={key_to_hex(key)}")
        out.append("remove=true")
    for peer in changes.add_peers:
        _peer_lines(peer, out, replace=False)
    for peer in changes.update_peers:
        _peer_lines(peer, out, replace=True)
    out.append("\n")
    return "\n".join(out).encode()


# A peer's lines that change while it is up (its handshake and counters, in the order wireguard-go writes them) and
# that a resync does not compare. Taken out of a get=1 answer in one C-level pass, they leave each peer's text the
# same string on every read while the peer is unchanged: it is looked up, not parsed (a no-op resync of 50 000 peers
# must stay under 500 ms, and wireguard-go alone takes 150-350 ms to write its answer: docs/benchmarks.md). A peer
# whose lines come in another order (another implementation, a newer field) is parsed by the line loop, and its
# text remembered the same way.
_LIVE_LINES = re.compile(r"\nlast_handshake_time_sec=\d+\nlast_handshake_time_nsec=\d+\ntx_bytes=\d+\nrx_bytes=\d+")
_PEER_LINE = "public_key="
# A peer's text (what follows its public_key=, live lines taken out) -> (its key, its Peer): the same object on every
# read, and pairs a dict is built from in one C-level call. Bounded: a read that misses forgets the texts it did not
# see (peers gone, endpoints that moved), and whatever the churn it never holds more than _PEER_TEXTS_MAX.
_PEER_TEXTS: dict[str, tuple[str, Peer]] = {}
_PEER_TEXTS_MAX = 500_000


def _remember(peer_text: str, peer: Peer) -> tuple[str, Peer]:
    if len(_PEER_TEXTS) >= _PEER_TEXTS_MAX:
        _PEER_TEXTS.clear()
    pair = _PEER_TEXTS[peer_text] = (peer.public_key, peer)
    return pair


def _parsed(peer_text: str) -> tuple[str, Peer]:
    (peer,) = _parse_device_lines(_PEER_LINE + peer_text).peers.values()
    return _remember(peer_text, peer)


def _peers_by_text(peer_lines: str) -> dict[str, Peer]:
    """The peers of the part of a get=1 answer that holds them (from the first public_key= to before errno=)."""
    texts = _LIVE_LINES.sub("", peer_lines).split("\n" + _PEER_LINE)
    texts[0] = texts[0].removeprefix(_PEER_LINE)
    try:
        return dict(map(_PEER_TEXTS.__getitem__, texts))
    except KeyError:  # peers not seen before, or forgotten: parsed
        pairs = [_PEER_TEXTS.get(text) or _parsed(text) for text in texts]
        if len(_PEER_TEXTS) > 2 * len(texts):
            _PEER_TEXTS.clear()
            _PEER_TEXTS.update(zip(texts, pairs, strict=True))
        return dict(pairs)


def parse_device(text: str) -> DeviceState:
    """Peers (keys, preshared keys, allowed IPs) and port from a get=1 answer."""
    start = text.find(_PEER_LINE)
    end = text.rfind("\nerrno=")
    if start < 0 or (start > 0 and text[start - 1] != "\n") or end < start:
        return _parse_device_lines(text)  # no peers, or not in the usual order: the line loop decides
    # The device's own lines come before the first peer; errno comes last.
    device = _parse_device_lines(text[:start] + text[end + 1 :])
    device.peers = _peers_by_text(text[start:end])
    return device


def _parse_device_lines(text: str) -> DeviceState:
    """Any get=1 answer, line by line, as one flat loop (no per-peer intermediate structures)."""
    peers: dict[str, Peer] = {}
    device: dict[str, str] = {}
    key = ""
    psk = ZERO_KEY_HEX
    endpoint = ""
    keepalive = 0
    ips: list[str] = []

    def flush() -> None:
        public_key = hex_to_key(key)
        peers[public_key] = Peer(
            public_key, "" if psk == ZERO_KEY_HEX else hex_to_key(psk), frozenset(ips), endpoint, keepalive
        )

    for line in text.split("\n"):
        name, _, value = line.partition("=")
        if name == "allowed_ip":
            ips.append(value)
        elif name == "public_key":
            if key:
                flush()
            key, psk, endpoint, keepalive, ips = value, ZERO_KEY_HEX, "", 0, []
        elif name == "preshared_key":
            psk = value
        elif name == "endpoint":
            endpoint = value
        elif name == "persistent_keepalive_interval":
            keepalive = int(value)
        elif (not key and name) or name == "errno":
            device[name] = value
    if key:
        flush()
    if device.get("errno", "0") != "0":
        raise UapiError(f"get failed: errno={device['errno']}")
    private_hex = device.get("private_key", "")
    return DeviceState(
        peers=peers,
        listen_port=int(device.get("listen_port", "0")),
        private_key=hex_to_key(private_hex) if private_hex and private_hex != ZERO_KEY_HEX else "",
    )


def parse_stats(text: str) -> list[PeerStat]:
    """Per-peer handshake, counters and endpoint from a get=1 answer (every stats interval: kept flat)."""
    stats: list[PeerStat] = []
    key = ""
    handshake = rx = tx = 0
    endpoint = ""
    errno = "0"
    for line in text.split("\n"):
        name, _, value = line.partition("=")
        if name == "public_key":
            if key:
                stats.append(PeerStat(hex_to_key(key), handshake, rx, tx, endpoint))
            key, handshake, rx, tx, endpoint = value, 0, 0, 0, ""
        elif name == "last_handshake_time_sec":
            handshake = int(value)
        elif name == "rx_bytes":
            rx = int(value)
        elif name == "tx_bytes":
            tx = int(value)
        elif name == "endpoint":
            endpoint = value
        elif name == "errno":
            errno = value
    if key:
        stats.append(PeerStat(hex_to_key(key), handshake, rx, tx, endpoint))
    if errno != "0":
        raise UapiError(f"get failed: errno={errno}")
    return stats


async def request(path: Path, payload: bytes) -> str:
    """Send one operation, half-close, and read the whole answer (wireguard-go closes after our EOF)."""
    try:
        reader, writer = await asyncio.open_unix_connection(str(path), limit=1 << 20)
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        raise UapiError(f"wireguard-go socket {path} is not answering: {exc}") from exc
    try:
        writer.write(payload)
        await writer.drain()
        writer.write_eof()
        data = await reader.read()
    finally:
        writer.close()
    text = data.decode()
    if not text.endswith("\n\n"):
        raise UapiError(f"truncated answer from {path}")
    return text


async def set_device(path: Path, payload: bytes) -> None:
    text = await request(path, payload)
    errno = text.strip().rpartition("errno=")[2]
    if errno != "0":
        raise UapiError(f"set failed: errno={errno}")


async def get_device(path: Path) -> str:
    return await request(path, b"get=1\n\n")


def serving_pid(path: Path) -> int | None:
    """PID of the wireguard-go process behind a socket (SO_PEERCRED), or None when nothing listens."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid, _, _ = struct.unpack("3i", creds)
        return pid
    except OSError:
        return None
    finally:
        sock.close()
