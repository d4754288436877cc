"""A simulated node for the demo (and the browser tests): speaks the real agent protocol over gRPC, applies nothing.

It answers every FullState and Delta with ok and, every few seconds, reports stats. With `traffic` on (the demo)
each of its peers shows a recent handshake and growing byte counters, so the customer's page has live figures to
show; without it (browser tests) the reports are empty and only keep the node online. It says `backend="demo"`,
which the manager's server list shows beside the agent version (docs/deployment.md, "The demo").
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator

import grpc

from controlplane.wgkeys import generate_keypair
from protos import agent_pb2, agent_pb2_grpc

DEMO_BACKEND = "demo"
STATS_SECONDS = 5.0  # like the real agent: servers silent for 45 s count as down


async def run_simulated_node(
    target: str,
    node_id: str,
    credential: str,
    *,
    traffic: bool = False,
    version: str = "demo (nodo simulado)",
    public_key: str | None = None,
    node: _SimulatedNode | None = None,
) -> None:
    """Hello, then answer every FullState and Delta with ok; reconnect after a second if the stream ends. A node
    reporting a new public key changes its peers' configuration files, so the demo passes a kept one. `node`: one
    that reports otherwise (the browser tests' scripted reports); `traffic` is then its own business."""
    node = node or _SimulatedNode(traffic)
    public_key = public_key or generate_keypair()[1]
    while True:
        try:
            await node.one_stream(target, node_id, credential, public_key, version)
        except grpc.aio.AioRpcError:
            stop_if_cancelled()
        await asyncio.sleep(1)


def stop_if_cancelled() -> None:
    """For loops that dial again on AioRpcError: gRPC may report a cancellation that lands mid-call as an AioRpcError
    (CANCELLED), and a task that swallowed it would never stop (a test's agent.stop() once waited forever)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class _SimulatedNode:
    def __init__(self, traffic: bool) -> None:
        self.traffic = traffic
        self.counters: dict[str, list[int]] = {}  # public key -> [rx, tx], kept across reconnections

    async def one_stream(self, target: str, node_id: str, credential: str, public_key: str, version: str) -> None:
        async with grpc.aio.insecure_channel(target) as channel:
            stub = agent_pb2_grpc.NodeControlStub(channel)
            outbox: asyncio.Queue[agent_pb2.AgentMessage | None] = asyncio.Queue()
            hello = agent_pb2.Hello(
                node_id=node_id, credential=credential, agent_version=version, backend=DEMO_BACKEND,
                public_key=public_key,
            )  # fmt: skip
            outbox.put_nowait(agent_pb2.AgentMessage(hello=hello))

            async def requests() -> AsyncIterator[agent_pb2.AgentMessage]:
                # Ends at the None put when the stream ends: gRPC's task reading it would otherwise wait forever,
                # and asyncio.run's last cancellation of that task never finishes (the demo hung on Ctrl+C).
                while (message := await outbox.get()) is not None:
                    yield message

            ticker = asyncio.create_task(self._report(outbox))
            try:
                async for message in stub.Connect(requests()):
                    self._apply(message, outbox)
            finally:
                ticker.cancel()
                outbox.put_nowait(None)

    def _apply(self, message: agent_pb2.ControlMessage, outbox: asyncio.Queue[agent_pb2.AgentMessage | None]) -> None:
        kind = message.WhichOneof("payload")
        if kind == "full_state":
            keys = {p.public_key for p in message.full_state.peers}
            self.counters = {k: self.counters.get(k, [0, 0]) for k in keys}
        elif kind == "delta":
            for peer in message.delta.upsert_peers:
                self.counters.setdefault(peer.public_key, [0, 0])
            for key in message.delta.remove_peers:
                self.counters.pop(key, None)
        else:
            return
        body = getattr(message, kind)
        result = agent_pb2.OperationResult(operation_id=body.operation_id, serial=body.serial, ok=True)
        outbox.put_nowait(agent_pb2.AgentMessage(result=result))

    async def _report(self, outbox: asyncio.Queue[agent_pb2.AgentMessage | None]) -> None:
        while True:
            await asyncio.sleep(STATS_SECONDS)
            outbox.put_nowait(agent_pb2.AgentMessage(stats=agent_pb2.StatsReport(peers=self._stats())))

    def _stats(self) -> list[agent_pb2.PeerStats]:
        if not self.traffic:
            return []
        now = int(time.time())
        stats = []
        for key, counter in self.counters.items():
            # Roughly a video call: a few hundred kB down and a little up every report.
            counter[0] += random.randint(20_000, 60_000)
            counter[1] += random.randint(200_000, 900_000)
            stats.append(
                agent_pb2.PeerStats(
                    public_key=key,
                    latest_handshake=now - 3,
                    rx_bytes=counter[0],
                    tx_bytes=counter[1],
                    endpoint="192.0.2.10:51820",
                )
            )
        return stats
