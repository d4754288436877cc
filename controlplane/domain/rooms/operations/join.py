"""Join a room by name and password (`PATCH /partys {operation: "join"}`); also how the owner adds another of their
peers to their own room. Every node of the room gets its new member (docs/contract.md#room-calls)."""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.rooms.models import Room
from controlplane.domain.rooms.operations.base import Answer, RoomOperation, blank
from controlplane.domain.rooms.operations.create import name_key
from controlplane.domain.rooms.schemas import Text
from controlplane.errors import Invalid, NotFound
from controlplane.nodes.models import OperationKind
from controlplane.settings import RateLimit

if TYPE_CHECKING:
    from controlplane.domain.rooms.service import RoomService

# Guessing room passwords: a user gets this many join attempts per window.
JOIN_ATTEMPTS = RateLimit(30, 60)

JOIN_FIELDS = "Por favor, complete todos los campos"
WRONG = "Nombre o contraseña de la sala incorrectos."


class RoomJoin(msgspec.Struct):
    """The one operation on the collection: `operation` must be "join" (anything else is `unknown_operation`)."""

    operation: Text | None = None
    name: Text | None = None
    password: Text | None = None
    peer: Text | None = None


def _unknown_operation() -> Invalid:
    return Invalid("Operación desconocida.", code="unknown_operation", fields={"operation": "Desconocida."})


async def start(rooms: RoomService, db: AsyncSession, user_id: str, _: str | None, request: RoomJoin) -> Answer:
    if request.operation != "join":
        raise _unknown_operation()
    name, password, peer_id = request.name, request.password, request.peer
    if blank(name) or blank(password) or blank(peer_id):
        raise Invalid(JOIN_FIELDS, code="join_fields_required")
    assert name is not None and password is not None and peer_id is not None
    user = await rooms.member_user(db, user_id)
    await rooms.limiter.hit(f"room-join:{user.id}", JOIN_ATTEMPTS)
    room = (
        await db.execute(select(Room).where(Room.name_key == name_key(name)).with_for_update(of=Room))
    ).scalar_one_or_none()
    # One answer for an unknown name and a wrong password: names cannot be probed; compared in constant time.
    stored = rooms.password_of(room) if room is not None else rooms.new_password()
    if not hmac.compare_digest(password.strip().encode(), stored.encode()) or room is None:
        raise NotFound(WRONG, code="party_credentials_invalid")
    peer = await rooms.free_peer(db, user.id, peer_id)
    nodes_before = await rooms.nodes_of(db, room.id)
    users_before = await rooms.users_of(db, room.id, room.owner_id)
    await rooms.add_member(db, room, peer)
    await rooms.settle(db, room, nodes_before=nodes_before, users_before=users_before)
    return Answer(room, f"Peer añadido a la sala {room.name}.")


OPERATION = RoomOperation(name="join", request=RoomJoin, start=start, kind=OperationKind.ROOM)
