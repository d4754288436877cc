"""Payment link endpoints: the owner's (`/api/client/payment-links`, logged in) and the payer's
(`/api/public/payment-links/{token}`, no session, limited per address). docs/api.md, "Payment links"."""

from __future__ import annotations

from litestar import Controller, delete, get, post
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
from controlplane.domain.paylinks import schemas
from controlplane.domain.paylinks.dependencies import CUSTOMER_PAYMENT_LINKS, PAYMENT_LINKS, PaymentLinks


class PaymentLinkController(Controller):
    path = "/api/client/payment-links"
    tags = ["payment-links"]
    before_request = staticmethod(customer_area)
    dependencies = {**CUSTOMER, **CUSTOMER_PAYMENT_LINKS}

    @post("/", status_code=201, operation_id="createPaymentLink", opt={"errors": (404, 409)})
    async def create(
        self, payment_links: PaymentLinks, db: DB, customer: Customer, data: JSONBody[schemas.PaymentLinkRequest]
    ) -> schemas.PaymentLinkCreated:
        link = await payment_links.create(db, customer.user_id, data)
        view = await payment_links.view(db, link)
        return schemas.PaymentLinkCreated(
            message="Enlace de pago creado. Compártalo con quien vaya a pagar: vence en 7 días.", data=view
        )

    @get("/", operation_id="listPaymentLinks")
    async def list_links(
        self, payment_links: PaymentLinks, db: DB, customer: Customer
    ) -> list[schemas.PaymentLinkView]:
        """The caller's live links (neither revoked nor expired), newest first."""
        return await payment_links.list_for(db, customer.user_id)

    @delete("/{link_id:str}", status_code=200, operation_id="revokePaymentLink")
    async def revoke(
        self, payment_links: PaymentLinks, db: DB, customer: Customer, link_id: FromPath[str]
    ) -> schemas.RevokeAnswer:
        await payment_links.revoke(db, customer.user_id, link_id)
        return schemas.RevokeAnswer(message="Enlace de pago anulado: ya nadie puede pagar con él.")


class PublicPaymentLinkController(Controller):
    """What a payer's browser calls, without a session. Every call counts against the caller's address, so a
    token cannot be guessed by trying; paying counts again, per address and per link, since each payment opens an
    invoice at a gateway."""

    path = "/api/public/payment-links"
    tags = ["payment-links"]
    before_request = staticmethod(customer_area)
    dependencies = PAYMENT_LINKS

    @get("/{token:str}", operation_id="readPaymentLink", opt={"errors": (404, 410, 429)}, cache_control=None)
    async def read(
        self,
        payment_links: PaymentLinks,
        limiter: Limiter,
        settings: SettingsDep,
        switches: SwitchesDep,
        db: DB,
        ip: ClientIP,
        token: FromPath[str],
        payment: FromQuery[str | None] = None,
    ) -> schemas.PublicPaymentLink:
        await limiter.hit(f"paylink:ip:{ip}", settings.rate_limits.payment_link_reads_per_address)
        link = await payment_links.by_token(db, token)
        return await payment_links.public_view(db, link, switches, payment)

    @post(
        "/{token:str}/pay",
        status_code=200,
        operation_id="payPaymentLink",
        opt={"errors": (404, 409, 410, 429, 502)},
    )
    async def pay(
        self,
        payment_links: PaymentLinks,
        limiter: Limiter,
        settings: SettingsDep,
        switches: SwitchesDep,
        db: DB,
        ip: ClientIP,
        token: FromPath[str],
        data: JSONBody[schemas.PublicPayRequest],
    ) -> schemas.PublicPayAnswer:
        limits = settings.rate_limits
        await limiter.hit(f"paylink:ip:{ip}", limits.payment_link_reads_per_address)
        link = await payment_links.by_token(db, token)
        await limiter.hit(f"paylink-pay:ip:{ip}", limits.payment_link_payments_per_address)
        await limiter.hit(f"paylink-pay:link:{link.id}", limits.payment_link_payments_per_link)
        invoice = await payment_links.pay(db, link, data, switches)
        return schemas.PublicPayAnswer(
            payment_url=invoice.payment_url or "",
            message=f"Complete el pago en {payment_links.gateway_label(invoice.gateway)}.",
            remote_id=invoice.remote_id,
            gateway=invoice.gateway,
        )
