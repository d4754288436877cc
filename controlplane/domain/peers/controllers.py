"""Customer peer endpoints (docs/contract.md#peer-calls), the public mirror links, and the manager's Peers page
(`/api/admin/peers`)."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

import msgspec
from litestar import Controller, MediaType, Request, Response, get, patch, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody, QueryParameter
from litestar.response.base import ASGIResponse

from controlplane.dependencies import (
    CUSTOMER,
    DB,
    RESOLVES_CUSTOMER,
    Audit,
    ClientIP,
    Customer,
    Limiter,
    customer_area,
    provide_customer,
    services_of,
)
from controlplane.domain.accounts.guards import admin_only, admin_or_support
from controlplane.domain.audit.actions import AuditAction
from controlplane.domain.audit.trail import audited
from controlplane.domain.peers import mirror_binding, operations, schemas, staff_schemas
from controlplane.domain.peers.config_file import content_disposition
from controlplane.domain.peers.dependencies import (
    CUSTOMER_PEERS,
    MIRROR,
    STAFF_PEERS,
    MirrorLinksDep,
    Peers,
    StaffPeersDep,
)
from controlplane.domain.peers.staff import search_peers
from controlplane.domain.staff_forms import Page, PageSize, Search
from controlplane.query_params import LOOSE_QUERY


class PeerController(Controller):
    path = "/api/client"
    tags = ["peers"]
    before_request = staticmethod(customer_area)
    dependencies = {**CUSTOMER, **CUSTOMER_PEERS}

    @get(
        "/accounts/peers",
        operation_id="listPeers",
        opt={RESOLVES_CUSTOMER: True},
        responses={200: ResponseSpec(list[schemas.PeerView], generate_examples=False, description="Sus peers")},
    )
    async def list_peers(self, request: Request[Any, Any, Any]) -> ASGIResponse:
        # The hottest request of the service, written for it (docs/benchmarks.md, "Peer list"): no dependency
        # injected (resolving `customer` and `peers` was a fifth of a cached list's CPU) and the list's JSON as the
        # cache holds it, answered as it is.
        customer = await provide_customer(request)
        body = await services_of(request).peers.list_json_for(customer.user_id)
        return ASGIResponse(body=body, media_type=MediaType.JSON)

    @get(
        "/accounts/peers/{peer_id:str}",
        operation_id="downloadPeerConfig",
        media_type=MediaType.TEXT,
        opt={"errors": (409,)},
    )
    async def download(self, peers: Peers, db: DB, customer: Customer, peer_id: FromPath[str]) -> Response[str]:
        peer = await peers.owned(db, customer.user_id, peer_id)
        text = await peers.config_text(db, peer)
        return Response(
            text,
            media_type=MediaType.TEXT,
            headers={
                "Content-Disposition": content_disposition("attachment", peer.name),
                "Cache-Control": "no-store",
            },
        )

    @patch(
        "/accounts/peers/{peer_id:str}",
        operation_id="operatePeer",
        opt={"errors": (409,)},
        # Two answers (docs/api.md, "Peers"): the link and device-binding operations are done when they
        # answer; new keys and a move are accepted and end later, told by push.
        responses={
            200: ResponseSpec(schemas.PeerUpdated, generate_examples=False, description="Hecho: el peer como queda"),
            202: ResponseSpec(
                schemas.PeerOperationAccepted,
                generate_examples=False,
                description="Aceptado: el resultado llega por push",
            ),
        },
    )
    async def operate(
        self,
        peers: Peers,
        limiter: Limiter,
        db: DB,
        customer: Customer,
        peer_id: FromPath[str],
        data: JSONBody[operations.PeerOperationRequest],
    ) -> Response[Any]:
        # One module per operation (domain/peers/operations/): it checks, starts and says what to answer.
        outcome = await peers.operate(db, limiter, customer.user_id, peer_id, data)
        await db.flush()  # the view carries the version of what it shows (domain/versions.py)
        view = peers.view(outcome.peer)
        if isinstance(outcome, operations.Done):
            return Response(schemas.PeerUpdated(**msgspec.structs.asdict(view), message=outcome.message))
        # The answer's message is the running operation's own text: the view, a poll and a reload say the same.
        message = view.operation.message if view.operation is not None else ""
        return Response(schemas.PeerOperationAccepted(success=True, message=message, data=view), status_code=202)

    @get("/network/{peer_id:str}", operation_id="serversForPeer")
    async def servers_for_peer(
        self, peers: Peers, db: DB, customer: Customer, peer_id: FromPath[str]
    ) -> list[schemas.ServerOption]:
        return await peers.available_servers(db, customer.user_id, peer_id)


class MirrorController(Controller):
    """`GET /mirror/{token}`: the game-connect client fetches the current configuration without logging in."""

    path = "/mirror"
    tags = ["mirror"]
    dependencies = MIRROR

    @get(
        "/{token:str}",
        operation_id="mirrorConfig",
        media_type=MediaType.TEXT,
        # The game-connect client may add query parameters of its own (docs/api.md, "Query strings").
        opt={"maintenance_exempt": True, "errors": (400, 409, 429), **LOOSE_QUERY},
        responses={304: ResponseSpec(None, description="Sin cambios desde el ETag enviado en If-None-Match")},
    )
    async def mirror(
        self,
        request: Request[Any, Any, Any],
        mirror_links: MirrorLinksDep,
        peers: Peers,
        db: DB,
        ip: ClientIP,
        token: FromPath[str],
    ) -> Response[str]:
        peer = await mirror_links.fetch(db, token, ip, request.headers.get(mirror_binding.DEVICE_HEADER))
        text = await peers.config_text(db, peer)
        etag = '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'
        headers = {
            "ETag": etag,
            # The configuration holds the private key: never kept by a cache (clients keep the ETag themselves).
            "Cache-Control": "no-store",
            "Content-Disposition": content_disposition("inline", peer.name),
        }
        if request.headers.get("if-none-match") == etag:
            return Response("", status_code=304, headers=headers)
        return Response(text, media_type=MediaType.TEXT, headers=headers)


class AdminPeerController(Controller):
    path = "/api/admin/peers"
    tags = ["admin"]
    dependencies = STAFF_PEERS

    @get("/", operation_id="adminSearchPeers", guards=[admin_or_support])
    async def search(
        self,
        db: DB,
        q: Search = "",
        server: Annotated[str, QueryParameter(max_length=64)] = "",
        active: Annotated[bool | None, QueryParameter()] = None,
        page: Page = 1,
        page_size: PageSize = 25,
    ) -> staff_schemas.PeerPage:
        return await search_peers(db, q, server, active, page, page_size)

    @post(
        "/", status_code=201, operation_id="adminCreatePeer", guards=[admin_only],
        opt=audited(AuditAction.PEER_CREATE),
    )  # fmt: skip
    async def create_peer(
        self, staff_peers: StaffPeersDep, db: DB, audit: Audit, data: JSONBody[staff_schemas.PeerCreate]
    ) -> staff_schemas.StaffPeer:
        return await staff_peers.create(db, audit, data)

    @patch(
        "/{peer_id:str}", operation_id="adminUpdatePeer", guards=[admin_only],
        opt=audited(AuditAction.PEER_RENAME, AuditAction.PEER_UPDATE),
    )  # fmt: skip
    async def update(
        self, staff_peers: StaffPeersDep, db: DB, audit: Audit, peer_id: FromPath[str],
        data: JSONBody[staff_schemas.PeerPatch],
    ) -> staff_schemas.StaffPeer:  # fmt: skip
        return await staff_peers.update(db, audit, peer_id, data)

    @post(
        "/{peer_id:str}/move", status_code=202, operation_id="adminMovePeer", guards=[admin_or_support],
        opt=audited(AuditAction.PEER_MOVE),
    )  # fmt: skip
    async def move(
        self, staff_peers: StaffPeersDep, db: DB, audit: Audit, peer_id: FromPath[str],
        data: JSONBody[staff_schemas.PeerMove],
    ) -> staff_schemas.StaffPeer:  # fmt: skip
        """The customer's own change-server path: the owner's browsers hear the outcome as usual."""
        return await staff_peers.move(db, audit, peer_id, data.server)

    @post(
        "/{peer_id:str}/plans", status_code=200, operation_id="adminExtendPeer", guards=[admin_only],
        opt=audited(AuditAction.PEER_EXTEND),
    )  # fmt: skip
    async def extend(
        self, staff_peers: StaffPeersDep, db: DB, audit: Audit, peer_id: FromPath[str],
        data: JSONBody[staff_schemas.PeerExtend],
    ) -> staff_schemas.StaffPeer:  # fmt: skip
        return await staff_peers.extend(db, audit, peer_id, data.plan)
