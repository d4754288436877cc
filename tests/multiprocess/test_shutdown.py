"""Stopping a control-plane process the way systemd does (SIGTERM) while agents are attached (docs/deployment.md,
"Upgrades"): it exits by itself, cleanly, and what it owes the database on the way out is written. A process that
hangs at shutdown is killed by systemd after its stop timeout, losing that last write and delaying every upgrade."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
from collections.abc import Iterator
from typing import Any

import asyncpg
import pytest

from tests.multiprocess.cluster import SMALL_ARGON2, ControlPlaneProcess
from tests.multiprocess.conftest import Cluster, throwaway_database
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


@pytest.fixture
def own_database() -> Iterator[tuple[str, str]]:
    with throwaway_database() as urls:  # made outside the test's event loop (it runs one of its own)
        yield urls


async def test_a_stopped_process_hands_its_jobs_over_at_once(
    tmp_path_factory: pytest.TempPathFactory, own_database: tuple[str, str]
) -> None:
    """A process alone on its database holds every job's lease; stopped, it gives them up, so the process that
    stays (or the one an upgrade starts next) runs expiry and reminders at its next tick, not a minute later."""
    workdir = tmp_path_factory.mktemp("leases")
    database_url, dsn = own_database
    settings = {
        "VPN_DATABASE_URL": database_url,
        "VPN_SECRET_KEY_FILE": str(workdir / "secret.key"),
        "VPN_REDIS_URL": "",
        "VPN_EXPIRY_INTERVAL": "0.5",
        **SMALL_ARGON2,
    }
    alone = ControlPlaneProcess("alone", workdir, settings)
    alone.cli("migrate")
    alone.start()
    db = await asyncpg.connect(dsn)
    try:
        alone.wait_ready(within=240)
        async with asyncio.timeout(60):
            while not await db.fetchval("SELECT count(*) FROM job_leases WHERE name = 'expire_peers'"):
                await asyncio.sleep(0.2)
        held = await db.fetchval("SELECT count(*) FROM job_leases WHERE expires_at > now()")
        assert held >= 1
        assert alone.proc is not None
        alone.proc.terminate()
        await asyncio.to_thread(alone.proc.wait, EXIT_WITHIN)
        left = await db.fetch("SELECT name, holder, expires_at FROM job_leases WHERE expires_at > now()")
        assert not left, f"leases still held by a stopped process: {[dict(row) for row in left]}"
    finally:
        await db.close()
        alone.stop()
