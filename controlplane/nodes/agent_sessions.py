"""What an agent's stream reads and writes in the database: admission, the state it is sent, its answers, its
liveness and its stats. The gRPC servicer (servicer.py) only carries messages; every write is here, each in its
own short transaction."""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

from sqlalchemy import select, update

from controlplane.crypto import SecretBox
from controlplane.db import one_of, transaction, utcnow
from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms.models import RoomMember
from controlplane.domain.servers.models import Server
from controlplane.nodes import desired_state
from controlplane.nodes.backbone import refresh_backbone
from controlplane.nodes.liveness import is_online
from controlplane.nodes.operations import NodeOperations
from controlplane.nodes.ports import (
    EndpointHook,
    LobbyHook,
    NodeCredentials,
    PresenceHook,
    Reading,
    StatusHook,
    UsageRecorder,
)
from controlplane.realtime import messages
from controlplane.realtime.hub import PushHub
from protos import agent_pb2

log = logging.getLogger(__name__)

# The operation id of a full state (`full:<serial>`): its answer covers every operation up to that serial.
FULL_PREFIX = "full:"
# A handshake this recent counts as connected (the manager's "peers connected").
CONNECTED_SECONDS = 180


class AgentSessions:
    def __init__(
        self,
        sessionmaker: Any,
        read_sessionmaker: Any,
        box: SecretBox,
        servers: NodeCredentials,
        nodes: NodeOperations,
        hub: PushHub,
        presence: PresenceHook | None = None,
        endpoints: EndpointHook | None = None,
        usage: UsageRecorder | None = None,
        status: StatusHook | None = None,
        lobby: LobbyHook | None = None,
    ) -> None:
        self._sessionmaker = sessionmaker
        self._read_sessionmaker = read_sessionmaker  # the deltas' read: no write lock (db.create_read_sessionmaker)
        self._box = box
        self._servers = servers
        self._nodes = nodes
        self._hub = hub
        self._presence = presence  # room members' online state (RoomService.record_presence)
        self._endpoints = endpoints  # shared configurations (SharedConfigWatch.record)
        self._usage = usage  # usage history (docs/usage.md)
        self._status = status  # rooms showing whether a member's server is up (RoomService.server_status_changed)
        self._lobby = lobby  # what members announce in their rooms (Lobby.record)

    async def admit(self, hello: agent_pb2.Hello) -> tuple[str, int | None] | None:
        """(server id, its serial when the agent already applied it, else None), or None for a refused node.

        An agent that reports the node's current serial (`resume`, docs/agent-protocol.md "Reconnecting") gets
        InSync instead of a FullState: after a control-plane restart, every node that missed nothing costs one
        small transaction here instead of reading, decrypting and sending all its peers.

        The credential is checked in a read-only transaction first: a wrong one takes no write lock and commits
        nothing (the servicer logs and throttles it per address, agent_port.py)."""
        async with transaction(self._read_sessionmaker) as db:
            if await self._servers.authenticate_node(db, hello.node_id, hello.credential, hello.public_key) is None:
                return None
        async with transaction(self._sessionmaker) as db:
            server = await self._servers.authenticate_node(db, hello.node_id, hello.credential, hello.public_key)
            if server is None:  # revoked between the two reads
                return None
            key_changed = bool(hello.public_key) and server.public_key != hello.public_key
            if key_changed:
                # Customers' configuration files name this key: a new node key means they must download again.
                log.info("node %s reports a new public key", server.id)
                server.public_key = hello.public_key
                if server.hosts_rooms:
                    # The other room-enabled nodes must know the new key to keep the backbone up.
                    await db.flush()
                    await refresh_backbone(db, self._nodes)
            server.agent_version = hello.agent_version[:32]
            server.backend = hello.backend[:16]
            server_id, came_back = server.id, not is_online(server)
            server.last_seen = utcnow()
            in_sync = None
            if hello.resume and not key_changed and 0 < hello.applied_serial == server.serial:
                # Operations whose results were lost with the old process are applied: the serial says so.
                await self._nodes.covered_by_snapshot(db, server_id, server.serial)
                in_sync = server.serial
        if came_back:
            await self._status_changed(server_id)
        return server_id, in_sync

    async def discovery(self, server_id: str, report: agent_pb2.DiscoveryReport) -> None:
        """A node's discovery report (docs/agent-protocol.md, "Discovery report"): the lobbies of its members' rooms."""
        if self._lobby is None:
            return
        async with transaction(self._sessionmaker) as db:
            await self._lobby(db, server_id, report)

    async def connected(self, server_id: str) -> None:
        await self._hub.push_staff(messages.NodeStatus(data=messages.NodeStatusData(server_id, online=True)))

    async def full_state(self, server_id: str) -> agent_pb2.FullState:
        async with transaction(self._sessionmaker) as db:
            server = await db.get(Server, server_id)
            assert server is not None
            unsealed = await desired_state.read_full_state(db, server)
        return unsealed.build(self._box)  # decrypting after the transaction: others need not wait for it

    async def pending_deltas(self, server_id: str, after_serial: int) -> list[agent_pb2.Delta]:
        async with transaction(self._read_sessionmaker) as db:
            operations = await self._nodes.pending_after(db, server_id, after_serial)
            return [await desired_state.delta_message(db, self._box, op) for op in operations]

    async def result(self, server_id: str, result: agent_pb2.OperationResult) -> None:
        error = None if result.ok else (result.error or "el agente no pudo aplicar el cambio")
        async with transaction(self._sessionmaker) as db:
            if result.operation_id.startswith(FULL_PREFIX):
                if result.ok:
                    await self._nodes.covered_by_snapshot(db, server_id, result.serial)
                else:
                    log.error("node %s failed to apply its full state: %s", server_id, error)
                return
            if await self._nodes.finish(db, result.operation_id, error, server_id) is None:
                log.info("node %s answered an operation not its own or no longer pending", server_id)

    async def _status_changed(self, server_id: str) -> None:
        if self._status is None:
            return
        try:
            async with transaction(self._read_sessionmaker) as db:
                await self._status(db, server_id)
        except Exception:  # the node's own bookkeeping is done; a room that misses this push shows it when read
            log.exception("telling the rooms on node %s that it went offline or came back failed", server_id)

    async def seen(self, server_id: str) -> None:
        async with transaction(self._sessionmaker) as db:
            await db.execute(update(Server).where(Server.id == server_id).values(last_seen=utcnow()))

    async def ended(self, server_id: str, *, still_connected: bool) -> None:
        """The agent's stream ended. Unless a newer stream to this process replaced it, the node is offline from
        now on, not 45 s later: nobody should be offered a server whose agent just left (docs/operations.md,
        "Server status")."""
        if not still_connected:
            now = utcnow()
            async with transaction(self._sessionmaker) as db:
                await db.execute(
                    update(Server).where(Server.id == server_id).values(last_seen=now, disconnected_at=now)
                )
            await self._status_changed(server_id)
            if self._usage is not None:
                await self._usage.node_closed(self._sessionmaker, server_id)
        log.info("node %s disconnected", server_id)
        await self._hub.push_staff(messages.NodeStatus(data=messages.NodeStatusData(server_id, online=False)))

    async def stats(self, server_id: str, report: agent_pb2.StatsReport) -> None:
        """Live handshake and traffic figures: stored, then pushed to staff, and to every owner in one bus event.

        An agent of this version sends only the peers whose figures changed, with the node's totals, and every
        peer once a minute (docs/agent-protocol.md, "Stats"); what the hooks keep per peer is replaced by a
        complete report and updated by the others."""
        by_key = {s.public_key: s for s in report.peers}
        complete = report.complete or not report.HasField("totals")
        if not by_key and not report.HasField("totals"):
            # A node without peers still reports: it is alive (the manager's "online" reads last_seen).
            await self.seen(server_id)
            return
        rows: list[Any] = []
        async with transaction(self._sessionmaker) as db:
            if by_key:
                # With each peer, whether it is in a room: presence is kept for room members only, and most
                # reports name none (one query, not a second one per report to find out).
                query = (
                    select(Peer.id, Peer.user_id, Peer.public_key, RoomMember.peer_id.is_not(None))
                    .outerjoin(RoomMember, RoomMember.peer_id == Peer.id)
                    .where(Peer.server_id == server_id, one_of(db, Peer.public_key, by_key))
                )
                rows = list((await db.execute(query)).all())
            now = utcnow()
            totals: dict[str, Any] = {"stats_at": now, **_totals(report, now.timestamp())}
            await db.execute(update(Server).where(Server.id == server_id).values(last_seen=now, **totals))
            members = {key: by_key[key].latest_handshake for _p, _u, key, in_room in rows if in_room}
            if self._presence is not None and members:
                rtts = {key: by_key[key].rtt_us if by_key[key].HasField("rtt_us") else None for key in members}
                await self._presence(db, server_id, members, rtts=rtts)
            if self._endpoints is not None:
                await self._endpoints(db, server_id, {k: s.endpoint for k, s in by_key.items()}, complete)
            if self._usage is not None and rows:
                readings = {pid: Reading(key, by_key[key].rx_bytes, by_key[key].tx_bytes) for pid, _u, key, _r in rows}
                await self._usage.record(db, server_id, readings, now)
        await self._hub.push_staff(messages.NodeStats(data=messages.NodeStatsData(id=server_id, **totals)))
        per_user: dict[str, list[messages.PeerStatsLine]] = defaultdict(list)
        for peer_id, user_id, public_key, _in_room in rows:
            stats = by_key[public_key]
            per_user[user_id].append(
                messages.PeerStatsLine(peer_id, stats.latest_handshake, stats.rx_bytes, stats.tx_bytes)
            )
        if per_user:
            await self._hub.push_many(
                {user_id: messages.PeerStats(data=messages.PeerStatsData(lines)) for user_id, lines in per_user.items()}
            )


def _totals(report: agent_pb2.StatsReport, now: float) -> dict[str, int]:
    """The node's figures for the manager: the agent's own totals, or (an agent of an earlier version, whose
    report holds every peer) summed here."""
    if report.HasField("totals"):
        t = report.totals
        return {"stats_peers_connected": t.peers_connected, "stats_rx_bytes": t.rx_bytes, "stats_tx_bytes": t.tx_bytes}
    return {
        "stats_peers_connected": sum(
            1 for p in report.peers if p.latest_handshake and now - p.latest_handshake < CONNECTED_SECONDS
        ),
        "stats_rx_bytes": sum(p.rx_bytes for p in report.peers),
        "stats_tx_bytes": sum(p.tx_bytes for p in report.peers),
    }
