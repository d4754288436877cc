"""What customers see of peers and servers, and the bodies of the peer operations."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec


class PeerServer(msgspec.Struct):
    id: str
    name: str
    address: str
    active: bool
    ubication: str
    allow_partys: bool
    # Live status (docs/operations.md, "Server status"): its agent is connected; it applied every queued change.
    online: bool = False
    in_sync: bool = False


class PlanHistoryItem(msgspec.Struct):
    plan_name: str
    plan_price: str
    created: datetime


class RoomRef(msgspec.Struct):
    id: str
    name: str


class ServerName(msgspec.Struct):
    """A server as customers know it: by name and location, never by address."""

    id: str
    name: str
    ubication: str


OperationKindName = Literal["create", "regenerate", "change_server", "enable", "disable", "remove"]


class RunningOperation(msgspec.Struct):
    """The operation the peer waits for (docs/api.md, "Peer operations"): what, where (a move's target), since when,
    and the Spanish text the customer reads while it runs."""

    kind: OperationKindName
    server: ServerName
    since: datetime
    message: str


class OperationOutcome(msgspec.Struct):
    """How the peer's last create, key rotation or move ended, as its owner was told by push."""

    kind: Literal["create", "regenerate", "change_server"]
    ok: bool
    message: str
    at: datetime


class PeerView(msgspec.Struct):
    id: str
    name: str
    active: bool
    created: datetime
    expiration_date: datetime | None
    manual_payment: bool
    plans_history: list[PlanHistoryItem]
    server: PeerServer
    mirror_link: str
    party: RoomRef | None
    address: str
    processing: bool
    # When this state was read (docs/api.md, versions): the larger of two views of one peer is the newer.
    version: int
    # Why an inactive peer is so: "admin" (staff disabled it; only staff enable it again, payments do not) or
    # "expired" (its plan ran out; paying brings it back). None while active.
    disabled_reason: Literal["admin", "expired"] | None = None
    # Its node saw two devices take turns with this configuration (docs/operations.md, "One device per peer");
    # false again once the customer regenerates the keys.
    shared_config_warning: bool = False
    # The mirror link bound to one device (docs/api.md, "Mirror links"): turned on, and whether a device holds it.
    mirror_binding: bool = False
    mirror_bound: bool = False
    # The running operation (null when none: `processing` false) and the last outcome (docs/api.md, "Peer
    # operations"): the 202 answer, the push and a poll all carry them, so they tell one story.
    operation: RunningOperation | None = None
    last_outcome: OperationOutcome | None = None
    # While the peer's server is offline: what that means for the customer and the way out, in Spanish.
    server_notice: str | None = None
    # Paused by its owner (docs/api.md, "Pause and resume"): its node does not hold its key; since when (a moment,
    # which the page shows in the customer's own time zone) and what that means, in Spanish.
    paused: bool = False
    paused_since: datetime | None = None
    pause_notice: str | None = None


class ServerOption(msgspec.Struct):
    id: str
    address: str
    name: str
    active: bool
    ubication: str
    allow_partys: bool
    # As in PeerServer: an offline server is listed (so the customer sees why) but a move to it is refused.
    online: bool = False
    in_sync: bool = False
    # Load (docs/api.md, "Servers for a peer"): its peers, those with a handshake in the last 3 minutes (its
    # node's latest report), and whether it is the one suggested for this peer.
    peers: int = 0
    connected_peers: int = 0
    recommended: bool = False


class PeerOperationAccepted(msgspec.Struct):
    success: bool
    message: str
    data: PeerView


class PeerUpdated(PeerView):
    message: str = ""
