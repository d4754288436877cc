"""The browser tests' node agents: the demo's simulated node without traffic (controlplane/demo/node.py).

The browser layer checks what a customer sees (the push arriving, the toast, the list updating); the real agent's
WireGuard work is covered by tests/netns.

Given a `reports` queue, the agent also sends the reports a test scripts at once over its real gRPC stream, between
its usual empty stats reports every few seconds: stats (lists of PeerStats: one peer's endpoint alternating as two
devices make it, device-insight.e2e.ts) and discovery reports (a DiscoveryReport: the games a room member hosts, as
the real agent's recognition summarizes them, lobby.e2e.ts).
"""

from __future__ import annotations

import asyncio

from controlplane.demo.node import STATS_SECONDS, _SimulatedNode, run_simulated_node
from protos import agent_pb2

VERSION = "browser-tests"
Reports = asyncio.Queue[list[agent_pb2.PeerStats] | agent_pb2.DiscoveryReport]


async def run_scripted_agent(
    target: str, node_id: str, credential: str, reports: Reports | None = None, node: ReportingNode | None = None
) -> None:
    """`node`: one kept by the caller across restarts (its held answers, its queue of reports)."""
    if node is None and reports is not None:
        node = ReportingNode(reports)
    await run_simulated_node(target, node_id, credential, version=VERSION, node=node)


# What a node answers for a change it refuses (`ReportingNode.refusing`), as the agent words a WireGuard failure.
REFUSED = "wg set: Cannot allocate memory"


class ReportingNode(_SimulatedNode):
    """Also, while `holding`, applies what it is sent but keeps its answers (the operations stay pending on the
    control plane, as with a slow node) until `release`; and answers the next change adding a peer whose key is in
    `refusing` with a failure (`REFUSED`), once per key."""

    def __init__(self, reports: Reports) -> None:
        super().__init__(traffic=False)
        self.reports = reports
        self.holding = False
        self.refusing: set[str] = set()
        self._held: list[agent_pb2.AgentMessage] = []
        self._outbox: asyncio.Queue[agent_pb2.AgentMessage | None] | None = None

    def _apply(self, message: agent_pb2.ControlMessage, outbox: asyncio.Queue[agent_pb2.AgentMessage | None]) -> None:
        self._outbox = outbox
        if message.WhichOneof("payload") == "delta":
            refused = self.refusing & {peer.public_key for peer in message.delta.upsert_peers}
            if refused:
                self.refusing -= refused
                delta = message.delta
                result = agent_pb2.OperationResult(
                    operation_id=delta.operation_id, serial=delta.serial, ok=False, error=REFUSED
                )
                outbox.put_nowait(agent_pb2.AgentMessage(result=result))
                return
        if not self.holding:
            super()._apply(message, outbox)
            return
        answers: asyncio.Queue[agent_pb2.AgentMessage | None] = asyncio.Queue()
        super()._apply(message, answers)
        while not answers.empty():
            answer = answers.get_nowait()
            if answer is not None:
                self._held.append(answer)

    def release(self) -> None:
        """Stop holding; the answers kept go out on the current stream (a stream since ended got a full state)."""
        self.holding = False
        held, self._held = self._held, []
        if self._outbox is not None:
            for answer in held:
                self._outbox.put_nowait(answer)

    async def _report(self, outbox: asyncio.Queue[agent_pb2.AgentMessage | None]) -> None:
        while True:
            try:
                report = await asyncio.wait_for(self.reports.get(), timeout=STATS_SECONDS)
            except TimeoutError:
                report = []  # the usual report: the node is alive
            if isinstance(report, agent_pb2.DiscoveryReport):
                outbox.put_nowait(agent_pb2.AgentMessage(discovery=report))
            else:
                outbox.put_nowait(agent_pb2.AgentMessage(stats=agent_pb2.StatsReport(peers=report)))
