"""Customer room endpoints (spec section 7): `/api/client/network/partys`."""

from __future__ import annotations

from litestar import Controller, delete, get, patch, post
from litestar.params import FromPath, JSONBody

from controlplane.dependencies import CUSTOMER, DB, Customer, ServicesDep, SwitchesDep, not_in_maintenance
from controlplane.domain.partys import schemas
from controlplane.domain.partys.service import PartyNotFound, PartysDisabled
from controlplane.domain.switches.service import Switches
from controlplane.errors import Invalid


def _require_partys(switches: Switches) -> None:
    if not switches.allow_partys:
        raise PartysDisabled()


def _unknown_operation() -> Invalid:
    return Invalid("Operación desconocida.", code="unknown_operation", fields={"operation": "Desconocida."})


class PartyController(Controller):
    path = "/api/client/network/partys"
    tags = ["rooms"]
    guards = [not_in_maintenance]
    dependencies = CUSTOMER

    @get("/", operation_id="listPartys")
    async def list_partys(
        self, services: ServicesDep, db: DB, customer: Customer, switches: SwitchesDep
    ) -> schemas.PartyLists:
        _require_partys(switches)
        return await services.partys.lists_for(db, customer.user_id)

    @post("/", status_code=201, operation_id="createParty")
    async def create(
        self,
        services: ServicesDep,
        db: DB,
        customer: Customer,
        switches: SwitchesDep,
        data: JSONBody[schemas.PartyCreate],
    ) -> schemas.PartyAnswer:
        _require_partys(switches)
        party = await services.partys.create(db, customer.user_id, data.name, data.peer)
        view = await services.partys.view(db, party, customer.user_id)
        return schemas.PartyAnswer(success=True, message="Sala creada correctamente", data=view)

    # 429: join attempts are limited per account, so room passwords cannot be guessed (docs/api.md, rooms).
    @patch("/", operation_id="joinParty", opt={"errors": (429,)})
    async def join(
        self,
        services: ServicesDep,
        db: DB,
        customer: Customer,
        switches: SwitchesDep,
        data: JSONBody[schemas.PartyJoin],
    ) -> schemas.PartyAnswer:
        _require_partys(switches)
        if data.operation != "join":
            raise _unknown_operation()
        party = await services.partys.join(db, customer.user_id, data.name, data.password, data.peer)
        view = await services.partys.view(db, party, customer.user_id)
        return schemas.PartyAnswer(success=True, message=f"Peer añadido a la sala {party.name}.", data=view)

    @patch("/{party_id:str}", operation_id="operateParty")
    async def operate(
        self,
        services: ServicesDep,
        db: DB,
        customer: Customer,
        switches: SwitchesDep,
        party_id: FromPath[str],
        data: JSONBody[schemas.PartyOperation],
    ) -> schemas.PartyAnswer:
        _require_partys(switches)
        partys, user_id = services.partys, customer.user_id
        if data.operation == "regenerate_password":
            party, password = await partys.regenerate_password(db, user_id, party_id)
            view = await partys.view(db, party, user_id)
            return schemas.PartyAnswer(
                success=True, message="Contraseña regenerada con éxito", data=view, password=password
            )
        if data.operation == "leave":
            left = await partys.leave(db, user_id, party_id, data.peer)
            message = "Peer retirado de la sala."
        elif data.operation == "remove_peer":
            left = await partys.remove_peer(db, user_id, party_id, data.peer)
            message = "Peer eliminado de la sala."
        else:
            raise _unknown_operation()
        if left is None:
            return schemas.PartyAnswer(success=True, message=message + " La sala quedó vacía y se eliminó.")
        # A guest that took out its last peer no longer sees the room: the answer then carries none.
        try:
            still = await partys.visible(db, user_id, left.id)
        except PartyNotFound:  # the caller is out of the room now
            return schemas.PartyAnswer(success=True, message=message)
        return schemas.PartyAnswer(success=True, message=message, data=await partys.view(db, still, user_id))

    @delete("/{party_id:str}", status_code=200, operation_id="deleteParty")
    async def delete_party(
        self, services: ServicesDep, db: DB, customer: Customer, switches: SwitchesDep, party_id: FromPath[str]
    ) -> schemas.PartyAnswer:
        _require_partys(switches)
        await services.partys.delete(db, customer.user_id, party_id)
        return schemas.PartyAnswer(success=True, message="Party eliminada")
