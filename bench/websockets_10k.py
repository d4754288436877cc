"""Benchmark: a reconnect storm of 10 000 browser WebSockets on one control-plane process, then an event to one user.

Targets (issue 18): 10 000 browsers reconnecting at once (a fresh process: nothing cached, as after a restart) are
authenticated and subscribed in under 10 s; resident memory per open socket under 30 KB; an event to one user
p99 under 50 ms with them open. 10 000 customers (one socket each) are written to the database with valid sessions;
the process runs with Redis (the per-address count and the push bus go through it, as in a deployment of several
processes), and each event is published on the Redis channel the way another process publishes a push, then timed
until that user's socket receives it. Needs Redis on 127.0.0.1:6379 (VPN_BENCH_REDIS_URL to change).

The browsers are a separate process (`--client`) speaking the WebSocket protocol with a few lines of asyncio (no
library object per socket), so the client side is not what is measured; sockets come from many loopback addresses,
40 each, under the per-address cap. "Authenticated and subscribed" is the `auth` message the server sends once the
socket is attached to the hub. Memory is the control plane's resident set after the storm minus before, per socket.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import statistics
import subprocess
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

import msgspec
from common import (
    REDIS_URL,
    database_name,
    deployment,
    process_cpu_seconds,
    raise_fd_limit,
    redis_env,
    result,
    start_profiler,
    stop_profiler,
)
from redis.asyncio import Redis
from seed import customers_with_tokens

SOCKETS = int(os.environ.get("BENCH_SOCKETS", "10000"))
EVENTS = 300
# Handshakes in flight at once: browsers reconnect 2.5-5 s after the close (webui/src/lib/socket.ts), so after a
# restart thousands arrive together; uvicorn's listen backlog is 2048.
IN_FLIGHT = int(os.environ.get("BENCH_IN_FLIGHT", "1000"))
TARGET_SECONDS = 10.0
TARGET_KB = 30.0

SOCKETS_PER_ADDRESS = 40  # under the per-address cap (50 open, 120 handshakes a minute; docs/security.md)


def client_address(n: int) -> str:
    """The loopback source address of the n-th socket: customers come from many addresses, and the per-address
    limits would refuse 10 000 sockets from one. All of 127.0.0.0/8 is loopback on Linux."""
    block = n // SOCKETS_PER_ADDRESS
    return f"127.1.{block // 250}.{block % 250 + 1}"


class BrowserSocket(asyncio.Protocol):
    """One browser's socket, client side: the upgrade request a browser sends (offering compression as Chromium
    does), then text frames from the server read into `messages`; pings are answered, nothing else is sent."""

    def __init__(self, request: bytes) -> None:
        self.request = request
        self.buffer = bytearray()
        self.upgraded = False
        self.inflater: zlib._Decompress | None = None  # only if the server accepted compression
        self.messages: list[str] = []
        self.arrived = asyncio.Event()
        self.ended = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.ended.done():
            self.ended.set_result(None)
        self.arrived.set()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.upgraded:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end]).decode("latin-1").lower()
            del self.buffer[: end + 4]
            if not head.startswith("http/1.1 101"):
                raise RuntimeError(f"upgrade refused: {head.splitlines()[0]}")
            self.upgraded = True
            if "permessage-deflate" in head:
                self.inflater = zlib.decompressobj(-15)
        while len(self.buffer) >= 2:
            first, length = self.buffer[0], self.buffer[1] & 0x7F
            start = 2
            if length == 126:
                if len(self.buffer) < 4:
                    return
                length, start = int.from_bytes(self.buffer[2:4], "big"), 4
            elif length == 127:
                if len(self.buffer) < 10:
                    return
                length, start = int.from_bytes(self.buffer[2:10], "big"), 10
            if len(self.buffer) < start + length:
                return
            payload = bytes(self.buffer[start : start + length])
            del self.buffer[: start + length]
            if first & 0x0F == 0x9:  # uvicorn's keepalive ping (every 20 s): a browser answers, or is closed
                self.pong(payload)
                continue
            if first & 0x0F != 0x1:
                continue
            if first & 0x40 and self.inflater is not None:  # RSV1: compressed (RFC 7692)
                payload = self.inflater.decompress(payload + b"\x00\x00\xff\xff")
            self.messages.append(payload.decode())
            self.arrived.set()

    def pong(self, payload: bytes) -> None:
        """A client's frames are masked (RFC 6455, 5.3); a ping's payload is at most 125 bytes."""
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        assert self.transport is not None
        self.transport.write(bytes([0x8A, 0x80 | len(payload)]) + mask + masked)

    async def next_message(self, within: float) -> dict[str, object]:
        async with asyncio.timeout(within):
            while not self.messages:
                if self.ended.done():
                    raise ConnectionError("socket closed")
                self.arrived.clear()
                await self.arrived.wait()
        return json.loads(self.messages.pop(0))


async def open_socket(port: int, token: str, n: int) -> BrowserSocket:
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /ws?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
    ).encode()
    loop = asyncio.get_running_loop()
    _, socket = await loop.create_connection(
        lambda: BrowserSocket(request), "127.0.0.1", port, local_addr=(client_address(n), 0)
    )
    first = await socket.next_message(180)
    if first.get("type") != "auth" or "data" not in first:
        raise RuntimeError(f"socket refused: {first}")
    return socket


async def browsers(port: int, users: list[tuple[str, str]], redis_url: str, channel: str) -> None:
    """The client process: the storm, then (told on stdin) the events; results as JSON lines on stdout."""
    raise_fd_limit(len(users) + 1000)
    sockets: dict[str, BrowserSocket] = {}
    gate = asyncio.Semaphore(IN_FLIGHT)

    failures: Counter[str] = Counter()

    async def one(n: int, user_id: str, token: str) -> None:
        async with gate:
            try:
                sockets[user_id] = await open_socket(port, token, n)
            except (OSError, RuntimeError, TimeoutError) as exc:  # counted and reported, not a crashed run
                failures[f"{type(exc).__name__}: {str(exc)[:80]}"] += 1

    started = time.perf_counter()
    await asyncio.gather(*(one(n, u, t) for n, (u, t) in enumerate(users)))
    seconds = time.perf_counter() - started
    print(json.dumps({"opened": len(sockets), "seconds": seconds, "failures": failures}), flush=True)
    await asyncio.to_thread(sys.stdin.readline)  # the control plane's memory is read meanwhile

    redis = Redis.from_url(redis_url)
    latencies = []
    rng = random.Random(7)
    opened = list(sockets)
    for n in range(EVENTS):
        user_id = rng.choice(opened)
        payload = {"user_id": user_id, "push": {"type": "info", "message": f"evento {n}"}}
        sent = time.perf_counter()
        await redis.publish(channel, msgspec.json.encode(payload))
        message = await sockets[user_id].next_message(10)
        latencies.append((time.perf_counter() - sent) * 1000)
        assert message["message"] == f"evento {n}", message
    await redis.aclose()
    still_open = sum(1 for s in sockets.values() if not s.ended.done())
    print(json.dumps({"latencies": latencies, "still_open": still_open}), flush=True)
    for s in sockets.values():
        if s.transport is not None:
            s.transport.abort()


async def main() -> None:
    limit = raise_fd_limit(SOCKETS * 2 + 1000)
    if limit < SOCKETS + 500:
        result("WebSocket reconnect storm", f"fd limit {limit}", f"{SOCKETS} open", None)
        return
    redis = await redis_env()
    if redis is None:
        result("WebSocket event to one user", "not measured (no Redis)", "p99 < 50 ms", None)
        return
    prefix = redis["VPN_REDIS_PREFIX"]
    print(f"database: {database_name()}; load average {os.getloadavg()[0]:.1f}", flush=True)
    async with deployment(redis) as dep:
        services = dep.services()
        try:
            users = await customers_with_tokens(services, SOCKETS)
        finally:
            await services.close()
        dep.process.start()
        await asyncio.to_thread(dep.process.wait_ready)
        assert dep.process.proc is not None
        pid = dep.process.proc.pid
        await asyncio.sleep(1)  # start-up settles
        rss_before = _rss_kib(pid)
        cpu_before = process_cpu_seconds(pid)
        profiler = start_profiler(pid)
        users_file = dep.workdir / "browsers.json"
        users_file.write_text(json.dumps(users))
        client = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--browsers",
            str(dep.process.http_port),
            str(users_file),
            REDIS_URL,
            f"{prefix}events:user",
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert client.stdin is not None and client.stdout is not None
        storm = json.loads(await client.stdout.readline())
        load = os.getloadavg()[0]
        cpu_ms = (process_cpu_seconds(pid) - cpu_before) * 1000 / max(storm["opened"], 1)
        stop_profiler(profiler)
        await asyncio.sleep(1)  # the last sockets' handlers reach their wait
        rss_after = _rss_kib(pid)
        client.stdin.write(b"go\n")
        await client.stdin.drain()
        events = json.loads(await client.stdout.readline())
        await client.wait()
    opened, seconds = storm["opened"], storm["seconds"]
    if storm["failures"]:
        print(f"sockets that did not open: {storm['failures']}")
    per_socket_kb = (rss_after - rss_before) * 1.024 / max(opened, 1)  # KiB -> kB as the target counts
    latencies = sorted(events["latencies"])
    p50 = statistics.median(latencies)
    p99 = latencies[int(len(latencies) * 0.99) - 1]
    print(
        f"{opened} sockets authenticated and subscribed in {seconds:.1f} s (load {load:.1f}; "
        f"control plane CPU {cpu_ms:.2f} ms per socket); RSS "
        f"{rss_before / 1024:.0f} -> {rss_after / 1024:.0f} MiB, {per_socket_kb:.1f} kB per socket"
    )
    print(f"event to one user over {EVENTS} events: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    result(
        f"WebSocket reconnect storm, {SOCKETS} at once",
        f"{opened} in {seconds:.1f} s ({cpu_ms:.2f} ms CPU each; load {load:.1f})",
        f"< {TARGET_SECONDS:.0f} s",
        opened >= SOCKETS and seconds < TARGET_SECONDS,
    )
    result(
        "resident memory per open WebSocket",
        f"{per_socket_kb:.1f} kB ({rss_before / 1024:.0f} -> {rss_after / 1024:.0f} MiB)",
        f"< {TARGET_KB:.0f} kB",
        per_socket_kb < TARGET_KB,
    )
    result(
        f"WebSocket event to one user ({events['still_open']} open)",
        f"p50 {p50:.1f} ms, p99 {p99:.1f} ms",
        "p99 < 50 ms",
        p99 < 50,
    )


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--browsers"]:
        port, users_file, redis_url, channel = sys.argv[2:6]
        users = [(u, t) for u, t in json.loads(Path(users_file).read_text())]
        asyncio.run(browsers(int(port), users, redis_url, channel))
    else:
        asyncio.run(main())
