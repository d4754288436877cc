"""What the customer is told about a peer's operations, in one place: while each runs, when it is accepted, and how
it ended (docs/api.md, "Peer operations"). The 202 answer, the push and a poll read these same texts, so they tell
one story; the web client shows them as they come and keeps no wording of its own.

Grouped by operation kind (one class per kind): each kind will move into a module of its own later, taking its
texts with it. Servers are named by name and location, never by address (docs/webui.md, "Names, not addresses")."""

from __future__ import annotations

from controlplane.domain.servers.models import Server


def server_label(server: Server) -> str:
    """'Madrid 1 (Madrid)': a server as the customer knows it."""
    location = server.ubication.strip()
    return f"{server.name} ({location})" if location else server.name


class Create:
    @staticmethod
    def running(peer_name: str, server: Server) -> str:
        return f"Preparando el peer {peer_name} en {server_label(server)}… estará listo en unos segundos."

    @staticmethod
    def done(peer_name: str, server: Server) -> str:
        return f"Peer {peer_name} creado correctamente."

    @staticmethod
    def failed(peer_name: str, server: Server, why: str) -> str:
        return (
            f"El peer {peer_name} está creado, pero {server_label(server)} aún no lo confirma: {why}. Funcionará en"
            " cuanto el servidor se sincronice; si en unos minutos no se conecta, avise a soporte."
        )


class Regenerate:
    @staticmethod
    def running(peer_name: str, server: Server) -> str:
        return (
            f"Generando claves nuevas para {peer_name} en {server_label(server)}… su configuración actual sigue"
            " funcionando hasta que terminen."
        )

    @staticmethod
    def done(peer_name: str, server: Server) -> str:
        return f"Peer {peer_name} regenerado correctamente."

    @staticmethod
    def failed(peer_name: str, server: Server, why: str) -> str:
        return (
            f"Hubo un error al intentar regenerar el peer {peer_name}: {why}. El peer conserva sus claves"
            " anteriores y su configuración actual sigue funcionando."
        )


class ChangeServer:
    @staticmethod
    def running(peer_name: str, target: Server) -> str:
        return f"Moviendo a {server_label(target)}… su configuración actual sigue funcionando."

    @staticmethod
    def done(peer_name: str, target: Server) -> str:
        return f"El peer {peer_name} ya está en {server_label(target)}. Descargue de nuevo la configuración."

    @staticmethod
    def failed(peer_name: str, target: Server | None, current: Server, why: str) -> str:
        where = f" al servidor {target.name}" if target is not None else ""
        return (
            f"Hubo un error al intentar cambiar el servidor del peer{where}: {why}. El peer {peer_name} sigue en"
            f" el servidor {current.name} y su configuración actual sigue funcionando."
        )


class Enable:
    @staticmethod
    def running(peer_name: str, server: Server) -> str:
        return f"Activando el peer {peer_name} en {server_label(server)}…"


class Disable:
    @staticmethod
    def running(peer_name: str, server: Server) -> str:
        return f"Desactivando el peer {peer_name} en {server_label(server)}…"


class Remove:
    @staticmethod
    def running(peer_name: str, server: Server) -> str:
        return f"Eliminando el peer {peer_name} de {server_label(server)}…"


RUNNING = {
    "create": Create.running,
    "regenerate": Regenerate.running,
    "change_server": ChangeServer.running,
    "enable": Enable.running,
    "disable": Disable.running,
    "remove": Remove.running,
}


def running(kind: str, peer_name: str, server: Server) -> str:
    """The running operation's text; `server` is where it happens (a move's target)."""
    text = RUNNING.get(kind)
    return text(peer_name, server) if text is not None else f"Operación en curso en {server_label(server)}…"


# --- the peer's server, when it is not there -------------------------------------------------------------------


def server_offline(server: Server) -> str:
    """What an offline server means for the peer, and the way out (the client names the recommended server)."""
    return (
        f"El servidor {server_label(server)} no responde: este peer no tiene conexión hasta que vuelva. Si no puede"
        " esperar, muévalo a otro servidor en línea y descargue de nuevo la configuración."
    )
