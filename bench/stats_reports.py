"""Benchmark: what nodes' stats reports cost the control plane (docs/agent-protocol.md, "Stats").

Two nodes of BENCH_PEERS peers each (2 000 by default), spread over a third as many customers, report every 5 s.
A tenth of the peers are active (their counters move every report, a new handshake every two minutes); the others
are idle, as most of a VPN's devices are at any moment. Node A reports every peer every time, as agents before
this version did; node B's reports come from the agent's own StatsReporter (node_agent/stats.py): the peers that
changed, and every peer once a minute. Both go through the control plane's real report handling (the usage meter,
room presence, the shared-configuration watch, the pushes to owners and staff) on the real bus through Redis,
alternating report by report so that the host's load falls on both alike.

Figures: the control plane's CPU per report of each kind, the lines, bytes and bus events of each, and the CPU
scaled to a million peers on 1 000 nodes reporting every 5 s (CPU-seconds per second). Target: under one
CPU-second a second for the reports of a million peers, half of this 2-core host, so that one process keeps the
other half for its requests (a deployment of that size runs several: docs/deployment.md). VPN_BENCH_DATABASE_URL
runs it on PostgreSQL. Needs Redis on 127.0.0.1:6379 (VPN_BENCH_REDIS_URL to change).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from datetime import timedelta

from common import database_name, deployment, redis_env, result
from seed import customers_with_tokens, servers_with_peers
from sqlalchemy import select, update

from controlplane import db as cp_db
from controlplane.app import tune_garbage_collection
from controlplane.domain.peers.models import Peer
from controlplane.realtime.topics import STAFF_PUSH, USER_PUSH, USER_PUSHES, StaffPush, UserPush, UserPushes
from node_agent.backends.base import PeerStat
from node_agent.stats import StatsReporter, line
from protos import agent_pb2
from tests.clock import ManualClock

PEERS = int(os.environ.get("BENCH_PEERS", "2000"))
PEERS_PER_CUSTOMER = 3
ACTIVE = 0.10
INTERVAL = 5.0
# A minute of reports first: the first report of a peer the control plane has not counted yet reads its stored
# counters (domain/usage/meter.py), once per process; the figure is the steady state after it.
WARM_UP = 12
REPORTS = 36  # three minutes of reports: three complete ones from node B
MILLION, NODES = 1_000_000, 1_000
TARGET_CORES = 1.0


class Device:
    """A node's peers as its WireGuard device shows them, moving on by one report interval at each `tick`."""

    def __init__(self, keys: list[str], start: float) -> None:
        self.now = start
        active = int(len(keys) * ACTIVE)
        # Idle peers: connected long ago or never; active ones shook hands within the last two minutes.
        self.stats = [
            PeerStat(k, int(start) - (i % 120) if i < active else (0 if i % 3 else int(start) - 86_400), 0, 0, "")
            for i, k in enumerate(keys)
        ]
        self.endpoints = [f"198.51.100.{i % 250}:{40_000 + i % 20_000}" if i < active else "" for i in range(len(keys))]
        self.active = active

    def tick(self) -> list[PeerStat]:
        self.now += INTERVAL
        for i in range(self.active):
            s = self.stats[i]
            handshake = int(self.now) if self.now - s.latest_handshake >= 120 else s.latest_handshake
            self.stats[i] = PeerStat(
                s.public_key, handshake, s.rx_bytes + 1_500 + i, s.tx_bytes + 40_000 + i, self.endpoints[i]
            )
        return list(self.stats)


def every_peer(stats: list[PeerStat]) -> agent_pb2.StatsReport:
    """A report as agents before this version sent it: every peer, no totals."""
    return agent_pb2.StatsReport(peers=[line(s) for s in stats])


def round_robin(items: list[str]) -> Iterator[str]:
    while True:
        yield from items


