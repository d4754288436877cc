"""Benchmark: authenticated peer list against a bare Litestar handler on the same server, in one run.

Target (docs/benchmarks.md): the peer list serves at least 0.70 of the requests per second of the bare
handler (the earlier target was half). The real
control plane runs as a subprocess (SQLite, one process); a keep-alive HTTP load generator in this process
alternates phases bare, list, bare, list so that both see the same machine.
"""

from __future__ import annotations

import asyncio
import time

from common import REPO, deployment, result
from seed import LISTED_PEERS, customer_with_listed_peers

CONNECTIONS = int(__import__("os").environ.get("BENCH_CONNECTIONS", "32"))
PHASE_SECONDS = 4.0
WARMUP_SECONDS = 1.0


async def _one_connection(port: int, request: bytes, stop_at: float, counts: list[int]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.perf_counter() < stop_at:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            await reader.readexactly(length)
            counts[0 if status == 200 else 1] += 1
    finally:
        writer.close()


async def requests_per_second(port: int, path: str, token: str | None) -> float:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}\r\n".encode()
    warm = [0, 0]
    await asyncio.gather(
        *(_one_connection(port, request, time.perf_counter() + WARMUP_SECONDS, warm) for _ in range(CONNECTIONS))
    )
    counts = [0, 0]
    started = time.perf_counter()
    await asyncio.gather(*(_one_connection(port, request, started + PHASE_SECONDS, counts) for _ in range(CONNECTIONS)))
    elapsed = time.perf_counter() - started
    if counts[1]:
        raise RuntimeError(f"{path}: {counts[1]} answers were not 200")
    return counts[0] / elapsed


async def main() -> None:
    async with deployment() as dep:
        token = await customer_with_listed_peers(dep.services())
        dep.process.start([str(REPO / "bench" / "serve_with_bare.py")])
        await asyncio.to_thread(dep.process.wait_ready)
        port = dep.process.http_port
        bare, listed = [], []
        for _ in range(2):
            bare.append(await requests_per_second(port, "/bench/bare", None))
            listed.append(await requests_per_second(port, "/api/client/accounts/peers", token))
    bare_rps, list_rps = sum(bare) / len(bare), sum(listed) / len(listed)
    ratio = list_rps / bare_rps
    print(f"bare handler        {bare_rps:8.0f} req/s  (phases {', '.join(f'{x:.0f}' for x in bare)})")
    print(f"peer list ({LISTED_PEERS} peers) {list_rps:8.0f} req/s  (phases {', '.join(f'{x:.0f}' for x in listed)})")
    result(
        "authenticated peer list vs bare handler",
        f"{ratio:.2f} x ({list_rps:.0f} vs {bare_rps:.0f} req/s)",
        ">= 0.70 x",
        ratio >= 0.7,
    )


if __name__ == "__main__":
    asyncio.run(main())
