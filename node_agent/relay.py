"""LAN discovery relay for rooms: a member's broadcast or multicast UDP packet becomes one unicast copy per other
member of its rooms, in the kernel (nftables netdev ingress + `dup`). Why this way: docs/agent-protocol.md,
"Discovery relay".

Rendered into the same `nft -f` transaction as the room rules (node_agent/firewall.py), so a membership change
moves both at the same moment and is acknowledged once.
"""

from __future__ import annotations

import ipaddress
import json
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

    def __post_init__(self) -> None:
        for name, value, most in (
            ("packets per second", self.packets_per_second, MAX_PACKETS_PER_SECOND),
            ("bytes per second", self.bytes_per_second, MAX_BYTES_PER_SECOND),
            ("budget packets per second", self.budget_packets_per_second, MAX_PACKETS_PER_SECOND),
            ("budget bytes per second", self.budget_bytes_per_second, MAX_BYTES_PER_SECOND),
        ):
            if not 1 <= value <= most:
                raise ValueError(f"relay {name} must be 1..{most}")


DEFAULT_LIMITS = RelayLimits()


@dataclass(frozen=True, slots=True)
class Copy:
    address: str  # the member's tunnel address
    interface: str  # where the copy leaves: the client interface, or the backbone for other servers' members


def _label(address: str) -> str:
    return address.replace(".", "_")


def relay_targets(
    rooms: Mapping[str, Room],
    local_networks: Iterable[str],
    client_networks: Iterable[str],
    client_interface: str,
    backbone_interface: str,
) -> dict[str, tuple[Copy, ...]]:
    """Sender (a member on this node) -> the copies its discovery packets become: every other member of every room
    it is in, reached through this node's client interface or, for other servers' members, the backbone.

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

    others: dict[str, set[str]] = {}
    for room in rooms.values():
        members = {m for m in room.members if ":" not in m}
        for member in members:
            others.setdefault(member, set()).update(members - {member})
    targets: dict[str, tuple[Copy, ...]] = {}
    for sender in sorted(others, key=ipaddress.IPv4Address):
        if route(sender) != client_interface:
            continue  # its packets arrive on another server, whose agent relays them
        copies = []
        for member in sorted(others[sender], key=ipaddress.IPv4Address):
            interface = route(member)
            if interface is not None:
                copies.append(Copy(member, interface))
        if copies:
            targets[sender] = tuple(copies)
    return targets


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
    to its chain, which drops it past the member's limits, then draws one copy's worth from the node's budget per
    copy it is about to make (named limits shared by every chain of the table) and is dropped whole if the budget
    runs out, else rewrites the destination to each other member and duplicates it out of the right interface
    (source kept: the sender's tunnel address, which WireGuard has already authenticated), then drops the original.

    All or nothing per packet: an announcement reaches every room mate or none, so no member is starved because
    its address sorts last. A packet refused half way has spent the copies it drew: under overload the budget
    is spent a little below its rate, never above.
    """
    local_networks = list(local_networks)
    targets = relay_targets(rooms, local_networks, client_networks, client_interface, backbone_interface)
    lines = [f"table netdev {TABLE} {{}}", f"delete table netdev {TABLE}"]
    if not targets:
        return lines
    destinations = ", ".join(discovery_destinations(local_networks))
    dispatch = ", ".join(f"{sender} : jump from_{_label(sender)}" for sender in targets)
    lines += [f"table netdev {TABLE} {{"]
    budget_pps, budget_bps = limits.budget_packets_per_second, limits.budget_bytes_per_second
    lines += [
        f"\tlimit {BUDGET_PACKETS} {{ rate over {budget_pps}/second burst {2 * budget_pps} packets }}",
        f"\tlimit {BUDGET_BYTES} {{ rate over {budget_bps} bytes/second burst {2 * budget_bps} bytes }}",
        f"\tcounter {OVER_BUDGET} {{}}",
    ]
    draw = [
        f'\t\tlimit name "{BUDGET_PACKETS}" counter name "{OVER_BUDGET}" drop',
        f'\t\tlimit name "{BUDGET_BYTES}" counter name "{OVER_BUDGET}" drop',
    ]
    for sender in targets:
        lines += [f"\tcounter relayed_{_label(sender)} {{}}", f"\tcounter limited_{_label(sender)} {{}}"]
    lines += [
        "\tchain ingress {",
        f"\t\ttype filter hook ingress device {quote(client_interface)} priority filter; policy accept;",
        f"\t\tip daddr {{ {destinations} }} ip frag-off & 0x3fff == 0 meta l4proto udp ip saddr vmap {{ {dispatch} }}",
        "\t}",
    ]
    pps, bps = limits.packets_per_second, limits.bytes_per_second
    for sender, copies in targets.items():
        label = _label(sender)
        lines += [
            f"\tchain from_{label} {{",
            f'\t\tlimit rate over {pps}/second burst {2 * pps} packets counter name "limited_{label}" drop',
            f'\t\tlimit rate over {bps} bytes/second burst {2 * bps} bytes counter name "limited_{label}" drop',
            *(draw * len(copies)),
            f'\t\tcounter name "relayed_{label}"',
            f"\t\tip ttl set {COPY_TTL}",
            *(f"\t\tip daddr set {c.address} dup to {quote(c.interface)}" for c in copies),
            "\t\tdrop",
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
        """Feed a fresh read; returns {"relayed"|"limited"|"budget": (packets, bytes)} since the agent started
        ("budget": dropped whole by the node-wide budget)."""
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
            totals = {"relayed": (0, 0), "limited": (0, 0), "budget": (0, 0)}
            for name in set(self._kept) | set(self._last):
                kind = name.split("_", 1)[0]
                if kind not in totals:
                    continue
                kept, last = self._kept.get(name, (0, 0)), self._last.get(name, (0, 0))
                packets, octets = totals[kind]
                totals[kind] = (packets + kept[0] + last[0], octets + kept[1] + last[1])
            return totals