async def main() -> None:
    redis = await redis_env()
    if redis is None:
        result("stats reports at 1 000 000 peers", "not measured (no Redis)", f"< {TARGET_CORES:.0f} CPU-s/s", None)
        return
    async with deployment(redis) as dep:
        services = dep.services()
        try:
            customers = [user_id for user_id, _ in await customers_with_tokens(services, PEERS // PEERS_PER_CUSTOMER)]
            nodes = await servers_with_peers(services, customers[0], 2, PEERS)
            owners = round_robin(customers)
            keys: dict[str, list[str]] = {}
            async with services.sessionmaker.begin() as db:
                for server_id, _ in nodes:
                    rows = (await db.execute(select(Peer.id, Peer.public_key).where(Peer.server_id == server_id))).all()
                    keys[server_id] = [k for _, k in rows]
                    await db.execute(update(Peer), [{"id": pid, "user_id": next(owners)} for pid, _ in rows])
            await services.bus.start()
            tune_garbage_collection()  # as the control plane's process does once started
            published = {"user": 0}
            marker = asyncio.Queue[int]()

            async def count_user(_event: UserPush) -> None:
                published["user"] += 1

            async def count_users(_event: UserPushes) -> None:
                published["user"] += 1

            async def staff(event: StaffPush) -> None:
                if event.push.get("type") == "bench_marker":
                    marker.put_nowait(event.push["n"])

            services.bus.subscribe(USER_PUSH, count_user)
            services.bus.subscribe(USER_PUSHES, count_users)
            services.bus.subscribe(STAFF_PUSH, staff)
            clock = ManualClock(cp_db.system_time())
            previous, cp_db.clock = cp_db.clock, clock
            (a, _), (b, _) = nodes
            start = clock().timestamp()
            devices = {a: Device(keys[a], start), b: Device(keys[b], start)}
            reporter = StatsReporter(clock=lambda: devices[b].now)
            cpu = {a: 0.0, b: 0.0}
            messages = {a: 0, b: 0}
            lines = {a: 0, b: 0}
            size = {a: 0, b: 0}
            sent = 0
            try:
                for n in range(WARM_UP + REPORTS):
                    clock.advance(timedelta(seconds=INTERVAL))
                    for server_id in (a, b):
                        stats = devices[server_id].tick()
                        report = every_peer(stats) if server_id == a else reporter.report(1, stats)
                        before, users_before = time.process_time(), published["user"]
                        await services.agent_sessions.stats(server_id, report)
                        # Until the bus has brought this report's pushes back to this process as well: Redis keeps
                        # the order of one connection's messages, so the marker arrives after them.
                        sent += 1
                        await services.bus.publish(STAFF_PUSH, StaffPush({"type": "bench_marker", "n": sent}))
                        while await marker.get() != sent:
                            pass
                        if n < WARM_UP:
                            continue
                        cpu[server_id] += time.process_time() - before
                        messages[server_id] += published["user"] - users_before
                        lines[server_id] += len(report.peers)
                        size[server_id] += report.ByteSize()
            finally:
                cp_db.clock = previous
        finally:
            await services.close()
    load = f"{os.getloadavg()[0]:.2f}"
    scale = MILLION / PEERS / INTERVAL  # reports a second from a million peers' nodes
    per_report = {k: v / REPORTS for k, v in cpu.items()}
    cores = {k: v * scale for k, v in per_report.items()}
    for name, server_id in (("every peer", a), ("changes", b)):
        print(
            f"{database_name()}, {name}: {per_report[server_id] * 1000:.1f} ms CPU per report of {PEERS} peers; "
            f"per report {lines[server_id] / REPORTS:.0f} lines, {size[server_id] / REPORTS / 1000:.1f} kB from the "
            f"agent, {messages[server_id] / REPORTS:.0f} bus events for customers; "
            f"at a million peers {cores[server_id]:.2f} CPU-s/s",
            flush=True,
        )
    result(
        f"stats reports at 1 000 000 peers, {ACTIVE:.0%} active ({database_name()})",
        f"{cores[b]:.2f} CPU-s/s ({cores[a]:.2f} when every peer is sent; load {load})",
        f"< {TARGET_CORES:.0f} CPU-s/s",
        cores[b] < TARGET_CORES,
    )


if __name__ == "__main__":
    asyncio.run(main())
