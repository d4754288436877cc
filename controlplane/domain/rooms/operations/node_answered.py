"""How a room's node operations end (kind ROOM, whichever room operation queued them): the membership change stands
whatever the node said, since the database decides and the node converges to it when it resyncs; the room is
`processing` while any of its node operations is pending, so the end is the room's, not one operation's
(docs/operations.md, "What the customer is told")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.rooms.models import Room
from controlplane.domain.servers.models import Server
from controlplane.domain.versions import bump
from controlplane.nodes.models import NodeOperation, OperationStatus
from controlplane.nodes.operations import failure_reason
from controlplane.realtime import messages

if TYPE_CHECKING:
    from controlplane.domain.rooms.service import RoomService

# A room operation its node did not confirm: the users are told the node is late, not that their change failed.
NODE_LATE = (
    "La sala {room} ya tiene el cambio, pero el servidor {server} no lo confirmó ({why}). Lo aplicará en cuanto"
    " vuelva a sincronizar."
)


async def ended(rooms: RoomService, db: AsyncSession, operation: NodeOperation) -> None:
    """Once none of the room's operations is pending, its users hear that the work stopped, with the room as it now
    is; a failed one first tells them which node is late."""
    if operation.room_id is None:
        return
    # The lock orders concurrent answers for one room: the last of them sees nothing pending and tells.
    room = (
        await db.execute(select(Room).where(Room.id == operation.room_id).with_for_update(of=Room))
    ).scalar_one_or_none()
    if room is None:
        return
    users = await rooms.users_of(db, room.id, room.owner_id)
    if operation.status is OperationStatus.FAILED:
        server = await db.get(Server, operation.server_id)
        notice = NODE_LATE.format(
            room=room.name, server=server.name if server else operation.server_id, why=failure_reason(operation)
        )
        for user_id in users:
            rooms.push(db, user_id, messages.InfoPush(message=notice, data=messages.Subject(party_id=room.id)))
    if await rooms.busy(db, [room.id]):
        return
    # `processing` turns false: the operation's row changed, not the room's, so the room's version grows here.
    await bump(db, rooms=[room.id])
    for user_id in sorted(users):
        rooms.push(db, user_id, messages.StopRoomOperation(data=messages.ref(room.id, room.version)))
    await rooms.tell(db, room, users, operation_started=False)
