"""Invoice rules: opening one, starting its payment at a gateway, crediting it exactly once, and the two jobs.

Crediting never trusts a notification: it only names the payment, which is then read back from the gateway. The
credit itself is one conditional state change (`UPDATE ... WHERE status IN (creditable) RETURNING`) in the same
transaction as the peer creation or extension and its plans_history row, so the same payment seen twice, at the
same time, or after the reconciliation job already handled it, credits once.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.crypto import random_token
from controlplane.db import after_commit, transaction, utcnow
from controlplane.domain.accounts.living import AccountDeleted, lock_living_account
from controlplane.domain.guest_passes.rules import refuse_guest_peer
from controlplane.domain.invoices import schemas
from controlplane.domain.invoices.models import Invoice, InvoiceMode, InvoiceStatus
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.service import PeerService, validate_peer_name
from controlplane.domain.plans.models import Plan
from controlplane.domain.switches.service import Switches
from controlplane.errors import Conflict, DomainError, Invalid, NotFound
from controlplane.payments.base import (
    Gateway,
    GatewayError,
    GatewayUnavailable,
    Notification,
    PaymentRecord,
    PaymentRequest,
    PaymentStatus,
    RejectedNotification,
)
from controlplane.ratelimit import RateLimiter
from controlplane.realtime.hub import PushHub
from controlplane.realtime.messages import ErrorPush, PushMessage, Subject, SuccessPush, UpdatedPeer
from controlplane.settings import RateLimit, Settings

log = logging.getLogger(__name__)

PEER_REQUIRED = "Por favor, seleccione un peer existente o ingrese un nombre para el nuevo peer"
# Statuses a confirmed payment still credits: money that arrived after expiry or a cancel is not lost.
CREDITABLE = (InvoiceStatus.PENDING, InvoiceStatus.EXPIRED, InvoiceStatus.CANCELED)
# What an admin may settle by hand: also a failed invoice (wrong amount paid, gateway down when it was opened), once
# they have checked that the money arrived. Never through a gateway: its word on a failed invoice stays final.
STAFF_CREDITABLE = (*CREDITABLE, InvoiceStatus.FAILED)
# The transaction id of a payment staff credited by hand (the manager's manual payment).
MANUAL_PREFIX = "manual-"
SETTLED = (InvoiceStatus.PAID, InvoiceStatus.FULFILLED)
# Settling these overrides the gateway's last word ("no money" or "a problem"): the admin must say why.
REASON_REQUIRED = (InvoiceStatus.FAILED, InvoiceStatus.CANCELED)
RECONCILE_BATCH = 200
# How many of their invoices a customer's 'Facturas' page lists, newest first (a customer buys a plan a month).
CUSTOMER_LIST_LIMIT = 200
# An invoice's state as its customer reads it (the manager's pages have their own words: staff.STATUS_NAMES).
CUSTOMER_STATUS_TEXT = {
    InvoiceStatus.PENDING: "Pendiente de pago",
    InvoiceStatus.PAID: "Pagada, en proceso",
    InvoiceStatus.FULFILLED: "Pagada",
    InvoiceStatus.CANCELED: "Cancelada",
    InvoiceStatus.EXPIRED: "Vencida sin pago",
    InvoiceStatus.FAILED: "Con problemas: contacte con soporte",
}
# Brands of gateways no longer configured, so an old invoice still reads right.
GATEWAY_BRANDS = {"qvapay": "QvaPay", "remesita": "Remesita"}
RECHECK_OLD = timedelta(minutes=15)
GATEWAY_ORDER = ("qvapay", "remesita")  # which gateway a purchase uses when both are on and none is named
# What PUT /api/client/invoices opens; other modes have their own endpoint and fulfilment (`fulfilments`).
CUSTOMER_MODES = (InvoiceMode.NEW_PEER, InvoiceMode.ADD_PLAN)
# Fulfils a paid invoice of another mode inside the crediting transaction; answers what the buyer is told.
Fulfilment = Callable[[AsyncSession, Invoice], Awaitable[list[PushMessage]]]


class PaymentsDisabled(Conflict):
    code = "payments_disabled"
    message = "Los pagos en línea no están disponibles en este momento. Contacte con soporte para adquirir un plan."


class GatewayDown(DomainError):
    # 502, not 503: the web client reads every 503 as maintenance.
    status_code = 502
    code = "gateway_unavailable"
    message = "La pasarela de pago no responde en este momento. Intente de nuevo en unos minutos."


class InvoiceNotFound(NotFound):
    code = "invoice_not_found"
    message = "Factura no encontrada."


class NotificationRefused(DomainError):
    status_code = 401
    code = "notification_refused"
    message = "Notificación rechazada."


@dataclass(frozen=True)
class Outcome:
    credited: bool
    # credited, pending, canceled, failed, amount_mismatch, already_handled, other_payment, no_reference,
    # settled_by_hand
    reason: str


class InvoiceService:
    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        gateways: dict[str, Gateway],
        peers: PeerService,
        hub: PushHub,
        settings: Settings,
        count_payment: Callable[[str, str], None],
    ) -> None:
        self._sessionmaker = sessionmaker
        self.gateways = gateways
        self._peers = peers
        self._hub = hub
        self._settings = settings
        # Each payment event, by gateway and outcome (the metrics count them).
        self.count_payment = count_payment
        # Modes other domains fulfil (the guest passes register theirs in services.py).
        self.fulfilments: dict[InvoiceMode, Fulfilment] = {}

    # --- purchase -------------------------------------------------------------------------------------------

    def choose_gateway(self, switches: Switches, requested: str | None) -> Gateway:
        enabled = [self.gateways[name] for name in GATEWAY_ORDER if getattr(switches, f"allow_payments_{name}", False)]
        if not enabled:
            raise PaymentsDisabled()
        if not requested:
            return enabled[0]
        chosen = self.gateways.get(requested.strip().lower())
        if chosen is None or chosen not in enabled:
            raise Invalid(
                "La pasarela de pago elegida no está disponible.",
                code="gateway_not_available",
                fields={"gateway": "Pasarela no disponible."},
            )
        return chosen

    async def open(self, db: AsyncSession, user_id: str, data: schemas.InvoiceRequest, switches: Switches) -> Invoice:
        """Validate a purchase and record its invoice (pending, no payment yet)."""
        try:
            mode = InvoiceMode(data.mode or data.operation or "")
            if mode not in CUSTOMER_MODES:
                raise ValueError(mode)
        except ValueError:
            raise Invalid(
                "Modo de compra desconocido: debe ser new_peer o add_plan.",
                code="invalid_mode",
                fields={"mode": "Debe ser new_peer o add_plan."},
            ) from None
        gateway = self.choose_gateway(switches, data.gateway)
        # First, and held until the invoice is committed: a deletion of the account committing meanwhile either
        # waits for this purchase or refuses it (the session was checked before; docs/security.md).
        await lock_living_account(db, user_id)
        plan = await db.get(Plan, str(data.plan))
        if plan is None or not plan.visible or plan.guest_pass:  # a pass is bought for a room (guest_passes/)
            raise NotFound("Plan no encontrado.", code="plan_not_found")
        peer_text = str(data.peer).strip() if data.peer is not None else ""
        if not peer_text:
            raise Invalid(PEER_REQUIRED, code="peer_required", fields={"peer": PEER_REQUIRED})
        peer_id: str | None = None
        if mode is InvoiceMode.NEW_PEER:
            peer_name = validate_peer_name(peer_text)
            if await self._name_taken(db, user_id, peer_name):
                raise Conflict(
                    "Ya tiene un peer con ese nombre.", code="peer_name_taken", fields={"peer": "Ya existe."}
                )
        else:
            peer = await self._peers.owned(db, user_id, peer_text)
            if peer.manual_payment:
                raise Conflict(
                    "Este peer se paga de forma manual: contacte con soporte para renovarlo.",
                    code="manual_payment_peer",
                )
            await refuse_guest_peer(db, peer.id)  # a guest pass's peer lives its hours and ends
            if peer.disabled_by_staff:
                # Paying would not bring it back (docs/security.md): refuse before the customer pays.
                raise Conflict(
                    "Este peer fue deshabilitado por un administrador: contacte con soporte antes de renovarlo.",
                    code="peer_disabled_by_staff",
                )
            peer_id, peer_name = peer.id, peer.name
        if not gateway.configured:
            log.error("%s is enabled but its credentials are not set (VPN_%s_*)", gateway.name, gateway.name.upper())
            raise GatewayDown(
                "La pasarela de pago no está configurada. Contacte con soporte.", code="gateway_not_configured"
            )
        invoice = Invoice(
            remote_id=random_token(18),
            user_id=user_id,
            gateway=gateway.name,
            mode=mode,
            plan_id=plan.id,
            plan_name=plan.name,
            validity_hours=plan.validity_hours,
            amount=plan.price,
            peer_id=peer_id,
            peer_name=peer_name,
        )
        db.add(invoice)
        await db.flush()
        return invoice

    async def start_payment(self, db: AsyncSession, invoice: Invoice) -> Invoice:
        """Ask the gateway for the payment page. The invoice is committed first and the transaction released, so no
        database lock is held while the gateway answers; if it fails, the invoice stays, marked failed, for admins."""
        await db.commit()
        gateway = self.gateways[invoice.gateway]
        request = PaymentRequest(
            remote_id=invoice.remote_id,
            amount=invoice.amount,
            description=f"{self._settings.product_name}: plan {invoice.plan_name}, peer {invoice.peer_name}",
            notify_url=gateway.notify_url(invoice.remote_id),
            success_url=self._return_url(invoice.remote_id, "success"),
            cancel_url=self._return_url(invoice.remote_id, "canceled"),
            item=f"Plan {invoice.plan_name}",
        )
        try:
            created = await gateway.create_payment(request)
        except (GatewayUnavailable, GatewayError) as exc:
            log.warning("invoice %s: %s did not create the payment: %s", invoice.remote_id, gateway.name, exc)
            invoice.status = InvoiceStatus.FAILED
            invoice.problem = str(exc)[:255]
            await db.commit()
            self.count_payment(gateway.name, "failed")
            if isinstance(exc, GatewayUnavailable):
                raise GatewayDown() from exc
            raise GatewayDown(
                "La pasarela de pago rechazó la solicitud. Intente de nuevo más tarde o contacte con soporte.",
                code="gateway_error",
            ) from exc
        invoice.payment_url = created.payment_url
        invoice.transaction_id = created.reference
        invoice.gateway_record = {"created": created.raw}
        await db.flush()
        self._count(db, gateway.name, "created")
        return invoice

    def _return_url(self, remote_id: str, status: str) -> str:
        return f"{self._settings.client_url}/api/payments/return/{remote_id}?status={status}"

    async def return_target(self, db: AsyncSession, remote_id: str, status: str) -> str:
        """Where the customer's browser lands after the gateway: the dashboard's payment page."""
        invoice = await self._by_remote_id(db, remote_id)
        params = {"status": status if status in ("success", "canceled") else "unknown"}
        if invoice is not None and invoice.transaction_id:
            params["transaction_uuid"] = invoice.transaction_id
        params["remote_id"] = remote_id
        return f"{self._settings.client_url}/dashboard/payment?{urlencode(params)}"

    async def came_back_canceled(self, remote_id: str, limiter: RateLimiter, limit: RateLimit) -> None:
        """The customer's browser came back from the gateway saying "canceled". The browser's word marks nothing:
        the payment is read back from the gateway, and the invoice is marked canceled only if the gateway says so
        (`settle`). A gateway that cannot be asked now leaves it pending; its notification or the reconciliation
        job settles it later.

        Anyone can replay the return URL, and each read-back is a question to the gateway: they are counted per
        invoice, not per address (behind a carrier's NAT a whole town is one address). Past the limit the browser is
        still sent back, only without asking; the job settles the invoice anyway."""
        gateway = await self._pending_gateway(remote_id)
        if gateway is None:
            return
        if await limiter.count(f"payment-returns:{remote_id}", limit.window_seconds) > limit.attempts:
            log.info("invoice %.64s: return read-backs over the limit, not asking the gateway", remote_id)
            return
        try:
            await self.check(gateway, remote_id)
        except (GatewayUnavailable, GatewayError, InvoiceNotFound, NotificationRefused) as exc:
            log.info("invoice %.64s: not read back on the customer's return: %s", remote_id, exc)

    async def _pending_gateway(self, remote_id: str) -> str | None:
        """The gateway of a pending invoice whose payment it created, else None (nothing to ask)."""
        async with self._sessionmaker() as db:
            invoice = await self._by_remote_id(db, remote_id)
        if invoice is None or invoice.status is not InvoiceStatus.PENDING or not invoice.transaction_id:
            return None
        return invoice.gateway

    # --- reading --------------------------------------------------------------------------------------------

    async def owned(self, db: AsyncSession, user_id: str, remote_id: str) -> Invoice:
        """The user's own invoice; anyone else's answers exactly like a missing one."""
        invoice = await self._by_remote_id(db, remote_id)
        if invoice is None or invoice.user_id != user_id:
            raise InvoiceNotFound()
        return invoice

    def details(self, invoice: Invoice) -> schemas.InvoiceDetails:
        return schemas.InvoiceDetails(
            remote_id=invoice.remote_id,
            plan_name=invoice.plan_name,
            peer_name=invoice.peer_name,
            amount=f"{invoice.amount:.2f}",
            transaction_uuid=invoice.transaction_id,
            status=invoice.status.value,
            gateway=invoice.gateway,
            created=invoice.created,
        )

    async def list_for(self, db: AsyncSession, user_id: str) -> list[schemas.InvoiceListItem]:
        """The user's own invoices, newest first: never anyone else's (the query is by owner, nothing else)."""
        rows = await db.execute(
            select(Invoice, Peer.name)
            .outerjoin(Peer, Peer.id == Invoice.peer_id)
            .where(Invoice.user_id == user_id)
            .order_by(Invoice.created.desc(), Invoice.id)
            .limit(CUSTOMER_LIST_LIMIT)
        )
        return [self._list_item(invoice, current_name) for invoice, current_name in rows.tuples()]

    def _list_item(self, invoice: Invoice, current_peer_name: str | None) -> schemas.InvoiceListItem:
        gateway = self.gateways.get(invoice.gateway)
        brand = gateway.label if gateway else GATEWAY_BRANDS.get(invoice.gateway, invoice.gateway)
        return schemas.InvoiceListItem(
            remote_id=invoice.remote_id,
            plan_name=invoice.plan_name,
            peer_name=current_peer_name or invoice.peer_name,
            amount=f"{invoice.amount:.2f}",
            gateway=invoice.gateway,
            gateway_name=brand,
            status=invoice.status.value,
            status_text=CUSTOMER_STATUS_TEXT[invoice.status],
            receipt=invoice.status in SETTLED,
            transaction_uuid=invoice.transaction_id,
            created=invoice.created,
            paid_at=invoice.paid_at,
            payment_url=invoice.payment_url if invoice.status is InvoiceStatus.PENDING else None,
        )

    async def _by_remote_id(self, db: AsyncSession, remote_id: str) -> Invoice | None:
        if len(remote_id) > 64:
            return None
        return (await db.execute(select(Invoice).where(Invoice.remote_id == remote_id))).scalar_one_or_none()

    # --- crediting ------------------------------------------------------------------------------------------

    async def notified(self, gateway_name: str, body: bytes, headers: dict[str, str], path: dict[str, str]) -> Outcome:
        """A gateway's notification: verified, then the payment read back, then credited at most once."""
        gateway = self.gateways[gateway_name]
        try:
            notification = gateway.verify_notification(body, headers, path)
        except RejectedNotification as exc:
            log.warning("%s notification refused: %s", gateway_name, exc)
            self.count_payment(gateway_name, "rejected")
            raise NotificationRefused() from exc
        if notification.hint:
            return await self._hinted(gateway_name, notification)
        return await self.check(gateway_name, notification.remote_id, notification.reference)

    async def _hinted(self, gateway_name: str, hint: Notification) -> Outcome:
        """An unsigned notification (QvaPay's webhook as qvapaykit describes it): it only says which of our invoices
        to read back now, by its remote id or its transaction UUID. Anyone can send one (the caller throttles them
        per address); the credit comes only from what the gateway answers when asked with our credentials."""
        async with self._sessionmaker() as db:
            if hint.remote_id:
                invoice = await self._by_remote_id(db, hint.remote_id)
            else:
                invoice = (
                    await db.execute(
                        select(Invoice).where(Invoice.gateway == gateway_name, Invoice.transaction_id == hint.reference)
                    )
                ).scalar_one_or_none()
        if invoice is None or invoice.gateway != gateway_name:
            log.warning("%s unsigned notification names no invoice of ours: ignored", gateway_name)
            raise InvoiceNotFound()
        if hint.reference and invoice.transaction_id and hint.reference != invoice.transaction_id:
            # Not the invoice's payment: nothing to read back. Answered 200 all the same (a hint never gets more).
            log.warning("invoice %s: unsigned notification names another payment: ignored", invoice.remote_id)
            return Outcome(False, "other_payment")
        return await self.check(gateway_name, invoice.remote_id, hint.reference)

    async def check(self, gateway_name: str, remote_id: str, reference: str | None = None) -> Outcome:
        """Read the invoice's payment back from its gateway and credit it if the gateway says it is paid."""
        async with self._sessionmaker() as db:
            invoice = await self._by_remote_id(db, remote_id)
        if invoice is None or invoice.gateway != gateway_name:
            log.warning("%s notification for an unknown invoice %.64s: ignored", gateway_name, remote_id)
            raise InvoiceNotFound()
        if (invoice.transaction_id or "").startswith(MANUAL_PREFIX) and invoice.status in SETTLED:
            # Staff credited it by hand; the gateway's (verified) notification still wants its 200, or it retries
            # forever. Nothing more is credited; staff decide about a payment made twice (docs/payments.md).
            log.warning("invoice %s settled by hand: %s notifies a payment too, not credited", remote_id, gateway_name)
            return Outcome(False, "settled_by_hand")
        if invoice.transaction_id and reference and reference != invoice.transaction_id:
            log.warning("invoice %s: notification names another payment (%.64s): refused", remote_id, reference)
            raise NotificationRefused()
        known = invoice.transaction_id or reference
        if not known:
            log.warning("invoice %s: no gateway reference to read the payment back", remote_id)
            return Outcome(False, "no_reference")
        record = await self.gateways[gateway_name].lookup(known, remote_id)  # GatewayUnavailable: caller retries
        if not invoice.transaction_id and record.remote_id != invoice.remote_id:
            # The payment was named by the notification alone: only the gateway's word that it is this invoice's counts.
            log.warning("invoice %s: the notified payment is not this invoice's: not credited", remote_id)
            return Outcome(False, "other_payment")
        return await self.settle(invoice.id, record)

    async def settle(self, invoice_id: str, record: PaymentRecord) -> Outcome:
        """Apply what the gateway said about the invoice's payment, in one transaction."""
        async with transaction(self._sessionmaker) as db:
            return await self.settle_in(db, invoice_id, record)

    async def settle_in(
        self,
        db: AsyncSession,
        invoice_id: str,
        record: PaymentRecord,
        creditable: tuple[InvoiceStatus, ...] = CREDITABLE,
    ) -> Outcome:
        """`settle` inside the caller's transaction (the manager's manual payment, whose audit entry must commit
        or roll back with the credit). Nothing here commits; the caller's commit makes it all visible at once.
        `creditable`: the statuses the payment may still credit (STAFF_CREDITABLE for an admin's manual payment)."""
        invoice = await db.get(Invoice, invoice_id)
        if invoice is None:
            raise InvoiceNotFound()
        if record.remote_id is not None and record.remote_id != invoice.remote_id:
            log.warning(
                "invoice %s: the gateway's payment belongs to %.64s: not credited",
                invoice.remote_id,
                record.remote_id,
            )
            return Outcome(False, "other_payment")
        if record.status is PaymentStatus.PENDING:
            # Marks when it was last asked: the reconciliation job asks old invoices less often.
            await db.execute(update(Invoice).where(Invoice.id == invoice_id).values(updated=utcnow()))
            return Outcome(False, "pending")
        if record.status is not PaymentStatus.PAID:
            final = InvoiceStatus.CANCELED if record.status is PaymentStatus.CANCELED else InvoiceStatus.FAILED
            ended = await db.execute(
                update(Invoice)
                .where(Invoice.id == invoice_id, Invoice.status == InvoiceStatus.PENDING)
                .values(status=final, gateway_record=self._record(invoice, record), updated=utcnow())
            )
            if ended.rowcount:  # type: ignore[attr-defined]
                self._count(db, invoice.gateway, final.value)
            return Outcome(False, final.value)
        if record.amount != invoice.amount:
            problem = f"importe pagado {record.amount} USD distinto del de la factura {invoice.amount} USD"
            ended = await db.execute(
                update(Invoice)
                .where(Invoice.id == invoice_id, Invoice.status.in_(CREDITABLE))
                .values(
                    status=InvoiceStatus.FAILED,
                    problem=problem,
                    gateway_record=self._record(invoice, record),
                    updated=utcnow(),
                )
            )
            log.warning("invoice %s: %s: not credited", invoice.remote_id, problem)
            if ended.rowcount:  # type: ignore[attr-defined]
                self._count(db, invoice.gateway, "failed")
            return Outcome(False, "amount_mismatch")
        claimed = (
            await db.execute(
                update(Invoice)
                .where(Invoice.id == invoice_id, Invoice.status.in_(creditable))
                .values(
                    status=InvoiceStatus.PAID,
                    paid_at=utcnow(),
                    transaction_id=record.reference,
                    gateway_record=self._record(invoice, record),
                    problem=None,
                    updated=utcnow(),
                )
                .returning(Invoice.id)
            )
        ).scalar_one_or_none()
        if claimed is None:
            return Outcome(False, "already_handled")
        log.info("invoice %s paid through %s (%s USD)", invoice.remote_id, invoice.gateway, invoice.amount)
        self._count(db, invoice.gateway, "paid")
        await self._fulfil(db, invoice_id)
        return Outcome(True, "credited")

    def _count(self, db: AsyncSession, gateway: str, outcome: str) -> None:
        """Count a payment outcome once its transaction has committed: a rolled-back settle counts nothing."""

        async def count() -> None:
            self.count_payment(gateway, outcome)

        after_commit(db, count)

    @staticmethod
    def _record(invoice: Invoice, record: PaymentRecord) -> dict[str, Any]:
        kept = dict(invoice.gateway_record or {})
        if record.status is PaymentStatus.PAID and kept.get("payment") not in (None, record.raw):
            # What the gateway said before (a wrong amount, a cancel) stays readable beside the payment that credits.
            kept["earlier_payment"] = kept["payment"]
        kept["payment"] = record.raw
        return kept

    async def _fulfil(self, db: AsyncSession, invoice_id: str) -> bool:
        """Create or extend the peer of a paid invoice (held by the caller's conditional update). A failure here
        (no server with room, the peer deleted) keeps the invoice paid for the job to retry: money is never lost."""
        invoice = await db.get(Invoice, invoice_id, populate_existing=True)
        assert invoice is not None
        try:
            async with db.begin_nested():
                peer, pushes = await self._apply(db, invoice)
        except DomainError as exc:
            problem = exc.message[:255]
            log.warning("invoice %s paid but not fulfilled yet: %s", invoice.remote_id, exc.message)
            if invoice.problem == problem:
                return False  # the customer was told at the first try; the job retries every minute
            invoice.problem = problem
            await db.flush()
            self._push(
                db,
                invoice.user_id,
                ErrorPush(
                    message=f"Pago recibido, pero no se pudo completar la compra: {exc.message} "
                    "Lo reintentaremos en unos minutos.",
                ),
            )
            return False
        invoice.status = InvoiceStatus.FULFILLED
        invoice.fulfilled_at = utcnow()
        self._count(db, invoice.gateway, "fulfilled")
        if peer is not None:
            invoice.peer_id, invoice.peer_name = peer.id, peer.name
        invoice.problem = None
        await db.flush()
        for push in pushes:
            self._push(db, invoice.user_id, push)
        return True

    async def _apply(self, db: AsyncSession, invoice: Invoice) -> tuple[Peer | None, list[PushMessage]]:
        try:
            # Locked as a deletion locks it: a payment settling while the account is deleted makes no peer.
            await lock_living_account(db, invoice.user_id)
        except AccountDeleted:
            # Paid after the account was deleted: kept `paid` with this problem for staff to refund.
            raise Conflict("La cuenta fue eliminada; el pago queda para reembolso.", code="account_deleted") from None
        if invoice.mode in self.fulfilments:
            return None, await self.fulfilments[invoice.mode](db, invoice)
        validity = timedelta(hours=invoice.validity_hours)
        plan = (invoice.plan_id, invoice.plan_name, invoice.amount)
        if invoice.mode is InvoiceMode.NEW_PEER:
            peer = await self._create_peer(db, invoice, utcnow() + validity, plan)
            # created_peer follows when the node confirms (PeerService tells the owner).
            creating = f"Pago recibido. Creando el peer {peer.name}..."
            return peer, [SuccessPush(message=creating, data=Subject(peer_id=peer.id))]
        if invoice.peer_id is None:
            raise Conflict("El peer de esta compra ya no existe; contacte con soporte.", code="peer_gone")
        peer = await self._peers.owned(db, invoice.user_id, invoice.peer_id, lock=True)
        if peer.expiration_date is None:
            # What was paid for is dated time from now: a peer staff made without an end starts counting today
            # (the manager's own extension, by contrast, leaves such a peer unlimited).
            peer.expiration_date = utcnow()
        await self._peers.add_plan(db, peer, invoice.plan_id, invoice.plan_name, invoice.amount, invoice.validity_hours)
        message = f"Pago recibido. Plan {invoice.plan_name} añadido al peer {peer.name}."
        await db.flush()  # the view carries the version of what it shows (domain/versions.py)
        return peer, [
            UpdatedPeer(data=self._peers.view(peer)),
            SuccessPush(message=message, data=Subject(peer_id=peer.id)),
        ]

    async def _create_peer(
        self, db: AsyncSession, invoice: Invoice, expiration: Any, plan: tuple[str | None, str, Any]
    ) -> Peer:
        """The name chosen at purchase, or, if another purchase took it meanwhile, the same with a number."""
        base = invoice.peer_name
        candidates = [base] + [f"{base[:28]}-{n}" for n in range(2, 100)]
        for name in candidates:
            try:
                return await self._peers.create(db, invoice.user_id, name, expiration_date=expiration, plan=plan)
            except Conflict as exc:
                if exc.code != "peer_name_taken":
                    raise
        raise Conflict("No se encontró un nombre libre para el peer.", code="peer_name_taken")

    def _push(self, db: AsyncSession, user_id: str, push: PushMessage) -> None:
        send: Callable[[], Any] = lambda: self._hub.push(user_id, push)  # noqa: E731
        after_commit(db, send)

    async def _name_taken(self, db: AsyncSession, user_id: str, name: str) -> bool:
        taken = await db.scalar(
            select(func.count()).select_from(Peer).where(Peer.user_id == user_id, func.lower(Peer.name) == name.lower())
        )
        return bool(taken)

    # --- jobs -----------------------------------------------------------------------------------------------

    async def reconcile(self, _job_db: AsyncSession | None = None) -> int:
        """Job: read back every pending invoice's payment (finds payments whose notification never came) and retry
        paid invoices not fulfilled yet. It ignores the job's session and opens short ones of its own, so that no
        database lock is held while gateways answer."""
        now = utcnow()
        recent = now - timedelta(hours=2 * self._settings.invoice_ttl_hours)
        # Fresh invoices are asked about every run; after an hour unpaid, every RECHECK_OLD (abandoned carts are
        # the common case, and each question is a call to the gateway).
        due = (Invoice.created > now - timedelta(hours=1)) | (Invoice.updated < now - RECHECK_OLD)
        async with self._sessionmaker() as db:
            rows = (
                await db.execute(
                    select(Invoice.id, Invoice.gateway, Invoice.remote_id, Invoice.transaction_id)
                    .where(
                        Invoice.transaction_id.is_not(None),
                        (Invoice.status == InvoiceStatus.PENDING)
                        | ((Invoice.status == InvoiceStatus.EXPIRED) & (Invoice.created > recent)),
                        due,
                    )
                    .order_by(Invoice.created)
                    .limit(RECONCILE_BATCH)
                )
            ).all()
        credited = 0
        for invoice_id, gateway_name, remote_id, reference in rows:
            try:
                record = await self.gateways[gateway_name].lookup(reference, remote_id)
            except (GatewayUnavailable, GatewayError) as exc:
                log.info("reconcile: invoice %s not checked: %s", remote_id, exc)
                continue
            if (await self.settle(invoice_id, record)).credited:
                credited += 1
        return credited + await self.retry_unfulfilled()

    async def retry_unfulfilled(self) -> int:
        async with self._sessionmaker() as db:
            ids = (await db.execute(select(Invoice.id).where(Invoice.status == InvoiceStatus.PAID))).scalars().all()
        done = 0
        for invoice_id in ids:
            async with transaction(self._sessionmaker) as db:
                held = (
                    await db.execute(
                        update(Invoice)
                        .where(Invoice.id == invoice_id, Invoice.status == InvoiceStatus.PAID)
                        .values(updated=utcnow())
                        .returning(Invoice.id)
                    )
                ).scalar_one_or_none()
                if held is not None and await self._fulfil(db, invoice_id):
                    done += 1
        return done

    async def expire_stale(self, db: AsyncSession) -> int:
        """Job: pending invoices older than the invoice lifetime expire (a later confirmed payment still credits)."""
        cutoff = utcnow() - timedelta(hours=self._settings.invoice_ttl_hours)
        result = await db.execute(
            update(Invoice)
            .where(Invoice.status == InvoiceStatus.PENDING, Invoice.created < cutoff)
            .values(status=InvoiceStatus.EXPIRED, updated=utcnow())
        )
        return int(result.rowcount)  # type: ignore[attr-defined]
