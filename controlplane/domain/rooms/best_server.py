"""Where a room's members are, and the server that gives the group the best play (docs/rooms.md, "The room's best
server"): `GET /api/client/network/partys/{id}/servers`.

The score is a plain ordering a customer can check by reading the page, not a model (docs/rooms.md says what is
measured and what is not), so it ranks by what the control plane knows for sure. A server that already holds
members keeps their paths as they are and takes the backbone hop out of the group's traffic once everybody is there;
among servers holding as many members, the one whose farthest measured member is nearest (a round trip each node
times to its own room members' devices, node_agent/rtt.py); a server in the same place as the members' servers is
about as far from them as theirs; and a less loaded node forwards with less queueing. A round trip is only known
between a member and the server it is on: nothing here claims one to a server a member is not on.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

import msgspec
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.accounts.models import User
from controlplane.domain.peers.models import Peer
from controlplane.domain.rooms.models import Room, RoomMember
from controlplane.domain.servers.models import Server
from controlplane.domain.servers.status import is_online


class PlaceServer(msgspec.Struct):
    """A server that holds members of the room, or that could take them."""

    id: str
    name: str
    ubication: str  # its location as staff wrote it ("" when unknown)
    members: int  # the room's peers placed on it now
    online: bool  # its agent is connected
    accepts_peers: bool  # online, enabled, allows rooms and has free places: a move there can start
    peers: int  # its active peers
    capacity: int
    recommended: bool


class PlaceMember(msgspec.Struct):
    """One member of the room and where it is."""

    peer: str  # the peer's id
    name: str
    user: str  # alias of the peer's owner
    mine: bool  # the caller's own peer (the caller may move it)
    server: str  # the server's id
    server_name: str
    ubication: str
    # Round trip from its server to its device, in ms (the median of the node's latest echoes); null when unknown:
    # the device does not answer echo, the figure is older than RTT_FRESH_SECONDS, or taken before a move.
    rtt_ms: int | None = None


class RoomPlacement(msgspec.Struct):
    members: list[PlaceMember]
    # Servers with members first (most members first), then the other servers that could take the group.
    servers: list[PlaceServer]
    recommended: str | None  # the recommended server's id; null when no server can take the group
    reason: str  # why, in Spanish, as the page shows it
    to_move: list[str]  # the caller's own peers in the room that are not on the recommended server


@dataclass(frozen=True, slots=True)
class _Candidate:
    server: Server
    members: int  # members already on it
    nearby: int  # members on another server in the same location
    peers: int  # active peers on it
    worst_rtt_ms: int | None  # the largest measured round trip of the members on it; None = none measured

    @property
    def load(self) -> float:
        return self.peers / max(self.server.capacity, 1)

    def rank(self) -> tuple[int, float, int, float, str]:
        """Smaller is better: most members already there, then the nearest farthest measured member (a server
        with a figure before one without: only the first is known to serve its members well), then most members
        nearby, then least loaded, then name. With nothing measured this is the ordering without round trips."""
        worst = self.worst_rtt_ms if self.worst_rtt_ms is not None else float("inf")
        return (-self.members, worst, -self.nearby, self.load, self.server.name)


def label(server: Server) -> str:
    """'Madrid 1 (Madrid)': as the customer knows a server (the peers' change-server texts say it the same way)."""
    location = server.ubication.strip()
    return f"{server.name} ({location})" if location else server.name


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _reason(best: _Candidate, total: int, by_server: Counter[str], measured: int) -> str:
    where = label(best.server)
    free = max(best.server.capacity - best.peers, 0)
    load = f"Tiene {_count(free, 'plaza libre', 'plazas libres')} de {best.server.capacity}."
    rtt = (
        f"Responde a sus peers de la sala con {best.worst_rtt_ms} ms de ida y vuelta para el más lejano."
        if best.worst_rtt_ms is not None
        else ""
    )
    if best.members == total:
        everybody = f"Todos los peers de la sala están en {where}: el tráfico de la sala no cruza entre servidores."
        return " ".join(p for p in (everybody, rtt, load) if p)
    parts = []
    if best.members:
        parts.append(
            f"{where} ya tiene {best.members} de los {total} peers de la sala: con todos allí, el tráfico entre"
            " ellos no cruza entre servidores (un salto menos)."
        )
    else:
        # No server holding members can take more: say why the one chosen is the next best.
        parts.append(
            f"Ningún servidor con peers de la sala puede recibir más ahora (sin conexión, lleno o sin salas); {where}"
            " es el mejor de los que pueden."
        )
    if rtt:
        parts.append(rtt)
    if best.nearby:
        parts.append(f"Otros {best.nearby} están en servidores de la misma ubicación.")
    parts.append(load)
    if len(by_server) > 1 and not measured:
        parts.append("Sin medir la latencia de cada dispositivo, se elige por ubicación y carga.")
    elif len(by_server) > 1:
        parts.append(
            "La latencia solo se mide hasta el servidor donde está cada dispositivo, y no todos responden al ping:"
            " lo demás se elige por ubicación y carga."
        )
    return " ".join(parts)


# A figure older than this is not shown nor used (an agent sends a member's figure at least once a minute).
RTT_FRESH_SECONDS = 300


def rtt_ms(member: RoomMember, server_id: str, now: float) -> int | None:
    """The member's round trip in ms when it is current and about the server it is on now; at least 1."""
    if member.rtt_us is None or member.rtt_server != server_id or now - member.rtt_at >= RTT_FRESH_SECONDS:
        return None
    return max(1, round(member.rtt_us / 1000))


NO_SERVER = (
    "Ningún servidor con salas está en línea con plazas libres ahora mismo: los peers siguen donde están. Vuelva a"
    " mirar en unos minutos."
)


async def placement(db: AsyncSession, room: Room, viewer_id: str) -> RoomPlacement:
    """Where the room's members are, and which server the group should meet on (docs/rooms.md)."""
    rows = (
        await db.execute(
            select(Peer.id, Peer.name, Peer.user_id, User.alias, Server, RoomMember)
            .join(RoomMember, RoomMember.peer_id == Peer.id)
            .join(User, User.id == Peer.user_id)
            .join(Server, Server.id == Peer.server_id)
            .where(RoomMember.room_id == room.id)
            .order_by(RoomMember.joined, Peer.name)
        )
    ).all()
    now = time.time()
    members = [
        PlaceMember(
            peer=peer_id,
            name=name,
            user=alias or "",
            mine=user_id == viewer_id,
            server=server.id,
            server_name=server.name,
            ubication=server.ubication,
            rtt_ms=rtt_ms(member, server.id, now),
        )
        for peer_id, name, user_id, alias, server, member in rows
    ]
    worst: dict[str, int] = {}
    for m in members:
        if m.rtt_ms is not None:
            worst[m.server] = max(worst.get(m.server, 0), m.rtt_ms)
    by_server = Counter(m.server for m in members)
    places = Counter(" ".join(server.ubication.split()).casefold() for *_, server, _m in rows)
    held = {server.id: server for *_, server, _m in rows}
    count_rows = await db.execute(
        select(Peer.server_id, func.count()).where(Peer.active.is_(True)).group_by(Peer.server_id)
    )
    counts: dict[str, int] = {server_id: n for server_id, n in count_rows}
    # Every server that could take the group, and every server that holds members (shown even when it cannot).
    room_servers = (
        (await db.execute(select(Server).where(Server.active.is_(True), Server.allow_partys.is_(True)))).scalars().all()
    )
    servers = {s.id: s for s in room_servers} | held
    candidates: list[_Candidate] = []
    options: list[PlaceServer] = []
    for server in servers.values():
        peers = counts.get(server.id, 0)
        online = is_online(server)
        accepts = online and server.hosts_rooms and peers < server.capacity
        place = " ".join(server.ubication.split()).casefold()
        here = by_server.get(server.id, 0)
        nearby = places.get(place, 0) - here if place else 0
        if accepts:
            candidates.append(_Candidate(server, here, nearby, peers, worst.get(server.id)))
        options.append(
            PlaceServer(
                id=server.id,
                name=server.name,
                ubication=server.ubication,
                members=here,
                online=online,
                accepts_peers=accepts,
                peers=peers,
                capacity=server.capacity,
                recommended=False,
            )
        )
    best = min(candidates, key=_Candidate.rank) if candidates and members else None
    for option in options:
        option.recommended = best is not None and option.id == best.server.id
    options.sort(key=lambda o: (-o.members, not o.accepts_peers, o.name))
    if best is None:
        reason = NO_SERVER if members else ""
        return RoomPlacement(members=members, servers=options, recommended=None, reason=reason, to_move=[])
    to_move = [m.peer for m in members if m.mine and m.server != best.server.id]
    return RoomPlacement(
        members=members,
        servers=options,
        recommended=best.server.id,
        reason=_reason(best, len(members), by_server, measured=len([m for m in members if m.rtt_ms is not None])),
        to_move=to_move,
    )
