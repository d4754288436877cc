"""A new name (`operation: "rename", name`): synchronous, a label the node never sees (`PeerService.rename`, which
staff's rename shares)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers.operations.base import Context, Done, PeerOperation


class PeerRename(msgspec.Struct, tag_field="operation", tag="rename", forbid_unknown_fields=True):
    """Rename the peer (200). The peer name rule is checked by the service, with a Spanish message; the length bound
    here only keeps a huge body out."""

    name: Annotated[str, msgspec.Meta(max_length=64)] | None = None


async def start(context: Context, db: AsyncSession, user_id: str, peer_id: str, request: PeerRename) -> Done:
    peer = await context.peers.rename(db, user_id, peer_id, request.name or "")
    return Done(peer, "Nombre del peer cambiado.")


OPERATION = PeerOperation(name="rename", request=PeerRename, start=start)
