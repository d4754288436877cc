"""A scripted node agent: speaks the real gRPC protocol, applies nothing, answers every operation with ok.

Stands for a VPN node where the test (or benchmark) cares about what the control plane sends, not about
WireGuard: the real agent's own apply path is covered by the netns layer and bench/agent_sync.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import grpc

from controlplane.demo.node import stop_if_cancelled
from controlplane.wgkeys import generate_keypair
from protos import agent_pb2, agent_pb2_grpc


class _Outbox:
    """The request stream: a plain async iterator (an async generator complains when gRPC closes it mid-wait)."""

    def __init__(self, queue: asyncio.Queue[agent_pb2.AgentMessage]) -> None:
        self._queue = queue

    def __aiter__(self) -> _Outbox:
        return self

    async def __anext__(self) -> agent_pb2.AgentMessage:
        return await self._queue.get()


class ScriptedAgent:
    """`resume`: report the serial applied so far in Hello, as the real agent does (docs/agent-protocol.md,
    "Reconnecting"), so a reconnection with nothing missed gets InSync instead of a FullState. Off by default:
    most tests want a snapshot on every stream. `answering`: set to False to apply without answering (a result
    lost with a dying control plane)."""

    def __init__(
        self, target: str, node_id: str, credential: str, retry_seconds: float = 0.1, resume: bool = False
    ) -> None:
        self.target = target
        self.node_id = node_id
        self.credential = credential
        self.retry_seconds = retry_seconds
        self.resume = resume
        self.answering = True
        self.applied_serial = 0
        self.received_bytes = 0  # serialized size of every control message received, all streams
        self.public_key = generate_keypair()[1]
        self.full_states: list[tuple[float, agent_pb2.FullState]] = []  # (monotonic time received, message)
        self.in_syncs: list[tuple[float, int]] = []  # (monotonic time received, serial)
        self.deltas: asyncio.Queue[agent_pb2.Delta] = asyncio.Queue()
        self.all_deltas: list[agent_pb2.Delta] = []
        self.connected = asyncio.Event()
        self.sessions = 0
        self._outbox: asyncio.Queue[agent_pb2.AgentMessage] | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run_forever(), name=f"scripted-agent-{self.node_id}")

    async def stop(self) -> None:
        if self._task is None:
            return
        while not self._task.done():
            self._task.cancel()  # again should one be swallowed on the way (see stop_if_cancelled)
            await asyncio.wait({self._task}, timeout=1)
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def next_delta(self, within: float = 30) -> agent_pb2.Delta:
        async with asyncio.timeout(within):
            return await self.deltas.get()

    async def wait_full_state(self, count: int = 1, within: float = 30) -> agent_pb2.FullState:
        async with asyncio.timeout(within):
            while len(self.full_states) < count:
                await asyncio.sleep(0.01)
        return self.full_states[count - 1][1]

    async def _run_forever(self) -> None:
        while True:
            try:
                await self._session()
            except grpc.aio.AioRpcError:  # the control plane went away: dial again (unless being stopped)
                stop_if_cancelled()
            self.connected.clear()
            await asyncio.sleep(self.retry_seconds)

    def send(self, message: agent_pb2.AgentMessage) -> None:
        """Send any message on the open stream (a stats report in parts, say)."""
        assert self._outbox is not None, "not connected"
        self._outbox.put_nowait(message)

    def report(self, *peers: tuple[str, int, int], totals: agent_pb2.StatsTotals | None = None) -> None:
        """Send a stats report on the open stream: (peer public key, cumulative rx bytes, cumulative tx bytes).
        Without `totals`, as an agent of an earlier version (every peer); with them, a report of changes."""
        assert self._outbox is not None, "not connected"
        lines = [agent_pb2.PeerStats(public_key=key, rx_bytes=rx, tx_bytes=tx) for key, rx, tx in peers]
        report = agent_pb2.StatsReport(peers=lines, totals=totals)
        self._outbox.put_nowait(agent_pb2.AgentMessage(stats=report))

    async def _session(self) -> None:
        outbox: asyncio.Queue[agent_pb2.AgentMessage] = asyncio.Queue()
        self._outbox = outbox
        outbox.put_nowait(
            agent_pb2.AgentMessage(
                hello=agent_pb2.Hello(
                    node_id=self.node_id,
                    credential=self.credential,
                    agent_version="scripted",
                    backend="userspace",
                    public_key=self.public_key,
                    applied_serial=self.applied_serial if self.resume else 0,
                    resume=self.resume,
                )
            )
        )

        options = [("grpc.max_receive_message_length", 256 << 20)]
        async with grpc.aio.insecure_channel(self.target, options=options) as channel:
            stub = agent_pb2_grpc.NodeControlStub(channel)
            self.sessions += 1
            call = stub.Connect(_Outbox(outbox))
            try:
                async for message in call:
                    self.received_bytes += message.ByteSize()
                    kind = message.WhichOneof("payload")
                    if kind == "full_state":
                        self.full_states.append((time.monotonic(), message.full_state))
                        self.applied_serial = message.full_state.serial
                        self.connected.set()
                        body = message.full_state
                    elif kind == "in_sync":
                        assert message.in_sync.serial == self.applied_serial, (message.in_sync, self.applied_serial)
                        self.in_syncs.append((time.monotonic(), message.in_sync.serial))
                        self.connected.set()
                        continue
                    elif kind == "delta":
                        self.all_deltas.append(message.delta)
                        self.deltas.put_nowait(message.delta)
                        self.applied_serial = max(self.applied_serial, message.delta.serial)
                        body = message.delta
                    elif kind == "refused":
                        raise RuntimeError(f"refused: {message.refused.code}")
                    else:
                        continue
                    if not self.answering:
                        continue
                    outbox.put_nowait(
                        agent_pb2.AgentMessage(
                            result=agent_pb2.OperationResult(
                                operation_id=body.operation_id, serial=body.serial, ok=True
                            )
                        )
                    )
            finally:
                call.cancel()  # ends gRPC's request-reading task too (no 'Task was destroyed' noise)
