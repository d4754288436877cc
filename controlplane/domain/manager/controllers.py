"""The manager's API under /api/admin: users, peers, plans, announcements, client releases, overview, audit log.

Every handler is admin-only unless marked `opt=SUPPORT` (checked once, in the `staff` dependency); every write
records an audit entry in its own transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Annotated

from litestar import Controller, Response, delete, get, patch, post
from litestar.background_tasks import BackgroundTask
from litestar.params import FromPath, JSONBody, QueryParameter

from controlplane.db import utcnow
from controlplane.dependencies import DB, STAFF, ClientIP, ServicesDep, Staff
from controlplane.domain.accounts.models import Role
from controlplane.domain.accounts.service import Email
from controlplane.domain.audit.service import AuditFilter, AuditPage
from controlplane.domain.invoices.models import InvoiceStatus
from controlplane.domain.invoices.service import REASON_REQUIRED, STAFF_CREDITABLE
from controlplane.domain.manager import catalogue, invoices, schemas
from controlplane.domain.manager.access import SUPPORT
from controlplane.domain.manager.invoices import revenue_rows
from controlplane.domain.manager.overview import overview
from controlplane.domain.manager.peers import search_peers, staff_peer
from controlplane.domain.servers.controllers import AdminServerController
from controlplane.domain.servers.models import Server
from controlplane.errors import Conflict, Invalid, NotFound
from controlplane.payments.base import PaymentRecord, PaymentStatus
from controlplane.services import Services

Page = schemas.Page
PageSize = schemas.PageSize
Search = schemas.Search
Blocked = Annotated[bool | None, QueryParameter()]
Active = Annotated[bool | None, QueryParameter()]


def _mail(services: Services, mail: Email) -> BackgroundTask:
    return BackgroundTask(services.mailer.send, mail.to, mail.subject, mail.body)


def _summary(changes: dict[str, object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in changes.items()) or "sin cambios"


class AdminUserController(Controller):
    path = "/api/admin/users"
    tags = ["admin"]
    dependencies = STAFF

    @get("/", operation_id="adminSearchUsers", opt=SUPPORT)
    async def search(
        self,
        services: ServicesDep,
        db: DB,
        staff: Staff,
        q: Search = "",
        blocked: Blocked = None,
        role: Annotated[str, QueryParameter(max_length=16)] = "",
        page: Page = 1,
        page_size: PageSize = 25,
    ) -> schemas.UserPage:
        return await services.staff_users.search(db, q, blocked, role, page, page_size)

    @get("/{user_id:str}", operation_id="adminGetUser", opt=SUPPORT)
    async def read(self, services: ServicesDep, db: DB, staff: Staff, user_id: FromPath[str]) -> schemas.UserDetail:
        return await services.staff_users.detail(db, user_id)

    @patch("/{user_id:str}", operation_id="adminUpdateUser", opt=SUPPORT)
    async def update(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, user_id: FromPath[str],
        data: JSONBody[schemas.UserPatch],
    ) -> schemas.UserRow:  # fmt: skip
        row = await services.staff_users.set_blocked(db, user_id, data.blocked)
        action = "user.block" if data.blocked else "user.unblock"
        text = "bloqueado; sesiones cerradas" if data.blocked else "desbloqueado"
        await services.audit.record(db, staff, ip, action, "user", row.id, f"Usuario {row.username} {text}")
        return row

    @delete("/{user_id:str}", status_code=200, operation_id="adminDeleteUser")
    async def delete_user(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, user_id: FromPath[str]
    ) -> schemas.UserRow:
        """Admins only: the account's peers, owned rooms and sessions go, its invoices stay (docs/security.md)."""
        username, row = await services.staff_users.delete(db, user_id)
        await services.audit.record(
            db, staff, ip, "user.delete", "user", row.id, f"Cuenta {username} eliminada; peers y sesiones cerrados"
        )
        return row

    @post("/{user_id:str}/password-reset", status_code=200, operation_id="adminSendPasswordReset", opt=SUPPORT)
    async def password_reset(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, user_id: FromPath[str]
    ) -> Response[schemas.Done]:
        user, mail = await services.staff_users.password_reset_email(db, user_id)
        await services.audit.record(
            db,
            staff,
            ip,
            "user.password_reset",
            "user",
            user.id,
            f"Enlace de restablecimiento enviado a {user.username}",
        )
        done = schemas.Done(success=True, message=f"Enlace para restablecer la contraseña enviado a {user.email}.")
        return Response(done, background=_mail(services, mail))

    @post("/{user_id:str}/verification", status_code=200, operation_id="adminResendVerification", opt=SUPPORT)
    async def verification(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, user_id: FromPath[str]
    ) -> Response[schemas.Done]:
        user, mail = await services.staff_users.verification_email(db, user_id)
        await services.audit.record(
            db, staff, ip, "user.verification", "user", user.id, f"Verificación de email reenviada a {user.username}"
        )
        done = schemas.Done(success=True, message=f"Email de verificación enviado a {user.email}.")
        return Response(done, background=_mail(services, mail))


