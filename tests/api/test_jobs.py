"""Scheduled jobs: expired peers are disabled and taken off their node; overdue operations end with an error;
each job runs in one process at a time."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from sqlalchemy import select, update

from controlplane.db import utcnow
from controlplane.domain.peers.models import Peer
from controlplane.jobs.scheduler import Jobs
from controlplane.nodes.changes import NodeChange
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.services import Services
from tests.api.factories import make_peer, make_server, make_user
from tests.api.test_fanout_redis import RecordingSocket


async def test_expired_peers_are_disabled_and_removed_from_their_node(services: Services) -> None:
    user = await make_user(services, "ana")
    server = await make_server(services)
    expired = await make_peer(services, user, "viejo", server)
    current = await make_peer(services, user, "nuevo", server)
    async with services.sessionmaker.begin() as db:
        await db.execute(update(Peer).where(Peer.id == expired.id).values(expiration_date=utcnow() - timedelta(1)))
        await db.execute(update(Peer).where(Peer.id == current.id).values(expiration_date=utcnow() + timedelta(1)))

    done = await Jobs(services).run_once("expire_peers", services.peers.expire_due, 30)
    assert done == 1
    async with services.sessionmaker() as db:
        peers = {p.name: p for p in (await db.execute(select(Peer))).scalars()}
        removal = (
            await db.execute(
                select(NodeOperation).where(NodeOperation.peer_id == expired.id, NodeOperation.kind == "disable")
            )
        ).scalar_one()
    assert peers["viejo"].active is False and peers["nuevo"].active is True
    assert removal.delta == NodeChange(remove_peers=(expired.public_key,))


async def test_an_operation_nobody_answers_ends_with_an_error_push(services: Services) -> None:
    user = await make_user(services, "ana")
    peer = await make_peer(services, user, "movil", await make_server(services))
    browser = RecordingSocket()
    services.hub.attach(user.id, browser)
    async with services.sessionmaker.begin() as db:
        await db.execute(update(NodeOperation).values(created=utcnow() - timedelta(hours=1)))

    await Jobs(services).run_once("operation_timeouts", services.operations.expire_overdue, 5)
    async with services.sessionmaker() as db:
        operation = (await db.execute(select(NodeOperation))).scalar_one()
        stored = await db.get(Peer, peer.id)
    assert operation.status is OperationStatus.FAILED and operation.error
    assert stored is not None and stored.pending_operation_id is None
    kinds = [m["type"] for m in browser.received]
    assert kinds == ["error", "updated_peer"]
    assert browser.received[1]["data"]["processing"] is False


async def test_a_job_runs_in_one_process_at_a_time(services: Services) -> None:
    calls: list[str] = []

    async def job(_: Any) -> int:
        calls.append("ran")
        await asyncio.sleep(0.05)
        return 0

    first, second = Jobs(services), Jobs(services)  # two processes' schedulers
    results = await asyncio.gather(first.run_once("demo", job, 30), second.run_once("demo", job, 30))
    assert calls == ["ran"]
    assert sorted(r is None for r in results) == [False, True]
    # The holder keeps its lease on the next tick; the other still may not run it.
    winner, loser = (first, second) if results[0] is not None else (second, first)
    assert await winner.run_once("demo", job, 30) == 0
    assert await loser.run_once("demo", job, 30) is None


async def test_overlapping_expiry_runs_disable_each_peer_once(services: Services) -> None:
    """Should a run outlast its lease and a second process start the same job, each peer is still disabled (and
    its removal queued) once."""
    from controlplane.db import transaction

    user = await make_user(services, "ana")
    server = await make_server(services)
    peers = [await make_peer(services, user, f"equipo{n}", server) for n in range(8)]
    async with services.sessionmaker.begin() as db:
        await db.execute(update(Peer).values(expiration_date=utcnow() - timedelta(minutes=1)))

    async def one_run() -> int:
        async with transaction(services.sessionmaker) as db:
            return await services.peers.expire_due(db)

    assert sum(await asyncio.gather(one_run(), one_run())) == len(peers)
    async with services.sessionmaker() as db:
        disables = (await db.execute(select(NodeOperation.peer_id).where(NodeOperation.kind == "disable"))).all()
    assert sorted(row.peer_id for row in disables) == sorted(p.id for p in peers)


async def test_the_lease_outlasts_a_short_interval_so_a_slow_run_is_not_doubled(services: Services) -> None:
    first, second = Jobs(services), Jobs(services)

    async def job(_db: Any) -> int:
        return 0

    assert await first.run_once("short", job, 0.5) == 0
    await asyncio.sleep(1.0)  # twice the interval: a lease of 0.9 x interval would have run out
    assert await second.run_once("short", job, 0.5) is None
    assert await first.run_once("short", job, 0.5) == 0  # the holder renews it
