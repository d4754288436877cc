"""What the owner of a payment link and its anonymous payer send and see (docs/api.md, "Payment links")."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

ShortText = Annotated[str, msgspec.Meta(max_length=64)]


class PaymentLinkRequest(msgspec.Struct, forbid_unknown_fields=True):
    """`POST /api/client/payment-links`: one plan for one of the caller's peers."""

    peer: ShortText
    plan: ShortText


class PaymentLinkView(msgspec.Struct):
    """A link as its owner sees it (the owner may copy it again until it expires or is revoked)."""

    id: str
    url: str
    peer_id: str
    peer_name: str
    plan_id: str
    plan_name: str
    amount: str  # USD, two decimals
    created: datetime
    expires_at: datetime


class PaymentLinkCreated(msgspec.Struct):
    message: str
    data: PaymentLinkView


class RevokeAnswer(msgspec.Struct):
    message: str


class PublicGateway(msgspec.Struct):
    name: str  # 'qvapay' or 'remesita': what `gateway` takes
    label: str  # the brand


class PublicPayment(msgspec.Struct):
    """The payment a payer came back from (`?payment=<remote_id>`), only if it was opened through this link."""

    remote_id: str
    status: str
    status_text: str


class PublicPaymentLink(msgspec.Struct):
    """All a payer sees: what is paid, for which device, for whom (the owner's public alias, if any). Nothing else
    of the account: no username, email, other peers, addresses or invoices."""

    plan_name: str
    plan_description: str
    validity_hours: int
    amount: str  # USD, two decimals
    peer_name: str
    owner: str | None
    expires_at: datetime
    gateways: list[PublicGateway]
    payment: PublicPayment | None = None


class PublicPayRequest(msgspec.Struct, forbid_unknown_fields=True):
    gateway: ShortText | None = None  # absent: the first enabled one (QvaPay first), as for the customer


class PublicPayAnswer(msgspec.Struct):
    payment_url: str
    message: str
    remote_id: str
    gateway: str
