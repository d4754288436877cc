"""NAT and room isolation with nftables: one table of our own, replaced atomically with `nft -f -`."""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import logging
import re
import socket
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from node_agent import relay
from node_agent.relay import DEFAULT_LIMITS, RelayLimits
from node_agent.state import Room

log = logging.getLogger(__name__)

TABLE = "vpn_node"
_SAFE_ID = re.compile(r"^[A-Za-z0-9_]{1,40}$")


class FirewallError(RuntimeError):
    """nft refused the ruleset."""


@dataclass(frozen=True, slots=True)
class FirewallPlan:
    """Everything the ruleset depends on; equal plans render identical rulesets."""

    tunnel_interfaces: tuple[str, ...]  # wg0 (and the backbone, if any)
    client_networks: frozenset[str]  # every client subnet: ours and those behind the backbone
    local_networks: frozenset[str]  # our own tunnel subnets, masqueraded out of the egress interface
    egress_interface: str  # "" = no NAT / internet rules
    rooms: Mapping[str, Room]
    relay_limits: RelayLimits = DEFAULT_LIMITS  # the discovery relay's per-member limits (node_agent/relay.py)
    # Guest passes' peers' tunnel networks: forwarded to their rooms' members and nowhere else (see render_ruleset).
    room_only: frozenset[str] = frozenset()


def room_set_name(room_id: str) -> str:
    """nft set names are identifiers: room ids that are not get a stable hash-based name."""
    if _SAFE_ID.match(room_id):
        return f"room_{room_id}"
    return "room_h" + hashlib.sha256(room_id.encode()).hexdigest()[:24]


def _quote(name: str) -> str:
    if not re.match(r"^[A-Za-z0-9_.@:-]{1,15}$", name):
        raise FirewallError(f"invalid interface name {name!r}")
    return f'"{name}"'


def _split(addresses: Iterable[str]) -> tuple[list[str], list[str]]:
    v4: list[str] = []
    v6: list[str] = []
    for address in sorted(addresses):
        (v6 if ":" in address else v4).append(address)
    return v4, v6


def _set(name: str, kind: str, elements: list[str], interval: bool) -> list[str]:
    lines = [f"\tset {name} {{", f"\t\ttype {kind}"]
    if interval:
        lines.append("\t\tflags interval")
    if elements:
        lines.append(f"\t\telements = {{ {', '.join(elements)} }}")
    lines.append("\t}")
    return lines


def _collapse(networks: Iterable[str]) -> tuple[list[str], list[str]]:
    # Overlapping intervals are an error in nft; collapse them first.
    nets = [ipaddress.ip_network(n, strict=False) for n in networks]
    v4 = [str(n) for n in ipaddress.collapse_addresses(n for n in nets if n.version == 4)]
    v6 = [str(n) for n in ipaddress.collapse_addresses(n for n in nets if n.version == 6)]
    return v4, v6


