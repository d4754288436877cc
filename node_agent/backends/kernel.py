"""Kernel WireGuard through pyroute2's async netlink API (AsyncWireGuard, AsyncIPRoute)."""

from __future__ import annotations

import base64
import dataclasses
import ipaddress
import logging
from collections.abc import Iterator
from typing import Any

from pyroute2.netlink import NLM_F_ACK, NLM_F_REQUEST
from pyroute2.netlink.exceptions import NetlinkError
from pyroute2.netlink.generic.wireguard import (
    WG_CMD_SET_DEVICE,
    WG_GENL_VERSION,
    WGPEER_F_REMOVE_ME,
    WGPEER_F_REPLACE_ALLOWEDIPS,
    WGPEER_F_UPDATE_ONLY,
    AsyncWireGuard,
    wgmsg,
)

from node_agent.backends.base import Backend, BackendError, PeerStat
from node_agent.backends.link import NETLINK_GENERIC, Link, ensure_link, netlink_socket_in_netns
from node_agent.reconcile import Changes
from node_agent.state import DeviceState, Interface, Peer

log = logging.getLogger(__name__)

ZERO_KEY = base64.b64encode(bytes(32)).decode()
# A netlink attribute (here the nested peer list) is limited to 64 KiB: messages are cut well below that.
MESSAGE_BUDGET = 40_000
PEER_COST = 150  # bytes of one peer without allowed IPs, rounded up
ALLOWED_IP_COST = 40
ALLOWED_IPS_PER_PART = 500  # a peer with more allowed IPs is sent in parts, as `wg` does


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class KernelBackend(Backend):
    kind = "kernel"

    def __init__(self, interface_name: str, netns: str | None = None) -> None:
        super().__init__(interface_name, netns)
        self.link = Link(interface_name, netns)
        self._wg: AsyncWireGuard | None = None

    async def _socket(self) -> AsyncWireGuard:
        if self._wg is None:
            if self.netns:
                wg = AsyncWireGuard(fileno=netlink_socket_in_netns(self.netns, NETLINK_GENERIC))
            else:
                wg = AsyncWireGuard()
            try:
                await wg.setup_endpoint()
            except NetlinkError as exc:
                wg.close()
                raise BackendError(f"kernel WireGuard is not available (module loaded?): {exc}") from exc
            self._wg = wg
        return self._wg

    async def _send(self, attrs: list[list[Any]]) -> None:
        wg = await self._socket()
        msg = wgmsg()
        msg["cmd"] = WG_CMD_SET_DEVICE
        msg["version"] = WG_GENL_VERSION
        msg["attrs"] = [["WGDEVICE_A_IFNAME", self.name], *attrs]
        try:
            async for _ in await wg.nlm_request(msg, msg_type=wg.prid, msg_flags=NLM_F_REQUEST | NLM_F_ACK):
                pass
        except NetlinkError as exc:
            raise BackendError(f"set on {self.name} failed: {exc}") from exc

    @staticmethod
    def _peer_attrs(peer: Peer, flags: int) -> dict[str, Any]:
        attrs: list[list[Any]] = [
            ["WGPEER_A_PUBLIC_KEY", peer.public_key],
            ["WGPEER_A_PRESHARED_KEY", peer.preshared_key or ZERO_KEY],
            ["WGPEER_A_FLAGS", flags],
        ]
        if peer.endpoint:
            host, _, port = peer.endpoint.rpartition(":")
            attrs.append(["WGPEER_A_ENDPOINT", {"addr": host.strip("[]"), "port": int(port)}])
        if peer.persistent_keepalive:
            attrs.append(["WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL", peer.persistent_keepalive])
        attrs.append(["WGPEER_A_ALLOWEDIPS", _allowed_ips(sorted(peer.allowed_ips))])
        return {"attrs": attrs}

    @staticmethod
    def _peer_parts(peer: Peer, flags: int) -> Iterator[tuple[dict[str, Any], int]]:
        """(entry, estimated size) for one peer; many allowed IPs go in extra update-only parts."""
        networks = sorted(peer.allowed_ips)
        first = networks[:ALLOWED_IPS_PER_PART]
        yield (
            KernelBackend._peer_attrs(dataclasses.replace(peer, allowed_ips=frozenset(first)), flags),
            PEER_COST + ALLOWED_IP_COST * len(first),
        )
        for start in range(ALLOWED_IPS_PER_PART, len(networks), ALLOWED_IPS_PER_PART):
            part = networks[start : start + ALLOWED_IPS_PER_PART]
            entry = {
                "attrs": [
                    ["WGPEER_A_PUBLIC_KEY", peer.public_key],
                    ["WGPEER_A_FLAGS", WGPEER_F_UPDATE_ONLY],
                    ["WGPEER_A_ALLOWEDIPS", _allowed_ips(part)],
                ]
            }
            yield entry, PEER_COST + ALLOWED_IP_COST * len(part)

    @staticmethod
    def _peer_entries_sized(changes: Changes) -> Iterator[tuple[dict[str, Any], int]]:
        for key in changes.remove_peers:
            yield {"attrs": [["WGPEER_A_PUBLIC_KEY", key], ["WGPEER_A_FLAGS", WGPEER_F_REMOVE_ME]]}, PEER_COST
        for peer in changes.add_peers:
            yield from KernelBackend._peer_parts(peer, 0)
        for peer in changes.update_peers:
            yield from KernelBackend._peer_parts(peer, WGPEER_F_REPLACE_ALLOWEDIPS)

    @staticmethod
    def _peer_entries(changes: Changes) -> Iterator[dict[str, Any]]:
        for entry, _ in KernelBackend._peer_entries_sized(changes):
            yield entry

    @staticmethod
    def batches(changes: Changes) -> Iterator[list[dict[str, Any]]]:
        """Peer entries cut into messages that each stay under the netlink attribute limit."""
        batch: list[dict[str, Any]] = []
        size = 0
        for entry, cost in KernelBackend._peer_entries_sized(changes):
            if batch and size + cost > MESSAGE_BUDGET:
                yield batch
                batch, size = [], 0
            batch.append(entry)
            size += cost
        if batch:
            yield batch

    async def ensure_interface(self, interface: Interface, private_key: str) -> DeviceState:
        if not await self.link.exists():
            await self.link.create("wireguard")
        device = await self.read_device()
        attrs: list[list[Any]] = []
        if device.private_key != private_key:
            attrs.append(["WGDEVICE_A_PRIVATE_KEY", private_key])
        if interface.listen_port and interface.listen_port != device.listen_port:
            attrs.append(["WGDEVICE_A_LISTEN_PORT", interface.listen_port])
            device.listen_port = interface.listen_port
        if attrs:
            await self._send(attrs)
            device.private_key = private_key
        await ensure_link(self.link, interface, device)
        return device

    async def _dump(self) -> list[Any]:
        wg = await self._socket()
        try:
            # A device with many peers comes back as several messages: every one of them is read.
            return [msg async for msg in await wg.info(self.name)]
        except NetlinkError as exc:
            raise BackendError(f"cannot read {self.name}: {exc}") from exc

    async def read_device(self) -> DeviceState:
        device = parse_device_messages(await self._dump())
        device.addresses, device.mtu = await self.link.read()
        return device

    async def apply(self, changes: Changes) -> None:
        iface = changes.interface
        if iface is not None and iface.listen_port is not None:
            await self._send([["WGDEVICE_A_LISTEN_PORT", iface.listen_port]])
        for batch in self.batches(changes):
            await self._send([["WGDEVICE_A_PEERS", batch]])
        if iface is not None and (iface.add_addresses or iface.remove_addresses or iface.mtu):
            await self.link.configure(add=iface.add_addresses, remove=iface.remove_addresses, mtu=iface.mtu)

    async def read_stats(self) -> list[PeerStat]:
        return parse_stats_messages(await self._dump())

    async def set_routes(self, networks: frozenset[str]) -> None:
        await self.link.set_routes(networks)

    async def delete_interface(self) -> None:
        await self.link.delete()

    async def close(self) -> None:
        if self._wg is not None:
            self._wg.close()
            self._wg = None
        self.link.close()


