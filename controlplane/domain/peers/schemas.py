"""What customers see of peers and servers, and the bodies of the peer operations."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec


class PeerServer(msgspec.Struct):
    id: str
    name: str
    address: str
    active: bool
    ubication: str
    allow_partys: bool


class PlanHistoryItem(msgspec.Struct):
    plan_name: str
    plan_price: str
    created: datetime


class PartyRef(msgspec.Struct):
    id: str
    name: str


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
    party: PartyRef | None
    address: str
    processing: bool


class ServerOption(msgspec.Struct):
    id: str
    address: str
    name: str
    active: bool
    ubication: str
    allow_partys: bool


Operation = Literal["regenerate_token", "regenerate", "change_server"]


class PeerOperation(msgspec.Struct, forbid_unknown_fields=True):
    operation: Annotated[str, msgspec.Meta(max_length=32)]
    server: Annotated[str, msgspec.Meta(max_length=64)] | None = None


class PeerOperationAccepted(msgspec.Struct):
    success: bool
    message: str
    data: PeerView


class PeerUpdated(PeerView):
    message: str = ""
