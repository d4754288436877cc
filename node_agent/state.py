"""The agent's own model of desired and actual state, and its conversion from the protobuf messages."""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import ipaddress
import re
import socket
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from protos import agent_pb2

KEY_LEN = 32


class InvalidSpec(ValueError):
    """A message from the control plane names a key or address that cannot be applied."""


@dataclass(frozen=True, slots=True)
class Peer:
    """One WireGuard peer as the agent compares it: key, optional preshared key, allowed networks."""

    public_key: str
    preshared_key: str = ""  # base64, "" = none
    allowed_ips: frozenset[str] = frozenset()
    endpoint: str = ""  # host:port, only used for backbone peers
    persistent_keepalive: int = 0
    # A guest pass's peer: forwarded only to its rooms' members (firewall.py). Not the device's concern, so never
    # compared with what the device holds (reconcile.peer_differs).
    room_only: bool = False


@dataclass(frozen=True, slots=True)
class Interface:
    """The node's own side of a WireGuard interface."""

    name: str
    listen_port: int = 0
    addresses: frozenset[str] = frozenset()  # CIDR, normalised ("10.8.0.1/24")
    mtu: int = 0  # 0 = backend default


@dataclass(frozen=True, slots=True)
class Room:
    """A room: tunnel addresses that may reach each other."""

    id: str
    members: frozenset[str] = frozenset()  # bare addresses


@dataclass(frozen=True, slots=True)
class Backbone:
    """The WireGuard interface joining room-enabled nodes; `interface.name == ""` means none."""

    interface: Interface
    peers: tuple[Peer, ...] = ()

    @property
    def enabled(self) -> bool:
        return bool(self.interface.name)


NO_BACKBONE = Backbone(Interface(name=""))


@dataclass(slots=True)
class DesiredState:
    """What the control plane wants. `full` marks a whole snapshot: only then may absent peers be pruned.

    For a delta, `peers`/`rooms` hold only the upserted entries and `remove_*` the explicit removals;
    `interface`/`backbone` are None when the message leaves them unchanged.
    """

    serial: int
    full: bool
    peers: dict[str, Peer] = field(default_factory=dict)
    remove_peers: frozenset[str] = frozenset()
    rooms: dict[str, Room] = field(default_factory=dict)
    remove_rooms: frozenset[str] = frozenset()
    interface: Interface | None = None
    backbone: Backbone | None = None
    operation_id: str = ""
    invalid: list[str] = field(default_factory=list)  # entries skipped because they cannot be applied
    # Keys whose entry was invalid (e.g. bad preshared key): a snapshot must not prune them from the device.
    keep_peers: frozenset[str] = frozenset()


@dataclass(slots=True)
class DeviceState:
    """What a WireGuard device currently holds."""

    peers: dict[str, Peer] = field(default_factory=dict)
    listen_port: int = 0
    addresses: frozenset[str] = frozenset()
    mtu: int = 0
    private_key: str = field(default="", repr=False)  # base64; compared, never logged


# Snapshots repeat the same strings every time; remembering their canonical form keeps a 10 000-peer
# no-op resync cheap. Bounded: cleared wholesale when it grows past what a large node needs.
_CANONICAL: dict[tuple[str, str], str] = {}
_CANONICAL_MAX = 500_000


def _cached(kind: str, value: str, convert: Callable[[str], str]) -> str:
    hit = _CANONICAL.get((kind, value))
    if hit is None:
        hit = convert(value)
        if len(_CANONICAL) >= _CANONICAL_MAX:
            _CANONICAL.clear()
        _CANONICAL[(kind, value)] = hit
    return hit


# What the control plane sends is already canonical: a key as 43 base64 characters (the last one with its two low
# bits clear: 32 bytes exactly) and "="; an IPv4 host route as four octets without leading zeros and "/32". Matched,
# it is used as it is: a first snapshot of 10 000 peers spent most of its conversion canonicalizing them (in the
# kernel test layer's VM, more than a second: docs/testing-kernel.md).
_CANONICAL_KEY = re.compile(r"[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=")
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_CANONICAL_HOST_ROUTE = re.compile(rf"{_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET}/32")


def normalize_key(value: str, what: str) -> str:
    """Return the canonical base64 form of a 32-byte WireGuard key, or raise InvalidSpec."""
    if _CANONICAL_KEY.fullmatch(value):
        return value
    hit = _CANONICAL.get(("key", value))
    if hit is not None:
        return hit
    try:
        raw = binascii.a2b_base64(value, strict_mode=True)
    except (binascii.Error, ValueError):
        raise InvalidSpec(f"{what} is not valid base64") from None
    if len(raw) != KEY_LEN:
        raise InvalidSpec(f"{what} is not a 32-byte key")
    return _cached("key", value, lambda _: base64.b64encode(raw).decode())


