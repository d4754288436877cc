"""What the manager pages send and receive (msgspec Structs; no ORM object leaves a service), and how every edit
form is read and summed up for the audit log. The admin endpoints live beside their domains and share these."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from litestar.params import QueryParameter

from controlplane.domain.peers.schemas import RoomRef  # one shape for a peer's room, customer or staff
from controlplane.domain.usage.schemas import UsageOverview
from controlplane.errors import Invalid
from controlplane.field_names import changes_text as changes_text  # the controllers' one name for it

# Query parameters shared by the searchable lists.
Page = Annotated[int, QueryParameter(ge=1, le=100_000)]
PageSize = Annotated[int, QueryParameter(ge=1, le=200)]
Search = Annotated[str, QueryParameter(max_length=100)]

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
ShortText = Annotated[str, msgspec.Meta(max_length=64)]
Id = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class Done(msgspec.Struct):
    success: bool
    message: str


def required_text(value: str, field: str, label: str) -> str:
    value = value.strip()
    if not value:
        raise Invalid(f"{label} es obligatorio.", code="required", fields={field: "Campo obligatorio."})
    return value


def changes_of(patch: msgspec.Struct) -> dict[str, Any]:
    """The fields a PATCH body sets (None: left as it is)."""
    return {k: v for k, v in msgspec.structs.asdict(patch).items() if v is not None}


# --- users -------------------------------------------------------------------------------------------------


class UserRow(msgspec.Struct):
    id: str
    username: str
    email: str | None
    email_verified: bool
    alias: str | None
    role: str
    blocked: bool
    deleted: bool  # the account was deleted: personal data gone, kept for its invoices (docs/security.md)
    created: datetime
    last_login: datetime | None
    peers: int


class UserPage(msgspec.Struct):
    items: list[UserRow]
    total: int
    page: int
    page_size: int


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


class StaffRoom(msgspec.Struct):
    """A room the user owns ("owner") or has a peer in ("guest"); the password stays with the owner."""

    id: str
    name: str
    owner: str
    relation: str
    members: int
    created: datetime


class UserDetail(msgspec.Struct):
    user: UserRow
    peers: list[StaffPeer]
    rooms: list[StaffRoom] = msgspec.field(default_factory=list)


class UserPatch(msgspec.Struct, forbid_unknown_fields=True):
    blocked: bool


# --- peers -------------------------------------------------------------------------------------------------


class PeerPage(msgspec.Struct):
    items: list[StaffPeer]
    total: int
    page: int
    page_size: int


class PeerPatch(msgspec.Struct, forbid_unknown_fields=True):
    active: bool | None = None
    manual_payment: bool | None = None
    name: Annotated[str, msgspec.Meta(max_length=64)] | None = None  # the peer name rule, checked by the service


class PeerMove(msgspec.Struct, forbid_unknown_fields=True):
    server: Id


class PeerExtend(msgspec.Struct, forbid_unknown_fields=True):
    plan: Id


# --- plans, announcements, client releases -----------------------------------------------------------------


class StaffPlan(msgspec.Struct):
    id: str
    name: str
    description: str
    validity_hours: int
    price: str
    visible: bool
    sort_order: int
    created: datetime


class PlanInput(msgspec.Struct, forbid_unknown_fields=True):
    name: Name
    validity_hours: Annotated[int, msgspec.Meta(ge=1, le=24 * 365 * 10)]
    price: Annotated[str, msgspec.Meta(max_length=16)]
    description: Annotated[str, msgspec.Meta(max_length=2000)] = ""
    visible: bool = True
    sort_order: Annotated[int, msgspec.Meta(ge=-1000, le=1000)] = 0


class PlanPatch(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    name: Name | None = None
    validity_hours: Annotated[int, msgspec.Meta(ge=1, le=24 * 365 * 10)] | None = None
    price: Annotated[str, msgspec.Meta(max_length=16)] | None = None
    description: Annotated[str, msgspec.Meta(max_length=2000)] | None = None
    visible: bool | None = None
    sort_order: Annotated[int, msgspec.Meta(ge=-1000, le=1000)] | None = None


class StaffAnnouncement(msgspec.Struct):
    id: str
    name: str
    message: str
    visible: bool
    created: datetime


class AnnouncementInput(msgspec.Struct, forbid_unknown_fields=True):
    name: Annotated[str, msgspec.Meta(max_length=120)]
    message: Annotated[str, msgspec.Meta(max_length=5000)]
    visible: bool = True


class AnnouncementPatch(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    name: Annotated[str, msgspec.Meta(max_length=120)] | None = None
    message: Annotated[str, msgspec.Meta(max_length=5000)] | None = None
    visible: bool | None = None


class StaffRelease(msgspec.Struct):
    id: str
    version: str
    url: str
    created: datetime


class ReleaseInput(msgspec.Struct, forbid_unknown_fields=True):
    version: Annotated[str, msgspec.Meta(max_length=32)]
    url: Annotated[str, msgspec.Meta(max_length=500)]


# --- overview ----------------------------------------------------------------------------------------------


class OperationRow(msgspec.Struct):
    id: str
    server_id: str
    server_name: str
    kind: str
    status: str
    peer_id: str | None
    error: str | None
    created: datetime
    finished: datetime | None


class Overview(msgspec.Struct):
    users: int
    customers_blocked: int
    users_new_7d: int
    peers: int
    peers_active: int
    servers: int
    servers_active: int
    servers_online: int
    operations_pending: int
    operations_failed_24h: int
    recent_operations: list[OperationRow]
    # Money is for admins only: null for support (docs/api.md, "Manager roles").
    revenue: list[RevenueRow] | None
    # Peers warned that two devices share their configuration (docs/operations.md, "One device per peer").
    peers_shared_config: int = 0
    # Traffic this month per server and in total, and per day (docs/usage.md).
    usage: UsageOverview | None = None


class RevenueRow(msgspec.Struct):
    period: str  # "2026-11" (month) or "2026-11-21" (day)
    gateway: str
    gateway_label: str  # "QvaPay", "Remesita", "Pago manual"
    invoices: int
    amount: str


class PeerCreate(msgspec.Struct, forbid_unknown_fields=True):
    username: Annotated[str, msgspec.Meta(max_length=64)]
    name: Annotated[str, msgspec.Meta(max_length=64)]
    server: Annotated[str, msgspec.Meta(max_length=64)] | None = None
    days: Annotated[int, msgspec.Meta(ge=0, le=3650)] | None = None
