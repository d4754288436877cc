"""Users as the manager's Usuarios page sees them (a row, a page, the detail with the user's peers and rooms)."""

from __future__ import annotations

from datetime import datetime

import msgspec

from controlplane.domain.peers.staff_schemas import StaffPeer


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
