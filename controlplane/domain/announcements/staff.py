"""What admins publish on the customer home: announcements, and the releases of the client app."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.announcements import schemas
from controlplane.domain.announcements.models import Announcement, ClientRelease
from controlplane.domain.staff_forms import changes_of, required_text
from controlplane.errors import Invalid, NotFound

VERSION_RE = re.compile(r"^\d{1,5}(\.\d{1,5}){0,3}$")
URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)


def announcement_view(a: Announcement) -> schemas.StaffAnnouncement:
    return schemas.StaffAnnouncement(id=a.id, name=a.name, message=a.message, visible=a.visible, created=a.created)


def release_view(r: ClientRelease) -> schemas.StaffRelease:
    return schemas.StaffRelease(id=r.id, version=r.version, url=r.url, created=r.created)


async def all_announcements(db: AsyncSession) -> list[schemas.StaffAnnouncement]:
    rows = await db.execute(select(Announcement).order_by(Announcement.created.desc()))
    return [announcement_view(a) for a in rows.scalars()]


async def get_announcement(db: AsyncSession, announcement_id: str) -> Announcement:
    announcement = await db.get(Announcement, announcement_id)
    if announcement is None:
        raise NotFound("Anuncio no encontrado.", code="announcement_not_found")
    return announcement


async def create_announcement(db: AsyncSession, data: schemas.AnnouncementInput) -> Announcement:
    announcement = Announcement(
        name=required_text(data.name, "name", "El título"),
        message=required_text(data.message, "message", "El mensaje"),
        visible=data.visible,
    )
    db.add(announcement)
    await db.flush()
    return announcement


async def update_announcement(
    db: AsyncSession, announcement_id: str, patch: schemas.AnnouncementPatch
) -> tuple[Announcement, dict[str, Any]]:
    announcement = await get_announcement(db, announcement_id)
    changes = changes_of(patch)
    if "name" in changes:
        changes["name"] = required_text(changes["name"], "name", "El título")
    if "message" in changes:
        changes["message"] = required_text(changes["message"], "message", "El mensaje")
    for key, value in changes.items():
        setattr(announcement, key, value)
    await db.flush()
    return announcement, changes


async def delete_announcement(db: AsyncSession, announcement_id: str) -> Announcement:
    announcement = await get_announcement(db, announcement_id)
    await db.delete(announcement)
    await db.flush()
    return announcement


# --- client releases ---------------------------------------------------------------------------------------


async def all_releases(db: AsyncSession) -> list[schemas.StaffRelease]:
    rows = await db.execute(select(ClientRelease).order_by(ClientRelease.created.desc()))
    return [release_view(r) for r in rows.scalars()]


async def create_release(db: AsyncSession, data: schemas.ReleaseInput) -> ClientRelease:
    version, url = data.version.strip(), data.url.strip()
    if not VERSION_RE.match(version):
        raise Invalid(
            "La versión debe tener la forma 1.2.3.", code="invalid_version", fields={"version": "Versión inválida."}
        )
    if not URL_RE.match(url):
        raise Invalid(
            "El enlace debe empezar por http:// o https://.", code="invalid_url", fields={"url": "Enlace inválido."}
        )
    release = ClientRelease(version=version, url=url)
    db.add(release)
    await db.flush()
    return release


async def delete_release(db: AsyncSession, release_id: str) -> ClientRelease:
    release = await db.get(ClientRelease, release_id)
    if release is None:
        raise NotFound("Versión no encontrada.", code="release_not_found")
    await db.delete(release)
    await db.flush()
    return release
