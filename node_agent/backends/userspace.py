"""Userspace WireGuard: wireguard-go over its UAPI socket; addresses and link state through pyroute2."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil

from node_agent.backends import uapi
from node_agent.backends.base import Backend, BackendError, PeerStat
from node_agent.backends.link import Link, ensure_link
from node_agent.reconcile import Changes
from node_agent.state import DeviceState, Interface

log = logging.getLogger(__name__)


class UserspaceBackend(Backend):
    """wireguard-go runs as its own daemon (`wireguard-go <ifname>` forks and returns once the socket is up).

    It deliberately outlives the agent: restarting or upgrading the agent must not drop every client's tunnel,
    the same as with a kernel interface. A restarted agent finds the socket and carries on.
    """

    kind = "userspace"

    def __init__(self, interface_name: str, netns: str | None = None, binary: str = "wireguard-go") -> None:
        super().__init__(interface_name, netns)
        self.binary = binary
        self.socket = uapi.socket_path(interface_name)
        self.link = Link(interface_name, netns)

    def _alive(self) -> bool:
        return uapi.serving_pid(self.socket) is not None

    async def _start_wireguard_go(self) -> None:
        if self.socket.exists():
            # Left by a wireguard-go that died: it would make the new one fail to bind.
            self.socket.unlink()
        binary = shutil.which(self.binary)
        if binary is None:
            raise BackendError(f"{self.binary} not found in PATH")
        argv = [binary, self.name]
        if self.netns:
            argv = ["ip", "netns", "exec", self.netns, *argv]
        env = {k: v for k, v in os.environ.items() if k != "WG_PROCESS_FOREGROUND"}
        proc = await asyncio.create_subprocess_exec(
            *argv, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        output, _ = await proc.communicate()
        if proc.returncode != 0:
            raise BackendError(f"wireguard-go {self.name} failed: {output.decode(errors='replace').strip()}")
        log.info("started wireguard-go for %s (pid %s)", self.name, uapi.serving_pid(self.socket))

    async def ensure_interface(
        self, interface: Interface, private_key: str, device: DeviceState | None = None
    ) -> DeviceState:
        if not self._alive():
            await self._start_wireguard_go()
            device = None
        if device is None:
            device = await self.read_device()
        port = interface.listen_port if interface.listen_port and interface.listen_port != device.listen_port else None
        if device.private_key != private_key or port is not None:
            await uapi.set_device(self.socket, uapi.encode_set(Changes(), private_key=private_key, listen_port=port))
            device.private_key, device.listen_port = private_key, port or device.listen_port
        await ensure_link(self.link, interface, device)
        return device

    async def read_device(self) -> DeviceState:
        device = uapi.parse_device(await uapi.get_device(self.socket))
        device.addresses, device.mtu = await self.link.read()
        return device

    async def apply(self, changes: Changes) -> None:
        iface = changes.interface
        listen_port = iface.listen_port if iface is not None else None
        if not changes.peers_empty or listen_port is not None:
            await uapi.set_device(self.socket, uapi.encode_set(changes, listen_port=listen_port))
        if iface is not None and (iface.add_addresses or iface.remove_addresses or iface.mtu):
            await self.link.configure(add=iface.add_addresses, remove=iface.remove_addresses, mtu=iface.mtu)

    async def read_stats(self) -> list[PeerStat]:
        return uapi.parse_stats(await uapi.get_device(self.socket))

    async def set_routes(self, networks: frozenset[str]) -> None:
        await self.link.set_routes(networks)

    async def close(self) -> None:
        self.link.close()

    async def delete_interface(self) -> None:
        # Deleting the tun link makes wireguard-go exit and remove its socket.
        pid = uapi.serving_pid(self.socket)
        await self.link.delete()
        if pid is not None:
            for _ in range(50):
                if uapi.serving_pid(self.socket) is None:
                    break
                await asyncio.sleep(0.05)
