"""The peer operations, one module each (docs/architecture.md, "Adding an operation"), and the registry that maps a
request's `operation` and a node operation's kind to its module. `PeerService` runs them; the controller only
answers with what they return.

Adding one: write its module (see `base.PeerOperation`), then add it to `PeerOperationRequest` (the request body:
a tagged union on `operation`, so the OpenAPI document and the browser types list it) and to `OPERATIONS`."""

from __future__ import annotations

from typing import Any

from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.operations import (
    change_server,
    create,
    mirror_device,
    pause,
    regenerate,
    regenerate_token,
    rename,
    switch,
)
from controlplane.domain.peers.operations.base import Accepted, Context, Done, PeerOperation

__all__ = [
    "OPERATIONS",
    "Accepted",
    "Context",
    "Done",
    "PeerOperation",
    "PeerOperationRequest",
    "by_kind",
    "by_request",
    "view_fields",
]

PeerOperationRequest = (
    regenerate.PeerRegenerate
    | change_server.PeerChangeServer
    | regenerate_token.PeerRegenerateToken
    | rename.PeerRename
    | mirror_device.PeerMirrorBinding
    | mirror_device.PeerReleaseMirrorDevice
    | mirror_device.PeerConfirmMirrorDevice
    | pause.PeerPause
    | pause.PeerResume
)

OPERATIONS: tuple[PeerOperation, ...] = (
    create.OPERATION,
    regenerate.OPERATION,
    change_server.OPERATION,
    switch.ENABLE,
    switch.DISABLE,
    switch.REMOVE,
    regenerate_token.OPERATION,
    rename.OPERATION,
    mirror_device.MIRROR_BINDING,
    mirror_device.RELEASE_MIRROR_DEVICE,
    mirror_device.CONFIRM_MIRROR_DEVICE,
    pause.PAUSE,
    pause.RESUME,
)

_BY_REQUEST = {op.request: op for op in OPERATIONS if op.request is not None}
_BY_KIND = {op.kind.value: op for op in OPERATIONS if op.kind is not None}


def by_request(request: object) -> PeerOperation:
    return _BY_REQUEST[type(request)]


def by_kind(kind: str) -> PeerOperation | None:
    """The module of a node operation kind a peer waits for (None for kinds no peer waits for: rooms, backbone)."""
    return _BY_KIND.get(kind)


_VIEWS = tuple(op.view for op in OPERATIONS if op.view is not None)


def view_fields(peer: Peer) -> dict[str, Any]:
    """The fields of the peer's view that operations own (a state they leave the peer in)."""
    fields: dict[str, Any] = {}
    for view in _VIEWS:
        fields.update(view(peer))
    return fields
