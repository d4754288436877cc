"""Benchmark: what usage history adds to a node's stats report (docs/usage.md, "Counting").

One node with BENCH_PEERS peers (2 000 by default) reports every 5 s, each peer's counters growing. The agents'
servicer handles the same reports twice in one run, without and with the usage meter (alternating, so the machine's
load falls on both alike); the control plane's clock moves 5 s per report, so the meter writes once every 12
reports as it would in a minute. Figure: CPU time per report with usage over CPU time without (target: at most
2 ×), and the usage rows written per report. VPN_BENCH_DATABASE_URL runs it on PostgreSQL (bench/common.py).
"""

from __future__ import annotations

import asyncio
import os
import time
from datetime import timedelta

from common import database_name, deployment, result
from seed import customers_with_tokens, servers_with_peers
from sqlalchemy import func, select

from controlplane import db as cp_db
from controlplane.domain.peers.models import Peer
from controlplane.domain.usage.meter import UsageMeter
from controlplane.domain.usage.models import PeerUsageHour
from controlplane.nodes.agent_sessions import AgentSessions
from protos import agent_pb2
from tests.clock import ManualClock

PEERS = int(os.environ.get("BENCH_PEERS", "2000"))
REPORTS = 48  # four minutes of reports, four writes
TARGET_RATIO = 2.0


async def main() -> None:
    async with deployment() as dep:
        services = dep.services()
        try:
            [(user_id, _)] = await customers_with_tokens(services, 1)
            [(server_id, _)] = await servers_with_peers(services, user_id, 1, PEERS)
            async with services.sessionmaker() as session:
                keys = list((await session.execute(select(Peer.public_key))).scalars())

            def servicer(meter: UsageMeter | None) -> AgentSessions:
                return AgentSessions(
                    services.sessionmaker,
                    services.read_sessionmaker,
                    services.box,
                    services.servers,
                    services.operations,
                    services.hub,
                    usage=meter,
                )

            plain, metered = servicer(None), servicer(UsageMeter())
            clock = ManualClock(cp_db.system_time())
            previous, cp_db.clock = cp_db.clock, clock
            cpu = {"plain": 0.0, "metered": 0.0}
            try:
                for n in range(1, REPORTS + 1):
                    clock.advance(timedelta(seconds=5))
                    report = agent_pb2.StatsReport(
                        peers=[
                            agent_pb2.PeerStats(public_key=k, rx_bytes=n * 1000 + i, tx_bytes=n * 50_000 + i)
                            for i, k in enumerate(keys)
                        ]
                    )
                    for name, node in (("plain", plain), ("metered", metered)):
                        started = time.process_time()
                        await node.stats(server_id, report)
                        cpu[name] += time.process_time() - started
            finally:
                cp_db.clock = previous
            async with services.sessionmaker() as session:
                rows = await session.scalar(select(func.count()).select_from(PeerUsageHour)) or 0
        finally:
            await services.close()
    ratio = cpu["metered"] / cpu["plain"]
    load = f"{os.getloadavg()[0]:.2f}"
    print(
        f"{database_name()}: {PEERS} peers, {REPORTS} reports; CPU per report {cpu['plain'] / REPORTS * 1000:.1f} ms "
        f"without usage, {cpu['metered'] / REPORTS * 1000:.1f} ms with; {rows} hourly rows (load {load})",
        flush=True,
    )
    result(
        f"stats report with usage history, {PEERS} peers ({database_name()})",
        f"{ratio:.2f} × the CPU without (load {load})",
        f"≤ {TARGET_RATIO:.0f} ×",
        ratio <= TARGET_RATIO,
    )


if __name__ == "__main__":
    asyncio.run(main())