class AdminPeerController(Controller):
    path = "/api/admin/peers"
    tags = ["admin"]
    dependencies = STAFF

    @get("/", operation_id="adminSearchPeers", opt=SUPPORT)
    async def search(
        self,
        db: DB,
        staff: Staff,
        q: Search = "",
        server: Annotated[str, QueryParameter(max_length=64)] = "",
        active: Active = None,
        page: Page = 1,
        page_size: PageSize = 25,
    ) -> schemas.PeerPage:
        return await search_peers(db, q, server, active, page, page_size)

    @post("/", status_code=201, operation_id="adminCreatePeer")
    async def create_peer(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, data: JSONBody[schemas.PeerCreate]
    ) -> schemas.StaffPeer:
        user = await services.accounts.find_by_username(db, data.username)
        if user is None or user.role is not Role.CUSTOMER:
            raise NotFound("Cliente no encontrado.", code="user_not_found")
        server = await services.servers.get(db, data.server) if data.server else None
        expiration = utcnow() + timedelta(days=data.days) if data.days else None
        peer = await services.peers.create(db, user.id, data.name, server=server, expiration_date=expiration)
        await services.audit.record(
            db, staff, ip, "peer.create", "peer", peer.id,
            f"Peer {peer.name} de {user.username} en {peer.server.name}"
            + (f", {data.days} días" if data.days else ", sin vencimiento"),
        )  # fmt: skip
        # The staff view: no mirror link, keys stay out (docs/security.md, "staff views").
        return await staff_peer(db, peer)

    @patch("/{peer_id:str}", operation_id="adminUpdatePeer")
    async def update(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, peer_id: FromPath[str],
        data: JSONBody[schemas.PeerPatch],
    ) -> schemas.StaffPeer:  # fmt: skip
        if data.active is None and data.manual_payment is None:
            raise Invalid("Indique 'active' o 'manual_payment'.", code="nothing_to_change")
        peer = await services.peers.by_id(db, peer_id)
        changes: dict[str, object] = {}
        if data.manual_payment is not None:
            peer.manual_payment = data.manual_payment
            changes["manual_payment"] = data.manual_payment
        if data.active is not None:
            message = None if data.active else f"El peer {peer.name} fue deshabilitado por un administrador."
            await services.peers.set_active(db, peer, data.active, message, by_staff=True)
            changes["active"] = data.active
        await services.audit.record(db, staff, ip, "peer.update", "peer", peer.id, f"{peer.name}: {_summary(changes)}")
        return await staff_peer(db, peer)

    @post("/{peer_id:str}/move", status_code=202, operation_id="adminMovePeer", opt=SUPPORT)
    async def move(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, peer_id: FromPath[str],
        data: JSONBody[schemas.PeerMove],
    ) -> schemas.StaffPeer:  # fmt: skip
        """The customer's own change-server path: the owner's browsers hear the outcome as usual."""
        peer = await services.peers.by_id(db, peer_id)
        origin = peer.server.name
        peer = await services.peers.change_server(db, peer.user_id, peer.id, data.server)
        # The move is pending until the new node confirms (docs/operations.md): the peer still shows its old server.
        target = await db.get_one(Server, peer.pending_server_id)
        await services.audit.record(
            db, staff, ip, "peer.move", "peer", peer.id, f"{peer.name}: {origin} -> {target.name}"
        )
        return await staff_peer(db, peer)

    @post("/{peer_id:str}/plans", status_code=200, operation_id="adminExtendPeer")
    async def extend(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, peer_id: FromPath[str],
        data: JSONBody[schemas.PeerExtend],
    ) -> schemas.StaffPeer:  # fmt: skip
        peer = await services.peers.by_id(db, peer_id)
        plan = await catalogue.get_plan(db, data.plan)
        await services.peers.add_plan(db, peer, plan.id, plan.name, plan.price, plan.validity_hours)
        until = peer.expiration_date.isoformat() if peer.expiration_date else "sin vencimiento"
        await services.audit.record(
            db,
            staff,
            ip,
            "peer.extend",
            "peer",
            peer.id,
            f"{peer.name}: plan {plan.name} ({plan.price} USD), hasta {until}",
        )
        return await staff_peer(db, peer)


