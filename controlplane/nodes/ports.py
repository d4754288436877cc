"""What the agents' streams need from the domain, declared here and nowhere else (docs/architecture.md, "Who may
import whom"): `controlplane.nodes` imports no domain module but the tables it reads; the composition root
(controlplane/services.py) passes what satisfies these, and mypy checks that it does.

Each hook is called in the transaction that stores what the agent said, unless its line says otherwise."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.domain.servers.models import Server
from protos import agent_pb2


@dataclass(slots=True)
class Reading:
    """One peer's line of a stats report: which device, and its cumulative counters."""

    public_key: str
    rx: int
    tx: int


class NodeCredentials(Protocol):
    """Admission: whose credential this is (domain/servers/service.py, `ServerService`)."""

    async def authenticate_node(
        self, db: AsyncSession, node_id: str, credential: str, public_key: str
    ) -> Server | None: ...


class UsageRecorder(Protocol):
    """The usage history (docs/usage.md; domain/usage/meter.py, `UsageMeter`)."""

    async def record(self, db: AsyncSession, server_id: str, readings: dict[str, Reading], now: datetime) -> None:
        """Peer id -> its reading, from one stats report."""

    async def node_closed(self, sessionmaker: async_sessionmaker[AsyncSession], server_id: str) -> None:
        """The node's stream ended: what is counted so far is written, in a transaction of its own."""


class PresenceHook(Protocol):
    """(db, server id, public key -> latest handshake of the report's peers that are in a room, and their round
    trips in µs, None = not measured): room members' online state and delay (RoomService.record_presence)."""

    async def __call__(
        self, db: AsyncSession, server_id: str, handshakes: dict[str, int], *, rtts: dict[str, int | None]
    ) -> None: ...


# (db, server id, public key -> endpoint, whether the report holds every peer of the node): two devices on one peer
# (SharedConfigWatch.record, domain/peers/devices.py).
EndpointHook = Callable[[AsyncSession, str, dict[str, str], bool], Awaitable[None]]
# (db, server id): the node went online (its agent connected) or offline (its stream ended); called in a read
# transaction of its own once that is committed, so that it can never undo or hold back the mark itself
# (RoomService.server_status_changed).
StatusHook = Callable[[AsyncSession, str], Awaitable[None]]
# (db, server id, the agent's DiscoveryReport): the rooms' lobby (domain/rooms/lobby.py, Lobby.record), in a
# transaction of its own.
LobbyHook = Callable[[AsyncSession, str, agent_pb2.DiscoveryReport], Awaitable[None]]
