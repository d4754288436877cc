"""What a room owner sends and sees of their guest passes, and what a friend with a claim link sees
(docs/api.md, "Guest passes")."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec

ShortText = Annotated[str, msgspec.Meta(max_length=64)]


class GuestPassPlan(msgspec.Struct):
    """A plan staff marked as a guest pass (the room page's choice)."""

    id: str
    name: str
    description: str
    hours: int
    price: str  # USD, two decimals


class GuestPassRequest(msgspec.Struct, forbid_unknown_fields=True):
    """`POST /api/client/guest-passes`: a pass of `plan` for the caller's room `party`."""

    party: ShortText
    plan: ShortText
    gateway: ShortText | None = None  # as for any purchase: absent, the first enabled one


class GuestPassView(msgspec.Struct):
    """One of the buyer's passes. `url` only while it can be claimed (the buyer may copy it again until then);
    `payment_url` only while its invoice waits for the payment."""

    id: str
    party_id: str | None
    party_name: str
    plan_name: str
    hours: int
    amount: str
    # pending_payment, unpaid, ready, claimed, ended, expired, room_gone
    status: str
    status_text: str  # in Spanish, as the room page shows it
    created: datetime
    url: str | None = None
    payment_url: str | None = None
    claim_by: datetime | None = None
    guest: str | None = None  # the guest's alias, once claimed
    ends_at: datetime | None = None


class GuestPassBought(msgspec.Struct):
    payment_url: str
    message: str
    remote_id: str
    gateway: str
    data: GuestPassView


class PublicGuestPass(msgspec.Struct):
    """What the friend sees before claiming: the room, who invites, for how long. Nothing else of the owner's."""

    party_name: str
    owner: str | None
    plan_name: str
    hours: int
    claim_by: datetime


class ClaimRequest(msgspec.Struct, forbid_unknown_fields=True):
    name: ShortText | None = None  # the new peer's name; absent: 'invitado'


class ClaimAnswer(msgspec.Struct):
    message: str
    peer_id: str
    party_id: str
    ends_at: datetime
