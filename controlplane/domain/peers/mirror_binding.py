"""Mirror links bound to one device (docs/api.md, "Mirror links"): optional per peer, off by default.

With the binding on, the game-connect client names its device in the `X-Device-Id` header, and a device is bound only
when the peer's owner says it is theirs: a device the link does not serve is answered 409 with a six-digit pairing
code (derived from its id and the peer), which the app shows; the owner types that code in the peer's details, and
the device showing it is bound at its next fetch. So whoever else holds the link (a leaked link) is never bound by
turning the binding on or by releasing it: the first fetch is no longer the one kept. A link someone else holds is
ended only by regenerating it, which the texts say.

Each token's fetches are counted twice over: the bound device (or the device the owner just confirmed) spends the
link's own budget (`mirror_per_token`), every other device one of its own (`mirror_others_per_token`), so a stranger
polling the link cannot make the owner's device wait. With the binding off the link behaves as it always did."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from controlplane.crypto import SecretBox
from controlplane.db import after_commit, transaction
from controlplane.domain.peers.errors import PeerInactive
from controlplane.domain.peers.models import Peer
from controlplane.errors import BadRequest, Conflict, Invalid
from controlplane.ratelimit import RateLimiter
from controlplane.realtime.hub import PushHub
from controlplane.realtime.messages import UpdatedPeer
from controlplane.settings import RateLimits

if TYPE_CHECKING:
    from controlplane.domain.peers.service import PeerService

DEVICE_HEADER = "X-Device-Id"
# Whatever stable identifier the client app keeps (a UUID, an Android id): printable ASCII without spaces.
DEVICE_ID_RE = re.compile(r"^[\x21-\x7e]{8,128}$")
CODE_RE = re.compile(r"^\d{6}$")
# How long the owner's confirmation waits for the device's next fetch. A stranger would need a device id whose code
# is the confirmed one: one chance in a million per id, each try spending the others' budget (30 a minute).
CONFIRMATION_SECONDS = 600
REGENERATE_HINT = "Si otra persona tiene el enlace, regenérelo: el actual dejará de funcionar."


class MirrorDeviceUnconfirmed(Conflict):
    code = "mirror_device_unconfirmed"


class MirrorDeviceMismatch(Conflict):
    code = "mirror_device_mismatch"


class MirrorDeviceRequired(Conflict):
    code = "mirror_device_required"
    message = (
        "Este enlace está vinculado a un dispositivo y la aplicación no envió su identificador. Actualice la"
        " aplicación o desactive la vinculación en los detalles del peer."
    )


class InvalidDeviceId(BadRequest):
    code = "invalid_device_id"
    message = "El identificador de dispositivo no es válido (de 8 a 128 caracteres visibles, sin espacios)."


def pairing_code(box: SecretBox, peer: Peer, device_hash: str) -> str:
    """The six digits a device shows its owner: the same for one device and peer, unguessable without the key."""
    return f"{int(box.lookup_hash(f'mirror-pairing:{peer.id}:{device_hash}'), 16) % 1_000_000:06d}"


def _confirmation_key(peer: Peer, code: str) -> str:
    return f"mirror-confirmed:{peer.id}:{code}"


async def admit(
    sessionmaker: async_sessionmaker[AsyncSession],
    box: SecretBox,
    limiter: RateLimiter,
    limits: RateLimits,
    peers: PeerService,
    hub: PushHub,
    peer: Peer,
    device_id: str | None,
) -> None:
    """Let this fetch of the peer's mirror link through, or refuse it (429 from the budget it spends)."""
    owners_budget, others_budget = f"mirror:{peer.mirror_token_hash}", f"mirror-others:{peer.mirror_token_hash}"
    if not peer.mirror_device_binding:
        await limiter.hit(owners_budget, limits.mirror_per_token)
        return
    if not device_id or not DEVICE_ID_RE.match(device_id):
        await limiter.hit(others_budget, limits.mirror_others_per_token)
        raise MirrorDeviceRequired() if not device_id else InvalidDeviceId()
    device_hash = box.lookup_hash(device_id)
    if peer.mirror_device_hash == device_hash:
        await limiter.hit(owners_budget, limits.mirror_per_token)
        return
    code = pairing_code(box, peer, device_hash)
    if await limiter.held(_confirmation_key(peer, code)):
        await limiter.hit(owners_budget, limits.mirror_per_token)
        await _bind(sessionmaker, peers, hub, peer, device_hash)
        await limiter.reset(_confirmation_key(peer, code))
        return
    await limiter.hit(others_budget, limits.mirror_others_per_token)
    if peer.mirror_device_hash is None:
        raise MirrorDeviceUnconfirmed(
            f"Este dispositivo espera la confirmación del dueño del peer. Código de vinculación: {code}. Escríbalo en"
            " los detalles del peer para vincular este dispositivo.",
            extra={"device_code": code},
        )
    raise MirrorDeviceMismatch(
        f"Este enlace está vinculado a otro dispositivo. Para usarlo en este, el dueño del peer debe escribir el"
        f" código {code} en los detalles del peer.",
        extra={"device_code": code},
    )


