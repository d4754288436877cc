"""Delete a whole room: by its owner (`DELETE /partys/{id}`) or with the owner's account. Every node it touched
drops it; its users hear `deleted_*_party` with why."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.rooms.errors import OwnerOnly
from controlplane.domain.rooms.models import Room
from controlplane.domain.rooms.operations.base import Answer, RoomOperation, quoted
from controlplane.nodes.models import OperationKind

if TYPE_CHECKING:
    from controlplane.domain.rooms.service import RoomService


class RoomDelete(msgspec.Struct):
    """`DELETE /partys/{id}` has no body: the controller hands this to the registry."""


def by_owner(room: str, owner: bool) -> str:
    return f"Sala {quoted(room)} eliminada." if owner else f"El administrador eliminó la sala {quoted(room)}."


def owner_account(room: str, owner: bool) -> str:
    """The owner closed the account (the owner, who closed it, is not told)."""
    if owner:
        return f"Sala {quoted(room)} eliminada."
    return f"La sala {quoted(room)} se eliminó porque su administrador cerró su cuenta."


async def start(rooms: RoomService, db: AsyncSession, user_id: str, room_id: str | None, _: RoomDelete) -> Answer:
    assert room_id is not None
    room = await rooms.visible(db, user_id, room_id, lock=True)
    if room.owner_id != user_id:
        raise OwnerOnly()
    name = room.name
    await rooms.delete_room(db, room, notice=by_owner, actor=user_id)
    return Answer(None, f"Sala «{name}» eliminada.")


async def owner_deleting(rooms: RoomService, db: AsyncSession, user_id: str) -> None:
    """Before an account is deleted: the rooms it owns go whole (guests hear `deleted_guest_party`, nodes drop the
    rooms), as when the owner deletes them."""
    owned = await db.execute(
        select(Room).where(Room.owner_id == user_id).order_by(Room.created).with_for_update(of=Room)
    )
    for room in owned.scalars().all():
        await rooms.delete_room(db, room, notice=owner_account, actor=user_id)


DELETE = RoomOperation(name="delete", request=RoomDelete, start=start, kind=OperationKind.ROOM)
OWNER_ACCOUNT = RoomOperation(name="owner_account", kind=OperationKind.ROOM)
