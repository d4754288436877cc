"""The agent's gRPC client against a real in-process control plane: refusal, reconnect, resync, stats."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from agent_fake_control import FakeControlPlane, serve
from netns import Namespace, missing_requirements, unique_name

from node_agent.agent import NodeAgent
from node_agent.backends.userspace import UserspaceBackend
from node_agent.client import ControlClient
from node_agent.config import AgentConfig
from node_agent.firewall import Firewall
from node_agent.keys import generate_private_key
from protos import agent_pb2

CREDENTIAL = "right-credential"


def key(n: int) -> str:
    return base64.b64encode((n + 1).to_bytes(32, "big")).decode()


def state(serial: int, *peers: int) -> agent_pb2.FullState:
    return agent_pb2.FullState(
        serial=serial,
        interface=agent_pb2.InterfaceSpec(name="wg0", listen_port=51840, addresses=["10.67.0.1/24"]),
        peers=[agent_pb2.PeerSpec(public_key=key(n), allowed_ips=[f"10.67.0.{n + 2}/32"]) for n in peers],
    )


@pytest.fixture
async def node(tmp_path: Path) -> AsyncIterator[tuple[NodeAgent, AgentConfig]]:
    reason = missing_requirements()
    if reason is not None:
        if os.environ.get("VPN_REQUIRE_ALL_TESTS") == "1":
            pytest.fail(f"agent client: {reason}")
        pytest.skip(f"agent client: {reason}")
    with Namespace("cl") as ns:
        name = unique_name("wgk")
        ns.wireguard_interfaces.add(name)
        config = AgentConfig(
            control_url=f"unix:{tmp_path / 'cp.sock'}",
            node_id="n1",
            credential=CREDENTIAL,
            backend="userspace",
            interface=name,
            state_dir=tmp_path,
            stats_interval=0.2,
            stats_full_interval=1.0,
            keepalive_interval=0.3,
            backoff_initial=0.05,
            backoff_max=0.4,
        )
        agent = NodeAgent(
            config,
            backend=UserspaceBackend(name, netns=ns.name),
            firewall=Firewall(netns=ns.name),
            private_key=generate_private_key(),
        )
        try:
            yield agent, config
        finally:
            await agent.close()


async def until(check: Callable[[], bool], within: float = 30) -> None:
    """Polls until `check()` holds: a loaded CI machine may take long to get there (the assertions after check what
    was reached)."""
    async with asyncio.timeout(within):
        while not check():
            await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def running(client: ControlClient) -> AsyncIterator[None]:
    task = asyncio.create_task(client.run_forever())
    try:
        yield
    finally:
        client.stop()
        await asyncio.wait_for(task, 10)


async def test_refused_node_retries_at_the_slowest_pace(node: tuple[NodeAgent, AgentConfig]) -> None:
    agent, config = node
    cp = FakeControlPlane(lambda: state(1), credential="another-credential")
    attempts: list[float] = []
    original = cp.Connect

    async def counting(request_iterator, context):  # type: ignore[no-untyped-def]
        attempts.append(asyncio.get_running_loop().time())
        async for message in original(request_iterator, context):
            yield message

    cp.Connect = counting  # type: ignore[method-assign]
    async with serve(cp, config.control_url), running(ControlClient(config, agent)):
        await asyncio.sleep(1.5)  # the window the upper bound below is about
        await until(lambda: len(attempts) >= 2)  # a loaded machine may not have knocked twice by then
    assert 2 <= len(attempts) <= 5  # every backoff_max (0.4 s), not every backoff_initial (0.05 s)
    gaps = [b - a for a, b in itertools.pairwise(attempts)]
    assert min(gaps) >= 0.35
    assert agent.applied_serial == 0


async def test_client_applies_snapshot_and_deltas_reports_stats_and_keepalives(
    node: tuple[NodeAgent, AgentConfig],
) -> None:
    agent, config = node
    cp = FakeControlPlane(lambda: state(4, 1, 2), CREDENTIAL)
    async with serve(cp, config.control_url), running(ControlClient(config, agent)):
        session = await cp.next_session(within=10)
        assert session.hello.public_key == agent.public_key and session.hello.applied_serial == 0
        result = await session.result("op-1")
        assert result.ok and result.serial == 4
        session.send_delta(agent_pb2.Delta(operation_id="d5", serial=5, remove_peers=[key(1)]))
        assert (await session.result("d5")).ok
        await until(lambda: any(r.serial == 5 for r in session.stats) and session.keepalives >= 1)
    assert set(await agent.backend.read_peers()) == {key(2)}
    reports = [r for r in session.stats if r.serial == 5]
    assert reports and all(r.totals.peers == 1 for r in reports)
    assert {p.public_key for r in reports for p in r.peers} <= {key(2)}
    assert session.keepalives >= 1


async def test_stats_reports_hold_every_peer_first_then_what_changed(node: tuple[NodeAgent, AgentConfig]) -> None:
    # Two idle peers on a real device (no endpoint, no handshake): after the stream's first report, which holds
    # both, the reports carry the totals and no peer until the full interval (1 s here) brings both again.
    agent, config = node
    cp = FakeControlPlane(lambda: state(4, 1, 2), CREDENTIAL)
    async with serve(cp, config.control_url), running(ControlClient(config, agent)):
        session = await cp.next_session(within=10)
        assert (await session.result("op-1")).ok
        await until(lambda: sum(r.complete for r in session.stats) >= 2)
    reports = list(session.stats)
    complete = [n for n, r in enumerate(reports) if r.complete]
    assert complete[0] == 0
    assert {p.public_key for p in reports[0].peers} == {key(1), key(2)}
    between = reports[1 : complete[1]]
    assert between, "the full interval is five stats intervals: reports of changes come between"
    assert all(not r.peers and r.totals.peers == 2 and r.totals.peers_connected == 0 for r in between)
    assert {p.public_key for p in reports[complete[1]].peers} == {key(1), key(2)}


async def test_control_plane_restart_brings_a_reconnect_and_a_fresh_snapshot(
    node: tuple[NodeAgent, AgentConfig],
) -> None:
    agent, config = node
    current = [state(1, 1, 2, 3)]
    cp = FakeControlPlane(lambda: current[0], CREDENTIAL)
    client = ControlClient(config, agent)
    async with running(client):
        async with serve(cp, config.control_url):
            session = await cp.next_session(within=10)
            assert (await session.result("op-1")).ok
        # Down: the desired state changes meanwhile (peer 1 removed, 4 added).
        current[0] = state(7, 2, 3, 4)
        await asyncio.sleep(0.5)
        async with serve(cp, config.control_url):
            session = await cp.next_session(within=10)
            assert session.hello.applied_serial == 1  # what it had applied before the outage
            result = await session.result(f"op-{len(cp.all_sessions)}")
            assert result.ok and result.serial == 7
    assert set(await agent.backend.read_peers()) == {key(2), key(3), key(4)}


async def test_metrics_listener_shows_applies_peers_and_the_open_stream(
    node: tuple[NodeAgent, AgentConfig],
) -> None:
    import httpx
    from control_plane import free_port

    from node_agent.metrics import AgentMetrics

    agent, config = node
    metrics = AgentMetrics()
    port = free_port()
    stop_listener = metrics.serve(f"127.0.0.1:{port}")
    cp = FakeControlPlane(lambda: state(4, 1, 2, 3), CREDENTIAL)
    try:
        async with serve(cp, config.control_url), running(ControlClient(config, agent, metrics=metrics)):
            session = await cp.next_session(within=10)
            assert (await session.result("op-1")).ok
            session.send_delta(agent_pb2.Delta(operation_id="d5", serial=5, remove_peers=[key(1)]))
            assert (await session.result("d5")).ok
            async with httpx.AsyncClient() as http:
                text = (await http.get(f"http://127.0.0.1:{port}/metrics")).text
    finally:
        stop_listener()
    lines = dict(line.rsplit(" ", 1) for line in text.splitlines() if not line.startswith("#"))
    assert float(lines['vpn_agent_apply_duration_seconds_count{kind="full_state"}']) == 1
    assert float(lines['vpn_agent_apply_duration_seconds_count{kind="delta"}']) == 1
    assert float(lines["vpn_agent_peers"]) == 2
    assert float(lines["vpn_agent_applied_serial"]) == 5
    assert float(lines["vpn_agent_connected"]) == 1
