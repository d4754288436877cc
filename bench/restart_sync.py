"""Benchmark: control-plane restart with 100 000 peers on 20 nodes; every node back in sync.

Target (DESIGN.md): every node back in sync within 10 s. 20 scripted agents (the real gRPC protocol, acking at
once; the real agent's own apply time is bench/agent_sync.py) hold streams to one control-plane process on
SQLite. The process is stopped and started again; the figure runs from the new process's start (interpreter
start-up included) until the last agent has received its full state of 5 000 peers and acknowledged it.
"""

from __future__ import annotations

import asyncio
import os
import time

from common import deployment, process_cpu_seconds, raise_fd_limit, result
from seed import customers_with_tokens, servers_with_peers

from tests.multiprocess.scripted_agent import ScriptedAgent

NODES = int(os.environ.get("BENCH_NODES", "20"))
PEERS = int(os.environ.get("BENCH_PEERS", "100000"))
TARGET_SECONDS = 10.0


async def all_synced(agents: list[ScriptedAgent], count: int, within: float) -> None:
    async with asyncio.timeout(within):
        while any(len(a.full_states) < count for a in agents):
            await asyncio.sleep(0.01)


async def main() -> None:
    raise_fd_limit(4096)
    per_node = PEERS // NODES
    async with deployment() as dep:
        services = dep.services()
        seeding = time.perf_counter()
        try:
            [(user_id, _)] = await customers_with_tokens(services, 1)
            nodes = await servers_with_peers(services, user_id, NODES, per_node)
        finally:
            await services.close()
        print(f"seeded {NODES} nodes x {per_node} peers in {time.perf_counter() - seeding:.1f} s")
        launched = time.monotonic()
        dep.process.start()
        await asyncio.to_thread(dep.process.wait_ready, 60)
        print(f"first start: /readyz answered after {time.monotonic() - launched:.2f} s")
        agents = [ScriptedAgent(dep.process.grpc_target, node_id, credential) for node_id, credential in nodes]
        for agent in agents:
            agent.start()
        first = time.perf_counter()
        await all_synced(agents, 1, 120)
        cold = time.perf_counter() - first
        sizes = {len(a.full_states[-1][1].peers) for a in agents}
        assert sizes == {per_node}, sizes

        await asyncio.to_thread(dep.process.stop)
        restarted = time.monotonic()
        dep.process.start()
        try:
            await asyncio.to_thread(dep.process.wait_ready, 60)
            ready = time.monotonic() - restarted
            await all_synced(agents, 2, 120)
            cpu = process_cpu_seconds(dep.process.proc.pid if dep.process.proc else 0)
        finally:
            for agent in agents:
                await agent.stop()
        times = sorted(a.full_states[1][0] - restarted for a in agents)
        sizes = {len(a.full_states[1][1].peers) for a in agents}
        assert sizes == {per_node}, sizes
    last = times[-1]
    print(f"first connection of {NODES} agents: all synced after {cold:.1f} s")
    print(
        f"after restart: first node in sync at {times[0]:.2f} s, median {times[len(times) // 2]:.2f} s, "
        f"last {last:.2f} s (from process start)"
    )
    print(f"CPU time the new process used until the last node was in sync: {cpu:.2f} s (what an idle host would wait)")
    result(
        f"restart with {PEERS} peers on {NODES} nodes: all in sync",
        f"{last:.2f} s from start ({last - ready:.2f} s after /readyz at {ready:.2f} s; {cpu:.1f} s CPU)",
        f"< {TARGET_SECONDS:.0f} s",
        last < TARGET_SECONDS,
    )


if __name__ == "__main__":
    asyncio.run(main())
