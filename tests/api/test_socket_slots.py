"""The per-address socket cap with Redis: one count for every process, robust to a process that dies, and per
process while Redis is away. (Over /ws with two real processes: tests/multiprocess; one process: test_abuse.py.)"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis

from controlplane.realtime.slots import MemorySocketSlots, RedisSocketSlots
from controlplane.settings import RateLimit
from tests.api.test_fanout_redis import REDIS_URL
from tests.conftest import skip_or_fail

ADDRESS = "203.0.113.9"


@contextlib.contextmanager
def refusing_port() -> Iterator[int]:
    """A loopback port bound but not listening: connections are refused, and nobody else can take it meanwhile."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])


@pytest.fixture
async def redis() -> AsyncIterator[Redis]:
    client = Redis.from_url(REDIS_URL, socket_connect_timeout=3)
    try:
        await client.ping()
    except Exception as exc:
        await client.aclose()
        skip_or_fail(f"Redis not reachable at {REDIS_URL}: {exc}")
    yield client
    await client.aclose()


@pytest.fixture
def prefix() -> str:
    """A prefix of its own: other runs on this Redis keep their own counts."""
    return f"vpn-slots-{uuid.uuid4().hex[:8]}:"


async def test_sockets_on_two_processes_count_against_one_cap(redis: Redis, prefix: str) -> None:
    first, second = RedisSocketSlots(redis, prefix), RedisSocketSlots(redis, prefix)
    try:
        held = [await first.take(ADDRESS, 3), await second.take(ADDRESS, 3), await first.take(ADDRESS, 3)]
        assert all(held)
        assert await second.take(ADDRESS, 3) is None
        assert await first.take(ADDRESS, 3) is None
        assert await second.take("198.51.100.7", 3) is not None  # another address has its own count
        slot = held[0]
        assert slot is not None
        await first.give_back(slot)
        assert await second.take(ADDRESS, 3) is not None
    finally:
        await first.close()
        await second.close()


async def test_a_dead_process_stops_counting_once_stale_and_a_live_one_keeps_counting(
    redis: Redis, prefix: str
) -> None:
    live, dying, newcomer = (RedisSocketSlots(redis, prefix, refresh_seconds=0.2, stale_seconds=4) for _ in range(3))
    try:
        assert await live.take(ADDRESS, 3) is not None
        assert await dying.take(ADDRESS, 3) is not None
        assert await dying.take(ADDRESS, 3) is not None
        await dying.close()  # as if SIGKILLed: it stops refreshing and never gives its slots back
        assert await newcomer.take(ADDRESS, 3) is None
        async with asyncio.timeout(30):
            while await newcomer.take(ADDRESS, 3) is None:
                await asyncio.sleep(0.5)
        # The dead process's two slots went stale; the live process's slot (refreshed all along) still counts.
        assert await newcomer.take(ADDRESS, 3) is not None
        assert await newcomer.take(ADDRESS, 3) is None
    finally:
        for slots in (live, dying, newcomer):
            await slots.close()


async def test_with_redis_away_each_process_counts_its_own() -> None:
    with refusing_port() as port:
        unreachable = Redis.from_url(f"redis://127.0.0.1:{port}/0", socket_connect_timeout=1)
        slots = RedisSocketSlots(unreachable, "vpn-slots-away:")
        try:
            first, second = await slots.take(ADDRESS, 2), await slots.take(ADDRESS, 2)
            assert first is not None and second is not None
            assert await slots.take(ADDRESS, 2) is None
            await slots.give_back(first)
            assert await slots.take(ADDRESS, 2) is not None
            assert slots.held_here(ADDRESS) == 2
        finally:
            await slots.close()
            await unreachable.aclose()


