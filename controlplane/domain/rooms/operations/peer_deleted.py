"""A member peer is about to be deleted (by its owner, staff or the expiry cleanup; `RoomHooks.peer_deleting`): it
leaves its room first, so the room's nodes and users hear of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms.operations.base import RoomOperation, left_the_room
from controlplane.nodes.models import OperationKind

if TYPE_CHECKING:
    from controlplane.domain.rooms.service import RoomService


def deleted(room: str, peer_names: list[str]) -> str:
    gone = "se eliminaron" if len(peer_names) > 1 else "se eliminó"
    return f"{left_the_room(room, peer_names)} porque {gone}."


async def peer_deleting(rooms: RoomService, db: AsyncSession, peer: Peer) -> None:
    room = await rooms.room_of_peer(db, peer.id, lock=True)
    if room is not None:
        await rooms.remove(db, room, [peer.id], notice=deleted)


OPERATION = RoomOperation(name="peer_deleted", kind=OperationKind.ROOM)
