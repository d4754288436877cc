"""Customer room endpoints (docs/contract.md#room-calls): `/api/client/network/partys`."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, delete, get, patch, post
from litestar.params import FromPath, JSONBody

from controlplane.dependencies import CUSTOMER, DB, Customer, SwitchesDep, customer_area, services_of
from controlplane.domain.rooms import best_server, move_all, schemas
from controlplane.domain.rooms.dependencies import CUSTOMER_ROOMS, Rooms
from controlplane.domain.rooms.service import RoomNotFound, RoomsDisabled
from controlplane.domain.switches.service import Switches
from controlplane.errors import Invalid


def _require_rooms(switches: Switches) -> None:
    if not switches.allow_partys:
        raise RoomsDisabled()


def _unknown_operation() -> Invalid:
    return Invalid("Operación desconocida.", code="unknown_operation", fields={"operation": "Desconocida."})


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
        request: Request[Any, Any, Any],
        rooms: Rooms,
        db: DB,
        customer: Customer,
        switches: SwitchesDep,
        room_id: FromPath[str],
        data: JSONBody[move_all.RoomMoveBody],
    ) -> move_all.RoomMoveAnswer:
        _require_rooms(switches)
        services = services_of(request)
        moves = move_all.RoomMoves(rooms, services.peers, services.hub)
        return await moves.start(db, customer.user_id, room_id, data.server)

    @post("/", status_code=201, operation_id="createRoom")
    async def create(
        self,
        rooms: Rooms,
        db: DB,
        customer: Customer,
        switches: SwitchesDep,
        data: JSONBody[schemas.RoomCreate],
    ) -> schemas.RoomAnswer:
        _require_rooms(switches)
        room = await rooms.create(db, customer.user_id, data.name, data.peer)
        view = await rooms.view(db, room, customer.user_id)
        return schemas.RoomAnswer(success=True, message="Sala creada correctamente", data=view)

    # 429: join attempts are limited per account, so room passwords cannot be guessed (docs/api.md, rooms).
    @patch("/", operation_id="joinRoom", opt={"errors": (429,)})
    async def join(
        self,
        rooms: Rooms,
        db: DB,
        customer: Customer,
        switches: SwitchesDep,
        data: JSONBody[schemas.RoomJoin],
    ) -> schemas.RoomAnswer:
        _require_rooms(switches)
        if data.operation != "join":
            raise _unknown_operation()
        room = await rooms.join(db, customer.user_id, data.name, data.password, data.peer)
        view = await rooms.view(db, room, customer.user_id)
        return schemas.RoomAnswer(success=True, message=f"Peer añadido a la sala {room.name}.", data=view)

    @patch("/{room_id:str}", operation_id="operateRoom")
    async def operate(
        self,
        rooms: Rooms,
        db: DB,
        customer: Customer,
        switches: SwitchesDep,
        room_id: FromPath[str],
        data: JSONBody[schemas.RoomOperation],
    ) -> schemas.RoomAnswer:
        _require_rooms(switches)
        user_id = customer.user_id
        if data.operation == "regenerate_password":
            room, password = await rooms.regenerate_password(db, user_id, room_id)
            view = await rooms.view(db, room, user_id)
            return schemas.RoomAnswer(
                success=True, message="Contraseña regenerada con éxito", data=view, password=password
            )
        if data.operation == "set_password":
            room = await rooms.set_password(db, user_id, room_id, data.password)
            view = await rooms.view(db, room, user_id)
            return schemas.RoomAnswer(
                success=True, message="Contraseña de la sala cambiada.", data=view, password=view.password
            )
        if data.operation not in ("leave", "remove_peer"):
            raise _unknown_operation()
        # The answer names the room, which may be gone once the peer is out.
        name = (await rooms.visible(db, user_id, room_id)).name
        if data.operation == "leave":
            left = await rooms.leave(db, user_id, room_id, data.peer)
            message = f"Su peer salió de la sala «{name}»."
        else:
            left = await rooms.remove_peer(db, user_id, room_id, data.peer)
            message = f"Peer sacado de la sala «{name}»."
        if left is None:
            return schemas.RoomAnswer(success=True, message=message + " La sala se quedó sin peers y se eliminó.")
        # A guest that took out its last peer no longer sees the room: the answer then carries none.
        try:
            still = await rooms.visible(db, user_id, left.id)
        except RoomNotFound:  # the caller is out of the room now
            return schemas.RoomAnswer(success=True, message=message)
        return schemas.RoomAnswer(success=True, message=message, data=await rooms.view(db, still, user_id))

    @delete("/{room_id:str}", status_code=200, operation_id="deleteRoom")
    async def delete_room(
        self, rooms: Rooms, db: DB, customer: Customer, switches: SwitchesDep, room_id: FromPath[str]
    ) -> schemas.RoomAnswer:
        _require_rooms(switches)
        name = (await rooms.visible(db, customer.user_id, room_id)).name
        await rooms.delete(db, customer.user_id, room_id)
        return schemas.RoomAnswer(success=True, message=f"Sala «{name}» eliminada.")
