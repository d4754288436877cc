"""`GET /api/client/advertisements` and `GET /api/client/agent` for the customer home (editing: manager pages)."""

from __future__ import annotations

from datetime import datetime

import msgspec
from litestar import Controller, get
from sqlalchemy import select

from controlplane.dependencies import CUSTOMER, DB, Customer, not_in_maintenance
from controlplane.domain.announcements.models import Announcement, ClientRelease
from controlplane.errors import NotFound


class AnnouncementView(msgspec.Struct):
    id: str
    name: str
    created: datetime
    message: str


class ReleaseView(msgspec.Struct):
    version: str
    url: str


class HomeController(Controller):
    path = "/api/client"
    tags = ["home"]
    guards = [not_in_maintenance]
    dependencies = CUSTOMER

    @get("/advertisements", operation_id="listAnnouncements")
    async def announcements(self, db: DB, customer: Customer) -> list[AnnouncementView]:
        rows = await db.execute(
            select(Announcement).where(Announcement.visible.is_(True)).order_by(Announcement.created.desc())
        )
        return [AnnouncementView(id=a.id, name=a.name, created=a.created, message=a.message) for a in rows.scalars()]

    @get("/agent", operation_id="latestClientRelease", opt={"errors": (404,)})
    async def latest_release(self, db: DB, customer: Customer) -> ReleaseView:
        release = (
            await db.execute(select(ClientRelease).order_by(ClientRelease.created.desc()).limit(1))
        ).scalar_one_or_none()
        if release is None:
            raise NotFound("No hay versiones publicadas del cliente.", code="no_client_release")
        return ReleaseView(version=release.version, url=release.url)
