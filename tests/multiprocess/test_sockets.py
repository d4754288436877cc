"""Browser sockets across two processes: one per-address cap for the deployment, and a blocked customer's sockets
closed on whichever process holds them."""

from __future__ import annotations

import asyncio
import contextlib
import json

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from tests.multiprocess.conftest import Cluster
from tests.multiprocess.test_two_processes import admin_client, customer_client, new_customer, next_push

SOCKETS_PER_ADDRESS = 50  # settings.socket_connections_per_address (the cluster runs with the default)
TOO_MANY_CLOSE = 4429
UNAUTHORIZED_CLOSE = 4401


async def logged_in_customer(cluster: Cluster) -> tuple[str, str, httpx.AsyncClient]:
    """A new customer: username, access token and their API client."""
    username = await new_customer(cluster.first)
    customer = await customer_client(cluster.first, username)
    return username, customer.headers["Authorization"].removeprefix("Bearer "), customer


async def served(port: int, token: str) -> bool:
    """Opens a socket: True if it was greeted (then closes it), False if refused for too many sockets."""
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws?token={token}") as ws:
        return bool(json.loads(await ws.recv())["type"] == "auth")


async def test_sockets_from_one_address_on_both_processes_hit_one_cap(cluster: Cluster) -> None:
    _, token, customer = await logged_in_customer(cluster)
    async with contextlib.AsyncExitStack() as stack:
        opened = []
        for n in range(SOCKETS_PER_ADDRESS):
            process = cluster.processes[n % 2]
            ws = await stack.enter_async_context(
                websockets.connect(f"ws://127.0.0.1:{process.http_port}/ws?token={token}")
            )
            assert (await next_push(ws, "auth"))["data"] is not None
            opened.append(ws)
        # Half are on each process, so neither process alone is at the cap: the count is shared.
        for process in cluster.processes:
            async with websockets.connect(f"ws://127.0.0.1:{process.http_port}/ws?token={token}") as refused:
                assert json.loads(await refused.recv())["type"] == "error"
                with pytest.raises(ConnectionClosed) as closed:
                    await refused.recv()
                assert closed.value.rcvd is not None and closed.value.rcvd.code == TOO_MANY_CLOSE
        # A socket closed on the first process frees a place on the second (once the first has noticed the close).
        await opened.pop(0).close()
        async with asyncio.timeout(30):
            while not await served(cluster.second.http_port, token):
                await asyncio.sleep(0.3)
    await customer.aclose()


async def test_blocking_a_customer_closes_their_socket_on_the_other_process(cluster: Cluster) -> None:
    username, token, customer = await logged_in_customer(cluster)
    admin = await admin_client(cluster.first)
    try:
        async with websockets.connect(f"ws://127.0.0.1:{cluster.second.http_port}/ws?token={token}") as ws:
            assert (await next_push(ws, "auth"))["data"] is not None
            users = (await admin.get("/api/admin/users", params={"q": username})).json()["items"]
            [user] = [u for u in users if u["username"] == username]
            answer = await admin.patch(f"/api/admin/users/{user['id']}", json={"blocked": True})
            assert answer.status_code == 200, answer.text
            assert (await next_push(ws, "auth"))["message"] == "Sesión inválida o expirada."
            with pytest.raises(ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == UNAUTHORIZED_CLOSE
    finally:
        await admin.aclose()
        await customer.aclose()
