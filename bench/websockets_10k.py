"""Benchmark: 10 000 browser WebSockets open on one control-plane process, and an event to one user.

Target (DESIGN.md): 10 000 open connections in one process; an event to one user p99 under 50 ms. 10 000
customers (one socket each) are written to the database with valid sessions; the process runs with Redis, and
each event is published on the Redis channel the way another control-plane process publishes a push, then timed
until that user's socket receives it. Needs Redis on 127.0.0.1:6379 (VPN_BENCH_REDIS_URL to change).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import time
import uuid

import msgspec
import websockets
from common import deployment, raise_fd_limit, result
from redis.asyncio import Redis
from seed import customers_with_tokens

SOCKETS = int(os.environ.get("BENCH_SOCKETS", "10000"))
EVENTS = 300
OPENING_AT_ONCE = 200
REDIS_URL = os.environ.get("VPN_BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")


SOCKETS_PER_ADDRESS = 40  # under the per-address cap (50 open, 120 handshakes a minute; docs/security.md)


def client_address(n: int) -> str:
    """The loopback source address of the n-th socket: customers come from many addresses, and the per-address
    limits would refuse 10 000 sockets from one. All of 127.0.0.0/8 is loopback on Linux."""
    block = n // SOCKETS_PER_ADDRESS
    return f"127.1.{block // 250}.{block % 250 + 1}"


async def open_socket(port: int, token: str, n: int) -> websockets.ClientConnection:
    ws = await websockets.connect(
        f"ws://127.0.0.1:{port}/ws?token={token}",
        open_timeout=60,
        ping_interval=None,
        max_queue=None,
        local_addr=(client_address(n), 0),
    )
    first = json.loads(await ws.recv())
    if first.get("type") != "auth" or "data" not in first:
        raise RuntimeError(f"socket refused: {first}")
    return ws


async def main() -> None:
    limit = raise_fd_limit(SOCKETS * 2 + 1000)
    if limit < SOCKETS + 500:
        result("WebSocket connections in one process", f"fd limit {limit}", f"{SOCKETS} open", None)
        return
    prefix = f"vpn-bench-{uuid.uuid4().hex[:8]}:"
    redis = Redis.from_url(REDIS_URL)
    try:
        await redis.ping()
    except Exception as exc:
        print(f"Redis not reachable at {REDIS_URL}: {exc}")
        result("WebSocket event to one user", "not measured (no Redis)", "p99 < 50 ms", None)
        return
    async with deployment({"VPN_REDIS_URL": REDIS_URL, "VPN_REDIS_PREFIX": prefix}) as dep:
        services = dep.services()
        try:
            users = await customers_with_tokens(services, SOCKETS)
        finally:
            await services.close()
        dep.process.start()
        await asyncio.to_thread(dep.process.wait_ready)
        port = dep.process.http_port
        sockets: dict[str, websockets.ClientConnection] = {}
        started = time.perf_counter()
        gate = asyncio.Semaphore(OPENING_AT_ONCE)

        async def one(n: int, user_id: str, token: str) -> None:
            async with gate:
                sockets[user_id] = await open_socket(port, token, n)

        await asyncio.gather(*(one(n, u, t) for n, (u, t) in enumerate(users)))
        opening = time.perf_counter() - started
        rss = _rss_mib(dep.process.proc.pid if dep.process.proc else 0)
        print(f"{len(sockets)} sockets open in {opening:.1f} s; control plane RSS {rss:.0f} MiB")

        latencies = []
        channel = f"{prefix}events:user"
        rng = random.Random(7)
        for n in range(EVENTS):
            user_id = rng.choice(users)[0]
            ws = sockets[user_id]
            payload = {"user_id": user_id, "push": {"type": "info", "message": f"evento {n}"}}
            sent = time.perf_counter()
            await redis.publish(channel, msgspec.json.encode(payload))
            message = json.loads(await asyncio.wait_for(ws.recv(), 10))
            latencies.append((time.perf_counter() - sent) * 1000)
            assert message["message"] == f"evento {n}", message
        still_open = sum(1 for ws in sockets.values() if ws.state.name == "OPEN")
        await asyncio.gather(*(ws.close() for ws in sockets.values()), return_exceptions=True)
    await redis.aclose()
    latencies.sort()
    p50 = statistics.median(latencies)
    p99 = latencies[int(len(latencies) * 0.99) - 1]
    print(f"event to one user over {EVENTS} events: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    result(
        "WebSocket connections open in one process",
        f"{still_open} (opened in {opening:.1f} s)",
        f">= {SOCKETS}",
        still_open >= SOCKETS,
    )
    result(
        f"WebSocket event to one user ({SOCKETS} open)", f"p50 {p50:.1f} ms, p99 {p99:.1f} ms", "p99 < 50 ms", p99 < 50
    )


def _rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


if __name__ == "__main__":
    asyncio.run(main())
