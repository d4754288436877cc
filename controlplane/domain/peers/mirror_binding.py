"""Mirror links bound to one device (docs/api.md, "Mirror links"): optional per peer, off by default.

With the binding on, the game-connect client names its device in the `X-Device-Id` header; the first device that
fetches the link is kept (as a keyed hash, like the link's own token) and any other one is refused with 409 until
the customer releases the binding from the peer's details. A fetch without the header is refused too: otherwise
leaving the header out would get round the binding. With the binding off the link behaves as it always did."""

from __future__ import annotations

import functools
import re

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.crypto import SecretBox
from controlplane.db import after_commit, transaction
from controlplane.domain.peers.models import Peer
from controlplane.domain.peers.service import PeerInactive, PeerService
from controlplane.errors import BadRequest, Conflict
from controlplane.realtime.hub import PushHub
from controlplane.realtime.messages import UpdatedPeer

DEVICE_HEADER = "X-Device-Id"
# Whatever stable identifier the client app keeps (a UUID, an Android id): printable ASCII without spaces.
DEVICE_ID_RE = re.compile(r"^[\x21-\x7e]{8,128}$")


class MirrorDeviceMismatch(Conflict):
    code = "mirror_device_mismatch"
    message = (
        "Este enlace está vinculado a otro dispositivo. Si cambió de dispositivo, libere la vinculación en los"
        " detalles del peer y vuelva a intentarlo."
    )


class MirrorDeviceRequired(Conflict):
    code = "mirror_device_required"
    message = (
        "Este enlace está vinculado a un dispositivo y la aplicación no envió su identificador. Actualice la"
        " aplicación o desactive la vinculación en los detalles del peer."
    )


class InvalidDeviceId(BadRequest):
    code = "invalid_device_id"
    message = "El identificador de dispositivo no es válido (de 8 a 128 caracteres visibles, sin espacios)."


async def admit(
    sessionmaker: async_sessionmaker[AsyncSession],
    box: SecretBox,
    peers: PeerService,
    hub: PushHub,
    peer: Peer,
    device_id: str | None,
) -> None:
    """Let this fetch of the peer's mirror link through, or refuse it. The first device of a bound link claims it in
    a transaction of its own (the mirror's request only reads); of two first fetches at once, one claims it and the
    other is refused like any other device."""
    if not peer.mirror_device_binding:
        return
    if not device_id:
        raise MirrorDeviceRequired()
    if not DEVICE_ID_RE.match(device_id):
        raise InvalidDeviceId()
    device_hash = box.lookup_hash(device_id)
    if peer.mirror_device_hash == device_hash:
        return
    if peer.mirror_device_hash is not None:
        raise MirrorDeviceMismatch()
    # A conditional UPDATE, not read-then-write: of two first fetches only one can match the empty column (on
    # SQLite too). Being a bulk statement it makes every cached peer list stale once (domain/peers/lists.py): a
    # first fetch of a bound link is rare.
    async with transaction(sessionmaker) as db:
        claimed = await db.execute(
            update(Peer)
            .where(Peer.id == peer.id, Peer.mirror_device_binding.is_(True), Peer.mirror_device_hash.is_(None))
            .values(mirror_device_hash=device_hash)
        )
        if claimed.rowcount != 1:  # type: ignore[attr-defined]
            binding, holder = (
                await db.execute(select(Peer.mirror_device_binding, Peer.mirror_device_hash).where(Peer.id == peer.id))
            ).one()
            if binding and holder != device_hash:
                raise MirrorDeviceMismatch()
            return
        bound = await db.execute(select(Peer).where(Peer.id == peer.id).execution_options(populate_existing=True))
        _push_peer(db, peers, hub, bound.scalar_one())


async def set_binding(db: AsyncSession, peers: PeerService, user_id: str, peer_id: str, enabled: bool) -> Peer:
    """The customer turns the binding on or off. Either way no device is bound afterwards: once on, the next device
    to fetch the link is the one kept."""
    peer = await peers.owned(db, user_id, peer_id, lock=True)
    if not peer.active:
        raise PeerInactive()
    peer.mirror_device_binding = enabled
    peer.mirror_device_hash = None
    await db.flush()
    return peer


async def release(db: AsyncSession, peers: PeerService, user_id: str, peer_id: str) -> Peer:
    """The customer frees the bound device (a new phone): the next device to fetch the link is kept."""
    peer = await peers.owned(db, user_id, peer_id, lock=True)
    peer.mirror_device_hash = None
    await db.flush()
    return peer


def _push_peer(db: AsyncSession, peers: PeerService, hub: PushHub, peer: Peer) -> None:
    """The owner's pages show the link as bound from now on."""
    push = UpdatedPeer(data=peers.view(peer))
    after_commit(db, functools.partial(hub.push, peer.user_id, push))
