"""CPU time of one peer-list request against one bare-handler request, in one process, without HTTP.

The requests-per-second ratio of bench/peer_list_rps.py is what the target counts; on a shared, loaded machine this
figure says where the time goes: the app is called through ASGI directly (one request after the other, the same
data as peer_list_rps.py), CPU time (`time.process_time`, every thread of the process: aiosqlite's included) is
divided by the number of requests, and `--profile` prints cProfile's top entries for the peer list.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import time
from typing import Any

import msgspec
from common import deployment
from litestar import Litestar, get
from seed import LISTED_PEERS, customer_with_listed_peers

from controlplane.app import create_app
from controlplane.settings import Settings


@get("/bench/bare", sync_to_thread=False)
def bare() -> dict[str, bool]:
    return {"ok": True}


async def call(app: Litestar, path: str, token: str | None) -> int:
    headers = [(b"host", b"127.0.0.1")]
    if token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    status = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)  # type: ignore[arg-type]
    return status


async def cpu_per_request(app: Litestar, path: str, token: str | None, count: int) -> float:
    for _ in range(20):
        await call(app, path, token)
    started = time.process_time()
    for _ in range(count):
        if await call(app, path, token) != 200:
            raise RuntimeError(f"{path} did not answer 200")
    return (time.process_time() - started) / count


async def main(count: int, profile: bool) -> None:
    async with deployment() as dep:
        token = await customer_with_listed_peers(dep.services())
        settings = Settings.from_env({**dep.env, "VPN_VAR_DIR": str(dep.workdir)})
        app = create_app(msgspec.structs.replace(settings, run_grpc=False, run_jobs=False))
        app.register(bare)
        async with app.lifespan():
            bare_cpu = await cpu_per_request(app, "/bench/bare", None, count)
            list_cpu = await cpu_per_request(app, "/api/client/accounts/peers", token, count)
            print(f"bare handler        {bare_cpu * 1000:6.3f} ms CPU per request")
            ratio = list_cpu / bare_cpu
            print(f"peer list ({LISTED_PEERS} peers) {list_cpu * 1000:6.3f} ms CPU per request  ({ratio:.1f} x)")
            if profile:
                profiler = cProfile.Profile()
                profiler.enable()
                await cpu_per_request(app, "/api/client/accounts/peers", token, count)
                profiler.disable()
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(35)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(args.requests, args.profile))
