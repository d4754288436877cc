"""Usage history across processes (docs/usage.md, "Counting"): a node's reports arrive at the process holding its
stream; when that process dies and the agent reconnects to another, the bytes the dead one had not written yet are
counted once, by the next, from the counters stored in the database."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import asyncpg

from tests.multiprocess.conftest import Cluster
from tests.multiprocess.test_two_processes import (
    admin_client,
    attached_agent,
    customer_client,
    new_customer,
    new_server,
)

MB = 1_000_000


async def until(read: Callable[[], Awaitable[int | None]], expected: int, what: str, within: float = 20) -> None:
    try:
        async with asyncio.timeout(within):
            while await read() != expected:
                await asyncio.sleep(0.1)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}: {await read()} != {expected}") from None


async def test_bytes_a_crashed_process_held_are_counted_once_by_the_process_the_agent_moves_to(
    cluster: Cluster,
) -> None:
    admin = await admin_client(cluster.second)
    server_id, credential = await new_server(admin)
    agent = await attached_agent(cluster.first, server_id, credential)
    username = await new_customer(cluster.first)
    created = await admin.post("/api/admin/peers", json={"username": username, "name": "movil", "server": server_id})
    assert created.status_code == 201, created.text
    peer_id = created.json()["id"]
    key = (await agent.next_delta()).upsert_peers[0].public_key
    db = await asyncpg.connect(cluster.database_url)
    try:

        async def stored_tx() -> int | None:
            return await db.fetchval("SELECT tx FROM usage_counters WHERE peer_id = $1", peer_id)  # type: ignore[no-any-return]

        async def node_tx() -> int | None:
            return await db.fetchval("SELECT stats_tx_bytes FROM servers WHERE id = $1", server_id)  # type: ignore[no-any-return]

        agent.report((key, 0, 0))
        await until(stored_tx, 0, "the first report's counters to be stored")
        agent.report((key, 1 * MB, 10 * MB))  # held in the first process's memory (written once a minute)
        await until(node_tx, 10 * MB, "the first process to receive the second report")
        assert await stored_tx() == 0

        cluster.first.proc.kill()  # type: ignore[union-attr]  # a crash: nothing written on the way out
        cluster.first.proc.wait()  # type: ignore[union-attr]
        await agent.stop()
        moved = await attached_agent(cluster.second, server_id, credential)
        moved.report((key, 1 * MB, 10 * MB))
        moved.report((key, 2 * MB, 25 * MB))
        await until(node_tx, 25 * MB, "the second process to receive the reports")
        await moved.stop()  # the stream ends: the second writes what it holds
        await until(stored_tx, 25 * MB, "the second process to write on disconnect")

        customer = await customer_client(cluster.second, username)
        month = (await customer.get("/api/client/accounts/usage")).json()
        series = (await customer.get(f"/api/client/accounts/peers/{peer_id}/usage", params={"range": "24h"})).json()
        await customer.aclose()
        # 25 MB down and 2 MB up, once: the 10 MB the first held are not lost, nor counted twice.
        assert month == [{"peer": peer_id, "download": 25 * MB, "upload": 2 * MB}]
        assert (series["download"], series["upload"]) == (25 * MB, 2 * MB)
    finally:
        await admin.aclose()
        try:
            if cluster.first.proc is not None and cluster.first.proc.poll() is not None:
                killed = cluster.first.proc.pid
                cluster.first.start()  # the other tests of the session use both processes
                await asyncio.to_thread(cluster.first.wait_ready)
                # A killed process cannot give its job leases up (a stopped one does): they would stay held for a
                # minute, and the session's other tests' jobs would not run until then. The holder names the pid.
                await db.execute("DELETE FROM job_leases WHERE holder LIKE $1", f"%:{killed}:%")
        finally:
            await db.close()
