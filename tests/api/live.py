"""The real app served on the caller's own event loop behind httpx's ASGI transport: requests really run side by
side (litestar's test client runs each request to the end, on a loop of its own thread, where pooled database
connections made on the test's loop could not go)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from controlplane.app import create_app
from controlplane.services import Services


@asynccontextmanager
async def live_client(services: Services, client_address: str = "127.0.0.1") -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(services=services)
    started, stop = asyncio.Event(), asyncio.Event()

    async def live() -> None:  # one task enters and leaves the lifespan (anyio insists)
        async with app.lifespan():
            started.set()
            await stop.wait()

    running = asyncio.create_task(live())
    await started.wait()
    transport = httpx.ASGITransport(app=app, client=(client_address, 40000))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver.local") as client:
            yield client
    finally:
        stop.set()
        await running
