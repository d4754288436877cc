"""The refusals every peer rule shares (the service and the operation modules raise them)."""

from __future__ import annotations

from controlplane.errors import Conflict, NotFound


class PeerNotFound(NotFound):
    code = "peer_not_found"
    message = "Peer no encontrado."


class PeerInactive(Conflict):
    code = "peer_inactive"
    message = "Peer no activo"
