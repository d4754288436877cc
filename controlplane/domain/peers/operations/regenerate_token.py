"""A new mirror link (`operation: "regenerate_token"`): synchronous; the old link answers 404 from this commit on."""

from __future__ import annotations

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.operations.base import Context, Done, PeerOperation


class PeerRegenerateToken(msgspec.Struct, tag_field="operation", tag="regenerate_token", forbid_unknown_fields=True):
    """A new mirror link (200)."""


async def start(context: Context, db: AsyncSession, user_id: str, peer_id: str, _: PeerRegenerateToken) -> Done:
    peers = context.peers
    peer = await peers.active_owned(db, user_id, peer_id)
    peers.new_mirror_token(peer)
    peer.mirror_device_hash = None  # a new link: the next device to fetch it is the one kept, if bound
    await db.flush()
    return Done(peer, "Mirror Link regenerado correctamente.")


OPERATION = PeerOperation(name="regenerate_token", request=PeerRegenerateToken, start=start)
