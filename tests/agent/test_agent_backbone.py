"""Two nodes joined by the backbone: the agents build it from the snapshot, route remote client subnets
through it, count those subnets as clients in the firewall, and take it down when the control plane says so."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from netns import Namespace, missing_requirements, unique_name, veth, wait_for

from node_agent.agent import NodeAgent
from node_agent.backends.userspace import UserspaceBackend
from node_agent.config import AgentConfig
from node_agent.firewall import Firewall
from node_agent.keys import generate_private_key
from protos import agent_pb2


def node(ns: Namespace, tmp: Path) -> NodeAgent:
    name, backbone = unique_name("wgn"), unique_name("wgbb")
    ns.wireguard_interfaces.update({name, backbone})
    config = AgentConfig(
        control_url="unix:/nonexistent",
        node_id=ns.name,
        credential="c",
        backend="userspace",
        interface=name,
        backbone_interface=backbone,
        state_dir=tmp,
    )
    return NodeAgent(
        config,
        backend=UserspaceBackend(name, netns=ns.name),
        firewall=Firewall(netns=ns.name),
        private_key=generate_private_key(),
    )


def snapshot(n: int, other: NodeAgent, serial: int = 1) -> agent_pb2.FullState:
    m = 3 - n
    return agent_pb2.FullState(
        serial=serial,
        operation_id=f"full{serial}",
        interface=agent_pb2.InterfaceSpec(name="wg0", listen_port=51860 + n, addresses=[f"10.7{n}.0.1/24"]),
        backbone=agent_pb2.BackboneSpec(
            name="wgb0",
            listen_port=51870 + n,
            addresses=[f"10.255.0.{n}/24"],
            peers=[
                agent_pb2.BackbonePeer(
                    node_id=f"node{m}",
                    public_key=other.public_key,
                    endpoint=f"192.168.78.{m}:{51870 + m}",
                    allowed_ips=[f"10.7{m}.0.0/24", f"10.255.0.{m}/32"],
                )
            ],
        ),
    )


@pytest.fixture
async def two_nodes(tmp_path: Path) -> AsyncIterator[tuple[Namespace, NodeAgent, Namespace, NodeAgent]]:
    reason = missing_requirements()
    if reason is not None:
        if os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1":
            pytest.fail(f"backbone: {reason}")
        pytest.skip(f"backbone: {reason}")
    with Namespace("bb1") as ns1, Namespace("bb2") as ns2:
        veth(ns1, "bb0", "192.168.78.1/24", ns2, "bb0", "192.168.78.2/24")
        (tmp_path / "1").mkdir()
        (tmp_path / "2").mkdir()
        a, b = node(ns1, tmp_path / "1"), node(ns2, tmp_path / "2")
        try:
            yield ns1, a, ns2, b
        finally:
            await a.close()
            await b.close()


async def test_backbone_joins_nodes_and_routes_their_client_subnets(
    two_nodes: tuple[Namespace, NodeAgent, Namespace, NodeAgent],
) -> None:
    ns1, a, _ns2, b = two_nodes
    assert (await a.handle_full_state(snapshot(1, b))).result.ok
    assert (await b.handle_full_state(snapshot(2, a))).result.ok
    backbone = a.config.backbone_interface

    # The backbone tunnel carries traffic between the nodes.
    assert await asyncio.to_thread(lambda: wait_for(lambda: ns1.ping("10.255.0.2", 1, 1), 10, 0.2, "backbone ping"))
    # Node 2's clients are reached through the backbone, and count as clients for the room rules.
    assert f"dev {backbone}" in ns1.run(["ip", "route", "get", "10.72.0.9"]).stdout
    assert "10.72.0.0/24" in ns1.run(["nft", "list", "set", "inet", "vpn_node", "clients_v4"]).stdout

    # The same snapshot again changes nothing; a delta without backbone removes it.
    assert (await a.handle_full_state(snapshot(1, b, serial=2))).result.ok
    assert a.last_changes is not None and a.last_changes.empty
    removal = agent_pb2.Delta(operation_id="nobb", serial=3, backbone=agent_pb2.BackboneSpec(name=""))
    assert (await a.handle_delta(removal)).result.ok
    assert backbone not in ns1.links()
    assert "10.72.0.0/24" not in ns1.run(["nft", "list", "set", "inet", "vpn_node", "clients_v4"]).stdout
