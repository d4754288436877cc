"""A server stopped hosting rooms (rooms turned off on it, or it was disabled; `ServerAdmin.update`): its peers
leave their rooms, and every room-enabled node gets the new backbone (also after a backbone endpoint or port
change, which moves nobody)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms.models import Room, RoomMember
from controlplane.domain.rooms.operations.base import RoomOperation, left_the_room
from controlplane.domain.servers.models import Server
from controlplane.nodes.backbone import refresh_backbone
from controlplane.nodes.models import OperationKind

if TYPE_CHECKING:
    from controlplane.domain.rooms.service import RoomService


def closed(room: str, peer_names: list[str]) -> str:
    return f"{left_the_room(room, peer_names)}: su servidor ya no permite salas."


async def server_rooms_changed(rooms: RoomService, db: AsyncSession, server: Server) -> None:
    if not server.hosts_rooms:
        rows = await db.execute(
            select(RoomMember.peer_id, RoomMember.room_id)
            .join(Peer, Peer.id == RoomMember.peer_id)
            .where(Peer.server_id == server.id)
        )
        by_room: dict[str, list[str]] = {}
        for peer_id, room_id in rows:
            by_room.setdefault(room_id, []).append(peer_id)
        for room_id, peer_ids in sorted(by_room.items()):
            room = (await db.execute(select(Room).where(Room.id == room_id).with_for_update(of=Room))).scalar_one()
            await rooms.remove(db, room, peer_ids, notice=closed)
    await refresh_backbone(db, rooms.nodes, include={server.id})


OPERATION = RoomOperation(name="server_closed", kind=OperationKind.ROOM)
