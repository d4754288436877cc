"""Every message the browser receives on its socket, declared once: the type, the optional Spanish `message` and
the shape of `data` (docs/contract.md#push-messages, docs/api.md "Live push"). The OpenAPI document carries them
as the `PushMessage` union, from which the web client's types are generated (`make types`).

A pushed peer or room, and a reference to one, carries `version`: its row's version (domain/versions.py), so the
browser keeps whichever of two copies (an HTTP answer, a push) has the larger one."""

from __future__ import annotations

from datetime import datetime

import msgspec

from controlplane.domain.audit.schemas import AuditView
from controlplane.domain.peers.schemas import PeerView
from controlplane.domain.rooms.schemas import RoomView


class EntityRef(msgspec.Struct):
    """A peer or room named by id (deleted, or marked busy or idle)."""

    id: str
    version: int


def ref(entity_id: str, version: int) -> EntityRef:
    """`version`: the row's (domain/versions.py), or versions.DELETED for a row that is gone."""
    return EntityRef(entity_id, version=version)


class Subject(msgspec.Struct, omit_defaults=True):
    """Which peer or room a notice concerns, when it concerns one."""

    peer_id: str | None = None
    party_id: str | None = None


class PeerStatsLine(msgspec.Struct):
    id: str
    latest_handshake: int  # unix seconds; 0 = never
    rx_bytes: int
    tx_bytes: int


class PeerStatsData(msgspec.Struct):
    peers: list[PeerStatsLine]


class SignedIn(msgspec.Struct):
    username: str


class NodeStatusData(msgspec.Struct):
    id: str
    online: bool


class NodeStatsData(msgspec.Struct):
    id: str
    stats_at: datetime
    stats_peers_connected: int
    stats_rx_bytes: int
    stats_tx_bytes: int


class _Push(msgspec.Struct, tag_field="type", omit_defaults=True, kw_only=True):
    message: str | None = None


# --- every user's socket ---------------------------------------------------------------------------------------


class AuthPush(_Push, tag="auth"):
    """The socket is signed in (`data.username`), or its session ended (`message`, then close code 4401)."""

    data: SignedIn | None = None


class SuccessPush(_Push, tag="success"):
    data: Subject | None = None


class ErrorPush(_Push, tag="error"):
    data: Subject | None = None


class InfoPush(_Push, tag="info"):
    data: Subject | None = None


class CreatedPeer(_Push, tag="created_peer"):
    data: PeerView


class UpdatedPeer(_Push, tag="updated_peer"):
    data: PeerView


class DeletedPeer(_Push, tag="deleted_peer"):
    data: EntityRef


class PeerStats(_Push, tag="peer_stats"):
    data: PeerStatsData


class NewRoomOperation(_Push, tag="new_party_operation"):
    data: EntityRef


class StopRoomOperation(_Push, tag="stop_party_operation"):
    data: EntityRef


class UpdatedOwnerRoom(_Push, tag="updated_owner_party"):
    data: RoomView


class UpdatedGuestRoom(_Push, tag="updated_guest_party"):
    data: RoomView


class DeletedOwnerRoom(_Push, tag="deleted_owner_party"):
    data: EntityRef


class DeletedGuestRoom(_Push, tag="deleted_guest_party"):
    data: EntityRef


# --- staff sockets (manager pages) -----------------------------------------------------------------------------


class NodeStatus(_Push, tag="node_status"):
    data: NodeStatusData


class NodeStats(_Push, tag="node_stats"):
    data: NodeStatsData


class AuditPush(_Push, tag="audit"):
    data: AuditView


class PongPush(_Push, tag="pong"):
    """The answer to a `{"type": "ping"}` the browser sends."""


PushMessage = (
    AuthPush
    | SuccessPush
    | ErrorPush
    | InfoPush
    | CreatedPeer
    | UpdatedPeer
    | DeletedPeer
    | PeerStats
    | NewRoomOperation
    | StopRoomOperation
    | UpdatedOwnerRoom
    | UpdatedGuestRoom
    | DeletedOwnerRoom
    | DeletedGuestRoom
    | NodeStatus
    | NodeStats
    | AuditPush
    | PongPush
)
