"""Several control-plane processes behind a load balancer: what one process does reaches browsers and agents
attached to the other, and the scheduled jobs run once for the whole deployment."""

from __future__ import annotations

import asyncio
import email
import email.policy
import itertools
import json
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import pytest
import websockets

from protos import agent_pb2
from tests.multiprocess.cluster import ADMIN, HTTP_TIMEOUT, ControlPlaneProcess
from tests.multiprocess.conftest import EXPIRY_INTERVAL, Cluster
from tests.multiprocess.scripted_agent import ScriptedAgent

PASSWORD = "clave-del-cliente-1"


async def admin_client(process: ControlPlaneProcess) -> httpx.AsyncClient:
    http = httpx.AsyncClient(base_url=process.url, timeout=HTTP_TIMEOUT)
    answer = await http.post("/api/admin/login", json={"username": ADMIN[0], "password": ADMIN[1]})
    assert answer.status_code == 200, answer.text
    http.headers["Authorization"] = f"Bearer {answer.json()['access']}"
    return http


# Each customer's loopback address (new_customer's): their logins come from it too, as a real customer's come from
# theirs. From 127.0.0.1 the session-scoped cluster's logins would pass the login limit per address (50 in 5 minutes)
# as tests are added.
_ADDRESSES: dict[str, str] = {}


def address_of(username: str) -> str:
    """The loopback address `username` registered from (new_customer)."""
    return _ADDRESSES[username]


def from_address_of(username: str) -> httpx.AsyncHTTPTransport:
    """A transport whose connections leave from `username`'s own loopback address."""
    return httpx.AsyncHTTPTransport(local_address=address_of(username))


