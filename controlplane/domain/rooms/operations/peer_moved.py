"""A member peer changed server (its move confirmed; `RoomHooks.peer_moved`): to a server without rooms it leaves
its room; otherwise every node of the room learns its new address, and the old node drops the room if nothing else
keeps it there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms.operations.base import RoomOperation, left_the_room
from controlplane.domain.servers.models import Server
from controlplane.nodes.models import OperationKind

if TYPE_CHECKING:
    from controlplane.domain.rooms.service import RoomService


def moved_out(room: str, peer_names: list[str]) -> str:
    return f"{left_the_room(room, peer_names)}: su nuevo servidor no permite salas."


async def peer_moved(rooms: RoomService, db: AsyncSession, peer: Peer, old_server_id: str) -> None:
    # Locked like every other change to the room, so concurrent changes see each other (e.g. who empties it).
    room = await rooms.room_of_peer(db, peer.id, lock=True)
    if room is None:
        return
    target = await db.get(Server, peer.server_id)
    if target is None or not target.hosts_rooms:
        await rooms.remove(db, room, [peer.id], notice=moved_out, extra_nodes={old_server_id})
        await db.refresh(peer, ["membership"])  # the answer shows the peer free at once
        return
    users = await rooms.users_of(db, room.id, room.owner_id)
    nodes = await rooms.nodes_of(db, room.id)
    await rooms.settle(db, room, nodes_before=nodes | {old_server_id}, users_before=users)


OPERATION = RoomOperation(name="peer_moved", kind=OperationKind.ROOM)
