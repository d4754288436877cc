"""Smoke tests proving the kernel layer's VM can do what the agent's kernel backend needs."""

from __future__ import annotations

import base64
import subprocess
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from pyroute2 import AsyncWireGuard

if TYPE_CHECKING:
    from tests.kernel.conftest import WireGuardLink

pytestmark = pytest.mark.kernel


@dataclass(frozen=True)
class KeyPair:
    private: str
    public: str


def new_key_pair() -> KeyPair:
    key = X25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return KeyPair(base64.b64encode(private).decode(), base64.b64encode(public).decode())


@dataclass
class PeerSeen:
    endpoint: tuple[str, int] | None = None
    keepalive: int = 0
    allowed_ips: set[str] = field(default_factory=set)


@dataclass
class DeviceSeen:
    """What the kernel reports for a device, merged over every message of the dump."""

    messages: int = 0
    public_key: str | None = None
    listen_port: int | None = None
    peers: dict[str, PeerSeen] = field(default_factory=dict)


async def read_device(wg: AsyncWireGuard, ifname: str) -> DeviceSeen:
    """Read the device, merging every message: past a few dozen peers the kernel splits the dump, and one
    peer's allowed IPs may continue in the next message."""
    seen = DeviceSeen()
    async for message in await wg.info(ifname):
        seen.messages += 1
        if (public_key := message.get_attr("WGDEVICE_A_PUBLIC_KEY")) is not None:
            seen.public_key = public_key.decode()
        if (listen_port := message.get_attr("WGDEVICE_A_LISTEN_PORT")) is not None:
            seen.listen_port = listen_port
        for peer in message.get_attr("WGDEVICE_A_PEERS") or []:
            entry = seen.peers.setdefault(peer.get_attr("WGPEER_A_PUBLIC_KEY").decode(), PeerSeen())
            if (endpoint := peer.get_attr("WGPEER_A_ENDPOINT")) is not None:
                entry.endpoint = (endpoint["addr"], endpoint["port"])
            if (keepalive := peer.get_attr("WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL")) is not None:
                entry.keepalive = keepalive
            entry.allowed_ips |= {ip["addr"] for ip in peer.get_attr("WGPEER_A_ALLOWEDIPS") or []}
    return seen


@pytest.fixture
async def wg(wireguard_link: WireGuardLink) -> AsyncIterator[AsyncWireGuard]:
    async with AsyncWireGuard(netns=wireguard_link.netns) as socket:
        # set() does not bind the generic netlink family by itself (info() does): bind first.
        await socket.setup_endpoint()
        yield socket


async def test_kernel_link_keeps_server_key_port_and_peer(wg: AsyncWireGuard, wireguard_link: WireGuardLink):
    server, client = new_key_pair(), new_key_pair()
    await wg.set(wireguard_link.ifname, private_key=server.private, listen_port=51820)
    # The link stays down, so the loopback endpoint is never contacted.
    await wg.set(
        wireguard_link.ifname,
        peer={
            "public_key": client.public,
            "endpoint_addr": "127.0.0.1",
            "endpoint_port": 51821,
            "persistent_keepalive": 25,
            "allowed_ips": ["10.8.0.2/32", "fd00:8::2/128"],
        },
    )

    device = await read_device(wg, wireguard_link.ifname)

    # The public key customers put in their configs is the one the kernel derives from the private key.
    assert device.public_key == server.public
    assert device.listen_port == 51820
    assert device.peers.keys() == {client.public}
    peer = device.peers[client.public]
    assert peer.endpoint == ("127.0.0.1", 51821)
    assert peer.keepalive == 25
    assert peer.allowed_ips == {"10.8.0.2/32", "fd00:8::2/128"}


async def test_every_peer_is_read_back_across_split_dump_messages(wg: AsyncWireGuard, wireguard_link: WireGuardLink):
    await wg.set(wireguard_link.ifname, private_key=new_key_pair().private)
    # The kernel fills dump messages of up to 32 KiB (about 100 peers with two addresses each); 200 peers
    # with four addresses each (about 70 KiB) need at least three.
    expected = {}
    for index in range(200):
        public = new_key_pair().public
        allowed = {f"10.{block}.{index // 250}.{index % 250 + 2}/32" for block in (9, 10, 11)}
        allowed.add(f"fd00:9::{index + 2:x}/128")
        await wg.set(wireguard_link.ifname, peer={"public_key": public, "allowed_ips": sorted(allowed)})
        expected[public] = allowed

    device = await read_device(wg, wireguard_link.ifname)

    assert device.messages > 1, "200 peers should not fit one dump message; the split is what this tests"
    assert len(device.peers) == 200
    assert {key: peer.allowed_ips for key, peer in device.peers.items()} == expected


async def test_removed_peer_disappears_and_others_stay(wg: AsyncWireGuard, wireguard_link: WireGuardLink):
    await wg.set(wireguard_link.ifname, private_key=new_key_pair().private)
    staying, leaving = new_key_pair().public, new_key_pair().public
    await wg.set(wireguard_link.ifname, peer={"public_key": staying, "allowed_ips": ["10.8.0.2/32"]})
    await wg.set(wireguard_link.ifname, peer={"public_key": leaving, "allowed_ips": ["10.8.0.3/32"]})

    await wg.set(wireguard_link.ifname, peer={"public_key": leaving, "remove": True})

    device = await read_device(wg, wireguard_link.ifname)
    assert device.peers.keys() == {staying}
    assert device.peers[staying].allowed_ips == {"10.8.0.2/32"}


def test_ip_netns_add_works_for_the_contract_suite(network_namespace: str):
    """The agent's contract suite builds namespaces with `ip netns`; /run/netns must be writable here."""
    name = f"vpnk-ip-{uuid.uuid4().hex[:8]}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        listed = subprocess.run(["ip", "netns", "list"], check=True, capture_output=True, text=True).stdout
        links = subprocess.run(
            ["ip", "-n", name, "-o", "link", "show"], check=True, capture_output=True, text=True
        ).stdout
    finally:
        subprocess.run(["ip", "netns", "delete", name], check=True)
    assert name in listed
    # A new namespace holds exactly the loopback device.
    assert [line.split(":")[1].strip() for line in links.splitlines()] == ["lo"]
