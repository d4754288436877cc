"""Benchmark: API call to browser push (regenerate peer -> `updated_peer`), on loopback.

Target (docs/benchmarks.md): p50 under 10 ms, p99 under 40 ms, and under 8 ms of control-plane CPU per round (the
earlier target was p50 25 ms, p99 100 ms, with no CPU bound). The real control plane runs as a subprocess; a
scripted agent on the gRPC stream answers every operation at once (the real agent's own apply time is measured in
bench/agent_sync.py), and a WebSocket client stands for the browser.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time

import grpc
import httpx
import websockets
from common import (
    deployment,
    process_cpu_seconds,
    result,
    start_profiler,
    stop_profiler,
    thread_cpu_report,
    thread_cpu_seconds,
)

from controlplane.wgkeys import generate_keypair
from protos import agent_pb2, agent_pb2_grpc
from tests.multiprocess.cluster import ADMIN

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "200"))


async def scripted_agent(target: str, node_id: str, credential: str) -> None:
    """Hello, then answer every FullState and Delta with ok at once."""
    async with grpc.aio.insecure_channel(target) as channel:
        stub = agent_pb2_grpc.NodeControlStub(channel)
        outbox: asyncio.Queue[agent_pb2.AgentMessage] = asyncio.Queue()
        await outbox.put(
            agent_pb2.AgentMessage(
                hello=agent_pb2.Hello(
                    node_id=node_id,
                    credential=credential,
                    agent_version="bench",
                    backend="userspace",
                    public_key=generate_keypair()[1],
                )
            )
        )

        async def requests():  # type: ignore[no-untyped-def]
            while True:
                yield await outbox.get()

        async for message in stub.Connect(requests()):
            kind = message.WhichOneof("payload")
            if kind in ("full_state", "delta"):
                body = getattr(message, kind)
                await outbox.put(
                    agent_pb2.AgentMessage(
                        result=agent_pb2.OperationResult(operation_id=body.operation_id, serial=body.serial, ok=True)
                    )
                )


async def main() -> None:
    # The shared deployment (bench/common.py): SQLite, or PostgreSQL with VPN_BENCH_DATABASE_URL; log level WARNING.
    async with deployment({"VPN_ADMIN_PASSWORD": ADMIN[1]}) as dep:
        cp = dep.process
        await asyncio.to_thread(cp.cli, "create-admin", ADMIN[0])
        cp.start()
        await asyncio.to_thread(cp.wait_ready)
        async with httpx.AsyncClient(base_url=cp.url, timeout=10) as http:
            admin = (await http.post("/api/admin/login", json={"username": ADMIN[0], "password": ADMIN[1]})).json()
            staff = {"Authorization": f"Bearer {admin['access']}"}
            await http.put("/api/client/register", json={"username": "bench", "password": "bench-clave-1"})
            created = (
                await http.post(
                    "/api/admin/servers",
                    headers=staff,
                    json={"name": "bench", "address": "127.0.0.1", "tunnel_subnet": "10.77.0.0/16"},
                )
            ).json()
            agent = asyncio.create_task(scripted_agent(cp.grpc_target, created["server"]["id"], created["credential"]))
            peer = (await http.post("/api/admin/peers", headers=staff, json={"username": "bench", "name": "p1"})).json()
            login = (
                await http.post("/api/client/login", json={"username": "bench", "password": "bench-clave-1"})
            ).json()
            customer = {"Authorization": f"Bearer {login['access']}"}
            latencies = []
            async with websockets.connect(f"ws://127.0.0.1:{cp.http_port}/ws?token={login['access']}") as ws:
                await ws.recv()  # auth
                await asyncio.sleep(1)  # the creation settles
                assert cp.proc is not None
                cpu_before = process_cpu_seconds(cp.proc.pid)
                threads_before = thread_cpu_seconds(cp.proc.pid)
                profiler = start_profiler(cp.proc.pid)
                for _ in range(ROUNDS):
                    started = time.perf_counter()
                    answer = await http.patch(
                        f"/api/client/accounts/peers/{peer['id']}",
                        headers=customer,
                        json={"operation": "regenerate"},
                    )
                    assert answer.status_code == 202, answer.text
                    while True:
                        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
                        if message["type"] == "updated_peer" and not message["data"]["processing"]:
                            break
                    latencies.append((time.perf_counter() - started) * 1000)
                cpu_ms = (process_cpu_seconds(cp.proc.pid) - cpu_before) * 1000 / ROUNDS
                print(thread_cpu_report(threads_before, thread_cpu_seconds(cp.proc.pid), ROUNDS, "round"))
                stop_profiler(profiler)
            agent.cancel()
    latencies.sort()
    p50 = statistics.median(latencies)
    p99 = latencies[int(len(latencies) * 0.99) - 1]
    print(
        f"regenerate -> updated_peer over {ROUNDS} rounds: p50 {p50:.1f} ms (target < 10), "
        f"p99 {p99:.1f} ms (target < 40); control-plane CPU {cpu_ms:.1f} ms per round (target < 8)"
    )
    result(
        "API call to browser push (regenerate -> updated_peer)",
        f"p50 {p50:.1f} ms, p99 {p99:.1f} ms ({cpu_ms:.1f} ms control-plane CPU per round)",
        "p50 < 10 ms, p99 < 40 ms, CPU < 8 ms",
        p50 < 10 and p99 < 40 and cpu_ms < 8,
    )


if __name__ == "__main__":
    asyncio.run(main())
