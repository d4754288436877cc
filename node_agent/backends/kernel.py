"""Kernel WireGuard over generic netlink: WireGuard's own messages through wg_netlink, links through pyroute2."""

from __future__ import annotations

import asyncio
import errno
import itertools
import logging
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from pyroute2.netlink.exceptions import NetlinkError as Pyroute2NetlinkError
from pyroute2.netlink.generic.wireguard import AsyncWireGuard

from node_agent.backends import wg_netlink
from node_agent.backends.base import Backend, BackendError, PeerStat
from node_agent.backends.link import NETLINK_GENERIC, Link, ensure_link, netlink_socket_in_netns
from node_agent.backends.wg_netlink import WGPEER_F_REPLACE_ALLOWEDIPS
from node_agent.made_ahead import made_ahead
from node_agent.reconcile import Changes
from node_agent.state import DeviceState, Interface

log = logging.getLogger(__name__)

T = TypeVar("T")
# A request the kernel never answers (it always does) must not hang the agent forever.
SOCKET_TIMEOUT = 120.0
# What an operator reads when this host's kernel has no WireGuard: the kernel only says "Operation not supported".
NO_KERNEL_WIREGUARD = (
    "this host's kernel has no WireGuard ({said}): load the module (modprobe wireguard, and "
    "'echo wireguard > /etc/modules-load.d/wireguard.conf' for every boot; the agent may not load modules), or set "
    'backend = "userspace" in /etc/vpn-node/agent.toml (VPN_NODE_BACKEND; needs the package wireguard-go) and '
    "restart the agent"
)


def _unsupported(exc: BaseException) -> bool:
    """The kernel's answer to a link of an unknown kind (no module): EOPNOTSUPP, or no WireGuard netlink family."""
    cause = exc.__cause__
    return getattr(cause, "code", None) in (errno.EOPNOTSUPP, errno.ENOENT)


class KernelBackend(Backend):
    kind = "kernel"

    def __init__(self, interface_name: str, netns: str | None = None) -> None:
        super().__init__(interface_name, netns)
        self.link = Link(interface_name, netns)
        self._sock: socket.socket | None = None
        self._family = 0
        self._seq = itertools.count(1)
        # Stats reads and applies may overlap; one request at a time on the socket keeps answers in order.
        self._sock_lock = threading.Lock()
        self._reader = wg_netlink.DeviceReader()

    async def _family_id(self) -> int:
        """WireGuard's generic netlink family id, resolved once through pyroute2 (fails without the module)."""
        fileno = netlink_socket_in_netns(self.netns, NETLINK_GENERIC) if self.netns else None
        wg = AsyncWireGuard(fileno=fileno) if fileno is not None else AsyncWireGuard()
        try:
            await wg.setup_endpoint()
            return int(wg.prid)
        except Pyroute2NetlinkError as exc:
            raise BackendError(NO_KERNEL_WIREGUARD.format(said=exc)) from exc
        finally:
            wg.close()

    async def _socket(self) -> socket.socket:
        if self._sock is None:
            self._family = await self._family_id()
            if self.netns:
                sock = socket.socket(fileno=netlink_socket_in_netns(self.netns, NETLINK_GENERIC))
            else:
                sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_GENERIC)
            sock.settimeout(SOCKET_TIMEOUT)
            self._sock = sock
        return self._sock

    async def _exchange(self, what: str, work: Callable[[socket.socket], T]) -> T:
        """Run one blocking request in a thread: the kernel takes a large set inside the send call itself
        (seconds for 10 000 peers), which must not stop the agent's event loop."""
        sock = await self._socket()

        def locked() -> T:
            with self._sock_lock:
                return work(sock)

        try:
            return await asyncio.to_thread(locked)
        except OSError as exc:  # wg_netlink.NetlinkError included, and the socket timeout
            raise BackendError(f"{what} {self.name} failed: {exc}") from exc

    async def _send(self, messages: Iterable[bytes]) -> None:
        await self._exchange("set on", lambda sock: wg_netlink.transact(sock, messages))

    def _set_message(self, device_attrs: list[bytes], peers: list[bytes] | None = None) -> bytes:
        return wg_netlink.set_device_message(self._family, next(self._seq), self.name, device_attrs, peers or [])

    @staticmethod
    def _peer_entries(changes: Changes) -> Iterator[bytes]:
        for key in changes.remove_peers:
            yield from wg_netlink.remove_entry(key)
        for peer in changes.add_peers:
            yield from wg_netlink.peer_parts(peer, 0)
        for peer in changes.update_peers:
            yield from wg_netlink.peer_parts(peer, WGPEER_F_REPLACE_ALLOWEDIPS)

    @staticmethod
    def batches(changes: Changes) -> Iterator[list[bytes]]:
        """Peer entries cut into messages that each stay under the netlink attribute limit."""
        return wg_netlink.peer_batches(KernelBackend._peer_entries(changes))

    async def ensure_interface(
        self, interface: Interface, private_key: str, device: DeviceState | None = None
    ) -> DeviceState:
        if not await self.link.exists():
            try:
                await self.link.create("wireguard")
            except BackendError as exc:
                if not _unsupported(exc):
                    raise
                raise BackendError(
                    f"cannot create interface {self.name}: " + NO_KERNEL_WIREGUARD.format(said=exc.__cause__)
                ) from exc
            device = None
        if device is None:
            device = await self.read_device()
        attrs: list[bytes] = []
        if device.private_key != private_key:
            attrs.append(wg_netlink.private_key_attr(private_key))
        if interface.listen_port and interface.listen_port != device.listen_port:
            attrs.append(wg_netlink.listen_port_attr(interface.listen_port))
            device.listen_port = interface.listen_port
        if attrs:
            await self._send([self._set_message(attrs)])
            device.private_key = private_key
        await ensure_link(self.link, interface, device)
        return device

    async def _dump(self) -> list[bytes]:
        """Every message of the device's dump (a device with many peers comes back as many)."""
        await self._socket()
        request = wg_netlink.get_device_message(self._family, next(self._seq), self.name)
        return await self._exchange("cannot read", lambda sock: wg_netlink.dump(sock, request))

    async def read_device(self) -> DeviceState:
        device = self._reader.device_state(await self._dump())
        device.addresses, device.mtu = await self.link.read()
        return device

    async def apply(self, changes: Changes) -> None:
        iface = changes.interface
        await self._socket()
        messages = []
        if iface is not None and iface.listen_port is not None:
            messages.append(self._set_message([wg_netlink.listen_port_attr(iface.listen_port)]))
        batches = self.batches(changes)
        first = list(itertools.islice(batches, 2))
        messages += [self._set_message([], batch) for batch in first]
        if len(first) == 2:
            # A large set: the rest is encoded in a thread of its own while the kernel takes these.
            rest = made_ahead((self._set_message([], batch) for batch in batches), name="netlink-encode")
            await self._send(itertools.chain(messages, rest))
        elif messages:
            await self._send(messages)
        if iface is not None and (iface.add_addresses or iface.remove_addresses or iface.mtu):
            await self.link.configure(add=iface.add_addresses, remove=iface.remove_addresses, mtu=iface.mtu)

    async def read_stats(self) -> list[PeerStat]:
        return wg_netlink.peer_stats(await self._dump())

    async def set_routes(self, networks: frozenset[str]) -> None:
        await self.link.set_routes(networks)

    async def delete_interface(self) -> None:
        await self.link.delete()

    async def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self.link.close()
