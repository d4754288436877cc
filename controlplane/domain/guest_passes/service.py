"""Guest passes (issue 33, item 4): a room owner buys a short plan for a friend; the friend claims it with their own
account and gets a peer in that room only, which ends by itself after the pass's hours (docs/payments.md,
"Guest passes").

Buying opens an ordinary invoice of the owner (mode guest_pass) and starts its payment through the same gateways,
notifications, reconciliation and single conditional credit as every purchase; the credit calls `paid` (registered
as the mode's fulfilment), which only makes the pass claimable. Claiming is a conditional update too, so a link
used twice, or by two friends at once, gives one peer.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.crypto import SecretBox, random_token
from controlplane.db import utcnow
from controlplane.domain.accounts.living import lock_living_account
from controlplane.domain.accounts.models import User
from controlplane.domain.guest_passes import schemas
from controlplane.domain.guest_passes.models import GuestPass
from controlplane.domain.invoices.models import Invoice, InvoiceMode, InvoiceStatus
from controlplane.domain.invoices.service import GatewayDown, InvoiceService
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.service import PeerService, validate_peer_name
from controlplane.domain.plans.models import Plan
from controlplane.domain.rooms.errors import OwnerOnly
from controlplane.domain.rooms.models import Room, RoomMember
from controlplane.domain.rooms.service import ALIAS_REQUIRED, RoomService
from controlplane.domain.servers.models import Server
from controlplane.domain.switches.service import Switches
from controlplane.errors import Conflict, DomainError, NotFound
from controlplane.realtime.messages import PushMessage, Subject, SuccessPush

# A paid pass waits this long for its friend; then the link stops working (the money is the owner's risk, as for a
# gift card: docs/payments.md says why there is no refund).
CLAIM_WINDOW = timedelta(days=7)
TOKEN_BYTES = 24  # 32 URL-safe characters: not guessable, not enumerable
TOKEN_MAX = 64
PAGE = "/pase"
DEFAULT_PEER_NAME = "invitado"
INVOICE_PEER_NAME = "pase de invitado"  # what the invoice names in place of a peer (the peer comes at the claim)
# Passes a buyer may have waiting for payment or a friend at once: enough for a LAN night, not a flood of invoices.
MAX_OPEN = 10

STATUS_TEXT = {
    "pending_payment": "Pendiente de pago",
    "unpaid": "Sin pagar",
    "ready": "Listo para compartir",
    "claimed": "En uso",
    "ended": "Terminado",
    "expired": "Venció sin reclamar",
    "room_gone": "La sala ya no existe",
}


class PassNotFound(NotFound):
    code = "guest_pass_not_found"
    message = "Este pase de invitado no existe. Revise que copió el enlace completo."


class PassGone(DomainError):
    status_code = 410
    code = "guest_pass_gone"


class PassNotPaid(Conflict):
    code = "guest_pass_not_paid"
    message = "Este pase de invitado todavía no está pagado. Pida a quien se lo regaló que complete el pago."


def pass_claimed() -> PassGone:
    return PassGone("Este pase de invitado ya fue reclamado: cada pase sirve una sola vez.", code="guest_pass_claimed")


def pass_expired() -> PassGone:
    return PassGone(
        "Este pase de invitado venció sin ser reclamado. Pida uno nuevo a quien se lo regaló.",
        code="guest_pass_expired",
    )


def room_gone() -> PassGone:
    return PassGone("La sala de este pase de invitado ya no existe.", code="guest_pass_room_gone")


def status_of(guest_pass: GuestPass, invoice_status: InvoiceStatus, now: datetime) -> str:
    if guest_pass.claimed_at is not None:
        return "ended" if guest_pass.ends_at is not None and guest_pass.ends_at <= now else "claimed"
    if guest_pass.paid_at is None:
        waiting = invoice_status in (InvoiceStatus.PENDING, InvoiceStatus.PAID)
        return "pending_payment" if waiting else "unpaid"
    if guest_pass.room_id is None:
        return "room_gone"
    if guest_pass.claim_by is not None and guest_pass.claim_by <= now:
        return "expired"
    return "ready"


class GuestPassService:
    def __init__(
        self, box: SecretBox, invoices: InvoiceService, peers: PeerService, rooms: RoomService, client_url: str
    ) -> None:
        self._box = box
        self._invoices = invoices
        self._peers = peers
        self._rooms = rooms
        self._client_url = client_url
        invoices.fulfilments[InvoiceMode.GUEST_PASS] = self.paid

    # --- the owner ----------------------------------------------------------------------------------------------

    async def plans(self, db: AsyncSession) -> list[schemas.GuestPassPlan]:
        rows = await db.execute(
            select(Plan).where(Plan.guest_pass.is_(True), Plan.visible.is_(True)).order_by(Plan.sort_order, Plan.price)
        )
        return [
            schemas.GuestPassPlan(p.id, p.name, p.description, p.validity_hours, f"{p.price:.2f}")
            for p in rows.scalars()
        ]

    async def buy(
        self, db: AsyncSession, user_id: str, data: schemas.GuestPassRequest, switches: Switches
    ) -> tuple[GuestPass, Invoice]:
        """Open the owner's guest_pass invoice and the pass it pays; the caller then starts the payment
        (InvoiceService.start_payment, which commits first: no transaction is open while the gateway answers)."""
        await lock_living_account(db, user_id)  # as any purchase: a deletion committing meanwhile waits or wins
        room = await self._rooms.visible(db, user_id, data.party.strip())
        if room.owner_id != user_id:
            raise OwnerOnly("Solo el administrador de la sala puede comprar pases de invitado para ella.")
        plan = await db.get(Plan, data.plan.strip())
        if plan is None or not plan.visible or not plan.guest_pass:
            raise NotFound("Plan de pase de invitado no encontrado.", code="plan_not_found")
        gateway = self._invoices.choose_gateway(switches, data.gateway)
        waiting = await db.scalar(
            select(func.count())
            .select_from(GuestPass)
            .join(Invoice, Invoice.id == GuestPass.invoice_id)
            .where(
                GuestPass.buyer_id == user_id,
                GuestPass.claimed_at.is_(None),
                (Invoice.status == InvoiceStatus.PENDING) | (GuestPass.claim_by > utcnow()),
            )
        )
        if (waiting or 0) >= MAX_OPEN:
            raise Conflict(
                f"Ya tiene {MAX_OPEN} pases sin reclamar o sin pagar. Espere a que se usen o venzan.",
                code="guest_pass_limit",
            )
        if not gateway.configured:
            raise GatewayDown(
                "La pasarela de pago no está configurada. Contacte con soporte.", code="gateway_not_configured"
            )
        invoice = Invoice(
            remote_id=random_token(18),
            user_id=user_id,
            gateway=gateway.name,
            mode=InvoiceMode.GUEST_PASS,
            plan_id=plan.id,
            plan_name=plan.name,
            validity_hours=plan.validity_hours,
            amount=plan.price,
            peer_name=INVOICE_PEER_NAME,
        )
        db.add(invoice)
        await db.flush()
        token = random_token(TOKEN_BYTES)
        guest_pass = GuestPass(
            buyer_id=user_id,
            room_id=room.id,
            room_name=room.name,
            invoice_id=invoice.id,
            plan_name=plan.name,
            hours=plan.validity_hours,
            token_hash=self._box.lookup_hash(token),
            token_enc=self._box.encrypt(token),
        )
        db.add(guest_pass)
        await db.flush()
        return guest_pass, invoice

    async def start_payment(self, db: AsyncSession, invoice: Invoice) -> Invoice:
        return await self._invoices.start_payment(db, invoice)

    def gateway_label(self, name: str) -> str:
        return self._invoices.gateways[name].label

    async def list_for(self, db: AsyncSession, user_id: str, room_id: str | None) -> list[schemas.GuestPassView]:
        query = (
            select(GuestPass, Invoice)
            .join(Invoice, Invoice.id == GuestPass.invoice_id)
            .where(GuestPass.buyer_id == user_id)
            .order_by(GuestPass.created.desc())
            .limit(200)
        )
        if room_id:
            query = query.where(GuestPass.room_id == room_id)
        now = utcnow()
        return [self.view(guest_pass, invoice, now) for guest_pass, invoice in await db.execute(query)]

    async def view_of(self, db: AsyncSession, guest_pass: GuestPass) -> schemas.GuestPassView:
        return self.view(guest_pass, await db.get_one(Invoice, guest_pass.invoice_id), utcnow())

    def view(self, guest_pass: GuestPass, invoice: Invoice, now: datetime) -> schemas.GuestPassView:
        status = status_of(guest_pass, invoice.status, now)
        return schemas.GuestPassView(
            id=guest_pass.id,
            party_id=guest_pass.room_id,
            party_name=guest_pass.room_name,
            plan_name=guest_pass.plan_name,
            hours=guest_pass.hours,
            amount=f"{invoice.amount:.2f}",
            status=status,
            status_text=STATUS_TEXT[status],
            created=guest_pass.created,
            url=self._url(self._box.decrypt(guest_pass.token_enc)) if status == "ready" else None,
            payment_url=invoice.payment_url if status == "pending_payment" else None,
            claim_by=guest_pass.claim_by,
            guest=guest_pass.guest_alias,
            ends_at=guest_pass.ends_at,
        )

    # --- the invoice machine -----------------------------------------------------------------------------------

    async def paid(self, db: AsyncSession, invoice: Invoice) -> list[PushMessage]:
        """The pass's invoice was credited (inside the invoice machine's one conditional credit): it can be
        claimed from now on, for CLAIM_WINDOW."""
        now = utcnow()
        await db.execute(
            update(GuestPass)
            .where(GuestPass.invoice_id == invoice.id, GuestPass.paid_at.is_(None))
            .values(paid_at=now, claim_by=now + CLAIM_WINDOW)
        )
        room_name = await db.scalar(select(GuestPass.room_name).where(GuestPass.invoice_id == invoice.id))
        message = f"Pago recibido. El pase de invitado para la sala {room_name} está listo: copie el enlace y envíelo."
        return [SuccessPush(message=message, data=Subject(party_id=await self._room_id(db, invoice.id)))]

    # --- the friend ---------------------------------------------------------------------------------------------

    async def by_token(self, db: AsyncSession, token: str) -> GuestPass:
        """The claimable pass a token names; otherwise the reason, in Spanish, with its own status."""
        guest_pass = None
        if 0 < len(token) <= TOKEN_MAX:
            guest_pass = (
                await db.execute(select(GuestPass).where(GuestPass.token_hash == self._box.lookup_hash(token)))
            ).scalar_one_or_none()
        if guest_pass is None:
            raise PassNotFound()
        status = status_of(guest_pass, InvoiceStatus.PENDING, utcnow())
        if status in ("claimed", "ended"):
            raise pass_claimed()
        if status == "pending_payment":
            raise PassNotPaid()
        if status == "expired":
            raise pass_expired()
        if status == "room_gone":
            raise room_gone()
        return guest_pass

    async def public_view(self, db: AsyncSession, guest_pass: GuestPass) -> schemas.PublicGuestPass:
        owner = await db.get_one(User, guest_pass.buyer_id)
        assert guest_pass.claim_by is not None  # by_token answers only claimable passes
        return schemas.PublicGuestPass(
            party_name=guest_pass.room_name,
            owner=owner.alias or None,
            plan_name=guest_pass.plan_name,
            hours=guest_pass.hours,
            claim_by=guest_pass.claim_by,
        )

    async def claim(
        self, db: AsyncSession, user_id: str, token: str, data: schemas.ClaimRequest
    ) -> tuple[GuestPass, Peer]:
        """The friend's peer, in the pass's room, ending `hours` from now. The conditional update is what makes a
        pass serve once: of two claims at the same moment one wins, the other reads it claimed."""
        guest_pass = await self.by_token(db, token)
        name = validate_peer_name(data.name or DEFAULT_PEER_NAME, "name")
        user = await lock_living_account(db, user_id)
        if not user.alias:
            # Everyone in a room is shown by alias (docs/contract.md#rooms): the same rule as joining one.
            raise Conflict(ALIAS_REQUIRED, code="alias_required")
        now = utcnow()
        ends_at = now + timedelta(hours=guest_pass.hours)
        won = (
            await db.execute(
                update(GuestPass)
                .where(GuestPass.id == guest_pass.id, GuestPass.claimed_at.is_(None))
                .values(claimed_at=now, guest_id=user.id, guest_alias=user.alias, ends_at=ends_at)
                .returning(GuestPass.id)
            )
        ).scalar_one_or_none()
        if won is None:
            raise pass_claimed()
        assert guest_pass.room_id is not None  # by_token refused a pass whose room is gone
        room = await db.get_one(Room, guest_pass.room_id)
        server = await self._server_for(db, room.id)
        invoice = await db.get_one(Invoice, guest_pass.invoice_id)
        # plans_history records the gift at no price: the money is the owner's invoice, counted there once.
        plan = (invoice.plan_id, guest_pass.plan_name, Decimal("0.00"))
        peer = await self._new_peer(db, user.id, name, server, ends_at, plan)
        await db.execute(update(GuestPass).where(GuestPass.id == guest_pass.id).values(peer_id=peer.id))
        await self._rooms.admit(db, room.id, peer)
        await db.refresh(guest_pass)
        return guest_pass, peer

    # --- the end ------------------------------------------------------------------------------------------------

    async def end_due(self, db: AsyncSession) -> int:
        """Job: a claimed pass whose hours are over has its peer deleted (it leaves the room, freeing the seat, and
        its node drops it). The expiry job may have disabled it already: the peer's expiration is the same moment."""
        rows = await db.execute(
            select(Peer)
            .join(GuestPass, GuestPass.peer_id == Peer.id)
            .where(GuestPass.ends_at <= utcnow())
            .with_for_update(skip_locked=True, of=Peer)
        )
        peers = list(rows.unique().scalars())
        for peer in peers:
            await self._peers.delete(db, peer)
        return len(peers)

    # --- helpers ------------------------------------------------------------------------------------------------

    async def _new_peer(
        self,
        db: AsyncSession,
        user_id: str,
        name: str,
        server: Server,
        ends_at: datetime,
        plan: tuple[str | None, str, Decimal],
    ) -> Peer:
        """The name asked for, or, if the friend has a peer by that name already, the same with a number."""
        for candidate in [name] + [f"{name[:28]}-{n}" for n in range(2, 100)]:
            try:
                async with db.begin_nested():
                    return await self._peers.create(
                        db, user_id, candidate, server=server, expiration_date=ends_at, plan=plan
                    )
            except Conflict as exc:
                if exc.code != "peer_name_taken":
                    raise
        raise Conflict("No se encontró un nombre libre para el peer.", code="peer_name_taken")

    async def _server_for(self, db: AsyncSession, room_id: str) -> Server:
        """The server with most of the room's members that hosts rooms and has room; any such server else."""
        servers = list(
            (await db.execute(select(Server).where(Server.active.is_(True), Server.allow_partys.is_(True)))).scalars()
        )
        active = select(Peer.server_id, func.count()).where(Peer.active.is_(True)).group_by(Peer.server_id)
        load = {server_id: count for server_id, count in (await db.execute(active)).tuples()}
        members = (
            select(Peer.server_id, func.count())
            .join(RoomMember, RoomMember.peer_id == Peer.id)
            .where(RoomMember.room_id == room_id)
            .group_by(Peer.server_id)
        )
        in_room = {server_id: count for server_id, count in (await db.execute(members)).tuples()}
        free = [s for s in servers if s.capacity - load.get(s.id, 0) > 0]
        if not free:
            raise Conflict("No hay servidores con salas disponibles en este momento.", code="no_server_available")
        return max(free, key=lambda s: (in_room.get(s.id, 0), s.capacity - load.get(s.id, 0)))

    async def _room_id(self, db: AsyncSession, invoice_id: str) -> str | None:
        return await db.scalar(select(GuestPass.room_id).where(GuestPass.invoice_id == invoice_id))

    def _url(self, token: str) -> str:
        return f"{self._client_url}{PAGE}/{token}"
