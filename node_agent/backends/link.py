"""Link-level settings shared by both backends: addresses, MTU, up state and routes, through pyroute2."""

from __future__ import annotations

import ipaddress
import socket
import threading

from pyroute2 import AsyncIPRoute
from pyroute2 import netns as pyroute2_netns
from pyroute2.netlink.exceptions import NetlinkError

from node_agent.backends.base import BackendError
from node_agent.state import DeviceState, Interface

# Routes the agent installs carry this protocol number so that it only ever removes its own.
RTPROT_VPN_NODE = 44
NETLINK_ROUTE = 0
NETLINK_GENERIC = 16


def netlink_socket_in_netns(netns: str, proto: int) -> int:
    """File descriptor of a netlink socket that lives in `netns`.

    pyroute2's own `netns=` forks a helper process, which crashes (SIGSEGV) in a process that already runs
    gRPC. Instead a short-lived thread enters the namespace (setns is per thread), makes the socket and ends:
    the socket keeps its namespace, the rest of the process never leaves its own.
    """
    result: list[int | BaseException] = []

    def worker() -> None:
        try:
            pyroute2_netns.setns(netns, flags=0)
            sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, proto)
            result.append(sock.detach())
        except BaseException as exc:  # handed to the caller's thread
            result.append(exc)

    thread = threading.Thread(target=worker, name=f"netns-{netns}", daemon=True)
    thread.start()
    thread.join()
    outcome = result[0]
    if isinstance(outcome, BaseException):
        raise BackendError(f"cannot open a netlink socket in namespace {netns}: {outcome}") from outcome
    return outcome


class Link:
    """Netlink handle for one interface name, optionally inside a network namespace."""

    def __init__(self, name: str, netns: str | None) -> None:
        self.name = name
        self.netns = netns
        self._ipr: AsyncIPRoute | None = None

    async def _conn(self) -> AsyncIPRoute:
        # One socket for the agent's lifetime: opening one (inside a namespace especially) costs milliseconds
        # that a no-op resync cannot afford.
        if self._ipr is None:
            if self.netns:
                fd = netlink_socket_in_netns(self.netns, NETLINK_ROUTE)
                ipr = AsyncIPRoute(fileno=fd)
            else:
                ipr = AsyncIPRoute()
            await ipr.setup_endpoint()
            self._ipr = ipr
        return self._ipr

    def close(self) -> None:
        if self._ipr is not None:
            self._ipr.close()
            self._ipr = None

    async def index(self, ipr: AsyncIPRoute) -> int | None:
        found = await ipr.link_lookup(ifname=self.name)
        return found[0] if found else None

    async def exists(self) -> bool:
        ipr = await self._conn()
        return await self.index(ipr) is not None

    async def create(self, kind: str) -> None:
        ipr = await self._conn()
        try:
            await ipr.link("add", ifname=self.name, kind=kind)
        except NetlinkError as exc:
            raise BackendError(f"cannot create {kind} interface {self.name}: {exc}") from exc

    async def delete(self) -> None:
        ipr = await self._conn()
        index = await self.index(ipr)
        if index is not None:
            await ipr.link("del", index=index)

    async def is_up(self) -> bool:
        ipr = await self._conn()
        index = await self.index(ipr)
        if index is None:
            return False
        (link,) = await ipr.link("get", index=index)
        return bool(link["flags"] & 1)  # IFF_UP

    async def read(self) -> tuple[frozenset[str], int]:
        """(addresses as "addr/prefix", mtu) of the interface."""
        ipr = await self._conn()
        index = await self.index(ipr)
        if index is None:
            raise BackendError(f"interface {self.name} does not exist")
        addresses = set()
        async for msg in await ipr.addr("dump", index=index):
            if msg["index"] != index:
                continue
            # Link-local IPv6 addresses are the kernel's, not the control plane's.
            address = msg.get("IFA_ADDRESS")
            if address is None or address.startswith("fe80:"):
                continue
            addresses.add(str(ipaddress.ip_interface(f"{address}/{msg['prefixlen']}")))
        (link,) = await ipr.link("get", index=index)
        return frozenset(addresses), int(link.get("IFLA_MTU") or 0)

    async def configure(
        self,
        add: frozenset[str] = frozenset(),
        remove: frozenset[str] = frozenset(),
        mtu: int | None = None,
        up: bool = True,
    ) -> None:
        ipr = await self._conn()
        index = await self.index(ipr)
        if index is None:
            raise BackendError(f"interface {self.name} does not exist")
        try:
            for action, addresses in (("del", remove), ("add", add)):
                for address in sorted(addresses):
                    iface = ipaddress.ip_interface(address)
                    await ipr.addr(action, index=index, address=str(iface.ip), prefixlen=iface.network.prefixlen)
            if mtu:
                await ipr.link("set", index=index, mtu=mtu)
            if up:
                await ipr.link("set", index=index, state="up")
        except NetlinkError as exc:
            raise BackendError(f"cannot configure {self.name}: {exc}") from exc

    async def set_routes(self, networks: frozenset[str]) -> None:
        ipr = await self._conn()
        index = await self.index(ipr)
        if index is None:
            raise BackendError(f"interface {self.name} does not exist")
        present: set[str] = set()
        for family in (socket.AF_INET, socket.AF_INET6):
            async for msg in await ipr.route("dump", family=family):
                if msg.get("RTA_OIF") != index or msg["proto"] != RTPROT_VPN_NODE:
                    continue
                present.add(f"{msg.get('RTA_DST')}/{msg['dst_len']}")
        try:
            for network in sorted(present - networks):
                await ipr.route("del", dst=network, oif=index, proto=RTPROT_VPN_NODE)
            for network in sorted(networks - present):
                await ipr.route("replace", dst=network, oif=index, proto=RTPROT_VPN_NODE)
        except NetlinkError as exc:
            raise BackendError(f"cannot set routes on {self.name}: {exc}") from exc


async def ensure_link(link: Link, interface: Interface, device: DeviceState) -> None:
    """Bring addresses and MTU to `interface` and the link up, touching only what differs; updates `device`."""
    add = interface.addresses - device.addresses
    remove = device.addresses - interface.addresses
    mtu = interface.mtu if interface.mtu and interface.mtu != device.mtu else None
    if add or remove or mtu is not None or not await link.is_up():
        await link.configure(add=add, remove=remove, mtu=mtu)
    device.addresses = interface.addresses
    device.mtu = mtu or device.mtu
