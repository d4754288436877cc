"""Browser sockets across two processes: one per-address cap for the deployment, and the sockets of an ended session
(blocked, logged out, refresh token reused, password reset or changed, account deleted) or of an expired access token
closed on whichever process holds them."""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import httpx
import jwt
import pytest
import websockets
from websockets.exceptions import ConnectionClosed

from controlplane.crypto import SecretBox
from tests.multiprocess.cluster import HTTP_TIMEOUT, ControlPlaneProcess
from tests.multiprocess.conftest import Cluster
from tests.multiprocess.test_two_processes import (
    PASSWORD,
    address_of,
    admin_client,
    customer_client,
    from_address_of,
    new_customer,
    next_push,
)

SOCKETS_PER_ADDRESS = 50  # settings.socket_connections_per_address (the cluster runs with the default)
TOO_MANY_CLOSE = 4429
UNAUTHORIZED_CLOSE = 4401


async def logged_in_customer(cluster: Cluster) -> tuple[str, str, httpx.AsyncClient]:
    """A new customer: username, access token and their API client."""
    username = await new_customer(cluster.first)
    customer = await customer_client(cluster.first, username)
    return username, customer.headers["Authorization"].removeprefix("Bearer "), customer


async def served(port: int, token: str, address: str) -> bool:
    """Opens a socket from `address`: True if it was greeted (then closes it), False if refused for too many
    sockets."""
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws?token={token}", local_addr=(address, 0)) as ws:
        return bool(json.loads(await ws.recv())["type"] == "auth")


async def test_sockets_from_one_address_on_both_processes_hit_one_cap(cluster: Cluster) -> None:
    username, token, customer = await logged_in_customer(cluster)
    # From the customer's own loopback address: the cap's sockets and handshakes are counted per address, and later
    # tests' sockets from 127.0.0.1 must not share this test's.
    address = address_of(username)
    async with contextlib.AsyncExitStack() as stack:
        opened = []
        for n in range(SOCKETS_PER_ADDRESS):
            process = cluster.processes[n % 2]
            ws = await stack.enter_async_context(
                websockets.connect(f"ws://127.0.0.1:{process.http_port}/ws?token={token}", local_addr=(address, 0))
            )
            assert (await next_push(ws, "auth"))["data"] is not None
            opened.append(ws)
        # Half are on each process, so neither process alone is at the cap: the count is shared.
        for process in cluster.processes:
            async with websockets.connect(
                f"ws://127.0.0.1:{process.http_port}/ws?token={token}", local_addr=(address, 0)
            ) as refused:
                assert json.loads(await refused.recv())["type"] == "error"
                with pytest.raises(ConnectionClosed) as closed:
                    await refused.recv()
                assert closed.value.rcvd is not None and closed.value.rcvd.code == TOO_MANY_CLOSE
        # A socket closed on the first process frees a place on the second (once the first has noticed the close).
        await opened.pop(0).close()
        async with asyncio.timeout(30):
            while not await served(cluster.second.http_port, token, address):
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


