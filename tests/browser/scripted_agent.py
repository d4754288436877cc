"""The browser tests' node agents: the demo's simulated node without traffic (controlplane/demo/node.py).

The browser layer checks what a customer sees (the push arriving, the toast, the list updating); the real agent's
WireGuard work is covered by tests/netns.

Given a `reports` queue, the agent also sends the stats reports a test scripts (lists of PeerStats: one peer's
endpoint alternating as two devices make it, device-insight.e2e.ts) at once over its real gRPC stream, between its
usual empty reports every few seconds.
"""

from __future__ import annotations

import asyncio

from controlplane.demo.node import STATS_SECONDS, _SimulatedNode, run_simulated_node
from protos import agent_pb2

VERSION = "browser-tests"
Reports = asyncio.Queue[list[agent_pb2.PeerStats]]


async def run_scripted_agent(target: str, node_id: str, credential: str, reports: Reports | None = None) -> None:
    node = _ReportingNode(reports) if reports is not None else None
    await run_simulated_node(target, node_id, credential, version=VERSION, node=node)


class _ReportingNode(_SimulatedNode):
    def __init__(self, reports: Reports) -> None:
        super().__init__(traffic=False)
        self.reports = reports

    async def _report(self, outbox: asyncio.Queue[agent_pb2.AgentMessage | None]) -> None:
        while True:
            try:
                peers = await asyncio.wait_for(self.reports.get(), timeout=STATS_SECONDS)
            except TimeoutError:
                peers = []  # the usual report: the node is alive
            outbox.put_nowait(agent_pb2.AgentMessage(stats=agent_pb2.StatsReport(peers=peers)))