class AdminPlanController(Controller):
    path = "/api/admin/plans"
    tags = ["admin"]
    dependencies = STAFF

    @get("/", operation_id="adminListPlans", opt=SUPPORT)
    async def list_plans(self, db: DB, staff: Staff) -> list[schemas.StaffPlan]:
        return await catalogue.all_plans(db)

    @post("/", status_code=201, operation_id="adminCreatePlan")
    async def create(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, data: JSONBody[schemas.PlanInput]
    ) -> schemas.StaffPlan:
        plan = await catalogue.create_plan(db, data)
        await services.audit.record(
            db, staff, ip, "plan.create", "plan", plan.id,
            f"Plan {plan.name}: {plan.price} USD, {plan.validity_hours} h, {'visible' if plan.visible else 'oculto'}",
        )  # fmt: skip
        return catalogue.plan_view(plan)

    @patch("/{plan_id:str}", operation_id="adminUpdatePlan")
    async def update(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, plan_id: FromPath[str],
        data: JSONBody[schemas.PlanPatch],
    ) -> schemas.StaffPlan:  # fmt: skip
        plan, changes = await catalogue.update_plan(db, plan_id, data)
        await services.audit.record(db, staff, ip, "plan.update", "plan", plan.id, f"{plan.name}: {_summary(changes)}")
        return catalogue.plan_view(plan)


class AdminAnnouncementController(Controller):
    path = "/api/admin/announcements"
    tags = ["admin"]
    dependencies = STAFF

    @get("/", operation_id="adminListAnnouncements", opt=SUPPORT)
    async def list_announcements(self, db: DB, staff: Staff) -> list[schemas.StaffAnnouncement]:
        return await catalogue.all_announcements(db)

    @post("/", status_code=201, operation_id="adminCreateAnnouncement")
    async def create(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, data: JSONBody[schemas.AnnouncementInput]
    ) -> schemas.StaffAnnouncement:
        item = await catalogue.create_announcement(db, data)
        await services.audit.record(db, staff, ip, "announcement.create", "announcement", item.id, item.name)
        return catalogue.announcement_view(item)

    @patch("/{announcement_id:str}", operation_id="adminUpdateAnnouncement")
    async def update(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, announcement_id: FromPath[str],
        data: JSONBody[schemas.AnnouncementPatch],
    ) -> schemas.StaffAnnouncement:  # fmt: skip
        item, changes = await catalogue.update_announcement(db, announcement_id, data)
        shown = {k: v for k, v in changes.items() if k != "message"} | (
            {"message": "…"} if "message" in changes else {}
        )
        await services.audit.record(
            db, staff, ip, "announcement.update", "announcement", item.id, f"{item.name}: {_summary(shown)}"
        )
        return catalogue.announcement_view(item)

    @delete("/{announcement_id:str}", status_code=200, operation_id="adminDeleteAnnouncement")
    async def remove(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, announcement_id: FromPath[str]
    ) -> schemas.Done:
        item = await catalogue.delete_announcement(db, announcement_id)
        await services.audit.record(db, staff, ip, "announcement.delete", "announcement", item.id, item.name)
        return schemas.Done(success=True, message="Anuncio eliminado.")


class AdminReleaseController(Controller):
    path = "/api/admin/client-releases"
    tags = ["admin"]
    dependencies = STAFF

    @get("/", operation_id="adminListReleases", opt=SUPPORT)
    async def list_releases(self, db: DB, staff: Staff) -> list[schemas.StaffRelease]:
        return await catalogue.all_releases(db)

    @post("/", status_code=201, operation_id="adminCreateRelease")
    async def create(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, data: JSONBody[schemas.ReleaseInput]
    ) -> schemas.StaffRelease:
        release = await catalogue.create_release(db, data)
        await services.audit.record(
            db, staff, ip, "release.create", "client_release", release.id, f"{release.version} {release.url}"
        )
        return catalogue.release_view(release)

    @delete("/{release_id:str}", status_code=200, operation_id="adminDeleteRelease")
    async def remove(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, release_id: FromPath[str]
    ) -> schemas.Done:
        release = await catalogue.delete_release(db, release_id)
        await services.audit.record(db, staff, ip, "release.delete", "client_release", release.id, release.version)
        return schemas.Done(success=True, message="Versión eliminada.")


