"""What a peer operation module declares (docs/architecture.md, "Adding an operation"): its request variant, how it
starts, how it ends, and its Spanish texts. The registry (`__init__.py`) lists the modules; `PeerService` runs them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.models import Peer
from controlplane.domain.servers.models import Server
from controlplane.nodes.models import NodeOperation, OperationKind
from controlplane.ratelimit import RateLimiter

if TYPE_CHECKING:
    from controlplane.domain.peers.service import PeerService


def server_label(server: Server) -> str:
    """'Madrid 1 (Madrid)': a server as the customer knows it (by name and location, never by address)."""
    location = server.ubication.strip()
    return f"{server.name} ({location})" if location else server.name


class Done(NamedTuple):
    """Finished when it answers: 200 with the peer as it is now and a Spanish message."""

    peer: Peer
    message: str


class Accepted(NamedTuple):
    """Waits for a node: 202 with the peer busy; the outcome arrives by push (the message is the running text)."""

    peer: Peer


@dataclass(frozen=True, slots=True)
class Context:
    """What an operation may use beyond the transaction: the peers' rules and the rate limiter."""

    peers: PeerService
    limiter: RateLimiter


# start(context, db, user_id, peer_id, request): the customer's request, checked and begun.
Start = Callable[[Context, AsyncSession, str, str, Any], Awaitable[Done | Accepted]]
# ended(peers, db, operation, peer): settle what the operation left pending; the owner's Spanish text, or None.
Ended = Callable[["PeerService", AsyncSession, NodeOperation, Peer], Awaitable[str | None]]
# running(peer): where it happens (a move's target) and what the owner reads meanwhile.
Running = Callable[[Peer], tuple[Server, str]]


@dataclass(frozen=True, kw_only=True, slots=True)
class PeerOperation:
    """One operation on a peer. `request` and `start` for what a customer asks (`PATCH .../peers/{id}`); `kind`,
    `running` and `ended` for one that waits for a node operation of that kind; `view` for the fields of the peer's
    view it owns (a state it leaves the peer in)."""

    name: str  # the request's `operation`, or the node kind's value for those no customer asks for
    request: type | None = None
    start: Start | None = None
    kind: OperationKind | None = None
    running: Running | None = None
    ended: Ended | None = None
    view: Callable[[Peer], dict[str, Any]] | None = None  # keyword arguments of the PeerView
