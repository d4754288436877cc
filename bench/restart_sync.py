"""Benchmark: control-plane restart with 1 000 000 peers on 1 000 nodes; every node back in sync.

Target (issue 18, "ten times the scale"): every node in sync within 20 s of the new process's start. 1 000
scripted agents (the real gRPC protocol, acking at once, retrying about every second as the real agent does;
the real agent's own apply time is bench/agent_sync.py, the real agents' restart is bench/restart_agents.py) hold
streams to one control-plane process. The process is stopped and started again; the figure runs from the new
process's start (interpreter start-up included) until the last agent is in sync: it reports the serial it applied
(Hello.resume) and, having missed nothing, gets InSync instead of its 1 000-peer full state
(docs/agent-protocol.md, "Reconnecting"). Also printed: the bytes each node received on its first connection
(the full state) and after the restart, and how many full states the restart sent (0 expected).

BENCH_PEERS / BENCH_NODES change the scale; VPN_BENCH_DATABASE_URL runs it on PostgreSQL (bench/common.py).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

from common import deployment, process_cpu_seconds, raise_fd_limit, result
from seed import customers_with_tokens, servers_with_peers

from tests.multiprocess.scripted_agent import ScriptedAgent

NODES = int(os.environ.get("BENCH_NODES", "1000"))
PEERS = int(os.environ.get("BENCH_PEERS", "1000000"))
TARGET_SECONDS = 20.0


def synced(agent: ScriptedAgent, streams: int) -> bool:
    """In sync on `streams` streams so far: each began with a full state or an InSync."""
    return len(agent.full_states) + len(agent.in_syncs) >= streams


def synced_at(agent: ScriptedAgent) -> float:
    """When the agent's latest stream was in sync (monotonic)."""
    return max([t for t, _ in agent.full_states] + [t for t, _ in agent.in_syncs])


async def all_synced(agents: list[ScriptedAgent], streams: int, within: float) -> None:
    async with asyncio.timeout(within):
        while not all(synced(a, streams) for a in agents):
            await asyncio.sleep(0.05)


def _quiet_abandoned_streams(loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
    # A scripted agent's stream to the stopped process leaves gRPC's request task pending: 1 000 lines of noise.
    if not str(context.get("message", "")).startswith("Task was destroyed but it is pending"):
        loop.default_exception_handler(context)


async def main() -> None:
    asyncio.get_running_loop().set_exception_handler(_quiet_abandoned_streams)
    raise_fd_limit(4 * NODES + 1024)  # a socket per agent on each side, plus the database pool
    per_node = PEERS // NODES
    rng = random.Random(18)  # spreading retries, not security
    async with deployment() as dep:
        services = dep.services()
        seeding = time.perf_counter()
        try:
            [(user_id, _)] = await customers_with_tokens(services, 1)
            nodes = await servers_with_peers(services, user_id, NODES, per_node)
        finally:
            await services.close()
        print(f"seeded {NODES} nodes x {per_node} peers in {time.perf_counter() - seeding:.1f} s", flush=True)
        launched = time.monotonic()
        dep.process.start()
        await asyncio.to_thread(dep.process.wait_ready, 120)
        print(f"first start: /readyz answered after {time.monotonic() - launched:.2f} s", flush=True)
        # The real agent retries 0.75-1.25 s after a control plane went away (node_agent/backoff.py).
        agents = [
            ScriptedAgent(
                dep.process.grpc_target, node_id, credential, retry_seconds=rng.uniform(0.75, 1.25), resume=True
            )
            for node_id, credential in nodes
        ]
        for agent in agents:
            agent.start()
        first = time.perf_counter()
        await all_synced(agents, 1, 600)
        cold = time.perf_counter() - first
        sizes = {len(a.full_states[-1][1].peers) for a in agents}
        assert sizes == {per_node}, sizes
        cold_bytes = sorted(a.received_bytes for a in agents)
        cold_cpu = process_cpu_seconds(dep.process.proc.pid if dep.process.proc else 0)

        await asyncio.to_thread(dep.process.stop)
        before = [a.received_bytes for a in agents]
        restarted = time.monotonic()
        dep.process.start()
        try:
            await asyncio.to_thread(dep.process.wait_ready, 120)
            ready = time.monotonic() - restarted
            await all_synced(agents, 2, 300)
            cpu = process_cpu_seconds(dep.process.proc.pid if dep.process.proc else 0)
        finally:
            for agent in agents:
                await agent.stop()
        times = sorted(synced_at(a) - restarted for a in agents)
        full_again = sum(len(a.full_states) - 1 for a in agents)
        restart_bytes = sorted(a.received_bytes - b for a, b in zip(agents, before, strict=True))
    last = times[-1]
    load = Path("/proc/loadavg").read_text().split()[:3]  # noqa: ASYNC240 - a procfs read, instant
    print(
        f"first connection of {NODES} agents: all synced after {cold:.1f} s ({cold_cpu:.1f} s CPU of the process); "
        f"full state per node {cold_bytes[len(cold_bytes) // 2]} bytes (median)"
    )
    print(
        f"after restart: first node in sync at {times[0]:.2f} s, median {times[len(times) // 2]:.2f} s, "
        f"last {last:.2f} s (from process start; /readyz at {ready:.2f} s)"
    )
    print(
        f"after restart: {full_again} full states sent; bytes per node "
        f"median {restart_bytes[len(restart_bytes) // 2]}, max {restart_bytes[-1]}"
    )
    print(f"CPU time the new process used until the last node was in sync: {cpu:.2f} s (what an idle host would wait)")
    print(f"load average: {' '.join(load)}")
    result(
        "restart of the control plane: every node in sync",
        f"{PEERS} peers on {NODES} nodes: {last:.2f} s from start ({cpu:.1f} s CPU; {full_again} full states;"
        f" load {load[0]})",
        f"< {TARGET_SECONDS:.0f} s",
        last < TARGET_SECONDS,
    )


if __name__ == "__main__":
    asyncio.run(main())
