"""Customer room endpoints (docs/contract.md#room-calls): `/api/client/network/partys`. Each call is run by its
operation module (domain/rooms/operations/); the handlers only check that rooms are on and answer what it returns."""

from __future__ import annotations

from litestar import Controller, delete, get, patch, post
from litestar.params import FromPath, JSONBody

from controlplane.dependencies import CUSTOMER, DB, Customer, SwitchesDep, customer_area
from controlplane.domain.rooms import best_server, move_all, operations, schemas
from controlplane.domain.rooms.dependencies import CUSTOMER_ROOMS, Moves, Rooms
from controlplane.domain.rooms.errors import RoomsDisabled
from controlplane.domain.rooms.operations.create import RoomCreate
from controlplane.domain.rooms.operations.delete import RoomDelete
from controlplane.domain.rooms.operations.join import RoomJoin
from controlplane.domain.switches.service import Switches


def _require_rooms(switches: Switches) -> None:
    if not switches.allow_partys:
        raise RoomsDisabled()


class RoomController(Controller):
    path = "/api/client/network/partys"
    tags = ["rooms"]
    before_request = staticmethod(customer_area)
    dependencies = {**CUSTOMER, **CUSTOMER_ROOMS}

    @get("/", operation_id="listRooms")
    async def list_rooms(self, rooms: Rooms, db: DB, customer: Customer, switches: SwitchesDep) -> schemas.RoomLists:
        _require_rooms(switches)
        return await rooms.lists_for(db, customer.user_id)

    # One room with its lobby; a room the caller neither owns nor has a peer in answers 404 like a missing one.
    @get("/{room_id:str}", operation_id="getRoom")
    async def get_room(
        self, rooms: Rooms, db: DB, customer: Customer, switches: SwitchesDep, room_id: FromPath[str]
    ) -> schemas.RoomView:
        _require_rooms(switches)
        room = await rooms.visible(db, customer.user_id, room_id)
        return await rooms.view(db, room, customer.user_id)

    # Where the members are and the server that gives the group the best play (docs/rooms.md).
    @get("/{room_id:str}/servers", operation_id="getRoomServers")
    async def room_servers(
        self, rooms: Rooms, db: DB, customer: Customer, switches: SwitchesDep, room_id: FromPath[str]
    ) -> best_server.RoomPlacement:
        _require_rooms(switches)
        room = await rooms.visible(db, customer.user_id, room_id)
        return await best_server.placement(db, room, customer.user_id)

    # The owner moves all of their own peers in the room to one server: 202, the one result by push (docs/rooms.md).
    @post("/{room_id:str}/move", status_code=202, operation_id="moveRoomPeers")
    async def move_peers(
        self,
        moves: Moves,
        db: DB,
        customer: Customer,
        switches: SwitchesDep,
        room_id: FromPath[str],
        data: JSONBody[move_all.RoomMoveBody],
    ) -> move_all.RoomMoveAnswer:
        _require_rooms(switches)
        return await moves.start(db, customer.user_id, room_id, data.server)

    @post("/", status_code=201, operation_id="createRoom")
    async def create(
        self, rooms: Rooms, db: DB, customer: Customer, switches: SwitchesDep, data: JSONBody[RoomCreate]
    ) -> schemas.RoomAnswer:
        _require_rooms(switches)
        return await rooms.operate(db, customer.user_id, None, data)

    # 429: join attempts are limited per account, so room passwords cannot be guessed (docs/api.md, rooms).
    @patch("/", operation_id="joinRoom", opt={"errors": (429,)})
    async def join(
        self, rooms: Rooms, db: DB, customer: Customer, switches: SwitchesDep, data: JSONBody[RoomJoin]
    ) -> schemas.RoomAnswer:
        _require_rooms(switches)
        return await rooms.operate(db, customer.user_id, None, data)

    @patch("/{room_id:str}", operation_id="operateRoom")
    async def operate(
        self,
        rooms: Rooms,
        db: DB,
        customer: Customer,
        switches: SwitchesDep,
        room_id: FromPath[str],
        data: JSONBody[operations.RoomOperationRequest],
    ) -> schemas.RoomAnswer:
        _require_rooms(switches)
        return await rooms.operate(db, customer.user_id, room_id, data)

    @delete("/{room_id:str}", status_code=200, operation_id="deleteRoom")
    async def delete_room(
        self, rooms: Rooms, db: DB, customer: Customer, switches: SwitchesDep, room_id: FromPath[str]
    ) -> schemas.RoomAnswer:
        _require_rooms(switches)
        return await rooms.operate(db, customer.user_id, room_id, RoomDelete())