def render_ruleset(plan: FirewallPlan) -> str:
    """The whole transaction: create-if-absent, delete, recreate; nft applies it atomically or not at all."""
    clients_v4, clients_v6 = _collapse(plan.client_networks)
    local_v4, local_v6 = _collapse(plan.local_networks)
    room_only_v4, room_only_v6 = _collapse(plan.room_only)
    lines = [
        f"table inet {TABLE} {{}}",
        f"delete table inet {TABLE}",
        f"table inet {TABLE} {{",
        *_set("clients_v4", "ipv4_addr", clients_v4, True),
        *_set("clients_v6", "ipv6_addr", clients_v6, True),
        *_set("local_v4", "ipv4_addr", local_v4, True),
        *_set("local_v6", "ipv6_addr", local_v6, True),
        # One lookup for every guest, however many: no rule per peer.
        *_set("room_only_v4", "ipv4_addr", room_only_v4, True),
        *_set("room_only_v6", "ipv6_addr", room_only_v6, True),
    ]
    room_rules: list[str] = []
    for room_id in sorted(plan.rooms):
        name = room_set_name(room_id)
        v4, v6 = _split(plan.rooms[room_id].members)
        lines += _set(f"{name}_v4", "ipv4_addr", v4, False)
        lines += _set(f"{name}_v6", "ipv6_addr", v6, False)
        room_rules.append(f"\t\tip saddr @{name}_v4 ip daddr @{name}_v4 accept")
        room_rules.append(f"\t\tip6 saddr @{name}_v6 ip6 daddr @{name}_v6 accept")

    tunnels = ", ".join(_quote(i) for i in plan.tunnel_interfaces)
    lines += [
        "\tchain client_to_client {",
        "\t\t# Clients reach each other only inside a shared room; everything else between them is dropped.",
        *room_rules,
        "\t\tdrop",
        "\t}",
        "\tchain forward {",
        "\t\ttype filter hook forward priority filter; policy accept;",
        # Checked before conntrack so that leaving a room cuts open connections at once.
        "\t\tip saddr @clients_v4 ip daddr @clients_v4 jump client_to_client",
        "\t\tip6 saddr @clients_v6 ip6 daddr @clients_v6 jump client_to_client",
        # A guest's traffic to its room was accepted just above; anything else it sends (other clients were dropped
        # there, so: the internet, other networks) stops here. In no room it reaches nobody (fail closed). Also
        # before conntrack, so a connection opened before the restriction is cut too. The node's own addresses
        # are not forwarding: a guest reaches them as any member does.
        "\t\tip saddr @room_only_v4 drop",
        "\t\tip6 saddr @room_only_v6 drop",
        "\t\tct state established,related accept",
    ]
    if plan.egress_interface:
        egress = _quote(plan.egress_interface)
        lines += [
            f"\t\tiifname {{ {tunnels} }} ip saddr @clients_v4 oifname {egress} accept",
            f"\t\tiifname {{ {tunnels} }} ip6 saddr @clients_v6 oifname {egress} accept",
        ]
    lines += [
        "\t\t# Nobody outside opens connections to clients.",
        f"\t\toifname {{ {tunnels} }} drop",
        "\t}",
    ]
    if plan.egress_interface:
        egress = _quote(plan.egress_interface)
        lines += [
            "\tchain postrouting {",
            "\t\ttype nat hook postrouting priority srcnat; policy accept;",
            f"\t\toifname {egress} ip saddr @local_v4 masquerade",
            f"\t\toifname {egress} ip6 saddr @local_v6 masquerade",
            "\t}",
        ]
    lines.append("}")
    # The discovery relay follows the same rooms in the same transaction: one membership change, one moment.
    lines += relay.render_relay(
        plan.rooms,
        plan.local_networks,
        plan.client_networks,
        plan.tunnel_interfaces[0],
        plan.tunnel_interfaces[1] if len(plan.tunnel_interfaces) > 1 else "",
        plan.relay_limits,
        _quote,
    )
    return "\n".join(lines) + "\n"


