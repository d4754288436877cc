"""A scripted node agent for browser tests: speaks the real gRPC protocol and reports every operation done at once.

The browser layer checks what a customer sees (the push arriving, the toast, the list updating); the real agent's
WireGuard work is covered by tests/netns. Same behaviour as the agent in bench/push_latency.py.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc

from controlplane.wgkeys import generate_keypair
from protos import agent_pb2, agent_pb2_grpc


async def run_scripted_agent(target: str, node_id: str, credential: str) -> None:
    """Hello, then answer every FullState and Delta with ok; reconnect after a second if the stream ends."""
    public_key = generate_keypair()[1]
    while True:
        with contextlib.suppress(grpc.aio.AioRpcError):
            await _one_stream(target, node_id, credential, public_key)
        await asyncio.sleep(1)


async def _one_stream(target: str, node_id: str, credential: str, public_key: str) -> None:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = agent_pb2_grpc.NodeControlStub(channel)
        outbox: asyncio.Queue[agent_pb2.AgentMessage] = asyncio.Queue()
        hello = agent_pb2.Hello(
            node_id=node_id,
            credential=credential,
            agent_version="browser-tests",
            backend="userspace",
            public_key=public_key,
        )
        outbox.put_nowait(agent_pb2.AgentMessage(hello=hello))

        async def requests() -> AsyncIterator[agent_pb2.AgentMessage]:
            while True:
                yield await outbox.get()

        async def reports() -> None:
            # Like the real agent, a stats report every 5 s (no handshakes here): it keeps the server's last-seen
            # fresh, and servers silent for 45 s count as down.
            while True:
                await asyncio.sleep(5)
                outbox.put_nowait(agent_pb2.AgentMessage(stats=agent_pb2.StatsReport()))

        ticker = asyncio.create_task(reports())
        try:
            await _answer(stub.Connect(requests()), outbox)
        finally:
            ticker.cancel()


async def _answer(
    stream: AsyncIterator[agent_pb2.ControlMessage], outbox: asyncio.Queue[agent_pb2.AgentMessage]
) -> None:
    async for message in stream:
        kind = message.WhichOneof("payload")
        if kind in ("full_state", "delta"):
            body = getattr(message, kind)
            result = agent_pb2.OperationResult(operation_id=body.operation_id, serial=body.serial, ok=True)
            outbox.put_nowait(agent_pb2.AgentMessage(result=result))