async def _bind(
    sessionmaker: async_sessionmaker[AsyncSession], peers: PeerService, hub: PushHub, peer: Peer, device_hash: str
) -> None:
    """The confirmed device replaces whichever was bound (the mirror's request only reads: a transaction of its
    own). A bulk statement, so every cached peer list goes stale once (domain/peers/lists.py): binding is rare."""
    async with transaction(sessionmaker) as db:
        changed = await db.execute(
            update(Peer)
            .where(Peer.id == peer.id, Peer.mirror_device_binding.is_(True))
            .values(mirror_device_hash=device_hash)
        )
        if changed.rowcount != 1:  # type: ignore[attr-defined]
            return  # turned off meanwhile: served like any fetch of an unbound link
        bound = await db.execute(select(Peer).where(Peer.id == peer.id).execution_options(populate_existing=True))
        _push_peer(db, peers, hub, bound.scalar_one())


async def set_binding(db: AsyncSession, peers: PeerService, user_id: str, peer_id: str, enabled: bool) -> Peer:
    """The customer turns the binding on or off. Either way no device is bound afterwards: once on, a device is
    bound only when the owner confirms the code it shows (`confirm`)."""
    peer = await peers.owned(db, user_id, peer_id, lock=True)
    if not peer.active:
        raise PeerInactive()
    peer.mirror_device_binding = enabled
    peer.mirror_device_hash = None
    await db.flush()
    return peer


async def release(db: AsyncSession, peers: PeerService, user_id: str, peer_id: str) -> Peer:
    """The customer frees the bound device: the link serves no device until the owner confirms another's code."""
    peer = await peers.owned(db, user_id, peer_id, lock=True)
    peer.mirror_device_hash = None
    await db.flush()
    return peer


async def confirm(
    db: AsyncSession, peers: PeerService, limiter: RateLimiter, user_id: str, peer_id: str, code: str | None
) -> Peer:
    """The owner types the code their device shows: that device is bound at its next fetch (within
    CONFIRMATION_SECONDS), replacing any other. Kept by the rate limiter (Redis when set), so any process sees it."""
    peer = await peers.owned(db, user_id, peer_id)
    code = (code or "").strip()
    if not CODE_RE.match(code):
        raise Invalid(
            "Escriba el código de 6 dígitos que muestra el dispositivo.",
            code="invalid_device_code",
            fields={"code": "Seis dígitos."},
        )
    if not peer.active:
        raise PeerInactive()
    if not peer.mirror_device_binding:
        raise Conflict("Active primero la vinculación del mirror link.", code="mirror_binding_off")
    await limiter.hold(_confirmation_key(peer, code), CONFIRMATION_SECONDS)
    return peer


def _push_peer(db: AsyncSession, peers: PeerService, hub: PushHub, peer: Peer) -> None:
    """The owner's pages show the link as bound from now on."""
    push = UpdatedPeer(data=peers.view(peer))
    after_commit(db, functools.partial(hub.push, peer.user_id, push))
