"""What a room operation module declares (docs/architecture.md, "Adding an operation"): its request variant, how it
starts (what it changes on which nodes), how its node operations end, and its Spanish texts. The registry
(`__init__.py`) lists the modules; `RoomService` runs them and holds what they share (membership changes, who is
told, the queries)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.rooms.models import Room
from controlplane.nodes.models import NodeOperation, OperationKind

if TYPE_CHECKING:
    from controlplane.domain.rooms.service import RoomService


class Answer(NamedTuple):
    """What the caller is answered: the room (shown if the caller still sees it; None once it is gone), the Spanish
    message, and the password when the call is about it."""

    room: Room | None
    message: str
    password: str | None = None


# start(rooms, db, user_id, room_id, request): the customer's request, checked and done (its node work queued).
# `room_id` is None for the calls on the collection (create, join).
Start = Callable[["RoomService", AsyncSession, str, str | None, Any], Awaitable[Answer]]
# ended(rooms, db, operation): a node answered (or timed out) for one of the room's node operations.
Ended = Callable[["RoomService", AsyncSession, NodeOperation], Awaitable[None]]


@dataclass(frozen=True, kw_only=True, slots=True)
class RoomOperation:
    """One operation on a room. `request` and `start` for what a customer asks; `kind` for the node operation it
    queues (None when it changes no node: the password calls). Operations other services start (a peer moved or
    deleted, a server closed to rooms, an account closed) have neither request nor start: their module's own
    function is what the service calls."""

    name: str
    request: type | None = None
    start: Start | None = None
    kind: OperationKind | None = None


def blank(value: str | None) -> bool:
    return value is None or not value.strip()


# --- the words every room text shares ---------------------------------------------------------------------------


def quoted(name: str) -> str:
    return f"«{name}»"


def peers_phrase(names: list[str]) -> str:
    """'su peer «a»' or 'sus peers «a» y «b»'."""
    shown = [quoted(n) for n in sorted(names)]
    if len(shown) == 1:
        return f"su peer {shown[0]}"
    return "sus peers " + ", ".join(shown[:-1]) + " y " + shown[-1]


def left_the_room(room: str, peer_names: list[str]) -> str:
    """'Su peer «a» salió de la sala «LAN»' (or 'Sus peers … salieron …'): how most removal notices begin."""
    left = "salieron" if len(peer_names) > 1 else "salió"
    return f"{peers_phrase(peer_names).capitalize()} {left} de la sala {quoted(room)}"


# What the owner of peers taken out of a room reads (room name, names of their peers taken out), by why.
RemovalNotice = Callable[[str, list[str]], str]
# What a user of a deleted room reads (room name, whether the user owned it), by why.
DeletionNotice = Callable[[str, bool], str]


def emptied(room: str, _owner: bool) -> str:
    """Any removal that takes out the last peer deletes the room (RoomService.remove)."""
    return f"La sala {quoted(room)} se eliminó porque se quedó sin peers."
