"""Take a peer out of a room (`PATCH /partys/{id}`): `leave` (a user's own peer, owner or guest) and `remove_peer`
(the owner takes out any peer; a guest only its own, which is leaving: docs/contract.md#room-roles). The nodes the
room touched get its new members (or drop it); a room left without peers is deleted."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.service import PeerNotFound
from controlplane.domain.rooms.errors import OwnerOnly
from controlplane.domain.rooms.operations.base import Answer, RoomOperation, left_the_room, peers_phrase, quoted
from controlplane.domain.rooms.schemas import Text
from controlplane.nodes.models import OperationKind

if TYPE_CHECKING:
    from controlplane.domain.rooms.service import RoomService

EMPTIED = " La sala se quedó sin peers y se eliminó."
NOT_YOURS = "Solo puede quitar sus propios peers de la sala."


class RoomLeave(msgspec.Struct, tag_field="operation", tag="leave"):
    """Take one of the caller's own peers out of the room."""

    peer: Text | None = None


class RoomRemovePeer(msgspec.Struct, tag_field="operation", tag="remove_peer"):
    """The owner takes any peer out; a guest only its own."""

    peer: Text | None = None


def left(room: str, peer_names: list[str]) -> str:
    """To the owner of peers taken out by their owner (from another browser: the caller reads the answer)."""
    return f"{left_the_room(room, peer_names)}."


def expelled(room: str, peer_names: list[str]) -> str:
    """To the owner of peers the room's owner took out."""
    return f"El administrador de la sala {quoted(room)} sacó a {peers_phrase(peer_names)} de la sala."


async def start_leave(
    rooms: RoomService, db: AsyncSession, user_id: str, room_id: str | None, request: RoomLeave
) -> Answer:
    assert room_id is not None
    name = (await rooms.visible(db, user_id, room_id)).name  # the answer names the room, which may go
    peer_id = rooms.peer_field(request.peer)
    room = await rooms.visible(db, user_id, room_id, lock=True)
    member = await rooms.member(db, room.id, peer_id)
    if member is None or member[1] != user_id:
        raise PeerNotFound()
    still = await rooms.remove(db, room, [peer_id], notice=left, actor=user_id)
    return Answer(still, f"Su peer salió de la sala «{name}»." + ("" if still else EMPTIED))


async def start_remove(
    rooms: RoomService, db: AsyncSession, user_id: str, room_id: str | None, request: RoomRemovePeer
) -> Answer:
    assert room_id is not None
    name = (await rooms.visible(db, user_id, room_id)).name
    peer_id = rooms.peer_field(request.peer)
    room = await rooms.visible(db, user_id, room_id, lock=True)
    member = await rooms.member(db, room.id, peer_id)
    if member is None:
        raise PeerNotFound()
    if room.owner_id != user_id and member[1] != user_id:
        raise OwnerOnly(NOT_YOURS)
    notice = left if member[1] == user_id else expelled
    still = await rooms.remove(db, room, [peer_id], notice=notice, actor=user_id)
    return Answer(still, f"Peer sacado de la sala «{name}»." + ("" if still else EMPTIED))


LEAVE = RoomOperation(name="leave", request=RoomLeave, start=start_leave, kind=OperationKind.ROOM)
REMOVE_PEER = RoomOperation(name="remove_peer", request=RoomRemovePeer, start=start_remove, kind=OperationKind.ROOM)
