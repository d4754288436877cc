"""The mirror link's device binding (docs/api.md, "Mirror links"): turn it on or off, free the bound device, confirm a
device's code. Synchronous, like regenerate_token; the rules live in `domain/peers/mirror_binding.py`, which the
public mirror fetch shares."""

from __future__ import annotations

from typing import Annotated

import msgspec
from sqlalchemy.ext.asyncio import AsyncSession

from controlplane.domain.peers import mirror_binding
from controlplane.domain.peers.operations.base import Context, Done, PeerOperation
from controlplane.errors import Invalid

_HINT = mirror_binding.REGENERATE_HINT


class PeerMirrorBinding(msgspec.Struct, tag_field="operation", tag="mirror_binding", forbid_unknown_fields=True):
    """Turn the device binding on or off (200)."""

    enabled: bool | None = None


class PeerReleaseMirrorDevice(
    msgspec.Struct, tag_field="operation", tag="release_mirror_device", forbid_unknown_fields=True
):
    """Free the bound device (200)."""


class PeerConfirmMirrorDevice(
    msgspec.Struct, tag_field="operation", tag="confirm_mirror_device", forbid_unknown_fields=True
):
    """Bind the device that shows `code` (200)."""

    code: Annotated[str, msgspec.Meta(max_length=16)] | None = None


async def set_binding(
    context: Context, db: AsyncSession, user_id: str, peer_id: str, request: PeerMirrorBinding
) -> Done:
    if request.enabled is None:
        raise Invalid("Indique si activar la vinculación.", code="enabled_required", fields={"enabled": "Obligatorio."})
    peer = await mirror_binding.set_binding(db, context.peers, user_id, peer_id, request.enabled)
    if request.enabled:
        return Done(
            peer,
            "Vinculación activada: el dispositivo que use el enlace mirror le mostrará un código de vinculación;"
            f" escríbalo aquí para vincularlo. {_HINT}",
        )
    return Done(peer, "Vinculación desactivada: el enlace mirror funciona en cualquier dispositivo.")


async def release(context: Context, db: AsyncSession, user_id: str, peer_id: str, _: PeerReleaseMirrorDevice) -> Done:
    peer = await mirror_binding.release(db, context.peers, user_id, peer_id)
    return Done(
        peer,
        "El enlace mirror quedó libre: el dispositivo que lo use le mostrará un código de vinculación; escríbalo aquí"
        f" para vincularlo. {_HINT}",
    )


async def confirm(
    context: Context, db: AsyncSession, user_id: str, peer_id: str, request: PeerConfirmMirrorDevice
) -> Done:
    peer = await mirror_binding.confirm(db, context.peers, context.limiter, user_id, peer_id, request.code)
    return Done(peer, "Código aceptado: el dispositivo que lo muestra quedará vinculado en su próxima consulta.")


MIRROR_BINDING = PeerOperation(name="mirror_binding", request=PeerMirrorBinding, start=set_binding)
RELEASE_MIRROR_DEVICE = PeerOperation(name="release_mirror_device", request=PeerReleaseMirrorDevice, start=release)
CONFIRM_MIRROR_DEVICE = PeerOperation(name="confirm_mirror_device", request=PeerConfirmMirrorDevice, start=confirm)
