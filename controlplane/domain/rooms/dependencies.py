"""The rooms' part for their controller (domain/rooms/controllers.py)."""

from __future__ import annotations

from typing import Any

from litestar import Request

from controlplane.dependencies import Part, after_customer, services_of
from controlplane.domain.rooms.move_all import RoomMoves
from controlplane.domain.rooms.service import RoomService


async def provide_rooms(request: Request[Any, Any, Any]) -> RoomService:
    return services_of(request).rooms


async def provide_room_moves(request: Request[Any, Any, Any]) -> RoomMoves:
    return services_of(request).room_moves


Rooms = Part[RoomService]
Moves = Part[RoomMoves]

CUSTOMER_ROOMS = {"rooms": after_customer(provide_rooms), "moves": after_customer(provide_room_moves)}
