"""Every event the control-plane processes tell each other over the bus, with its payload: who publishes it and
who reacts, in one place (docs/architecture.md, "Who reacts to what")."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import msgspec

P = TypeVar("P", bound=msgspec.Struct)


class Topic(Generic[P]):
    def __init__(self, name: str, payload: type[P]) -> None:
        self.name = name
        self.payload = payload

    def __repr__(self) -> str:
        return f"Topic({self.name!r})"


class NodeChanged(msgspec.Struct, frozen=True):
    """A node's desired state changed (nodes/operations.py), or its credential was revoked (staff, servers):
    the process holding its agent's stream sends the news, or ends the stream (nodes/registry.py)."""

    server_id: str
    revoked: bool = False
    serial: int = 0  # the operation's serial; 0: read the node's pending operations from the database


class UserPush(msgspec.Struct, frozen=True):
    """A push for one user's browsers (realtime/hub.py), delivered by every process that holds one of them."""

    user_id: str
    push: dict[str, Any]  # a realtime/messages.py message, encoded once by the publisher


class StaffPush(msgspec.Struct, frozen=True):
    """A push for every open manager page (node status and stats, operation outcomes, audit entries)."""

    push: dict[str, Any]


class UserPushes(msgspec.Struct, frozen=True):
    """Pushes for many users at once (a node's stats report, nodes/agent_sessions.py): each process delivers those
    of the users with a socket on it. One event, not one per user: a report names hundreds of owners, few of whom
    have a page open, and a publish per owner was most of a report's cost (docs/benchmarks.md, "Stats reports at a
    million peers")."""

    # User id -> a realtime/messages.py message as JSON, encoded once by the publisher and sent as it is: the bus
    # carries it without decoding it.
    by_user: dict[str, msgspec.Raw]


class SessionsEnded(msgspec.Struct, frozen=True):
    """Sessions of a user ended (logout, reset, block, deletion): every process closes their sockets (hub.py)."""

    user_id: str
    session_id: str | None = None  # only this session; None: all of them
    keep: str | None = None  # all but this one (a password change keeps the caller's)
    message: str = ""


class CachesStale(msgspec.Struct, frozen=True):
    """Committed writes made these tags of these caches stale (realtime/invalidation.py): every process drops them."""

    tags: dict[str, list[str]]


NODE_CHANGED = Topic("node", NodeChanged)
USER_PUSH = Topic("user", UserPush)
STAFF_PUSH = Topic("staff", StaffPush)
USER_PUSHES = Topic("users", UserPushes)
SESSIONS_ENDED = Topic("sessions_ended", SessionsEnded)
CACHES_STALE = Topic("invalidate", CachesStale)