async def test_sockets_arriving_together_get_the_verdicts_they_would_get_one_by_one(redis: Redis, prefix: str) -> None:
    """Takes of one moment go to Redis in one script (the reconnect storm after a restart): the cap still holds
    exactly, across both processes, and each address keeps its own count."""
    first, second = RedisSocketSlots(redis, prefix), RedisSocketSlots(redis, prefix)
    try:
        storm = [(first if n % 2 else second).take(ADDRESS, 7) for n in range(20)]
        storm += [first.take("198.51.100.7", 7) for _ in range(5)]
        verdicts = await asyncio.gather(*storm)
        assert sum(v is not None for v in verdicts[:20]) == 7
        assert all(v is not None for v in verdicts[20:])
        assert first.held_here(ADDRESS) + second.held_here(ADDRESS) == 7
        assert await redis.zcard(f"{prefix}ws:open:{ADDRESS}") == 7
    finally:
        await first.close()
        await second.close()


async def test_the_handshake_limit_counts_every_process_and_a_refused_socket_takes_no_slot(
    redis: Redis, prefix: str
) -> None:
    first, second = RedisSocketSlots(redis, prefix), RedisSocketSlots(redis, prefix)
    handshakes = RateLimit(4, 600)
    try:
        taken = [await first.take(ADDRESS, 10, handshakes) for _ in range(3)] + [
            await second.take(ADDRESS, 10, handshakes)
        ]
        assert all(taken)
        # Six places are free, but the address opened four sockets in this window (on two processes).
        assert await second.take(ADDRESS, 10, handshakes) is None
        assert await first.take(ADDRESS, 10, handshakes) is None
        assert await redis.zcard(f"{prefix}ws:open:{ADDRESS}") == 4
        slot = taken[0]
        assert slot is not None
        await first.give_back(slot)  # a closed socket frees a place, not a handshake
        assert await first.take(ADDRESS, 10, handshakes) is None
        assert await first.take("198.51.100.7", 10, handshakes) is not None  # another address has its own window
    finally:
        await first.close()
        await second.close()


async def test_a_socket_that_goes_away_while_waiting_for_its_slot_gives_it_back(redis: Redis, prefix: str) -> None:
    slots = RedisSocketSlots(redis, prefix)
    try:
        waiting = asyncio.create_task(slots.take(ADDRESS, 1))
        await asyncio.sleep(0)  # it joined the moment's batch
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        async with asyncio.timeout(30):  # the batch's answer comes, and the slot it took goes back
            while slots.held_here() or await redis.zcard(f"{prefix}ws:open:{ADDRESS}"):
                await asyncio.sleep(0.05)
        assert await slots.take(ADDRESS, 1) is not None
    finally:
        await slots.close()


async def test_with_redis_away_handshakes_are_counted_in_the_process_too() -> None:
    with refusing_port() as port:
        unreachable = Redis.from_url(f"redis://127.0.0.1:{port}/0", socket_connect_timeout=1)
        slots = RedisSocketSlots(unreachable, "vpn-slots-away:")
        try:
            together = await asyncio.gather(*(slots.take(ADDRESS, 2) for _ in range(3)))
            assert sum(v is not None for v in together) == 2  # one batch, still counted one by one
            assert await slots.take("198.51.100.7", 10, RateLimit(1, 600)) is not None
            assert await slots.take("198.51.100.7", 10, RateLimit(1, 600)) is None
        finally:
            await slots.close()
            await unreachable.aclose()


async def test_one_process_without_redis_counts_sockets_and_handshakes() -> None:
    slots = MemorySocketSlots()
    handshakes = RateLimit(3, 600)
    first = await slots.take(ADDRESS, 2, handshakes)
    assert first is not None and await slots.take(ADDRESS, 2, handshakes) is not None
    assert await slots.take(ADDRESS, 2, handshakes) is None  # the cap: not counted as a handshake
    await slots.give_back(first)
    assert await slots.take(ADDRESS, 2, handshakes) is not None  # the third handshake
    assert slots.held_here(ADDRESS) == 2
    another = await slots.take(ADDRESS, 5, handshakes)
    assert another is None  # a place is free, the window is full
