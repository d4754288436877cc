"""The peers' parts for their controllers (domain/peers/controllers.py, and the usage controller's ownership
check): the peer service, the mirror link fetch and the manager's peer actions, the last two built per request."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.di import Provide

from controlplane.dependencies import Part, after_customer, services_of
from controlplane.domain.peers.mirror_links import MirrorLinks
from controlplane.domain.peers.service import PeerService
from controlplane.domain.peers.staff import StaffPeers


async def provide_peers(request: Request[Any, Any, Any]) -> PeerService:
    return services_of(request).peers


async def provide_mirror_links(request: Request[Any, Any, Any]) -> MirrorLinks:
    services = services_of(request)
    return MirrorLinks(
        services.peers, services.limiter, services.settings.rate_limits, services.box, services.hub,
        services.sessionmaker,
    )  # fmt: skip


async def provide_staff_peers(request: Request[Any, Any, Any]) -> StaffPeers:
    services = services_of(request)
    return StaffPeers(services.accounts, services.servers, services.peers)


Peers = Part[PeerService]
MirrorLinksDep = Part[MirrorLinks]
StaffPeersDep = Part[StaffPeers]

CUSTOMER_PEERS = {"peers": after_customer(provide_peers)}
MIRROR = {"peers": Provide(provide_peers), "mirror_links": Provide(provide_mirror_links)}
STAFF_PEERS = {"peers": Provide(provide_peers), "staff_peers": Provide(provide_staff_peers)}
