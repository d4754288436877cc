"""LAN discovery relay for rooms: a member's broadcast or multicast UDP packet becomes one unicast copy per other
member of its rooms, in the kernel (nftables netdev ingress + `dup`). Why this way: docs/agent-protocol.md,
"Discovery relay".

Rendered into the same `nft -f` transaction as the room rules (node_agent/firewall.py), so a membership change
moves both at the same moment and is acknowledged once.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from node_agent.state import Room

TABLE = "vpn_relay"
# Copies get a fresh TTL: a game's multicast leaves with TTL 1, and a copy to another server is forwarded once there.
COPY_TTL = 64
# The link-local control block (routers, IGMP...) stays local; mDNS (224.0.0.251) is discovery and is relayed.
MDNS = "224.0.0.251"
RELAYED_MULTICAST = "224.0.1.0-239.255.255.255"
LIMITED_BROADCAST = "255.255.255.255"
# The node-wide budget's named limits and the counter of packets it dropped (whole, before any copy left).
BUDGET_PACKETS = "budget_packets"
BUDGET_BYTES = "budget_bytes"
OVER_BUDGET = "budget_dropped"
# Each room's share of the budget: named limits `room_<room>_packets` / `room_<room>_bytes`, and the counter of the
# room's announcements its share dropped, `share_<room>` (the prefix is the drop kind the metrics report).
SHARE_COUNTER = "share_"
_SAFE_ID = re.compile(r"^[A-Za-z0-9_]{1,40}$")


# nft keeps a limit's burst (2x the rate) in 32 bits: higher rates are refused by the kernel.
MAX_PACKETS_PER_SECOND = 1_000_000
MAX_BYTES_PER_SECOND = 1_000_000_000


@dataclass(frozen=True, slots=True)
class RelayLimits:
    """Per sender (before the fan-out). A LAN game announces a few packets per second; a flood is thousands.

    The budget is the node's, after the fan-out: every copy leaving the relay, of every room, draws from one token
    bucket. The per-sender limits alone let a room of 50 ask 50 x 49 x 64 KiB/s (about 160 MB/s) of the uplink;
    the budget caps what all rooms together may take, whatever their size.
    """

    packets_per_second: int = 50
    bytes_per_second: int = 65536
    budget_packets_per_second: int = 10_000
    budget_bytes_per_second: int = 4_000_000  # 32 Mbit/s: far above a LAN night's discovery, far below an uplink
    # The least a room's share of the budget may be (room_share): a full room (32 members) announcing twice a
    # second asks about 2 000 copies/s of a few hundred bytes. A fifth of the default budget each.
    room_share_min_packets_per_second: int = 2_000
    room_share_min_bytes_per_second: int = 800_000

    def __post_init__(self) -> None:
        for name, value, most in (
            ("packets per second", self.packets_per_second, MAX_PACKETS_PER_SECOND),
            ("bytes per second", self.bytes_per_second, MAX_BYTES_PER_SECOND),
            ("budget packets per second", self.budget_packets_per_second, MAX_PACKETS_PER_SECOND),
            ("budget bytes per second", self.budget_bytes_per_second, MAX_BYTES_PER_SECOND),
            ("room share minimum packets per second", self.room_share_min_packets_per_second, MAX_PACKETS_PER_SECOND),
            ("room share minimum bytes per second", self.room_share_min_bytes_per_second, MAX_BYTES_PER_SECOND),
        ):
            if not 1 <= value <= most:
                raise ValueError(f"relay {name} must be 1..{most}")


DEFAULT_LIMITS = RelayLimits()


def room_share(limits: RelayLimits, rooms: int) -> tuple[int, int]:
    """(copies/s, bytes/s) each of `rooms` relaying rooms may take of the node's budget: an equal part, but never
    less than the configured minimum (a lone LAN night among many idle rooms still has what it needs) nor more
    than the whole budget (a room alone on the node has all of it)."""
    rooms = max(rooms, 1)
    packets = min(
        limits.budget_packets_per_second,
        max(limits.budget_packets_per_second // rooms, limits.room_share_min_packets_per_second),
    )
    octets = min(
        limits.budget_bytes_per_second,
        max(limits.budget_bytes_per_second // rooms, limits.room_share_min_bytes_per_second),
    )
    return packets, octets


def room_label(room_id: str) -> str:
    """nft object names are identifiers: room ids that are not get a stable hash-based label (as the room sets'
    names in node_agent/firewall.py)."""
    if _SAFE_ID.match(room_id):
        return room_id
    return "h" + hashlib.sha256(room_id.encode()).hexdigest()[:24]


@dataclass(frozen=True, slots=True)
class Copy:
    address: str  # the member's tunnel address
    interface: str  # where the copy leaves: the client interface, or the backbone for other servers' members


def _label(address: str) -> str:
    return address.replace(".", "_")


def relay_groups(
    rooms: Mapping[str, Room],
    local_networks: Iterable[str],
    client_networks: Iterable[str],
    client_interface: str,
    backbone_interface: str,
) -> dict[str, tuple[tuple[str, tuple[Copy, ...]], ...]]:
    """Sender (a member on this node) -> (room id, the copies its discovery packets become in that room), for every
    room it is in: every other member, reached through this node's client interface or, for other servers'
    members, the backbone. A mate sharing several rooms with the sender gets one copy, in the first of them by id
    (drawn from that room's share).

    IPv4 only: broadcast does not exist in IPv6, and IPv6 multicast discovery is left to the games' IPv4 path.
    Members on no network this node routes are skipped (nothing would carry the copy).
    """
    local = [n for n in (ipaddress.ip_network(x, strict=False) for x in local_networks) if n.version == 4]
    remote = [n for n in (ipaddress.ip_network(x, strict=False) for x in client_networks) if n.version == 4]

    def route(address: str) -> str | None:
        ip = ipaddress.IPv4Address(address)
        if any(ip in n for n in local):
            return client_interface
        if backbone_interface and any(ip in n for n in remote):
            return backbone_interface
        return None

    groups: dict[str, list[tuple[str, tuple[Copy, ...]]]] = {}
    reached: dict[str, set[str]] = {}
    for room_id in sorted(rooms):
        members = sorted({m for m in rooms[room_id].members if ":" not in m}, key=ipaddress.IPv4Address)
        for sender in members:
            if route(sender) != client_interface:
                continue  # its packets arrive on another server, whose agent relays them
            done = reached.setdefault(sender, set())
            copies = []
            for member in members:
                if member == sender or member in done:
                    continue
                interface = route(member)
                if interface is not None:
                    copies.append(Copy(member, interface))
                    done.add(member)
            if copies:
                groups.setdefault(sender, []).append((room_id, tuple(copies)))
    return {sender: tuple(groups[sender]) for sender in sorted(groups, key=ipaddress.IPv4Address)}


def relay_targets(
    rooms: Mapping[str, Room],
    local_networks: Iterable[str],
    client_networks: Iterable[str],
    client_interface: str,
    backbone_interface: str,
) -> dict[str, tuple[Copy, ...]]:
    """Sender -> every copy its discovery packets become, all rooms together (relay_groups without the rooms)."""
    groups = relay_groups(rooms, local_networks, client_networks, client_interface, backbone_interface)
    return {
        sender: tuple(
            sorted((c for _, copies in by_room for c in copies), key=lambda c: ipaddress.IPv4Address(c.address))
        )
        for sender, by_room in groups.items()
    }


def discovery_destinations(local_networks: Iterable[str]) -> list[str]:
    """What counts as discovery: limited broadcast, the broadcast address of each of our subnets, mDNS and the
    multicast range above the link-local control block."""
    subnet_broadcasts = sorted(
        {
            str(n.broadcast_address)
            for n in (ipaddress.ip_network(x, strict=False) for x in local_networks)
            if n.version == 4 and n.prefixlen < 31
        },
        key=ipaddress.IPv4Address,
    )
    return [LIMITED_BROADCAST, *subnet_broadcasts, MDNS, RELAYED_MULTICAST]


def render_relay(
    rooms: Mapping[str, Room],
    local_networks: Iterable[str],
    client_networks: Iterable[str],
    client_interface: str,
    backbone_interface: str,
    limits: RelayLimits,
    quote: Callable[[str], str],
) -> list[str]:
    """nft lines replacing table `netdev vpn_relay`: emptied when no member has anybody to relay to.

    Ingress of the client interface: an unfragmented UDP packet to a discovery destination from a member jumps
    to its chain, which drops it past the member's limits, then, for each room the sender is in, jumps to the
    room's part: it draws one copy's worth from the room's share (named limits per room) and then from the node's
    budget (named limits shared by every room) per copy it is about to make, and goes back without a copy if either
    runs out, else rewrites the destination to each other member of that room and duplicates it out of the right
    interface (source kept: the sender's tunnel address, which WireGuard has already authenticated). The original is
    then dropped.

    All or nothing per packet and room: an announcement reaches every mate in a room or none, so no member is
    starved because its address sorts last; and one room's spent share never silences the sender in its other
    rooms. The share is drawn first: a room over its share spends nothing of the node's budget, which is what
    leaves the other rooms theirs (room_share). A packet refused half way has spent the copies it drew: under
    overload a share or the budget is spent a little below its rate, never above.
    """
    local_networks = list(local_networks)
    groups = relay_groups(rooms, local_networks, client_networks, client_interface, backbone_interface)
    lines = [f"table netdev {TABLE} {{}}", f"delete table netdev {TABLE}"]
    if not groups:
        return lines
    relaying = sorted({room_id for by_room in groups.values() for room_id, _ in by_room})
    share_pps, share_bps = room_share(limits, len(relaying))
    destinations = ", ".join(discovery_destinations(local_networks))
    dispatch = ", ".join(f"{sender} : jump from_{_label(sender)}" for sender in groups)
    lines += [f"table netdev {TABLE} {{"]
    budget_pps, budget_bps = limits.budget_packets_per_second, limits.budget_bytes_per_second
    lines += [
        f"\tlimit {BUDGET_PACKETS} {{ rate over {budget_pps}/second burst {2 * budget_pps} packets }}",
        f"\tlimit {BUDGET_BYTES} {{ rate over {budget_bps} bytes/second burst {2 * budget_bps} bytes }}",
        f"\tcounter {OVER_BUDGET} {{}}",
    ]
    for room_id in relaying:
        room = room_label(room_id)
        lines += [
            f"\tlimit room_{room}_packets {{ rate over {share_pps}/second burst {2 * share_pps} packets }}",
            f"\tlimit room_{room}_bytes {{ rate over {share_bps} bytes/second burst {2 * share_bps} bytes }}",
            f"\tcounter {SHARE_COUNTER}{room} {{}}",
        ]
    budget = [
        f'\t\tlimit name "{BUDGET_PACKETS}" counter name "{OVER_BUDGET}" return',
        f'\t\tlimit name "{BUDGET_BYTES}" counter name "{OVER_BUDGET}" return',
    ]
    for sender in groups:
        lines += [f"\tcounter relayed_{_label(sender)} {{}}", f"\tcounter limited_{_label(sender)} {{}}"]
    lines += [
        "\tchain ingress {",
        f"\t\ttype filter hook ingress device {quote(client_interface)} priority filter; policy accept;",
        f"\t\tip daddr {{ {destinations} }} ip frag-off & 0x3fff == 0 meta l4proto udp ip saddr vmap {{ {dispatch} }}",
        "\t}",
    ]
    pps, bps = limits.packets_per_second, limits.bytes_per_second
    for sender, by_room in groups.items():
        label = _label(sender)
        lines += [
            f"\tchain from_{label} {{",
            f'\t\tlimit rate over {pps}/second burst {2 * pps} packets counter name "limited_{label}" drop',
            f'\t\tlimit rate over {bps} bytes/second burst {2 * bps} bytes counter name "limited_{label}" drop',
            f"\t\tip ttl set {COPY_TTL}",
            *(f"\t\tjump from_{label}_in_{room_label(room_id)}" for room_id, _ in by_room),
            "\t\tdrop",
            "\t}",
        ]
        for room_id, copies in by_room:
            room = room_label(room_id)
            share = [
                f'\t\tlimit name "room_{room}_packets" counter name "{SHARE_COUNTER}{room}" return',
                f'\t\tlimit name "room_{room}_bytes" counter name "{SHARE_COUNTER}{room}" return',
            ]
            lines += [
                f"\tchain from_{label}_in_{room} {{",
                *(share * len(copies)),
                *(budget * len(copies)),
                f'\t\tcounter name "relayed_{label}"',
                *(f"\t\tip daddr set {c.address} dup to {quote(c.interface)}" for c in copies),
                "\t}",
            ]
    lines.append("}")
    return lines


def parse_counters(nft_json: str) -> dict[str, tuple[int, int]]:
    """`nft -j list counters table netdev vpn_relay` -> {counter name: (packets, bytes)}."""
    counters: dict[str, tuple[int, int]] = {}
    for item in json.loads(nft_json).get("nftables", []):
        counter = item.get("counter")
        if counter:
            counters[str(counter["name"])] = (int(counter["packets"]), int(counter["bytes"]))
    return counters


class RelayTotals:
    """Monotonic totals over nft counters that restart from zero whenever the room rules are rewritten.

    Each counter is tracked by name (stable per sender across rewrites); a value lower than the last one read
    means it restarted, so what it had reached is kept. Packets counted after the last read and before a rewrite
    are lost to the totals (the relay itself is not affected).
    """

    def __init__(self) -> None:
        self._kept: dict[str, tuple[int, int]] = {}
        self._last: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()  # scrapes run on the exporter's thread

    def update(self, current: Mapping[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
        """Feed a fresh read; returns {"relayed"|"limited"|"share"|"budget": (packets, bytes)} since the agent
        started ("share": a room's copies of a packet dropped by the room's share of the budget; "budget": by the
        node-wide budget)."""
        with self._lock:
            for name, value in current.items():
                last = self._last.get(name, (0, 0))
                if value[0] < last[0] or value[1] < last[1]:
                    kept = self._kept.get(name, (0, 0))
                    self._kept[name] = (kept[0] + last[0], kept[1] + last[1])
                self._last[name] = value
            for name in set(self._last) - set(current):  # the sender left every room: keep what it reached
                kept = self._kept.get(name, (0, 0))
                last = self._last.pop(name)
                self._kept[name] = (kept[0] + last[0], kept[1] + last[1])
            totals = {"relayed": (0, 0), "limited": (0, 0), "share": (0, 0), "budget": (0, 0)}
            for name in set(self._kept) | set(self._last):
                kind = name.split("_", 1)[0]
                if kind not in totals:
                    continue
                kept, last = self._kept.get(name, (0, 0)), self._last.get(name, (0, 0))
                packets, octets = totals[kind]
                totals[kind] = (packets + kept[0] + last[0], octets + kept[1] + last[1])
            return totals
