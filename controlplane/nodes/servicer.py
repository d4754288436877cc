"""The agents' gRPC endpoint: hello and authentication, full state, deltas, results and stats on one stream
(protos/agent.proto, docs/agent-protocol.md)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import anyio
import grpc

from controlplane.nodes.agent_port import HELLO_MAX_BYTES, HELLO_TIMEOUT, MAX_MESSAGE_BYTES, AgentPortGate
from controlplane.nodes.agent_sessions import AgentSessions
from controlplane.nodes.registry import AgentLink, AgentRegistry
from controlplane.nodes.report_parts import ReportParts
from protos import agent_pb2, agent_pb2_grpc

log = logging.getLogger(__name__)

# Shutdown: how long gRPC waits for streams to end, then how long the streams' last writes may take.
STOP_GRACE_SECONDS = 2.0
ENDINGS_TIMEOUT_SECONDS = 10.0
KEEPALIVE_SECONDS = 15.0
# How often the counts of failed Hellos are looked at, to log those whose window ended.
FLUSH_SECONDS = 5.0


def _refused(code: str, message: str) -> agent_pb2.ControlMessage:
    return agent_pb2.ControlMessage(refused=agent_pb2.Refused(code=code, message=message))


class NodeControlServicer(agent_pb2_grpc.NodeControlServicer):
    """Carries messages between agents and AgentSessions (agent_sessions.py), which does every read and write."""

    def __init__(self, sessions: AgentSessions, registry: AgentRegistry, gate: AgentPortGate | None = None) -> None:
        self._sessions = sessions
        self._registry = registry
        self._gate = gate or AgentPortGate()
        self._endings: set[asyncio.Future[None]] = set()  # streams' end bookkeeping in flight (kept referenced)
        self._flusher: asyncio.Task[None] | None = None

    def _failed(self, address: str, node_id: str, reason: str) -> None:
        """Count (and maybe log) a refused Hello; the counts are logged as their windows end, also when no further
        stream comes, by a task that runs while there are any."""
        self._gate.failed(address, node_id, reason)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_failures(), name="agent-port-failures")

    async def _flush_failures(self) -> None:
        while self._gate.counting():
            await asyncio.sleep(FLUSH_SECONDS)
            self._gate.flush()

    async def Connect(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        address = self._gate.address(context.peer(), context.invocation_metadata())
        if not self._gate.enter(address):
            # Refused before anything is read: the stream holds no buffer and the database is not touched.
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many streams waiting for their Hello")
        try:
            admitted = await self._authenticate(context, address)
        finally:
            self._gate.leave(address)
        if admitted is None:
            return
        first, (server_id, in_sync_serial) = admitted
        link = AgentLink(server_id)
        self._registry.add(link)
        await self._sessions.connected(server_id)
        log.info(
            "node %s connected (agent %s, %s)%s",
            server_id,
            first.hello.agent_version,
            first.hello.backend,
            "" if in_sync_serial is None else f", in sync at serial {in_sync_serial}: no full state",
        )
        reader = asyncio.create_task(self._read(context, link), name=f"agent-reader-{server_id}")
        try:
            if in_sync_serial is None:
                await self._send_full_state(context, link)
            else:
                await context.write(agent_pb2.ControlMessage(in_sync=agent_pb2.InSync(serial=in_sync_serial)))
                link.sent_serial = in_sync_serial
                link.read_database()  # operations committed since the Hello was checked
            while not link.closed.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(link.wake.wait(), timeout=KEEPALIVE_SECONDS)
                if link.closed.is_set():
                    break
                if not link.wake.is_set():
                    await context.write(
                        agent_pb2.ControlMessage(keepalive=agent_pb2.Keepalive(sent_at_ms=int(time.time() * 1000)))
                    )
                    continue
                link.wake.clear()
                await self._send_pending(context, link)
        finally:
            reader.cancel()
            self._registry.remove(link)
            # Shielded: when an agent goes away, the reader may see the end of its stream first and bring us here,
            # and gRPC then cancels this handler while the offline mark is being written. Unshielded, that write
            # and everything after it were lost: the server stayed "online" with its agent gone.
            ended = asyncio.ensure_future(self._stream_ended(server_id))
            self._endings.add(ended)
            ended.add_done_callback(self._endings.discard)
            await asyncio.shield(ended)

    async def _authenticate(
        self, context: grpc.aio.ServicerContext, address: str
    ) -> tuple[agent_pb2.AgentMessage, tuple[str, int | None]] | None:
        """The stream's Hello and what admitting it gave, or None when the stream was refused or ended first."""
        try:
            first = await asyncio.wait_for(context.read(), timeout=HELLO_TIMEOUT)
        except TimeoutError:
            return None  # the stream ends here: an agent sends its Hello at once
        if first is grpc.aio.EOF:
            return None  # gone, or its message was over the port's limit (refused by gRPC before it was read)
        if not first.HasField("hello"):
            self._failed(address, "", "the first message was not a Hello")
            await context.write(_refused("hello_required", "the first message must be a Hello"))
            return None
        if first.ByteSize() > HELLO_MAX_BYTES:
            self._failed(address, first.hello.node_id, f"a Hello of {first.ByteSize()} bytes")
            await context.write(_refused("hello_too_large", f"a Hello has at most {HELLO_MAX_BYTES} bytes"))
            return None
        if self._gate.throttled(address):
            self._failed(address, first.hello.node_id, "throttled")
            await context.write(_refused("throttled", "too many failed Hellos from this address; retry later"))
            return None
        admitted = await self._sessions.admit(first.hello)
        if admitted is None:
            self._failed(address, first.hello.node_id, "unknown node or wrong credential")
            await context.write(_refused("unauthenticated", "unknown node or wrong credential"))
            return None
        return first, admitted

    async def stop(self, server: grpc.aio.Server) -> None:
        """Stop serving agents before the database closes (docs/deployment.md, "Stopping a control plane").

        Every stream ends the way it does when its agent leaves: the node is marked offline, its unwritten usage
        is written and staff are told; the agents reconnect at once, to another process when there is one. Left to
        `server.stop` alone, the handlers were cancelled after the grace period and their last writes ran into a
        closed database, or not at all, so the process hung or left nodes looking online."""
        if self._flusher is not None:
            self._flusher.cancel()
        self._registry.close_all()
        await server.stop(grace=STOP_GRACE_SECONDS)
        if self._endings:  # streams cancelled by the grace period still finish their bookkeeping (shielded)
            _, late = await asyncio.wait(set(self._endings), timeout=ENDINGS_TIMEOUT_SECONDS)
            if late:
                log.warning("%d agent streams had not finished their last writes at shutdown", len(late))

    async def _stream_ended(self, server_id: str) -> None:
        await self._sessions.ended(server_id, still_connected=self._registry.connected(server_id))

    async def _send_full_state(self, context: grpc.aio.ServicerContext, link: AgentLink) -> None:
        state = await self._sessions.full_state(link.server_id)
        await context.write(agent_pb2.ControlMessage(full_state=state))
        link.sent_serial = state.serial
        link.read_database()  # operations committed while the snapshot was in flight

    async def _send_pending(self, context: grpc.aio.ServicerContext, link: AgentLink) -> None:
        """Deltas built by this process go out as they are; the database is read only for the others."""
        for delta in link.take_ready():
            await self._send_delta(context, link, delta)
        if link.needs_read():
            for delta in await self._sessions.pending_deltas(link.server_id, link.sent_serial):
                await self._send_delta(context, link, delta)

    @staticmethod
    async def _send_delta(context: grpc.aio.ServicerContext, link: AgentLink, delta: agent_pb2.Delta) -> None:
        await context.write(agent_pb2.ControlMessage(delta=delta))
        link.sent_serial = max(link.sent_serial, delta.serial)

    async def _read(self, context: grpc.aio.ServicerContext, link: AgentLink) -> None:
        parts = ReportParts(link.server_id)
        try:
            while True:
                message = await context.read()
                if message is grpc.aio.EOF:
                    break
                kind = message.WhichOneof("payload")
                if kind == "result":
                    await self._sessions.result(link.server_id, message.result)
                elif kind == "stats":
                    report = parts.add(message.stats)  # a report split by the agent counts once it is whole
                    if report is not None:
                        await self._sessions.stats(link.server_id, report)
                elif kind == "keepalive":
                    await self._sessions.seen(link.server_id)
                elif kind == "discovery":
                    await self._sessions.discovery(link.server_id, message.discovery)
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            pass
        except Exception:
            log.exception("reading from node %s failed", link.server_id)
        finally:
            link.close()


