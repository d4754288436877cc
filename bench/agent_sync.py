"""Benchmark: agent sync on wireguard-go with 10 000 (or 50 000) peers, printed beside its targets (docs/benchmarks.md).

Run as root: `uv run python bench/agent_sync.py [--peers 10000] [--rounds 3]`. Everything happens in a network
namespace made (and removed) here. Not a test: it prints figures, it does not fail on them. The agent runs in
this process: its memory is this process's resident set, measured before and after its first full sync.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import result as report_result

from node_agent.agent import NodeAgent
from node_agent.backends import uapi
from node_agent.backends.userspace import UserspaceBackend
from node_agent.config import AgentConfig
from node_agent.firewall import Firewall
from node_agent.keys import generate_private_key
from protos import agent_pb2


def resident_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def noop_target(count: int) -> float:
    """Seconds a resync with nothing to change may take (docs/benchmarks.md): 150 ms at 10 000 peers, 500 ms at
    50 000."""
    return 0.15 if count <= 10_000 else 0.5


def peer_specs(count: int, salt: int) -> list[agent_pb2.PeerSpec]:
    return [
        agent_pb2.PeerSpec(
            public_key=base64.b64encode((salt * 1_000_000 + n + 1).to_bytes(32, "big")).decode(),
            preshared_key=base64.b64encode((salt * 1_000_000 + n + 7).to_bytes(32, "big")).decode(),
            allowed_ips=[f"10.{64 + n // 62500}.{n // 250 % 250}.{n % 250 + 2}/32"],
        )
        for n in range(count)
    ]


def full_state(peers: list[agent_pb2.PeerSpec], serial: int) -> agent_pb2.FullState:
    return agent_pb2.FullState(
        serial=serial,
        operation_id=f"op{serial}",
        interface=agent_pb2.InterfaceSpec(name="wg0", listen_port=51900, addresses=["10.64.0.1/10"]),
        peers=peers,
    )


def raw_set_text(peers: list[agent_pb2.PeerSpec]) -> bytes:
    lines = ["set=1"]
    for p in peers:
        lines.append(f"public_key={base64.b64decode(p.public_key).hex()}")
        lines.append(f"preshared_key={base64.b64decode(p.preshared_key).hex()}")
        lines.extend(f"allowed_ip={ip}" for ip in p.allowed_ips)
    lines.append("\n")
    return "\n".join(lines).encode()


async def new_agent(ns: str, tmp: Path) -> NodeAgent:
    name = "wgb" + uuid.uuid4().hex[:10]
    config = AgentConfig(
        control_url="unix:/nonexistent",
        node_id="bench",
        credential="x",
        backend="userspace",
        interface=name,
        egress_interface="lo",
        state_dir=tmp,
    )
    agent = NodeAgent(
        config,
        backend=UserspaceBackend(name, netns=ns),
        firewall=Firewall(netns=ns),
        private_key=generate_private_key(),
    )
    # An empty snapshot first: wireguard-go started, interface up, firewall in place; then only peers differ.
    result = await agent.handle_full_state(full_state([], 1))
    assert result.result.ok, result.result.error
    return agent


async def run(ns: str, count: int, rounds: int) -> None:
    agents: list[NodeAgent] = []
    raw: list[float] = []
    full: list[float] = []
    noop: list[float] = []
    one: list[float] = []
    noop_writes = 0
    rss_before = rss_after = 0.0
    try:
        with tempfile.TemporaryDirectory() as tmpdir:
            peers = peer_specs(count, 1)
            text = raw_set_text(peers)
            for r in range(rounds):
                # Raw: one UAPI set of the same peers, text prepared beforehand, on a fresh empty device.
                agent = await new_agent(ns, Path(tmpdir))
                agents.append(agent)
                started = time.perf_counter()
                await uapi.set_device(agent.backend.socket, text)  # type: ignore[attr-defined]
                raw.append(time.perf_counter() - started)
                await agent.backend.delete_interface()

                # Agent: the FullState message to its OperationResult, on a fresh empty device.
                agent = await new_agent(ns, Path(tmpdir))
                agents.append(agent)
                state = full_state(peers, 2)
                if r == 0:
                    rss_before = resident_mib()
                started = time.perf_counter()
                result = await agent.handle_full_state(state)
                full.append(time.perf_counter() - started)
                if r == 0:
                    rss_after = resident_mib()
                assert result.result.ok, result.result.error

                # The same snapshot again (a reconnect with nothing new): reads only.
                writes: list[bytes] = []
                real_set = uapi.set_device

                async def spy(
                    path: Path, payload: bytes, writes: list[bytes] = writes, real_set: Any = real_set
                ) -> None:
                    writes.append(payload)
                    await real_set(path, payload)

                uapi.set_device = spy  # type: ignore[assignment]
                try:
                    started = time.perf_counter()
                    result = await agent.handle_full_state(state)
                    noop.append(time.perf_counter() - started)
                finally:
                    uapi.set_device = real_set  # type: ignore[assignment]
                noop_writes += len(writes)
                assert result.result.ok

                # One peer changed (a key rotation: remove one, add one) with all the others present.
                for i in range(20):
                    new_peer = peer_specs(1, 100 + r * 100 + i)[0]
                    new_peer.allowed_ips[:] = [peers[i].allowed_ips[0]]
                    delta = agent_pb2.Delta(
                        operation_id=f"d{i}",
                        serial=3 + i,
                        remove_peers=[peers[i].public_key],
                        upsert_peers=[new_peer],
                    )
                    started = time.perf_counter()
                    result = await agent.handle_delta(delta)
                    one.append(time.perf_counter() - started)
                    assert result.result.ok, result.result.error
                await agent.backend.delete_interface()
    finally:
        for agent in agents:
            with contextlib.suppress(Exception):  # most are already gone
                await agent.backend.delete_interface()
            await agent.close()

    raw_s, full_s, noop_s = statistics.median(raw), statistics.median(full), statistics.median(noop)
    one_ms = statistics.median(one) * 1000
    goal_ms = noop_target(count) * 1000
    load = load_average()
    print(f"agent sync benchmark, {count} peers, wireguard-go, median of {rounds} round(s) ({os.cpu_count()} cpus)")
    print(f"  load average at the end  {load}")
    print(f"  raw UAPI set            {raw_s * 1000:8.1f} ms")
    print(f"  agent full sync         {full_s * 1000:8.1f} ms   ratio {full_s / raw_s:5.2f} x raw   target <= 1.30 x")
    print(
        f"  no-op resync            {noop_s * 1000:8.1f} ms   writes {noop_writes}"
        f"     target < {goal_ms:.0f} ms, 0 writes"
    )
    print(f"  one peer change         {one_ms:8.2f} ms   (median of {len(one)})   target < 5 ms")
    print(
        f"  agent resident memory   {rss_after:8.0f} MiB after the first full sync ({rss_after - rss_before:+.0f} MiB)"
    )
    ratio = full_s / raw_s
    report_result(
        f"agent full sync, {count} peers, wireguard-go",
        f"{ratio:.2f} x raw UAPI set ({full_s * 1000:.0f} vs {raw_s * 1000:.0f} ms; load {load})",
        "<= 1.30 x",
        ratio <= 1.3,
    )
    report_result(
        f"agent sync with nothing to change, {count} peers",
        f"{noop_s * 1000:.0f} ms, {noop_writes} writes",
        f"< {goal_ms:.0f} ms, 0 writes",
        noop_s < noop_target(count) and noop_writes == 0,
    )
    report_result(f"one peer change with {count} present", f"{one_ms:.2f} ms (median)", "< 5 ms", one_ms < 5)
    report_result(
        f"agent memory with {count} peers",
        f"{rss_after:.0f} MiB resident ({rss_after - rss_before:+.0f} MiB for the sync)",
        "stated",
        None,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peers", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if os.geteuid() != 0:
        for what in ("agent full sync", "agent sync with nothing to change", "one peer change"):
            report_result(what, "not measured: needs root (namespace, wireguard-go)", "see docs/benchmarks.md", None)
        sys.exit(1)
    ns = "vpnbench" + uuid.uuid4().hex[:8]
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        asyncio.run(run(ns, args.peers, args.rounds))
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False)


if __name__ == "__main__":
    main()
