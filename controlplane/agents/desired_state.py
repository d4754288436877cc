"""Builds a node's desired state (full snapshot) and the deltas of its operations, from the database."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.crypto import SecretBox
from controlplane.domain.peers.models import NodeOperation, Peer
from controlplane.domain.servers.addresses import node_address
from controlplane.domain.servers.models import Server
from protos import agent_pb2

# What a PeerSpec is built from (see _peer_spec).
PEER_SPEC_COLUMNS = (Peer.public_key, Peer.preshared_key_enc, Peer.address)


def _allowed_ips(address: str) -> list[str]:
    return [f"{address}/128" if ":" in address else f"{address}/32"]


def _peer_spec(box: SecretBox, public_key: str, preshared_key_enc: str, address: str) -> agent_pb2.PeerSpec:
    return agent_pb2.PeerSpec(
        public_key=public_key, preshared_key=box.decrypt(preshared_key_enc), allowed_ips=_allowed_ips(address)
    )


def interface_spec(server: Server) -> agent_pb2.InterfaceSpec:
    return agent_pb2.InterfaceSpec(
        name=server.interface_name, listen_port=server.port, addresses=[str(node_address(server.tunnel_subnet))]
    )


async def full_state(db: AsyncSession, box: SecretBox, server: Server) -> agent_pb2.FullState:
    """Everything the node should hold: its interface and every active peer placed on it."""
    rows = await db.execute(select(*PEER_SPEC_COLUMNS).where(Peer.server_id == server.id, Peer.active.is_(True)))
    return agent_pb2.FullState(
        serial=server.serial,
        interface=interface_spec(server),
        peers=[_peer_spec(box, *row) for row in rows],
        operation_id=f"full:{server.serial}",
    )


def delta_payload(upsert_peer_ids: Iterable[str] = (), remove_public_keys: Iterable[str] = ()) -> dict[str, Any]:
    """What an operation stores: references to the desired state, never key material (secrets stay encrypted)."""
    return {"upsert_peers": list(upsert_peer_ids), "remove_peers": list(remove_public_keys)}


async def delta_message(db: AsyncSession, box: SecretBox, operation: NodeOperation) -> agent_pb2.Delta:
    """Turn an operation into a Delta, reading the peers' current keys; peers gone or off the node are skipped
    (a later operation on them says what to do)."""
    upsert_ids = operation.delta.get("upsert_peers", [])
    peers = []
    if upsert_ids:
        rows = await db.execute(
            select(*PEER_SPEC_COLUMNS).where(
                Peer.id.in_(upsert_ids), Peer.server_id == operation.server_id, Peer.active.is_(True)
            )
        )
        peers = [_peer_spec(box, *row) for row in rows]
    return agent_pb2.Delta(
        operation_id=operation.id,
        serial=operation.serial,
        upsert_peers=peers,
        remove_peers=operation.delta.get("remove_peers", []),
    )