def _host_route(value: str) -> str | None:
    """Fast path for the common case, a single address ("10.8.0.5", "10.8.0.5/32", "fd00::5/128")."""
    address, _, prefix = value.partition("/")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    full = "128" if family == socket.AF_INET6 else "32"
    if prefix not in ("", full):
        return None
    try:
        canonical = socket.inet_ntop(family, socket.inet_pton(family, address))
    except OSError:
        return None
    return f"{canonical}/{full}"


def _network(value: str) -> str:
    fast = _host_route(value.strip())
    if fast is not None:
        return fast
    try:
        return str(ipaddress.ip_network(value.strip(), strict=True))
    except ValueError:
        raise InvalidSpec(f"invalid network {value!r}") from None


def normalize_network(value: str) -> str:
    """A CIDR network in canonical form ("10.8.0.5" -> "10.8.0.5/32"); host bits must be clear."""
    if _CANONICAL_HOST_ROUTE.fullmatch(value):
        return value
    return _cached("net", value, _network)


def normalize_interface_address(value: str) -> str:
    """An interface address with prefix ("10.8.0.1/24"); host bits are kept."""
    try:
        return str(ipaddress.ip_interface(value.strip()))
    except ValueError:
        raise InvalidSpec(f"invalid interface address {value!r}") from None


def normalize_address(value: str) -> str:
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        raise InvalidSpec(f"invalid address {value!r}") from None


_PEERS: dict[tuple[str, str, tuple[str, ...], bool], Peer] = {}


def peer_from_spec(spec: agent_pb2.PeerSpec) -> Peer:
    """A validated, canonical Peer; snapshots repeat unchanged peers, so the result is remembered."""
    cache_key = (spec.public_key, spec.preshared_key, tuple(spec.allowed_ips), spec.room_only)
    hit = _PEERS.get(cache_key)
    if hit is not None:
        return hit
    peer = _peer_from_spec(spec)
    if len(_PEERS) >= _CANONICAL_MAX:
        _PEERS.clear()
    _PEERS[cache_key] = peer
    return peer


def _peer_from_spec(spec: agent_pb2.PeerSpec) -> Peer:
    public_key = normalize_key(spec.public_key, "public key")
    psk = normalize_key(spec.preshared_key, "preshared key") if spec.preshared_key else ""  # named by its peer's key
    networks = spec.allowed_ips
    if len(networks) == 1 and _CANONICAL_HOST_ROUTE.fullmatch(route := networks[0]):
        allowed_ips = frozenset((route,))  # a customer's peer: one host route, already canonical (no generator)
    else:
        allowed_ips = frozenset(normalize_network(n) for n in networks)
    if spec.room_only:
        return Peer(public_key, psk, allowed_ips, "", 0, True)
    return Peer(public_key, psk, allowed_ips)  # positional: a frozen dataclass's keywords cost a tenth more


def interface_from_spec(spec: agent_pb2.InterfaceSpec) -> Interface:
    return Interface(
        name=spec.name,
        listen_port=spec.listen_port,
        addresses=frozenset(normalize_interface_address(a) for a in spec.addresses),
        mtu=spec.mtu,
    )


def room_from_spec(spec: agent_pb2.RoomSpec) -> Room:
    if not spec.id:
        raise InvalidSpec("room without id")
    return Room(id=spec.id, members=frozenset(normalize_address(m) for m in spec.members))


def backbone_from_spec(spec: agent_pb2.BackboneSpec) -> Backbone:
    if not spec.name:
        return NO_BACKBONE
    peers = tuple(
        Peer(
            public_key=normalize_key(p.public_key, f"backbone key of node {p.node_id}"),
            allowed_ips=frozenset(normalize_network(n) for n in p.allowed_ips),
            endpoint=p.endpoint,
            # Nodes may sit behind NAT on one side; a keepalive keeps the backbone path open.
            persistent_keepalive=25,
        )
        for p in spec.peers
    )
    return Backbone(
        interface=Interface(
            name=spec.name,
            listen_port=spec.listen_port,
            addresses=frozenset(normalize_interface_address(a) for a in spec.addresses),
        ),
        peers=peers,
    )


def _collect_peers(
    specs: Sequence[agent_pb2.PeerSpec], invalid: list[str], keep: set[str] | None = None
) -> dict[str, Peer]:
    peers: dict[str, Peer] = {}
    for spec in specs:
        try:
            peer = peer_from_spec(spec)
        except InvalidSpec as exc:
            # Only the public key is named: preshared keys never reach an error text or a log.
            invalid.append(f"peer {spec.public_key[:44]!r}: {exc}")
            if keep is not None:
                with contextlib.suppress(InvalidSpec):
                    keep.add(normalize_key(spec.public_key, "public key"))
            continue
        peers[peer.public_key] = peer
    return peers


