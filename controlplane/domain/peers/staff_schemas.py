"""A peer as the manager's Peers page and a user's detail see it, and what staff send to change one."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

from controlplane.domain.peers.schemas import RoomRef  # one shape for a peer's room, customer or staff
from controlplane.domain.staff_forms import Id


class StaffPeer(msgspec.Struct):
    """A peer as staff see it: whose it is and where it lives (keys and the mirror link stay out)."""

    id: str
    name: str
    user_id: str
    username: str
    active: bool
    manual_payment: bool
    created: datetime
    expiration_date: datetime | None
    address: str
    server_id: str
    server_name: str
    processing: bool
    plans_history: list[PlanHistoryRow]
    party: RoomRef | None = None


class PlanHistoryRow(msgspec.Struct):
    plan_name: str
    plan_price: str
    created: datetime


class PeerPage(msgspec.Struct):
    items: list[StaffPeer]
    total: int
    page: int
    page_size: int


class PeerCreate(msgspec.Struct, forbid_unknown_fields=True):
    username: Annotated[str, msgspec.Meta(max_length=64)]
    name: Annotated[str, msgspec.Meta(max_length=64)]
    server: Annotated[str, msgspec.Meta(max_length=64)] | None = None
    days: Annotated[int, msgspec.Meta(ge=0, le=3650)] | None = None


class PeerPatch(msgspec.Struct, forbid_unknown_fields=True):
    active: bool | None = None
    manual_payment: bool | None = None
    name: Annotated[str, msgspec.Meta(max_length=64)] | None = None  # the peer name rule, checked by the service


class PeerMove(msgspec.Struct, forbid_unknown_fields=True):
    server: Id


class PeerExtend(msgspec.Struct, forbid_unknown_fields=True):
    plan: Id
