"""The room's password (`PATCH /partys/{id}`, owner only): `regenerate_password` draws a new one, `set_password`
takes the owner's. Synchronous, no node work: guests keep their place, only new joins need the new password."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.rooms.errors import OwnerOnly
from controlplane.domain.rooms.models import Room
from controlplane.domain.rooms.operations.base import Answer, RoomOperation
from controlplane.domain.rooms.schemas import Text
from controlplane.errors import Invalid

if TYPE_CHECKING:
    from controlplane.domain.rooms.service import RoomService

PASSWORD_LENGTH = 12
PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # noqa: S105 - no 0/O, 1/l/I
# A password the owner chooses: long enough that the join limit (join.JOIN_ATTEMPTS) makes guessing it hopeless.
PASSWORD_MIN = 8
PASSWORD_MAX = 64
PASSWORD_REQUIRED = "Escriba la nueva contraseña de la sala."  # noqa: S105 - a message, not a password
PASSWORD_RULE = f"La contraseña de la sala debe tener entre {PASSWORD_MIN} y {PASSWORD_MAX} caracteres."
REGENERATED = "Contraseña regenerada con éxito"
CHANGED = "Contraseña de la sala cambiada."


class RoomRegeneratePassword(msgspec.Struct, tag_field="operation", tag="regenerate_password"):
    """A new generated password (the answer carries it)."""


class RoomSetPassword(msgspec.Struct, tag_field="operation", tag="set_password"):
    """The owner's own password: surrounding blanks dropped, then 8 to 64 characters."""

    password: Text | None = None


def new_password() -> str:
    return "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(PASSWORD_LENGTH))


async def _owned(rooms: RoomService, db: AsyncSession, user_id: str, room_id: str | None) -> Room:
    assert room_id is not None
    room = await rooms.visible(db, user_id, room_id, lock=True)
    if room.owner_id != user_id:
        raise OwnerOnly()
    return room


async def regenerate(
    rooms: RoomService, db: AsyncSession, user_id: str, room_id: str | None, _: RoomRegeneratePassword
) -> Answer:
    room = await _owned(rooms, db, user_id, room_id)
    password = new_password()
    room.password_enc = rooms.box.encrypt(password)
    await db.flush()
    return Answer(room, REGENERATED, password)


async def set_password(
    rooms: RoomService, db: AsyncSession, user_id: str, room_id: str | None, request: RoomSetPassword
) -> Answer:
    """Joins compare the stripped text, so the stripped text is what is kept (docs/api.md, rooms)."""
    room = await _owned(rooms, db, user_id, room_id)
    chosen = (request.password or "").strip()
    if not chosen:
        raise Invalid(PASSWORD_REQUIRED, code="party_password_required", fields={"password": PASSWORD_REQUIRED})
    if not PASSWORD_MIN <= len(chosen) <= PASSWORD_MAX:
        raise Invalid(PASSWORD_RULE, code="party_password_invalid", fields={"password": PASSWORD_RULE})
    room.password_enc = rooms.box.encrypt(chosen)
    await db.flush()
    return Answer(room, CHANGED, chosen)


REGENERATE_PASSWORD = RoomOperation(name="regenerate_password", request=RoomRegeneratePassword, start=regenerate)
SET_PASSWORD = RoomOperation(name="set_password", request=RoomSetPassword, start=set_password)
