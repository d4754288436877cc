"""What customers send and see of invoices (docs/contract.md#invoice-calls; decisions in docs/api.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

ShortText = Annotated[str, msgspec.Meta(max_length=64)]


class InvoiceRequest(msgspec.Struct, forbid_unknown_fields=True):
    """`PUT /api/client/invoices`. `operation` is accepted as another name for `mode`
    (the contract uses both: docs/contract.md#invoice-calls)."""

    plan: ShortText | int
    mode: ShortText | None = None
    operation: ShortText | None = None
    peer: ShortText | int | None = None
    gateway: ShortText | None = None  # 'qvapay' or 'remesita'; absent: the first enabled one (QvaPay first)


class InvoiceCreated(msgspec.Struct):
    payment_url: str
    message: str
    remote_id: str
    gateway: str


class InvoiceDetails(msgspec.Struct):
    remote_id: str
    plan_name: str
    peer_name: str
    amount: str  # USD, two decimals
    transaction_uuid: str | None
    status: str
    gateway: str
    created: datetime


class InvoiceListItem(msgspec.Struct):
    """One of the customer's invoices as their 'Facturas' page lists it (docs/api.md, "Plans and invoices"): the
    texts a customer reads (the gateway's brand, the state) come from here, so the web client keeps no map of them."""

    remote_id: str
    plan_name: str
    # The peer's current name (renaming keeps the history readable); the name at purchase once the peer is gone.
    peer_name: str
    amount: str  # USD, two decimals
    gateway: str
    gateway_name: str  # the brand: 'QvaPay', 'Remesita'
    status: str
    status_text: str  # in Spanish: 'Pendiente', 'Pagada', ...
    receipt: bool  # the payment was received: the receipt can be shown
    transaction_uuid: str | None
    created: datetime
    paid_at: datetime | None
    # The gateway's payment page while the invoice waits for its payment, so Home can offer to reopen it; None once
    # it is settled, canceled or expired (the page no longer takes a payment).
    payment_url: str | None = None
