"""What the customer home reads: the visible announcements and the latest client release (the manager edits both:
announcements/staff.py)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.announcements import schemas
from controlplane.domain.announcements.models import Announcement, ClientRelease
from controlplane.errors import NotFound


async def visible_announcements(db: AsyncSession) -> list[schemas.AnnouncementView]:
    rows = await db.execute(
        select(Announcement).where(Announcement.visible.is_(True)).order_by(Announcement.created.desc())
    )
    return [
        schemas.AnnouncementView(id=a.id, name=a.name, created=a.created, message=a.message) for a in rows.scalars()
    ]


async def latest_release(db: AsyncSession) -> schemas.ReleaseView:
    release = (
        await db.execute(select(ClientRelease).order_by(ClientRelease.created.desc()).limit(1))
    ).scalar_one_or_none()
    if release is None:
        raise NotFound("No hay versiones publicadas del cliente.", code="no_client_release")
    return schemas.ReleaseView(version=release.version, url=release.url)
