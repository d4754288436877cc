"""The agents' gRPC endpoint: hello and authentication, full state, deltas, results and stats on one stream."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import grpc
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.agents import desired_state
from controlplane.agents.registry import AgentLink, AgentRegistry
from controlplane.crypto import SecretBox
from controlplane.db import transaction, utcnow
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.operations import OperationService
from controlplane.domain.rooms.service import refresh_backbone
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.service import ServerService
from controlplane.domain.usage.meter import Reading, UsageMeter
from controlplane.realtime.hub import Push, PushHub
from protos import agent_pb2, agent_pb2_grpc

log = logging.getLogger(__name__)

HELLO_TIMEOUT = 10.0
# Shutdown: how long gRPC waits for streams to end, then how long the streams' last writes may take.
STOP_GRACE_SECONDS = 2.0
ENDINGS_TIMEOUT_SECONDS = 10.0
KEEPALIVE_SECONDS = 15.0
FULL_PREFIX = "full:"


def _refused(code: str, message: str) -> agent_pb2.ControlMessage:
    return agent_pb2.ControlMessage(refused=agent_pb2.Refused(code=code, message=message))


# (db, server id, public key -> latest handshake): called in the transaction that stores a stats report.
PresenceHook = Callable[[AsyncSession, str, dict[str, int]], Awaitable[None]]
# (db, server id, public key -> endpoint): likewise; two devices on one peer (domain/peers/devices.py).
EndpointHook = Callable[[AsyncSession, str, dict[str, str]], Awaitable[None]]


class NodeControlServicer(agent_pb2_grpc.NodeControlServicer):
    def __init__(
        self,
        sessionmaker: Any,
        box: SecretBox,
        servers: ServerService,
        operations: OperationService,
        registry: AgentRegistry,
        hub: PushHub,
        presence: PresenceHook | None = None,
        endpoints: EndpointHook | None = None,
        usage: UsageMeter | None = None,
    ) -> None:
        self._endpoints = endpoints  # shared configurations (SharedConfigWatch.record)
        self._usage = usage  # usage history (docs/usage.md)
        self._presence = presence  # room members' online state (RoomService.record_presence)
        self._sessionmaker = sessionmaker
        self._box = box
        self._servers = servers
        self._operations = operations
        self._registry = registry
        self._hub = hub
        self._endings: set[asyncio.Future[None]] = set()  # streams' end bookkeeping in flight (kept referenced)

    async def Connect(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        try:
            first = await asyncio.wait_for(context.read(), timeout=HELLO_TIMEOUT)
        except TimeoutError:
            return
        if first is grpc.aio.EOF or not first.HasField("hello"):
            await context.write(_refused("hello_required", "the first message must be a Hello"))
            return
        admitted = await self._authenticate(first.hello)
        if admitted is None:
            await context.write(_refused("unauthenticated", "unknown node or wrong credential"))
            return
        server_id, in_sync_serial = admitted
        link = AgentLink(server_id)
        self._registry.add(link)
        await self._hub.push_staff(Push("node_status", data={"id": server_id, "online": True}))
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
                link.wake.set()  # operations committed since the Hello was checked
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

    async def stop(self, server: grpc.aio.Server) -> None:
        """Stop serving agents before the database closes (docs/deployment.md, "Stopping a control plane").

        Every stream ends the way it does when its agent leaves: the node is marked offline, its unwritten usage
        is written and staff are told; the agents reconnect at once, to another process when there is one. Left to
        `server.stop` alone, the handlers were cancelled after the grace period and their last writes ran into a
        closed database, or not at all, so the process hung or left nodes looking online."""
        self._registry.close_all()
        await server.stop(grace=STOP_GRACE_SECONDS)
        if self._endings:  # streams cancelled by the grace period still finish their bookkeeping (shielded)
            _, late = await asyncio.wait(set(self._endings), timeout=ENDINGS_TIMEOUT_SECONDS)
            if late:
                log.warning("%d agent streams had not finished their last writes at shutdown", len(late))

    async def _stream_ended(self, server_id: str) -> None:
        if not self._registry.connected(server_id):  # not replaced by a newer stream to this process
            await self._disconnected(server_id)
            if self._usage is not None:
                await self._usage.node_closed(self._sessionmaker, server_id)
        log.info("node %s disconnected", server_id)
        await self._hub.push_staff(Push("node_status", data={"id": server_id, "online": False}))

    async def _authenticate(self, hello: agent_pb2.Hello) -> tuple[str, int | None] | None:
        """(server id, its serial when the agent already applied it, else None), or None for a refused node.

        An agent that reports the node's current serial (`resume`, docs/agent-protocol.md "Reconnecting") gets
        InSync instead of a FullState: after a control-plane restart, every node that missed nothing costs one
        small transaction here instead of reading, decrypting and sending all its peers."""
        async with transaction(self._sessionmaker) as db:
            server = await self._servers.authenticate_node(db, hello.node_id, hello.credential, hello.public_key)
            if server is None:
                log.warning("refused agent claiming node %r", hello.node_id[:64])
                return None
            key_changed = bool(hello.public_key) and server.public_key != hello.public_key
            if key_changed:
                # Customers' configuration files name this key: a new node key means they must download again.
                log.info("node %s reports a new public key", server.id)
                server.public_key = hello.public_key
                if server.hosts_rooms:
                    # The other room-enabled nodes must know the new key to keep the backbone up.
                    await db.flush()
                    await refresh_backbone(db, self._operations)
            server.agent_version = hello.agent_version[:32]
            server.backend = hello.backend[:16]
            server.last_seen = utcnow()
            if hello.resume and not key_changed and 0 < hello.applied_serial == server.serial:
                # Operations whose results were lost with the old process are applied: the serial says so.
                await self._operations.covered_by_snapshot(db, server.id, server.serial)
                return server.id, server.serial
            return server.id, None

    async def _send_full_state(self, context: grpc.aio.ServicerContext, link: AgentLink) -> None:
        async with transaction(self._sessionmaker) as db:
            server = await db.get(Server, link.server_id)
            assert server is not None
            unsealed = await desired_state.read_full_state(db, server)
        state = unsealed.build(self._box)  # decrypting after the transaction: others need not wait for it
        await context.write(agent_pb2.ControlMessage(full_state=state))
        link.sent_serial = state.serial
        link.wake.set()  # operations committed while the snapshot was in flight

    async def _send_pending(self, context: grpc.aio.ServicerContext, link: AgentLink) -> None:
        async with transaction(self._sessionmaker) as db:
            operations = await self._operations.pending_after(db, link.server_id, link.sent_serial)
            deltas = [await desired_state.delta_message(db, self._box, op) for op in operations]
        for delta in deltas:
            await context.write(agent_pb2.ControlMessage(delta=delta))
            link.sent_serial = max(link.sent_serial, delta.serial)

    async def _read(self, context: grpc.aio.ServicerContext, link: AgentLink) -> None:
        try:
            while True:
                message = await context.read()
                if message is grpc.aio.EOF:
                    break
                kind = message.WhichOneof("payload")
                if kind == "result":
                    await self._on_result(link, message.result)
                elif kind == "stats":
                    await self._on_stats(link, message.stats)
                elif kind == "keepalive":
                    await self._seen(link)
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            pass
        except Exception:
            log.exception("reading from node %s failed", link.server_id)
        finally:
            link.close()

    async def _disconnected(self, server_id: str) -> None:
        """Offline from now on, not 45 s later: nobody should be offered a server whose agent just left
        (docs/operations.md, "Server status")."""
        now = utcnow()
        async with transaction(self._sessionmaker) as db:
            await db.execute(update(Server).where(Server.id == server_id).values(last_seen=now, disconnected_at=now))

    async def _seen(self, link: AgentLink) -> None:
        async with transaction(self._sessionmaker) as db:
            await db.execute(update(Server).where(Server.id == link.server_id).values(last_seen=utcnow()))

    async def _on_result(self, link: AgentLink, result: agent_pb2.OperationResult) -> None:
        error = None if result.ok else (result.error or "el agente no pudo aplicar el cambio")
        async with transaction(self._sessionmaker) as db:
            if result.operation_id.startswith(FULL_PREFIX):
                if result.ok:
                    await self._operations.covered_by_snapshot(db, link.server_id, result.serial)
                else:
                    log.error("node %s failed to apply its full state: %s", link.server_id, error)
                return
            if await self._operations.finish(db, result.operation_id, error, link.server_id) is None:
                log.info("node %s answered an operation not its own or no longer pending", link.server_id)

    async def _on_stats(self, link: AgentLink, report: agent_pb2.StatsReport) -> None:
        """Live handshake and traffic figures, pushed to each owner in one message."""
        by_key = {s.public_key: s for s in report.peers}
        if not by_key:
            # A node without peers still reports: it is alive (the manager's "online" reads last_seen).
            await self._seen(link)
            return
        async with transaction(self._sessionmaker) as db:
            rows = (
                await db.execute(
                    select(Peer.id, Peer.user_id, Peer.public_key).where(
                        Peer.server_id == link.server_id, Peer.public_key.in_(list(by_key))
                    )
                )
            ).all()
            now = utcnow()
            totals = {
                "stats_at": now,
                "stats_peers_connected": sum(
                    1 for p in report.peers if p.latest_handshake and now.timestamp() - p.latest_handshake < 180
                ),
                "stats_rx_bytes": sum(p.rx_bytes for p in report.peers),
                "stats_tx_bytes": sum(p.tx_bytes for p in report.peers),
            }
            await db.execute(update(Server).where(Server.id == link.server_id).values(last_seen=now, **totals))
            if self._presence is not None:
                await self._presence(db, link.server_id, {k: s.latest_handshake for k, s in by_key.items()})
            if self._endpoints is not None:
                await self._endpoints(db, link.server_id, {k: s.endpoint for k, s in by_key.items()})
            if self._usage is not None:
                readings = {pid: Reading(key, by_key[key].rx_bytes, by_key[key].tx_bytes) for pid, _u, key in rows}
                await self._usage.record(db, link.server_id, readings, now)
        await self._hub.push_staff(
            Push("node_stats", data={"id": link.server_id, **totals, "stats_at": totals["stats_at"].isoformat()})
        )
        per_user: dict[str, list[dict[str, int | str]]] = defaultdict(list)
        for peer_id, user_id, public_key in rows:
            stats = by_key[public_key]
            per_user[user_id].append(
                {
                    "id": peer_id,
                    "latest_handshake": stats.latest_handshake,
                    "rx_bytes": stats.rx_bytes,
                    "tx_bytes": stats.tx_bytes,
                }
            )
        for user_id, peers in per_user.items():
            await self._hub.push(user_id, Push("peer_stats", data={"peers": peers}))


async def start_grpc_server(servicer: NodeControlServicer, bind: str, cert: str = "", key: str = "") -> grpc.aio.Server:
    server = grpc.aio.server(
        options=[
            ("grpc.keepalive_time_ms", 30_000),
            ("grpc.max_receive_message_length", 64 << 20),
            ("grpc.max_send_message_length", 64 << 20),
        ]
    )
    agent_pb2_grpc.add_NodeControlServicer_to_server(servicer, server)
    if cert and key:
        pair = (await anyio.Path(key).read_bytes(), await anyio.Path(cert).read_bytes())
        credentials = grpc.ssl_server_credentials([pair])
        port = server.add_secure_port(bind, credentials)
    else:
        port = server.add_insecure_port(bind)
    await server.start()
    log.info("agent gRPC server listening on %s (port %d, %s)", bind, port, "TLS" if cert else "plaintext")
    return server
