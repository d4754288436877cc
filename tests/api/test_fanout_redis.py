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
from redis.asyncio import Redis

from controlplane.agents.registry import AgentLink
from controlplane.db import transaction
from controlplane.domain.peers.models import OperationKind
from controlplane.realtime.hub import Push
from controlplane.services import Services, build_services
from controlplane.settings import Settings
from tests.api.factories import make_server
from tests.conftest import skip_or_fail

REDIS_URL = os.environ.get("VPN_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


class RecordingSocket:
    """Stands where a browser's WebSocket stands in the hub: it keeps what it is sent."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []

    async def send_text(self, data: str) -> None:
        self.received.append(msgspec.json.decode(data))


@pytest.fixture
async def pair(settings: Settings) -> AsyncIterator[tuple[Services, Services]]:
    probe = Redis.from_url(REDIS_URL)
    try:
        await probe.ping()
    except Exception as exc:
        skip_or_fail(f"Redis not reachable at {REDIS_URL}: {exc}")
    finally:
        await probe.aclose()
    # A prefix of its own: other test runs on this Redis must not hear these events.
    shared = msgspec.structs.replace(settings, redis_url=REDIS_URL, redis_prefix=f"vpn-test-{uuid.uuid4().hex[:8]}:")
    first, second = build_services(shared), build_services(shared)
    await first.start()
    await second.start()
    yield first, second
    await first.close()
    await second.close()


async def eventually(predicate: Any, within: float = 5.0) -> None:
    async with asyncio.timeout(within):
        while not predicate():
            await asyncio.sleep(0.02)


async def test_a_push_from_one_instance_reaches_a_browser_on_the_other(pair: tuple[Services, Services]) -> None:
    first, second = pair
    browser = RecordingSocket()
    second.hub.attach("user-1", browser)
    await first.hub.push("user-1", Push("info", "Hola", {"n": 1}))
    await eventually(lambda: browser.received)
    assert browser.received == [{"type": "info", "message": "Hola", "data": {"n": 1}}]


async def test_a_change_through_one_instance_wakes_the_agent_stream_on_the_other(
    services: Services, pair: tuple[Services, Services]
) -> None:
    first, second = pair
    server = await make_server(services)
    link = AgentLink(server.id)
    first.agents.add(link)
    async with transaction(second.sessionmaker) as db:
        await second.operations.enqueue(db, server.id, OperationKind.REMOVE, {"remove_peers": []}, notify=False)
    await eventually(link.wake.is_set)
