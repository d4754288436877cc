"""The room owner's "move all my peers there" (docs/rooms.md, "Moving the group"): one request
(`POST /api/client/network/partys/{id}/move {server}`), one make-before-break move per peer through the peers' own
change-server operation, and one result for the whole action, pushed once every move has ended.

The batch is a row (`room_moves`) rather than memory: the moves end on whichever process hears the nodes' answers,
possibly minutes later (a node that does not answer ends by the operation timeout), and the result must come once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec
from sqlalchemy import ForeignKey, String, Text, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from controlplane.db import Base, UTCDateTime, after_commit, new_id, utcnow
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.operations import change_server
from controlplane.domain.peers.service import PeerService
from controlplane.domain.rooms.best_server import label
from controlplane.domain.rooms.errors import OwnerOnly
from controlplane.domain.rooms.models import RoomMember
from controlplane.domain.rooms.service import RoomService
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.status import is_online
from controlplane.errors import Conflict, DomainError, Invalid, NotFound
from controlplane.nodes.models import NodeOperation, OperationKind, OperationStatus
from controlplane.nodes.operations import failure_reason
from controlplane.realtime import messages
from controlplane.realtime.hub import PushHub

SERVER_REQUIRED = "Elija el servidor al que mover sus peers."


class RoomMove(Base):
    """One "move all my peers" of a room's owner, until its single result is told (`told_at`)."""

    __tablename__ = "room_moves"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    server_id: Mapped[str] = mapped_column(ForeignKey("servers.id", ondelete="CASCADE"))
    # JSON lists of Step and Refusal: the moves started (by their node operation) and those refused at once.
    steps: Mapped[str] = mapped_column(Text)
    refused: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    told_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)


class Step(msgspec.Struct):
    operation: str  # the change-server node operation's id
    peer: str
    name: str


class Refusal(msgspec.Struct):
    peer: str
    name: str
    message: str  # why it could not start, as the per-peer change-server would have answered


class RoomMoveBody(msgspec.Struct):
    server: Annotated[str, msgspec.Meta(max_length=64)] | None = None


class RoomMoveAnswer(msgspec.Struct):
    success: bool
    message: str
    moving: list[str]  # ids of the peers whose move started; the result arrives by push
    refused: list[Refusal]


def _quoted(names: list[str]) -> str:
    shown = [f"«{n}»" for n in sorted(names)]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " y " + shown[-1]


def _peers(n: int) -> str:
    return "1 peer" if n == 1 else f"{n} peers"


