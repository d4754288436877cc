"""The hashing queue (controlplane/passwords.py, HashGate): customers' logins go first, and when the queue is full a
customer takes the place of a login for an unknown name, never the other way round (docs/security.md, "Login
storms")."""

from __future__ import annotations

import asyncio

import pytest

from controlplane.errors import TooManyRequests
from controlplane.passwords import HashGate, Priority


async def queued(gate: HashGate, waiting: int) -> None:
    async with asyncio.timeout(10):
        while gate.waiting < waiting:
            await asyncio.sleep(0)


async def test_turns_go_by_priority_then_by_arrival() -> None:
    gate = HashGate(concurrent=1, queue_seconds=30)
    served: list[str] = []

    async def login(name: str, priority: Priority) -> None:
        async with gate.turn(priority):
            served.append(name)

    async with gate.turn():  # another hash holds the one turn
        tasks = []
        for name, priority in [
            ("nadie1", Priority.UNKNOWN),
            ("ana", Priority.KNOWN),
            ("nadie2", Priority.UNKNOWN),
            ("beto", Priority.RETURNING),
            ("carla", Priority.KNOWN),
        ]:
            tasks.append(asyncio.create_task(login(name, priority)))
            await queued(gate, len(tasks))
    await asyncio.gather(*tasks)
    assert served == ["beto", "ana", "carla", "nadie1", "nadie2"]


async def test_a_full_queue_refuses_the_newest_unknown_name_in_favour_of_a_customer() -> None:
    gate = HashGate(concurrent=1, queue_seconds=30, max_waiting=2)
    served: list[str] = []

    async def login(name: str, priority: Priority) -> None:
        async with gate.turn(priority):
            served.append(name)

    async with gate.turn():
        first = asyncio.create_task(login("nadie1", Priority.UNKNOWN))
        await queued(gate, 1)
        newest = asyncio.create_task(login("nadie2", Priority.UNKNOWN))
        await queued(gate, 2)
        ana = asyncio.create_task(login("ana", Priority.KNOWN))
        with pytest.raises(TooManyRequests):
            await newest  # refused in ana's stead
        await queued(gate, 2)
        with pytest.raises(TooManyRequests):  # full of callers no lower than it: refused at once
            await login("nadie3", Priority.UNKNOWN)
    await asyncio.gather(first, ana)
    assert served == ["ana", "nadie1"]


async def test_a_caller_that_waits_too_long_is_refused_and_leaves_no_turn_behind() -> None:
    gate = HashGate(concurrent=1, queue_seconds=0.05)
    async with gate.turn():
        with pytest.raises(TooManyRequests):
            async with gate.turn():
                pass
    assert gate.waiting == 0
    async with asyncio.timeout(5), gate.turn():  # the turn is free again
        pass