class AdminOverviewController(Controller):
    path = "/api/admin"
    tags = ["admin"]
    dependencies = STAFF

    @get("/overview", operation_id="adminOverview", opt=SUPPORT)
    async def read(
        self,
        services: ServicesDep,
        db: DB,
        staff: Staff,
        period: Annotated[str, QueryParameter(pattern="^(day|month)$")] = "month",
    ) -> schemas.Overview:
        money = await revenue_rows(db, period) if staff.role is Role.ADMIN else None
        return await overview(db, money, services.agents.connected_ids())

    @get("/audit", operation_id="adminAuditLog", opt=SUPPORT)
    async def audit(
        self,
        services: ServicesDep,
        db: DB,
        staff: Staff,
        q: Search = "",
        action: Annotated[str, QueryParameter(max_length=48)] = "",
        actor: Annotated[str, QueryParameter(max_length=32)] = "",
        target_type: Annotated[str, QueryParameter(max_length=24)] = "",
        target_id: Annotated[str, QueryParameter(max_length=64)] = "",
        since: Annotated[datetime | None, QueryParameter()] = None,
        until: Annotated[datetime | None, QueryParameter()] = None,
        page: Page = 1,
        page_size: PageSize = 50,
    ) -> AuditPage:
        where = AuditFilter(
            q=q, action=action, actor=actor, target_type=target_type, target_id=target_id, since=since, until=until
        )
        return await services.audit.search(db, where, page, page_size)


class AdminInvoiceController(Controller):
    path = "/api/admin/invoices"
    tags = ["admin"]
    dependencies = STAFF

    @get("/", operation_id="adminSearchInvoices", opt=SUPPORT)
    async def search(
        self,
        db: DB,
        staff: Staff,
        q: Search = "",
        status: Annotated[str, QueryParameter(max_length=16)] = "",
        gateway: Annotated[str, QueryParameter(max_length=16)] = "",
        user: Annotated[str, QueryParameter(max_length=64)] = "",
        page: Page = 1,
        page_size: PageSize = 25,
    ) -> invoices.InvoicePage:
        return await invoices.search_invoices(db, q, status, gateway, user, page, page_size)

    @get("/{invoice_id:str}", operation_id="adminGetInvoice", opt=SUPPORT)
    async def read(self, db: DB, staff: Staff, invoice_id: FromPath[str]) -> invoices.StaffInvoiceDetail:
        return await invoices.invoice_detail(db, invoice_id)

    @post("/{invoice_id:str}/manual-payment", status_code=200, operation_id="adminMarkInvoicePaid")
    async def manual_payment(
        self, services: ServicesDep, db: DB, staff: Staff, ip: ClientIP, invoice_id: FromPath[str],
        data: JSONBody[invoices.ManualPayment],
    ) -> invoices.StaffInvoiceDetail:  # fmt: skip
        """Credited through the payments' own settle path (one conditional update), so it happens once even if the
        gateway's notification arrives at the same moment; in this request's transaction, so the credit and its
        audit entry commit together or not at all. A failed or canceled invoice needs the admin's reason."""
        invoice = await invoices.invoice_detail(db, invoice_id)
        note = data.note.strip()
        was = InvoiceStatus(invoice.status)
        if was in REASON_REQUIRED and not note:
            raise Invalid(
                f"La factura está {invoices.STATUS_NAMES[was]}: indique el motivo del pago manual "
                "(cómo comprobó que el dinero llegó).",
                code="note_required",
                fields={"note": "Obligatorio para una factura fallida o cancelada."},
            )
        raw: dict[str, object] = {"manual": True, "by": staff.username, "note": note}
        if was is not InvoiceStatus.PENDING:
            raw.update(settled_from=was.value, problem=invoice.problem)
        record = PaymentRecord(
            reference=f"{invoices.MANUAL_PREFIX}{invoice.id}",
            remote_id=invoice.remote_id,
            amount=Decimal(invoice.amount),
            status=PaymentStatus.PAID,
            raw=raw,
        )
        outcome = await services.invoices.settle_in(db, invoice.id, record, creditable=STAFF_CREDITABLE)
        if not outcome.credited:
            raise Conflict(
                f"La factura ya está pagada o no se puede acreditar (estado: {invoice.status}).",
                code="invoice_not_creditable",
            )
        summary = f"Pago manual de {invoice.amount} USD ({invoice.plan_name}, {invoice.username})"
        if was is not InvoiceStatus.PENDING:
            summary += f" sobre una factura {invoices.STATUS_NAMES[was]}"
            if invoice.problem:
                summary += f" ({invoice.problem})"
        await services.audit.record(
            db, staff, ip, "invoice.manual_payment", "invoice", invoice.id, summary + (f": {note}" if note else "")
        )
        return await invoices.invoice_detail(db, invoice_id)


MANAGER_CONTROLLERS = [
    AdminInvoiceController,
    AdminServerController,
    AdminUserController,
    AdminPeerController,
    AdminPlanController,
    AdminAnnouncementController,
    AdminReleaseController,
    AdminOverviewController,
]
