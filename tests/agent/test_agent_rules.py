"""The agent's protocol rules against a real wireguard-go device and nftables in a namespace.

Messages are fed straight to NodeAgent (the gRPC transport is covered by tests/netns/test_agent_tunnel.py).
"""

from __future__ import annotations

import base64
import ipaddress
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from netns import Namespace, missing_requirements, unique_name

from node_agent import agent as agent_module
from node_agent.agent import NodeAgent
from node_agent.backends import uapi
from node_agent.backends.userspace import UserspaceBackend
from node_agent.config import AgentConfig
from node_agent.firewall import Firewall
from node_agent.keys import generate_private_key
from node_agent.state import Peer
from protos import agent_pb2


def key(n: int) -> str:
    return base64.b64encode((n + 1).to_bytes(32, "big")).decode()


def spec(n: int, psk: str = "") -> agent_pb2.PeerSpec:
    return agent_pb2.PeerSpec(public_key=key(n), preshared_key=psk, allowed_ips=[f"10.66.{n // 250}.{n % 250 + 2}/32"])


def snapshot(
    peers: list[agent_pb2.PeerSpec], serial: int, rooms: list[agent_pb2.RoomSpec] | None = None, op: str = "full"
) -> agent_pb2.FullState:
    return agent_pb2.FullState(
        serial=serial,
        operation_id=op,
        interface=agent_pb2.InterfaceSpec(name="wg0", listen_port=51830, addresses=["10.66.0.1/16"]),
        peers=peers,
        rooms=rooms or [],
    )


@pytest.fixture
async def agent(tmp_path: Path) -> AsyncIterator[tuple[NodeAgent, Namespace]]:
    reason = missing_requirements()
    if reason is not None:
        if os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1":
            pytest.fail(f"agent rules: {reason}")
        pytest.skip(f"agent rules: {reason}")
    with Namespace("ag") as ns:
        name = unique_name("wga")
        ns.wireguard_interfaces.add(name)
        config = AgentConfig(
            control_url="unix:/nonexistent",
            node_id="n1",
            credential="c",
            backend="userspace",
            interface=name,
            egress_interface="lo",
            state_dir=tmp_path,
        )
        node = NodeAgent(
            config,
            backend=UserspaceBackend(name, netns=ns.name),
            firewall=Firewall(netns=ns.name),
            private_key=generate_private_key(),
        )
        try:
            yield node, ns
        finally:
            await node.close()


async def device_keys(node: NodeAgent) -> set[str]:
    return set(await node.backend.read_peers())


async def test_delta_before_a_snapshot_is_refused_and_changes_nothing(agent: tuple[NodeAgent, Namespace]) -> None:
    node, _ = agent
    result = await node.handle_delta(agent_pb2.Delta(operation_id="d", serial=5, upsert_peers=[spec(1)]))
    assert not result.result.ok and "full state required" in result.result.error
    assert node.applied_serial == 0


async def test_same_snapshot_twice_writes_nothing(
    agent: tuple[NodeAgent, Namespace], monkeypatch: pytest.MonkeyPatch
) -> None:
    node, ns = agent
    state = snapshot(
        [spec(n, psk=key(1000 + n)) for n in range(300)],
        serial=3,
        rooms=[agent_pb2.RoomSpec(id="r1", members=["10.66.0.2", "10.66.0.3"])],
    )
    first = await node.handle_full_state(state)
    assert first.result.ok and first.result.operation_id == "full" and first.result.serial == 3
    assert len(await device_keys(node)) == 300
    assert "room_r1_v4" in ns.run(["nft", "list", "table", "inet", "vpn_node"]).stdout

    writes: list[bytes] = []
    real_set = uapi.set_device

    async def spy(path: Path, payload: bytes) -> None:
        writes.append(payload)
        await real_set(path, payload)

    monkeypatch.setattr(uapi, "set_device", spy)
    second = await node.handle_full_state(state)
    assert second.result.ok
    assert node.last_changes is not None and node.last_changes.empty
    assert writes == []


