"""What a room's users are told when their place in it changes: one Spanish sentence that names the room and says
what happened, carried as the `message` of the push they get (`deleted_*_party`, `updated_*_party`).

The contract's own texts ('Party eliminada', 'Haz salido de una sala') name no room, and the second is misspelled and
says the guest left when she may have been taken out; the push types stay, the texts are these
(docs/contract.md#deviations).
"""

from __future__ import annotations

import enum


class Removal(enum.Enum):
    """Why peers leave a room."""

    LEFT = "left"  # their owner took them out (leave, or a guest's remove of its own peer)
    EXPELLED = "expelled"  # the room's owner took out another user's peer
    MOVED = "moved"  # the peer moved to a server that does not allow rooms
    PEER_DELETED = "peer_deleted"  # the peer was deleted (by its owner, staff or expiry cleanup)
    SERVER_CLOSED = "server_closed"  # its server stopped allowing rooms (or was disabled)


class Deletion(enum.Enum):
    """Why a whole room goes."""

    BY_OWNER = "by_owner"
    OWNER_ACCOUNT = "owner_account"
    EMPTY = "empty"  # its last peer left


def quoted(name: str) -> str:
    return f"«{name}»"


def peers_phrase(names: list[str]) -> str:
    """'su peer «a»' or 'sus peers «a» y «b»'."""
    shown = [quoted(n) for n in sorted(names)]
    if len(shown) == 1:
        return f"su peer {shown[0]}"
    return "sus peers " + ", ".join(shown[:-1]) + " y " + shown[-1]


def removal_notice(why: Removal, room: str, peer_names: list[str]) -> str:
    """To the owner of peers taken out of `room`."""
    peers, subject = peers_phrase(peer_names), quoted(room)
    plural = len(peer_names) > 1
    left = "salieron" if plural else "salió"
    match why:
        case Removal.EXPELLED:
            return f"El administrador de la sala {subject} sacó a {peers} de la sala."
        case Removal.MOVED:
            return f"{peers.capitalize()} {left} de la sala {subject}: su nuevo servidor no permite salas."
        case Removal.PEER_DELETED:
            gone = "se eliminaron" if plural else "se eliminó"
            return f"{peers.capitalize()} {left} de la sala {subject} porque {gone}."
        case Removal.SERVER_CLOSED:
            return f"{peers.capitalize()} {left} de la sala {subject}: su servidor ya no permite salas."
        case Removal.LEFT:
            return f"{peers.capitalize()} {left} de la sala {subject}."


def deletion_notice(why: Deletion, room: str, *, owner: bool) -> str:
    """To a user of a room that no longer exists: its owner, or a guest that was in it."""
    subject = quoted(room)
    match why:
        case Deletion.EMPTY:
            return f"La sala {subject} se eliminó porque se quedó sin peers."
        case Deletion.OWNER_ACCOUNT if not owner:
            return f"La sala {subject} se eliminó porque su administrador cerró su cuenta."
        case _ if owner:
            return f"Sala {subject} eliminada."
        case _:
            return f"El administrador eliminó la sala {subject}."