class RoomMoves:
    def __init__(self, rooms: RoomService, peers: PeerService, hub: PushHub) -> None:
        self._rooms = rooms
        self._peers = peers
        self._hub = hub

    async def start(self, db: AsyncSession, user_id: str, room_id: str, server_id: str | None) -> RoomMoveAnswer:
        """Check everything that concerns the whole group first (nothing is written on a refusal), then start one
        move per peer; a peer that cannot move (busy, disabled) is reported and the others go on."""
        room = await self._rooms.visible(db, user_id, room_id)
        if room.owner_id != user_id:
            raise OwnerOnly("Solo el administrador de la sala mueve sus peers desde aquí; mueva los suyos uno a uno.")
        if not server_id or not server_id.strip():
            raise Invalid(SERVER_REQUIRED, code="server_required", fields={"server": SERVER_REQUIRED})
        target = await db.get(Server, server_id.strip())
        if target is None:
            raise NotFound("Servidor no encontrado.", code="server_not_found")
        where = label(target)
        if not target.hosts_rooms:
            raise Conflict(
                f"El servidor {where} no permite salas: sus peers saldrían de la sala. Elija otro.",
                code="server_without_partys",
            )
        if not is_online(target):
            raise Conflict(
                f"El servidor {where} no está en línea ahora mismo. Sus peers siguen en sus servidores y su"
                " configuración actual sigue funcionando; elija otro o intente más tarde.",
                code="server_offline",
            )
        rows = (
            await db.execute(
                select(Peer.id, Peer.name, Peer.server_id)
                .join(RoomMember, RoomMember.peer_id == Peer.id)
                .where(RoomMember.room_id == room.id, Peer.user_id == user_id)
                .order_by(Peer.name)
            )
        ).all()
        to_move = [(peer_id, name) for peer_id, name, on in rows if on != target.id]
        if not to_move:
            raise Conflict(f"Sus peers de la sala ya están en {where}.", code="nothing_to_move")
        placed = await db.scalar(
            select(func.count()).select_from(Peer).where(Peer.server_id == target.id, Peer.active.is_(True))
        )
        free = target.capacity - (placed or 0)
        if free < len(to_move):
            raise Conflict(
                f"El servidor {where} no tiene plazas para sus {len(to_move)} peers (quedan {max(free, 0)}). Elija"
                " otro.",
                code="server_full",
            )
        steps: list[Step] = []
        refused: list[Refusal] = []
        batch = new_id()  # each move names it: its outcome is told in this batch's one result, not on its own
        for peer_id, name in to_move:
            try:
                async with db.begin_nested():  # a refused peer leaves nothing of its own behind
                    peer = await change_server.move(self._peers, db, user_id, peer_id, target.id, batch_id=batch)
            except DomainError as refusal:
                refused.append(Refusal(peer=peer_id, name=name, message=refusal.message))
                continue
            assert peer.pending_operation_id is not None  # the move's node operation, set by NodeOperations.change
            steps.append(Step(operation=peer.pending_operation_id, peer=peer_id, name=name))
        if not steps:
            why = " ".join(f"«{r.name}»: {r.message}" for r in refused)
            raise Conflict(f"No se pudo mover ninguno de sus peers a {where}. {why}", code="move_refused")
        db.add(
            RoomMove(
                id=batch,
                room_id=room.id,
                user_id=user_id,
                server_id=target.id,
                steps=msgspec.json.encode(steps).decode(),
                refused=msgspec.json.encode(refused).decode(),
            )
        )
        await db.flush()
        message = (
            f"Moviendo {_peers(len(steps))} a {where}… su configuración actual sigue funcionando hasta que el nuevo"
            " servidor los confirme."
        )
        if refused:
            message += " No se pueden mover: " + " ".join(f"«{r.name}»: {r.message}" for r in refused)
        return RoomMoveAnswer(success=True, message=message, moving=[s.peer for s in steps], refused=refused)

    async def operation_ended(self, db: AsyncSession, operation: NodeOperation, _peer: Peer | None) -> None:
        """A change-server operation ended: if it was the last pending one of a room move, its owner gets the one
        result of the whole move (how many moved to where, which did not and why)."""
        if operation.kind is not OperationKind.CHANGE_SERVER or operation.batch_id is None:
            return
        # The lock orders two moves of one batch ending at once: the one that sees nothing pending tells.
        move = (
            await db.execute(
                select(RoomMove).where(RoomMove.id == operation.batch_id, RoomMove.told_at.is_(None)).with_for_update()
            )
        ).scalar_one_or_none()
        if move is None:
            return
        steps = msgspec.json.decode(move.steps, type=list[Step])
        await db.flush()
        # Columns, not entities: an operation this session loaded earlier would answer with its stale status.
        ended = {
            row.id: row
            for row in await db.execute(
                select(NodeOperation.id, NodeOperation.status, NodeOperation.error).where(
                    NodeOperation.id.in_([step.operation for step in steps])
                )
            )
        }
        if any(row.status is OperationStatus.PENDING for row in ended.values()):
            return
        # An operation row gone meanwhile (its peer deleted with everything it had) counts as a move that failed.
        gone = NodeOperation(status=OperationStatus.FAILED, error="cancelled")
        move.told_at = utcnow()
        target = await db.get(Server, move.server_id)
        where = label(target) if target is not None else "el servidor elegido"
        outcome = {s.operation: ended.get(s.operation, gone) for s in steps}
        moved = [s.name for s in steps if outcome[s.operation].status is OperationStatus.OK]
        failed = [
            (s.name, failure_reason(NodeOperation(error=outcome[s.operation].error)))
            for s in steps
            if outcome[s.operation].status is not OperationStatus.OK
        ]
        refused = msgspec.json.decode(move.refused, type=list[Refusal])
        total = len(steps) + len(refused)
        parts = [f"{len(moved)} de {_peers(total)} pasaron a {where}."]
        if moved:
            parts.append(f"Descargue de nuevo la configuración de {_quoted(moved)}.")
        for name, why in failed:
            parts.append(f"«{name}» no se movió ({why}): sigue en su servidor y su configuración sigue funcionando.")
        for refusal in refused:
            parts.append(f"«{refusal.name}» no se movió: {refusal.message}")
        text = " ".join(parts)
        subject = messages.Subject(party_id=move.room_id)
        push: messages.PushMessage
        if len(moved) == total:
            push = messages.SuccessPush(message=text, data=subject)
        elif moved:
            push = messages.InfoPush(message=text, data=subject)
        else:
            push = messages.ErrorPush(message=text, data=subject)
        user_id = move.user_id
        await db.flush()
        after_commit(db, lambda: self._hub.push(user_id, push))
