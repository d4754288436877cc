"""Create a room (`POST /partys`): the owner's first peer in it, a generated password; the peer's node gets the
room (docs/contract.md#room-calls)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.rooms.models import Room
from controlplane.domain.rooms.operations.base import Answer, RoomOperation, blank
from controlplane.domain.rooms.schemas import Text
from controlplane.errors import Conflict, Invalid
from controlplane.nodes.models import OperationKind

if TYPE_CHECKING:
    from controlplane.domain.rooms.service import RoomService

MAX_OWNED = 5
NAME_MAX = 32

CREATED = "Sala creada correctamente"
TOO_MANY = "No se pueden crear más de 5 salas"
NAME_REQUIRED = "Por favor, ingrese un nombre para la sala"
PEER_REQUIRED = "Por favor, selecciona un peer para añadir"
NAME_TAKEN = "Ya existe una sala con ese nombre."


class RoomCreate(msgspec.Struct):
    name: Text | None = None
    peer: Text | None = None


def name_key(name: str) -> str:
    """What makes two room names one: neither case (Unicode case folding: 'STRASSE' is 'Straße') nor runs of
    blanks count. Create and join both go through it, so a guest finds the room however they type its name."""
    return " ".join(name.split()).casefold()


def valid_name(name: str | None) -> str:
    if blank(name):
        raise Invalid(NAME_REQUIRED, code="party_name_required", fields={"name": NAME_REQUIRED})
    assert name is not None
    name = " ".join(name.split())
    if len(name) > NAME_MAX:
        message = f"El nombre de la sala debe tener como máximo {NAME_MAX} caracteres."
        raise Invalid(message, code="party_name_too_long", fields={"name": message})
    return name


async def start(rooms: RoomService, db: AsyncSession, user_id: str, _: str | None, request: RoomCreate) -> Answer:
    user = await rooms.member_user(db, user_id, lock=True)  # the lock serializes one user's creations
    owned = await db.scalar(select(func.count()).select_from(Room).where(Room.owner_id == user.id))
    if (owned or 0) >= MAX_OWNED:
        raise Conflict(TOO_MANY, code="party_limit")
    name = valid_name(request.name)
    if blank(request.peer):
        raise Invalid(PEER_REQUIRED, code="peer_required", fields={"peer": PEER_REQUIRED})
    assert request.peer is not None
    peer = await rooms.free_peer(db, user.id, request.peer)
    room = Room(owner_id=user.id, name=name, name_key=name_key(name), password_enc=rooms.new_password_enc())
    try:
        async with db.begin_nested():
            db.add(room)
            await db.flush()
    except IntegrityError:
        raise Conflict(NAME_TAKEN, code="party_name_taken") from None
    await rooms.add_member(db, room, peer)
    await rooms.settle(db, room, nodes_before=set(), users_before=set())
    return Answer(room, CREATED)


OPERATION = RoomOperation(name="create", request=RoomCreate, start=start, kind=OperationKind.ROOM)
