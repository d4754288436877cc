"""Two control-plane hosts whose clocks disagree: the version that orders two views of one peer in the browser
(docs/api.md, versions) comes from the database, so a list read through the host whose clock runs ahead, before a
change made through the other, still loses to that change's push. With versions stamped from each process's clock
(the previous design), the list's would have been the larger, and the browser would have kept the stale name."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
import websockets

from tests.multiprocess.cluster import REPO, ControlPlaneProcess
from tests.multiprocess.conftest import Cluster
from tests.multiprocess.test_two_processes import (
    admin,  # noqa: F401  the fixture
    attached_agent,
    customer_client,
    new_customer,
    new_server,
    next_push,
)

AHEAD_SECONDS = 30  # less than an access token's lifetime: the token issued by the other host is still good here
CLOCK_HOOK = REPO / "tests" / "multiprocess" / "clock_offset"  # its sitecustomize.py reads VPN_TEST_CLOCK_OFFSET
OWN = {"VPN_VAR_DIR", "VPN_HTTP_BIND", "VPN_GRPC_BIND"}


@pytest.fixture(scope="module")
def ahead(cluster: Cluster) -> Iterator[ControlPlaneProcess]:
    """A third process on the cluster's database and Redis, its wall clock AHEAD_SECONDS fast."""
    shared = {k: v for k, v in cluster.first.env.items() if k.startswith("VPN_") and k not in OWN}
    process = ControlPlaneProcess("ahead", cluster.first.log_path.parent, shared)
    process.env["PYTHONPATH"] = f"{CLOCK_HOOK}:{REPO}"
    process.env["VPN_TEST_CLOCK_OFFSET"] = str(AHEAD_SECONDS)
    process.start()
    try:
        process.wait_ready()
        yield process
    finally:
        process.stop()


async def test_a_list_read_on_a_host_whose_clock_runs_ahead_loses_to_a_later_change_pushed_by_another(
    cluster: Cluster,
    admin: httpx.AsyncClient,  # noqa: F811  the fixture imported above
    ahead: ControlPlaneProcess,
) -> None:
    server_id, credential = await new_server(admin)
    agent = await attached_agent(cluster.first, server_id, credential)
    username = await new_customer(cluster.first)
    created = await admin.post("/api/admin/peers", json={"username": username, "name": "movil", "server": server_id})
    assert created.status_code == 201, created.text
    peer_id = created.json()["id"]
    await agent.next_delta()
    customer = await customer_client(cluster.first, username)
    on_ahead = await customer_client(ahead, username)
    token = customer.headers["Authorization"].removeprefix("Bearer ")
    try:
        # The skew is real: the fast host's idea of now is AHEAD_SECONDS past the other's.
        async with websockets.connect(f"ws://127.0.0.1:{cluster.first.http_port}/ws?token={token}") as ws:
            await next_push(ws, "auth")
            [stale] = (await on_ahead.get("/api/client/accounts/peers")).json()
            assert stale["name"] == "movil"
            renamed = await customer.patch(
                f"/api/client/accounts/peers/{peer_id}", json={"operation": "rename", "name": "portatil"}
            )
            assert renamed.status_code == 200, renamed.text
            push = await next_push(ws, "updated_peer")
            assert push["data"]["name"] == "portatil"
            # What the browser keeps (webui/src/lib/versions.ts): the larger version. The push and the answer of the
            # change, not the list read before it on the fast host.
            assert push["data"]["version"] > stale["version"]
            assert renamed.json()["version"] == push["data"]["version"]
            # Read again on the fast host after the change: the same state, so the same version, whatever its clock.
            await asyncio.sleep(0.2)  # the change's cache drop reaches the fast host through Redis
            [fresh] = (await on_ahead.get("/api/client/accounts/peers")).json()
            assert fresh["name"] == "portatil" and fresh["version"] == push["data"]["version"]
    finally:
        await customer.aclose()
        await on_ahead.aclose()
        await agent.stop()