class Firewall:
    """Applies plans; remembers the last one so that an unchanged plan costs nothing."""

    def __init__(self, netns: str | None = None, nft: str = "nft") -> None:
        self.netns = netns
        self.nft = nft
        self._applied: FirewallPlan | None = None
        self._applied_devices: tuple[int, ...] | None = None
        self._forwarding: set[str] = set()

    def _argv(self, *args: str) -> list[str]:
        argv = [self.nft, *args]
        return ["ip", "netns", "exec", self.netns, *argv] if self.netns else argv

    async def apply(self, plan: FirewallPlan, check_devices: bool = False) -> bool:
        """Apply if different from the last applied plan; returns whether nft was run.

        nft binds the relay's hook and `dup` targets to interface indexes when it loads the rules: with
        `check_devices` (every snapshot) a tunnel interface recreated since (a restarted wireguard-go) forces a
        rewrite even when the plan is the same.
        """
        devices: tuple[int, ...] | None = None
        if check_devices:
            devices = await self._interface_indexes(plan.tunnel_interfaces)
            if devices != self._applied_devices:
                self._applied = None
        if plan == self._applied:
            return False
        ruleset = render_ruleset(plan)
        proc = await asyncio.create_subprocess_exec(
            *self._argv("-f", "-"),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await proc.communicate(ruleset.encode())
        if proc.returncode != 0:
            raise FirewallError(f"nft rejected the ruleset: {err.decode(errors='replace').strip()}")
        self._applied = plan
        if devices is not None:
            self._applied_devices = devices
        log.info(
            "firewall applied: %d room(s), %d room-only network(s), egress %r",
            len(plan.rooms),
            len(plan.room_only),
            plan.egress_interface or None,
        )
        return True

    async def _interface_indexes(self, names: Iterable[str]) -> tuple[int, ...]:
        """Index of each named interface (0 = absent), read with one `ip -o link show` in another namespace."""
        if not self.netns:
            # In the agent's own namespace (production) a lookup costs microseconds; a process costs milliseconds on
            # every snapshot.
            return tuple(_index_here(name) for name in names)
        argv = ["ip", "-o", "link", "show"]
        if self.netns:
            argv = ["ip", "netns", "exec", self.netns, *argv]
        proc = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, _ = await proc.communicate()
        indexes: dict[str, int] = {}
        for line in out.decode(errors="replace").splitlines():
            number, _, rest = line.partition(": ")
            name = rest.split(":", 1)[0].split("@", 1)[0]
            if number.isdigit():
                indexes[name] = int(number)
        return tuple(indexes.get(name, 0) for name in names)

    async def enable_forwarding(self, ipv6: bool) -> None:
        """Turn on IP forwarding (a per-namespace setting); without it no client reaches the internet."""
        keys = ["net.ipv4.ip_forward"] + (["net.ipv6.conf.all.forwarding"] if ipv6 else [])
        if self.netns is None:
            enable_forwarding(keys)  # reads first: cheap enough for every snapshot
            return
        if set(keys) <= self._forwarding:
            return  # a namespace the agent alone manages: once is enough
        proc = await asyncio.create_subprocess_exec(
            "ip",
            "netns",
            "exec",
            self.netns,
            "sysctl",
            "-q",
            *(f"{k}=1" for k in keys),
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await proc.communicate()
        if proc.returncode != 0:
            raise OSError(f"cannot enable forwarding: {err.decode(errors='replace').strip()}")
        self._forwarding.update(keys)

    async def remove(self) -> None:
        proc = await asyncio.create_subprocess_exec(
            *self._argv("-f", "-"), stdin=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        relay_table = relay.render_relay({}, (), (), "", "", DEFAULT_LIMITS, _quote)
        await proc.communicate(
            "\n".join([f"table inet {TABLE} {{}}", f"delete table inet {TABLE}", *relay_table, ""]).encode()
        )
        self._applied = None

    def read_relay_counters(self) -> dict[str, tuple[int, int]]:
        """The relay's nft counters by name (blocking: called from the metrics exporter's thread at scrape time).
        No table (no member has anybody to relay to) reads as no counters."""
        proc = subprocess.run(  # noqa: S603 - fixed argv: nft and our table name
            self._argv("-j", "list", "counters", "table", "netdev", relay.TABLE),
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if proc.returncode != 0:
            return {}
        return relay.parse_counters(proc.stdout)


def enable_forwarding(keys: list[str], proc_sys: Path = Path("/proc/sys")) -> None:
    """Set sysctl `keys` to 1 in this process's namespace, writing only what is not already on."""
    for key in keys:
        path = proc_sys / key.replace(".", "/")
        if path.read_text().strip() != "1":
            path.write_text("1\n")


def _index_here(name: str) -> int:
    try:
        return socket.if_nametoindex(name)
    except OSError:
        return 0
