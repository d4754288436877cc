"""The kernel backend with thousands of peers: every peer written in batches is read back, over many dump messages.

2 000 peers, not the 10 000 of bench/kernel_sync.py: enough for a dump of a dozen messages and several set
messages, and quick under emulation (a device's peers are dropped with its namespace, in the background).
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

import pytest
from pyroute2 import AsyncWireGuard

from node_agent.backends.kernel import KernelBackend
from node_agent.keys import generate_private_key
from node_agent.reconcile import reconcile
from node_agent.state import DesiredState, Interface, Peer

if TYPE_CHECKING:
    from tests.kernel.conftest import WireGuardLink

pytestmark = pytest.mark.kernel

PEERS = 2000


def many_peers(count: int) -> dict[str, Peer]:
    peers = {}
    for n in range(count):
        key = base64.b64encode((n + 1).to_bytes(32, "big")).decode()
        psk = base64.b64encode((n + 1_000_000).to_bytes(32, "big")).decode() if n % 2 else ""
        networks = frozenset({f"10.{64 + n // 62500}.{n // 250 % 250}.{n % 250 + 2}/32", f"fd00:64::{n + 2:x}/128"})
        peers[key] = Peer(key, psk, networks)
    return peers


async def test_thousands_of_peers_are_all_read_back_and_a_resync_writes_nothing(wireguard_link: WireGuardLink):
    interface = Interface(name=wireguard_link.ifname, listen_port=51820, addresses=frozenset({"10.64.0.1/10"}))
    wanted = many_peers(PEERS)
    backend = KernelBackend(wireguard_link.ifname, netns=wireguard_link.netns)
    try:
        empty = await backend.ensure_interface(interface, generate_private_key())
        changes = reconcile(DesiredState(serial=1, full=True, peers=wanted, interface=interface), empty)
        assert len(changes.add_peers) == PEERS
        assert len(list(backend.batches(changes))) > 1, "the set must need several messages: that is what this tests"
        await backend.apply(changes)

        device = await backend.read_device()
        # Every peer, with its preshared key (or none) and both networks: nothing lost between dump messages.
        assert len(device.peers) == PEERS
        assert device.peers == wanted
        # The same snapshot again changes nothing: a reconnect does not rewrite 2 000 peers.
        again = reconcile(DesiredState(serial=2, full=True, peers=wanted, interface=interface), device)
        assert (again.add_peers, again.update_peers, again.remove_peers) == ([], [], [])
    finally:
        await backend.close()

    # pyroute2's own reader sees the same device over many messages (the split the backend must merge).
    messages, keys = 0, set()
    async with AsyncWireGuard(netns=wireguard_link.netns) as wg:
        await wg.setup_endpoint()
        async for message in await wg.info(wireguard_link.ifname):
            messages += 1
            keys.update(p.get_attr("WGPEER_A_PUBLIC_KEY").decode() for p in message.get_attr("WGDEVICE_A_PEERS") or ())
    assert messages > 10
    assert keys == wanted.keys()