async def test_the_same_snapshot_again_repairs_what_was_changed_by_hand(agent: tuple[NodeAgent, Namespace]) -> None:
    """The agent converts a snapshot it has just applied only once (its digest names it), but it still compares
    the device with it: an operator's changes since are undone."""
    node, ns = agent
    state = [spec(n, psk=key(1000 + n)) for n in range(50)]
    assert (await node.handle_full_state(snapshot(state, serial=3))).result.ok
    ns.run(["wg", "set", node.config.interface, "peer", key(1), "remove"])
    ns.run(["wg", "set", node.config.interface, "peer", key(2), "allowed-ips", "10.66.9.9/32"])
    ns.run(["wg", "set", node.config.interface, "peer", key(999), "allowed-ips", "10.66.9.10/32"])

    assert (await node.handle_full_state(snapshot(state, serial=4))).result.ok
    device = await node.backend.read_device()
    assert device.peers == {key(n): Peer(key(n), key(1000 + n), frozenset(spec(n).allowed_ips)) for n in range(50)}
    assert node.last_changes is not None
    assert [p.public_key for p in node.last_changes.add_peers] == [key(1)]
    assert [p.public_key for p in node.last_changes.update_peers] == [key(2)]
    assert node.last_changes.remove_peers == [key(999)]


async def test_stale_delta_is_acknowledged_and_ignored(agent: tuple[NodeAgent, Namespace]) -> None:
    node, _ = agent
    assert (await node.handle_full_state(snapshot([spec(1)], serial=10))).result.ok
    result = await node.handle_delta(agent_pb2.Delta(operation_id="old", serial=9, remove_peers=[key(1)]))
    assert result.result.ok and result.result.operation_id == "old"
    assert await device_keys(node) == {key(1)}
    assert node.applied_serial == 10


async def test_delta_applies_upserts_and_removals(agent: tuple[NodeAgent, Namespace]) -> None:
    node, _ = agent
    assert (await node.handle_full_state(snapshot([spec(1), spec(2)], serial=1))).result.ok
    result = await node.handle_delta(
        agent_pb2.Delta(operation_id="d2", serial=2, remove_peers=[key(1)], upsert_peers=[spec(3)])
    )
    assert result.result.ok and result.result.serial == 2
    assert await device_keys(node) == {key(2), key(3)}


async def test_invalid_delta_is_refused_whole(agent: tuple[NodeAgent, Namespace]) -> None:
    node, _ = agent
    assert (await node.handle_full_state(snapshot([spec(1)], serial=1))).result.ok
    bad = agent_pb2.PeerSpec(public_key=key(9), allowed_ips=["not-an-ip"])
    result = await node.handle_delta(
        agent_pb2.Delta(operation_id="bad", serial=2, upsert_peers=[spec(2), bad], remove_peers=[key(1)])
    )
    assert not result.result.ok and "not-an-ip" in result.result.error
    assert await device_keys(node) == {key(1)}
    assert node.applied_serial == 1


async def test_after_reconnect_nothing_is_pruned_until_the_snapshot(agent: tuple[NodeAgent, Namespace]) -> None:
    node, _ = agent
    assert (await node.handle_full_state(snapshot([spec(1), spec(2)], serial=1))).result.ok
    node.connection_started()  # the stream dropped and came back
    refused = await node.handle_delta(agent_pb2.Delta(operation_id="x", serial=2, remove_peers=[key(1)]))
    assert not refused.result.ok
    assert await device_keys(node) == {key(1), key(2)}
    # The snapshot is the truth: what it does not name goes now.
    assert (await node.handle_full_state(snapshot([spec(2)], serial=2))).result.ok
    assert await device_keys(node) == {key(2)}


