"""What customers see of rooms, and the bodies of the room calls (docs/contract.md#room-fields, #room-calls)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

# Loose limits on the wire: the service checks the real rules and answers with the contract's Spanish messages
# (docs/contract.md#validation).
Text = Annotated[str, msgspec.Meta(max_length=128)]


# What announced it: a game's LAN announcement, a service (mDNS / SSDP), or any other broadcast on a port.
GameKind = Literal["minecraft", "quake3", "source", "warcraft3", "mdns", "ssdp", "other"]


class RoomPeer(msgspec.Struct):
    id: str
    name: str
    user: str  # alias of the peer's owner
    private_ip: str  # the peer's tunnel address
    online: bool  # its server saw a handshake in the last 3 minutes (docs/api.md, rooms)
    server: str  # name of the server the peer is placed on
    # That server's live status, as the peer list's `server.online` / `server.in_sync` (docs/operations.md, "Server
    # status"): its agent is connected; it applied every change queued for it.
    server_online: bool
    server_in_sync: bool
    # Who can hear whom (docs/api.md, rooms): discovery packets its server saw from it since it joined the room,
    # and seconds since the last one; null = none since it joined ("ninguno desde que entró").
    heard_packets: int
    heard_seconds_ago: int | None


class LobbyGame(msgspec.Struct):
    """A game or service a member hosts, as its server heard it announced (docs/api.md, "Partidas en la sala")."""

    id: str
    game: GameKind
    name: str  # "" when the announcement names nothing ("other")
    detail: str  # the map, or the service type
    peer: str  # the hosting member's peer id
    peer_name: str
    user: str  # alias of the peer's owner
    address: str  # join at address:port
    port: int
    players: int | None  # null = the game does not say
    max_players: int | None
    seen_seconds_ago: int  # since its last announcement; the entry leaves at 30


class RoomView(msgspec.Struct):
    id: str
    name: str
    created: datetime
    user: str  # alias of the room's owner
    password: str | None  # the owner's view only; null for guests
    peers: list[RoomPeer]
    processing: bool
    # "Partidas en la sala": the games and services its members announce, newest first (docs/api.md, rooms).
    lobby: list[LobbyGame]
    # When this state was read (docs/api.md, versions): the larger of two views of one room is the newer.
    version: int


class RoomLists(msgspec.Struct):
    owned_partys: list[RoomView]
    guest_partys: list[RoomView]


# The request bodies are declared by the operation modules (domain/rooms/operations/).


class RoomAnswer(msgspec.Struct, omit_defaults=True):
    success: bool
    message: str
    data: RoomView | None = None
    password: str | None = None
