"""A node's desired state (the full state) and the delta messages of its operations, read from the database."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import bindparam, exists, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.crypto import SecretBox
from controlplane.domain.guest_passes.models import GuestPass
from controlplane.domain.peers.models import HELD_BY_NODE, Peer
from controlplane.domain.rooms.models import RoomMember
from controlplane.domain.servers.addresses import node_address
from controlplane.domain.servers.models import Server
from controlplane.nodes.backbone import allowed_ips, backbone_spec
from controlplane.nodes.models import NodeOperation
from protos import agent_pb2

# A guest pass's peer reaches only its room (docs/rooms.md, "Guest peers"): the node is told so with the peer itself,
# so the restriction comes and goes with the peer, whatever rooms it is in (none: it reaches nobody).
ROOM_ONLY = exists().where(GuestPass.peer_id == Peer.id)
# What a PeerSpec is built from (see _peer_spec).
PEER_SPEC_COLUMNS = (Peer.public_key, Peer.preshared_key_enc, Peer.address, ROOM_ONLY)
# The same, for a peer's pending move or key rotation (docs/operations.md): the pending value where there is one.
PENDING_SPEC_COLUMNS = (
    func.coalesce(Peer.pending_public_key, Peer.public_key),
    func.coalesce(Peer.pending_preshared_key_enc, Peer.preshared_key_enc),
    func.coalesce(Peer.pending_address, Peer.address),
    ROOM_ONLY,
)

# A regenerate's or a move's delta (the change path, built once: docs/benchmarks.md, "Cost per change"). Only while
# this very operation holds the pending change: once settled, the correction says the rest.
_PENDING_PEERS = select(*PENDING_SPEC_COLUMNS).where(
    Peer.id.in_(bindparam("ids", expanding=True)),
    Peer.pending_server_id == bindparam("server_id"),
    Peer.pending_operation_id == bindparam("operation_id"),
    HELD_BY_NODE,
)


def _peer_spec(
    box: SecretBox, public_key: str, preshared_key_enc: str, address: str, room_only: bool
) -> agent_pb2.PeerSpec:
    return agent_pb2.PeerSpec(
        public_key=public_key,
        preshared_key=box.decrypt(preshared_key_enc),
        allowed_ips=allowed_ips(address),
        room_only=bool(room_only),
    )


@dataclass(slots=True)
class UnsealedFullState:
    """A node's full state as read from the database, its peers' preshared keys still encrypted.

    Reading is the transaction's work; decrypting and building the peers (most of a 5 000-peer snapshot's
    CPU) happens in `build`, after the transaction has ended, so a reconnecting node holds no transaction
    (on SQLite: no lock) while the others wait.
    """

    message: agent_pb2.FullState  # everything but the peers
    peer_rows: list[tuple[str, str, str, bool]]  # (public key, encrypted preshared key, address, room only)

    def build(self, box: SecretBox) -> agent_pb2.FullState:
        add = self.message.peers.add  # adding in place: half the cost of PeerSpec(...) then a list copy
        decrypt = box.decrypt
        for public_key, preshared_key_enc, address, room_only in self.peer_rows:
            key = decrypt(preshared_key_enc)
            spec = add(public_key=public_key, preshared_key=key, allowed_ips=allowed_ips(address))
            if room_only:  # a few guests among thousands: set only on theirs
                spec.room_only = True
        self.peer_rows = []
        return self.message


def interface_spec(server: Server) -> agent_pb2.InterfaceSpec:
    return agent_pb2.InterfaceSpec(
        name=server.interface_name, listen_port=server.port, addresses=[str(node_address(server.tunnel_subnet))]
    )


async def full_state(db: AsyncSession, box: SecretBox, server: Server) -> agent_pb2.FullState:
    """Everything the node should hold: its interface, every active peer placed on it, every room with a member
    on it (with all its members, wherever they are) and its backbone to the other room-enabled nodes."""
    return (await read_full_state(db, server)).build(box)


async def read_full_state(db: AsyncSession, server: Server) -> UnsealedFullState:
    """The database part of `full_state`: every row it needs, nothing decrypted yet."""
    # Through the Core connection: plain rows, without the ORM's per-row loading (a third of the read's CPU).
    connection = await db.connection()
    # Committed peers, but a pending change on this node shows as its pending form (while its operation is
    # pending: the pending columns live exactly that long), so a snapshot that covers the operation applies it.
    rows = await connection.execute(
        select(*PEER_SPEC_COLUMNS)
        .where(
            Peer.server_id == server.id,
            HELD_BY_NODE,
            or_(Peer.pending_server_id.is_(None), Peer.pending_server_id != server.id),
        )
        .union_all(select(*PENDING_SPEC_COLUMNS).where(Peer.pending_server_id == server.id, HELD_BY_NODE))
    )
    peer_rows = [
        (public_key, preshared_key_enc, address, room_only)
        for public_key, preshared_key_enc, address, room_only in rows
    ]
    rooms = await room_specs(db, await rooms_touching(db, server.id))
    message = agent_pb2.FullState(
        serial=server.serial,
        interface=interface_spec(server),
        rooms=list(rooms.values()),
        backbone=await backbone_spec(db, server),
        operation_id=f"full:{server.serial}",
    )
    return UnsealedFullState(message, peer_rows)


async def rooms_touching(db: AsyncSession, server_id: str) -> list[str]:
    """Ids of the rooms with at least one member peer placed on this node: the rooms it enforces."""
    rows = await db.execute(
        select(RoomMember.room_id)
        .join(Peer, Peer.id == RoomMember.peer_id)
        .where(Peer.server_id == server_id)
        .distinct()
    )
    return list(rows.scalars())


async def room_specs(db: AsyncSession, room_ids: Iterable[str]) -> dict[str, agent_pb2.RoomSpec]:
    """Each room's member tunnel addresses across every server. Disabled or expired peers stay members (their
    node has dropped their key, so their address carries nothing meanwhile) and are back when renewed."""
    ids = sorted(set(room_ids))
    if not ids:
        return {}
    rows = await db.execute(
        select(RoomMember.room_id, Peer.address)
        .join(Peer, Peer.id == RoomMember.peer_id)
        .where(RoomMember.room_id.in_(ids))
        .order_by(RoomMember.room_id, Peer.address)
    )
    members: dict[str, list[str]] = {}
    for room_id, address in rows:
        members.setdefault(room_id, []).append(address)
    return {pid: agent_pb2.RoomSpec(id=pid, members=addresses) for pid, addresses in members.items()}


async def delta_message(db: AsyncSession, box: SecretBox, operation: NodeOperation) -> agent_pb2.Delta:
    """Turn an operation into a Delta, reading the peers' current keys; peers gone or off the node are skipped
    (a later operation on them says what to do)."""
    change = operation.delta
    upsert_ids = list(change.upsert_peers)
    peers = []
    if upsert_ids:
        rows = await db.execute(
            select(*PEER_SPEC_COLUMNS).where(
                Peer.id.in_(upsert_ids), Peer.server_id == operation.server_id, HELD_BY_NODE
            )
        )
        peers = [_peer_spec(box, *row) for row in rows]
    pending_ids = list(change.pending_peers)
    if pending_ids:
        rows = await db.execute(
            _PENDING_PEERS, {"ids": pending_ids, "server_id": operation.server_id, "operation_id": operation.id}
        )
        peers += [_peer_spec(box, *row) for row in rows]
    rooms = await room_specs(db, change.upsert_rooms)
    # A room deleted since the operation was queued has no members left: the node drops it.
    gone = [pid for pid in change.upsert_rooms if pid not in rooms]
    delta = agent_pb2.Delta(
        operation_id=operation.id,
        serial=operation.serial,
        upsert_peers=peers,
        remove_peers=change.remove_peers,
        upsert_rooms=list(rooms.values()),
        remove_rooms=sorted({*change.remove_rooms, *gone}),
    )
    if change.backbone:
        server = await db.get(Server, operation.server_id)
        if server is not None:
            delta.backbone.CopyFrom(await backbone_spec(db, server))
    return delta
