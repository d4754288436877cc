"""Two control-plane instances sharing Redis: a push made through one reaches a browser on the other, and a
change made through one wakes the agent stream held by the other."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient
from redis.asyncio import Redis

from controlplane.app import create_app
from controlplane.db import transaction
from controlplane.domain.accounts.models import Role
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import OperationKind
from controlplane.nodes.registry import AgentLink
from controlplane.realtime.messages import InfoPush, Subject
from controlplane.services import Services, build_services
from controlplane.settings import Settings
from tests.api.factories import bearer, login, make_peer, make_server, make_user
from tests.conftest import skip_or_fail

REDIS_URL = os.environ.get("VPN_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


class RecordingSocket:
    """Stands where a browser's WebSocket stands in the hub: it keeps what it is sent."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []

    async def send_text(self, data: str) -> None:
        self.received.append(msgspec.json.decode(data))


@pytest.fixture
async def shared(settings: Settings) -> Settings:
    """Settings of two instances on one database and one Redis."""
    probe = Redis.from_url(REDIS_URL)
    try:
        await probe.ping()
    except Exception as exc:
        skip_or_fail(f"Redis not reachable at {REDIS_URL}: {exc}")
    finally:
        await probe.aclose()
    # A prefix of its own: other test runs on this Redis must not hear these events.
    return msgspec.structs.replace(settings, redis_url=REDIS_URL, redis_prefix=f"vpn-test-{uuid.uuid4().hex[:8]}:")


@pytest.fixture
async def pair(shared: Settings) -> AsyncIterator[tuple[Services, Services]]:
    first, second = build_services(shared), build_services(shared)
    await first.start()
    await second.start()
    yield first, second
    await first.close()
    await second.close()


async def eventually(predicate: Any, within: float = 20.0) -> None:
    async with asyncio.timeout(within):
        while not predicate():
            await asyncio.sleep(0.02)


async def test_a_push_from_one_instance_reaches_a_browser_on_the_other(pair: tuple[Services, Services]) -> None:
    first, second = pair
    browser = RecordingSocket()
    second.hub.attach("user-1", browser)
    await first.hub.push("user-1", InfoPush(message="Hola", data=Subject(peer_id="p-1")))
    await eventually(lambda: browser.received)
    assert browser.received == [{"type": "info", "message": "Hola", "data": {"peer_id": "p-1"}}]


async def test_a_change_through_one_instance_wakes_the_agent_stream_on_the_other(
    services: Services, pair: tuple[Services, Services]
) -> None:
    first, second = pair
    server = await make_server(services)
    link = AgentLink(server.id)
    first.agents.add(link)
    async with transaction(second.sessionmaker) as db:
        await second.operations.change(db, server.id, OperationKind.REMOVE, NodeChange(), notify=False)
    await eventually(link.wake.is_set)


@pytest.fixture
async def two_clients(shared: Settings) -> AsyncIterator[tuple[AsyncTestClient[Any], AsyncTestClient[Any]]]:
    """Two whole apps, each building its services on its own event loop (the test client's), as two processes."""
    async with (
        AsyncTestClient(app=create_app(shared), base_url="http://testserver.local") as one,
        AsyncTestClient(app=create_app(shared), base_url="http://testserver.local") as two,
    ):
        yield one, two


async def test_a_logout_through_one_instance_ends_the_session_on_the_other_at_once(
    services: Services, two_clients: tuple[AsyncTestClient[Any], AsyncTestClient[Any]]
) -> None:
    one, two = two_clients
    await make_user(services, "ana")
    tokens = await login(one, "ana")
    # Both instances have checked the token, and remember it as good.
    for client in (one, two):
        assert (await client.get("/api/client/accounts/peers", headers=bearer(tokens))).status_code == 200
    assert (await one.post("/api/logout", json={"refresh": tokens["refresh"]})).status_code == 200
    # No waiting: the logout answered only once the other instance had forgotten the token.
    for client in (two, one):
        answer = await client.get("/api/client/accounts/peers", headers=bearer(tokens))
        assert answer.status_code == 401 and answer.json()["code"] == "session_ended"


async def test_blocking_through_one_instance_shuts_the_customer_out_of_the_other_at_once(
    services: Services, two_clients: tuple[AsyncTestClient[Any], AsyncTestClient[Any]]
) -> None:
    one, two = two_clients
    await make_user(services, "jefa", role=Role.ADMIN)
    customer = await make_user(services, "ana")
    staff = bearer(await login(one, "jefa", admin=True))
    tokens = await login(two, "ana")
    for client in (one, two):
        assert (await client.get("/api/client/settings", headers=bearer(tokens))).status_code == 200
    answer = await one.patch(f"/api/admin/users/{customer.id}", json={"blocked": True}, headers=staff)
    assert answer.status_code == 200
    for client in (two, one):
        answer = await client.get("/api/client/settings", headers=bearer(tokens))
        assert (answer.status_code, answer.json()["code"]) == (403, "account_blocked")


async def test_a_peer_changed_through_one_instance_is_listed_changed_by_the_other_at_once(
    services: Services, two_clients: tuple[AsyncTestClient[Any], AsyncTestClient[Any]]
) -> None:
    """Each instance keeps customers' peer lists; a change made through one must show on the other at once."""
    one, two = two_clients
    ana = await make_user(services, "ana")
    peer = await make_peer(services, ana, "movil", await make_server(services))
    headers = bearer(await login(one, "ana"))
    before = [(await client.get("/api/client/accounts/peers", headers=headers)).json() for client in (one, two)]
    # The same peer, each list with its own read time (docs/api.md, versions).
    versions = [[p.pop("version") for p in listed] for listed in before]
    assert before[0] == before[1] and [p["id"] for p in before[0]] == [peer.id]
    answer = await one.patch(
        f"/api/client/accounts/peers/{peer.id}", json={"operation": "regenerate_token"}, headers=headers
    )
    assert answer.status_code == 200
    new_link = answer.json()["mirror_link"]
    assert new_link != before[0][0]["mirror_link"]
    for client in (two, one):
        [listed] = (await client.get("/api/client/accounts/peers", headers=headers)).json()
        assert listed["mirror_link"] == new_link
        assert listed["version"] > max(max(v) for v in versions)  # read after the change: newer than before
