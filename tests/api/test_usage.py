"""Usage history (docs/usage.md): counted from the agents' cumulative counters, once, across resets, restarts and
hand-overs between processes; shown to the owner only; rolled up into days and dropped after a year."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select

from controlplane.db import transaction, utcnow
from controlplane.domain.accounts.models import Role
from controlplane.domain.peers.models import Peer
from controlplane.domain.usage.meter import Reading, UsageMeter, hour_of
from controlplane.domain.usage.models import PeerUsageDay, PeerUsageHour, ServerUsageDay
from controlplane.domain.usage.store import add_hours, roll_up
from controlplane.nodes.agent_sessions import AgentSessions
from controlplane.services import Services
from protos import agent_pb2
from tests.api.factories import bearer, login, make_peer, make_server, make_user
from tests.clock import ManualClock, manual_clock

MB = 1_000_000
START = datetime(2026, 11, 10, 12, 0, 5, tzinfo=UTC)


def node_process(services: Services, meter: UsageMeter | None = None) -> AgentSessions:
    """The stats side of one control-plane process; a new meter stands for a restarted (or another) process."""
    return AgentSessions(
        services.sessionmaker,
        services.read_sessionmaker,
        services.box,
        services.servers,
        services.operations,
        services.hub,
        usage=meter or UsageMeter(),
    )


async def report(node: AgentSessions, server_id: str, *peers: tuple[Peer, int, int]) -> None:
    """One stats report: (peer, cumulative bytes the node received from it, bytes it sent to it)."""
    lines = [agent_pb2.PeerStats(public_key=p.public_key, rx_bytes=rx, tx_bytes=tx) for p, rx, tx in peers]
    await node.stats(server_id, agent_pb2.StatsReport(serial=1, peers=lines))


async def usage(client: AsyncTestClient[Any], headers: dict[str, str], peer: Peer, range_: str = "30d") -> Any:
    answer = await client.get(f"/api/client/accounts/peers/{peer.id}/usage", params={"range": range_}, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def month(client: AsyncTestClient[Any], headers: dict[str, str]) -> dict[str, tuple[int, int]]:
    answer = await client.get("/api/client/accounts/usage", headers=headers)
    assert answer.status_code == 200, answer.text
    return {row["peer"]: (row["download"], row["upload"]) for row in answer.json()}


async def setup(services: Services, client: AsyncTestClient[Any]) -> tuple[Any, Peer, dict[str, str]]:
    server = await make_server(services)
    ana = await make_user(services, "ana")
    peer = await make_peer(services, ana, "movil", server)
    return server, peer, bearer(await login(client, "ana"))


async def test_a_peers_usage_is_counted_from_its_counters_once_a_minute(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    server, peer, headers = await setup(services, client)  # sessions live in real time, the meter in the test's
    with manual_clock(START) as clock:
        node = node_process(services)
        await report(node, server.id, (peer, 5 * MB, 50 * MB))  # the first report: where counting starts
        for step in range(1, 12):  # a report every 5 s: added up in memory, not written
            clock.advance(timedelta(seconds=5))
            await report(node, server.id, (peer, (5 + step) * MB, (50 + 10 * step) * MB))
        async with services.sessionmaker() as db:
            assert await db.scalar(select(func.count()).select_from(PeerUsageHour)) == 0
        clock.advance(timedelta(seconds=5))
        await report(node, server.id, (peer, 17 * MB, 170 * MB))  # a minute after the last write: written
        shown = await usage(client, headers, peer, "24h")
        assert shown["bucket"] == "hour" and len(shown["points"]) == 24
        assert (shown["download"], shown["upload"]) == (120 * MB, 12 * MB)
        assert shown["points"][-1] == {"start": "2026-11-10T12:00:00Z", "download": 120 * MB, "upload": 12 * MB}
        assert (await month(client, headers))[peer.id] == (120 * MB, 12 * MB)


async def test_a_counter_that_goes_down_counts_its_new_value_and_nothing_is_counted_twice_after_a_restart(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    meter = UsageMeter(flush_seconds=0)
    server, peer, headers = await setup(services, client)
    with manual_clock(START) as clock:
        node = node_process(services, meter)
        await report(node, server.id, (peer, 1 * MB, 10 * MB))
        clock.advance(timedelta(seconds=5))
        await report(node, server.id, (peer, 2 * MB, 30 * MB))  # +1, +20
        clock.advance(timedelta(seconds=5))
        await report(node, server.id, (peer, 1 * MB, 4 * MB))  # the agent restarted: counters from zero, +1, +4
        # The control plane restarts: a new process, nothing in memory. The same counters are not counted again.
        restarted = node_process(services, UsageMeter(flush_seconds=0))
        clock.advance(timedelta(seconds=5))
        await report(restarted, server.id, (peer, 1 * MB, 4 * MB))
        clock.advance(timedelta(hours=1))
        await report(restarted, server.id, (peer, 3 * MB, 14 * MB))  # +2, +10 in the next hour
        shown = await usage(client, headers, peer, "24h")
        assert (shown["download"], shown["upload"]) == (34 * MB, 4 * MB)
        assert [(p["download"], p["upload"]) for p in shown["points"][-2:]] == [(24 * MB, 2 * MB), (10 * MB, 2 * MB)]


async def test_two_processes_that_both_saw_a_node_during_a_hand_over_count_its_bytes_once(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    server, peer, headers = await setup(services, client)
    with manual_clock(START) as clock:
        first, second = node_process(services), node_process(services, UsageMeter(flush_seconds=0))
        await report(first, server.id, (peer, 0, 0))
        clock.advance(timedelta(seconds=70))
        await report(first, server.id, (peer, 1 * MB, 10 * MB))  # written: 10 MB down
        clock.advance(timedelta(seconds=20))
        await report(first, server.id, (peer, 2 * MB, 30 * MB))  # +20 pending in the first process
        # The agent reconnects to the second process, which starts from the stored 10 MB and writes +30 at once.
        clock.advance(timedelta(seconds=5))
        await report(second, server.id, (peer, 3 * MB, 40 * MB))
        # The first notices its stream is gone only now: its +20 are inside the second's +30, not added again.
        clock.advance(timedelta(seconds=5))
        await first._usage.node_closed(services.sessionmaker, server.id)  # type: ignore[union-attr]
        assert (await usage(client, headers, peer, "24h"))["download"] == 40 * MB
        clock.advance(timedelta(seconds=65))
        await report(second, server.id, (peer, 4 * MB, 45 * MB))
        assert (await month(client, headers))[peer.id] == (45 * MB, 4 * MB)


async def test_a_late_write_of_an_earlier_part_keeps_only_what_lies_beyond_it(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    server, peer, headers = await setup(services, client)
    with manual_clock(START) as clock:
        first, second = node_process(services, UsageMeter(flush_seconds=0)), node_process(services)
        await report(first, server.id, (peer, 0, 0))  # stored: 0
        clock.advance(timedelta(seconds=70))
        await report(second, server.id, (peer, 0, 0))  # the second starts from the stored 0, writes a minute later
        clock.advance(timedelta(seconds=5))
        await report(first, server.id, (peer, 0, 10 * MB))  # the first still receives a report: +10 written
        clock.advance(timedelta(seconds=70))
        await report(second, server.id, (peer, 0, 25 * MB))  # +25 since its start, but 10 were counted: +15
        assert (await month(client, headers))[peer.id] == (25 * MB, 0)


async def test_a_moved_or_rekeyed_peer_counts_its_new_devices_counters_from_zero(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    meter = UsageMeter(flush_seconds=0)
    server, peer, headers = await setup(services, client)
    with manual_clock(START) as clock:
        node = node_process(services, meter)
        await report(node, server.id, (peer, 0, 100 * MB))
        clock.advance(timedelta(seconds=5))
        await report(node, server.id, (peer, 0, 300 * MB))  # +200
        async with services.sessionmaker.begin() as db:  # a new key, as a committed rotation leaves it
            rotated = await db.get(Peer, peer.id)
            assert rotated is not None
            rotated.public_key = "B" * 43 + "="
        clock.advance(timedelta(seconds=5))
        await report(node, server.id, (rotated, 0, 500 * MB))  # higher, but a new device: all 500 are new
        assert (await month(client, headers))[peer.id] == (700 * MB, 0)


async def test_only_the_owner_sees_a_peers_usage_and_a_bad_range_is_refused_in_spanish(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    _, peer, _ = await setup(services, client)
    await make_user(services, "beto")
    beto = bearer(await login(client, "beto"))
    answer = await client.get(f"/api/client/accounts/peers/{peer.id}/usage", headers=beto)
    assert answer.status_code == 404 and answer.json()["message"] == "Peer no encontrado."
    assert await month(client, beto) == {}
    ana = bearer(await login(client, "ana"))
    bad = await client.get(f"/api/client/accounts/peers/{peer.id}/usage", params={"range": "5y"}, headers=ana)
    assert bad.status_code == 422
    assert bad.json()["fields"] == {"range": "El valor no es válido."}
    assert (await client.get(f"/api/client/accounts/peers/{peer.id}/usage")).status_code == 401


async def seed_hours(services: Services, peer: Peer, clock: ManualClock, days: int) -> None:
    """1 MB down every hour for `days` days, as the meter writes them (counting itself is tested above)."""
    hours = [hour_of(clock.now) + timedelta(hours=h) for h in range(1, days * 24 + 1)]
    async with services.sessionmaker.begin() as db:
        await add_hours(
            db,
            [{"peer_id": peer.id, "hour": hour, "rx": 0, "tx": MB} for hour in hours],
            [{"server_id": peer.server_id, "hour": hour, "rx": 0, "tx": MB} for hour in hours],
        )
    clock.now = hours[-1] + timedelta(seconds=5)


async def test_hours_older_than_30_days_become_days_and_days_older_than_a_year_go(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    _, peer, headers = await setup(services, client)
    with manual_clock(START) as clock:
        await seed_hours(services, peer, clock, days=40)
        before = await usage(client, headers, peer, "1y")
        async with services.sessionmaker.begin() as db:
            assert await roll_up(db, clock.now) > 0
        async with services.sessionmaker() as db:
            oldest_hour = await db.scalar(select(func.min(PeerUsageHour.hour)))
            assert oldest_hour is not None and clock.now - oldest_hour <= timedelta(days=31)
            days = (await db.execute(select(PeerUsageDay.day, PeerUsageDay.tx))).all()
            assert days and all(tx <= 24 * MB for _, tx in days)  # whole days at most
            assert await db.scalar(select(func.count()).select_from(ServerUsageDay)) == len(days)
        # The same bytes, however they are stored: nothing lost, nothing counted twice.
        after = await usage(client, headers, peer, "1y")
        assert after["download"] == before["download"] == 40 * 24 * MB
        assert after["points"] == before["points"]
        thirty = await usage(client, headers, peer, "30d")
        assert thirty["bucket"] == "day" and len(thirty["points"]) == 30
        assert thirty["points"][-2]["download"] == 24 * MB
        # A year and a bit later, the old days are gone.
        clock.advance(timedelta(days=400))
        async with services.sessionmaker.begin() as db:
            await roll_up(db, clock.now)
        async with services.sessionmaker() as db:
            assert await db.scalar(select(func.count()).select_from(PeerUsageDay)) == 0
            assert await db.scalar(select(func.count()).select_from(PeerUsageHour)) == 0


async def test_the_manager_overview_shows_this_months_traffic_per_server_and_in_total(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    miami = await make_server(services, "Miami 1", "10.8.0.0/24")
    madrid = await make_server(services, "Madrid 1", "10.9.0.0/24")
    ana = await make_user(services, "ana")
    on_miami, on_madrid = await make_peer(services, ana, "movil", miami), await make_peer(services, ana, "pc", madrid)
    await make_user(services, "jefa", role=Role.ADMIN)
    staff = bearer(await login(client, "jefa", admin=True))
    node = node_process(services, UsageMeter(flush_seconds=0))
    await report(node, miami.id, (on_miami, 0, 0))
    await report(node, madrid.id, (on_madrid, 0, 0))
    await report(node, miami.id, (on_miami, 1 * MB, 10 * MB))
    await report(node, madrid.id, (on_madrid, 2 * MB, 20 * MB))
    # A deleted peer's bytes stay in its server's figures.
    async with services.sessionmaker.begin() as db:
        await db.delete(await db.get(Peer, on_madrid.id))
    overview = (await client.get("/api/admin/overview", headers=staff)).json()
    figures = {row["name"]: (row["download"], row["upload"]) for row in overview["usage"]["servers"]}
    assert figures == {"Madrid 1": (20 * MB, 2 * MB), "Miami 1": (10 * MB, 1 * MB)}
    assert (overview["usage"]["download"], overview["usage"]["upload"]) == (30 * MB, 3 * MB)
    assert overview["usage"]["days"][-1]["download"] == 30 * MB


async def test_bytes_of_a_stats_transaction_that_rolled_back_are_counted_by_the_next_report(
    services: Services, client: AsyncTestClient[Any]
) -> None:
    """The report's transaction failed after the meter wrote (the database refused another of its writes): nothing
    of it stays, and the next report counts those bytes from the counters that were really stored."""
    server, peer, headers = await setup(services, client)
    meter = UsageMeter(flush_seconds=0)

    async def one_report(tx: int) -> None:
        async with transaction(services.sessionmaker) as db:
            await meter.record(db, server.id, {peer.id: Reading(peer.public_key, 0, tx)}, utcnow())

    class ReportFailed(Exception):
        pass

    with manual_clock(START) as clock:
        await one_report(0)  # stored: 0
        clock.advance(timedelta(seconds=5))
        await one_report(10 * MB)  # +10
        clock.advance(timedelta(seconds=5))
        with pytest.raises(ReportFailed):
            async with transaction(services.sessionmaker) as db:
                await meter.record(db, server.id, {peer.id: Reading(peer.public_key, 0, 30 * MB)}, utcnow())
                raise ReportFailed()
        assert (await month(client, headers))[peer.id] == (10 * MB, 0)
        clock.advance(timedelta(seconds=5))
        await one_report(35 * MB)  # +25: the 20 of the failed report and 5 more
        assert (await month(client, headers))[peer.id] == (35 * MB, 0)
