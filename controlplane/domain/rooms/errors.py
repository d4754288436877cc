"""The rooms' refusals, each with its wire code (docs/contract.md#room-calls): raised by the service and by the
operation modules."""

from __future__ import annotations

from controlplane.errors import Conflict, Forbidden, NotFound


class RoomNotFound(NotFound):
    code = "party_not_found"
    message = "Sala no encontrada."


class OwnerOnly(Forbidden):
    code = "party_owner_only"
    message = "Solo el administrador de la sala puede hacer esto."


class RoomFull(Conflict):
    code = "party_full"

    def __init__(self, most: int) -> None:
        super().__init__(
            f"La sala está llena: admite como máximo {most} peers. Pida al administrador que quite alguno."
        )


class RoomsDisabled(Conflict):
    code = "partys_disabled"
    message = "Las salas no están habilitadas."
