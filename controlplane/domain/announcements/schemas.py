"""The customer home's announcements and client release, and what the manager's pages read and send to edit them."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec


class AnnouncementView(msgspec.Struct):
    id: str
    name: str
    created: datetime
    message: str


class ReleaseView(msgspec.Struct):
    version: str
    url: str


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