async def test_in_sync_stands_for_the_snapshot_of_a_stream(agent: tuple[NodeAgent, Namespace]) -> None:
    node, _ = agent
    assert (await node.handle_full_state(snapshot([spec(1), spec(2)], serial=5))).result.ok
    node.connection_started()  # the control plane restarted
    assert node.hello().hello.applied_serial == 5 and node.hello().hello.resume
    assert node.handle_in_sync(agent_pb2.InSync(serial=5))
    # Deltas are taken at once, as after a snapshot; nothing was pruned or rewritten.
    result = await node.handle_delta(agent_pb2.Delta(operation_id="d6", serial=6, upsert_peers=[spec(3)]))
    assert result.result.ok
    assert await device_keys(node) == {key(1), key(2), key(3)}


async def test_in_sync_for_another_serial_asks_for_a_snapshot(agent: tuple[NodeAgent, Namespace]) -> None:
    node, _ = agent
    assert (await node.handle_full_state(snapshot([spec(1)], serial=5))).result.ok
    node.connection_started()
    assert not node.handle_in_sync(agent_pb2.InSync(serial=4))
    refused = await node.handle_delta(agent_pb2.Delta(operation_id="d6", serial=6, upsert_peers=[spec(3)]))
    assert not refused.result.ok  # still waiting for a snapshot
    node.connection_started()
    assert node.hello().hello.applied_serial == 0  # the next Hello cannot be answered with InSync


async def test_a_failed_apply_makes_the_next_hello_ask_for_a_snapshot(agent: tuple[NodeAgent, Namespace]) -> None:
    node, ns = agent
    assert (await node.handle_full_state(snapshot([spec(1)], serial=5))).result.ok
    ns.run(["ip", "link", "del", node.config.interface])  # wireguard-go gone: the next write fails
    result = await node.handle_delta(agent_pb2.Delta(operation_id="d6", serial=6, upsert_peers=[spec(3)]))
    assert not result.result.ok and result.result.error.startswith("apply failed")
    node.connection_started()
    assert node.hello().hello.applied_serial == 0


async def test_snapshot_with_an_invalid_peer_applies_the_rest_and_says_which(
    agent: tuple[NodeAgent, Namespace],
) -> None:
    node, _ = agent
    assert (await node.handle_full_state(snapshot([spec(1), spec(2)], serial=1))).result.ok
    broken = agent_pb2.PeerSpec(public_key=key(2), preshared_key="short", allowed_ips=["10.66.0.4/32"])
    result = await node.handle_full_state(snapshot([spec(1), broken, spec(3)], serial=2))
    assert not result.result.ok and key(2) in result.result.error and "short" not in result.result.error
    # peer 2 keeps its old, working entry rather than being pruned; peer 3 was added
    assert await device_keys(node) == {key(1), key(2), key(3)}