def _allowed_ips(networks: list[str]) -> list[dict[str, Any]]:
    allowed = []
    for network in networks:
        net = ipaddress.ip_network(network)
        allowed.append(
            {
                "attrs": [
                    ["WGALLOWEDIP_A_FAMILY", 2 if net.version == 4 else 10],
                    ["WGALLOWEDIP_A_IPADDR", net.network_address.packed],
                    ["WGALLOWEDIP_A_CIDR_MASK", net.prefixlen],
                ]
            }
        )
    return allowed


def _peers_of(messages: list[Any]) -> Iterator[Any]:
    for msg in messages:
        yield from msg.get_attr("WGDEVICE_A_PEERS") or ()


def _endpoint(entry: Any) -> str:
    endpoint = entry.get_attr("WGPEER_A_ENDPOINT")
    if not endpoint or not endpoint.get("port"):
        return ""
    addr = endpoint["addr"]
    return f"[{addr}]:{endpoint['port']}" if ":" in addr else f"{addr}:{endpoint['port']}"


def parse_device_messages(messages: list[Any]) -> DeviceState:
    """Fold a WG_CMD_GET_DEVICE dump (every message of it) into one DeviceState (addresses/MTU not included).

    The kernel splits large devices over many messages, and a peer with many allowed IPs continues in the
    next message under the same public key: those parts are merged.
    """
    peers: dict[str, Peer] = {}
    listen_port = 0
    private_key = ""
    for msg in messages:
        listen_port = msg.get_attr("WGDEVICE_A_LISTEN_PORT") or listen_port
        key_attr = msg.get_attr("WGDEVICE_A_PRIVATE_KEY")
        if key_attr is not None:
            private_key = _text(key_attr)
    for entry in _peers_of(messages):
        key = _text(entry.get_attr("WGPEER_A_PUBLIC_KEY"))
        psk_attr = entry.get_attr("WGPEER_A_PRESHARED_KEY")
        psk = _text(psk_attr) if psk_attr is not None else ""
        allowed = frozenset(
            str(ipaddress.ip_network(ip["addr"], strict=False))
            for ip in entry.get_attr("WGPEER_A_ALLOWEDIPS") or ()
            if "addr" in ip
        )
        previous = peers.get(key)
        if previous is not None:
            allowed = allowed | previous.allowed_ips
        peers[key] = Peer(
            public_key=key,
            preshared_key="" if psk in ("", ZERO_KEY) else psk,
            allowed_ips=allowed,
            endpoint=_endpoint(entry) or (previous.endpoint if previous else ""),
            persistent_keepalive=entry.get_attr("WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL")
            or (previous.persistent_keepalive if previous else 0),
        )
    return DeviceState(peers=peers, listen_port=listen_port, private_key="" if private_key == ZERO_KEY else private_key)


def parse_stats_messages(messages: list[Any]) -> list[PeerStat]:
    stats: dict[str, PeerStat] = {}
    for entry in _peers_of(messages):
        key = _text(entry.get_attr("WGPEER_A_PUBLIC_KEY"))
        if key in stats:
            continue  # continuation of a peer with many allowed IPs: counters came with its first part
        handshake = entry.get_attr("WGPEER_A_LAST_HANDSHAKE_TIME")
        stats[key] = PeerStat(
            public_key=key,
            latest_handshake=int(handshake["tv_sec"]) if handshake else 0,
            rx_bytes=entry.get_attr("WGPEER_A_RX_BYTES") or 0,
            tx_bytes=entry.get_attr("WGPEER_A_TX_BYTES") or 0,
            endpoint=_endpoint(entry),
        )
    return list(stats.values())
