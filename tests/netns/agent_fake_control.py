"""A small in-test control plane: a real grpc.aio NodeControl server serving FullStates built by the test."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import grpc

from protos import agent_pb2, agent_pb2_grpc


@dataclass
class Session:
    """One agent connection as the control plane sees it."""

    hello: agent_pb2.Hello
    outbox: asyncio.Queue[agent_pb2.ControlMessage] = field(default_factory=asyncio.Queue)
    results: asyncio.Queue[agent_pb2.OperationResult] = field(default_factory=asyncio.Queue)
    stats: list[agent_pb2.StatsReport] = field(default_factory=list)
    discovery: list[agent_pb2.DiscoveryReport] = field(default_factory=list)  # the rooms' lobby summaries
    keepalives: int = 0
    closed: asyncio.Event = field(default_factory=asyncio.Event)

    async def result(self, operation_id: str, within: float = 30) -> agent_pb2.OperationResult:
        """Wait for the result of one operation (results of others are dropped on the way)."""
        async with asyncio.timeout(within):
            while True:
                result = await self.results.get()
                if result.operation_id == operation_id:
                    return result

    def send_delta(self, delta: agent_pb2.Delta) -> None:
        self.outbox.put_nowait(agent_pb2.ControlMessage(delta=delta))


class FakeControlPlane(agent_pb2_grpc.NodeControlServicer):
    """Answers every Hello with `full_state()` (a fresh operation id each time), or Refused when told to."""

    def __init__(self, full_state: Callable[[], agent_pb2.FullState], credential: str) -> None:
        self.full_state = full_state
        self.credential = credential
        self.sessions: asyncio.Queue[Session] = asyncio.Queue()
        self.all_sessions: list[Session] = []
        self._ids = itertools.count(1)
        # Connections to end with a gRPC error (status, details) before the Hello is read, one per connection.
        self.aborts: list[tuple[grpc.StatusCode, str]] = []

    def next_operation_id(self) -> str:
        return f"op-{next(self._ids)}"

    async def Connect(
        self, request_iterator: AsyncIterator[agent_pb2.AgentMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[agent_pb2.ControlMessage]:
        if self.aborts:
            await context.abort(*self.aborts.pop(0))
        first = await anext(aiter(request_iterator))
        if first.WhichOneof("payload") != "hello":
            return
        if first.hello.credential != self.credential:
            yield agent_pb2.ControlMessage(refused=agent_pb2.Refused(code="bad_credential", message="no"))
            return
        session = Session(hello=first.hello)
        self.all_sessions.append(session)

        async def read() -> None:
            try:
                async for msg in request_iterator:
                    kind = msg.WhichOneof("payload")
                    if kind == "result":
                        session.results.put_nowait(msg.result)
                    elif kind == "stats":
                        session.stats.append(msg.stats)
                    elif kind == "discovery":
                        session.discovery.append(msg.discovery)
                    elif kind == "keepalive":
                        session.keepalives += 1
            finally:
                session.closed.set()

        reader = asyncio.create_task(read())
        state = self.full_state()
        state.operation_id = self.next_operation_id()
        session.outbox.put_nowait(agent_pb2.ControlMessage(full_state=state))
        self.sessions.put_nowait(session)
        try:
            while not session.closed.is_set():
                get = asyncio.create_task(session.outbox.get())
                closed = asyncio.create_task(session.closed.wait())
                done, _ = await asyncio.wait({get, closed}, return_when=asyncio.FIRST_COMPLETED)
                closed.cancel()
                if get not in done:
                    get.cancel()
                    break
                yield get.result()
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            session.closed.set()

    async def next_session(self, within: float = 30) -> Session:
        async with asyncio.timeout(within):
            return await self.sessions.get()


@contextlib.asynccontextmanager
async def serve(control: FakeControlPlane, target: str) -> AsyncIterator[grpc.aio.Server]:
    """Serve on `target` ("unix:/path" reaches an agent inside a namespace through the filesystem)."""
    server = grpc.aio.server(options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)])
    agent_pb2_grpc.add_NodeControlServicer_to_server(control, server)
    server.add_insecure_port(target)
    await server.start()
    try:
        yield server
    finally:
        await server.stop(grace=0)
