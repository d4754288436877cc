"""Stopping a control-plane process the way systemd does (SIGTERM) while agents are attached (docs/deployment.md,
"Upgrades"): it exits by itself, cleanly, and what it owes the database on the way out is written. A process that
hangs at shutdown is killed by systemd after its stop timeout, losing that last write and delaying every upgrade."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
from typing import Any

import asyncpg

from tests.multiprocess.conftest import Cluster
from tests.multiprocess.test_two_processes import admin_client, attached_agent, new_server

# An upper bound for a clean exit, not a figure: the process itself waits at most 2 s for gRPC streams to end.
# Generous because `make test` runs other layers beside this one on two cores.
EXIT_WITHIN = 45


def records(log: str) -> list[dict[str, Any]]:
    """The process's JSON log records (VPN_LOG_FORMAT=json); the odd plain line (the start-up banner) skipped."""
    parsed = []
    for line in log.splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            parsed.append(json.loads(line))
    return [record for record in parsed if isinstance(record, dict) and "level" in record]


async def test_a_process_stopped_with_agents_attached_exits_by_itself_and_marks_its_nodes_offline(
    cluster: Cluster,
) -> None:
    admin = await admin_client(cluster.second)
    nodes = [await new_server(admin) for _ in range(3)]
    agents = [await attached_agent(cluster.first, server_id, credential) for server_id, credential in nodes]
    db = await asyncpg.connect(cluster.database_url)
    process = cluster.first.proc
    assert process is not None
    try:
        process.terminate()
        try:
            code = await asyncio.to_thread(process.wait, EXIT_WITHIN)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise AssertionError(
                f"the process did not exit within {EXIT_WITHIN} s of SIGTERM:\n{cluster.first.log()[-4000:]}"
            ) from None
        log = cluster.first.log()
        # uvicorn re-raises the signal it stopped on once shutdown is done: systemd counts that as a clean exit.
        assert code in (0, -signal.SIGTERM), log[-4000:]
        errors = [record for record in records(log) if record["level"] in ("ERROR", "CRITICAL")]
        assert not errors, errors
        for server_id, _ in nodes:
            row = await db.fetchrow("SELECT disconnected_at FROM servers WHERE id = $1", server_id)
            assert row is not None and row["disconnected_at"] is not None, f"node {server_id} still looks online"
        shown = {item["id"]: item for item in (await admin.get("/api/admin/servers")).json()}
        assert all(not shown[server_id]["online"] for server_id, _ in nodes), shown
    finally:
        for agent in agents:
            await agent.stop()
        await db.close()
        await admin.aclose()
        if process.poll() is not None:
            cluster.first.start()  # the other tests of the session use both processes
            cluster.first.wait_ready()
