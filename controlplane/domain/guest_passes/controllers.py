"""Guest pass endpoints: the room owner's (`/api/client/guest-passes`: plans, buy, list), the friend's claim
(logged in) and the claim page's read (`/api/public/guest-passes/{token}`, no session, limited per address).
docs/api.md, "Guest passes"."""

from __future__ import annotations

from litestar import Controller, get, post
from litestar.params import FromPath, FromQuery, JSONBody

from controlplane.dependencies import (
    CUSTOMER,
    DB,
    ClientIP,
    Customer,
    Limiter,
    SettingsDep,
    SwitchesDep,
    customer_area,
)
from controlplane.domain.guest_passes import schemas
from controlplane.domain.guest_passes.dependencies import CUSTOMER_GUEST_PASSES, GUEST_PASSES, GuestPasses
from controlplane.domain.rooms.errors import RoomsDisabled


class GuestPassController(Controller):
    path = "/api/client/guest-passes"
    tags = ["guest-passes"]
    before_request = staticmethod(customer_area)
    dependencies = {**CUSTOMER, **CUSTOMER_GUEST_PASSES}

    @get("/plans", operation_id="listGuestPassPlans")
    async def plans(self, guest_passes: GuestPasses, db: DB, customer: Customer) -> list[schemas.GuestPassPlan]:
        return await guest_passes.plans(db)

    # 429: each pass opens a payment at a gateway, limited with the account's purchases.
    @post("/", status_code=200, operation_id="buyGuestPass", opt={"errors": (403, 404, 409, 429, 502)})
    async def buy(
        self,
        guest_passes: GuestPasses,
        limiter: Limiter,
        settings: SettingsDep,
        switches: SwitchesDep,
        db: DB,
        customer: Customer,
        data: JSONBody[schemas.GuestPassRequest],
    ) -> schemas.GuestPassBought:
        if not switches.allow_partys:
            raise RoomsDisabled()
        guest_pass, invoice = await guest_passes.buy(db, customer.user_id, data, switches)
        await limiter.hit(f"invoices:user:{customer.user_id}", settings.rate_limits.invoices_per_user)
        invoice = await guest_passes.start_payment(db, invoice)
        return schemas.GuestPassBought(
            payment_url=invoice.payment_url or "",
            message=f"Pase de invitado creado. Complete el pago en {guest_passes.gateway_label(invoice.gateway)}.",
            remote_id=invoice.remote_id,
            gateway=invoice.gateway,
            data=await guest_passes.view_of(db, guest_pass),
        )

    @get("/", operation_id="listGuestPasses")
    async def list_passes(
        self, guest_passes: GuestPasses, db: DB, customer: Customer, party: FromQuery[str | None] = None
    ) -> list[schemas.GuestPassView]:
        """The caller's passes (of one room with `party`), newest first."""
        return await guest_passes.list_for(db, customer.user_id, party)

    @post("/claim/{token:str}", status_code=200, operation_id="claimGuestPass", opt={"errors": (404, 409, 410)})
    async def claim(
        self,
        guest_passes: GuestPasses,
        db: DB,
        customer: Customer,
        switches: SwitchesDep,
        token: FromPath[str],
        data: JSONBody[schemas.ClaimRequest],
    ) -> schemas.ClaimAnswer:
        if not switches.allow_partys:
            raise RoomsDisabled()
        guest_pass, peer = await guest_passes.claim(db, customer.user_id, token, data)
        assert guest_pass.room_id is not None and guest_pass.ends_at is not None
        return schemas.ClaimAnswer(
            message=f"Pase reclamado: su peer {peer.name} entra en la sala {guest_pass.room_name} "
            f"durante {guest_pass.hours} horas.",
            peer_id=peer.id,
            party_id=guest_pass.room_id,
            ends_at=guest_pass.ends_at,
        )


class PublicGuestPassController(Controller):
    """What the claim page reads before the friend logs in. Counted per address, so tokens cannot be guessed."""

    path = "/api/public/guest-passes"
    tags = ["guest-passes"]
    before_request = staticmethod(customer_area)
    dependencies = GUEST_PASSES

    @get("/{token:str}", operation_id="readGuestPass", opt={"errors": (404, 409, 410, 429)}, cache_control=None)
    async def read(
        self,
        guest_passes: GuestPasses,
        limiter: Limiter,
        settings: SettingsDep,
        db: DB,
        ip: ClientIP,
        token: FromPath[str],
    ) -> schemas.PublicGuestPass:
        await limiter.hit(f"guestpass:ip:{ip}", settings.rate_limits.payment_link_reads_per_address)
        return await guest_passes.public_view(db, await guest_passes.by_token(db, token))