async def customer_client(process: ControlPlaneProcess, username: str) -> httpx.AsyncClient:
    http = httpx.AsyncClient(base_url=process.url, timeout=HTTP_TIMEOUT, transport=from_address_of(username))
    answer = await http.post("/api/client/login", json={"username": username, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    http.headers["Authorization"] = f"Bearer {answer.json()['access']}"
    return http


async def new_customer(process: ControlPlaneProcess) -> str:
    """A customer registered from a loopback address of its own (remembered for their logins: address_of), as real
    customers come from theirs: from one address the file's customers would pass the registration limit per address
    (10 an hour)."""
    username = f"cliente{uuid.uuid4().hex[:8]}"
    own_address = f"127.0.{uuid.uuid4().int % 250 + 2}.{uuid.uuid4().int % 250 + 2}"
    transport = httpx.AsyncHTTPTransport(local_address=own_address)
    async with httpx.AsyncClient(base_url=process.url, timeout=HTTP_TIMEOUT, transport=transport) as http:
        answer = await http.put("/api/client/register", json={"username": username, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    _ADDRESSES[username] = own_address
    return username


# Second octets of the servers' subnets, one each: the suite's database is its own, so counting is enough (a random
# octet from 200 collided about once in five runs, answered 409 subnet_overlap).
_SUBNET_OCTETS = itertools.count(20)


async def new_server(admin: httpx.AsyncClient) -> tuple[str, str]:
    """A server with a subnet of its own; returns its id and the agent's credential."""
    octet = next(_SUBNET_OCTETS)
    answer = await admin.post(
        "/api/admin/servers",
        json={"name": f"nodo-{uuid.uuid4().hex[:6]}", "address": "127.0.0.1", "tunnel_subnet": f"10.{octet}.0.0/16"},
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["server"]["id"], answer.json()["credential"]


@pytest.fixture
async def admin(cluster: Cluster) -> AsyncIterator[httpx.AsyncClient]:
    http = await admin_client(cluster.first)
    yield http
    await http.aclose()


async def attached_agent(process: ControlPlaneProcess, server_id: str, credential: str) -> ScriptedAgent:
    agent = ScriptedAgent(process.grpc_target, server_id, credential)
    agent.start()
    await agent.wait_full_state()
    return agent


async def next_push(ws: Any, kind: str, within: float = 30) -> dict[str, Any]:
    async with asyncio.timeout(within):
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == kind:
                return message  # type: ignore[no-any-return]


async def test_a_push_made_through_one_process_reaches_a_browser_on_the_other(
    cluster: Cluster, admin: httpx.AsyncClient
) -> None:
    server_id, credential = await new_server(admin)
    agent = await attached_agent(cluster.first, server_id, credential)
    username = await new_customer(cluster.first)
    created = await admin.post("/api/admin/peers", json={"username": username, "name": "movil", "server": server_id})
    assert created.status_code == 201, created.text
    peer_id = created.json()["id"]
    await agent.next_delta()  # the creation reached the node
    customer = await customer_client(cluster.first, username)
    token = customer.headers["Authorization"].removeprefix("Bearer ")
    try:
        # The browser holds its socket on the second process; the request and the agent's answer go to the first.
        async with websockets.connect(f"ws://127.0.0.1:{cluster.second.http_port}/ws?token={token}") as ws:
            assert (await next_push(ws, "auth"))["data"] == {"username": username}
            answer = await customer.patch(f"/api/client/accounts/peers/{peer_id}", json={"operation": "regenerate"})
            assert answer.status_code == 202, answer.text
            push = await next_push(ws, "updated_peer")
            while push["data"]["processing"]:
                push = await next_push(ws, "updated_peer")
            assert push["message"] == "Peer movil regenerado correctamente."
            assert push["data"]["id"] == peer_id
    finally:
        await customer.aclose()
        await agent.stop()


async def test_a_stats_report_on_one_process_reaches_each_owner_on_the_other_with_their_own_peers_only(
    cluster: Cluster, admin: httpx.AsyncClient
) -> None:
    # One bus event carries the report's lines for every owner (realtime/topics.py, UserPushes); the process
    # holding the browsers hands each its own lines, and nobody else's.
    server_id, credential = await new_server(admin)
    agent = await attached_agent(cluster.first, server_id, credential)
    owners = [await new_customer(cluster.first) for _ in range(2)]
    peers: dict[str, tuple[str, str]] = {}  # username -> (peer id, public key)
    for username in owners:
        created = await admin.post("/api/admin/peers", json={"username": username, "name": "pc", "server": server_id})
        assert created.status_code == 201, created.text
        peers[username] = (created.json()["id"], (await agent.next_delta()).upsert_peers[0].public_key)
    customers = [await customer_client(cluster.first, u) for u in owners]
    tokens = [c.headers["Authorization"].removeprefix("Bearer ") for c in customers]
    try:
        async with (
            websockets.connect(f"ws://127.0.0.1:{cluster.second.http_port}/ws?token={tokens[0]}") as first,
            websockets.connect(f"ws://127.0.0.1:{cluster.second.http_port}/ws?token={tokens[1]}") as second,
        ):
            for ws in (first, second):
                await next_push(ws, "auth")
            (id_a, key_a), (id_b, key_b) = peers[owners[0]], peers[owners[1]]
            # A report of changes, as this version's agents send: the node's totals are the agent's own.
            totals = agent_pb2.StatsTotals(peers=5, peers_connected=0, rx_bytes=7_000, tx_bytes=90_000)
            agent.report((key_a, 1_000, 20_000), (key_b, 3_000, 40_000), totals=totals)
            got_a, got_b = await next_push(first, "peer_stats"), await next_push(second, "peer_stats")
            assert got_a["data"]["peers"] == [
                {"id": id_a, "latest_handshake": 0, "rx_bytes": 1_000, "tx_bytes": 20_000}
            ]
            assert got_b["data"]["peers"] == [
                {"id": id_b, "latest_handshake": 0, "rx_bytes": 3_000, "tx_bytes": 40_000}
            ]
        db = await asyncpg.connect(cluster.database_url)
        try:
            stored = await db.fetchrow("SELECT stats_rx_bytes, stats_tx_bytes FROM servers WHERE id = $1", server_id)
        finally:
            await db.close()
        assert tuple(stored) == (7_000, 90_000)  # not the sum of the two lines
    finally:
        for customer in customers:
            await customer.aclose()
        await agent.stop()


async def test_an_agent_on_one_process_gets_a_change_made_through_the_other(
    cluster: Cluster, admin: httpx.AsyncClient
) -> None:
    server_id, credential = await new_server(admin)
    agent = await attached_agent(cluster.second, server_id, credential)
    try:
        username = await new_customer(cluster.first)
        created = await admin.post(
            "/api/admin/peers", json={"username": username, "name": "portatil", "server": server_id}
        )
        assert created.status_code == 201, created.text
        delta = await agent.next_delta()
        customer = await customer_client(cluster.first, username)
        config = (await customer.get(f"/api/client/accounts/peers/{created.json()['id']}")).text
        await customer.aclose()
        client_private = next(line.split("=", 1)[1].strip() for line in config.splitlines() if "PrivateKey" in line)
        from controlplane.wgkeys import public_key_of

        assert [p.public_key for p in delta.upsert_peers] == [public_key_of(client_private)]
        # Each process counts the agents it holds: the second holds this one, the first none of it.
        async with httpx.AsyncClient(timeout=HTTP_TIMEOUT) as http:
            first = (await http.get(f"{cluster.first.url}/metrics")).text
            second = (await http.get(f"{cluster.second.url}/metrics")).text
        assert "vpn_nodes_connected 0.0" in first
        assert "vpn_nodes_connected 1.0" in second
    finally:
        await agent.stop()


async def test_changes_through_both_processes_reach_the_agent_once_each_and_in_order(
    cluster: Cluster, admin: httpx.AsyncClient
) -> None:
    """The agent's process sends its own changes ahead, built before they commit (nodes/send_ahead.py), and reads
    the other process's from the database: mixed and concurrent, every change arrives once, in serial order."""
    server_id, credential = await new_server(admin)
    agent = await attached_agent(cluster.first, server_id, credential)
    second_admin = await admin_client(cluster.second)
    try:
        username = await new_customer(cluster.first)

        async def create(http: httpx.AsyncClient, name: str) -> str:
            answer = await http.post("/api/admin/peers", json={"username": username, "name": name, "server": server_id})
            assert answer.status_code == 201, answer.text
            return str(answer.json()["id"])

        created = await asyncio.gather(*(create((admin, second_admin)[i % 2], f"equipo{i}") for i in range(12)))
        deltas = [await agent.next_delta() for _ in created]
        serials = [delta.serial for delta in deltas]
        assert serials == list(range(serials[0], serials[0] + len(created)))
        keys = [peer.public_key for delta in deltas for peer in delta.upsert_peers]
        assert len(keys) == len(set(keys)) == len(created)  # each peer added once, none twice
        await asyncio.sleep(0.5)
        assert agent.deltas.empty(), "a change was sent twice"
        async with asyncio.timeout(10):  # and the node is in sync once the agent's answers are in
            while not (status := (await admin.get(f"/api/admin/servers/{server_id}")).json())["in_sync"]:
                await asyncio.sleep(0.05)
        assert status["serial"] == status["applied_serial"] == serials[-1]
    finally:
        await second_admin.aclose()
        await agent.stop()


async def test_the_expiry_job_disables_each_expired_peer_once_across_both_processes(
    cluster: Cluster, admin: httpx.AsyncClient
) -> None:
    server_id, credential = await new_server(admin)
    agent = await attached_agent(cluster.first, server_id, credential)
    username = await new_customer(cluster.second)
    peer_ids = []
    for n in range(24):
        answer = await admin.post(
            "/api/admin/peers", json={"username": username, "name": f"equipo{n}", "server": server_id, "days": 30}
        )
        assert answer.status_code == 201, answer.text
        peer_ids.append(answer.json()["id"])
    conn = await asyncpg.connect(cluster.database_url)
    try:
        # Their plans ran out a minute ago: the next run of the job, on whichever process holds its lease, acts.
        await conn.execute(
            "UPDATE peers SET expiration_date = $1 WHERE id = ANY($2::text[])",
            datetime.now(UTC) - timedelta(minutes=1),
            peer_ids,
        )
        async with asyncio.timeout(20):
            while await conn.fetchval("SELECT count(*) FROM peers WHERE id = ANY($1::text[]) AND active", peer_ids):
                await asyncio.sleep(0.1)
        await asyncio.sleep(EXPIRY_INTERVAL * 6)  # both processes' jobs fire several more times meanwhile
        disables = await conn.fetch(
            "SELECT peer_id, count(*) AS n FROM node_operations WHERE kind = 'disable' AND peer_id = ANY($1::text[])"
            " GROUP BY peer_id",
            peer_ids,
        )
    finally:
        await conn.close()
        await agent.stop()
    assert {row["peer_id"]: row["n"] for row in disables} == dict.fromkeys(peer_ids, 1)
    removed = [key for delta in agent.all_deltas for key in delta.remove_peers]
    assert len(removed) == len(set(removed)) == len(peer_ids)
    handled = 0
    for process in cluster.processes:
        for line in process.log().splitlines():
            entry = json.loads(line) if line.startswith("{") else {}
            if entry.get("message", "").startswith("job expire_peers handled"):
                handled += int(entry["message"].split()[3])
    assert handled == len(peer_ids)


async def test_a_logout_or_a_block_through_one_process_shuts_the_token_out_of_the_other_at_once(
    cluster: Cluster, admin: httpx.AsyncClient
) -> None:
    """Each process remembers tokens it has checked; ending the session must reach both before it answers."""
    username = await new_customer(cluster.first)
    async with httpx.AsyncClient(timeout=HTTP_TIMEOUT, transport=from_address_of(username)) as http:
        login = await http.post(
            f"{cluster.first.url}/api/client/login", json={"username": username, "password": PASSWORD}
        )
        tokens = login.json()
        headers = {"Authorization": f"Bearer {tokens['access']}"}
        for process in cluster.processes:
            assert (await http.get(f"{process.url}/api/client/accounts/peers", headers=headers)).status_code == 200
        answer = await http.post(f"{cluster.first.url}/api/logout", json={"refresh": tokens["refresh"]})
        assert answer.status_code == 200
        for process in (cluster.second, cluster.first):
            answer = await http.get(f"{process.url}/api/client/accounts/peers", headers=headers)
            assert answer.status_code == 401 and answer.json()["code"] == "session_ended", process.name

        # Blocked by staff through the second process: the token checked on the first stops there too.
        customer = await customer_client(cluster.first, username)
        try:
            for process in cluster.processes:
                answer = await http.get(f"{process.url}/api/client/settings", headers=customer.headers)
                assert answer.status_code == 200
            found = await admin.get("/api/admin/users", params={"q": username})
            [row] = found.json()["items"]
            staff = await admin_client(cluster.second)
            try:
                blocked = await staff.patch(f"/api/admin/users/{row['id']}", json={"blocked": True})
                assert blocked.status_code == 200, blocked.text
            finally:
                await staff.aclose()
            for process in (cluster.first, cluster.second):
                answer = await http.get(f"{process.url}/api/client/settings", headers=customer.headers)
                # Ended, and saying why (docs/webui.md: the login page shows it).
                assert (answer.status_code, answer.json()["code"]) == (403, "account_blocked"), process.name
        finally:
            await customer.aclose()


async def test_each_expiry_reminder_is_mailed_once_across_both_processes(
    cluster: Cluster, admin: httpx.AsyncClient
) -> None:
    """Both processes run the reminder job every half second; each peer's 72 h and 24 h mails go out once."""
    server_id, credential = await new_server(admin)
    agent = await attached_agent(cluster.first, server_id, credential)
    username = await new_customer(cluster.second)
    address = f"{username}@example.com"
    peer_ids = []
    for n in range(8):
        answer = await admin.post(
            "/api/admin/peers", json={"username": username, "name": f"equipo{n}", "server": server_id, "days": 30}
        )
        assert answer.status_code == 201, answer.text
        peer_ids.append(answer.json()["id"])

    def mails() -> list[str]:
        found = sorted(cluster.outbox.glob("*.eml")) if cluster.outbox.exists() else []
        messages = [email.message_from_bytes(path.read_bytes(), policy=email.policy.default) for path in found]
        return [m.get_body().get_content() for m in messages if m["To"] == address]  # type: ignore[union-attr]

    async def settle(count: int) -> list[str]:
        async with asyncio.timeout(20):
            while len(mails()) < count:
                await asyncio.sleep(0.1)
        await asyncio.sleep(EXPIRY_INTERVAL * 6)  # both processes' jobs fire several more times meanwhile
        return mails()

    now = datetime.now(UTC)
    conn = await asyncpg.connect(cluster.database_url)
    try:
        await conn.execute("UPDATE users SET email = $1, email_verified = true WHERE username = $2", address, username)
        # Bought a month ago, 71 hours left: the 72 h reminder is due.
        await conn.execute(
            "UPDATE plans_history SET created = $1 WHERE peer_id = ANY($2::text[])", now - timedelta(30), peer_ids
        )
        await conn.execute(
            "UPDATE peers SET created = $1, expiration_date = $2 WHERE id = ANY($3::text[])",
            now - timedelta(30),
            now + timedelta(hours=71),
            peer_ids,
        )
        first = await settle(len(peer_ids))
        # A day later: 23 hours left, the 24 h reminder is due.
        await conn.execute(
            "UPDATE peers SET expiration_date = $1 WHERE id = ANY($2::text[])", now + timedelta(hours=23), peer_ids
        )
        both = await settle(2 * len(peer_ids))
        claims = await conn.fetch(
            "SELECT kind, count(*) AS n FROM expiry_reminders WHERE peer_id = ANY($1::text[]) GROUP BY kind", peer_ids
        )
    finally:
        await conn.close()
        await agent.stop()
    assert len(first) == len(peer_ids)
    assert len(both) == 2 * len(peer_ids)
    assert {row["kind"]: row["n"] for row in claims} == {"72h": len(peer_ids), "24h": len(peer_ids)}
    for n in range(8):  # one of each per peer, each naming the peer and the renew link
        named = [text for text in both if f"«equipo{n}»" in text]
        assert len(named) == 2, named
        assert all(f"/dashboard/plans?renew={peer_ids[n]}" in text for text in named)
