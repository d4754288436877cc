"""`GET /api/client/advertisements` and `GET /api/client/agent` for the customer home; the manager's pages that
edit them (`/api/admin/announcements`, `/api/admin/client-releases`)."""

from __future__ import annotations

from litestar import Controller, delete, get, patch, post
from litestar.params import FromPath, JSONBody

from controlplane.dependencies import CUSTOMER, DB, Audit, Customer, customer_area
from controlplane.domain.accounts.guards import admin_only, admin_or_support
from controlplane.domain.announcements import schemas
from controlplane.domain.announcements import service as home
from controlplane.domain.announcements import staff as published
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.trail import audited
from controlplane.domain.staff_forms import Done, changes_text


class HomeController(Controller):
    path = "/api/client"
    tags = ["home"]
    before_request = staticmethod(customer_area)
    dependencies = CUSTOMER

    @get("/advertisements", operation_id="listAnnouncements")
    async def announcements(self, db: DB, customer: Customer) -> list[schemas.AnnouncementView]:
        return await home.visible_announcements(db)

    @get("/agent", operation_id="latestClientRelease", opt={"errors": (404,)})
    async def latest_release(self, db: DB, customer: Customer) -> schemas.ReleaseView:
        return await home.latest_release(db)


class AdminAnnouncementController(Controller):
    path = "/api/admin/announcements"
    tags = ["admin"]

    @get("/", operation_id="adminListAnnouncements", guards=[admin_or_support])
    async def list_announcements(self, db: DB) -> list[schemas.StaffAnnouncement]:
        return await published.all_announcements(db)

    @post(
        "/", status_code=201, operation_id="adminCreateAnnouncement", guards=[admin_only],
        opt=audited(AuditAction.ANNOUNCEMENT_CREATE),
    )  # fmt: skip
    async def create(
        self, db: DB, audit: Audit, data: JSONBody[schemas.AnnouncementInput]
    ) -> schemas.StaffAnnouncement:
        item = await published.create_announcement(db, data)
        audit.note("announcement", item.id, item.name)
        return published.announcement_view(item)

    @patch(
        "/{announcement_id:str}", operation_id="adminUpdateAnnouncement", guards=[admin_only],
        opt=audited(AuditAction.ANNOUNCEMENT_UPDATE),
    )  # fmt: skip
    async def update(
        self, db: DB, audit: Audit, announcement_id: FromPath[str], data: JSONBody[schemas.AnnouncementPatch]
    ) -> schemas.StaffAnnouncement:
        item, changes = await published.update_announcement(db, announcement_id, data)
        shown = {k: v for k, v in changes.items() if k != "message"} | (
            {"message": "…"} if "message" in changes else {}
        )
        audit.note("announcement", item.id, f"{item.name}: {changes_text(shown)}")
        return published.announcement_view(item)

    @delete(
        "/{announcement_id:str}", status_code=200, operation_id="adminDeleteAnnouncement", guards=[admin_only],
        opt=audited(AuditAction.ANNOUNCEMENT_DELETE),
    )  # fmt: skip
    async def remove(self, db: DB, audit: Audit, announcement_id: FromPath[str]) -> Done:
        item = await published.delete_announcement(db, announcement_id)
        audit.note("announcement", item.id, item.name)
        return Done(success=True, message="Anuncio eliminado.")


class AdminReleaseController(Controller):
    path = "/api/admin/client-releases"
    tags = ["admin"]

    @get("/", operation_id="adminListReleases", guards=[admin_or_support])
    async def list_releases(self, db: DB) -> list[schemas.StaffRelease]:
        return await published.all_releases(db)

    @post(
        "/", status_code=201, operation_id="adminCreateRelease", guards=[admin_only],
        opt=audited(AuditAction.RELEASE_CREATE),
    )  # fmt: skip
    async def create(self, db: DB, audit: Audit, data: JSONBody[schemas.ReleaseInput]) -> schemas.StaffRelease:
        release = await published.create_release(db, data)
        audit.note("client_release", release.id, f"{release.version} {release.url}")
        return published.release_view(release)

    @delete(
        "/{release_id:str}", status_code=200, operation_id="adminDeleteRelease", guards=[admin_only],
        opt=audited(AuditAction.RELEASE_DELETE),
    )  # fmt: skip
    async def remove(self, db: DB, audit: Audit, release_id: FromPath[str]) -> Done:
        release = await published.delete_release(db, release_id)
        audit.note("client_release", release.id, release.version)
        return Done(success=True, message="Versión eliminada.")