async def test_a_snapshot_applied_in_parts_ends_exactly_as_it_says(
    agent: tuple[NodeAgent, Namespace], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot's peers go to the device part by part as they are converted, and the removals last
    (NodeAgent._apply_full). New peers taking the addresses of peers the snapshot drops, a key named twice in
    different parts and an invalid entry in a later part: the device ends with exactly what the snapshot says."""
    monkeypatch.setattr(agent_module, "PEER_PART", 100)
    node, _ = agent
    assert (await node.handle_full_state(snapshot([spec(n) for n in range(300)], serial=1))).result.ok

    def taking_address_of(n: int, new: int) -> agent_pb2.PeerSpec:
        return agent_pb2.PeerSpec(public_key=key(new), allowed_ips=spec(n).allowed_ips)

    newcomers = [taking_address_of(n, 300 + n) for n in range(250)]  # 0-249's addresses, new keys, four parts
    twice = agent_pb2.PeerSpec(public_key=key(310), allowed_ips=["10.66.9.9/32"])  # key(310) again, a new address
    broken = agent_pb2.PeerSpec(public_key=key(280), preshared_key="short", allowed_ips=spec(280).allowed_ips)
    result = await node.handle_full_state(snapshot([*newcomers, twice, broken], serial=2))
    assert not result.result.ok and key(280) in result.result.error  # the rest applied, the broken entry named

    device = await node.backend.read_device()
    assert set(device.peers) == {key(300 + n) for n in range(250)} | {key(280)}  # 0-249 and 250-299 pruned
    for n in range(250):
        expected = {"10.66.9.9/32"} if n == 10 else set(spec(n).allowed_ips)
        assert set(device.peers[key(300 + n)].allowed_ips) == expected, n
    assert set(device.peers[key(280)].allowed_ips) == set(spec(280).allowed_ips)  # kept as it was
    assert node.applied_serial == 2
    # And the same snapshot again writes nothing.
    assert (await node.handle_full_state(snapshot([*newcomers, twice, broken], serial=3))).result.error
    assert node.last_changes is not None and node.last_changes.empty


def guest(n: int, psk: str = "") -> agent_pb2.PeerSpec:
    """A guest pass's peer: forwarded to its rooms' members only."""
    made = spec(n, psk)
    made.room_only = True
    return made


def room_only_addresses(ns: Namespace) -> set[str]:
    """What the node's room-only set holds now, read back from nftables."""
    listed = ns.run(["nft", "-j", "list", "set", "inet", "vpn_node", "room_only_v4"]).stdout
    elements = json.loads(listed)["nftables"][1]["set"].get("elem", [])
    # Neighbouring addresses are collapsed into one prefix (10.66.0.4/31): counted back address by address.
    networks = [e if isinstance(e, str) else f"{e['prefix']['addr']}/{e['prefix']['len']}" for e in elements]
    return {str(address) for n in networks for address in ipaddress.ip_network(n)}


async def test_the_room_only_set_comes_and_goes_with_the_guest_peers(agent: tuple[NodeAgent, Namespace]) -> None:
    """The restriction travels with the peer: a snapshot sets it, a delta upserting the peer without it lifts it, one
    upserting it as a guest sets it, and removing the peer takes it away. Everyone else stays out of the set."""
    node, ns = agent
    room = agent_pb2.RoomSpec(id="r1", members=["10.66.0.3", "10.66.0.4"])
    assert (await node.handle_full_state(snapshot([spec(1), guest(2), spec(3)], serial=1, rooms=[room]))).result.ok
    assert room_only_addresses(ns) == {"10.66.0.4"}

    assert (await node.handle_delta(agent_pb2.Delta(operation_id="d2", serial=2, upsert_peers=[guest(3)]))).result.ok
    assert room_only_addresses(ns) == {"10.66.0.4", "10.66.0.5"}
    assert (await node.handle_delta(agent_pb2.Delta(operation_id="d3", serial=3, upsert_peers=[spec(2)]))).result.ok
    assert room_only_addresses(ns) == {"10.66.0.5"}
    assert (await node.handle_delta(agent_pb2.Delta(operation_id="d4", serial=4, remove_peers=[key(3)]))).result.ok
    assert room_only_addresses(ns) == set()
    # A guest in no room at all is still in the set: its traffic goes nowhere (fail closed).
    assert (await node.handle_full_state(snapshot([guest(7)], serial=5))).result.ok
    assert room_only_addresses(ns) == {"10.66.0.9"}


async def test_a_guest_kept_for_an_invalid_entry_keeps_its_restriction(agent: tuple[NodeAgent, Namespace]) -> None:
    """A snapshot whose entry for a guest cannot be applied keeps the peer's old entry on the device, and with it
    the restriction: a message that was not applied never frees a guest."""
    node, ns = agent
    assert (await node.handle_full_state(snapshot([spec(1), guest(2)], serial=1))).result.ok
    broken = agent_pb2.PeerSpec(public_key=key(2), preshared_key="short", allowed_ips=spec(2).allowed_ips)
    result = await node.handle_full_state(snapshot([spec(1), broken], serial=2))
    assert not result.result.ok and key(2) in result.result.error
    assert await device_keys(node) == {key(1), key(2)}
    assert room_only_addresses(ns) == {"10.66.0.4"}