def server_options() -> list[tuple[str, int]]:
    """The port's transport limits (docs/security.md, "The agents' port"; agent_port.py for the figures)."""
    return [
        ("grpc.keepalive_time_ms", 30_000),
        # Every message from anyone, the first included; the Hello itself is held to HELLO_MAX_BYTES once read.
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        # What this side sends: a FullState of 100 000 peers is about 15 MB.
        ("grpc.max_send_message_length", 64 << 20),
        # With the BDP probe on, gRPC widened a stream's flow-control window ahead of the reads and took in megabytes
        # of a message before its length was checked: 16 unauthenticated 60 MB Hellos raised this process by 220 MB
        # with a 1 MiB limit. Off, an oversized message is refused from its length prefix (+2 MB for the same 16);
        # a message within the limit still gets a window as large as itself once it is being read.
        ("grpc.http2.bdp_probe", 0),
        # Headers: an agent sends none of its own (about 200 bytes of gRPC's); gRPC's defaults are 8 and 16 KiB.
        ("grpc.max_metadata_size", 4 << 10),
        ("grpc.absolute_max_metadata_size", 8 << 10),
        # No grpc.max_concurrent_streams: a process's channels to one address share a connection unless told not
        # to (the benchmarks' thousand scripted agents are one connection), and the caps per address in
        # agent_port.py bound strangers' streams whichever connection carries them.
        # A connection with no stream is not an agent's (its stream lives for days): closed after a minute.
        ("grpc.max_connection_idle_ms", 60_000),
    ]


async def start_grpc_server(
    servicer: NodeControlServicer, bind: str, cert: str = "", key: str = "", local_socket: str = ""
) -> grpc.aio.Server:
    """The agents' server on `bind` (TLS with `cert` and `key`), and plaintext on `local_socket` ("unix:/path") too
    when given (Settings.grpc_local_socket)."""
    server = grpc.aio.server(options=server_options())
    agent_pb2_grpc.add_NodeControlServicer_to_server(servicer, server)
    if cert and key:
        pair = (await anyio.Path(key).read_bytes(), await anyio.Path(cert).read_bytes())
        credentials = grpc.ssl_server_credentials([pair])
        port = server.add_secure_port(bind, credentials)
    else:
        port = server.add_insecure_port(bind)
    if local_socket:
        server.add_insecure_port(local_socket)
        log.info("agent gRPC server also listening on %s (plaintext)", local_socket)
    await server.start()
    log.info("agent gRPC server listening on %s (port %d, %s)", bind, port, "TLS" if cert else "plaintext")
    return server
