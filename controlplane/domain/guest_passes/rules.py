"""What a guest pass's peer may not do, for the services that would otherwise let it (rooms, invoices, payment
links): it lives in its room for the pass's hours and then ends (docs/payments.md, "Guest passes")."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.guest_passes.models import GuestPass
from controlplane.errors import Conflict


class GuestPeerLocked(Conflict):
    code = "guest_pass_peer"
    message = (
        "Este peer es de un pase de invitado: solo sirve en la sala del pase, no da acceso a internet "
        "y vence solo. "
        "Para usarlo en otra sala o renovarlo, compre un plan para un peer propio."
    )


async def is_guest_peer(db: AsyncSession, peer_id: str) -> bool:
    return await db.scalar(select(GuestPass.id).where(GuestPass.peer_id == peer_id)) is not None


async def refuse_guest_peer(db: AsyncSession, peer_id: str) -> None:
    if await is_guest_peer(db, peer_id):
        raise GuestPeerLocked()