async def _session(process: ControlPlaneProcess, username: str) -> dict[str, str]:
    """A login from the customer's own loopback address (see test_two_processes.address_of)."""
    async with httpx.AsyncClient(
        base_url=process.url, timeout=HTTP_TIMEOUT, transport=from_address_of(username)
    ) as http:
        answer = await http.post("/api/client/login", json={"username": username, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


async def _assert_closed(ws: Any) -> None:
    """What an ended session's socket gets: the reason, then close code 4401."""
    assert (await next_push(ws, "auth"))["message"] == "Sesión inválida o expirada."
    with pytest.raises(ConnectionClosed) as closed:
        await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == UNAUTHORIZED_CLOSE


async def _assert_open(ws: Any) -> None:
    await ws.send('{"type":"ping"}')
    assert await next_push(ws, "pong") == {"type": "pong"}


async def _ends_on_the_other_process(
    cluster: Cluster, end: Callable[[httpx.AsyncClient, str, dict[str, str], dict[str, str]], Awaitable[None]]
) -> None:
    """Two sessions of one customer with sockets on the second process; `end` runs on the first process with the
    customer's name, the session to end and the other one. The ended session's socket closes; the other's stays."""
    username = await new_customer(cluster.first)
    ending, other = await _session(cluster.first, username), await _session(cluster.first, username)
    port = cluster.second.http_port
    async with (
        websockets.connect(f"ws://127.0.0.1:{port}/ws?token={ending['access']}") as ended_ws,
        websockets.connect(f"ws://127.0.0.1:{port}/ws?token={other['access']}") as other_ws,
        httpx.AsyncClient(base_url=cluster.first.url, timeout=HTTP_TIMEOUT) as http,
    ):
        for ws in (ended_ws, other_ws):
            assert (await next_push(ws, "auth"))["data"] is not None
        await end(http, username, ending, other)
        await _assert_closed(ended_ws)
        await _assert_open(other_ws)


async def test_logout_closes_the_sessions_socket_on_the_other_process(cluster: Cluster) -> None:
    async def logout(http: httpx.AsyncClient, _: str, ending: dict[str, str], __: dict[str, str]) -> None:
        assert (await http.post("/api/logout", json={"refresh": ending["refresh"]})).status_code == 200

    await _ends_on_the_other_process(cluster, logout)


async def test_logout_with_only_the_access_token_closes_the_socket_on_the_other_process(cluster: Cluster) -> None:
    async def logout(http: httpx.AsyncClient, _: str, ending: dict[str, str], __: dict[str, str]) -> None:
        answer = await http.post("/api/logout", headers={"Authorization": f"Bearer {ending['access']}"})
        assert answer.status_code == 200

    await _ends_on_the_other_process(cluster, logout)


async def test_a_reused_refresh_token_closes_the_socket_on_the_other_process(cluster: Cluster) -> None:
    async def reuse(http: httpx.AsyncClient, _: str, ending: dict[str, str], __: dict[str, str]) -> None:
        assert (await http.post("/api/refresh-token", json={"refresh": ending["refresh"]})).status_code == 200
        stolen = await http.post("/api/refresh-token", json={"refresh": ending["refresh"]})
        assert stolen.json()["code"] == "refresh_reused"

    await _ends_on_the_other_process(cluster, reuse)


async def test_a_password_change_closes_the_other_sessions_socket_on_the_other_process(cluster: Cluster) -> None:
    async def change(http: httpx.AsyncClient, _: str, __: dict[str, str], own: dict[str, str]) -> None:
        answer = await http.patch(
            "/api/client/settings",
            json={"old_password": PASSWORD, "new_password": "otra-clave-segura-2"},
            headers={"Authorization": f"Bearer {own['access']}"},
        )
        assert answer.status_code == 200, answer.text

    await _ends_on_the_other_process(cluster, change)


async def test_a_password_reset_closes_the_accounts_sockets_on_the_other_process(cluster: Cluster) -> None:
    username = await new_customer(cluster.first)
    address = f"{username}@example.com"
    conn = await asyncpg.connect(cluster.database_url)
    try:
        await conn.execute("UPDATE users SET email = $1, email_verified = true WHERE username = $2", address, username)
    finally:
        await conn.close()
    tokens = [await _session(cluster.first, username) for _ in range(2)]
    port = cluster.second.http_port
    async with contextlib.AsyncExitStack() as stack:
        sockets = [
            await stack.enter_async_context(websockets.connect(f"ws://127.0.0.1:{port}/ws?token={t['access']}"))
            for t in tokens
        ]
        for ws in sockets:
            assert (await next_push(ws, "auth"))["data"] is not None
        async with httpx.AsyncClient(base_url=cluster.first.url, timeout=HTTP_TIMEOUT) as http:
            assert (await http.post("/api/client/password-recovery", json={"username": username})).status_code == 200
            link = await _mailed_link(cluster, address, "/password-reset")
            answer = await http.post("/api/client/password-reset", json={"token": link, "password": "otra-clave-2"})
            assert answer.status_code == 200, answer.text
        for ws in sockets:
            await _assert_closed(ws)


async def test_deleting_an_account_closes_its_sockets_on_the_other_process(cluster: Cluster) -> None:
    username = await new_customer(cluster.first)
    tokens = [await _session(cluster.first, username) for _ in range(2)]
    someone_else = await _session(cluster.first, await new_customer(cluster.first))
    port = cluster.second.http_port
    async with contextlib.AsyncExitStack() as stack:
        sockets = [
            await stack.enter_async_context(websockets.connect(f"ws://127.0.0.1:{port}/ws?token={t['access']}"))
            for t in (*tokens, someone_else)
        ]
        for ws in sockets:
            assert (await next_push(ws, "auth"))["data"] is not None
        async with httpx.AsyncClient(base_url=cluster.first.url, timeout=HTTP_TIMEOUT) as http:
            answer = await http.post(
                "/api/client/settings/delete-account",
                json={"password": PASSWORD},
                headers={"Authorization": f"Bearer {tokens[0]['access']}"},
            )
            assert answer.status_code == 200, answer.text
        for ws in sockets[:2]:
            await _assert_closed(ws)
        await _assert_open(sockets[2])


async def test_an_expired_access_token_closes_its_sockets_on_both_processes(cluster: Cluster) -> None:
    """Access tokens last minutes; the test signs one of a real session (issued by the first process) that expires in
    ten seconds (time to open and greet three sockets on a loaded machine), with the key both processes share. Its
    sockets on both processes close with 4401 when it expires, the session's other sockets stay."""
    username = await new_customer(cluster.first)
    tokens = await _session(cluster.first, username)
    claims = jwt.decode(tokens["access"], options={"verify_signature": False})
    claims["exp"] = int(time.time()) + 10
    box = SecretBox.from_file(cluster.outbox.parent / "secret.key")
    short = jwt.encode(claims, box.signing_key, algorithm="HS256")
    async with contextlib.AsyncExitStack() as stack:
        expiring = [
            await stack.enter_async_context(websockets.connect(f"ws://127.0.0.1:{p.http_port}/ws?token={short}"))
            for p in cluster.processes
        ]
        lasting = await stack.enter_async_context(
            websockets.connect(f"ws://127.0.0.1:{cluster.second.http_port}/ws?token={tokens['access']}")
        )
        for ws in (*expiring, lasting):
            assert (await next_push(ws, "auth"))["data"] is not None
        for ws in expiring:
            assert (await next_push(ws, "auth"))["message"] == "La sesión expiró. Inicie sesión de nuevo."
            with pytest.raises(ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == UNAUTHORIZED_CLOSE
        await _assert_open(lasting)


async def _mailed_link(cluster: Cluster, address: str, path: str) -> str:
    """The token of the link to `path` in the mail the processes wrote for `address` (their outbox folder)."""
    async with asyncio.timeout(20):
        while True:
            found = sorted(cluster.outbox.glob("*.eml")) if cluster.outbox.exists() else []
            for file in found:
                message = email.message_from_bytes(file.read_bytes(), policy=email.policy.default)
                body = message.get_body()
                if message["To"] == address and body is not None and path in (text := body.get_content()):
                    return str(re.search(re.escape(path) + r"\?token=([\w-]+)", text).group(1))  # type: ignore[union-attr]
            await asyncio.sleep(0.1)
