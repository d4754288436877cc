"""The room operations, one module each (docs/architecture.md, "Adding an operation"), and the registry that maps a
request to its module and a node operation's kind to how it ends. `RoomService` runs them and keeps what they share;
the controller only answers with what they return.

Adding one: write its module (see `base.RoomOperation`), then add it to `OPERATIONS` and, if customers ask for it on
a room, to `RoomOperationRequest` (the `PATCH /partys/{id}` body: a tagged union on `operation`, so the OpenAPI
document and the browser types list it). A new node operation kind it queues needs its ending in `ENDINGS`."""

from __future__ import annotations

from controlplane.domain.rooms.operations import (
    create,
    delete,
    join,
    leave,
    node_answered,
    password,
    peer_deleted,
    peer_moved,
    server_closed,
)
from controlplane.domain.rooms.operations.base import Answer, Ended, RoomOperation
from controlplane.nodes.models import OperationKind

__all__ = ["ENDINGS", "OPERATIONS", "Answer", "RoomOperation", "RoomOperationRequest", "by_request", "ending"]

RoomOperationRequest = (
    leave.RoomLeave | leave.RoomRemovePeer | password.RoomRegeneratePassword | password.RoomSetPassword
)

OPERATIONS: tuple[RoomOperation, ...] = (
    create.OPERATION,
    join.OPERATION,
    leave.LEAVE,
    leave.REMOVE_PEER,
    password.REGENERATE_PASSWORD,
    password.SET_PASSWORD,
    delete.DELETE,
    delete.OWNER_ACCOUNT,
    peer_moved.OPERATION,
    peer_deleted.OPERATION,
    server_closed.OPERATION,
)

# How a node operation a room waits for ends, by its kind (every room change is queued as ROOM: the node applies
# the room's current members, whichever operation changed them).
ENDINGS: dict[OperationKind, Ended] = {OperationKind.ROOM: node_answered.ended}

_BY_REQUEST = {op.request: op for op in OPERATIONS if op.request is not None}


def by_request(request: object) -> RoomOperation:
    return _BY_REQUEST[type(request)]


def ending(kind: OperationKind) -> Ended | None:
    """How a node operation of that kind ends for its room (None for kinds no room waits for: peers, backbone)."""
    return ENDINGS.get(kind)