def _collect_rooms(specs: list[agent_pb2.RoomSpec], invalid: list[str]) -> dict[str, Room]:
    rooms: dict[str, Room] = {}
    for spec in specs:
        try:
            room = room_from_spec(spec)
        except InvalidSpec as exc:
            invalid.append(f"room {spec.id!r}: {exc}")
            continue
        rooms[room.id] = room
    return rooms


@dataclass(slots=True)
class PeerPart:
    """Some of a snapshot's peers, converted: the valid ones, what was skipped, and the keys not to prune."""

    peers: dict[str, Peer]
    invalid: list[str]
    keep: set[str]


def peer_parts(specs: Sequence[agent_pb2.PeerSpec], size: int) -> Iterator[PeerPart]:
    """A snapshot's peers converted `size` at a time, in order: the agent applies the first ones while the rest are
    converted (agent.py, handle_full_state). A key named twice counts once, at its last entry, as in one dict: an
    earlier part must not write what a later one takes back, and parts with disjoint keys may be written in any
    order."""
    last = {spec.public_key: index for index, spec in enumerate(specs)}
    if len(last) < len(specs):
        specs = [spec for index, spec in enumerate(specs) if last[spec.public_key] == index]
    for start in range(0, len(specs), size):
        invalid: list[str] = []
        keep: set[str] = set()
        peers = _collect_peers(specs[start : start + size], invalid, keep)
        yield PeerPart(peers, invalid, keep)


def full_state_frame(msg: agent_pb2.FullState) -> DesiredState:
    """A FullState without its peers (interface, rooms, backbone); `add_peers` adds them, part by part."""
    invalid: list[str] = []
    rooms = _collect_rooms(list(msg.rooms), invalid)
    interface = interface_from_spec(msg.interface)
    if not interface.name:
        raise InvalidSpec("full state without interface name")
    backbone = backbone_from_spec(msg.backbone) if msg.HasField("backbone") else NO_BACKBONE
    return DesiredState(
        serial=msg.serial,
        full=True,
        rooms=rooms,
        interface=interface,
        backbone=backbone,
        operation_id=msg.operation_id,
        invalid=invalid,
    )


def snapshot_digest(msg: agent_pb2.FullState) -> bytes:
    """What a snapshot says, without its serial and operation id: snapshots with the same digest convert to the same
    peers, so the agent converts a snapshot it has just applied only once (NodeAgent.handle_full_state)."""
    content = agent_pb2.FullState()
    content.CopyFrom(msg)
    content.ClearField("serial")
    content.ClearField("operation_id")
    return hashlib.sha256(content.SerializeToString(deterministic=True)).digest()


def add_peers(desired: DesiredState, part: PeerPart) -> None:
    """A converted part joins the snapshot (a key named twice: the later entry wins, as in one dict)."""
    desired.peers.update(part.peers)
    desired.invalid.extend(part.invalid)
    if part.keep:
        desired.keep_peers = desired.keep_peers | part.keep


def desired_from_full_state(msg: agent_pb2.FullState) -> DesiredState:
    """Convert a FullState. Invalid entries are skipped and listed in `invalid` so the rest still applies."""
    desired = full_state_frame(msg)
    for part in peer_parts(msg.peers, max(len(msg.peers), 1)):
        add_peers(desired, part)
    return desired


def desired_from_delta(msg: agent_pb2.Delta) -> DesiredState:
    """Convert a Delta. Unlike a snapshot it is all or nothing: any invalid entry raises InvalidSpec."""
    invalid: list[str] = []
    peers = _collect_peers(list(msg.upsert_peers), invalid)
    rooms = _collect_rooms(list(msg.upsert_rooms), invalid)
    removals: set[str] = set()
    for key in msg.remove_peers:
        try:
            removals.add(normalize_key(key, "removed peer key"))
        except InvalidSpec as exc:
            invalid.append(str(exc))
    if invalid:
        raise InvalidSpec("; ".join(invalid))
    backbone = backbone_from_spec(msg.backbone) if msg.HasField("backbone") else None
    return DesiredState(
        serial=msg.serial,
        full=False,
        peers=peers,
        remove_peers=frozenset(removals),
        rooms=rooms,
        remove_rooms=frozenset(msg.remove_rooms),
        backbone=backbone,
        operation_id=msg.operation_id,
    )
