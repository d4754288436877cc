"""Payment links: "alguien paga por mí" (docs/payments.md, "Payment links").

A customer makes a link for one plan on one of their peers; whoever opens it pays without an account. Paying opens
an ordinary add_plan invoice of the link's owner (InvoiceService.open and start_payment): the same rules (a peer
paid by hand or disabled by staff cannot be renewed), the same gateways, notifications, return, reconciliation and
the one conditional credit. The link only records which invoices it opened, so the payer can be sent back to its
page and shown that payment's state, and nothing of any other.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.crypto import SecretBox, random_token
from controlplane.db import utcnow
from controlplane.domain.accounts.models import User
from controlplane.domain.guest_passes.rules import refuse_guest_peer
from controlplane.domain.invoices import schemas as invoice_schemas
from controlplane.domain.invoices.models import Invoice
from controlplane.domain.invoices.service import CUSTOMER_STATUS_TEXT, GATEWAY_ORDER, InvoiceService
from controlplane.domain.paylinks import schemas
from controlplane.domain.paylinks.models import PaymentLink, PaymentLinkInvoice
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.service import owned_peer
from controlplane.domain.plans.models import Plan
from controlplane.domain.switches.service import Switches
from controlplane.errors import Conflict, DomainError, NotFound

# Long enough for family abroad to get to it, short enough that a forgotten link stops working by itself.
LINK_LIFETIME = timedelta(days=7)
# Live links one customer may hold: a handful of devices, a plan or two each.
MAX_LIVE_LINKS = 10
TOKEN_BYTES = 24  # 32 URL-safe characters, 192 bits: not guessable, not enumerable
TOKEN_MAX = 64  # longer path parameters are not looked up at all
PAGE = "/pagar"


class LinkNotFound(NotFound):
    code = "payment_link_not_found"
    message = "Este enlace de pago no existe. Revise que lo copió completo."


class LinkGone(DomainError):
    status_code = 410
    code = "payment_link_gone"


def link_revoked() -> LinkGone:
    return LinkGone(
        "Este enlace de pago fue anulado por quien lo compartió. Pídale uno nuevo.", code="payment_link_revoked"
    )


def link_expired() -> LinkGone:
    return LinkGone("Este enlace de pago venció. Pida uno nuevo a quien se lo compartió.", code="payment_link_expired")


class PaymentLinkService:
    def __init__(self, box: SecretBox, invoices: InvoiceService, client_url: str) -> None:
        self._box = box
        self._invoices = invoices
        self._client_url = client_url

    # --- the owner ----------------------------------------------------------------------------------------------

    async def create(self, db: AsyncSession, user_id: str, data: schemas.PaymentLinkRequest) -> PaymentLink:
        peer = await owned_peer(db, user_id, data.peer.strip())
        plan = await db.get(Plan, data.plan.strip())
        if plan is None or not plan.visible or plan.guest_pass:
            raise NotFound("Plan no encontrado.", code="plan_not_found")
        # The same refusals as the owner's own purchase, before anyone is asked to pay (InvoiceService.open).
        if peer.manual_payment:
            raise Conflict(
                "Este peer se paga de forma manual: contacte con soporte para renovarlo.", code="manual_payment_peer"
            )
        if peer.disabled_by_staff:
            raise Conflict(
                "Este peer fue deshabilitado por un administrador: contacte con soporte antes de renovarlo.",
                code="peer_disabled_by_staff",
            )
        await refuse_guest_peer(db, peer.id)
        await db.execute(select(User.id).where(User.id == user_id).with_for_update())  # one creation at a time
        live = await db.scalar(select(func.count()).select_from(PaymentLink).where(*self._live(user_id)))
        if (live or 0) >= MAX_LIVE_LINKS:
            raise Conflict(
                f"Ya tiene {MAX_LIVE_LINKS} enlaces de pago activos. Anule alguno antes de crear otro.",
                code="payment_link_limit",
            )
        token = random_token(TOKEN_BYTES)
        link = PaymentLink(
            user_id=user_id,
            peer_id=peer.id,
            plan_id=plan.id,
            token_hash=self._box.lookup_hash(token),
            token_enc=self._box.encrypt(token),
            expires_at=utcnow() + LINK_LIFETIME,
        )
        db.add(link)
        await db.flush()
        return link

    async def list_for(self, db: AsyncSession, user_id: str) -> list[schemas.PaymentLinkView]:
        rows = await db.execute(
            select(PaymentLink, Peer.name, Plan.name, Plan.price)
            .join(Peer, Peer.id == PaymentLink.peer_id)
            .join(Plan, Plan.id == PaymentLink.plan_id)
            .where(*self._live(user_id))
            .order_by(PaymentLink.created.desc())
        )
        return [self._view(link, peer_name, plan_name, str(price)) for link, peer_name, plan_name, price in rows]

    async def view(self, db: AsyncSession, link: PaymentLink) -> schemas.PaymentLinkView:
        peer, plan = await db.get_one(Peer, link.peer_id), await db.get_one(Plan, link.plan_id)
        return self._view(link, peer.name, plan.name, str(plan.price))

    async def revoke(self, db: AsyncSession, user_id: str, link_id: str) -> None:
        done = await db.execute(
            update(PaymentLink)
            .where(PaymentLink.id == link_id, PaymentLink.user_id == user_id, PaymentLink.revoked_at.is_(None))
            .values(revoked_at=utcnow())
            .returning(PaymentLink.id)
        )
        if done.scalar_one_or_none() is None:
            # Someone else's link answers like a missing one.
            raise NotFound("Enlace de pago no encontrado.", code="payment_link_not_found")

    # --- the payer ----------------------------------------------------------------------------------------------

    async def by_token(self, db: AsyncSession, token: str) -> PaymentLink:
        """The live link a token names; a revoked or expired one says which, in Spanish."""
        link = None
        if 0 < len(token) <= TOKEN_MAX:
            link = (
                await db.execute(select(PaymentLink).where(PaymentLink.token_hash == self._box.lookup_hash(token)))
            ).scalar_one_or_none()
        if link is None:
            raise LinkNotFound()
        if link.revoked_at is not None:
            raise link_revoked()
        if link.expires_at <= utcnow():
            raise link_expired()
        return link

    async def public_view(
        self, db: AsyncSession, link: PaymentLink, switches: Switches, payment: str | None
    ) -> schemas.PublicPaymentLink:
        peer, plan = await db.get_one(Peer, link.peer_id), await db.get_one(Plan, link.plan_id)
        owner = await db.get_one(User, link.user_id)
        gateways = [
            schemas.PublicGateway(name, self._invoices.gateways[name].label)
            for name in GATEWAY_ORDER
            if getattr(switches, f"allow_payments_{name}", False) and name in self._invoices.gateways
        ]
        return schemas.PublicPaymentLink(
            plan_name=plan.name,
            plan_description=plan.description,
            validity_hours=plan.validity_hours,
            amount=str(plan.price),
            peer_name=peer.name,
            owner=owner.alias or None,
            expires_at=link.expires_at,
            gateways=gateways,
            payment=await self._payment(db, link, payment) if payment else None,
        )

    async def pay(
        self, db: AsyncSession, link: PaymentLink, data: schemas.PublicPayRequest, switches: Switches
    ) -> Invoice:
        """Open the owner's add_plan invoice for the link's plan and peer, then its payment at the gateway (which
        commits first: no transaction is open while the gateway answers)."""
        request = invoice_schemas.InvoiceRequest(
            plan=link.plan_id, mode="add_plan", peer=link.peer_id, gateway=data.gateway
        )
        invoice = await self._invoices.open(db, link.user_id, request, switches)
        db.add(PaymentLinkInvoice(invoice_id=invoice.id, link_id=link.id))
        await db.flush()
        return await self._invoices.start_payment(db, invoice)

    async def return_target(self, db: AsyncSession, remote_id: str, status: str) -> str | None:
        """Where a payer's browser lands after the gateway: the link's page, told which payment it came back from.
        None for an invoice no link opened (the owner's own purchase goes to the dashboard)."""
        found = (
            await db.execute(
                select(PaymentLink.token_enc)
                .join(PaymentLinkInvoice, PaymentLinkInvoice.link_id == PaymentLink.id)
                .join(Invoice, Invoice.id == PaymentLinkInvoice.invoice_id)
                .where(Invoice.remote_id == remote_id)
            )
        ).scalar_one_or_none()
        if found is None:
            return None
        status = status if status in ("success", "canceled") else "unknown"
        return f"{self._url(self._box.decrypt(found))}?status={status}&payment={remote_id}"

    def gateway_label(self, name: str) -> str:
        return self._invoices.gateways[name].label

    # --- helpers ------------------------------------------------------------------------------------------------

    async def _payment(self, db: AsyncSession, link: PaymentLink, remote_id: str) -> schemas.PublicPayment | None:
        invoice = (
            await db.execute(
                select(Invoice)
                .join(PaymentLinkInvoice, PaymentLinkInvoice.invoice_id == Invoice.id)
                .where(Invoice.remote_id == remote_id, PaymentLinkInvoice.link_id == link.id)
            )
        ).scalar_one_or_none()
        if invoice is None:
            return None
        return schemas.PublicPayment(invoice.remote_id, invoice.status.value, CUSTOMER_STATUS_TEXT[invoice.status])

    @staticmethod
    def _live(user_id: str) -> tuple[ColumnElement[bool], ...]:
        return (PaymentLink.user_id == user_id, PaymentLink.revoked_at.is_(None), PaymentLink.expires_at > utcnow())

    def _url(self, token: str) -> str:
        return f"{self._client_url}{PAGE}/{token}"

    def _view(self, link: PaymentLink, peer_name: str, plan_name: str, amount: str) -> schemas.PaymentLinkView:
        return schemas.PaymentLinkView(
            id=link.id,
            url=self._url(self._box.decrypt(link.token_enc)),
            peer_id=link.peer_id,
            peer_name=peer_name,
            plan_id=link.plan_id,
            plan_name=plan_name,
            amount=amount,
            created=link.created,
            expires_at=link.expires_at,
        )
