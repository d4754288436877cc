"""Benchmark: control-plane restart under real agents (wireguard-go in namespaces); every node back in sync.

Target (issue 18): every node online and in sync within 10 s of the new process answering /readyz. Four real agent
processes (node_agent, userspace backend, the production reconnect delays: 1 s initial, 30 s cap), each in its own
network namespace with 25 peers, stream to one control plane (gRPC on a Unix socket, tests/netns; SQLite, or
PostgreSQL with VPN_BENCH_DATABASE_URL as the other benchmarks: bench/common.py). The
control plane is stopped, kept away for a few seconds (a slow start: the agents' retries fail meanwhile) and
started again; the figure is what an operator watches: the admin API's servers, polled until every one is online
and in sync. Printed beside it: the agents' logged retry delays and whether any got a full state again.

Run as root (namespaces): `flock /work/notes/netns.lock uv run python bench/restart_agents.py`.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "netns")]

from agent_process import AgentProcess  # noqa: E402
from common import bench_database, result  # noqa: E402
from control_plane import ADMIN, Api, ControlPlane  # noqa: E402
from netns import Namespace, unique_name, wait_for  # noqa: E402

NODES = int(os.environ.get("BENCH_AGENTS", "4"))
PEERS_PER_NODE = 25
AWAY_SECONDS = 5.0
TARGET_SECONDS = 10.0
RETRY = re.compile(r"(?:retrying|reconnecting) in ([0-9.]+) s")


def servers(admin: Api) -> list[dict[str, object]]:
    return list(admin.get("/api/admin/servers").json())


def all_back(admin: Api) -> bool:
    return all(s["online"] and s["in_sync"] for s in servers(admin))


def main() -> None:
    if os.geteuid() != 0:
        print("restart_agents: needs root (network namespaces)")
        result(f"restart under {NODES} real agents: all in sync", "skipped (not root)", "< 10 s after /readyz", None)
        return
    with tempfile.TemporaryDirectory(prefix="vpnbench") as tmp:
        asyncio.run(on_a_database(Path(tmp)))


async def on_a_database(workdir: Path) -> None:
    async with bench_database(workdir) as url:
        await asyncio.to_thread(measure, workdir, url)


def measure(workdir: Path, database_url: str) -> None:
    namespaces: list[Namespace] = []
    agents: list[AgentProcess] = []
    (workdir / "cp").mkdir()
    cp = ControlPlane(workdir / "cp", database_url=database_url)
    cp.start()
    try:
        admin = Api(cp.url, *ADMIN, admin=True)
        registered = httpx.put(
            f"{cp.url}/api/client/register", json={"username": "bench", "password": "bench-clave-segura-1"}
        )
        assert registered.status_code == 201, registered.text
        for n in range(NODES):
            created = admin.post(
                "/api/admin/servers",
                json={
                    "name": f"Nodo {n}",
                    "address": f"10.0.{n}.1",
                    "tunnel_subnet": f"10.{70 + n}.0.0/24",
                    "ubication": "Miami",
                },
            )
            assert created.status_code == 201, created.text
            ns = Namespace("rsa")
            namespaces.append(ns)
            agent = AgentProcess(
                ns,
                workdir / f"agent{n}",
                control_url=cp.grpc_target,
                node_id=created.json()["server"]["id"],
                credential=created.json()["credential"],
                interface=unique_name("wgr"),
                extra_env={
                    "VPN_NODE_BACKOFF_INITIAL": "1",
                    "VPN_NODE_BACKOFF_MAX": "30",
                },
            )
            agents.append(agent)
            agent.start()
        wait_for(lambda: all_back(admin), 60, interval=0.3, message="the agents never connected")
        for n, server in enumerate(servers(admin)):
            for i in range(PEERS_PER_NODE):
                answer = admin.post(
                    "/api/admin/peers", json={"username": "bench", "name": f"n{n}p{i}", "server": server["id"]}
                )
                assert answer.status_code == 201, answer.text
        wait_for(lambda: all_back(admin), 120, interval=0.3, message="the nodes never held their peers")
        logged = [len(a.log().splitlines()) for a in agents]

        cp.stop()
        time.sleep(AWAY_SECONDS)
        cp.serve()  # returns once the new process answers HTTP
        ready = time.monotonic()
        assert httpx.get(f"{cp.url}/readyz").status_code == 200
        admin = Api(cp.url, *ADMIN, admin=True)
        back: dict[str, float] = {}
        deadline = ready + 60
        while len(back) < NODES and time.monotonic() < deadline:
            for s in servers(admin):
                if s["online"] and s["in_sync"] and s["id"] not in back:
                    back[str(s["id"])] = time.monotonic() - ready
            time.sleep(0.1)
        assert len(back) == NODES, f"only {len(back)} of {NODES} nodes came back within 60 s"

        # The node shows in sync once its Hello is checked; the agent logs InSync (or a full state) just after.
        def tails_now() -> list[list[str]]:
            return [a.log().splitlines()[start:] for a, start in zip(agents, logged, strict=True)]

        def answered(lines: list[str]) -> bool:
            return any("no full state needed" in line or ("full state" in line and "applied" in line) for line in lines)

        wait_for(lambda: all(answered(t) for t in tails_now()), 10, interval=0.1, message="agents' logs")
        tails = tails_now()
        delays = [float(m.group(1)) for lines in tails for line in lines if (m := RETRY.search(line))]
        full_again = sum(1 for lines in tails for line in lines if "full state" in line and "applied" in line)
        in_sync = sum(1 for lines in tails for line in lines if "no full state needed" in line)
    finally:
        for agent in agents:
            if agent.running:
                agent.kill()
        cp.stop()
        for ns in namespaces:
            ns.delete()
    last = max(back.values())
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"{NODES} real agents, {PEERS_PER_NODE} peers each; control plane away {AWAY_SECONDS:.0f} s")
    print(f"after /readyz: nodes online and in sync at {', '.join(f'{t:.2f}' for t in sorted(back.values()))} s")
    print(f"agents' retry delays while it was away: {len(delays)} retries, max {max(delays, default=0):.2f} s")
    print(f"after the restart: {in_sync} InSync, {full_again} full states applied")
    print(f"load average: {' '.join(load)}")
    result(
        f"restart under {NODES} real agents: all in sync",
        f"{last:.2f} s after /readyz (retries <= {max(delays, default=0):.2f} s; load {load[0]})",
        f"< {TARGET_SECONDS:.0f} s after /readyz",
        last < TARGET_SECONDS,
    )


if __name__ == "__main__":
    main()
